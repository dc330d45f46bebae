import CSQLite
import Foundation
import XCTest
@testable import Sift

// The score bounds are exact after every path that writes their index's source, and damaged bounds never cost a
// hit: after each kind of write (bulk loads above and below the watermark, single inserts, REPLACE, updates,
// deletes, each migration step kind, FTS5 commands issued as raw SQL, rebuild, optimize, recovery of a copy, a
// second synced index) and for each index declaration (columnsize=0, detail=column and none, trigram,
// unicode61), a search returns the hits, order, scores and totals of FTS5's exhaustive plan, and
// `verify(index:)` is clean. Small corpus, lowered thresholds (bounds from 200 rows, terms listed from 30 rows,
// blocks of 16 rowids).

// Rows are `TopKDoc`s; `TopKIndexModel` declares the unicode61 index. One more model per other declaration (the
// virtual-table binding is a static property).

final class NoSizesIndexModel: TableCodable {
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = NoSizesIndexModel
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61"), ModuleArgument(withColumnSize: false))
        }
    }
}

final class ColumnDetailIndexModel: TableCodable {
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ColumnDetailIndexModel
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61"), ModuleArgument(withDetail: .column))
        }
    }
}

final class NoDetailIndexModel: TableCodable {
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = NoDetailIndexModel
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61"), ModuleArgument(withDetail: .none))
        }
    }
}

final class TrigramIndexModel: TableCodable {
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = TrigramIndexModel
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "trigram"))
        }
    }
}

final class ScoreBoundsPathTests: XCTestCase {
    private let words = (0..<120).map { "w\($0)x" }
    private var rng = SplitMix(seed: 20261126)

    private func word() -> String { rng.zipf(words) }

    private func document(_ id: Int? = nil) -> TopKDoc {
        TopKDoc(id, (0..<Int.random(in: 1...5, using: &rng)).map { _ in word() }.joined(separator: " "),
                  (0..<Int.random(in: 3...25, using: &rng)).map { _ in word() }.joined(separator: " "))
    }

    private func makeDatabase<Index: TableCodable>(_ index: Index.Type, rows: Int = 600) throws -> Database {
        let path = NSTemporaryDirectory() + "bounds-\(UUID().uuidString).db"
        let database = Database(withPath: path)
        addTeardownBlock { try? database.close { try? database.removeFiles() } }
        database.fullTextBulkThreshold = 8
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock {
            $0 = (rows: 200, listed: 30, block: 16, chunk: 4, piece: 5, tail: 4, statementRows: 0, delta: 3, logRows: 4, logEntries: 64, postings: true, rareRowsRatio: 0...Double.infinity)
        }
        try database.create(table: "doc", of: TopKDoc.self)
        try database.create(virtualTable: "doc_fts", of: Index.self, syncedWith: "doc")
        if rows > 0 { try database.insert(objects: (0..<rows).map { _ in document() }, intoTable: "doc") }
        return database
    }

    private func exhaustiveScores(_ database: Database, _ query: SearchQuery, _ options: SearchOptions) throws -> [Int64: Double] {
        try exhaustiveRankScores(database, index: "doc_fts", columns: ["title", "body"], query, options)
    }

