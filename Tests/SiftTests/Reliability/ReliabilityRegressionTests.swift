import Foundation
import XCTest
import Sift

/// One test per defect found by the reliability review (each failed before its fix).
final class ReliabilityRegressionTests: SiftTestCase {
    private func articles(tokenizer: String = "trigram") throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", tokenizer: tokenizer)
        return database
    }

    private func ids(_ database: Database, _ query: SearchQuery, in index: String = "articles_fts") throws -> [Int] {
        let results: SearchResults<Article> = try database.search(query, in: index, options: SearchOptions(limit: 1000, typoTolerance: .off))
        return results.hits.compactMap(\.object.id).sorted()
    }

    /// Defect 1: a quote followed by a combining mark is one Swift `Character`, so quoting by characters left it
    /// undoubled and the expression unterminated.
    func testQuoteBeforeCombiningMarkIsStillAValidQuery() throws {
        let database = try articles()
        try database.insert(objects: [Article(1, "ab\"\u{301}cd here", "x")], intoTable: "articles")
        let text = "ab\"\u{301}cd"
        for query in [SearchQuery(text), SearchQuery(text, mode: .anyTerm), SearchQuery(text, mode: .phrase),
                      SearchQuery(text, mode: .prefix), SearchQuery.near(text), SearchQuery(text, columns: ["title"]),
                      SearchQuery("zzz", excluding: text)] {
            XCTAssertNoThrow(try ids(database, query), "\(query)")
        }
        XCTAssertEqual(try ids(database, SearchQuery(text)), [1])
    }

    /// Defect 2: the same hole let typed text change the query's structure: escape a column filter, cancel an exclusion.
    func testTypedTextCannotEscapeColumnFilterOrExclusion() throws {
        let database = try articles()
        try database.insert(objects: [Article(1, "public", "secret plans"), Article(2, "zzz title", "nothing")],
                            intoTable: "articles")
        let injected = "zzz\"\u{301}) OR (body:secret) OR (\"\u{301}zzz"
        XCTAssertFalse(try ids(database, SearchQuery(injected, columns: ["title"])).contains(1),
                       "text restricted to title matched a row by its body")
        XCTAssertFalse(try ids(database, SearchQuery(injected, mode: .anyTerm, columns: ["title"])).contains(1))
        for mode in [SearchQuery.Mode.allTerms, .anyTerm, .phrase, .prefix] {
            XCTAssertFalse(try ids(database, SearchQuery(injected, mode: mode, excluding: "secret")).contains(1),
                           "a row containing the excluded word was returned (\(mode))")
        }
        // Identifiers are quoted the same way: a table name with a quote and a combining mark is one name.
        let odd = "t\"\u{301}; DROP TABLE articles; --"
        try database.create(table: odd, of: Article.self)
        try database.insert(objects: [Article(7, "a", "b")], intoTable: odd)
        let stored: [Article] = try database.getObjects(fromTable: odd)
        XCTAssertEqual(stored.map(\.id), [7])
        let remaining: [Article] = try database.getObjects(fromTable: "articles")
        XCTAssertEqual(remaining.count, 2)
    }

    /// Found by the query fuzzer: trigram reports offsets inside a character whose case folding changes its
    /// length (Ɐ folds to ɐ), and cutting there put U+FFFD into the query; and `.anyTerm` split a word tokenizer's
    /// CJK tokens into characters that such an index never holds, matching rows without any of the query's tokens.
    func testQueryPiecesFollowTheTokenizer() throws {
        let trigram = try articles()
        XCTAssertEqual(try trigram.expression(for: SearchQuery("searchⱯ"), in: "articles_fts"), "(\"searchⱯ\")")
        let database = makeDatabase("words.db")
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", tokenizer: "unicode61")
        try database.insert(objects: [Article(1, "北京", "x"), Article(2, "北京大学", "y"), Article(3, "𩊵title", "z"),
                                      Article(4, "e", "l")], intoTable: "articles")
        XCTAssertEqual(try database.expression(for: SearchQuery("北京大学", mode: .anyTerm), in: "articles_fts"), "(\"北京大学\")")
        XCTAssertEqual(try ids(database, SearchQuery("北京大学", mode: .anyTerm)), [2])
        XCTAssertEqual(try ids(database, SearchQuery("𩊵title", mode: .anyTerm)), [3])
    }

    /// Defect 3: a bulk insert that fails half way left its collected rowids behind; the next bulk insert then
    /// indexed them a second time and the index reported itself malformed.
    func testFailedBulkInsertLeavesNoBulkState() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: FailingArticle.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        database.fullTextBulkThreshold = 4
        let failing = (1...20).map { FailingArticle($0, "title \($0)", "body \($0)", fails: $0 == 16) }
        XCTAssertThrowsError(try database.insert(objects: failing, intoTable: "articles"))
        let none: [FailingArticle] = try database.getObjects(fromTable: "articles")
        XCTAssertEqual(none.count, 0)
        // Rows indexed one by one, then a bulk insert: the failed insert's rowids must not be indexed again with it.
        for i in 1...3 { try database.insert(objects: FailingArticle(i, "again \(i)", "body", fails: false), intoTable: "articles") }
        try database.insert(objects: (4...10).map { FailingArticle($0, "again \($0)", "body", fails: false) }, intoTable: "articles")
        try database.insert(objects: (11...30).map { FailingArticle($0, "bulk \($0)", "body", fails: false) }, intoTable: "articles")
        try database.insert(objects: FailingArticle(31, "single", "row", fails: false), intoTable: "articles")
        let verification = try database.verify(index: "articles_fts")
        XCTAssertTrue(verification.isConsistent, verification.description)
        XCTAssertEqual(verification.indexedRows, 31)
        let found: SearchResults<FailingArticle> = try database.search(SearchQuery("again"), in: "articles_fts",
                                                                      options: SearchOptions(limit: 100))
        XCTAssertEqual(found.hits.map(\.object.id).sorted(), Array(1...10))
    }

    /// Defect 4: only the first synced index of a content table was kept in sync.
    func testTwoSyncedIndexesOnOneContentTable() throws {
        let database = makeDatabase()
        try database.create(table: "docs", of: Article.self)
        try database.create(virtualTable: "docs_words", of: ArticleIndex.self, syncedWith: "docs", tokenizer: "unicode61")
        try database.create(virtualTable: "docs_trigram", of: ArticleIndex.self, syncedWith: "docs", tokenizer: "trigram")
        database.fullTextBulkThreshold = 20
        try database.insert(objects: (1...25).map { (i: Int) in Article(i, "title\(i)x", "body\(i)x") }, intoTable: "docs")
        for i in 26...50 { try database.insert(objects: Article(i, "title\(i)x", "body\(i)x"), intoTable: "docs") }
        try database.update(table: "docs", on: Article.Properties.title, with: ["changedq"], where: Article.Properties.id == 3)
        try database.delete(fromTable: "docs", where: Article.Properties.id == 4)
        for index in ["docs_words", "docs_trigram"] {
            let verification = try database.verify(index: index)
            XCTAssertTrue(verification.isConsistent, "\(index): \(verification)")
            XCTAssertEqual(verification.indexedRows, 49, index)
            XCTAssertEqual(try ids(database, SearchQuery("changedq"), in: index), [3], index)
            XCTAssertEqual(try ids(database, SearchQuery("title4x"), in: index), [], index)
            XCTAssertEqual(try ids(database, SearchQuery("body50x"), in: index), [50], index)
            XCTAssertEqual(try ids(database, SearchQuery("body17x"), in: index), [17], index)
        }
    }

    /// Defect 5: a write whose SQL began with a comment ran outside the sync transaction.
    func testWriteBehindLeadingCommentIsOneTransactionWithItsIndexWrite() throws {
        let database = try articles(tokenizer: "unicode61")
        let sqls = Collected<String>()
        database.trace(ofSQL: { sqls.append($0) })
        try database.exec(sql: "/* c */ INSERT INTO articles(id, title, body, views) VALUES(1, 'commented', 'x', 0)")
        try database.exec(sql: "-- line\n WITH v(i) AS (SELECT 2) INSERT INTO articles(id, title, body, views) SELECT i, 'with', 'y', 0 FROM v")
        let statements = sqls.all
        XCTAssertEqual(statements.filter { $0 == "BEGIN IMMEDIATE" }.count, 2, "\(statements)")
        XCTAssertEqual(statements.filter { $0 == "COMMIT" }.count, 2, "\(statements)")
        XCTAssertEqual(try ids(database, SearchQuery("commented")), [1])
        XCTAssertEqual(try ids(database, SearchQuery("with")), [2])

        // When the index write fails, the content row must not stay behind without it.
        try database.exec(sql: "CREATE TABLE other(id INTEGER PRIMARY KEY, title TEXT, body TEXT)")
        try database.exec(sql: "INSERT INTO sift_fts_sync VALUES('other_fts', 'other', 'id', 'title\u{1F}body', 'explicit')")
        // An "index" whose writes fail (a plain table with a CHECK), standing in for a tokenizer missing on this
        // connection; creating it changes the schema, so the writer reloads its synced indexes.
        try database.exec(sql: "CREATE TABLE other_fts(title TEXT, body TEXT CHECK(body != 'b'))")
        XCTAssertThrowsError(try database.exec(sql: "/* c */ INSERT INTO other(id, title, body) VALUES(1, 'a', 'b')"))
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM other").first?.first?.int64Value, 0,
                       "the content row was committed without its index row")
    }

    /// Defect 6: `close()` waited for the transaction's thread while that thread waited for the close: both hung.
    func testCloseWhileAnotherThreadIsInATransactionWaitsForIt() throws {
        let database = try articles(tokenizer: "unicode61")
        try database.insert(objects: Article(1, "a", "b"), intoTable: "articles")
        for variant in 0..<4 {
            let inside = DispatchSemaphore(value: 0)
            let errors = Collected<String>()
            let worker = spawn {
                do {
                    switch variant {
                    case 0:
                        try database.run(transaction: {
                            inside.signal()
                            Thread.sleep(forTimeInterval: 0.2)
                            try database.insert(objects: Article(100 + variant, "t", "b"), intoTable: "articles")
                        })
                    case 1:
                        try database.run(transaction: {
                            inside.signal()
                            Thread.sleep(forTimeInterval: 0.2)
                            let _: [Article] = try database.getObjects(fromTable: "articles")
                        })
                    case 2:
                        // A cursor part way through holds a reader; the same thread then reads again.
                        let select = try database.prepareSelect(of: Article.self, fromTable: "articles")
                        let first: Article? = try select.nextObject()
                        inside.signal()
                        Thread.sleep(forTimeInterval: 0.2)
                        let _: [Article] = try database.getObjects(fromTable: "articles")
                        XCTAssertNotNil(first)
                        while let _: Article = try select.nextObject() {}
                    default:
                        try database.begin()
                        inside.signal()
                        Thread.sleep(forTimeInterval: 0.2)
                        try database.insert(objects: Article(100 + variant, "t", "b"), intoTable: "articles")
                        try database.commit()
                    }
                } catch {
                    errors.append("\(error)")
                }
            }
            XCTAssertEqual(inside.wait(timeout: .now() + 10), .success)
            let closer = spawn { database.close() }
            // On a deadlock both threads stay blocked for good: report it and stop rather than hang the suite.
            guard closer.wait(timeout: .now() + 10) == .success, worker.wait(timeout: .now() + 10) == .success else {
                return XCTFail("close() and the transaction deadlocked (variant \(variant))")
            }
            XCTAssertEqual(errors.all, [], "variant \(variant)")
        }
        let final: [Article] = try database.getObjects(fromTable: "articles")
        XCTAssertEqual(final.compactMap(\.id).sorted(), [1, 100, 103])
    }

    /// Defect 8: each `&&` nested the whole left side in another pair of parentheses, overflowing SQLite's parser at ~100.
    func testLongConditionChainsRenderFlat() throws {
        let database = try articles(tokenizer: "unicode61")
        try database.insert(objects: Article(1, "a", "b", views: 3), intoTable: "articles")
        var all: Condition = Article.Properties.views > 0
        var any: Condition = Article.Properties.views == -1
        for i in 0..<500 {
            all = all && Article.Properties.views != -i - 1
            any = any || Article.Properties.views == 1000 + i
        }
        any = any || Article.Properties.views == 3
        XCTAssertEqual(try database.getObjects(fromTable: "articles", where: all).map { (a: Article) in a.id }, [1])
        XCTAssertEqual(try database.getObjects(fromTable: "articles", where: any).map { (a: Article) in a.id }, [1])
        let mixed = (Article.Properties.views > 0 && Article.Properties.views < 5) || Article.Properties.id == 9
        XCTAssertEqual(mixed.description, "((views > 0) AND (views < 5)) OR (id = 9)")
        let grouped = Article.Properties.views > 0 && (Article.Properties.views < 5 || Article.Properties.id == 9)
        XCTAssertEqual(grouped.description, "(views > 0) AND ((views < 5) OR (id = 9))")
        let chain = Article.Properties.views > 0 && Article.Properties.views != 1 && Article.Properties.id != 2
            && (Article.Properties.id == 3 || Article.Properties.id == 4 || Article.Properties.id == 5)
        XCTAssertEqual(chain.description, "(views > 0) AND (views != 1) AND (id != 2) AND ((id = 3) OR (id = 4) OR (id = 5))")
    }
}

