import CSQLite
import Foundation
import SiftRank
import XCTest
@testable import Sift

// Pruned top-k search (TopKSearch + TopKImpacts): after seeded random bulk inserts, single inserts, updates,
// deletes, rollbacks, rebuilds and optimizes, every `.bm25f` search returns exactly the top k of exhaustive
// sift_rank() scoring (scores equal rank by rank, so ties may swap rows). Small corpus, lowered thresholds
// (impacts from 200 rows, terms listed from 30 rows, blocks of 16 rowids, deltas folded at 3 rows; one search in
// three through the blocks rather than the postings). SIFT_TOPK_SEED picks another seed.

final class TopKDoc: TableCodable {
    var id: Int? = nil
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = TopKDoc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ id: Int?, _ title: String, _ body: String) {
        self.id = id
        self.title = title
        self.body = body
    }
}

final class TopKIndexModel: TableCodable {
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = TopKIndexModel
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61"))
        }
    }
}

final class TopKSearchTests: XCTestCase {
    private let words = (0..<300).map { "w\($0)x" }
    private lazy var cumulative: [Double] = {
        var total = 0.0
        return words.indices.map { total += 1 / Double($0 + 1); return total }
    }()

    private func word(_ rng: inout SplitMix) -> String {
        let u = Double.random(in: 0..<cumulative[cumulative.count - 1], using: &rng)
        return words[cumulative.firstIndex { $0 > u } ?? words.count - 1]
    }

    private func text(_ count: ClosedRange<Int>, _ rng: inout SplitMix) -> String {
        (0..<Int.random(in: count, using: &rng)).map { _ in word(&rng) }.joined(separator: " ")
    }

    private func document(_ id: Int?, _ rng: inout SplitMix) -> TopKDoc {
        TopKDoc(id, text(1...6, &rng), text(3...30, &rng))
    }

