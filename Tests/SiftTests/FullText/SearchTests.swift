import Foundation
import XCTest
import Sift

final class SearchTests: SiftTestCase {
    private func corpus() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: [
            Article(1, "SQLite full-text search", "FTS5 ranks documents with bm25 and highlights matches.", views: 10),
            Article(2, "Swift concurrency", "Actors and tasks make concurrent code safe; search is not covered.", views: 5),
            Article(3, "Search engines", "Lucene and SQLite both build inverted indexes for search.", views: 50),
            Article(4, "Cooking", "A quick recipe for a brown fox stew.", views: 1),
            Article(5, "The quick brown fox", "jumps over the lazy dog", views: 7),
        ], intoTable: "articles")
        return database
    }

    private func ids(_ results: SearchResults<Article>) -> [Int] { results.hits.compactMap(\.object.id) }

    func testModes() throws {
        let database = try corpus()
        let all: SearchResults<Article> = try database.search("sqlite search", in: "articles_fts")
        XCTAssertEqual(Set(ids(all)), [1, 3])
        let any: SearchResults<Article> = try database.search("lucene actors", mode: .anyTerm, in: "articles_fts")
        XCTAssertEqual(Set(ids(any)), [2, 3])
        let phrase: SearchResults<Article> = try database.search("quick brown fox", mode: .phrase, in: "articles_fts")
        XCTAssertEqual(Set(ids(phrase)), [5], "doc 4 has the words but not the phrase")
        let prefix: SearchResults<Article> = try database.search("concur", mode: .prefix, in: "articles_fts")
        XCTAssertEqual(Set(ids(prefix)), [2])
        let near: SearchResults<Article> = try database.search(SearchQuery.near("quick fox", distance: 1), in: "articles_fts")
        XCTAssertEqual(Set(ids(near)), [5])
        let not: SearchResults<Article> = try database.search(SearchQuery("search", excluding: "lucene"), in: "articles_fts")
        XCTAssertEqual(Set(ids(not)), [1, 2])
        let column: SearchResults<Article> = try database.search(SearchQuery("search", columns: ["title"]), in: "articles_fts")
        XCTAssertEqual(Set(ids(column)), [1, 3])
    }

    func testRankingWeightsFilterPagingAndTotal() throws {
        let database = try corpus()
        let plain: SearchResults<Article> = try database.search("search", in: "articles_fts")
        XCTAssertEqual(plain.totalCount, 3)
        XCTAssertTrue(zip(plain.hits, plain.hits.dropFirst()).allSatisfy { $0.score >= $1.score }, "best first")
        let titleHeavy: SearchResults<Article> = try database.search(SearchQuery("search"), in: "articles_fts",
                                                                    options: SearchOptions(weights: ["title": 100]))
        XCTAssertNotEqual(titleHeavy.hits.first?.object.id, 2, "a title match outranks a body mention")
        let filtered: SearchResults<Article> = try database.search(SearchQuery("search"), in: "articles_fts",
                                                                  where: Article.Properties.views >= 10)
        XCTAssertEqual(Set(ids(filtered)), [1, 3], "where filters on content columns (title exists in both tables)")
        let titleFilter: SearchResults<Article> = try database.search(SearchQuery("search"), in: "articles_fts",
                                                                     where: Article.Properties.title.like("Search%"))
        XCTAssertEqual(ids(titleFilter), [3])
        let page: SearchResults<Article> = try database.search(SearchQuery("search"), in: "articles_fts",
                                                              options: SearchOptions(limit: 1, offset: 1))
        XCTAssertEqual(page.hits.count, 1)
        XCTAssertEqual(page.totalCount, 3)
        XCTAssertEqual(page.hits.first?.object.id, plain.hits[1].object.id)
    }

    func testHighlightsAndSnippetsLandOnMatchedWords() throws {
        let database = try corpus()
        var options = SearchOptions(highlight: ["title"], snippet: ["body"], markers: SearchOptions.Markers("<b>", "</b>"))
        options.snippetLength = 40
        let results: SearchResults<Article> = try database.search("sqlite", in: "articles_fts", options: options)
        let first = try XCTUnwrap(results.hits.first { $0.object.id == 1 })
        XCTAssertEqual(first.highlights["title"], "<b>SQLite</b> full-text search")
        let third = try XCTUnwrap(results.hits.first { $0.object.id == 3 })
        XCTAssertTrue(third.snippets["body"]?.contains("<b>SQLite</b>") ?? false, third.snippets["body"] ?? "")
        // Every marked word is a whole token that matches the query.
        for hit in results.hits {
            for text in hit.highlights.values {
                for marked in text.components(separatedBy: "<b>").dropFirst() {
                    XCTAssertEqual(marked.components(separatedBy: "</b>").first?.lowercased(), "sqlite")
                }
            }
        }
    }

    func testHostileQueriesNeverThrowSyntaxErrors() throws {
        let database = try corpus()
        var hostile = [
            "\"", "\"\"\"", "'", "*", "**", "sqlite*", "*sqlite", ":", "title:", "title: sqlite", "body:search", "^", "^sqlite",
            "(", ")", "((sqlite)", "sqlite)", "AND", "OR", "NOT", "NEAR", "sqlite AND", "OR search", "NOT NOT", "NEAR(sqlite search",
            "NEAR(a b, 99999999999999999999)", "{title}", "{title body}: x", "-", "-sqlite", "+", "sqlite + search", "a\"b\"c",
            "🙂", "🙂🙂 search 🙂", "\u{0}", "a\u{0}b", "\\", "%", "_", "sqlite' OR '1'='1", "'); DROP TABLE articles; --",
            "\u{202E}rtl", "e\u{301}", "İstanbul", "ＳＱＬｉｔｅ", " ", "\t\n", "", "中文", "日本語のテキスト", "한국어",
        ]
        hostile.append(String(repeating: "sqlite search ", count: 80_000))  // ~1 MB
        for text in hostile {
            for mode in [SearchQuery.Mode.allTerms, .anyTerm, .phrase, .prefix] {
                for columns in [[], ["title"]] {
                    XCTAssertNoThrow(try database.search(SearchQuery(text, mode: mode, columns: columns, excluding: text),
                                                         in: "articles_fts", of: Article.self), "\(mode) \(text.prefix(40))")
                }
            }
            XCTAssertNoThrow(try database.search(SearchQuery.near(text), in: "articles_fts", of: Article.self), text)
        }
        XCTAssertEqual(try database.expression(for: SearchQuery("sqlite\" OR \"x"), in: "articles_fts"), "(\"sqlite\" \"OR\" \"x\")")
        XCTAssertNil(try database.expression(for: SearchQuery("!!! ... ,;"), in: "articles_fts"), "nothing to search for")
        XCTAssertEqual(try database.search("...", in: "articles_fts", of: Article.self).totalCount, 0)
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testInvalidUTF8IsTypedError() throws {
        XCTAssertThrowsError(try SearchQuery(utf8: Data([0x61, 0xFF, 0x62]))) { error in
            XCTAssertEqual((error as? SiftError)?.operation, .query)
        }
        XCTAssertNoThrow(try SearchQuery(utf8: Data("fine".utf8)))
    }

    func testAdvancedModeValidatesFTS5Syntax() throws {
        let database = try corpus()
        let ok: SearchResults<Article> = try database.search(SearchQuery.advanced("title : (sqlite OR swift) NOT concurrency"),
                                                            in: "articles_fts")
        XCTAssertEqual(ids(ok), [1])
        for bad in ["sqlite AND", "(((", "NEAR(", "\"unterminated", "nosuchcolumn : x"] {
            XCTAssertThrowsError(try database.search(SearchQuery.advanced(bad), in: "articles_fts", of: Article.self), bad) { error in
                XCTAssertEqual((error as? SiftError)?.operation, .query, bad)
            }
        }
    }

    func testUnknownColumnsAndIndexesAreTypedErrors() throws {
        let database = try corpus()
        XCTAssertThrowsError(try database.search(SearchQuery("x", columns: ["nope"]), in: "articles_fts", of: Article.self))
        XCTAssertThrowsError(try database.search("x", in: "articles", of: Article.self)) { error in
            XCTAssertEqual((error as? SiftError)?.operation, .query)
        }
    }

    func testTokenizeReportsOffsets() throws {
        let database = makeDatabase()
        let text = "Héllo, wörld! 123"
        let tokens = try database.tokenize(text, with: ["unicode61", "remove_diacritics", "2"])
        XCTAssertEqual(tokens.map(\.text), ["hello", "world", "123"])
        let bytes = Array(text.utf8)
        XCTAssertEqual(tokens.map { String(decoding: bytes[$0.start..<$0.end], as: UTF8.self) }, ["Héllo", "wörld", "123"])
        XCTAssertThrowsError(try database.tokenize("x", with: ["no_such_tokenizer"]))
    }
}
