import XCTest
@testable import Sift

/// The rank clause of the search SQL, rendered without a database.
final class SearchStatementRankTests: XCTestCase {
    func testSiftRankClause() {
        var statement = SearchStatement(index: "articles_fts", content: (table: "articles", rowid: "id"), columns: ["id"],
                                        expression: "(\"a\" OR \"b\")", limit: 5, offset: 10)
        statement.rank = .siftRank(k1: 1.2, b: 0.75, weights: [2, 1], phraseWeights: [2, 1])
        XCTAssertEqual(statement.description,
                       "SELECT articles.id, articles_fts.rowid, articles_fts.rank FROM articles_fts "
                       + "JOIN articles ON articles.id = articles_fts.rowid WHERE articles_fts MATCH '(\"a\" OR \"b\")' "
                       + "AND articles_fts.rank MATCH 'sift_rank(1.2, 0.75, 2, 2.0, 1.0, ''2 1'')' "
                       + "ORDER BY articles_fts.rank LIMIT 5 OFFSET 10")
        let sql = statement.statementSQL
        XCTAssertEqual(sql.sql, "SELECT articles.id, articles_fts.rowid, articles_fts.rank FROM articles_fts "
                       + "JOIN articles ON articles.id = articles_fts.rowid WHERE articles_fts MATCH ? "
                       + "AND articles_fts.rank MATCH ? ORDER BY articles_fts.rank LIMIT ? OFFSET ?", "the call is a bound value")
        XCTAssertEqual(sql.values[1], FundamentalValue("sift_rank(1.2, 0.75, 2, 2.0, 1.0, '2 1')"))
        statement.countsOnly = true
        XCTAssertEqual(statement.description, "SELECT count(*) FROM articles_fts JOIN articles ON articles.id = articles_fts.rowid "
                       + "WHERE articles_fts MATCH '(\"a\" OR \"b\")' AND articles_fts.rank MATCH 'sift_rank(1.2, 0.75, 2, 2.0, 1.0, ''2 1'')'")
    }

    func testCalls() {
        typealias Rank = SearchStatement.Rank
        XCTAssertEqual(Rank.bm25(weights: [10, 1]).call, "bm25(10.0, 1.0)")
        XCTAssertEqual(Rank.siftRank(k1: 0, b: 1, weights: [0.5], phraseWeights: nil).call, "sift_rank(0.0, 1.0, 1, 0.5)",
                       "without phrase weights every phrase weighs 1")
        XCTAssertEqual(Rank.siftRank(k1: 1e-7, b: 0.4, weights: [1, 1, 1], phraseWeights: [3, 0]).call,
                       "sift_rank(1e-07, 0.4, 3, 1.0, 1.0, 1.0, '3 0')")
        XCTAssertEqual(Rank.siftRank(k1: .nan, b: .infinity, weights: [.nan], phraseWeights: [1]).call,
                       "sift_rank(1.2, 0.75, 1, 1.0, '1')", "never a non-finite literal")
        XCTAssertEqual(Rank.siftRank(k1: 1, b: 1, weights: [1], phraseWeights: Array(repeating: 1, count: 200)).call.count,
                       "sift_rank(1.0, 1.0, 1, 1.0, '')".count + 2 * 200 - 1, "200 phrases, one argument")
    }

    func testNoRankClauseByDefault() {
        let statement = SearchStatement(index: "notes", columns: ["text"], expression: "x")
        XCTAssertNil(statement.rank)
        XCTAssertFalse(statement.description.contains("rank MATCH"))
    }
}
