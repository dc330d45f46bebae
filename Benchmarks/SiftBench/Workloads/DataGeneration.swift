import Foundation

/// SplitMix64: a tiny, fast, seeded generator. Every data set is a pure function of its seed, so every run, every
/// machine and every candidate sees the same rows.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<bound` (multiply-high; stable across Swift versions, unlike `Int.random(in:using:)`).
    mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// Uniform in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// Uniform in `[0, 1)`.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
}

/// A deterministic pseudo-English vocabulary with Zipf-distributed word frequencies (rank 0 most frequent;
/// frequent words are short, as in English).
struct Vocabulary: Sendable {
    let words: [String]
    private let cumulative: [Double]

    init(size: Int = 10_000, seed: UInt64 = 0x5EED_0001) {
        var rng = SeededGenerator(seed: seed)
        let onsets = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "y",
                      "br", "ch", "cl", "cr", "dr", "fl", "gr", "pl", "pr", "sh", "sl", "sp", "st", "th", "tr", ""]
        let vowels = ["a", "e", "i", "o", "u", "ea", "ou", "ai", "io", "ee", "oo"]
        let codas = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "ck", "rt", "sh", "x"]
        var seen = Set<String>()
        var words: [String] = []
        words.reserveCapacity(size)
        while words.count < size {
            // 1 syllable for the most frequent ranks, up to 4 for the rare tail.
            let maxSyllables = words.count < 150 ? 1 : words.count < 2_000 ? 2 : words.count < 7_000 ? 3 : 4
            let syllables = 1 + rng.below(maxSyllables)
            var word = ""
            for _ in 0..<syllables {
                word += onsets[rng.below(onsets.count)] + vowels[rng.below(vowels.count)]
            }
            word += codas[rng.below(codas.count)]
            if word.count >= 2, seen.insert(word).inserted { words.append(word) }
        }
        self.words = words
        var total = 0.0
        cumulative = (0..<size).map { rank in
            total += 1.0 / Double(rank + 1)
            return total
        }
    }

    /// A Zipf-distributed rank.
    func sampleRank(_ rng: inout SeededGenerator) -> Int {
        let u = rng.unit() * cumulative[cumulative.count - 1]
        var low = 0, high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] < u { low = mid + 1 } else { high = mid }
        }
        return low
    }

    func sample(_ rng: inout SeededGenerator) -> String { words[sampleRank(&rng)] }

    /// A sentence of `count` words: first letter capitalized, ending with a period.
    func sentence(words count: Int, _ rng: inout SeededGenerator) -> String {
        var text = ""
        text.reserveCapacity(count * 8)
        for index in 0..<count {
            let word = sample(&rng)
            if index == 0 {
                text += word.prefix(1).uppercased() + word.dropFirst()
            } else {
                text += " " + word
            }
        }
        return text + "."
    }
}

/// One row of the 6-column ORM workloads: what a Sift model of table `items` holds.
struct BenchRecord: Sendable, Equatable {
    var id: Int64
    var number: Int64
    var score: Double
    var name: String     // ~20 characters
    var note: String     // ~40 characters
    var created: Date    // stored as INTEGER seconds since 1970
}

/// One document of the full-text workloads (table `docs`, indexed by FTS5 table `fts`).
struct BenchDocument: Sendable, Equatable {
    var id: Int64
    var title: String    // 3-6 words
    var body: String     // 25-35 words
}

enum DataGenerator {
    /// `count` records with ids 1...count.
    static func records(count: Int, vocabulary: Vocabulary, seed: UInt64 = 0x5EED_0002) -> [BenchRecord] {
        var rng = SeededGenerator(seed: seed)
        var records: [BenchRecord] = []
        records.reserveCapacity(count)
        for index in 0..<count {
            records.append(BenchRecord(
                id: Int64(index + 1),
                number: Int64(rng.below(1_000_000)),
                score: (rng.unit() * 100_000).rounded() / 100,
                name: text(atLeast: 18, vocabulary: vocabulary, &rng),
                note: text(atLeast: 38, vocabulary: vocabulary, &rng),
                created: Date(timeIntervalSince1970: Double(1_600_000_000 + rng.below(100_000_000)))))
        }
        return records
    }

    /// `count` documents with ids 1...count, ~30 words (~280 bytes) each.
    static func documents(count: Int, vocabulary: Vocabulary, seed: UInt64 = 0x5EED_0003) -> [BenchDocument] {
        var rng = SeededGenerator(seed: seed)
        var documents: [BenchDocument] = []
        documents.reserveCapacity(count)
        for index in 0..<count {
            let title = vocabulary.sentence(words: rng.int(in: 3...6), &rng)
            let body = vocabulary.sentence(words: rng.int(in: 25...35), &rng)
            documents.append(BenchDocument(id: Int64(index + 1), title: String(title.dropLast()), body: body))
        }
        return documents
    }

    /// User-typed searches of 1-3 words. One-word searches pick a word of any but the 50 most frequent ranks
    /// (log-uniform, so hit counts range from tens to thousands); longer searches pick words of one existing
    /// document, so they have at least one hit.
    static func queries(count: Int, documents: [BenchDocument], vocabulary: Vocabulary,
                        seed: UInt64 = 0x5EED_0004) -> [String] {
        var rng = SeededGenerator(seed: seed)
        var rankOf: [String: Int] = [:]
        for (rank, word) in vocabulary.words.enumerated() { rankOf[word] = rank }
        let logLow = log(50.0), logHigh = log(Double(vocabulary.words.count))
        var queries: [String] = []
        queries.reserveCapacity(count)
        while queries.count < count {
            let roll = rng.below(10)
            if roll < 4 {
                let rank = Int(exp(logLow + rng.unit() * (logHigh - logLow)))
                queries.append(vocabulary.words[min(rank, vocabulary.words.count - 1)])
                continue
            }
            let wanted = roll < 8 ? 2 : 3
            let document = documents[rng.below(documents.count)]
            let candidates = document.body.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
                .filter { (rankOf[$0] ?? 0) >= 20 }
            var picked: [String] = []
            for _ in 0..<(wanted * 4) where picked.count < wanted && !candidates.isEmpty {
                let word = candidates[rng.below(candidates.count)]
                if !picked.contains(word) { picked.append(word) }
            }
            if picked.count == wanted { queries.append(picked.joined(separator: " ")) }
        }
        return queries
    }

    private static func text(atLeast length: Int, vocabulary: Vocabulary, _ rng: inout SeededGenerator) -> String {
        var text = vocabulary.sample(&rng)
        while text.utf8.count < length { text += " " + vocabulary.sample(&rng) }
        return text
    }
}
