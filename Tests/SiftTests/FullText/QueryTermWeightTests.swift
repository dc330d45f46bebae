import XCTest
@testable import Sift

/// The phrase weights (query-term frequencies) the query builder hands Sift's ranking function, in FTS5's phrase
/// order, without a database.
final class QueryTermWeightTests: XCTestCase {
    /// Tokens between ASCII spaces (SearchQueryTests' tokenizer stand-in).
    private func spaces(_ text: String) -> [Range<Int>] { Spans.spaceSeparated(text) }

    private func weighted(_ query: SearchQuery, distinct: Bool = true) throws -> (expression: String, weights: [Double]?, phrases: Int?)? {
        try query.weightedTree(spans: spaces, distinct: distinct).map { ($0.tree.rendered, $0.weights, $0.tree.phraseCount) }
    }

    private func check(_ query: SearchQuery, _ expression: String, _ weights: [Double]?, distinct: Bool = true,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try XCTUnwrap(try weighted(query, distinct: distinct), file: file, line: line)
        XCTAssertEqual(result.expression, expression, file: file, line: line)
        XCTAssertEqual(result.weights, weights, file: file, line: line)
        if let weights { XCTAssertEqual(result.phrases, weights.count, "one weight per phrase FTS5 numbers", file: file, line: line) }
    }

    func testRepeatedWordsAreSearchedOnceWithTheirCount() throws {
        try check(SearchQuery("to be or not to be"), "(\"to\" \"be\" \"or\" \"not\")", [2, 2, 1, 1])
        try check(SearchQuery("to be or not to be", mode: .anyTerm), "(\"to\" OR \"be\" OR \"or\" OR \"not\")", [2, 2, 1, 1])
        try check(SearchQuery("fig fig fi", mode: .prefix), "(\"fig\" \"fi\"*)", [2, 1])
        try check(SearchQuery("fig fi fig", mode: .prefix), "(\"fig\" \"fi\" \"fig\"*)", [1, 1, 1])
        try check(SearchQuery("to be to", mode: .phrase), "(\"to be to\")", [1])
        try check(SearchQuery.near("a b a", distance: 2), "(NEAR(\"a\" \"b\" \"a\", 2))", [1, 1, 1])
    }

    func testWithoutDistinctTheExpressionIsTheDefaultRankingsOne() throws {
        for mode in [SearchQuery.Mode.allTerms, .anyTerm, .prefix, .phrase] {
            for text in ["to be or not to be", "a", "x y x y x"] {
                let query = SearchQuery(text, mode: mode)
                XCTAssertEqual(try weighted(query, distinct: false)?.expression, try query.expression(spans: spaces))
            }
        }
        try check(SearchQuery("to be to"), "(\"to\" \"be\" \"to\")", [1, 1, 1], distinct: false)
        try check(SearchQuery("to be to", mode: .anyTerm), "(\"to\" OR \"be\")", [2, 1], distinct: false)
    }

    func testColumnsExclusionsAndAdvancedQueries() throws {
        try check(SearchQuery("a b a", columns: ["title"]), "{\"title\"} : (\"a\" \"b\")", [2, 1])
        try check(SearchQuery("a b a", mode: .anyTerm, excluding: "c d"), "(\"a\" OR \"b\") NOT (\"c\" OR \"d\")", [2, 1, 0, 0])
        let advanced = try XCTUnwrap(try weighted(.advanced("a OR b")))
        XCTAssertNil(advanced.weights, "an advanced query's phrases are the caller's")
        XCTAssertNil(advanced.phrases)
        XCTAssertNil(try weighted(SearchQuery("   ")))
    }

    func testPieceCounts() {
        func pairs(_ pieces: [(piece: String, count: Int)]) -> [String] { pieces.map { "\($0.piece)\($0.count)" } }
        let run = { (parts: [String]) in SearchQuery.Segment(text: parts.joined(), isCJK: true, parts: parts) }
        let word = { (text: String) in SearchQuery.Segment(text: text, isCJK: false, parts: [text]) }
        XCTAssertEqual(pairs(SearchQuery.anyTermPieceCounts([run(["北", "京", "北", "京"])])), ["北京2", "京北1", "北2", "京2"])
        XCTAssertEqual(pairs(SearchQuery.anyTermPieceCounts([word("sql"), run(["北", "京"]), word("sql")])), ["sql2", "北京1", "北1", "京1"])
        // The cap counts distinct pieces; repeats of kept pieces still count.
        let many = (0..<(SearchQuery.maxTerms * 2 + 10)).map { word("w\($0)") } + [word("w0")]
        let counted = SearchQuery.anyTermPieceCounts(many)
        XCTAssertEqual(counted.count, SearchQuery.maxTerms * 2)
        XCTAssertEqual(counted.first?.count, 2)
    }

    func testPhraseCount() {
        XCTAssertEqual(FTS5Expression.all([.string("a"), .prefix("b"), .near(["c", "d", "e"], distance: 1)]).phraseCount, 5)
        XCTAssertEqual(FTS5Expression.columns(["t"], .excluding(.any([.string("a")]), .any([.string("b"), .string("c")]))).phraseCount, 3)
        XCTAssertNil(FTS5Expression.all([.string("a"), .trusted("b OR c")]).phraseCount)
    }
}
