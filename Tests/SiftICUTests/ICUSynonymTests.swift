import Foundation
import XCTest
import Sift
import SiftICU

/// Synonyms over the ICU tokenizer: entries are segmented as queries are, so Chinese (traditional and simplified)
/// and Japanese (script and spelling variants) entries find each other.
final class ICUSynonymTests: XCTestCase {
    var database: Database!
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-icu-synonyms-\(UUID().uuidString)")
        database = Database(withPath: directory.appendingPathComponent("s.db").path)
        database.registerICUTokenizer()
        try database.create(table: "passages", of: Passage.self)
        try database.create(virtualTable: "passages_fts", of: PassageIndex.self, syncedWith: "passages")
        try database.insert(objects: [
            Passage(1, "資料庫", "這個資料庫支援全文檢索。"),
            Passage(2, "数据库", "这个数据库支持全文检索。"),
            Passage(3, "コンピューター", "新しいコンピューターを買った。"),
            Passage(4, "コンピュータ", "古いコンピュータを直した。"),
            Passage(5, "寿司", "東京で寿司を食べた。"),
            Passage(6, "すし", "大阪ですしを食べた。"),
            Passage(7, "Database", "A database engine in one file."),
        ], intoTable: "passages")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    private func ids(_ text: String, mode: SearchQuery.Mode = .allTerms, usesSynonyms: Bool = true) throws -> Set<Int> {
        Set(try database.search(SearchQuery(text, mode: mode), in: "passages_fts", of: Passage.self,
                                options: SearchOptions(usesSynonyms: usesSynonyms)).hits.map(\.object.id))
    }

    func testTraditionalAndSimplifiedChineseFindEachOther() throws {
        XCTAssertEqual(try ids("資料庫"), [1])
        try database.addSynonyms([.equivalent(["資料庫", "数据库"])], to: "passages_fts")
        for mode in [SearchQuery.Mode.allTerms, .anyTerm, .phrase, .prefix] {
            XCTAssertEqual(try ids("資料庫", mode: mode), [1, 2], "\(mode)")
            XCTAssertEqual(try ids("数据库", mode: mode), [1, 2], "\(mode)")
        }
        XCTAssertEqual(try ids("数据库", usesSynonyms: false), [2])
        // A multi-script one-way rule: the Chinese words also find the English one.
        try database.addSynonyms([.oneWay(from: ["資料庫", "数据库"], to: ["database engine"])], to: "passages_fts")
        XCTAssertEqual(try ids("数据库"), [1, 2, 7])
        XCTAssertEqual(try ids("database"), [7], "one way")
    }

    func testJapaneseSpellingVariantsFindEachOther() throws {
        try database.addSynonyms([.equivalent(["コンピュータ", "コンピューター"]), .equivalent(["寿司", "すし"])], to: "passages_fts")
        XCTAssertEqual(try ids("コンピュータ"), [3, 4])
        XCTAssertEqual(try ids("コンピューター"), [3, 4])
        XCTAssertEqual(try ids("寿司"), [5, 6])
        XCTAssertEqual(try ids("すし"), [5, 6])
        XCTAssertEqual(try ids("寿司 東京"), [5])
    }
}
