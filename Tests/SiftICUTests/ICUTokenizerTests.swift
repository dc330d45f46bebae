import Foundation
import XCTest
import Sift
import SiftICU

final class ICUTokenizerTests: XCTestCase {
    private func tokens(_ text: String, _ arguments: [String] = [], reason: TokenizeReason = .document) throws -> [String] {
        try ICUTokenizer(arguments: arguments).tokenize(text, reason: reason).map { "\($0.isColocated ? "+" : "")\($0.text)@\($0.start)-\($0.end)" }
    }

    func testChineseIsIndexedPerCharacterWithRunSeparators() throws {
        XCTAssertEqual(try tokens("北京大学"), ["北@0-3", "京@3-6", "大@6-9", "学@9-12"])
        XCTAssertEqual(try tokens("我爱北京，天安门。"), ["我@0-3", "爱@3-6", "北@6-9", "京@9-12", "|@12-15", "天@15-18", "安@18-21", "门@21-24"])
        XCTAssertEqual(try tokens("一切 abc 中文"), ["一@0-3", "切@3-6", "abc@7-10", "中@11-14", "文@14-17"])
        // In a query the separator is there for the positions only: it covers no text, so it is no query term.
        XCTAssertEqual(try tokens("北京，天安门", reason: .query), ["北@0-3", "京@3-6", "|@6-6", "天@9-12", "安@12-15", "门@15-18"])
    }

    func testTraditionalJapaneseKoreanThai() throws {
        XCTAssertEqual(try tokens("臺灣大學", ["traditional_to_simplified", "1"]), ["台@0-3", "湾@3-6", "大@6-9", "学@9-12"])
        XCTAssertEqual(try tokens("東京タワー").count, 5)
        XCTAssertEqual(try tokens("ｶﾞｷﾞ"), ["ガ@0-6", "ギ@6-12"])
        XCTAssertEqual(try tokens("서울특별시에서").count, 7)
        XCTAssertEqual(try tokens("ภาษาไทยง่ายนิดเดียว"), ["ภาษา@0-12", "ไทย@12-21", "ง่าย@21-33", "นิด@33-42", "เดียว@42-57"])
    }

    func testLatinFoldingAndNormalization() throws {
        XCTAssertEqual(try tokens("İstanbul ＡＢＣ１２３ café Ñandú"), ["istanbul@0-9", "abc123@10-28", "cafe@29-34", "nandu@35-42"])
        XCTAssertEqual(try tokens("café İstanbul", ["remove_diacritics", "0"]), ["café@0-5", "istanbul@6-15"])
        XCTAssertEqual(try tokens("iPhone手机壳"), ["iphone@0-6", "手@6-9", "机@9-12", "壳@12-15"])
        XCTAssertTrue(try tokens("user@example.com 3.14").contains("3.14@17-21"))
    }

    func testPinyinAndWords() throws {
        let pinyin = try tokens("北京大学女", ["pinyin", "1"])
        XCTAssertTrue(pinyin.contains("+beijing@0-6") && pinyin.contains("+bj@0-6"), "\(pinyin)")
        XCTAssertEqual(try ICUTokenizer(arguments: ["cjk", "words"]).tokenize("北京大学生活在哪里？").map(\.text), ["北京", "大学", "生活", "在", "哪里"])
    }

    func testHostileInput() throws {
        let tokenizer = try ICUTokenizer()
        var collected: [Token] = []
        try tokenizer.tokenize(Data([0x61, 0xFF, 0x62]), reason: .document) { collected.append($0) }
        XCTAssertEqual(collected.map { "\($0.text)@\($0.start)-\($0.end)" }, ["a@0-1", "b@2-3"])
        XCTAssertEqual(try tokens("ab\u{0}cd"), ["ab@0-2", "cd@3-5"])
        XCTAssertEqual(try tokens(""), [])
        XCTAssertThrowsError(try ICUTokenizer(arguments: ["nope", "1"]))
        XCTAssertThrowsError(try ICUTokenizer(arguments: ["cjk"]))
        let big = String(repeating: "混合 mixed テキスト text ", count: 100_000)  // ~3 MB
        var count = 0
        try tokenizer.tokenize(Data(big.utf8), reason: .document) { token in
            count += 1
            XCTAssertLessThanOrEqual(token.end, big.utf8.count)
        }
        XCTAssertGreaterThan(count, 100_000)
    }
}

