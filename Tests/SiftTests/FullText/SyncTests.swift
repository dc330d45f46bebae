import Foundation
import XCTest
import Sift

final class SyncTests: SiftTestCase {
    private func setUpArticles(mode: SyncMode = .explicit) throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", mode: mode)
        return database
    }

    private func ids(_ database: Database, _ text: String, mode: SearchQuery.Mode = .allTerms) throws -> [Int] {
        let results: SearchResults<Article> = try database.search(SearchQuery(text, mode: mode), in: "articles_fts",
                                                                 options: SearchOptions(limit: 1000))
        return results.hits.compactMap(\.object.id).sorted()
    }

    func testVirtualTableBindingSQL() throws {
        let database = makeDatabase()
        let sqls = Collected<String>()
        database.trace(ofSQL: { sqls.append($0) })
        try database.create(virtualTable: "notes", of: Note.self)
        XCTAssertEqual(sqls.all.first { $0.hasPrefix("CREATE VIRTUAL") },
                       "CREATE VIRTUAL TABLE IF NOT EXISTS notes USING fts5(text, tag UNINDEXED, tokenize='porter unicode61', prefix='2 3')")
        try database.insert(objects: [Note("running quickly", "a"), Note("ran slowly", "b")], intoTable: "notes")
        let results: SearchResults<Note> = try database.search("runs", in: "notes")
        XCTAssertEqual(results.hits.map(\.object.tag), ["a"], "porter stems runs and running alike")
        XCTAssertEqual(results.totalCount, 1)
        let unindexed: SearchResults<Note> = try database.search("a", in: "notes")
        XCTAssertEqual(unindexed.hits.count, 0, "UNINDEXED columns are stored, not searched")
    }

    func testWritesThroughSiftKeepIndexInSync() throws {
        let database = try setUpArticles()
        try database.insert(objects: [Article(1, "Café culture", "Espresso in Paris"), Article(2, "Tea", "Green tea in Kyoto")],
                            intoTable: "articles")
        XCTAssertEqual(try ids(database, "cafe"), [1], "remove_diacritics folds café")
        XCTAssertEqual(try ids(database, "kyoto"), [2])

        try database.insertOrReplace(objects: Article(2, "Tea", "Black tea in London"), intoTable: "articles")
        XCTAssertEqual(try ids(database, "kyoto"), [])
        XCTAssertEqual(try ids(database, "london"), [2])

        try database.update(table: "articles", on: Article.Properties.title, with: ["Coffee"], where: Article.Properties.id == 1)
        XCTAssertEqual(try ids(database, "coffee"), [1])
        XCTAssertEqual(try ids(database, "culture"), [])

        try database.delete(fromTable: "articles", where: Article.Properties.id == 2)
        XCTAssertEqual(try ids(database, "tea"), [])
        try database.exec(sql: "INSERT INTO articles(id, title, body, views) VALUES(?, ?, ?, ?)", values: [3, "Raw", "plain sql", 0])
        XCTAssertEqual(try ids(database, "plain"), [3], "raw SQL through Sift syncs too")
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testUpdateOfUnindexedColumnDoesNotTouchIndex() throws {
        let database = try setUpArticles()
        try database.insert(objects: Article(1, "Title", "Body"), intoTable: "articles")
        let sqls = Collected<String>()
        database.trace(ofSQL: { sqls.append($0) })
        try database.update(table: "articles", on: Article.Properties.views, with: [42], where: Article.Properties.id == 1)
        XCTAssertFalse(sqls.all.contains { $0.contains("articles_fts") }, "\(sqls.all)")
        try database.update(table: "articles", on: Article.Properties.body, with: ["Changed"], where: Article.Properties.id == 1)
        XCTAssertTrue(sqls.all.contains { $0.contains("articles_fts") })
        XCTAssertEqual(try ids(database, "changed"), [1])
    }

    func testRollbackUndoesContentAndIndexTogether() throws {
        struct Boom: Error {}
        let database = try setUpArticles()
        try database.insert(objects: Article(1, "kept", "kept"), intoTable: "articles")
        XCTAssertThrowsError(try database.run(transaction: {
            try database.insert(objects: Article(2, "gone", "gone"), intoTable: "articles")
            try database.delete(fromTable: "articles", where: Article.Properties.id == 1)
            throw Boom()
        }))
        XCTAssertEqual(try ids(database, "kept"), [1])
        XCTAssertEqual(try ids(database, "gone"), [])
        // A failing batch leaves neither content nor index behind.
        XCTAssertThrowsError(try database.insert(objects: [Article(5, "batch", "x"), Article(1, "dup", "x")], intoTable: "articles"))
        XCTAssertEqual(try ids(database, "batch"), [])
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testRandomOperationsMatchBruteForce() throws {
        let database = try setUpArticles()
        var generator = SplitMix(seed: 7)
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
        func text() -> String { (0..<Int.random(in: 1...6, using: &generator)).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ") }
        var model: [Int: (String, String)] = [:]
        for step in 0..<300 {
            let id = Int.random(in: 1...40, using: &generator)
            switch Int.random(in: 0..<6, using: &generator) {
            case 0, 1:
                let batch = (0..<Int.random(in: 1...4, using: &generator)).map { i in Article(100 + step * 5 + i, text(), text()) }
                try database.insert(objects: batch, intoTable: "articles")
                for a in batch { model[a.id!] = (a.title, a.body) }
            case 2:
                let a = Article(id, text(), text())
                try database.insertOrReplace(objects: a, intoTable: "articles")
                model[id] = (a.title, a.body)
            case 3:
                let body = text()
                try database.update(table: "articles", on: Article.Properties.body, with: [body], where: Article.Properties.id == id)
                if let old = model[id] { model[id] = (old.0, body) }
            case 4:
                let word = words.randomElement(using: &generator)!
                try database.delete(fromTable: "articles", where: Article.Properties.title.like("%\(word)%"))
                model = model.filter { !$0.value.0.contains(word) }
            default:
                try? database.run(transaction: {
                    try database.insert(objects: Article(id + 1000, "rolled", "back"), intoTable: "articles")
                    try database.delete(fromTable: "articles", where: Article.Properties.id == id)
                    throw SiftError(code: .abort, message: "rollback on purpose", operation: .transaction)
                })
            }
        }
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
        for word in words {
            let expected = model.filter { ($0.value.0 + " " + $0.value.1).split(separator: " ").contains(Substring(word)) }.keys.sorted()
            XCTAssertEqual(try ids(database, word), expected, word)
        }
        let pair = model.filter { $0.value.1.contains("alpha beta") }.keys.sorted()
        XCTAssertEqual(try database.search(SearchQuery("alpha beta", mode: .phrase, columns: ["body"]), in: "articles_fts", of: Article.self,
                                           options: SearchOptions(limit: 1000)).hits.compactMap(\.object.id).sorted(), pair)
    }

    func testBulkPathIndexesLargeBatches() throws {
        let database = try setUpArticles()
        database.fullTextBulkThreshold = 5
        try database.insert(objects: Article(100, "before", "existing"), intoTable: "articles")
        // Gaps and out-of-order ids make several rowid runs.
        let ids = Array(1...20) + [50, 51, 52, 7000, 30]
        try database.insert(objects: ids.map { Article($0, "bulk \($0)", "loaded together") }, intoTable: "articles")
        XCTAssertEqual(try self.ids(database, "loaded"), ids.sorted())
        XCTAssertEqual(try self.ids(database, "existing"), [100])
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
        // A failing bulk batch leaves nothing behind either.
        XCTAssertThrowsError(try database.insert(objects: (200...210).map { Article($0, "x", "y") } + [Article(1, "dup", "dup")],
                                                 intoTable: "articles"))
        XCTAssertEqual(try self.ids(database, "y"), [])
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    /// A bulk insert merges FTS5's segments with a batch's fan-out (8 of a level at once, not FTS5's 4) and puts the
    /// index's own settings back after its pass; a merge policy the caller set is never lowered or turned on.
    func testBulkInsertsMergeWithABatchFanOutAndRestoreTheSettings() throws {
        let database = try setUpArticles()
        database.fullTextBulkThreshold = 5
        // Leaves of 32 bytes: FTS5 merges in work units of 64 leaves written, which small batches then reach.
        try database.exec(sql: "INSERT INTO articles_fts(articles_fts, rank) VALUES('pgsz', 32)")
        func segments() throws -> Int {
            Int(try database.getRows(sql: "SELECT count(DISTINCT segid) FROM articles_fts_idx")[0][0].int64Value)
        }
        func setting(_ key: String) throws -> Int64? {
            try database.getRows(sql: "SELECT v FROM articles_fts_config WHERE k = ?", values: [key]).first?.first?.int64Value
        }
        var next = 1
        func bulkInsert() throws {
            try database.insert(objects: (next..<next + 30).map { Article($0, "w\($0)", "batch \(next) loaded together") },
                                intoTable: "articles")
            next += 30
        }
        // One segment per batch and none merged up to the seventh (with FTS5's fan-out of 4, a merge starts at the
        // fourth batch: its output is one more segment); the eighth starts one.
        var counts: [Int] = []
        for _ in 0..<8 { try bulkInsert(); counts.append(try segments()) }
        XCTAssertEqual(counts.prefix(7), [1, 2, 3, 4, 5, 6, 7])
        XCTAssertNotEqual(counts[7], 8, "eight segments of a level are merged")
        XCTAssertEqual(try setting("automerge"), 4)
        XCTAssertEqual(try setting("hashsize"), 1_048_576)
        // Merging turned off stays off; a larger fan-out stays.
        try database.setMergePolicy(index: "articles_fts", automerge: 0, crisisMerge: 64)
        let before = try segments()
        for _ in 0..<6 { try bulkInsert() }
        XCTAssertEqual(try segments(), before + 6)
        XCTAssertEqual(try setting("automerge"), 0)
        try database.setMergePolicy(index: "articles_fts", automerge: 16)
        try bulkInsert()
        XCTAssertEqual(try setting("automerge"), 16)
        // A rebuild indexes every row again with a batch's buffer, and leaves the settings as they were.
        try database.rebuild(index: "articles_fts")
        XCTAssertEqual(try setting("automerge"), 16)
        XCTAssertEqual(try setting("hashsize"), 1_048_576)
        XCTAssertEqual(try ids(database, "loaded").count, next - 1)
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testCheckpointsAndReturningWritesOnASyncedDatabase() throws {
        let database = try setUpArticles()
        try database.insert(objects: Article(1, "first", "one"), intoTable: "articles")
        XCTAssertNoThrow(try database.exec(sql: "PRAGMA wal_checkpoint(TRUNCATE)"), "no transaction around pragmas")
        let statement = try database.prepare(sql: "INSERT INTO articles(id, title, body, views) VALUES(?, ?, ?, 0) RETURNING id")
        try statement.bind([2, "returning", "row"])
        XCTAssertTrue(try statement.step())
        XCTAssertEqual(statement.value(atIndex: 0).int64Value, 2)
        statement.finalize()  // left before SQLITE_DONE: the write still commits, with its index entry
        XCTAssertFalse(database.isInTransaction)
        XCTAssertEqual(try ids(database, "returning"), [2])
        try database.exec(sql: "DELETE FROM articles WHERE id = ? RETURNING id", values: [2])
        XCTAssertEqual(try ids(database, "returning"), [])
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testSyncedIndexSurvivesReopen() throws {
        do {
            let database = try setUpArticles()
            try database.insert(objects: Article(1, "first", "one"), intoTable: "articles")
        }
        let reopened = Database(withPath: path())
        XCTAssertEqual(try reopened.syncedIndexes().map(\.index), ["articles_fts"])
        try reopened.insert(objects: Article(2, "second", "two"), intoTable: "articles")
        try reopened.delete(fromTable: "articles", where: Article.Properties.id == 1)
        XCTAssertEqual(try ids(reopened, "second"), [2])
        XCTAssertEqual(try ids(reopened, "first"), [])
        XCTAssertTrue(try reopened.verify(index: "articles_fts").isConsistent)
    }

    func testIndexingExistingContentAndMaintenance() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.insert(objects: (1...50).map { (i: Int) in Article(i, "title \(i)", "body number \(i)") }, intoTable: "articles")
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        XCTAssertEqual(try ids(database, "number").count, 50, "existing rows are indexed when the index is created")
        try database.setMergePolicy(index: "articles_fts", automerge: 8, crisisMerge: 32)
        try database.merge(index: "articles_fts", pages: 100)
        try database.optimize(index: "articles_fts")
        try database.rebuild(index: "articles_fts")
        let verification = try database.verify(index: "articles_fts")
        XCTAssertTrue(verification.isConsistent, verification.description)
        XCTAssertEqual(verification.indexedRows, 50)
        // An index damaged behind Sift's back is reported, not trusted.
        try database.exec(sql: "DELETE FROM articles_fts_docsize WHERE id = 3")
        XCTAssertFalse(try database.verify(index: "articles_fts").isConsistent)
    }

    func testTriggerModeKeepsPlainSQLWritersConsistent() throws {
        let database = try setUpArticles(mode: .trigger)
        let other = try RawConnection(path: database.path)
        try other.exec("INSERT INTO articles(id, title, body, views) VALUES (1, 'outside', 'written by another program', 0)")
        XCTAssertEqual(try ids(database, "outside"), [1])
        try other.exec("UPDATE articles SET body = 'changed elsewhere' WHERE id = 1")
        XCTAssertEqual(try ids(database, "program"), [])
        XCTAssertEqual(try ids(database, "elsewhere"), [1])
        try database.insert(objects: Article(2, "inside", "through sift"), intoTable: "articles")
        XCTAssertEqual(try ids(database, "inside"), [2], "trigger mode: Sift does not index twice")
        try other.exec("DELETE FROM articles WHERE id = 1")
        XCTAssertEqual(try ids(database, "elsewhere"), [])
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testSchemaErrorsAreTyped() throws {
        let database = makeDatabase()
        XCTAssertThrowsError(try database.create(virtualTable: "x_fts", of: ArticleIndex.self, syncedWith: "missing")) {
            XCTAssertEqual(($0 as? SiftError)?.operation, .schema)
        }
        try database.exec(sql: "CREATE TABLE other(id INTEGER PRIMARY KEY, title TEXT)")
        XCTAssertThrowsError(try database.create(virtualTable: "x_fts", of: ArticleIndex.self, syncedWith: "other")) {
            XCTAssertTrue((($0 as? SiftError)?.message ?? "").contains("body"))
        }
        XCTAssertThrowsError(try database.create(virtualTable: "y", of: CRUD.Sample.self)) {
            XCTAssertEqual(($0 as? SiftError)?.code, .misuse)
        }
    }
}

/// A small deterministic generator, so random tests repeat exactly.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One of `words`, Zipf-like: word i with weight 1 / (i + 1).
    mutating func zipf(_ words: [String]) -> String {
        let total = words.indices.reduce(0.0) { $0 + 1 / Double($1 + 1) }
        var u = Double.random(in: 0..<total, using: &self)
        for (i, word) in words.enumerated() {
            u -= 1 / Double(i + 1)
            if u < 0 { return word }
        }
        return words[words.count - 1]
    }
}
