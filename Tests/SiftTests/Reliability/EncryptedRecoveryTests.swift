import Foundation
import XCTest
@testable import Sift

/// Recovery of encrypted databases: pages authenticated and decrypted with the key before they are read.
final class EncryptedRecoveryTests: SiftTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireEncryption()
    }

    /// Raw keys skip the 256,000-iteration KDF (as in CipherTests).
    static let key = Data((0..<32).map { UInt8($0) &* 7 &+ 3 })
    static let otherKey = Data((0..<32).map { UInt8($0) &* 11 &+ 5 })
    static let salt = Data((0..<16).map { UInt8($0) &* 13 &+ 1 })

    /// A synced database of `rows` articles (every 40th long enough for overflow pages), closed; with `salt`, the
    /// key is given with it. Returns the articles as written.
    private func makeSample(_ name: String, rows: Int = 600, key: Data? = EncryptedRecoveryTests.key,
                            salt: Data? = nil) throws -> (path: String, articles: [Int: Article]) {
        let database = makeDatabase(name)
        if let key { try database.setCipherKey(rawKey: key, salt: salt) }
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        var generator = SplitMix(seed: 21)
        let words = ["harbor", "lantern", "meadow", "copper", "violet", "granite", "willow", "ember", "tundra", "saffron"]
        var articles: [Int: Article] = [:]
        for id in 1...rows {
            let count = id % 40 == 0 ? 2_500 : 8 + Int(generator.next() % 30)
            let body = (0..<count).map { _ in words[Int(generator.next() % UInt64(words.count))] }.joined(separator: " ")
            articles[id] = Article(id, "title \(id)", body, views: Int(generator.next() % 1000))
        }
        try database.insert(objects: articles.keys.sorted().compactMap { articles[$0] }, intoTable: "articles")
        database.close()
        return (database.path, articles)
    }

    /// The leaf pages of `table` with their cell counts, read through SQLite with the key.
    private func leaves(of table: String, in path: String, salt: Data? = nil) throws -> [(page: Int, cells: Int)] {
        let database = Database(withPath: path)
        defer { database.close() }
        try database.setCipherKey(rawKey: Self.key, salt: salt)
        return try database.getRows(sql: "SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno",
                                    values: [table]).map { (Int($0[0].int64Value), Int($0[1].int64Value)) }
    }

    /// Overwrites `pages` (1-based) of the file at `path` with seeded garbage.
    private func damage(_ path: String, pages: [Int], pageSize: Int = 4096) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var generator = SplitMix(seed: 5)
        for page in pages {
            for i in (page - 1) * pageSize..<page * pageSize { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The recovered articles, each checked against the one written.
    private func assertFaithful(_ recovered: Database, _ articles: [Int: Article], file: StaticString = #filePath,
                                line: UInt = #line) throws -> Int {
        let rows = try recovered.getRows(sql: "SELECT id, title, body, views FROM articles")
        for row in rows {
            let original = articles[Int(row[0].int64Value)]
            XCTAssertEqual(row[1].stringValue, original?.title, file: file, line: line)
            XCTAssertEqual(row[2].stringValue, original?.body, file: file, line: line)
            XCTAssertEqual(Int(row[3].int64Value), original?.views, file: file, line: line)
        }
        let verification = try recovered.verify(index: "articles_fts")
        XCTAssertTrue(verification.isConsistent, "\(verification)", file: file, line: line)
        XCTAssertEqual(verification.indexedRows, rows.count, file: file, line: line)
        return rows.count
    }

    func testDamagedEncryptedPagesAreDecryptedWithTheKeyAndTheRestRecovered() throws {
        let (path, articles) = try makeSample("encrypted.db")
        let leaves = try leaves(of: "articles", in: path)
        XCTAssertGreaterThan(leaves.count, 6)
        let destroyed = [leaves[2], leaves[leaves.count / 2]]
        try damage(path, pages: destroyed.map(\.page))

        let recovered = makeDatabase("recovered.db")
        try recovered.setCipherKey(rawKey: Self.otherKey)
        let report = try Database.recover(from: path, into: recovered, key: .rawKey(Self.key))
        XCTAssertEqual(report.method, .pages)
        // Pages failing their HMAC are lost pages (and so are the overflow pages only they pointed to).
        XCTAssertTrue(Set(destroyed.map(\.page)).isSubset(of: report.lostPages), "\(report.lostPages)")
        let expected = articles.count - destroyed.reduce(0) { $0 + $1.cells }
        XCTAssertEqual(report.tables.first { $0.name == "articles" }?.rowsRecovered, expected)
        XCTAssertEqual(report.rebuiltIndexes, ["articles_fts"])
        XCTAssertEqual(try assertFaithful(recovered, articles), expected)
        recovered.close()

        // The destination kept its own key: encrypted, and read with that key only.
        let header = try XCTUnwrap(FileHandle(forReadingAtPath: recovered.path)?.read(upToCount: 16))
        XCTAssertNotEqual(header, Data("SQLite format 3\0".utf8))
        let reopened = makeDatabase("recovered.db")
        try reopened.setCipherKey(rawKey: Self.otherKey)
        XCTAssertEqual(try reopened.getRows(sql: "SELECT count(*) FROM articles")[0][0].int64Value, Int64(expected))
    }

    func testADestroyedLeafLosesItsRowsAsInThePlainEquivalent() throws {
        // The encrypted file's pages hold 80 bytes less, so its layout differs: compare rows per destroyed leaf.
        let (plainPath, articles) = try makeSample("plain.db", key: nil)
        let plainDatabase = makeDatabase("plain.db")
        let plainLeaves = try plainDatabase.getRows(sql: "SELECT pageno, ncell FROM dbstat WHERE name = 'articles' AND pagetype = 'leaf' ORDER BY pageno")
            .map { (page: Int($0[0].int64Value), cells: Int($0[1].int64Value)) }
        plainDatabase.close()
        try damage(plainPath, pages: [plainLeaves[2].page])
        let plain = try Database.recover(from: plainPath, into: makeDatabase("plain-recovered.db"))

        let (path, _) = try makeSample("encrypted.db")
        let leaves = try leaves(of: "articles", in: path)
        try damage(path, pages: [leaves[2].page])
        let encrypted = try Database.recover(from: path, into: makeDatabase("recovered.db"), key: .rawKey(Self.key))
        XCTAssertTrue(plain.lostPages.contains(plainLeaves[2].page))
        XCTAssertTrue(encrypted.lostPages.contains(leaves[2].page))
        XCTAssertEqual(plain.tables.first { $0.name == "articles" }?.rowsRecovered, articles.count - plainLeaves[2].cells)
        XCTAssertEqual(encrypted.tables.first { $0.name == "articles" }?.rowsRecovered, articles.count - leaves[2].cells)
    }

    /// The one test that pays the passphrase's key derivation (once to write, once to recover).
    func testAPassphraseReadsTheDamagedPages() throws {
        let passphrase = Data("correct horse battery staple".utf8)
        let database = makeDatabase("encrypted.db")
        try database.setCipherKey(passphrase)
        try database.create(table: "articles", of: Article.self)
        try database.insert(objects: (1...400).map { (i: Int) in Article(i, "title \(i)", "body \(i)") }, intoTable: "articles")
        let leaf = try database.getRows(sql: "SELECT pageno, ncell FROM dbstat WHERE name = 'articles' AND pagetype = 'leaf' ORDER BY pageno")[1]
        database.close()
        try damage(database.path, pages: [Int(leaf[0].int64Value)])
        let report = try Database.recover(from: database.path, into: makeDatabase("recovered.db"), key: .passphrase(passphrase))
        XCTAssertEqual(report.method, .pages)
        XCTAssertEqual(report.lostPages, [Int(leaf[0].int64Value)])
        XCTAssertEqual(report.rowsRecovered, 400 - Int(leaf[1].int64Value))
    }

    func testAnIntactEncryptedFileIsCopiedThroughSQLite() throws {
        let (path, articles) = try makeSample("encrypted.db")
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: path, into: recovered, key: .rawKey(Self.key))
        XCTAssertEqual(report.method, .sqlite)
        XCTAssertEqual(report.lostPages, [])
        XCTAssertEqual(try assertFaithful(recovered, articles), articles.count)
        XCTAssertFalse(recovered.isEncrypted, "the destination is written as configured: plain here")
    }

    func testUncheckpointedWALFramesAreDecryptedAndApplied() throws {
        let database = makeDatabase("encrypted.db")
        try database.setCipherKey(rawKey: Self.key)
        try database.create(table: "articles", of: Article.self)
        try database.insert(objects: (1...300).map { (i: Int) in Article(i, "title \(i)", "body \(i)") }, intoTable: "articles")
        try database.exec(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        try database.insert(objects: (301...320).map { (i: Int) in Article(i, "title \(i)", "body \(i)") }, intoTable: "articles")
        let first = try database.getRows(sql: "SELECT pageno, ncell FROM dbstat WHERE name = 'articles' AND pagetype = 'leaf' ORDER BY pageno")[0]
        // What a crash leaves: the file and its WAL copied while open; only the WAL holds the last rows.
        let copy = path("copy.db")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: database.path + suffix, toPath: copy + suffix) }
        database.close()
        XCTAssertGreaterThan(try FileManager.default.attributesOfItem(atPath: copy + "-wal")[.size] as? Int ?? 0, 0)
        try damage(copy, pages: [Int(first[0].int64Value)])

        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: copy, into: recovered, key: .rawKey(Self.key))
        XCTAssertEqual(report.method, .pages)
        XCTAssertEqual(report.tables.first { $0.name == "articles" }?.rowsRecovered, 320 - Int(first[1].int64Value))
        XCTAssertEqual(try recovered.getRows(sql: "SELECT count(*) FROM articles WHERE id > 300")[0][0].int64Value, 20,
                       "the rows only the WAL holds")
    }

    func testADestroyedSaltNeedsARawKeyWithItsSalt() throws {
        let (path, _) = try makeSample("encrypted.db", salt: Self.salt)
        try damage(path, pages: [1])
        XCTAssertThrowsError(try Database.recover(from: path, into: makeDatabase("a.db"), key: .rawKey(Self.key))) { error in
            XCTAssertEqual((error as? SiftError)?.cipherFailure, .wrongKey)
            XCTAssertTrue((error as? SiftError)?.message.contains("salt") == true, "\(error)")
        }
        let report = try Database.recover(from: path, into: makeDatabase("b.db"), key: .rawKey(Self.key, salt: Self.salt))
        XCTAssertEqual(report.method, .pages)
        XCTAssertEqual(report.lostPages, [1])
        // The schema was on page 1 and an encrypted database keeps no backup: the rows are read, but match no table.
        XCTAssertGreaterThan(report.unassignedRows, 0)
    }

    /// Random pages pass the page reader's check about once in 70,000: an encrypted file with one such page still
    /// reads as encrypted (without a key, recovery says a key is missing rather than recovering random bytes), and a
    /// plain file without its header still does not.
    func testAnEncryptedFileWithAPageThatReadsAsABTreePageStillLooksEncrypted() throws {
        var generator = SplitMix(seed: 0xC1F)
        var bytes = (0..<(200 * 4096)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let leaf = 57 * 4096                         // page 58 reads as an empty table leaf: type 13, no cells
        bytes.replaceSubrange(leaf..<leaf + 8, with: [0x0D, 0, 0, 0, 0, 0x10, 0, 0])
        let file = PageFile(bytes: bytes, fallbackPageSize: 4096)
        XCTAssertEqual(file.kind(of: 58), .tableLeaf)
        XCTAssertTrue(file.looksEncrypted)

        let (plain, _) = try makeSample("plain.db", key: nil)
        var plainBytes = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: plain)))
        plainBytes.replaceSubrange(0..<100, with: [UInt8](repeating: 0, count: 100))
        XCTAssertFalse(PageFile(bytes: plainBytes, fallbackPageSize: 4096).looksEncrypted)
    }

    func testWrongMissingAndUnneededKeysAreTypedErrors() throws {
        let (path, _) = try makeSample("encrypted.db")
        try damage(path, pages: [3])
        XCTAssertThrowsError(try Database.recover(from: path, into: makeDatabase("a.db"), key: .rawKey(Self.otherKey))) {
            XCTAssertEqual(($0 as? SiftError)?.cipherFailure, .wrongKey)
        }
        XCTAssertThrowsError(try Database.recover(from: path, into: makeDatabase("b.db"))) {
            XCTAssertEqual(($0 as? SiftError)?.cipherFailure, .missingKey, "not an empty report: \($0)")
            XCTAssertTrue(($0 as? SiftError)?.message.contains("may be encrypted") == true, "\($0)")
        }
        let (plain, _) = try makeSample("plain.db", key: nil)
        try damage(plain, pages: [3])
        XCTAssertThrowsError(try Database.recover(from: plain, into: makeDatabase("c.db"), key: .rawKey(Self.key))) {
            XCTAssertEqual(($0 as? SiftError)?.cipherFailure, .notEncrypted)
        }
        XCTAssertThrowsError(try Database.recover(from: path, into: makeDatabase("d.db"), key: .rawKey(Data(count: 3))))
    }
}