/// An article whose encoding throws when asked to, for failures in the middle of a batch.
struct FailingArticle: TableCodable {
    var id: Int
    var title: String
    var body: String
    var fails: Bool
    enum CodingKeys: String, CodingTableKey {
        typealias Root = FailingArticle
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    struct Refused: Error {}
    init(_ id: Int, _ title: String, _ body: String, fails: Bool) {
        self.id = id
        self.title = title
        self.body = body
        self.fails = fails
    }
    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decode(String.self, forKey: .body)
        fails = false
    }
    func encode(to encoder: Encoder) throws {
        if fails { throw Refused() }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
    }
}

/// Found by the sync property test: SQLite fires no delete trigger for the rows a REPLACE removes unless recursive
/// triggers are on, so a trigger-synced index kept the replaced rows' words and became malformed.
final class TriggerModeReplaceTests: SiftTestCase {
    func testReplaceKeepsATriggerSyncedIndexConsistent() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.exec(sql: "CREATE UNIQUE INDEX articles_title ON articles(title)")
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", mode: .trigger)
        try database.insert(objects: Article(1, "old", "x"), intoTable: "articles")
        try database.insertOrReplace(objects: Article(1, "new", "y"), intoTable: "articles")
        try database.insert(objects: Article(2, "other", "unique words"), intoTable: "articles")
        try database.exec(sql: "INSERT OR REPLACE INTO articles(id, title, body, views) VALUES(3, 'other', 'taken title', 0)")
        func ids(_ text: String) throws -> [Int] {
            let results: SearchResults<Article> = try database.search(text, in: "articles_fts")
            return results.hits.compactMap(\.object.id).sorted()
        }
        XCTAssertEqual(try ids("old"), [])
        XCTAssertEqual(try ids("new"), [1])
        XCTAssertEqual(try ids("unique"), [], "row 2 was replaced through the UNIQUE title")
        XCTAssertEqual(try ids("taken"), [3])
        let verification = try database.verify(index: "articles_fts")
        XCTAssertTrue(verification.isConsistent, verification.description)
    }
}

