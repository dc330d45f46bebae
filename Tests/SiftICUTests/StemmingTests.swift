import Foundation
import XCTest
import Sift
import SiftICU

/// `sift_icu stem LANGUAGE`: Snowball stemming of the words of the language's script, exact byte offsets, and the
/// meaning of a bare `sift_icu` kept for tables declared before stemming existed.
final class StemmingTests: XCTestCase {
    private func tokens(_ text: String, _ language: String, reason: TokenizeReason = .document) throws -> [Token] {
        try ICUTokenizer(arguments: ["stem", language]).tokenize(text, reason: reason)
    }

    private func texts(_ text: String, _ language: String) throws -> [String] { try tokens(text, language).map(\.text) }

    func testEnglish() throws {
        XCTAssertEqual(try texts("Running runs RUN connections generalization John's", "english"),
                       ["run", "run", "run", "connect", "general", "john"])
        // Offsets are those of the words as written, whatever the stem's length.
        let text = "the Running dogs"
        for token in try tokens(text, "english") {
            let written = String(decoding: Array(text.utf8)[token.start..<token.end], as: UTF8.self)
            XCTAssertEqual(written.lowercased().hasPrefix(token.text), true, "\(token)")
        }
        XCTAssertEqual(try tokens(text, "english").map { $0.start..<$0.end }, [0..<3, 4..<11, 12..<16])
        XCTAssertEqual(try texts("running", "porter"), ["run"])
    }

    func testRecentStemsAreRememberedCorrectly() throws {
        // 6,000 words (many more than the cache's slots, so slots are reused) through one tokenizer, twice, match
        // a fresh tokenizer per word: a cached stem is always that word's.
        let words = (0..<6000).map { i in ["connect", "generaliz", "runn", "happi", "nation"][i % 5] + String(repeating: "e", count: i % 7)
            + ["ing", "ed", "s", "ation", "ness", "al"][i % 6] + String(UnicodeScalar(UInt8(97 + i % 26))) }
        let shared = try ICUTokenizer(arguments: ["stem", "english"])
        let text = words.joined(separator: " ")
        let first = try shared.tokenize(text).map(\.text), second = try shared.tokenize(text).map(\.text)
        XCTAssertEqual(first, second)
        for (index, word) in words.enumerated() where index % 97 == 0 {
            XCTAssertEqual(try ICUTokenizer(arguments: ["stem", "english"]).tokenize(word).map(\.text), [first[index]], word)
        }
        // The last `stem` option counts, and its stems are not the previous language's.
        XCTAssertEqual(try ICUTokenizer(arguments: ["stem", "english", "stem", "none"]).tokenize("running").map(\.text), ["running"])
    }

    func testFrenchStemsBeforeDiacriticsAreRemoved() throws {
        XCTAssertEqual(try texts("Chevaux cheval continuellement", "french"), ["cheval", "cheval", "continuel"])
        // The stemmer sees mangé with its accent (-> mang), then diacritics go: mangé and mange meet in mang.
        XCTAssertEqual(try texts("mangé", "french"), ["mang"])
        XCTAssertEqual(try ICUTokenizer(arguments: ["stem", "french", "remove_diacritics", "0"]).tokenize("Été").map(\.text), ["été"])
    }

    func testGerman() throws {
        XCTAssertEqual(try texts("Häuser Haus laufen Kategorien Kategorie", "german"), ["haus", "haus", "lauf", "kategori", "kategori"])
    }

    func testRussian() throws {
        XCTAssertEqual(try texts("Книги книга ёлки ёлка", "russian"), ["книг", "книг", "елк", "елк"])
        let text = "Книги"
        XCTAssertEqual(try tokens(text, "russian").map { $0.start..<$0.end }, [0..<text.utf8.count])
    }

    func testOnlyWordsOfTheLanguagesScriptAreStemmed() throws {
        // English stems Latin words only; Russian, Cyrillic only; CJK and Thai never.
        XCTAssertEqual(try texts("running книги", "english"), ["run", "книги"])
        XCTAssertEqual(try texts("running книги", "russian"), ["running", "книг"])
        for text in ["北京大学的学生", "東京タワーに住んでいます", "ภาษาไทยง่ายนิดเดียว", "서울특별시에서", "3.14 1,000"] {
            XCTAssertEqual(try tokens(text, "english"), try ICUTokenizer(arguments: ["stem", "none"]).tokenize(text), text)
        }
        XCTAssertEqual(try texts("running", "none"), ["running"])
        XCTAssertEqual(try ICUTokenizer().tokenize("running").map(\.text), ["running"], "no option: no stemming")
    }

