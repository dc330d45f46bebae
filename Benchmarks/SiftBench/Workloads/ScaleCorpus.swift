import Foundation

/// The corpus of the `scale` workload: documents of a 5-word title and a 30-word body, every word drawn from
/// a Zipf distribution over a 50,000-word vocabulary. Generated in batches, each a pure function of the seed
/// and the batch's first id, so a child process can stream a million documents without holding them.
struct ScaleCorpus: Sendable {
    static let vocabularySize = 50_000
    static let titleWords = 5
    static let bodyWords = 30
    static let batchSize = 10_000

    let count: Int
    let vocabulary: Vocabulary
    let seed: UInt64

    init(count: Int, seed: UInt64 = 0x5CA1_E000) {
        self.count = count
        self.seed = seed
        vocabulary = Vocabulary(size: Self.vocabularySize, seed: seed ^ 0x0F0F)
    }

    /// The batches' id ranges, 1...count in steps of `batchSize`.
    var batches: [ClosedRange<Int64>] {
        stride(from: 1, through: count, by: Self.batchSize).map { start in
            Int64(start)...Int64(min(count, start + Self.batchSize - 1))
        }
    }

    /// The documents with ids in `ids`.
    func documents(_ ids: ClosedRange<Int64>) -> [BenchDocument] {
        var rng = SeededGenerator(seed: seed &+ UInt64(ids.lowerBound) &* 0x9E37_79B9)
        return ids.map { id in
            BenchDocument(id: id, title: words(Self.titleWords, &rng), body: words(Self.bodyWords, &rng))
        }
    }

    private func words(_ count: Int, _ rng: inout SeededGenerator) -> String {
        var text = ""
        text.reserveCapacity(count * 8)
        for index in 0..<count {
            if index > 0 { text += " " }
            text += vocabulary.sample(&rng)
        }
        return text
    }

    /// The changes of the churn round, the same for every engine of a run.
    struct Churn: Sendable {
        /// Documents to delete.
        var deleted: [Int64]
        /// Documents to update, in step with `texts`; none of them is deleted.
        var updated: [Int64]
        /// Their new titles and bodies: the documents generated past the corpus's end.
        var texts: [BenchDocument]
    }

    /// `count` random documents to delete and `count` others to update (distinct ids, drawn anew each run,
    /// since a kept database may have lost earlier runs' ones), with their new texts. Needs `2 * count <= self.count`.
    func churn(_ count: Int) -> Churn {
        var rng = SystemRandomNumberGenerator()
        var ids = Set<Int64>()
        while ids.count < min(2 * count, self.count) { ids.insert(Int64.random(in: 1...Int64(self.count), using: &rng)) }
        let drawn = Array(ids).shuffled(using: &rng)
        let texts = count > 0 ? documents(Int64(self.count + 1)...Int64(self.count + count)) : []
        return Churn(deleted: Array(drawn.prefix(count)), updated: Array(drawn.dropFirst(count)), texts: texts)
    }

    /// The two query kinds of the workload.
    enum QueryKind: String, CaseIterable, Sendable {
        /// Two distinct words drawn from the Zipf distribution, every term required.
        case zipfAll = "two Zipf words, all terms"
        /// Two distinct words among the 50 most frequent, any term.
        case frequentAny = "two top-50 words, any term"
    }

    /// `count` queries of `kind`, seeded.
    func queries(_ kind: QueryKind, count: Int) -> [String] {
        var rng = SeededGenerator(seed: seed ^ (kind == .zipfAll ? 0xA11 : 0xA2F))
        var queries: [String] = []
        while queries.count < count {
            let first: String, second: String
            switch kind {
            case .zipfAll:
                first = vocabulary.sample(&rng)
                second = vocabulary.sample(&rng)
            case .frequentAny:
                first = vocabulary.words[rng.below(50)]
                second = vocabulary.words[rng.below(50)]
            }
            if first != second { queries.append(first + " " + second) }
        }
        return queries
    }
}
