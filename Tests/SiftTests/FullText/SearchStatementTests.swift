import XCTest
@testable import Sift

/// The search SQL, rendered without a database.
final class SearchStatementTests: XCTestCase {
    func testPlainIndex() {
        let statement = SearchStatement(index: "notes", columns: ["text", "tag"], expression: "(\"coffee\")")
        XCTAssertEqual(statement.description, "SELECT notes.text, notes.tag, notes.rowid, notes.rank FROM notes "
                       + "WHERE notes MATCH '(\"coffee\")' ORDER BY notes.rank LIMIT 20 OFFSET 0")
        XCTAssertEqual(statement.statementSQL.values, [FundamentalValue("(\"coffee\")"), FundamentalValue(20), FundamentalValue(0)])
    }

    /// Facet counting's statements: the matching rowids from the index alone unless a condition reads the content
    /// row, and a column's counts grouped over the same matches; neither ranks, orders nor pages.
    func testFacetAggregates() {
        var statement = SearchStatement(index: "articles_fts", content: (table: "articles", rowid: "id"), columns: [],
                                        expression: "(\"x\")")
        statement.aggregate = .rowids
        XCTAssertEqual(statement.description, "SELECT articles_fts.rowid FROM articles_fts WHERE articles_fts MATCH '(\"x\")'")
        statement.condition = Column(named: "views") > 3
        XCTAssertEqual(statement.description, "SELECT articles_fts.rowid FROM articles_fts JOIN articles ON articles.id = articles_fts.rowid "
                       + "WHERE articles_fts MATCH '(\"x\")' AND (articles.views > 3)")
        statement.aggregate = .groupCounts(column: "category")
        XCTAssertEqual(statement.description, "SELECT articles.category, count(*) FROM articles_fts JOIN articles ON articles.id = articles_fts.rowid "
                       + "WHERE articles_fts MATCH '(\"x\")' AND (articles.views > 3) GROUP BY 1")
    }

    func testOneRowByRowidHasNoRankNorPage() {
        var statement = SearchStatement(index: "articles_fts", content: (table: "articles", rowid: "id"), columns: ["id"],
                                        expression: "(\"x\")")
        statement.highlights = [.init(column: 0, open: "[", close: "]")]
        statement.rank = .bm25(weights: [10, 1])
        statement.rowid = 7
        XCTAssertEqual(statement.description,
                       "SELECT articles.id, articles_fts.rowid, highlight(articles_fts, 0, '[', ']') "
                       + "FROM articles_fts JOIN articles ON articles.id = articles_fts.rowid "
                       + "WHERE articles_fts MATCH '(\"x\")' AND articles_fts.rowid = 7")
        XCTAssertEqual(statement.statementSQL.values.last, FundamentalValue(7), "the rowid is bound last")
        // Without markup the row comes from the content table alone: no MATCH seeking the phrases to row 7.
        statement.highlights = []
        XCTAssertEqual(statement.description, "SELECT articles.id, articles.id FROM articles WHERE articles.id = 7")
        XCTAssertEqual(statement.statementSQL.values, [FundamentalValue(7)])
    }

    func testExternalContentWithEverything() {
        var statement = SearchStatement(index: "articles_fts", content: (table: "articles", rowid: "id"), columns: ["id", "title"],
                                        expression: "(\"x\")", limit: 5, offset: 10)
        statement.highlights = [.init(column: 0, open: "<b>", close: "</b>")]
        statement.snippets = [.init(column: 1, open: "[", close: "]", ellipsis: "…", characters: 200_000)]
        statement.rank = .bm25(weights: [10, 1])
        statement.condition = Column(named: "views") > 3
        XCTAssertEqual(statement.description,
                       "SELECT articles.id, articles.title, articles_fts.rowid, articles_fts.rank, "
                       + "highlight(articles_fts, 0, '<b>', '</b>'), sift_snippet(articles_fts, 1, '[', ']', '…', 100000) "
                       + "FROM articles_fts JOIN articles ON articles.id = articles_fts.rowid "
                       + "WHERE articles_fts MATCH '(\"x\")' AND articles_fts.rank MATCH 'bm25(10.0, 1.0)' AND (articles.views > 3) "
                       + "ORDER BY articles_fts.rank LIMIT 5 OFFSET 10")
        let sql = statement.statementSQL
        XCTAssertEqual(sql.sql.filter { $0 == "?" }.count, sql.values.count, "every value is a parameter")
        statement.countsOnly = true
        XCTAssertEqual(statement.description, "SELECT count(*) FROM articles_fts JOIN articles ON articles.id = articles_fts.rowid "
                       + "WHERE articles_fts MATCH '(\"x\")' AND articles_fts.rank MATCH 'bm25(10.0, 1.0)' AND (articles.views > 3)")
    }

    func testNamesAreQuotedAndExpressionsBound() {
        let statement = SearchStatement(index: "my index", columns: ["select"], expression: "') OR 1=1 --")
        XCTAssertEqual(statement.statementSQL.sql, "SELECT \"my index\".\"select\", \"my index\".rowid, \"my index\".rank "
                       + "FROM \"my index\" WHERE \"my index\" MATCH ? ORDER BY \"my index\".rank LIMIT ? OFFSET ?")
    }
}