    private func makeDatabase() throws -> Database {
        let path = NSTemporaryDirectory() + "topk-\(UUID().uuidString).db"
        let database = Database(withPath: path)
        addTeardownBlock { try? database.close { try? database.removeFiles() } }
        database.fullTextBulkThreshold = 8
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0 = (rows: 200, listed: 30, block: 16, chunk: 4, piece: 5, tail: 4, statementRows: 0, delta: 3, logRows: 4, logEntries: 64, postings: true, rareRowsRatio: 0...Double.infinity) }
        try database.create(table: "docs", of: TopKDoc.self)
        try database.create(virtualTable: "docs_fts", of: TopKIndexModel.self, syncedWith: "docs")
        return database
    }

    /// Every match's sift_rank (or sift_inb2) score, by rowid.
    private func exhaustiveScores(_ database: Database, _ query: SearchQuery, _ options: SearchOptions) throws -> [Int64: Double] {
        try exhaustiveRankScores(database, index: "docs_fts", columns: ["title", "body"], query, options)
    }

    private func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    /// Checks a set of queries; returns how many took the pruned plan.
    @discardableResult
    private func checkSearches(_ database: Database, _ rng: inout SplitMix, step: Int, file: StaticString = #filePath,
                               line: UInt = #line) throws -> Int {
        var pruned = 0
        for _ in 0..<6 {
            let count = Int.random(in: 1...3, using: &rng)
            let frequent = Bool.random(using: &rng)
            let text = (0..<count).map { _ in frequent ? words[Int.random(in: 0..<12, using: &rng)] : word(&rng) }
                .joined(separator: " ")
            let mode: SearchQuery.Mode = Bool.random(using: &rng) ? .allTerms : .anyTerm
            let query = SearchQuery(text, mode: mode)
            let ranking: Ranking = Bool.random(using: &rng) ? .inB2(c: [1, 0.5, 7][Int.random(in: 0...2, using: &rng)])
                : .bm25f(k1: [1.2, 0.5, 2][Int.random(in: 0...2, using: &rng)], b: [0.75, 0, 1][Int.random(in: 0...2, using: &rng)])
            // Every word as typed: the reference scores the query's own terms.
            var options = SearchOptions(limit: Int.random(in: 1...12, using: &rng), offset: Int.random(in: 0...3, using: &rng),
                                        ranking: ranking, typoTolerance: .off)
            if Bool.random(using: &rng) { options.weights = ["title": [2, 5, 0.5][Int.random(in: 0...2, using: &rng)]] }
            // Without a total the postings evaluator passes over the blocks that cannot beat the k-th score.
            options.countTotal = Int.random(in: 0..<3, using: &rng) > 0
            // One query in three takes the plans that read the blocks rather than the postings.
            let postings = Int.random(in: 0..<3, using: &rng) > 0
            database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.postings = postings }
            defer { database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.postings = true } }
            let results: SearchResults<TopKDoc> = try database.search(query, in: "docs_fts", options: options)
            let scores = try exhaustiveScores(database, query, options)
            let best = Array(scores.values.sorted(by: >).dropFirst(options.offset).prefix(options.limit))
            let context = "step \(step): '\(text)' \(mode) postings \(postings) total \(options.countTotal) limit \(options.limit) offset \(options.offset) \(options.ranking) \(options.weights)"
            XCTAssertEqual(results.hits.map(\.score).count, best.count, context, file: file, line: line)
            for (hit, score) in zip(results.hits, best) {
                XCTAssertTrue(close(hit.score, score), "\(context): \(hit.score) vs \(score)", file: file, line: line)
                XCTAssertTrue(scores[hit.rowid].map { close($0, hit.score) } == true, "\(context): row \(hit.rowid)", file: file, line: line)
                XCTAssertEqual(Int64(hit.object.id ?? -1), hit.rowid, context, file: file, line: line)
            }
            if let total = results.totalCount {
                if results.totalCountIsLowerBound {
                    XCTAssertGreaterThan(total, TopKSearch.exactTotalLimit, context, file: file, line: line)
                    XCTAssertLessThanOrEqual(total, scores.count, context, file: file, line: line)
                } else {
                    XCTAssertEqual(total, scores.count, context, file: file, line: line)
                }
            }
            let planned = try database.read { handle -> Bool in
                let info = try database.ftsInfo("docs_fts", on: handle)
                let tokenizer = try handle.tokenizer(info.tokenizer)
                guard let weighted = try query.weightedTree(spans: tokenizer.querySpans, distinct: true) else { return false }
                return try TopKSearch.plan(weighted.tree, weighted.weights, info, options, on: handle) != nil
            }
            if planned { pruned += 1 }
        }
        return pruned
    }

    func testPrunedSearchEqualsExhaustiveAfterRandomWrites() throws {
        let seed = ProcessInfo.processInfo.environment["SIFT_TOPK_SEED"].flatMap(UInt64.init) ?? 20261123
        var rng = SplitMix(seed: seed)
        let database = try makeDatabase()
        var live: [Int] = []
        var nextID = 1
        func insert(_ count: Int) throws {
            let documents = (0..<count).map { _ in document(nil, &rng) }
            try database.insert(objects: documents, intoTable: "docs")
            let top = try database.getValue(on: Column(named: "id").max(), fromTable: "docs").int64Value
            live += (nextID...Int(top)).map { $0 }
            nextID = Int(top) + 1
        }
        try insert(600)
        try database.optimize(index: "docs_fts")                              // builds the impacts
        var pruned = try checkSearches(database, &rng, step: 0)
        for step in 1...60 {
            switch Int.random(in: 0..<9, using: &rng) {
            case 0, 1: try insert(Int.random(in: 8...80, using: &rng))          // bulk: extends the impacts
            case 2: try insert(Int.random(in: 1...3, using: &rng))              // row by row: the tail
            case 3:
                if let id = live.randomElement(using: &rng) {                    // update: followed by the impacts
                    try database.update(table: "docs", on: TopKDoc.Properties.body, with: document(id, &rng),
                                        where: Column(named: "id") == id)
                }
            case 4:
                if let id = live.randomElement(using: &rng) {                    // delete
                    try database.delete(fromTable: "docs", where: Column(named: "id") == id)
                    live.removeAll { $0 == id }
                }
            case 5:                                                              // rolled back
                try database.begin()
                try database.insert(objects: (0..<20).map { _ in document(nil, &rng) }, intoTable: "docs")
                if let id = live.randomElement(using: &rng) {
                    try database.delete(fromTable: "docs", where: Column(named: "id") == id)
                }
                try database.rollback()
            case 6: try database.rebuild(index: "docs_fts")
            case 7: try database.optimize(index: "docs_fts")
            default:
                // An insert at a low rowid (below the watermark), or at rowid 0 or below (the low tail).
                let low = Bool.random(using: &rng) ? (1..<nextID).first(where: { !live.contains($0) })
                    : (-40...0).filter { !live.contains($0) }.randomElement(using: &rng)
                if let id = low {
                    try database.insert(objects: [document(id, &rng)], intoTable: "docs")
                    live.append(id)
                }
            }
            pruned += try checkSearches(database, &rng, step: step)
            XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        }
        XCTAssertGreaterThan(pruned, 40, "the pruned plan ran for too few queries to test it")
    }

    /// Checks that `query` under `options` returns what FTS5's own plan does: the same search with a condition on the
    /// rows, which never takes the pruned plan.
    private func assertPlansAgree(_ database: Database, _ query: SearchQuery, _ options: SearchOptions, _ context: String,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let results: SearchResults<TopKDoc> = try database.search(query, in: "docs_fts", options: options)
        let reference: SearchResults<TopKDoc> = try database.search(query, in: "docs_fts",
                                                                   where: Column(named: "id").isNotNull(), options: options)
        XCTAssertEqual(results.expression, reference.expression, context, file: file, line: line)
        XCTAssertEqual(results.hits.count, reference.hits.count, context, file: file, line: line)
        for (hit, expected) in zip(results.hits, reference.hits) {
            XCTAssertTrue(close(hit.score, expected.score), "\(context): \(hit.score) vs \(expected.score)", file: file, line: line)
        }
        XCTAssertEqual(results.totalCount, reference.totalCount, context, file: file, line: line)
    }

    /// An all-terms query of a rare word (not listed) and a frequent one, through the postings plan with the rare
    /// word's rows read through FTS5 (the default when the frequent word's rows are 4 to 4,096 times the rare one's,
    /// as here) and through FTS5's own plan, returns the exhaustive top k and total either way.
    func testRareWordWithAFrequentOneIsExactThroughEitherPlan() throws {
        var rng = SplitMix(seed: 20261128)
        let database = try makeDatabase()
        try database.insert(objects: (0..<600).map { _ in document(nil, &rng) }, intoTable: "docs")
        try database.optimize(index: "docs_fts")
        func rows(_ word: String) throws -> Int64 {
            try database.getRows(sql: "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH '\(word)'").first?.first?.int64Value ?? 0
        }
        let frequent = try rows(words[0])
        let rare = try words.suffix(60).filter { word in
            let held = try rows(word)
            return held > 0 && held < 30 && (4...4_096).contains(Double(frequent) / Double(held))
        }
        XCTAssertGreaterThan(rare.count, 5, "too few rare words to test")
        for (ratio, plan) in [(4.0...4_096.0, "postings"), (Double.infinity...Double.infinity, "FTS5")] {
            database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.rareRowsRatio = ratio }
            for (i, word) in rare.enumerated() {
                let query = SearchQuery("\(words[0]) \(word)", mode: .allTerms)
                var options = SearchOptions(limit: 5, ranking: i % 2 == 0 ? .inB2() : .bm25f(), typoTolerance: .off)
                options.countTotal = i % 3 != 0
                let results: SearchResults<TopKDoc> = try database.search(query, in: "docs_fts", options: options)
                let scores = try exhaustiveScores(database, query, options)
                let best = Array(scores.values.sorted(by: >).prefix(options.limit))
                XCTAssertEqual(results.hits.count, best.count, "\(plan): \(word)")
                for (hit, score) in zip(results.hits, best) {
                    XCTAssertTrue(close(hit.score, score), "\(plan): \(word): \(hit.score) vs \(score)")
                }
                if options.countTotal { XCTAssertEqual(results.totalCount, scores.count, "\(plan): \(word)") }
            }
        }
    }

    /// Typo-tolerant searches (each word an OR-group of itself and its corrected variants, the variants scored with
    /// their group's counts) through the pruned plan return what FTS5's own plan does: the same search with a
    /// condition on the rows, which never takes the pruned plan.
    func testTypoTolerantPrunedSearchEqualsFTS5sPlan() throws {
        var rng = SplitMix(seed: 20261126)
        let database = try makeDatabase()
        try database.insert(objects: (0..<700).map { _ in document(nil, &rng) }, intoTable: "docs")
        try database.optimize(index: "docs_fts")
        try database.insert(objects: (0..<5).map { _ in document(nil, &rng) }, intoTable: "docs")  // a tail
        let tolerance = TypoTolerance(oneTypoLength: 3, twoTypoLength: 5, maxVariants: 6)
        var pruned = 0, grouped = 0
        for round in 0..<80 {
            // Words of the vocabulary, some misspelled (a digit replaced, dropped or added: "w12x" -> "w15x").
            let text = (0..<Int.random(in: 1...3, using: &rng)).map { _ -> String in
                var word = Array(round % 2 == 0 ? words[Int.random(in: 0..<15, using: &rng)] : self.word(&rng))
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: word[1] = Character(String(Int.random(in: 0...9, using: &rng)))
                case 1: if word.count > 3 { word.remove(at: 1) }
                case 2: word.insert("7", at: 1)
                default: break
                }
                return String(word)
            }.joined(separator: " ")
            let mode: SearchQuery.Mode = Bool.random(using: &rng) ? .allTerms : .anyTerm
            let query = SearchQuery(text, mode: mode)
            let ranking: Ranking = Bool.random(using: &rng) ? .inB2() : .bm25f()
            let options = SearchOptions(limit: Int.random(in: 1...10, using: &rng), ranking: ranking, typoTolerance: tolerance)
            try assertPlansAgree(database, query, options, "round \(round): '\(text)' \(mode) \(ranking) limit \(options.limit)")
            let planned = try database.read { handle -> Bool in
                let info = try database.ftsInfo("docs_fts", on: handle)
                let tokenizer = try handle.tokenizer(info.tokenizer)
                let variants = database.typoVariants(info, tokenizer, tolerance, on: handle)
                guard let weighted = try query.weightedTree(spans: tokenizer.querySpans, distinct: true, variants: variants)
                else { return false }
                if weighted.tree.rendered.contains(" OR ") && mode == .allTerms { grouped += 1 }
                return try TopKSearch.plan(weighted.tree, weighted.weights, info, options, on: handle) != nil
            }
            if planned { pruned += 1 }
        }
        XCTAssertGreaterThan(pruned, 50, "the pruned plan ran for too few queries to test it")
        XCTAssertGreaterThan(grouped, 20, "too few all-terms queries had corrected variants")
    }

    /// Searches with synonyms (single-word ones in the word's OR-group, scored with the group's counts; phrase ones,
    /// and runs of words typed, which only FTS5's plan runs) return through the pruned plan what FTS5's plan does.
    func testSynonymPrunedSearchEqualsFTS5sPlan() throws {
        var rng = SplitMix(seed: 20261127)
        let database = try makeDatabase()
        try database.insert(objects: (0..<700).map { _ in document(nil, &rng) }, intoTable: "docs")
        try database.optimize(index: "docs_fts")
        try database.insert(objects: (0..<5).map { _ in document(nil, &rng) }, intoTable: "docs")  // a tail
        try database.addSynonyms([.equivalent(["w0x", "w50x"]), .equivalent(["w1x", "w120x", "w250x"]),
                                  .oneWay(from: ["w2x"], to: ["w9x", "w3x w4x"]), .oneWay(from: ["w5x w6x"], to: ["w7x"]),
                                  .equivalent(["w8x", "w10x", "w11x"])], to: "docs_fts")
        var pruned = 0, grouped = 0
        for round in 0..<60 {
            let text = (0..<Int.random(in: 1...3, using: &rng)).map { _ in words[Int.random(in: 0..<14, using: &rng)] }
                .joined(separator: " ")
            let mode: SearchQuery.Mode = [.allTerms, .anyTerm, .prefix][round % 3]
            let query = SearchQuery(text, mode: mode)
            let ranking: Ranking = Bool.random(using: &rng) ? .inB2() : .bm25f()
            let options = SearchOptions(limit: Int.random(in: 1...10, using: &rng), ranking: ranking)
            try assertPlansAgree(database, query, options, "round \(round): '\(text)' \(mode) \(ranking) limit \(options.limit)")
            let planned = try database.read { handle -> Bool in
                let info = try database.ftsInfo("docs_fts", on: handle)
                let tokenizer = try handle.tokenizer(info.tokenizer)
                let synonyms = try database.synonymFinder(info, tokenizer, on: handle)
                guard let weighted = try query.weightedTree(spans: tokenizer.querySpans, distinct: true, synonyms: synonyms,
                                                            synonymWeight: options.synonymWeight)
                else { return false }
                if weighted.tree.rendered.contains(" OR ") && mode != .anyTerm { grouped += 1 }
                return try TopKSearch.plan(weighted.tree, weighted.weights, info, options, on: handle) != nil
            }
            if planned { pruned += 1 }
        }
        XCTAssertGreaterThan(pruned, 20, "the pruned plan ran for too few queries to test it")
        XCTAssertGreaterThan(grouped, 15, "too few queries had synonyms")
    }
}