final class ICUSearchTests: XCTestCase {
    var directory: URL!
    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-icu-\(UUID().uuidString)")
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    private func database(_ tokenize: String = "sift_icu") throws -> Database {
        let database = Database(withPath: directory.appendingPathComponent("icu.db").path)
        database.registerICUTokenizer()
        try database.exec(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='\(tokenize)')")
        for body in ["我爱北京天安门", "今天安排了会议", "我是中国人", "中华人民共和国成立", "一切都好", "一，切", "東京タワーに行きました",
                     "서울특별시에서 만나요", "İstanbul ＡＢＣ café", "北京欢迎你"] {
            try database.exec(sql: "INSERT INTO docs(body) VALUES(?)", values: [body])
        }
        return database
    }

    private func match(_ database: Database, _ query: String) throws -> [String] {
        try database.getRows(sql: "SELECT highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH ? ORDER BY rowid", values: [query])
            .map { $0[0].stringValue }
    }

    func testSubstringsMatchExactlyAndHighlightWholeMatches() throws {
        let database = try database()
        XCTAssertEqual(try match(database, "\"天安\""), ["我爱北京[天安]门", "今[天安]排了会议"], "every contiguous occurrence, whole")
        XCTAssertEqual(try match(database, "\"中华国\""), [], "no false multi-character match")
        XCTAssertEqual(try match(database, "\"我是人\""), [])
        XCTAssertEqual(try match(database, "\"中国人\""), ["我是[中国人]"])
        XCTAssertEqual(try match(database, "\"一切\""), ["[一切]都好"], "punctuation breaks adjacency")
        XCTAssertEqual(try match(database, "\"タワー\""), ["東京[タワー]に行きました"])
        XCTAssertEqual(try match(database, "\"서울\""), ["[서울]특별시에서 만나요"])
        XCTAssertEqual(try match(database, "istanbul AND abc AND cafe"), ["[İstanbul] [ＡＢＣ] [café]"])
    }

    func testPhrasesCopiedWithPunctuationFindTheirText() throws {
        let database = try database()
        XCTAssertEqual(try match(database, "\"一，切\""), ["[一，切]"])
        XCTAssertEqual(try match(database, "\"一 切\""), ["[一，切]"], "any gap of punctuation or spaces is one position")
        let phrase = try XCTUnwrap(try database.expression(for: SearchQuery("一，切", mode: .phrase), in: "docs"))
        XCTAssertEqual(phrase, "(\"一 切\")")
        XCTAssertEqual(try match(database, phrase), ["[一，切]"])
        XCTAssertEqual(try database.expression(for: SearchQuery("一，切"), in: "docs"), "(\"一\" \"切\")", "the separator is no term")
    }

    func testICUTokenizerGivesTheTokensFTS5Gets() throws {
        let database = try database()
        for text in ["我爱北京，天安门。iPhone手机壳 3.14", "東京タワーに行きました", "İstanbul ＡＢＣ café"] {
            for (arguments, reason) in [([], TokenizeReason.document), ([], .query), (["pinyin", "1"], .document)] {
                XCTAssertEqual(try ICUTokenizer(arguments: arguments).tokenize(text, reason: reason),
                               try database.tokenize(text, with: ["sift_icu"] + arguments, reason: reason), "\(text) \(reason)")
            }
        }
    }

    func testPinyinAndTraditionalOptionsThroughFTS5() throws {
        let pinyin = try database("sift_icu pinyin 1")
        XCTAssertEqual(try match(pinyin, "beijing").count, 2)
        XCTAssertEqual(try match(pinyin, "bj").count, 2)
        let folded = Database(withPath: directory.appendingPathComponent("tw.db").path)
        folded.registerICUTokenizer()
        try folded.exec(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='sift_icu traditional_to_simplified 1')")
        try folded.exec(sql: "INSERT INTO docs(body) VALUES('台湾的夜市'), ('臺灣大學')")
        XCTAssertEqual(try match(folded, "\"臺灣\"").count, 2)
        XCTAssertEqual(try match(folded, "\"台湾\"").count, 2)
    }

    func testBadTokenizerArgumentsAreTypedErrors() throws {
        let database = Database(withPath: directory.appendingPathComponent("bad.db").path)
        database.registerICUTokenizer()
        XCTAssertThrowsError(try database.exec(sql: "CREATE VIRTUAL TABLE t USING fts5(body, tokenize='sift_icu nope 1')")) {
            XCTAssertEqual(($0 as? SiftError)?.code, .error)
        }
    }
}
