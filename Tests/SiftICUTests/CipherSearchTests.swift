import Foundation
import XCTest
import Sift
import SiftICU

/// A synced FTS5 index with the sift_icu tokenizer on an encrypted database: search works, nothing readable on disk.
final class CipherSearchTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-icu-cipher-\(UUID().uuidString)")
        try XCTSkipUnless(Database.isEncryptionAvailable, "Sift was built without the Encryption trait")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    func open() throws -> Database {
        let database = Database(withPath: directory.appendingPathComponent("p.db").path)
        try database.setCipherKey(rawKey: Data(repeating: 0x5a, count: 32))
        database.registerICUTokenizer()
        return database
    }

    func testSyncedICUIndexRoundTripsEncrypted() throws {
        let database = try open()
        try database.create(table: "passages", of: Passage.self)
        try database.create(virtualTable: "passages_fts", of: PassageIndex.self, syncedWith: "passages")
        try database.insert(objects: [
            Passage(1, "天安门", "天安门位于北京市中心，是中华人民共和国的象征。"),
            Passage(2, "北京大学", "北京大学创办于1898年，是中国近代第一所国立综合性大学。"),
            Passage(3, "SQLite", "SQLite is a small, fast, self-contained SQL database engine."),
        ] + (4...300).map { Passage($0, "filler \($0)", "quokka \($0) 北京") }, intoTable: "passages")
        func ids(_ text: String) throws -> [Int] {
            try database.search(SearchQuery(text), in: "passages_fts", of: Passage.self).hits.map(\.object.id)
        }
        XCTAssertEqual(try ids("天安门"), [1])
        XCTAssertEqual(try ids("sqlite ENGINE"), [3])
        try database.delete(fromTable: "passages", where: Passage.Properties.id == 3)
        XCTAssertEqual(try ids("sqlite"), [], "the synced index follows the content table")
        XCTAssertEqual(try database.verify(index: "passages_fts").isConsistent, true)
        database.close()

        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            for needle in ["天安门", "quokka", "sift_icu", "passages"] {
                XCTAssertNil(data.range(of: Data(needle.utf8)), "\(needle) readable in \(name)")
            }
        }
        let reopened = try open()
        XCTAssertEqual(try reopened.search(SearchQuery("北京大学"), in: "passages_fts", of: Passage.self).hits.map(\.object.id), [2])
        XCTAssertFalse(try reopened.search(SearchQuery("quokka"), in: "passages_fts", of: Passage.self).hits.isEmpty)
        // A new key for the whole file, sift_icu index included (exported with VACUUM INTO).
        try reopened.rekey(Data("new passphrase".utf8))
        XCTAssertEqual(try reopened.search(SearchQuery("天安门"), in: "passages_fts", of: Passage.self).hits.map(\.object.id), [1])
        XCTAssertEqual(try reopened.verify(index: "passages_fts").isConsistent, true)
    }
}