final class TopKImpactsTests: XCTestCase {
    /// A synced index with impacts from 100 rows (terms listed from 20, blocks of 16), and nothing in it.
    private func emptyDatabase() throws -> Database {
        let path = NSTemporaryDirectory() + "topk-\(UUID().uuidString).db"
        let database = Database(withPath: path)
        addTeardownBlock { try? database.close { try? database.removeFiles() } }
        database.fullTextBulkThreshold = 8
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0 = (rows: 100, listed: 20, block: 16, chunk: 4, piece: 5, tail: 1_000, statementRows: 0, delta: 1_000, logRows: 1, logEntries: 1, postings: true, rareRowsRatio: 0...Double.infinity) }
        try database.create(table: "docs", of: TopKDoc.self)
        try database.create(virtualTable: "docs_fts", of: TopKIndexModel.self, syncedWith: "docs")
        return database
    }

    private func makeDatabase(rows: Int) throws -> Database {
        let database = try emptyDatabase()
        try database.insert(objects: (0..<rows).map { TopKDoc(nil, "alpha \($0 % 7 == 0 ? "beta" : "gamma")", "alpha delta w\($0)") },
                            intoTable: "docs")
        try database.optimize(index: "docs_fts")
        return database
    }

    private func meta(_ database: Database) throws -> TopKImpacts.Meta? {
        try database.read { handle in try TopKImpacts.meta("docs_fts", on: handle) }
    }

    /// The bulk insert that takes a synced index to the threshold builds its impacts in its transaction, and
    /// later bulk inserts extend them (rewriting only their last chunks).
    func testBulkLoadBuildsImpactsOnceTheIndexIsLargeEnough() throws {
        let database = try emptyDatabase()
        try database.insert(objects: (0..<60).map { TopKDoc(nil, "alpha", "delta w\($0)") }, intoTable: "docs")
        XCTAssertNil(try meta(database), "below the threshold a bulk load builds nothing")
        try database.insert(objects: (0..<90).map { TopKDoc(nil, "alpha", "delta w\($0)") }, intoTable: "docs")
        let built = try XCTUnwrap(try meta(database), "the bulk load that crosses the threshold builds them")
        XCTAssertEqual(built.watermark, 150)
        XCTAssertTrue(built.valid)
        XCTAssertEqual(try database.getValue(on: Column(named: "df").sum(), fromTable: "docs_fts_sift_impacts",
                                             where: Column(named: "term") == "delta").int64Value, 150)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        try database.insert(objects: (0..<20).map { TopKDoc(nil, "alpha", "delta x\($0)") }, intoTable: "docs")
        XCTAssertEqual(try meta(database)?.watermark, 170, "a later bulk load extends them")
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    func testOptimizeCreatesImpactsAndVerifyChecksThem() throws {
        let database = try makeDatabase(rows: 150)
        let meta = try XCTUnwrap(try meta(database))
        XCTAssertTrue(meta.valid)
        XCTAssertEqual(meta.watermark, 150)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        // A wrong count is damage that verify reports and rebuild repairs.
        try database.exec(sql: "UPDATE docs_fts_sift_impacts SET df = df + 1 WHERE term = 'alpha'")
        let problems = try database.verify(index: "docs_fts").problems
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.contains("alpha") == true, "\(problems)")
        try database.rebuild(index: "docs_fts")
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    /// Postings read back as written for any number of columns: rows holding the term once, rows with several
    /// counts on both sides of the largest packed count, and long distances, in runs of short rows (a one-byte
    /// distance, packed counts: read a word at a time) of every length broken by the others.
    func testPostingsReadBackAsWrittenForAnyColumnCount() {
        var generator = SystemRandomNumberGenerator()
        for columns in 1...5 {
            var bytes: [UInt8] = [], written = ImpactPostings.Rows(), previous: Int64 = 4_095
            for row in 0..<2_000 {
                let distance = Int.random(in: 0..<10, using: &generator) == 0 ? Int64.random(in: 1...300, using: &generator)
                    : Int64.random(in: 1...31, using: &generator)
                let rowid = previous + (row == 0 ? 1 : row == 1_999 ? 1 << 20 : distance)
                var stats = [Int32](repeating: 0, count: 2 * columns)
                let kind = [0, 0, 0, 0, 0, 0, 1, 2].randomElement(using: &generator) ?? 0
                for c in 0..<columns where kind == 2 || c == row % columns {
                    stats[2 * c] = kind == 0 ? 1 : Int32.random(in: 0...(kind == 1 ? 15 : 200), using: &generator)
                }
                if stats.allSatisfy({ $0 == 0 }) { stats[0] = 2 }
                ImpactPostings.append(rowid, after: previous, stats, columns: columns, to: &bytes)
                written.rowids.append(rowid)
                for c in 0..<columns { written.counts.append(stats[2 * c]) }
                previous = rowid
            }
            var read = ImpactPostings.Rows()
            XCTAssertTrue(read.decode(bytes, after: 4_095, columns: columns), "columns \(columns)")
            XCTAssertEqual(read, written, "columns \(columns)")
            XCTAssertEqual(sift_postings_last_rowid(bytes, Int32(bytes.count), Int32(columns), 4_095), previous)
        }
    }

    /// The postings hold each listed term's rows and counts: a search of listed terms alone is scored from them
    /// (the same hits and scores as FTS5's exhaustive plan), verify compares them with the rows, and a posting of
    /// a row FTS5 does not hold is a typed error, not a wrong result.
    func testPostingsScoreListedTermsAndVerifyChecksThem() throws {
        let database = try makeDatabase(rows: 150)
        try database.rebuild(index: "docs_fts")                            // lists beta (22 rows)
        let postings = try XCTUnwrap(try database.getValue(on: Column(named: "postings"), fromTable: "docs_fts_sift_impacts",
                                                           where: Column(named: "term") == "beta" && Column(named: "chunk") == 0).dataValue)
        // beta: rows 1, 8, 15, ... (title count 1, body count 0), each 7 after the previous (the first 2 after -1):
        // two bytes a row, the distance, then the counts four bits each (the title's low).
        XCTAssertEqual([UInt8](postings), [2, 0x01] + Array(repeating: [7, 0x01], count: 8).flatMap { $0 })
        var rows = ImpactPostings.Rows()
        rows.decode([UInt8](postings), after: -1, columns: 2)
        XCTAssertEqual(rows.rowids, Array(stride(from: 1, through: 63, by: 7)))
        XCTAssertEqual(rows.counts, Array(repeating: [1, 0], count: 9).flatMap { $0 })
        let options = SearchOptions(limit: 5)
        let results: SearchResults<TopKDoc> = try database.search(SearchQuery("beta delta", mode: .anyTerm), in: "docs_fts", options: options)
        XCTAssertEqual(results.totalCount, 150)
        XCTAssertFalse(results.totalCountIsLowerBound)
        let exhaustive: [Double] = try database.read { handle in
            try handle.withStatement("SELECT -sift_inb2(docs_fts, 1.0, 2, 1.0, 1.0) AS s FROM docs_fts WHERE docs_fts MATCH 'beta OR delta' ORDER BY s DESC LIMIT 5") { stmt in
                var scores: [Double] = []
                while try handle.step(stmt) { scores.append(sqlite3_column_double(stmt, 0)) }
                return scores
            }
        }
        XCTAssertEqual(results.hits.map(\.score), exhaustive)
        XCTAssertTrue(results.hits.allSatisfy { $0.object.title.contains("beta") })
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        // A posting of rowid 2 instead of 1: verify names the term, and a search meets a row without beta's count.
        var damaged = [UInt8](postings)
        guard !damaged.isEmpty else { return XCTFail("beta has no postings") }
        damaged[0] = 3
        try database.exec(sql: "UPDATE docs_fts_sift_impacts SET postings = x'\(damaged.map { String(format: "%02x", $0) }.joined())' WHERE term = 'beta' AND chunk = 0")
        XCTAssertEqual(try database.verify(index: "docs_fts").problems, ["impacts: the postings of beta differ from its rows"])
        // A first row at rowid 999 (distance 1,000 in LEB128), holding beta once in the title: damaged postings are
        // not the term's rows, and the search takes FTS5's plan (every hit, the exhaustive scores).
        try database.exec(sql: "UPDATE docs_fts_sift_impacts SET postings = x'e80701' || postings WHERE term = 'beta' AND chunk = 0")
        let fallback: SearchResults<TopKDoc> = try database.search(SearchQuery("beta delta", mode: .anyTerm), in: "docs_fts", options: options)
        XCTAssertEqual(fallback.totalCount, 150)
        XCTAssertEqual(fallback.hits.map(\.score), exhaustive)
        // Two distances of 2^62 - 1 after the term's own rows, the first past the chunk's last rowid, the second past
        // the largest rowid: damaged postings, the rows before them still found, and verify names them.
        let far: [UInt8] = Array(repeating: 0xff, count: 8) + [0x3f, 0x01]
        try database.exec(sql: "UPDATE docs_fts_sift_impacts SET postings = x'\((postings + far + far).map { String(format: "%02x", $0) }.joined())' WHERE term = 'beta' AND chunk = 0")
        let cut: SearchResults<TopKDoc> = try database.search(SearchQuery("beta"), in: "docs_fts", options: options)
        XCTAssertEqual(cut.totalCount, 22)
        XCTAssertEqual(try database.verify(index: "docs_fts").problems, ["impacts: the postings of beta differ from its rows"])
        try database.rebuild(index: "docs_fts")
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        // A truncated number after the last row: searches read the rows before it, and verify names it.
        try database.exec(sql: "UPDATE docs_fts_sift_impacts SET postings = postings || x'80' WHERE term = 'beta' AND chunk = 0")
        XCTAssertEqual((try database.search(SearchQuery("beta"), in: "docs_fts", options: options) as SearchResults<TopKDoc>).totalCount, 22)
        XCTAssertEqual(try database.verify(index: "docs_fts").problems, ["impacts: the postings of beta differ from its rows"])
        try database.rebuild(index: "docs_fts")
        // A distance past the largest rowid ends the postings (no signed overflow): two of 2^62 - 1 from 148.
        var farRows = ImpactPostings.Rows()
        farRows.decode(far + far, after: 148, columns: 2)
        XCTAssertEqual(farRows.rowids, [148 + (1 << 62) - 1])
    }

    /// A delete and an update leave the postings as written and put the rows into the changed terms' deltas with
    /// their counts now, which searches read in their place (exact totals and scores); optimize writes the
    /// postings anew.
    func testChangedRowsAreReadBesideThePostings() throws {
        let database = try makeDatabase(rows: 150)
        try database.rebuild(index: "docs_fts")                            // lists beta (22 rows)
        try database.delete(fromTable: "docs", where: Column(named: "id") == 8)
        try database.update(table: "docs", on: TopKDoc.Properties.title, with: TopKDoc(nil, "beta beta beta", ""),
                            where: Column(named: "id") == 2)
        let delta = try deltaRows(database, "beta")
        XCTAssertEqual(delta, ImpactPostings.Rows(rowids: [2, 8], counts: [3, 0, 0, 0]))  // 3 in the title; 8 deleted
        let results: SearchResults<TopKDoc> = try database.search("beta", in: "docs_fts", options: SearchOptions(limit: 3))
        XCTAssertEqual(results.totalCount, 22)                              // 22 - row 8 + row 2
        XCTAssertEqual(results.hits.first?.rowid, 2)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        try database.optimize(index: "docs_fts")
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM docs_fts_sift_impacts WHERE chunk < 0 AND length(blocks) > 0")
            .first?.first?.int64Value, 0, "every delta empty")
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    /// The rows of the delta of `term` in chunk 0, or nil when it has none.
    private func deltaRows(_ database: Database, _ term: String) throws -> ImpactPostings.Rows? {
        let meta = try XCTUnwrap(try meta(database))
        guard let row = try database.getRows(sql: "SELECT blocks FROM docs_fts_sift_impacts WHERE term = ? AND chunk = -2",
                                             values: [term]).first else { return nil }
        return ImpactDelta.decode([UInt8](row[0].dataValue), after: -1, last: meta.watermark, columns: 2)
    }

    /// A term's delta of a chunk folds into the chunk's postings when it reaches `impactSizes.delta` rows: what a
    /// search reads beside the postings stays bounded however many rows change, and the postings, counts and
    /// searches stay exact through the fold.
    func testADeltaFoldsIntoThePostingsAtItsLimit() throws {
        let database = try makeDatabase(rows: 150)
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.delta = 4 }   // no log: logRows 1
        try database.rebuild(index: "docs_fts")                            // lists beta (22 rows)
        let postingsBefore = try database.getRows(sql: "SELECT postings FROM docs_fts_sift_impacts WHERE term = 'beta' AND chunk = 0")
        for (step, id) in [3, 15, 5, 22, 9, 10, 11].enumerated() {
            // Rows 15 and 22 held beta and lose it; the others gain it.
            let title = (id - 1) % 7 == 0 ? "gamma" : "beta beta"
            try database.update(table: "docs", on: TopKDoc.Properties.title, with: TopKDoc(nil, title, ""),
                                where: Column(named: "id") == id)
            let delta = try XCTUnwrap(try deltaRows(database, "beta"))
            // Folded on the fourth change (the delta's row stays, empty): the delta starts again from the fifth.
            XCTAssertEqual(delta.rowids.count, step < 3 ? step + 1 : step == 3 ? 0 : step - 3, "after \(step + 1) changes")
            let results: SearchResults<TopKDoc> = try database.search("beta", in: "docs_fts", options: SearchOptions(limit: 5))
            let exhaustive = try database.getRows(sql: "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'beta'").first?.first?.int64Value
            XCTAssertEqual(results.totalCount.map(Int64.init), exhaustive, "after \(step + 1) changes")
            XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent, "after \(step + 1) changes")
        }
        let postingsAfter = try database.getRows(sql: "SELECT postings FROM docs_fts_sift_impacts WHERE term = 'beta' AND chunk = 0")
        XCTAssertNotEqual(postingsBefore.first?.first?.dataValue, postingsAfter.first?.first?.dataValue, "the fold wrote the postings")
        XCTAssertEqual(try database.verify(index: "docs_fts").searchPlan.hasPrefix("pruned"), true)
    }

    /// A statement's changes of listed terms go into the log of changed rows (`ImpactLog`), one row a statement, until
    /// the statement that brings it to `impactSizes.logRows` folds them all into the deltas and blocks; searches
    /// read the log beside the postings and stay exact (counts, scores, order) before and after the fold, and a
    /// rolled-back statement leaves the log as it was.
    func testTheLogHoldsChangesUntilItsLimit() throws {
        let database = try makeDatabase(rows: 150)
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock { ($0.logRows, $0.logEntries) = (4, 1_000) }
        try database.rebuild(index: "docs_fts")                            // lists beta (22 rows)
        func logRows() throws -> Int64? {
            try database.getRows(sql: "SELECT count(*) FROM docs_fts_sift_impacts_log").first?.first?.int64Value
        }
        let options = SearchOptions(limit: 5, ranking: .bm25f())
        func checkSearch(_ context: String) throws {
            XCTAssertTrue(try isPruned(database, "beta"), context)
            let results: SearchResults<TopKDoc> = try database.search("beta", in: "docs_fts", options: options)
            let scores = try exhaustiveRankScores(database, index: "docs_fts", columns: ["title", "body"], SearchQuery("beta"), options)
            XCTAssertEqual(results.totalCount, scores.count, context)
            let expected = scores.sorted { ($0.value, -$0.key) > ($1.value, -$1.key) }.prefix(5)
            XCTAssertEqual(results.hits.map { $0.rowid }, expected.map { $0.key }, context)
            for (hit, score) in zip(results.hits, expected.map { $0.value }) {
                XCTAssertEqual(hit.score, score, accuracy: 1e-9 * max(1, abs(score)), context)
            }
        }
        for (step, id) in [3, 15, 5, 22, 9, 10, 11].enumerated() {
            // Rows 15 and 22 held beta and lose it; the others gain it, in a shorter title than any before.
            let title = (id - 1) % 7 == 0 ? "gamma" : "beta beta"
            try database.update(table: "docs", on: TopKDoc.Properties.title, with: TopKDoc(nil, title, ""),
                                where: Column(named: "id") == id)
            XCTAssertEqual(try logRows(), step < 3 ? Int64(step + 1) : step == 3 ? 0 : Int64(step - 3), "after \(step + 1) changes")
            try checkSearch("after \(step + 1) changes")
            XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent, "after \(step + 1) changes")
        }
        // Rolled back: the log keeps its three statements.
        XCTAssertEqual(try logRows(), 3)
        try database.begin()
        try database.delete(fromTable: "docs", where: Column(named: "id") == 36)  // a beta row: the log folds
        XCTAssertEqual(try logRows(), 0)
        try database.rollback()
        XCTAssertEqual(try logRows(), 3)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        try database.optimize(index: "docs_fts")
        XCTAssertEqual(try logRows(), 0)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        // A search in a transaction keeps the log's changes decoded (`ImpactLog.Cache`); rolled back, they are not
        // searched again, nor after another change makes a log of as many rows.
        try database.begin()
        try database.update(table: "docs", on: TopKDoc.Properties.title, with: TopKDoc(nil, "beta beta", ""), where: Column(named: "id") == 50)
        try checkSearch("in the transaction")
        try database.rollback()
        try checkSearch("after the rollback")
        try database.update(table: "docs", on: TopKDoc.Properties.title, with: TopKDoc(nil, "beta", ""), where: Column(named: "id") == 60)
        XCTAssertEqual(try logRows(), 1)
        try checkSearch("after another change")
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    /// A damaged row of the log of changed rows reads as stale bounds: searches that read it take FTS5's plan and
    /// `verify(index:)` reports it; a pool that kept the log's changes decoded, as written, goes on searching them.
    func testADamagedLogReadsAsStale() throws {
        let database = try makeDatabase(rows: 150)
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock { ($0.logRows, $0.logEntries) = (64, 1_000) }
        try database.rebuild(index: "docs_fts")
        for id in [3, 4] {
            try database.update(table: "docs", on: TopKDoc.Properties.title, with: TopKDoc(nil, "beta", ""), where: Column(named: "id") == id)
        }
        XCTAssertTrue(try isPruned(database, "beta"))
        let options = SearchOptions(limit: 5, ranking: .bm25f())
        let expected = try exhaustiveRankScores(database, index: "docs_fts", columns: ["title", "body"], SearchQuery("beta"), options)
        // The first row's checksum no longer agrees; then agrees with entries that end in the middle of a term; then
        // the last row chains to a first row that is not there.
        let damages = ["entries = entries || x'00' WHERE seq = 1",
                       "entries = entries || x'01', checksum = sift_bounds_check(seq, n, total, entries || x'01', 0) WHERE seq = 1",
                       "seq = 5 WHERE seq = 1"]
        for damage in damages {
            try database.exec(sql: "UPDATE docs_fts_sift_impacts_log SET \(damage)")
            for forgotten in [false, true] {
                // The changes kept decoded as written (until the first damage), then forgotten (as by a new process).
                if forgotten { database.pool.attachment(ImpactLog.Cache.init).snapshots.withLock { $0 = [:] } }
                XCTAssertEqual(try isPruned(database, "beta"), !forgotten && damage == damages[0], damage)
                let results: SearchResults<TopKDoc> = try database.search("beta", in: "docs_fts", options: options)
                XCTAssertEqual(results.totalCount, expected.count, damage)
            }
            XCTAssertFalse(try database.verify(index: "docs_fts").isConsistent, damage)
        }
    }

    /// A table of the bounds missing or not as built (a damaged file) fails no write: the bounds read as stale,
    /// searches take FTS5's plan with the exact total, and optimize(index:) builds them again.
    func testAMissingBoundsTableFailsNoWrite() throws {
        for damage in ["DROP TABLE docs_fts_sift_impacts_log", "ALTER TABLE docs_fts_sift_impacts_log DROP COLUMN total",
                       "ALTER TABLE docs_fts_sift_impacts RENAME TO docs_fts_elsewhere"] {
            let database = try makeDatabase(rows: 150)
            try database.rebuild(index: "docs_fts")
            try database.exec(sql: damage)
            if !damage.contains("RENAME") { XCTAssertFalse(try database.verify(index: "docs_fts").isConsistent, damage) }
            try database.update(table: "docs", on: TopKDoc.Properties.title, with: TopKDoc(nil, "beta beta", ""),
                                where: Column(named: "id") == 3)
            XCTAssertEqual(try meta(database)?.valid, false, damage)
            let options = SearchOptions(limit: 5, ranking: .bm25f())
            let results: SearchResults<TopKDoc> = try database.search("beta", in: "docs_fts", options: options)
            XCTAssertEqual(results.totalCount, 23, damage)
            try database.optimize(index: "docs_fts")
            XCTAssertEqual(try meta(database)?.valid, true, damage)
            XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent, damage)
        }
    }

    func testRowsInsertedOneByOneJoinTheImpactsOnceTheTailIsLong() throws {
        let database = try makeDatabase(rows: 150)
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.tail = 5 }
        for i in 0..<5 {
            try database.insert(objects: [TopKDoc(nil, "alpha beta", "row \(i)")], intoTable: "docs")
        }
        XCTAssertEqual(try meta(database)?.watermark, 150)
        try database.insert(objects: [TopKDoc(nil, "alpha beta", "row 5")], intoTable: "docs")
        XCTAssertEqual(try meta(database)?.watermark, 156)
        XCTAssertEqual(try meta(database)?.valid, true)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        let results: SearchResults<TopKDoc> = try database.search("beta", in: "docs_fts", options: SearchOptions(ranking: .bm25f()))
        XCTAssertEqual(results.totalCount, 22 + 6)
    }

    /// sift_topk() keeps rows in a collector only the pruned search binds: called from SQL without one (or with
    /// a text, or with other arguments) it is an error, not a crash.
    func testTopKFunctionWithoutCollectorIsAnError() throws {
        let database = try makeDatabase(rows: 150)
        let expected = "sift_topk: takes the arguments of sift_rank_df, the leading phrases to ignore and a collector "
            + "(bound by sift_topk_bind)"
        for last in ["NULL", "'collector'", "0"] {
            XCTAssertThrowsError(try database.getRows(sql: "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'alpha' AND "
                                                      + "sift_topk(docs_fts, 1.2, 0.75, 2, 1, 1, '1', '150', 0, \(last))")) { error in
                XCTAssertEqual((error as? SiftError)?.message, expected, last)
            }
        }
        XCTAssertThrowsError(try database.getRows(sql: "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'alpha' AND "
                                                  + "sift_topk(docs_fts, 1.2, 0.75)")) { error in
            XCTAssertEqual((error as? SiftError)?.message, expected)
        }
        XCTAssertThrowsError(try database.getRows(sql: "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'alpha' AND "
                                                  + "sift_topk_inb2(docs_fts, 1, 2, 1, 1, '1', '150/300', 0, NULL)")) { error in
            XCTAssertEqual((error as? SiftError)?.message, "sift_topk_inb2: takes the arguments of sift_inb2_df, the leading phrases "
                           + "to ignore and a collector (bound by sift_topk_bind)")
        }
    }

    /// sift_term_rows() appends to the rows the pruned search binds: called from SQL without them (a NULL, a text,
    /// a number, no argument) it is an error, not a crash.
    func testTermRowsFunctionWithoutRowsIsAnError() throws {
        let database = try makeDatabase(rows: 150)
        for argument in ["NULL", "'rows'", "0", ""] {
            XCTAssertThrowsError(try database.getRows(sql: "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'alpha' AND "
                                                      + "sift_term_rows(docs_fts\(argument.isEmpty ? "" : ", " + argument))")) { error in
                XCTAssertEqual((error as? SiftError)?.message, "sift_term_rows: no rows bound, or another number of columns", argument)
            }
        }
    }

    /// Impacts of an earlier layout are stale, not an error: searches stay exact on FTS5's plan, changes leave them
    /// alone and optimize replaces them. Before chunks: one row per term, no `chunk_blocks`; before instance
    /// counts: no `cf` and no `layout`.
    func testImpactsOfAnEarlierLayoutAreStaleUntilOptimize() throws {
        for layout in [0, 1] {
            let database = try makeDatabase(rows: 150)
            if layout == 0 {
                try database.exec(sql: "DROP TABLE docs_fts_sift_impacts")
                try database.exec(sql: "CREATE TABLE docs_fts_sift_impacts(term TEXT PRIMARY KEY, df INTEGER NOT NULL, blocks BLOB NOT NULL) WITHOUT ROWID")
                try database.exec(sql: "ALTER TABLE docs_fts_sift_topk DROP COLUMN chunk_blocks")
            } else if layout == 1 {
                try database.exec(sql: "ALTER TABLE docs_fts_sift_impacts DROP COLUMN cf")
            }
            try database.exec(sql: "ALTER TABLE docs_fts_sift_topk DROP COLUMN layout")
            XCTAssertEqual(try meta(database)?.valid, false, "layout \(layout)")
            for ranking in [Ranking.bm25f(), .inB2()] {
                let results: SearchResults<TopKDoc> = try database.search("beta", in: "docs_fts", options: SearchOptions(ranking: ranking))
                XCTAssertEqual(results.totalCount, 22)
            }
            try database.delete(fromTable: "docs", where: Column(named: "id") == 1)
            try database.update(table: "docs", on: TopKDoc.Properties.body, with: TopKDoc(2, "beta", "beta beta"), where: Column(named: "id") == 2)
            try database.insert(objects: (0..<20).map { TopKDoc(nil, "beta", "x\($0)") }, intoTable: "docs")
            try database.optimize(index: "docs_fts")
            XCTAssertEqual(try meta(database)?.valid, true)
            XCTAssertEqual(try meta(database)?.watermark, 170)
            XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        }
    }

    /// A term's checksum sits before its postings: a search reads every term's bounds and checksum when it plans,
    /// and a column after a large blob is reached only by walking the blob's overflow pages (at 1M rows, about
    /// 1 ms for two frequent terms).
    func testTermsChecksumPrecedesThePostings() throws {
        let database = try makeDatabase(rows: 300)
        let columns = try database.read { handle -> [String] in
            try handle.withStatement("SELECT name FROM pragma_table_info('docs_fts_sift_impacts') ORDER BY cid") { stmt in
                var names: [String] = []
                while try handle.step(stmt) { names.append(RawStatement.text(stmt, 0)) }
                return names
            }
        }
        XCTAssertEqual(columns, ["term", "chunk", "df", "cf", "blocks", "checksum", "postings"])
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    func testSmallIndexHasNoImpacts() throws {
        let database = try makeDatabase(rows: 50)
        XCTAssertNil(try meta(database))
        try database.rebuild(index: "docs_fts")
        XCTAssertNil(try meta(database))
    }

    /// Whether a `.bm25f` search for `text` takes the pruned plan.
    private func isPruned(_ database: Database, _ text: String) throws -> Bool {
        try database.read { handle in
            let info = try database.ftsInfo("docs_fts", on: handle)
            let tokenizer = try handle.tokenizer(info.tokenizer)
            guard let weighted = try SearchQuery(text).weightedTree(spans: tokenizer.querySpans, distinct: true) else { return false }
            return try TopKSearch.plan(weighted.tree, weighted.weights, info, SearchOptions(ranking: .bm25f()), on: handle) != nil
        }
    }

    private func rows(_ database: Database, _ term: String) throws -> Int64? {
        try database.getValue(on: Column(named: "df").sum(), fromTable: "docs_fts_sift_impacts",
                              where: Column(named: "term") == term).int64Value
    }

    /// Deletes, updates and inserts at low rowids keep the impacts exact in their transaction: searches stay on the
    /// pruned plan with the right row counts and a raised block maximum, a rollback takes the change back, and
    /// optimize makes the loosened bounds tight again.
    func testDeletesAndUpdatesKeepImpactsValidAndRollbackUndoesThem() throws {
        let database = try makeDatabase(rows: 150)
        try database.rebuild(index: "docs_fts")                                   // lists beta (22 of 150 rows)
        XCTAssertEqual(try rows(database, "beta"), 22)
        try database.begin()
        try database.delete(fromTable: "docs", where: Column(named: "id") == 1)   // "alpha beta", "alpha delta w0"
        XCTAssertEqual(try rows(database, "beta"), 21)
        XCTAssertEqual(try meta(database)?.loose, true)
        try database.rollback()
        XCTAssertEqual(try rows(database, "beta"), 22)
        XCTAssertEqual(try meta(database)?.loose, false)
        // Row 10 has no beta: the update gives it the most of any row, in a block whose maxima had none.
        try database.update(table: "docs", on: TopKDoc.Properties.body, with: TopKDoc(nil, "", "beta beta beta"),
                            where: Column(named: "id") == 10)
        try database.delete(fromTable: "docs", where: Column(named: "id") == 8)
        try database.insert(objects: [TopKDoc(8, "beta", "gamma")], intoTable: "docs")  // a low rowid, row by row
        let meta = try XCTUnwrap(try meta(database))
        XCTAssertTrue(meta.valid)
        XCTAssertTrue(meta.loose)
        XCTAssertEqual(meta.watermark, 150)
        XCTAssertEqual(try rows(database, "beta"), 23)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        XCTAssertTrue(try isPruned(database, "beta"))
        let results: SearchResults<TopKDoc> = try database.search("beta", in: "docs_fts", options: SearchOptions(ranking: .bm25f()))
        XCTAssertEqual(results.hits.first?.object.id, 10)
        XCTAssertEqual(results.totalCount, 23)
        try database.optimize(index: "docs_fts")
        XCTAssertEqual(try self.meta(database)?.loose, false)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    /// A delta's row missing (all of them deleted here) is made by the first change that needs it, and counts,
    /// postings and searches stay exact.
    func testAMissingDeltaRowIsMadeByTheFirstChange() throws {
        let database = try makeDatabase(rows: 150)
        try database.rebuild(index: "docs_fts")
        try database.exec(sql: "DELETE FROM docs_fts_sift_impacts WHERE chunk < -1")
        try database.delete(fromTable: "docs", where: Column(named: "id") == 1)   // "alpha beta", "alpha delta w0"
        try database.update(table: "docs", on: TopKDoc.Properties.body, with: TopKDoc(nil, "", "beta"),
                            where: Column(named: "id") == 10)
        XCTAssertEqual(try deltaRows(database, "beta")?.rowids, [1, 10])
        XCTAssertEqual(try rows(database, "beta"), 22)
        XCTAssertEqual(try rows(database, "alpha"), 149)
        XCTAssertEqual(try meta(database)?.valid, true)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    /// Rows at rowid 0 and below are outside the blocks (which start at rowid 1): every search scores and counts
    /// them, as it does the rows above the watermark.
    func testRowsWithNegativeRowidsAreFound() throws {
        let database = try emptyDatabase()
        try database.insert(objects: (0..<150).map { TopKDoc(-$0 - 1, "alpha \($0 % 7 == 0 ? "beta" : "gamma")", "alpha delta w\($0)") }
                            + (0..<150).map { (i: Int) in TopKDoc(i, "alpha gamma", "delta x\(i)") }, intoTable: "docs")
        try database.rebuild(index: "docs_fts")
        XCTAssertEqual(try meta(database)?.valid, true)
        XCTAssertEqual(try rows(database, "beta"), 0, "beta is only in the low tail")
        XCTAssertEqual(try rows(database, "gamma"), 149, "the row at rowid 0 is in the low tail too")
        try database.insert(objects: [TopKDoc(-1000, "gamma gamma", "gamma gamma")], intoTable: "docs")
        XCTAssertTrue(try isPruned(database, "gamma"))
        let results: SearchResults<TopKDoc> = try database.search("gamma", in: "docs_fts", options: SearchOptions(ranking: .bm25f()))
        XCTAssertEqual(results.hits.first?.object.id, -1000)
        XCTAssertEqual(results.totalCount, 128 + 150 + 1)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    /// A word found only in a column weighing 0 adds nothing to a row's score, but the row still matches: its block
    /// must still be searched (it was left out as if the word were missing there).
    func testRowsWhoseWordIsOnlyInAZeroWeightColumnAreFound() throws {
        let database = try emptyDatabase()
        try database.insert(objects: (1...160).map { (i: Int) in TopKDoc(i, "beta", "delta x\(i)") }
                            + (161...320).map { (i: Int) in TopKDoc(i, "gamma", "delta beta y\(i)") }, intoTable: "docs")
        try database.optimize(index: "docs_fts")
        XCTAssertEqual(try meta(database)?.valid, true)
        XCTAssertTrue(try isPruned(database, "beta delta"))
        for mode in [SearchQuery.Mode.allTerms, .anyTerm] {
            let options = SearchOptions(limit: 400, weights: ["title": 0], ranking: .bm25f())
            let results: SearchResults<TopKDoc> = try database.search("beta delta", mode: mode, in: "docs_fts", options: options)
            XCTAssertEqual(results.hits.count, 320, "\(mode)")
            XCTAssertEqual(Set(results.hits.prefix(160).compactMap(\.object.id)), Set(161...320), "\(mode)")
        }
    }

    func testTotalIsExactOrMarkedLowerBound() throws {
        let database = try makeDatabase(rows: 1_200)
        let options = SearchOptions(limit: 5, ranking: .bm25f())
        let one: SearchResults<TopKDoc> = try database.search("alpha", in: "docs_fts", options: options)
        XCTAssertEqual(one.totalCount, 1_200)
        XCTAssertFalse(one.totalCountIsLowerBound)
        let both: SearchResults<TopKDoc> = try database.search("alpha delta", mode: .anyTerm, in: "docs_fts", options: options)
        XCTAssertEqual(both.hits.count, 5)
        if both.totalCountIsLowerBound {
            XCTAssertGreaterThan(try XCTUnwrap(both.totalCount), TopKSearch.exactTotalLimit)
            XCTAssertLessThanOrEqual(try XCTUnwrap(both.totalCount), 1_200)
        } else {
            XCTAssertEqual(both.totalCount, 1_200)
        }
        let few: SearchResults<TopKDoc> = try database.search("beta alpha", in: "docs_fts", options: options)
        XCTAssertEqual(few.totalCount, 172)
        XCTAssertFalse(few.totalCountIsLowerBound)
    }
}