    func testEveryLanguageIsAcceptedAndOthersAreErrors() throws {
        let languages = SiftICU.stemmerLanguages
        XCTAssertTrue(Set(["english", "french", "german", "russian", "spanish", "greek", "porter"]).isSubset(of: Set(languages)), "\(languages)")
        for language in languages { XCTAssertNoThrow(try ICUTokenizer(arguments: ["stem", language]), language) }
        XCTAssertEqual(try texts("λόγους λόγος", "greek").count, 2)
        for bad in ["klingon", "English", "en", ""] {
            XCTAssertThrowsError(try ICUTokenizer(arguments: ["stem", bad]), bad)
        }
    }

    // MARK: - Through FTS5

    private var directory: URL!
    private var database: Database!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-stem-\(UUID().uuidString)")
        // Every test here stems; StemmingTraitTests covers a build without the trait.
        try XCTSkipUnless(SiftICU.isStemmingAvailable, "Sift was built without the Stemming trait")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = Database(withPath: directory.appendingPathComponent("s.db").path)
        database.registerICUTokenizer()
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    private func passages() throws {
        try database.create(table: "passages", of: Passage.self)
        try database.insert(objects: [
            Passage(1, "Running", "She was running connections between the servers."),
            Passage(2, "Runner", "A runner runs."),
            Passage(3, "Книги", "Мы читаем книги."),
        ], intoTable: "passages")
        try database.create(virtualTable: "passages_fts", of: PassageIndex.self, syncedWith: "passages")
    }

    private func ids(_ query: SearchQuery, in index: String = "passages_fts") throws -> [Int] {
        try database.search(query, in: index, of: Passage.self, options: SearchOptions(typoTolerance: .off)).hits.map(\.object.id).sorted()
    }

    func testSiftDeclaresSiftICUWithEnglishStemming() throws {
        try passages()
        let sql = try database.getRows(sql: "SELECT sql FROM sqlite_master WHERE name = 'passages_fts'").first?[0].stringValue ?? ""
        XCTAssertTrue(sql.contains("sift_icu stem english"), sql)
        XCTAssertEqual(database.declaredTokenize("sift_icu"), "sift_icu stem english")
        XCTAssertEqual(database.declaredTokenize("sift_icu stem none"), "sift_icu stem none")
        XCTAssertEqual(database.declaredTokenize("sift_icu cjk bigram"), "sift_icu cjk bigram stem english")
        XCTAssertEqual(database.declaredTokenize("unicode61"), "unicode61")
        XCTAssertEqual(try ids(SearchQuery("run")), [1, 2])
        XCTAssertEqual(try ids(SearchQuery("connection")), [1])
        // English stemming leaves Cyrillic words alone; a Russian-stemmed index over the same rows finds them.
        XCTAssertEqual(try ids(SearchQuery("книга")), [])
        XCTAssertEqual(try ids(SearchQuery("книги")), [3])
        try database.create(virtualTable: "passages_ru", of: PassageIndex.self, syncedWith: "passages", tokenizer: "sift_icu stem russian")
        XCTAssertEqual(try ids(SearchQuery("книга"), in: "passages_ru"), [3])
        XCTAssertEqual(try ids(SearchQuery("run"), in: "passages_ru"), [])  // Latin words: not stemmed by russian
        XCTAssertEqual(try ids(SearchQuery("running"), in: "passages_ru"), [1])
    }