    private func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    /// Searches frequent and rare words, all terms and any term, with both rankings, and requires the exhaustive
    /// plan's hits, scores and totals; returns how many took the pruned plan.
    /// With `verifying` false (bounds damaged on purpose), verify must run but its verdict is not required clean.
    @discardableResult
    private func checkSearches(_ database: Database, _ label: String, verifying: Bool = true, file: StaticString = #filePath,
                               line: UInt = #line) throws -> Int {
        var pruned = 0, searched = 0
        let texts = ["w0x", "w1x w2x", "w0x w5x", "w3x w40x", "w90x", "w2x w7x w11x", "w60x w0x"]
        for text in texts {
            for mode in [SearchQuery.Mode.allTerms, .anyTerm] {
                for ranking in [Ranking.bm25f(), .inB2()] {
                    let query = SearchQuery(text, mode: mode)
                    let options = SearchOptions(limit: 10, ranking: ranking)
                    // One search in three takes the plans that read the blocks rather than the postings.
                    searched += 1
                    let postings = searched % 3 != 0
                    database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.postings = postings }
                    defer { database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.postings = true } }
                    let results: SearchResults<TopKDoc> = try database.search(query, in: "doc_fts", options: options)
                    let scores = try exhaustiveScores(database, query, options)
                    let best = Array(scores.values.sorted(by: >).prefix(options.limit))
                    let context = "\(label): '\(text)' \(mode) \(ranking) postings \(postings)"
                    XCTAssertEqual(results.hits.count, best.count, context, file: file, line: line)
                    for (hit, score) in zip(results.hits, best) {
                        XCTAssertTrue(close(hit.score, score), "\(context): \(hit.score) vs \(score)", file: file, line: line)
                        XCTAssertTrue(scores[hit.rowid].map { close($0, hit.score) } == true, "\(context): row \(hit.rowid)",
                                      file: file, line: line)
                    }
                    if let total = results.totalCount, !results.totalCountIsLowerBound {
                        XCTAssertEqual(total, scores.count, context, file: file, line: line)
                    }
                    let planned = try database.read { handle -> Bool in
                        let info = try database.ftsInfo("doc_fts", on: handle)
                        let tokenizer = try handle.tokenizer(info.tokenizer)
                        guard let weighted = try query.weightedTree(spans: tokenizer.querySpans, distinct: true) else { return false }
                        return try TopKSearch.plan(weighted.tree, weighted.weights, info, options, on: handle) != nil
                    }
                    if planned { pruned += 1 }
                }
            }
        }
        let verification = try database.verify(index: "doc_fts")
        if verifying { XCTAssertTrue(verification.isConsistent, "\(label): \(verification)", file: file, line: line) }
        return pruned
    }

    private func meta(_ database: Database) throws -> TopKImpacts.Meta? {
        try database.read { handle in try TopKImpacts.meta("doc_fts", on: handle) }
    }

    private func prepared(_ rows: Int = 600) throws -> Database {
        let database = try makeDatabase(TopKIndexModel.self, rows: rows)
        try database.optimize(index: "doc_fts")
        XCTAssertEqual(try meta(database)?.valid, true)
        return database
    }

    // MARK: - Migrations

    /// A migration step's raw UPDATE rewrites the rows behind the sync layer's back; the step's end rebuilds FTS5
    /// and, through the same choke point, the bounds. Without it the bounds kept the old counts: the rows the step
    /// filled with one word ranked below rows it never touched.
    func testMigrationStepsRebuildTheBounds() throws {
        let database = try prepared()
        try database.migrate(table: "doc", of: TopKDoc.self, steps: [
            1: { try $0.exec(sql: "UPDATE doc SET body = 'fresh w3x w3x w3x w3x w3x w3x w3x w3x' WHERE id % 10 = 0") },
        ])
        let results: SearchResults<TopKDoc> = try database.search("w3x", in: "doc_fts",
                                                                   options: SearchOptions(limit: 20, ranking: .bm25f()))
        XCTAssertEqual(results.hits.count, 20)
        XCTAssertTrue(results.hits.allSatisfy { ($0.object.id ?? 1) % 10 == 0 }, "the migrated rows rank first: \(results.hits.map(\.rowid))")
        XCTAssertEqual(try meta(database)?.valid, true)
        XCTAssertGreaterThan(try checkSearches(database, "exec step"), 0)
        // The typed step kinds take the same path.
        try database.migrate(table: "doc", of: TopKDoc.self, steps: [
            2: { try $0.update(property: "body", with: "w5x w5x fresh", where: Column(named: "id") % 7 == 0) },
        ])
        try checkSearches(database, "update step")
        try database.migrate(table: "doc", of: TopKDoc.self, steps: [3: { try $0.rebuildTable() }])
        XCTAssertGreaterThan(try checkSearches(database, "table rebuild step"), 0)
    }

    // MARK: - Declarations without bounds

    /// Indexes that keep no column sizes or no per-column positions get no bounds: bulk inserts, changes and
    /// searches take FTS5's plan, and verify says so. Without the check a bulk insert into a columnsize=0 index
    /// failed with "no such table: doc_fts_docsize".
    func testIndexesWithoutSizesOrPositionsGetNoBounds() throws {
        let cases: [(any TableCodable.Type, String)] = [
            (NoSizesIndexModel.self, "columnsize=0"), (ColumnDetailIndexModel.self, "detail=column"), (NoDetailIndexModel.self, "detail=none"),
        ]
        for (model, reason) in cases {
            let database = try makeDatabase(model, rows: 400)
            try database.insert(objects: (0..<50).map { _ in document() }, intoTable: "doc")
            try database.update(table: "doc", on: TopKDoc.Properties.body, with: document(3), where: Column(named: "id") == 3)
            try database.delete(fromTable: "doc", where: Column(named: "id") == 4)
            try database.optimize(index: "doc_fts")
            try database.rebuild(index: "doc_fts")
            XCTAssertNil(try meta(database), reason)
            let verification = try database.verify(index: "doc_fts")
            XCTAssertTrue(verification.isConsistent, "\(reason): \(verification)")
            XCTAssertEqual(verification.indexedRows, 449, reason)
            XCTAssertTrue(verification.searchPlan.hasPrefix("exhaustive"), "\(reason): \(verification.searchPlan)")
            XCTAssertTrue(verification.searchPlan.contains(reason), "\(reason): \(verification.searchPlan)")
            if reason == "columnsize=0" { XCTAssertEqual(try checkSearches(database, reason), 0) }
            let hits: SearchResults<TopKDoc> = try database.search("w1x", in: "doc_fts", options: SearchOptions(ranking: .bm25))
            XCTAssertGreaterThan(hits.hits.count, 0, reason)
        }
    }

    /// An index that stores its own text (no content table, so no sync layer) gets no bounds, however large, and
    /// verify says why.
    func testAnIndexWithoutContentTableGetsNoBounds() throws {
        let database = try makeDatabase(TopKIndexModel.self, rows: 0)
        try database.create(virtualTable: "notes_fts", of: TopKIndexModel.self)
        let notes = (0..<300).map { _ -> TopKIndexModel in
            let note = TopKIndexModel()
            (note.title, note.body) = (document().title, document().body)
            return note
        }
        try database.insert(objects: notes, intoTable: "notes_fts")
        try database.optimize(index: "notes_fts")
        try database.rebuild(index: "notes_fts")
        XCTAssertNil(try database.read { handle in try TopKImpacts.meta("notes_fts", on: handle) })
        let verification = try database.verify(index: "notes_fts")
        XCTAssertTrue(verification.isConsistent, "\(verification)")
        XCTAssertEqual(verification.searchPlan, "exhaustive: it is not a synced index")
        let hits: SearchResults<TopKIndexModel> = try database.search("w1x", in: "notes_fts")
        XCTAssertGreaterThan(hits.hits.count, 0)
    }

    /// A trigram index gets bounds like any other, and stays exact.
    func testTrigramIndexStaysExact() throws {
        let database = try makeDatabase(TrigramIndexModel.self, rows: 400)
        try database.optimize(index: "doc_fts")
        try database.insert(objects: (0..<40).map { _ in document() }, intoTable: "doc")
        try database.delete(fromTable: "doc", where: Column(named: "id") == 9)
        try checkSearches(database, "trigram")
    }

    // MARK: - FTS5 commands issued as SQL

    /// FTS5's commands issued through Sift as plain SQL: 'rebuild' builds the bounds anew, 'delete-all' leaves them
    /// stale, 'optimize' and the settings leave them as they were. Without the seam a 'delete-all' left bounds
    /// describing rows FTS5 no longer had.
    func testRawFullTextCommandsTellTheBounds() throws {
        let database = try prepared()
        try database.exec(sql: "INSERT INTO doc_fts(doc_fts) VALUES('optimize')")
        try database.exec(sql: "INSERT INTO doc_fts(doc_fts, rank) VALUES('automerge', 4)")
        XCTAssertEqual(try meta(database)?.valid, true, "commands that keep the rows keep the bounds")
        try database.exec(sql: "INSERT INTO doc_fts(doc_fts) VALUES('delete-all')")
        XCTAssertEqual(try meta(database)?.valid, false, "'delete-all' leaves them stale")
        try checkSearches(database, "after delete-all", verifying: false)
        try database.exec(sql: "INSERT INTO doc_fts(doc_fts) VALUES(?)", values: ["rebuild"])
        XCTAssertEqual(try meta(database)?.valid, true, "'rebuild' builds them anew")
        XCTAssertGreaterThan(try checkSearches(database, "after rebuild"), 0)
        // A row deleted from the index itself (FTS5's 'delete' command) leaves the content behind: stale bounds.
        let row = try XCTUnwrap(try database.getObject(fromTable: "doc", where: Column(named: "id") == 5) as TopKDoc?)
        try database.exec(sql: "INSERT INTO doc_fts(doc_fts, rowid, title, body) VALUES('delete', 5, ?, ?)", values: [row.title, row.body])
        XCTAssertEqual(try meta(database)?.valid, false)
        try database.rebuild(index: "doc_fts")
        XCTAssertGreaterThan(try checkSearches(database, "after rebuild(index:)"), 0)
    }

    // MARK: - Every write kind

    /// The write kinds one after the other, each followed by the full check.
    func testEveryWriteKindKeepsSearchesExact() throws {
        let database = try prepared()
        var pruned = 0, counts: [(String, Int)] = []
        // Each write kind keeps the bounds valid, but a bulk insert below the watermark (which leaves them stale).
        func check(_ label: String, valid: Bool = true) throws {
            XCTAssertEqual(try meta(database)?.valid, valid, "\(label): the bounds' validity")
            let planned = try checkSearches(database, label)
            counts.append((label, planned))
            pruned += planned
        }
        try check("built")
        try database.insert(objects: (0..<60).map { _ in document() }, intoTable: "doc")
        try check("bulk above the watermark")
        try database.insert(objects: (0..<12).map { document(1_000 + $0 * 40) }, intoTable: "doc")
        try check("bulk above, sparse rowids")
        try database.delete(fromTable: "doc", where: Column(named: "id") >= 100 && Column(named: "id") < 120)
        try database.insert(objects: (100..<112).map { document($0) }, intoTable: "doc")
        try check("bulk below the watermark", valid: false)
        try database.optimize(index: "doc_fts")
        try database.insert(objects: [document()], intoTable: "doc")
        try database.insert(objects: [document(115)], intoTable: "doc")
        try check("single inserts")
        try database.insertOrReplace(objects: [document(7), document(8)], intoTable: "doc")
        try check("replace")
        try database.update(table: "doc", on: TopKDoc.Properties.body, with: document(), where: Column(named: "id") < 30)
        try check("update")
        try database.delete(fromTable: "doc", where: Column(named: "id") % 9 == 0)
        try check("delete")
        try database.optimize(index: "doc_fts")
        try check("optimize")
        try database.begin()
        try database.insert(objects: (0..<30).map { _ in document() }, intoTable: "doc")
        try database.delete(fromTable: "doc", where: Column(named: "id") < 60)
        try database.rollback()
        try check("rolled back")
        try database.insert(objects: [document(-3), document(0)], intoTable: "doc")
        try check("rows at rowid 0 or below")
        try database.rebuild(index: "doc_fts")
        try check("rebuild(index:)")
        try database.create(virtualTable: "doc_title", of: TrigramIndexModel.self, syncedWith: "doc")
        try database.insert(objects: (0..<30).map { _ in document() }, intoTable: "doc")
        try database.update(table: "doc", on: TopKDoc.Properties.title, with: document(), where: Column(named: "id") == 12)
        try check("a second synced index")
        XCTAssertTrue(try database.verify(index: "doc_title").isConsistent)
        XCTAssertGreaterThan(pruned, 40, "the pruned plan ran for too few searches to test it")
        print("write kinds (each: 28 searches against the exhaustive plan, then verify): "
              + counts.map { "\($0.0) \($0.1) pruned" }.joined(separator: "; "))
    }

    /// A recovered copy gets bounds rebuilt from its recovered rows, never the damaged file's.
    func testRecoveryRebuildsTheBounds() throws {
        let database = try prepared()
        try database.update(table: "doc", on: TopKDoc.Properties.body, with: document(), where: Column(named: "id") < 20)
        // The damaged file's bounds say something else: recovery must not keep them.
        try database.exec(sql: "UPDATE doc_fts_sift_impacts SET df = df + 100")
        let source = database.path
        database.close()
        let target = Database(withPath: NSTemporaryDirectory() + "bounds-recovered-\(UUID().uuidString).db")
        addTeardownBlock { try? target.close { try? target.removeFiles() } }
        target.fullTextBulkThreshold = 8
        target.pool.attachment(FullTextSettings.init).impactSizes.withLock {
            $0 = (rows: 200, listed: 30, block: 16, chunk: 4, piece: 5, tail: 4, statementRows: 0, delta: 3, logRows: 4, logEntries: 64, postings: true, rareRowsRatio: 0...Double.infinity)
        }
        _ = try Database.recover(from: source, into: target)
        XCTAssertEqual(try meta(target)?.valid, true)
        XCTAssertGreaterThan(try checkSearches(target, "recovered"), 0)
    }

    // MARK: - Damaged bounds

    /// Seeded random damage to every table of the bounds (each mutant rolled back after its searches): extreme or
    /// random numbers in each metadata field, chunk numbers and counts; random, truncated, extended, bit-flipped
    /// or huge-varint blobs of blocks, postings and deltas; deltas at extreme chunk numbers, and deltas whose rows
    /// stop before their last byte, both with their checksums right; log rows of random bytes, and of one well-formed
    /// entry with random or extreme numbers, with their checksums right. Every search returns as many hits as FTS5's
    /// exhaustive plan finds, with the exact total, or a typed error; never a crash. Half the mutants damage an
    /// index searched through the postings and their deltas (the postings plan), half one searched through the
    /// blocks (the block plan). SIFT_BOUNDS_MUTANTS sets how many (1,000 by default).
    func testRandomDamageToTheBoundsNeverCostsAHit() throws {
        let mutants = ProcessInfo.processInfo.environment["SIFT_BOUNDS_MUTANTS"].flatMap(Int.init) ?? 1_000
        let databases = try [60, 40].map { every in
            let database = try prepared(300)
            database.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.postings = every == 60 }
            try database.update(table: "doc", on: TopKDoc.Properties.body, with: document(), where: Column(named: "id") % every == 0)
            try database.delete(fromTable: "doc", where: Column(named: "id") == 77)
            return database
        }
        var random = SplitMix(seed: 29)
        let extremes: [Int64] = [-1, 0, 1, 2, 3, 255, 256, 65_535, 1 << 20, Int64(Int32.max), (1 << 32) - 1, 1 << 40, 1 << 62,
                                 .max, .min, 70_000_000]
        func number() -> Int64 {
            Bool.random(using: &random) ? extremes.randomElement(using: &random) ?? 0 : Int64.random(in: -1_000...100_000, using: &random)
        }
        func hex(_ bytes: [UInt8]) -> String { "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'" }
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        // A row appended to the log of changed rows, its checksum chained to the last row's.
        func logRow(n: Int64, _ entries: String) -> String {
            let log = "doc_fts_sift_impacts_log", last = "FROM doc_fts_sift_impacts_log ORDER BY seq DESC LIMIT 1"
            return "INSERT INTO \(log)(seq, n, total, entries, checksum) SELECT s, n, t, e, sift_bounds_check(s, n, t, e, p) FROM "
                + "(SELECT coalesce((SELECT seq \(last)), 0) + 1 AS s, \(n) AS n, coalesce((SELECT total \(last)), 0) + \(n) AS t, "
                + "\(entries) AS e, coalesce((SELECT checksum \(last)), 0) AS p)"
        }
        let fields = ["watermark", "block", "valid", "columns", "built_rows", "chunk_blocks", "layout"]
        var kinds: [String: Int] = [:]
        var outcomes = (errors: 0, searches: 0)
        for mutant in 0..<mutants {
            let database = databases[mutant % 2]
            let impactRows = try database.getValue(on: Column(named: "rowid").max(), fromTable: "doc_fts_sift_impacts").int64Value
            let row = Int64.random(in: 1...max(1, impactRows), using: &random)
            let blobColumn = ["blocks", "postings"].randomElement(using: &random) ?? "postings"
            // A log row of one entry of w1x, well formed, with its numbers random or extreme.
            var entry: [UInt8] = []
            ImpactPostings.leb128(1, to: &entry)
            for _ in 0..<(1 + 3 * 2) { ImpactPostings.leb128(UInt64(bitPattern: number()), to: &entry) }
            var logEntry: [UInt8] = [3] + Array("w1x".utf8)
            ImpactPostings.leb128(UInt64(entry.count), to: &logEntry)
            logEntry += entry
            let (kind, sql): (String, String) = switch Int.random(in: 0..<12, using: &random) {
            case 0: ("metadata", "UPDATE doc_fts_sift_topk SET \(fields.randomElement(using: &random) ?? "block") = \(number())")
            case 1: ("chunk", "UPDATE OR IGNORE doc_fts_sift_impacts SET chunk = \(number()) WHERE rowid = \(row)")
            case 2: ("counts", "UPDATE doc_fts_sift_impacts SET \(Bool.random(using: &random) ? "df" : "cf") = \(number()) WHERE rowid = \(row)")
            case 3: ("random blob", "UPDATE doc_fts_sift_impacts SET \(blobColumn) = \(hex(bytes(Int.random(in: 0...64, using: &random)))) WHERE rowid = \(row)")
            case 4: ("truncated blob", "UPDATE doc_fts_sift_impacts SET \(blobColumn) = coalesce(substr(\(blobColumn), 1, \(Int.random(in: 0...40, using: &random))), x'') WHERE rowid = \(row)")
            case 5: ("extended blob", "UPDATE doc_fts_sift_impacts SET \(blobColumn) = \(blobColumn) || \(hex(bytes(Int.random(in: 1...12, using: &random)))) WHERE rowid = \(row)")
            case 6: ("huge varint", "UPDATE doc_fts_sift_impacts SET postings = \(hex(Array(repeating: 0xFF, count: Int.random(in: 8...12, using: &random)) + [0x01, 0x01, 0x00])) || postings WHERE rowid = \(row)")
            case 7: ("flipped byte", "UPDATE doc_fts_sift_impacts SET \(blobColumn) = CASE WHEN length(\(blobColumn)) = 0 THEN \(blobColumn) ELSE "
                     + "substr(\(blobColumn), 1, (\(row) % length(\(blobColumn)))) || \(hex(bytes(1))) || substr(\(blobColumn), (\(row) % length(\(blobColumn))) + 2) END WHERE rowid = \(row)")
            case 8: ("delta chunk", "INSERT OR REPLACE INTO doc_fts_sift_impacts(term, chunk, df, cf, blocks, checksum) SELECT t, c, d, d, x'', "
                     + "sift_bounds_check(t, c, d, d, x'') FROM (SELECT 'w1x' AS t, \(min(-1, number())) AS c, \(Int.random(in: -3...3, using: &random)) AS d)")
            case 10: ("log row", logRow(n: number(), hex(bytes(Int.random(in: 0...24, using: &random)))))
            case 11: ("log entry", logRow(n: 1, hex(logEntry)))
            default: ("delta rows cut short", "INSERT OR REPLACE INTO doc_fts_sift_impacts(term, chunk, df, cf, blocks, checksum) "
                      + "SELECT t, c, 0, 0, b, sift_bounds_check(t, c, 0, 0, b) FROM (SELECT 'w\(Int.random(in: 0...5, using: &random))x' AS t, "
                      + "\(-2 - Int.random(in: 0...4, using: &random)) AS c, \(hex(bytes(Int.random(in: 0...8, using: &random)) + [0x80])) AS b)")
            }
            kinds[kind, default: 0] += 1
            try database.begin()
            defer { try? database.rollback() }
            do {
                try database.exec(sql: sql)
            } catch {
                kinds["(not applied) " + kind, default: 0] += 1  // a constraint of the table refused it
                continue
            }
            for text in ["w0x", "w1x w2x", "w0x w3x"] {
                for mode in [SearchQuery.Mode.allTerms, .anyTerm] {
                    let query = SearchQuery(text, mode: mode)
                    let options = SearchOptions(limit: 8, ranking: .bm25f())
                    let expected = try exhaustiveScores(database, query, options)
                    outcomes.searches += 1
                    do {
                        let results: SearchResults<TopKDoc> = try database.search(query, in: "doc_fts", options: options)
                        XCTAssertEqual(results.hits.count, min(8, expected.count), "\(kind): \(sql) '\(text)' \(mode)")
                        if let total = results.totalCount, !results.totalCountIsLowerBound {
                            XCTAssertEqual(total, expected.count, "\(kind): \(sql) '\(text)' \(mode)")
                        }
                    } catch is SiftError {
                        outcomes.errors += 1
                    }
                }
            }
        }
        print("bounds mutants: \(mutants), searches \(outcomes.searches), typed errors \(outcomes.errors), by kind \(kinds.sorted { $0.key < $1.key })")
    }

    /// Implausible stored numbers read as stale bounds (FTS5's plan, every hit), never a trap, an allocation of
    /// their size or fewer hits; verify names them. Without the checks these trapped (negative counts, overflowing
    /// sums, a chunk number of 2^63 - 1) or allocated what the watermark claimed.
    func testImplausibleStoredNumbersReadAsStale() throws {
        let damages: [(String, String)] = [
            ("watermark -5", "UPDATE doc_fts_sift_topk SET watermark = -5"),
            ("watermark 2^62", "UPDATE doc_fts_sift_topk SET watermark = 4611686018427387904"),
            ("watermark 2^32 - 1", "UPDATE doc_fts_sift_topk SET watermark = 4294967295"),
            ("block 0", "UPDATE doc_fts_sift_topk SET block = 0"),
            ("block -16", "UPDATE doc_fts_sift_topk SET block = -16"),
            ("chunk_blocks 0", "UPDATE doc_fts_sift_topk SET chunk_blocks = 0"),
            ("chunk_blocks 2^40", "UPDATE doc_fts_sift_topk SET chunk_blocks = 1099511627776"),
            ("columns 0", "UPDATE doc_fts_sift_topk SET columns = 0"),
            ("columns 1000", "UPDATE doc_fts_sift_topk SET columns = 1000"),
            ("valid 7", "UPDATE doc_fts_sift_topk SET valid = 7"),
            ("chunk 2^63 - 1", "UPDATE doc_fts_sift_impacts SET chunk = 9223372036854775807 WHERE term = 'w0x' AND chunk = 0"),
            ("chunk 70,000,000", "UPDATE doc_fts_sift_impacts SET chunk = 70000000 WHERE term = 'w1x' AND chunk = 1"),
            ("df overflow", "UPDATE doc_fts_sift_impacts SET df = 9223372036854775807 WHERE term = 'w0x' AND chunk >= 0"),
            ("df negative", "UPDATE doc_fts_sift_impacts SET df = -1000 WHERE term = 'w0x' AND chunk = 0"),
            ("blocks too long", "UPDATE doc_fts_sift_impacts SET blocks = zeroblob(100000) WHERE term = 'w2x' AND chunk = 0"),
            // Deltas with their checksums right: their chunks, counts and rows themselves are checked.
            ("a delta at chunk -1", "INSERT OR REPLACE INTO doc_fts_sift_impacts(term, chunk, df, cf, blocks, checksum) SELECT t, c, d, d, b, "
             + "sift_bounds_check(t, c, d, d, b) FROM (SELECT 'w0x' AS t, -1 AS c, 0 AS d, x'' AS b)"),
            ("a delta past the watermark's chunk", "INSERT OR REPLACE INTO doc_fts_sift_impacts(term, chunk, df, cf, blocks, checksum) SELECT t, c, d, d, b, "
             + "sift_bounds_check(t, c, d, d, b) FROM (SELECT 'w1x' AS t, -1002 AS c, 0 AS d, x'' AS b)"),
            ("a delta's row count below zero", "INSERT OR REPLACE INTO doc_fts_sift_impacts(term, chunk, df, cf, blocks, checksum) SELECT t, c, d, d, b, "
             + "sift_bounds_check(t, c, d, d, b) FROM (SELECT 'w0x' AS t, -2 AS c, -100000 AS d, x'' AS b)"),
            ("a delta's rows cut short", "INSERT OR REPLACE INTO doc_fts_sift_impacts(term, chunk, df, cf, blocks, checksum) SELECT t, c, d, d, b, "
             + "sift_bounds_check(t, c, d, d, b) FROM (SELECT 'w1x' AS t, -2 AS c, 0 AS d, x'031180' AS b)"),
            ("a delta longer than its chunk's rows", "INSERT OR REPLACE INTO doc_fts_sift_impacts(term, chunk, df, cf, blocks, checksum) "
             + "SELECT t, c, 0, 0, b, sift_bounds_check(t, c, 0, 0, b) FROM (SELECT 'w2x' AS t, -2 AS c, "
             + "zeroblob(200000) AS b)"),
            ("a delta's row past its chunk", "INSERT OR REPLACE INTO doc_fts_sift_impacts(term, chunk, df, cf, blocks, checksum) SELECT t, c, d, d, b, "
             + "sift_bounds_check(t, c, d, d, b) FROM (SELECT 'w0x' AS t, -3 AS c, 0 AS d, x'ff0111' AS b)"),
            ("checksum", "UPDATE doc_fts_sift_impacts SET checksum = checksum + 1 WHERE term = 'w1x' AND chunk = 0"),
            ("blocks zeroed", "UPDATE doc_fts_sift_impacts SET blocks = zeroblob(length(blocks)) WHERE term = 'w2x' AND chunk = 1"),
            ("block size", "UPDATE doc_fts_sift_topk SET block = 32"),
            ("postings truncated", "UPDATE doc_fts_sift_impacts SET postings = substr(postings, 1, length(postings) / 2) WHERE term IN ('w0x', 'w1x', 'w2x') AND chunk >= 0"),
            ("postings cut at a row", "UPDATE doc_fts_sift_impacts SET postings = x'01ff01' WHERE term IN ('w0x', 'w1x') AND chunk >= 0"),
            ("postings past the chunk", "UPDATE doc_fts_sift_impacts SET postings = x'ff0f11' WHERE term = 'w0x' AND chunk = 0"),
            ("postings huge distance", "UPDATE doc_fts_sift_impacts SET postings = x'ffffffffffffffff7f0101' WHERE term = 'w0x' AND chunk = 0"),
        ]
        for (label, sql) in damages {
            let database = try prepared(400)
            try database.exec(sql: sql)
            try checkSearches(database, label, verifying: false)
        }
    }

}

