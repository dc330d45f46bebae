import Foundation
import XCTest
@testable import Sift

// The postings evaluator merges the terms' rows a window of rowids at a time (at most 1,024, within one block), with
// one bit a row per term, and rules out a window by the bounds of the terms its matching rows hold. Seeded words in
// families one edit apart (a word and its typo variants, some frequent enough to be listed, some not), blocks
// smaller than a window, equal to one and larger than one, before and after updates: every typo-tolerant search
// returns the scores and count of FTS5's own plan (the same search with a condition on the rows, which never
// prunes).
final class PostingsWindowTests: XCTestCase {
    /// Families of words one edit apart; the first of each is the most frequent.
    private let families = [
        ["planet", "planets", "plante", "planer"], ["market", "markets", "marker", "marked"],
        ["stones", "stone", "stoned", "stoner"], ["rivers", "river", "riverr", "rover"],
        ["bridge", "bridges", "bridged", "bride"], ["castle", "castles", "castled", "cattle"],
        ["garden", "gardens", "harden", "warden"], ["window", "windows", "widow", "windo"],
    ]

    private func zipf(_ count: Int, _ rng: inout SplitMix) -> Int {
        let total = (1...count).reduce(0.0) { $0 + 1 / Double($1) }
        var u = Double.random(in: 0..<total, using: &rng)
        for i in 0..<count {
            u -= 1 / Double(i + 1)
            if u < 0 { return i }
        }
        return count - 1
    }

    private func word(_ rng: inout SplitMix) -> String {
        let family = families[zipf(families.count, &rng)]
        return family[zipf(family.count, &rng)]
    }

    private func text(_ count: ClosedRange<Int>, _ rng: inout SplitMix) -> String {
        (0..<Int.random(in: count, using: &rng)).map { _ in word(&rng) }.joined(separator: " ")
    }

    /// `word` with its third letter replaced: a typo the index does not hold.
    private func misspelled(_ word: String) -> String {
        var letters = Array(word)
        letters[2] = letters[2] == "q" ? "z" : "q"
        return String(letters)
    }

    private func makeDatabase(block: Int) throws -> Database {
        let path = NSTemporaryDirectory() + "postings-window-\(UUID().uuidString).db"
        let database = Database(withPath: path)
        addTeardownBlock { try? database.close { try? database.removeFiles() } }
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock {
            $0 = (rows: 200, listed: 30, block: Int64(block), chunk: 4, piece: 5, tail: 4, statementRows: 0, delta: 1_000, logRows: 1_000, logEntries: 100_000, postings: true, rareRowsRatio: 0...Double.infinity)
        }
        try database.create(table: "docs", of: TopKDoc.self)
        try database.create(virtualTable: "docs_fts", of: TopKIndexModel.self, syncedWith: "docs")
        return database
    }

    private func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    private func checkSearches(_ database: Database, _ rng: inout SplitMix, _ context: String) throws {
        for _ in 0..<24 {
            let words = (0..<Int.random(in: 1...2, using: &rng)).map { _ -> String in
                let word = word(&rng)
                return Bool.random(using: &rng) ? misspelled(word) : word
            }
            let mode: SearchQuery.Mode = Bool.random(using: &rng) ? .allTerms : .anyTerm
            let typed = words.joined(separator: " ")
            let query = SearchQuery(typed, mode: mode)
            let ranking: Ranking = Bool.random(using: &rng) ? .inB2(c: 1) : .bm25f(k1: 1.2, b: 0.75)
            let options = SearchOptions(limit: Int.random(in: 1...20, using: &rng), ranking: ranking, typoTolerance: .default)
            let pruned: SearchResults<TopKDoc> = try database.search(query, in: "docs_fts", options: options)
            let reference: SearchResults<TopKDoc> = try database.search(query, in: "docs_fts", where: Column(named: "id").isNotNull(),
                                                                        options: options)
            let label = "\(context): '\(typed)' \(mode) \(ranking) limit \(options.limit)"
            XCTAssertEqual(pruned.hits.count, reference.hits.count, label)
            for (hit, expected) in zip(pruned.hits, reference.hits) {
                XCTAssertTrue(close(hit.score, expected.score), "\(label): \(hit.rowid) \(hit.score) vs \(expected.rowid) \(expected.score)")
            }
            if let total = pruned.totalCount, let expected = reference.totalCount, !pruned.totalCountIsLowerBound {
                XCTAssertEqual(total, expected, label)
            }
        }
    }

    func testWindowedPostingsEqualFTS5sPlanForEveryBlockSize() throws {
        for block in [5, 256, 2_048] {
            var rng = SplitMix(seed: 20_261_127 + UInt64(block))
            let database = try makeDatabase(block: block)
            let documents = (0..<2_500).map { _ in TopKDoc(nil, text(1...5, &rng), text(5...30, &rng)) }
            try database.insert(objects: documents, intoTable: "docs")
            try database.optimize(index: "docs_fts")
            try checkSearches(database, &rng, "block \(block)")
            // Rows changed since the postings were written: read from their counts now, beside the postings.
            for id in stride(from: 3, through: 2_500, by: 41) {
                try database.update(table: "docs", on: [Column(named: "body")], with: [text(5...30, &rng)],
                                    where: Column(named: "id") == id)
            }
            try checkSearches(database, &rng, "block \(block), after updates")
        }
    }
}
