import CSQLite
import Foundation
import XCTest
@testable import Sift

/// The term dictionary stored beside a synced index (`TermDictionaryStore`): what a process with nothing kept in
/// memory loads instead of FTS5's vocabulary, and what it does with a stored dictionary that is stale, damaged or
/// crafted. Its exactness after every kind of write is `TermDictionaryFollowerTests`'.
final class TermDictionaryStoreTests: SiftTestCase {
    private func settings(_ database: Database) -> FullTextSettings {
        database.pool.attachment(FullTextSettings.init)
    }

    private func corpus() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: [Article(1, "turbulent stream", "aerosol cascade"), Article(2, "airfoil", "turbine module"),
                                      Article(3, "streamline", "nodules of the turbine")], intoTable: "articles")
        return database
    }

    /// Forgets the dictionaries kept in memory, as a new process starts.
    private func forget(_ database: Database) {
        settings(database).termDictionaries.withLock { $0.removeAll() }
    }

    /// A typo-tolerant search's hits, and whether it read the vocabulary and loaded the stored dictionary.
    private func search(_ text: String, _ database: Database) throws -> (rowids: [Int64], read: Bool, loaded: Bool) {
        let (reads, loads) = (settings(database).termDictionaryReads.withLock { $0 }, settings(database).termDictionaryLoads.withLock { $0 })
        let hits = try database.search(text, in: "articles_fts", of: Article.self).hits.map(\.rowid).sorted()
        return (hits, settings(database).termDictionaryReads.withLock { $0 } != reads,
                settings(database).termDictionaryLoads.withLock { $0 } != loads)
    }

    private func stored(_ database: Database) throws -> TermDictionary? {
        try database.read { try TermDictionaryStore.load("articles_fts", on: $0) }
    }

    func testANewProcessLoadsTheStoredDictionaryNotTheVocabulary() throws {
        let database = try corpus()
        try database.update(table: "articles", on: Article.Properties.body, with: Article(nil, "", "hypersonic flow"),
                            where: Article.Properties.id == 2)
        try database.delete(fromTable: "articles", where: Article.Properties.id == 3)
        forget(database)
        let first = try search("hypersonc", database)
        XCTAssertEqual(first.rowids, [2])
        XCTAssertTrue(first.loaded)
        XCTAssertFalse(first.read, "the first typo-tolerant search read FTS5's vocabulary")
        XCTAssertEqual(try stored(database)?.rows(of: Array("turbulent".unicodeScalars)), 1)
        XCTAssertEqual(try stored(database)?.rows(of: Array("turbine".unicodeScalars)), 0)
        XCTAssertEqual(try stored(database)?.rows(of: Array("nodules".unicodeScalars)), 0)
    }

    final class Post: TableCodable {
        var id: Int? = nil
        var title: String = ""
        var isAutoIncrement = false
        var lastInsertedRowID: Int64 = 0
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Post
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case id, title
            static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
        }
        init(_ title: String) { self.title = title }
    }

    final class PostIndex: TableCodable {
        var title: String = ""
        enum CodingKeys: String, CodingTableKey {
            typealias Root = PostIndex
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case title
            static var virtualTableBinding: VirtualTableBinding? { VirtualTableBinding(with: .fts5) }
        }
    }

    /// The log row a write adds has a rowid of its own: the caller's last inserted rowid is the row's.
    func testTheLogKeepsTheLastInsertedRowid() throws {
        let database = makeDatabase()
        try database.create(table: "posts", of: Post.self)
        try database.create(virtualTable: "posts_fts", of: PostIndex.self, syncedWith: "posts")
        for (expected, title) in ["turbulent stream", "airfoil", "hypersonic flow"].enumerated() {
            let post = Post(title)
            post.isAutoIncrement = true
            try database.insert(objects: post, intoTable: "posts")
            XCTAssertEqual(post.lastInsertedRowID, Int64(expected + 1))
        }
        XCTAssertEqual(try database.read { try $0.count("SELECT count(*) FROM posts_fts_sift_dictionary WHERE id >= 0") }, 3)
    }

    /// A batch of inserts below the bulk threshold is indexed row by row and logged once; a batch that changes many
    /// terms (at least 1,024, or an eighth of the list's) is folded into the list at once.
    func testABatchLogsOneRowAndALargeOneFolds() throws {
        let database = try corpus()
        database.fullTextBulkThreshold = 10_000
        let logRows = { try database.read { try $0.count("SELECT count(*) FROM articles_fts_sift_dictionary WHERE id >= 0") } }
        XCTAssertEqual(try logRows(), 1, "the corpus's three rows")
        try database.insert(objects: (10..<20).map { Article($0, "hypersonic \($0)", "flow") }, intoTable: "articles")
        XCTAssertEqual(try logRows(), 2)
        let words = (0..<1_100).map { "term\($0)" }
        try database.insert(objects: stride(from: 0, to: 1_100, by: 10).map { Article(100 + $0, words[$0..<($0 + 10)].joined(separator: " "), "") },
                            intoTable: "articles")
        XCTAssertEqual(try logRows(), 0)
        XCTAssertEqual(try stored(database)?.rows(of: Array("term1099".unicodeScalars)), 1)
        XCTAssertEqual(try stored(database)?.rows(of: Array("hypersonic".unicodeScalars)), 10)
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    /// A statement whose log row cannot be written fails and is rolled back: what the writer had summed for the
    /// next fold goes with it, so that the fold holds what the log holds and no more.
    func testAFailedLogRowLeavesNothingForTheNextFold() throws {
        let database = try corpus()
        settings(database).dictionaryFoldRows.withLock { $0 = 2 }
        // A trigger that refuses the log's rows while a flag is set (setting it changes no schema).
        try database.exec(sql: "CREATE TABLE flags(refuse INTEGER)")
        try database.exec(sql: "INSERT INTO flags VALUES(0)")
        try database.exec(sql: "CREATE TRIGGER refuse BEFORE INSERT ON articles_fts_sift_dictionary WHEN (SELECT refuse FROM flags) "
                          + "BEGIN SELECT RAISE(ABORT, 'refused'); END")
        try database.optimize(index: "articles_fts")
        try database.exec(sql: "UPDATE flags SET refuse = 1")
        XCTAssertThrowsError(try database.insert(objects: [Article(10, "phantom", "ghost")], intoTable: "articles"))
        try database.exec(sql: "UPDATE flags SET refuse = 0")
        try database.insert(objects: [Article(11, "hypersonic", "flow")], intoTable: "articles")
        try database.insert(objects: [Article(12, "supersonic", "flow")], intoTable: "articles")
        XCTAssertEqual(try database.read { try $0.count("SELECT count(*) FROM articles_fts_sift_dictionary WHERE id >= 0") }, 0,
                       "two log rows fold")
        XCTAssertEqual(try stored(database)?.rows(of: Array("phantom".unicodeScalars)), 0)
        XCTAssertEqual(try stored(database)?.rows(of: Array("flow".unicodeScalars)), 2)
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testWritesBesideTheSyncLayerLeaveItStaleUntilOptimize() throws {
        let database = try corpus()
        XCTAssertNotNil(try stored(database))
        try database.exec(sql: "INSERT INTO articles_fts(articles_fts, rowid, title, body) VALUES('delete', 1, 'turbulent stream', 'aerosol cascade')")
        XCTAssertNil(try stored(database))
        forget(database)
        let stale = try search("turbin", database)
        XCTAssertTrue(stale.read)
        XCTAssertFalse(stale.loaded)
        try database.rebuild(index: "articles_fts")
        try database.exec(sql: "INSERT INTO articles_fts(articles_fts, rank) VALUES('merge', 4)")  // leaves the rows
        XCTAssertNotNil(try stored(database))
        try database.exec(sql: "INSERT INTO articles_fts(articles_fts) VALUES('delete-all')")
        XCTAssertNil(try stored(database))
        try database.optimize(index: "articles_fts")
        XCTAssertEqual(try stored(database)?.count, 0)
    }

    func testADamagedOrCraftedDictionaryIsReadFromTheVocabulary() throws {
        let database = try corpus()
        let table = "articles_fts_sift_dictionary"
        let damages: [(String, String)] = [
            // A byte of the list changed, its checksum not.
            ("a changed piece", "UPDATE \(table) SET data = x'00' || substr(data, 2) WHERE id = -2"),
            // A header whose numbers would size memory, with its checksum made right.
            ("a crafted header", "UPDATE \(table) SET data = x'01ffffffff0f0101', checksum = sift_bounds_check(-1, x'01ffffffff0f0101') WHERE id = -1"),
            // A log row taking a term below no rows, checksum right: one term of 7 bytes, -5 rows (zigzag 9).
            ("a log below zero", "INSERT INTO \(table)(data, checksum) VALUES(x'0107' || CAST('airfoil' AS BLOB) || x'09', "
                + "sift_bounds_check(0, x'0107' || CAST('airfoil' AS BLOB) || x'09'))"),
            ("a missing piece", "DELETE FROM \(table) WHERE id = -2"),
            // A log row whose change is a zigzag of all ones (Int64.min once decoded), checksum right.
            ("a change of Int64.min", "INSERT INTO \(table)(data, checksum) VALUES(x'010161ffffffffffffffffff', "
                + "sift_bounds_check(0, x'010161ffffffffffffffffff'))"),
            // One term held by Int64.max rows, with a log row adding one more: checksums right.
            ("a count that would overflow", "DELETE FROM \(table); "
                + "INSERT INTO \(table) VALUES(-1, x'01010c018800', sift_bounds_check(-1, x'01010c018800')); "
                + "INSERT INTO \(table) VALUES(-2, x'000161bfffffffffffffffff', sift_bounds_check(-2, x'000161bfffffffffffffffff')); "
                + "INSERT INTO \(table)(data, checksum) VALUES(x'01016102', sift_bounds_check(0, x'01016102'))"),
            // A log row cut short (five terms announced, none there), checksum right.
            ("a log row cut short", "INSERT INTO \(table)(data, checksum) VALUES(x'05', sift_bounds_check(0, x'05'))"),
            ("a text value", "UPDATE \(table) SET data = 'text' WHERE id = -1"),
        ]
        for (label, sql) in damages {
            try database.optimize(index: "articles_fts")
            XCTAssertNotNil(try stored(database), label)
            for statement in sql.components(separatedBy: "; ") { try database.exec(sql: statement) }
            XCTAssertNil(try stored(database), label)
            XCTAssertFalse(try database.verify(index: "articles_fts").isConsistent, label)
            forget(database)
            let found = try search("turbin", database)
            XCTAssertEqual(found.rowids, [2, 3], label)
            XCTAssertTrue(found.read, label)
            // Writes go on; optimize writes it anew.
            try database.insert(objects: [Article(9, "hypersonic", "flow")], intoTable: "articles")
            try database.delete(fromTable: "articles", where: Article.Properties.id == 9)
            try database.optimize(index: "articles_fts")
            XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent, label)
        }
    }

    func testAStoredDictionaryThatDisagreesIsReported() throws {
        let database = try corpus()
        // A log row whose checksum is right but whose change never happened: one row more of "airfoil".
        try database.exec(sql: "INSERT INTO articles_fts_sift_dictionary(data, checksum) VALUES(x'0107' || CAST('airfoil' AS BLOB) || x'02', "
                          + "sift_bounds_check(0, x'0107' || CAST('airfoil' AS BLOB) || x'02'))")
        let report = try database.verify(index: "articles_fts")
        XCTAssertFalse(report.isConsistent)
        XCTAssertTrue(report.description.contains("stored term dictionary"), report.description)
    }

    /// A program that writes the FTS5 table without Sift goes unseen by the stored dictionary, as by the score
    /// bounds: `verify(index:)` reports the difference and `optimize(index:)` stores the dictionary anew.
    func testAWriteWithoutSiftIsReportedAndOptimizeMendsIt() throws {
        let database = try corpus()
        var raw: OpaquePointer?
        XCTAssertEqual(sqlite3_open(database.path, &raw), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(raw, "INSERT INTO articles(id, title, body, views) VALUES(50, 'hypersonic', 'flow', 0); "
                                    + "INSERT INTO articles_fts(rowid, title, body) VALUES(50, 'hypersonic', 'flow')", nil, nil, nil), SQLITE_OK)
        sqlite3_close(raw)
        let report = try database.verify(index: "articles_fts")
        XCTAssertTrue(report.description.contains("stored term dictionary"), report.description)
        try database.optimize(index: "articles_fts")
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
        XCTAssertEqual(try stored(database)?.rows(of: Array("hypersonic".unicodeScalars)), 1)
    }

    func testAnIndexSyncedByTriggersHasNone() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", mode: .trigger)
        try database.insert(objects: [Article(1, "turbulent", "stream")], intoTable: "articles")
        XCTAssertNil(try stored(database))
        XCTAssertEqual(try database.read { try $0.count("SELECT count(*) FROM sqlite_master WHERE name = 'articles_fts_sift_dictionary'") }, 0)
    }

    /// FTS5 keeps "café" written with U+00E9 and with "e" and U+0301 as two terms (unicode61 keeping diacritics),
    /// which Swift's `String` compares equal: an update from one to the other changes both counts, in the stored
    /// dictionary and in the one kept in memory.
    func testTermsSwiftComparesEqualStayTwoTerms() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles",
                            tokenizer: "unicode61 remove_diacritics 0")
        try database.insert(objects: [Article(1, "caf\u{E9}", "x"), Article(2, "caf\u{E9}", "y")], intoTable: "articles")
        _ = try search("cafes", database)  // a dictionary kept in memory, followed through the update
        try database.update(table: "articles", on: Article.Properties.title, with: Article(nil, "cafe\u{301}", ""),
                            where: Article.Properties.id == 1)
        let composed = Array("caf\u{E9}".unicodeScalars), decomposed = Array("cafe\u{301}".unicodeScalars)
        let kept = try database.read { try TermDictionary.of("articles_fts", in: settings(database), on: $0) }
        for dictionary in [try XCTUnwrap(try stored(database)), kept] {
            XCTAssertEqual(dictionary.rows(of: composed), 1)
            XCTAssertEqual(dictionary.rows(of: decomposed), 1)
        }
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testFormatsRoundTrip() {
        var bytes: [UInt8] = []
        let values: [UInt64] = [0, 1, 127, 128, 16_383, 16_384, 1 << 40, (1 << 56) - 1, 1 << 56, UInt64.max]
        for value in values { TermDictionaryStore.appendVarint(value, to: &bytes) }
        var at = 0
        for value in values {
            let decoded = PageFile.varint(bytes, at: at, end: bytes.count)
            XCTAssertEqual(decoded.map { UInt64(bitPattern: $0.value) }, value)
            at += decoded?.byteCount ?? 1
        }
        XCTAssertEqual(at, bytes.count)
    }
}