/// Every match's score under `options.ranking` (sift_rank or sift_inb2) scored by FTS5's exhaustive plan over
/// `index` (whose columns are `columns`, weighted as `options.weights` says), by rowid: what a pruned search must
/// equal.
func exhaustiveRankScores(_ database: Database, index: String, columns: [String], _ query: SearchQuery,
                          _ options: SearchOptions) throws -> [Int64: Double] {
    let q = SQLBuilder.quote(index)
    let function: String
    switch options.ranking.kind {
    case .bm25f(let k1, let b): function = "sift_rank(\(q), \(k1), \(b)"
    case .inB2(let c): function = "sift_inb2(\(q), \(c)"
    case .bm25: return [:]
    }
    let weights = columns.map { String(options.weights[$0] ?? 1) }.joined(separator: ", ")
    return try database.read { handle in
        let tokenizer = try handle.tokenizer(try database.ftsInfo(index, on: handle).tokenizer)
        guard let weighted = try query.weightedTree(spans: tokenizer.querySpans, distinct: true) else { return [:] }
        let phrases = (weighted.weights ?? []).map { String($0) }.joined(separator: " ")
        let sql = "SELECT rowid, \(function), \(columns.count), \(weights), '\(phrases)') FROM \(q) WHERE \(q) MATCH ?"
        return try handle.withStatement(sql) { stmt in
            try handle.bind([FundamentalValue(weighted.tree.rendered)], to: stmt, sql: sql)
            var scores: [Int64: Double] = [:]
            while try handle.step(stmt) { scores[sqlite3_column_int64(stmt, 0)] = -sqlite3_column_double(stmt, 1) }
            return scores
        }
    }
}
