import Foundation
import XCTest
import Sift
import SiftICU

final class Passage: TableCodable {
    var id: Int = 0
    var title: String = ""
    var text: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Passage
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, text
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ id: Int, _ title: String, _ text: String) { self.id = id; self.title = title; self.text = text }
}

final class PassageIndex: TableCodable {
    var title: String = ""
    var text: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = PassageIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, text
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "sift_icu"))
        }
    }
}

/// The search API over the ICU tokenizer: the query builder splits user text with the same tokenizer.
final class ICUSearchAPITests: XCTestCase {
    var database: Database!
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-icu-api-\(UUID().uuidString)")
        database = Database(withPath: directory.appendingPathComponent("p.db").path)
        database.registerICUTokenizer()
        try database.create(table: "passages", of: Passage.self)
        try database.create(virtualTable: "passages_fts", of: PassageIndex.self, syncedWith: "passages")
        try database.insert(objects: [
            Passage(1, "天安门", "天安门位于北京市中心，是中华人民共和国的象征。"),
            Passage(2, "北京大学", "北京大学创办于1898年，是中国近代第一所国立综合性大学。"),
            Passage(3, "会议", "今天安排了三个会议，北京的同事也会参加。"),
            Passage(4, "東京タワー", "東京タワーは東京都港区にある電波塔で、1958年に完成した。"),
            Passage(5, "서울", "서울특별시는 대한민국의 수도이다."),
            Passage(6, "SQLite", "SQLite is a small, fast, self-contained SQL database engine."),
        ], intoTable: "passages")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    private func ids(_ query: SearchQuery) throws -> [Int] {
        try database.search(query, in: "passages_fts", of: Passage.self).hits.map(\.object.id)
    }

    func testSuggestionsOverTheICUTokenizer() throws {
        // English words are stemmed: completions are shown as a row writes them, corrections too.
        XCTAssertEqual(try database.suggestions(for: "eng", in: "passages_fts").map(\.word), ["engine"])
        XCTAssertEqual(try database.suggestions(for: "sql", in: "passages_fts").map(\.word), ["sql", "sqlite"])
        XCTAssertEqual(try database.correction(for: "fast databse", in: "passages_fts"), "fast database")
        // A CJK run is one word, its last character completed within the run: every completion is a phrase of it.
        let chinese = try database.suggestions(for: "北京大", in: "passages_fts")
        XCTAssertTrue(chinese.map(\.text).contains("北京大"), "\(chinese)")
        XCTAssertTrue(chinese.allSatisfy { $0.text.hasPrefix("北京大") }, "\(chinese)")
        XCTAssertTrue(try database.suggestions(for: "東京タ", in: "passages_fts").allSatisfy { $0.text.hasPrefix("東京") })
        XCTAssertEqual(try database.suggestions(for: "北京大字", in: "passages_fts"), [])
        XCTAssertNil(try database.correction(for: "北京大字", in: "passages_fts"))
        XCTAssertEqual(try database.suggestions(for: "서울특", in: "passages_fts").first?.text.hasPrefix("서울특"), true)
    }

    func testCJKTermsAreContiguousPhrases() throws {
        XCTAssertEqual(Set(try ids(SearchQuery("天安"))), [1, 3], "天安 occurs in 天安门 and in 今天安排")
        XCTAssertEqual(try ids(SearchQuery("天安门 北京")), [1])
        XCTAssertEqual(try ids(SearchQuery("北京大学")), [2], "not 北京 ... 大学 apart")
        XCTAssertEqual(try ids(SearchQuery("タワー")), [4])
        XCTAssertEqual(try ids(SearchQuery("서울")), [5])
        XCTAssertEqual(try ids(SearchQuery("sqlite ENGINE")), [6])
        XCTAssertEqual(try database.expression(for: SearchQuery("北京，大学"), in: "passages_fts"), "(\"北京\" \"大学\")")
    }

    func testQuestionsRankTheAnsweringPassageFirst() throws {
        XCTAssertEqual(try ids(SearchQuery("北京大学是哪一年创办的？", mode: .anyTerm)).first, 2)
        XCTAssertEqual(try ids(SearchQuery("東京タワーはいつ完成しましたか", mode: .anyTerm)).first, 4)
        XCTAssertEqual(try database.expression(for: SearchQuery("天安门", mode: .anyTerm), in: "passages_fts"),
                       "(\"天安\" OR \"安门\" OR \"天\" OR \"安\" OR \"门\")")
    }

    func testWritesElsewhereDoNotNeedTheIndexTokenizer() throws {
        database = nil  // the pool (and its ICU config) goes with the last reference
        let other = Database(withPath: directory.appendingPathComponent("p.db").path)
        // A connection without sift_icu can still write tables the index does not cover.
        XCTAssertNoThrow(try other.exec(sql: "CREATE TABLE notes(x)"))
        XCTAssertNoThrow(try other.exec(sql: "INSERT INTO notes VALUES (1)"))
        XCTAssertThrowsError(try other.insert(objects: Passage(9, "x", "y"), intoTable: "passages"), "the index needs its tokenizer")
        other.registerICUTokenizer()
        XCTAssertEqual(try other.search(SearchQuery("天安门"), in: "passages_fts", of: Passage.self).hits.count, 1,
                       "the failed write left the index consistent")
        XCTAssertTrue(try other.verify(index: "passages_fts").isConsistent)
    }

    func testHighlightsMarkWholeCJKMatches() throws {
        let options = SearchOptions(highlight: ["text"], snippet: ["text"])
        let results = try database.search(SearchQuery("中华人民共和国"), in: "passages_fts", of: Passage.self, options: options)
        XCTAssertEqual(results.hits.first?.highlights["text"], "天安门位于北京市中心，是[中华人民共和国]的象征。")
        XCTAssertTrue(results.hits.first?.snippets["text"]?.contains("[中华人民共和国]") ?? false, results.hits.first?.snippets["text"] ?? "nil")
    }

    func testCJKSnippetsAreSizedInCharactersLikeEveryOtherScript() throws {
        // One token per Han character: a snippet of 16 tokens used to be 16 characters.
        let filler = String(repeating: "每天清晨广场都会举行升旗仪式，游客很多。", count: 8)
        try database.insert(objects: Passage(50, "长文", filler + "故宫博物院收藏了大量珍贵文物。" + filler), intoTable: "passages")
        let options = SearchOptions(snippet: ["text"], snippetLength: 40)
        let results = try database.search(SearchQuery("博物院"), in: "passages_fts", of: Passage.self, options: options)
        let snippet = try XCTUnwrap(results.hits.first { $0.object.id == 50 }?.snippets["text"])
        XCTAssertTrue(snippet.contains("[博物院]") && snippet.hasPrefix("…") && snippet.hasSuffix("…"), snippet)
        let characters = snippet.filter { !"[]…".contains($0) }.count
        XCTAssertTrue((36...40).contains(characters), "\(characters) characters: \(snippet)")
    }
}
