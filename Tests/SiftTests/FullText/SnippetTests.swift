import Foundation
import XCTest
import Sift

/// `sift_snippet()`: fragments sized in characters, cut at token boundaries, marked at exact byte offsets.
final class SnippetTests: SiftTestCase {
    private let filler = (1...40).map { "word\($0)" }.joined(separator: " ")

    private func database(_ bodies: [String]) throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: bodies.enumerated().map { Article($0.offset + 1, "title", $0.element, views: 0) },
                            intoTable: "articles")
        return database
    }

    private func snippet(_ query: SearchQuery, _ bodies: [String], length: Int) throws -> String {
        try snippet(query, in: try database(bodies), length: length)
    }

    private func snippet(_ query: SearchQuery, in database: Database, length: Int) throws -> String {
        let options = SearchOptions(snippet: ["body"], snippetLength: length)
        let results: SearchResults<Article> = try database.search(query, in: "articles_fts", options: options)
        return try XCTUnwrap(results.hits.first?.snippets["body"])
    }

    func testLongColumnIsCutToAboutTheLengthInCharactersAroundTheMatch() throws {
        let body = filler + " the needle sits here " + filler
        let text = try snippet(SearchQuery("needle"), [body], length: 60)
        XCTAssertTrue(text.hasPrefix("…") && text.hasSuffix("…"), text)
        XCTAssertTrue(text.contains("[needle]"), text)
        let plain = text.replacingOccurrences(of: "[", with: "").replacingOccurrences(of: "]", with: "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "…"))
        XCTAssertLessThanOrEqual(plain.count, 60, text)
        XCTAssertGreaterThanOrEqual(plain.count, 50, "whole words up to the length: \(text)")
        XCTAssertTrue(body.contains(plain), "an unaltered piece of the column: \(text)")
        XCTAssertFalse(plain.hasPrefix(" ") || plain.hasSuffix(" "), "cut at token boundaries: \(text)")
        let words = body.split(separator: " ").map(String.init)
        XCTAssertTrue(plain.split(separator: " ").allSatisfy { words.contains(String($0)) }, "no word cut in half: \(text)")
        // The match has context before it: it is not the first word.
        XCTAssertFalse(plain.hasPrefix("needle"), text)
    }

    func testShortColumnIsReturnedWholeAndMarked() throws {
        let text = try snippet(SearchQuery("fox"), ["The quick brown fox, jumping."], length: 100)
        XCTAssertEqual(text, "The quick brown [fox], jumping.")
    }

    func testWindowHoldsTheMostDistinctQueryWords() throws {
        let body = "alpha " + filler + " alpha gamma beta " + filler
        let text = try snippet(SearchQuery("alpha beta", mode: .anyTerm), [body], length: 40)
        XCTAssertTrue(text.contains("[alpha]") && text.contains("[beta]"), text)
    }

    func testMarksSitAtExactOffsetsInMultibyteText() throws {
        let body = "naïve " + filler + " déjà vu au café crème, ñandú " + filler
        let database = try database([body])
        let text = try snippet(SearchQuery("café"), in: database, length: 30)
        XCTAssertTrue(text.contains("[café]"), text)
        XCTAssertTrue(text.contains("crème"), text)
        let phrase = try snippet(SearchQuery("café crème", mode: .phrase), in: database, length: 30)
        XCTAssertTrue(phrase.contains("[café crème]"), "a phrase is marked once: \(phrase)")
    }

    func testMatchOnlyInAnotherColumnGivesTheColumnStart() throws {
        let body = filler + " " + filler
        let text = try snippet(SearchQuery("title"), [body], length: 20)
        XCTAssertTrue(text.hasPrefix("word1 word2"), text)
        XCTAssertTrue(text.hasSuffix("…") && !text.hasPrefix("…"), text)
    }

    func testLengthOutsideItsRangeIsAnSQLErrorNotACrash() throws {
        let database = try database(["some text"])
        XCTAssertThrowsError(try database.exec(sql: "SELECT sift_snippet(articles_fts, 1, '[', ']', '…', 0) "
                                               + "FROM articles_fts WHERE articles_fts MATCH 'text'"))
        XCTAssertThrowsError(try database.exec(sql: "SELECT sift_snippet(articles_fts, 7, '[', ']', '…', 10) "
                                               + "FROM articles_fts WHERE articles_fts MATCH 'text'"))
    }
}