    func testHighlightsAndSnippetsMarkTheWordsAsWritten() throws {
        try passages()
        let options = SearchOptions(highlight: ["title", "text"], snippet: ["text"])
        let hits = try database.search(SearchQuery("run"), in: "passages_fts", of: Passage.self, options: options).hits
        let first = try XCTUnwrap(hits.first { $0.object.id == 1 })
        XCTAssertEqual(first.highlights["title"], "[Running]")
        XCTAssertEqual(first.highlights["text"], "She was [running] connections between the servers.")
        XCTAssertEqual(first.snippets["text"], "She was [running] connections between the servers.")
        let second = try XCTUnwrap(hits.first { $0.object.id == 2 })
        XCTAssertEqual(second.highlights["text"], "A runner [runs].")
        try database.create(virtualTable: "passages_ru", of: PassageIndex.self, syncedWith: "passages", tokenizer: "sift_icu stem russian")
        let russian = try database.search(SearchQuery("книга"), in: "passages_ru", of: Passage.self, options: options).hits
        XCTAssertEqual(russian.first?.highlights["text"], "Мы читаем [книги].")
    }

    func testPrefixQueriesAreNotStemmed() throws {
        try passages()
        // connections is indexed as connect: the prefix connect* finds it; connections* (stemmed, connect*)
        // would too, but a prefix is no word and is searched as written.
        XCTAssertEqual(try ids(SearchQuery("connect", mode: .prefix)), [1])
        XCTAssertEqual(try ids(SearchQuery("connections", mode: .prefix)), [])
        XCTAssertEqual(try ids(SearchQuery("runn", mode: .prefix)), [2])
    }

    func testTablesDeclaredWithBareSiftICUKeepTheirUnstemmedMeaning() throws {
        // A table made before stemming existed: `tokenize='sift_icu'`, unstemmed tokens.
        try database.create(table: "passages", of: Passage.self)
        try database.exec(sql: "CREATE VIRTUAL TABLE passages_fts USING fts5(title, text, content='passages', content_rowid='id', tokenize='sift_icu')")
        try database.insert(objects: [Passage(1, "Running", "running dogs"), Passage(2, "Run", "run")], intoTable: "passages")
        try database.exec(sql: "INSERT INTO passages_fts(passages_fts) VALUES('rebuild')")
        try database.exec(sql: "CREATE VIRTUAL TABLE passages_terms USING fts5vocab(passages_fts, row)")
        XCTAssertEqual(try database.getRows(sql: "SELECT term FROM passages_terms ORDER BY term").map { $0[0].stringValue },
                       ["dogs", "run", "running"])
        // Sift's synced-index declaration over it keeps the table and its declaration (same columns).
        try database.create(virtualTable: "passages_fts", of: PassageIndex.self, syncedWith: "passages")
        let sql = try database.getRows(sql: "SELECT sql FROM sqlite_master WHERE name = 'passages_fts'").first?[0].stringValue ?? ""
        XCTAssertFalse(sql.contains("stem"), sql)
        // Queries are tokenized as the table's documents were: exact words only, and every old word is found.
        XCTAssertEqual(try ids(SearchQuery("running")), [1])
        XCTAssertEqual(try ids(SearchQuery("run")), [2])
        XCTAssertEqual(try database.verify(index: "passages_fts").isConsistent, true)
    }

    func testEnglishStopwordsLeaveAnyTermQuestionsOnly() throws {
        try passages()
        func expression(_ query: SearchQuery, in index: String = "passages_fts") throws -> String {
            try database.expression(for: query, in: index) ?? ""
        }
        // An any-term question on an English-stemmed index drops "the", "of", "and"...; a repeated word stays
        // one phrase with its count.
        XCTAssertEqual(try expression(SearchQuery("The running of the servers and the runner", mode: .anyTerm)),
                       try expression(SearchQuery("running servers runner", mode: .anyTerm)))
        XCTAssertFalse(try expression(SearchQuery("the servers", mode: .anyTerm)).contains("\"the\""))
        // Nothing but stopwords: they are the question.
        XCTAssertTrue(try expression(SearchQuery("to be or not to be", mode: .anyTerm)).contains("\"to\""))
        // Every word is a condition in the other modes.
        XCTAssertTrue(try expression(SearchQuery("the servers")).contains("\"the\""))
        XCTAssertTrue(try expression(SearchQuery("the servers", mode: .phrase)).contains("the servers"))
        // The stopwords are indexed: a phrase finds them.
        XCTAssertEqual(try ids(SearchQuery("between the servers", mode: .phrase)), [1])
        // No stemming, no stopwords: a `stem none` index keeps every word of the question.
        try database.create(virtualTable: "passages_plain", of: PassageIndex.self, syncedWith: "passages", tokenizer: "sift_icu stem none")
        XCTAssertTrue(try expression(SearchQuery("the servers", mode: .anyTerm), in: "passages_plain").contains("\"the\""))
        XCTAssertEqual(SiftICU.queryStopwords(arguments: ["cjk", "bigram", "stem", "english"]),
                       SiftICU.englishStopwords.union(SiftICU.kanaStopwords))
        XCTAssertEqual(SiftICU.queryStopwords(arguments: ["stem", "french"]), SiftICU.kanaStopwords)
        XCTAssertEqual(SiftICU.queryStopwords(arguments: ["stem", "none"]), [])
    }

