import Foundation
import Sift
import SiftEvaluation
import SiftICU
import SiftTools

/// Exactness checks through Sift's own search path: random CJK substrings (2-6 characters) of a
/// collection's documents, and words of the SIGHAN PKU gold segmentation, searched as phrases in a corpus
/// database indexed with `sift_icu`. Recall: the source document is among the hits. False matches: a hit that does not contain the
/// string contiguously.
enum SubstringRecall {
    struct Result: Codable {
        let source: String
        let probes: Int
        let found: Int
        let falseMatches: Int
        /// A few false matches, probe and hit, to show what they are.
        let examples: [String]
        var recall: Double { probes == 0 ? 0 : Double(found) / Double(probes) }
    }

    /// One probed text: what the phrase must be found in.
    struct Passage {
        let id: Int
        let title: String
        let text: String
        init(_ id: Int, _ title: String, _ text: String) { self.id = id; self.title = title; self.text = text }
    }

    /// Han, kana and Hangul letters, the text whose substrings are probed (not their punctuation, such as
    /// the katakana middle dot, which no tokenizer indexes).
    static func isCJK(_ c: Character) -> Bool {
        guard c.isLetter, let scalar = c.unicodeScalars.first, c.unicodeScalars.count == 1 else { return false }
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF: return true
        default: return false
        }
    }

    /// Indexes `passages` in a temporary corpus database (what `sift index` builds) and runs `probes` (string,
    /// id of its source passage) as `sift search --mode phrase` does.
    static func measure(_ name: String, passages: [Passage], probes: [(String, Int)]) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-substrings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let corpus = try CorpusDatabase.openOrCreate(at: directory.appendingPathComponent("p.db").path)
        try corpus.database.insert(objects: passages.map {
            StoredDocument(key: String($0.id), title: $0.title, body: $0.text, origin: name, source: name, size: $0.text.utf8.count)
        }, intoTable: CorpusDatabase.documentsTable)
        var found = 0, falseMatches = 0
        var examples: [String] = []
        for (probe, source) in probes {
            let keys = try corpus.rankedKeys(probe, mode: .phrase, limit: 100_000).map(\.key)
            if keys.contains(String(source)) { found += 1 }
            let wrong = keys.compactMap { Int($0) }.map { passages[$0 - 1] }
                .filter { !$0.title.contains(probe) && !$0.text.contains(probe) }
            falseMatches += wrong.count
            if let first = wrong.first, examples.count < 5 {
                examples.append("\(probe) -> \((first.title + " / " + first.text).prefix(60))")
            }
        }
        return Result(source: name, probes: probes.count, found: found, falseMatches: falseMatches, examples: examples)
    }

    /// Random CJK substrings of 2-6 characters from a BEIR collection's documents.
    static func collection(_ folder: URL, name: String, samples: Int = 3000) throws -> Result {
        let documents = try TestCollection(folder: folder).loadCorpus()
        let passages = documents.enumerated().map { Passage($0.offset + 1, $0.element.title, $0.element.text) }
        var rng = SeededGenerator(seed: 0x5B57_0001)
        var probes: [(String, Int)] = []
        var attempts = 0
        while probes.count < samples && attempts < samples * 50 {
            attempts += 1
            let passage = passages[rng.below(passages.count)]
            let characters = Array(passage.text)
            guard characters.count > 2 else { continue }
            let start = rng.below(characters.count)
            let length = 2 + rng.below(5)
            guard start + length <= characters.count else { continue }
            let piece = characters[start..<(start + length)]
            guard piece.allSatisfy(isCJK) else { continue }
            probes.append((String(piece), passage.id))
        }
        return try measure(name, passages: passages, probes: probes)
    }

    /// Words of the PKU gold segmentation (CJK only), searched in an index of the gold sentences.
    static func pkuWords(_ folder: URL, samples: Int = 3000) throws -> Result {
        let gold = try String(contentsOf: folder.appendingPathComponent("pku_test_gold.utf8"), encoding: .utf8)
        var passages: [Passage] = []
        var candidates: [(String, Int)] = []
        var seen = Set<String>()
        for line in gold.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\u{3000}" }).map(String.init)
            guard !words.isEmpty else { continue }
            let passage = Passage(passages.count + 1, "", words.joined())
            passages.append(passage)
            for word in words where word.allSatisfy(isCJK) && seen.insert(word).inserted { candidates.append((word, passage.id)) }
        }
        var rng = SeededGenerator(seed: 0x5B57_0002)
        var probes: [(String, Int)] = []
        while probes.count < min(samples, candidates.count) {
            probes.append(candidates.remove(at: rng.below(candidates.count)))
        }
        return try measure("sighan2005-pku gold words", passages: passages, probes: probes)
    }
}
