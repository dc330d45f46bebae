import CSQLite
import Foundation
import XCTest
@testable import Sift

/// Every error reaches the error tracer once, where it leaves Sift, with the database's path and tag.
final class ErrorReportingTests: SiftTestCase {
    final class Strict: TableCodable {
        var id: Int = 0
        var count: Int = 0
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Strict
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case id, count
        }
    }

    func testDecodeTokenizerQueryAndChainCallErrorsAreReportedOnceWithPathAndTag() throws {
        let database = makeDatabase()
        database.tag = 7
        let reported = Collected<SiftError>()
        database.trace(ofError: { reported.append($0) })
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: Article(1, "title", "body"), intoTable: "articles")
        try database.exec(sql: "CREATE TABLE strict(id INTEGER, count TEXT)")
        try database.exec(sql: "INSERT INTO strict VALUES(1, NULL)")  // a required property without a value

        func check(_ label: String, _ operation: SiftError.Operation, _ body: () throws -> Void) {
            let before = reported.all.count
            XCTAssertThrowsError(try body(), label) { error in
                guard let error = error as? SiftError else { return XCTFail("\(label): \(error) is not a SiftError") }
                XCTAssertEqual(error.operation, operation, label)
                XCTAssertEqual(error.path, database.path, label)
                XCTAssertEqual(error.tag, 7, label)
            }
            let new = reported.all.dropFirst(before)
            XCTAssertEqual(new.count, 1, "\(label): reported \(new.count) times")
            XCTAssertEqual(new.first?.path, database.path, label)
            XCTAssertEqual(new.first?.tag, 7, label)
        }
        check("decode", .decode) { let _: [Strict] = try database.getObjects(fromTable: "strict") }
        check("decode in a chain call", .decode) {
            let select = try database.prepareSelect(of: Strict.self, fromTable: "strict")
            _ = try select.nextObject(of: Strict.self)
        }
        check("chain call misuse", .decode) {
            let select = try database.prepareSelect(of: Article.self, fromTable: "articles")
            _ = try select.nextObject(of: Article.self)
            _ = try select.nextObject(of: Strict.self)
        }
        check("tokenizer", .tokenize) { _ = try database.tokenize("x", with: ["no_such_tokenizer"]) }
        check("advanced query", .query) {
            let _: SearchResults<Article> = try database.search(SearchQuery.advanced("title : ("), in: "articles_fts")
        }
        check("unknown column", .query) {
            let _: SearchResults<Article> = try database.search(SearchQuery("x", columns: ["nope"]), in: "articles_fts")
        }
        check("step", .step) { try database.exec(sql: "INSERT INTO articles(id, title, body, views) VALUES(1, 'dup', 'x', 0)") }
    }

    /// A write with RETURNING left before its end commits when it is finalized, which cannot throw: a failed commit
    /// there is rolled back and goes to the error tracer rather than nowhere.
    func testFailedCommitOfAnEarlyFinalizedReturningWriteReachesTheTracer() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        let reported = Collected<SiftError>()
        database.trace(ofError: { reported.append($0) })
        let statement = try database.prepare(sql: "INSERT INTO articles(id, title, body, views) VALUES(1, 'a', 'b', 0), (2, 'c', 'd', 0) RETURNING id")
        XCTAssertTrue(try statement.step())
        let connection = try XCTUnwrap(database.pool.ownedWriter()?.raw, "the write holds the writer")
        sqlite3_commit_hook(connection, { _ in 1 }, nil)  // every commit fails
        statement.finalize()
        sqlite3_commit_hook(connection, nil, nil)
        XCTAssertEqual(reported.all.count, 1, "\(reported.all)")
        XCTAssertEqual(reported.all.first?.code, .constraint)
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM articles").first?.first?.int64Value, 0)
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    /// A failing migration step: the caller gets the step's error, the tracer sees one report.
    func testAFailedMigrationStepIsReportedOnce() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        let reported = Collected<SiftError>()
        database.trace(ofError: { reported.append($0) })
        XCTAssertThrowsError(try database.migrate(table: "articles", of: Article.self, toVersion: 1) { migrator in
            try migrator.exec(sql: "INSERT INTO no_such_table VALUES(1)")
        }) { error in XCTAssertEqual((error as? SiftError)?.migrationVersion, 1) }
        XCTAssertEqual(reported.all.count, 1, "\(reported.all)")
        XCTAssertEqual(reported.all.first?.operation, .migration)
        XCTAssertThrowsError(try database.migrate(table: "articles", of: Article.self, toVersion: 1) { _ in
            let _: [Article] = try database.getObjects(fromTable: "no_such_table")
        })
        XCTAssertEqual(reported.all.count, 2, "one more report for the second failure, not two: \(reported.all)")
    }
}
