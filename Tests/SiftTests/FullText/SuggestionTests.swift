import Foundation
import XCTest
@testable import Sift

/// Completions of the last word typed (most frequent first, leading to hits with the words before it, typo
/// tolerant when nothing begins as typed) and "did you mean" corrections of queries without hits.
final class SuggestionTests: SiftTestCase {
    /// search: 4 rows, segment: 3, sea: 2, seasons: 1; sqlite with search and segment only.
    private func corpus() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: [
            Article(1, "SQLite search", "a search engine on sqlite segment files"),
            Article(2, "Search engines", "search ranking and segment merging"),
            Article(3, "Search at sea", "sailing the sea in seasons of storms"),
            Article(4, "Sea turtles", "turtles swim in the open and search for food"),
            Article(5, "SQLite internals", "the sqlite pager and one segment"),
            Article(6, "北京大学", "中文 文本"),
            Article(7, "Café culture", "coffee in Москва"),
        ], intoTable: "articles")
        return database
    }

    private func texts(_ database: Database, _ text: String, limit: Int = 10,
                       typoTolerance: TypoTolerance = .default) throws -> [String] {
        try database.suggestions(for: text, in: "articles_fts", limit: limit, typoTolerance: typoTolerance).map(\.text)
    }

    func testCompletionsComeMostFrequentFirst() throws {
        let database = try corpus()
        let suggestions = try database.suggestions(for: "se", in: "articles_fts")
        XCTAssertEqual(suggestions.map(\.word), ["search", "segment", "sea", "seasons"])
        XCTAssertEqual(suggestions.map(\.rowCount), [4, 3, 2, 1])
        XCTAssertEqual(suggestions.map(\.typos), [0, 0, 0, 0])
        XCTAssertEqual(try texts(database, "se", limit: 2), ["search", "segment"])
        XCTAssertEqual(try texts(database, "SEA"), ["search", "sea", "seasons"], "the words as the first row holding each writes them")
        XCTAssertEqual(try texts(database, "caf"), ["café"], "the word as a row writes it, not the folded term")
        XCTAssertEqual(try texts(database, "Caf"), ["Café"], "upper-case typing: the case as written too")
        XCTAssertEqual(try texts(database, "search"), ["search"], "a whole word completes to itself")
        XCTAssertEqual(try texts(database, "se", limit: 0), [])
    }

    func testCompletionsLeadToHitsWithTheWordsBefore() throws {
        let database = try corpus()
        XCTAssertEqual(try texts(database, "sqlite se"), ["sqlite search", "sqlite segment"])
        XCTAssertEqual(try texts(database, "turtles  se"), ["turtles  search", "turtles  sea"], "the text before kept as typed")
        XCTAssertEqual(try texts(database, "storms, sea"), ["storms, search", "storms, sea", "storms, seasons"])
        XCTAssertEqual(try texts(database, "pager se"), ["pager segment"])
        XCTAssertEqual(try texts(database, "search se"), ["search segment", "search sea", "search seasons"],
                       "a word typed before is not offered again")
        XCTAssertEqual(try texts(database, "food seg"), [])
        XCTAssertEqual(try texts(database, "se "), [], "white space after the last word: nothing to complete")
    }

    func testCheckedAndReadCompletionsAgree() throws {
        let database = try corpus()
        // More rows than are read hold "sqlite" and "se…": each completion is then checked on its own.
        try database.insert(objects: (100..<180).map { (id: Int) in Article(id, "sqlite notes", "seldom \(id)") }, intoTable: "articles")
        let suggestions = try database.suggestions(for: "sqlite se", in: "articles_fts")
        XCTAssertEqual(suggestions.map(\.text), ["sqlite seldom", "sqlite search", "sqlite segment"])
        XCTAssertEqual(suggestions.map(\.rowCount), [80, 4, 3])
        XCTAssertEqual(try texts(database, "pager se"), ["pager segment"])
    }

    func testRowsAreReadOnceChecksKeepFailing() throws {
        let database = try corpus()
        // 60 words "zeta…" of 30 rows each that never meet "alpha" (in 100 rows), and "zebra" that does, once:
        // checking every more frequent candidate first would spend the budget before reaching it.
        var articles = (0..<100).map { Article(1_000 + $0, "alpha", $0 == 57 ? "zebra" : "filler") }
        for word in 0..<60 {
            articles += (0..<30).map { Article(2_000 + word * 30 + $0, "zeta\(word)", "other") }
        }
        try database.insert(objects: articles, intoTable: "articles")
        let suggestions = try database.suggestions(for: "alpha ze", in: "articles_fts")
        XCTAssertEqual(suggestions.map(\.text), ["alpha zebra"])
        XCTAssertEqual(suggestions.map(\.rowCount), [1])
        XCTAssertEqual(try texts(database, "ze", limit: 2), ["zeta0", "zeta1"], "alone, the most frequent first")
    }

    func testTyposAreForgivenWhenNothingBeginsAsTyped() throws {
        let database = try corpus()
        let suggestions = try database.suggestions(for: "trutl", in: "articles_fts")
        XCTAssertEqual(suggestions.map(\.word), ["turtles"])
        XCTAssertEqual(suggestions.map(\.typos), [1])
        XCTAssertEqual(try texts(database, "sqlite serach"), ["sqlite search"])
        XCTAssertEqual(try texts(database, "food serach"), ["food search"])
        XCTAssertEqual(try texts(database, "pager serach"), [], "no variant leads to hits with pager")
        XCTAssertEqual(try texts(database, "trutl", typoTolerance: .off), [])
        XCTAssertEqual(try texts(database, "tru"), [], "four letters or fewer: no typo")
    }

    func testStemmedTermsAreShownAsWritten() throws {
        let database = makeDatabase()
        try database.create(virtualTable: "notes", of: Note.self)  // porter unicode61
        try database.insert(objects: [Note("running quickly", "a"), Note("ran slowly", "b"), Note("runners run", "c")],
                            intoTable: "notes")
        let suggestions = try database.suggestions(for: "ru", in: "notes")
        XCTAssertEqual(suggestions.map(\.word), ["running", "runners"], "run (2 rows) as row 1 writes it, then runner")
        XCTAssertEqual(suggestions.map(\.rowCount), [2, 1])
        XCTAssertEqual(try database.correction(for: "quikly runing", in: "notes"), "quickly running", "stems corrected, shown as written")
        XCTAssertEqual(try database.correction(for: "slowly rann", in: "notes"), nil, "no row holds slowly with a variant of rann")
    }

    func testCorrectionsFindTyposThatChangeTheStem() throws {
        let database = makeDatabase()
        try database.create(virtualTable: "notes", of: Note.self)  // porter unicode61
        try database.insert(objects: [Note("training of pilots", "a"), Note("heated plates", "b")], intoTable: "notes")
        // "traning" stems to "trane", two edits from "train"; "training", one edit from it as typed, stems to "train".
        XCTAssertEqual(try database.correction(for: "traning pilots", in: "notes"), "training pilots")
        // "heatfd" is its own stem; "heated", one edit away as typed, stems to "heat".
        XCTAssertEqual(try database.correction(for: "heatfd plates", in: "notes"), "heated plates")
        XCTAssertNil(try database.correction(for: "traning plates", in: "notes"), "no row holds both")
    }

    func testNonLatinText() throws {
        let database = try corpus()
        XCTAssertEqual(try texts(database, "北京"), ["北京大学"])
        XCTAssertEqual(try texts(database, "中"), ["中文"])
        XCTAssertEqual(try texts(database, "北京大字"), [], "CJK is never corrected")
        XCTAssertEqual(try texts(database, "моск"), ["москва"])
        XCTAssertEqual(try texts(database, "coffee Моск"), ["coffee Москва"])
        XCTAssertEqual(try texts(database, "🚀"), [])
        XCTAssertEqual(try database.correction(for: "北京大字", in: "articles_fts"), nil)
        XCTAssertEqual(try database.correction(for: "coffee моксва", in: "articles_fts"), "coffee москва")
    }

    func testDidYouMean() throws {
        let database = try corpus()
        XCTAssertEqual(try database.correction(for: "serach engnes", in: "articles_fts"), "search engines")
        XCTAssertEqual(try database.correction(for: "  serach, engnes!", in: "articles_fts"), "  search, engines!",
                       "everything but the corrected words as typed")
        XCTAssertEqual(try database.correction(for: "sqlite segmnet", in: "articles_fts"), "sqlite segment")
        XCTAssertNil(try database.correction(for: "search engines", in: "articles_fts"), "the query has hits")
        XCTAssertNil(try database.correction(for: "zzzzzz qqqqqq", in: "articles_fts"), "no correction has hits")
        XCTAssertNil(try database.correction(for: "turtles merging", in: "articles_fts"), "held words that never meet")
        XCTAssertNil(try database.correction(for: "serach engnes", in: "articles_fts", typoTolerance: .off))
        XCTAssertEqual(try database.correction(for: "sailing seasins", in: "articles_fts"), "sailing seasons")
    }

    func testAnyTextIsSafe() throws {
        let database = try corpus()
        let hostile = ["", "   ", "!!!", "\"*:^()", "AND OR NOT NEAR(", "\"se", "se*", "\u{0}se", "se\u{0}", "\u{FFFD}\u{301}",
                       "a\u{301}\u{302}\u{303}", String(repeating: "search ", count: 20_000) + "se",
                       String(repeating: "x", count: 200_000), String(repeating: "серач", count: 1_000),
                       String(repeating: "北", count: 10_000)]
        for text in hostile {
            XCTAssertNoThrow(try database.suggestions(for: text, in: "articles_fts"), text.prefix(20).debugDescription)
            XCTAssertNoThrow(try database.correction(for: text, in: "articles_fts"), text.prefix(20).debugDescription)
        }
        for text in ["", "   ", "!!!", "\"*:^()", String(repeating: "search ", count: 20_000) + "se", String(repeating: "x", count: 200_000)] {
            XCTAssertEqual(try texts(database, text), [], text.prefix(20).debugDescription)
            XCTAssertNil(try database.correction(for: text, in: "articles_fts"), text.prefix(20).debugDescription)
        }
        XCTAssertEqual(try texts(database, "\"se"), ["\"search", "\"segment", "\"sea", "\"seasons"], "punctuation kept as typed")
        XCTAssertThrowsError(try database.suggestions(for: "se", in: "articles")) { error in
            XCTAssertEqual((error as? SiftError)?.operation, .query)
        }
    }

    func testAsyncVariants() async throws {
        let database = try corpus()
        let suggestions = try await database.suggestions(for: "sqlite se", in: "articles_fts")
        XCTAssertEqual(suggestions.map(\.text), ["sqlite search", "sqlite segment"])
        let corrected = try await database.correction(for: "serach engnes", in: "articles_fts")
        XCTAssertEqual(corrected, "search engines")
    }

    func testFrequencyOrderMatchesSorting() {
        var rng = SplitMix(seed: 11)
        let terms = (0..<2_000).map { i in (String(i, radix: 7), Int64(rng.next() % 50)) }
        let dictionary = TermList(terms: terms)
        for prefix in ["", "1", "12", "3", "66", "654", "9"] {
            let range = dictionary.positions(beginningWith: Array(prefix.unicodeScalars))
            XCTAssertTrue(range.allSatisfy { dictionary.text($0).hasPrefix(prefix) })
            XCTAssertEqual(range.count, terms.filter { $0.0.hasPrefix(prefix) }.count, prefix)
            let expected = range.sorted { (-dictionary.rows[$0], $0) < (-dictionary.rows[$1], $1) }
            XCTAssertEqual(Array(dictionary.byRows(range)), expected, prefix)
            XCTAssertEqual(Array(dictionary.byRows(range).prefix(5)), Array(expected.prefix(5)), prefix)
        }
        XCTAssertEqual(Array(TermList(terms: []).byRows(0..<0)), [])
        XCTAssertEqual(Array(TermDictionary(terms: []).byRows(beginningWith: [])), [])
    }
}