/// Found by the database-free unit tests of the query builder and the table parser.
final class QueryBuilderRegressionTests: SiftTestCase {
    /// Trigrams run across spaces, so "quick fox" became the one substring "quick fox" and missed
    /// "the quick brown fox", which FTS5's own `MATCH 'quick fox'` finds.
    func testTrigramQueriesKeepTheirWordsApart() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", tokenizer: "trigram")
        try database.insert(objects: [Article(1, "the quick brown fox", "x"), Article(2, "quick", "y"), Article(3, "ab cd", "z")],
                            intoTable: "articles")
        func ids(_ query: SearchQuery) throws -> [Int] {
            let results: SearchResults<Article> = try database.search(query, in: "articles_fts")
            return results.hits.compactMap(\.object.id).sorted()
        }
        XCTAssertEqual(try database.expression(for: SearchQuery("quick fox"), in: "articles_fts"), "(\"quick\" \"fox\")")
        XCTAssertEqual(try ids(SearchQuery("quick fox")), [1])
        XCTAssertEqual(try ids(SearchQuery("quick fox", mode: .anyTerm)), [1, 2])
        XCTAssertEqual(try ids(SearchQuery("quick fox", mode: .phrase)), [], "the phrase stays one substring")
        XCTAssertEqual(try ids(SearchQuery("ab cd")), [3], "words too short for a trigram of their own stay joined")
    }

    /// The module arguments were read from the first "(" of the statement, which may be inside a quoted table name.
    func testTableNameWithAParenthesis() throws {
        let database = makeDatabase()
        try database.create(table: "notes (v2)", of: Article.self)
        try database.create(virtualTable: "notes (v2) fts", of: ArticleIndex.self, syncedWith: "notes (v2)")
        try database.insert(objects: [Article(1, "hello", "world")], intoTable: "notes (v2)")
        let results: SearchResults<Article> = try database.search(SearchQuery("hello", columns: ["title"]), in: "notes (v2) fts",
                                                                 options: SearchOptions(highlight: ["title"]))
        XCTAssertEqual(results.hits.map(\.highlights), [["title": "[hello]"]])
    }

    /// `columns` and `excluding` were silently ignored on an advanced query.
    func testAdvancedQueriesTakeColumnsAndExclusions() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: [Article(1, "sqlite", "lucene"), Article(2, "lucene", "sqlite"), Article(3, "sqlite", "x")],
                            intoTable: "articles")
        var query = SearchQuery.advanced("sqlite OR lucene")
        query.columns = ["title"]
        query.excluding = "x"
        XCTAssertEqual(try database.expression(for: query, in: "articles_fts"), "({\"title\"} : (sqlite OR lucene)) NOT (\"x\")")
        let results: SearchResults<Article> = try database.search(query, in: "articles_fts")
        XCTAssertEqual(results.hits.compactMap(\.object.id).sorted(), [1, 2])
    }
}
