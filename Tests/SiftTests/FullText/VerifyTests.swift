import CSQLite
import Foundation
import XCTest
@testable import Sift

/// `verify(index:)` tells damage from "cannot check here": only damage becomes a problem, and a connection
/// that may not write (FTS5's integrity check is issued as an INSERT) still gets a full check.
final class VerifyTests: SiftTestCase {
    /// A tokenizer only the configured connections know: `unicode61` under another name.
    private static let aliasConfig: Config = { handle in
        guard let api = sift_fts5_api(handle.sqliteConnection), let find = api.pointee.xFindTokenizer,
              let create = api.pointee.xCreateTokenizer else { throw SiftError(code: .error, message: "no fts5_api", operation: .config) }
        var user: UnsafeMutableRawPointer?
        var methods = fts5_tokenizer()
        guard find(api, "unicode61", &user, &methods) == SQLITE_OK, create(api, "test_alias", user, &methods, nil) == SQLITE_OK else {
            throw SiftError(code: .error, message: "cannot register test_alias", operation: .config)
        }
    }

    private func makeIndexedDatabase() throws -> Database {
        let database = makeDatabase()
        database.setConfig(named: "test.alias", with: Self.aliasConfig, orderBy: 100)
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", tokenizer: "test_alias")
        try database.insert(objects: (1...30).map { (id: Int) in Article(id, "title \(id)", "body number \(id)") }, intoTable: "articles")
        return database
    }

    private func setQueryOnly(_ database: Database, _ on: Bool) {
        database.setConfig(named: "test.queryOnly", with: { try $0.exec(sql: "PRAGMA query_only=\(on ? 1 : 0)") }, orderBy: 200)
    }

    /// With writes refused (here by `PRAGMA query_only`, which refuses them with SQLITE_READONLY as a
    /// read-only file does), the check used to report "integrity-check: attempt to write a readonly database"
    /// as damage. It must pass on a healthy index, and still find damage that only FTS5's check sees.
    func testAConnectionThatCannotWriteStillGetsTheFullCheck() throws {
        let database = try makeIndexedDatabase()
        setQueryOnly(database, true)
        XCTAssertThrowsError(try database.exec(sql: "DELETE FROM articles WHERE id = 1"), "writes are refused") {
            XCTAssertEqual(($0 as? SiftError)?.code, .readonly)
        }
        let healthy = try database.verify(index: "articles_fts")
        XCTAssertTrue(healthy.isConsistent, healthy.description)
        XCTAssertEqual(healthy.indexedRows, 30)
        XCTAssertEqual(healthy.contentRows, 30)

        // Change a content row behind the index's back: the row counts still agree, FTS5's check does not.
        let raw = try RawConnection(path: database.path)
        try raw.exec("UPDATE articles SET body = 'something else entirely' WHERE id = 7")
        let damaged = try database.verify(index: "articles_fts")
        XCTAssertFalse(damaged.isConsistent)
        XCTAssertEqual(damaged.problems.count, 1, damaged.description)
        XCTAssertTrue(damaged.problems.first?.hasPrefix("integrity-check: ") == true, damaged.description)
        XCTAssertFalse(damaged.description.contains("readonly"), damaged.description)

        setQueryOnly(database, false)
        XCTAssertEqual(try database.verify(index: "articles_fts").problems, damaged.problems, "the same verdict as in place")
    }

    /// A connection lacking the index's tokenizer cannot check it: that is an error, not damage.
    func testAnErrorThatIsNotDamageIsThrown() throws {
        _ = try makeIndexedDatabase()
        // Another path to the file gets its own pool, without the tokenizer config.
        let link = path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path())
        let other = Database(withPath: link)
        XCTAssertThrowsError(try other.verify(index: "articles_fts")) { error in
            guard let error = error as? SiftError else { return XCTFail("\(error)") }
            XCTAssertNotEqual(error.code, .corrupt)
            XCTAssertTrue(error.message.contains("test_alias"), error.message)
        }
    }
}