    func testKanaAloneLeavesJapaneseAnyTermQuestions() throws {
        try database.create(table: "passages", of: Passage.self)
        try database.insert(objects: [Passage(1, "梅雨", "梅雨の時期は六月から七月。"), Passage(2, "すし", "すしは日本の料理です。"),
                                      Passage(3, "雨", "雨の日が多い。")], intoTable: "passages")
        try database.create(virtualTable: "passages_fts", of: PassageIndex.self, syncedWith: "passages")
        func expression(_ text: String, in index: String = "passages_fts") throws -> String {
            try database.expression(for: SearchQuery(text, mode: .anyTerm), in: index) ?? ""
        }
        // の and は alone are left out; the pairs holding them stay, as do kanji alone.
        XCTAssertEqual(try expression("梅雨の期間は"), "(\"梅雨\" OR \"雨の\" OR \"の期\" OR \"期間\" OR \"間は\" OR \"梅\" OR \"雨\" OR \"期\" OR \"間\")")
        // Katakana alone (and ー) too: a word in katakana is searched by its pairs.
        XCTAssertEqual(try expression("ラーメン"), "(\"ラー\" OR \"ーメ\" OR \"メン\")")
        XCTAssertEqual(try expression("ラーメンの"), "(\"ラー\" OR \"ーメ\" OR \"メン\" OR \"ンの\")")
        XCTAssertEqual(try expression("ラ"), "(\"ラ\")")
        // A word in hiragana is still searched by its pairs, and found; a question of single hiragana keeps them.
        XCTAssertEqual(try expression("すし"), "(\"すし\")")
        XCTAssertEqual(try database.search(SearchQuery("すしの作り方", mode: .anyTerm), in: "passages_fts", of: Passage.self).hits.first?.object.id, 2)
        XCTAssertEqual(try expression("の"), "(\"の\")")
        XCTAssertEqual(try ids(SearchQuery("の", mode: .anyTerm)), [1, 2, 3])
        // Between words of other scripts too; the other modes keep every character.
        XCTAssertEqual(try expression("SQLite の index"), "(\"SQLite\" OR \"index\")")
        XCTAssertEqual(try database.expression(for: SearchQuery("梅雨の"), in: "passages_fts"), "(\"梅雨の\")")
        // `stem none` processes no language: the question keeps every character.
        try database.create(virtualTable: "passages_plain", of: PassageIndex.self, syncedWith: "passages", tokenizer: "sift_icu stem none")
        XCTAssertTrue(try expression("梅雨の", in: "passages_plain").contains("\"の\""))
    }

    func testFeedbackLeavesCJKQuestionsAlone() throws {
        try database.create(table: "passages", of: Passage.self)
        try database.insert(objects: [Passage(1, "北京", "北京大学 NBA 北京"), Passage(2, "NBA", "NBA basketball")], intoTable: "passages")
        try database.create(virtualTable: "passages_fts", of: PassageIndex.self, syncedWith: "passages")
        let options = SearchOptions(feedback: .rm3)
        let cjk = try database.search(SearchQuery("北京", mode: .anyTerm), in: "passages_fts", of: Passage.self, options: options)
        XCTAssertEqual(cjk.expression, try database.expression(for: SearchQuery("北京", mode: .anyTerm), in: "passages_fts"))
        XCTAssertEqual(cjk.hits.map(\.object.id), [1])
        let latin = try database.search(SearchQuery("nba", mode: .anyTerm), in: "passages_fts", of: Passage.self, options: options)
        XCTAssertNotEqual(latin.expression, try database.expression(for: SearchQuery("nba", mode: .anyTerm), in: "passages_fts"),
                          "a Latin question takes feedback words")
    }
}
