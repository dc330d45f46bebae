import Foundation
import XCTest
@testable import Sift

/// Encryption: SQLCipher 4 format pages through the cipher VFS; typed errors for keys and tampering.
final class CipherTests: SiftTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireEncryption()
    }

    typealias Sample = CRUD.Sample

    /// Raw keys skip the 256,000-iteration KDF, which keeps these tests fast; one test uses a passphrase.
    static let key = Data((0..<32).map { UInt8($0) &* 7 &+ 3 })
    static let otherKey = Data((0..<32).map { UInt8($0) &* 11 &+ 5 })

    func makeEncrypted(_ name: String = "test.db", key: Data = CipherTests.key) throws -> Database {
        let database = makeDatabase(name)
        try database.setCipherKey(rawKey: key)
        return database
    }

    func samples(_ range: ClosedRange<Int>, text: (Int) -> String = { "row \($0)" }) -> [Sample] {
        range.map { i in let s = Sample(); s.identifier = i; s.description = text(i); return s }
    }

    /// Every file of the database folder (main file, WAL, shared memory, journal) as bytes.
    func filesOnDisk() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    func assertNoPlaintext(_ needle: String, _ moment: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = Data(needle.utf8)
        let files = try filesOnDisk()
        XCTAssertFalse(files.isEmpty, file: file, line: line)
        for (name, data) in files {
            XCTAssertNil(data.range(of: bytes), "\(needle) in plaintext in \(name) \(moment)", file: file, line: line)
            XCTAssertNil(data.range(of: Data("CREATE TABLE".utf8)), "schema in plaintext in \(name) \(moment)", file: file, line: line)
        }
    }

    func testRoundTripThroughTheORMAndEveryConnection() throws {
        let database = try makeEncrypted()
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...500), intoTable: "sampleTable")
        // Readers on other threads open connections of their own, all through the key.
        let groups = (0..<4).map { _ in
            spawn {
                let rows: [Sample]? = try? database.getObjects(fromTable: "sampleTable")
                XCTAssertEqual(rows?.count, 500)
            }
        }
        groups.forEach { $0.wait() }
        database.close()

        let reopened = try makeEncrypted()
        let rows: [Sample] = try reopened.getObjects(fromTable: "sampleTable", orderBy: [Sample.Properties.identifier.asOrder(by: .ascending)])
        XCTAssertEqual(rows.map(\.identifier), Array(1...500))
        XCTAssertEqual(rows.last?.description, "row 500")
        XCTAssertTrue(reopened.isEncrypted)
        let header = try XCTUnwrap(FileHandle(forReadingAtPath: reopened.path)?.read(upToCount: 16))
        XCTAssertNotEqual(header, Data("SQLite format 3\0".utf8), "the file starts with the salt, not SQLite's header")
    }

    func testPassphraseAndSQLCipherRawKeyString() throws {
        let database = makeDatabase()
        try database.setCipherKey(Data("correct horse battery staple".utf8))
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...3), intoTable: "sampleTable")
        database.close()
        let wrong = makeDatabase()
        try wrong.setCipherKey(Data("correct horse battery stapler".utf8))
        XCTAssertThrowsError(try wrong.getRows(sql: "SELECT count(*) FROM sampleTable")) { error in
            XCTAssertEqual((error as? SiftError)?.cipherFailure, .wrongKey, "\(error)")
        }
        try wrong.setCipherKey(Data("correct horse battery staple".utf8))
        XCTAssertEqual(try wrong.getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 3)
        // Many connections (readers on several threads, the writer), one key derivation.
        let readers = (0..<6).map { _ in
            spawn { _ = try? wrong.getRows(sql: "SELECT count(*) FROM sampleTable, sampleTable AS b") }
        }
        try wrong.insert(objects: samples(4...4), intoTable: "sampleTable")
        readers.forEach { $0.wait() }
        XCTAssertEqual(wrong.cipherKeyDerivations, 1, "the KDF ran once for the Database, not once per connection")

        // SQLCipher's x'...' passphrase is the raw key.
        let raw = try makeEncrypted("raw.db")
        try raw.create(table: "sampleTable", of: Sample.self)
        raw.close()
        let hex = Self.key.map { String(format: "%02x", $0) }.joined()
        let viaString = makeDatabase("raw.db")
        try viaString.setCipherKey(Data("x'\(hex)'".utf8))
        XCTAssertNoThrow(try viaString.getRows(sql: "SELECT count(*) FROM sampleTable"))
    }

    func testNoPlaintextOnDiskInFileOrWALBeforeAndAfterCheckpoint() throws {
        let database = try makeEncrypted()
        let needle = "zebra-\(UUID().uuidString)"
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...300) { "\(needle) \($0)" }, intoTable: "sampleTable")
        XCTAssertGreaterThan(try filesOnDisk()["test.db-wal"]?.count ?? 0, 0, "the rows are in the WAL")
        try assertNoPlaintext(needle, "before the checkpoint")
        try database.exec(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        try assertNoPlaintext(needle, "after the checkpoint")
        // A rollback journal (kept after commit with journal_mode=PERSIST) is encrypted too.
        database.removeConfig(named: Database.journalModeConfigName)
        database.close()
        database.setConfig(named: "persist") { try $0.exec(sql: "PRAGMA journal_mode=PERSIST") }
        try database.update(table: "sampleTable", on: [Sample.Properties.description], with: ["\(needle) updated"])
        XCTAssertGreaterThan(try filesOnDisk()["test.db-journal"]?.count ?? 0, 0, "a rollback journal was written")
        try assertNoPlaintext(needle, "with a rollback journal")
        database.close()
        try assertNoPlaintext(needle, "after close")
    }

    func testRollbackJournalRestoresPagesOnRollback() throws {
        let database = try makeEncrypted()
        database.removeConfig(named: Database.journalModeConfigName)
        database.setConfig(named: "delete") { try $0.exec(sql: "PRAGMA journal_mode=DELETE") }
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...200), intoTable: "sampleTable")
        struct Abort: Error {}
        XCTAssertThrowsError(try database.run(transaction: {
            try database.delete(fromTable: "sampleTable")
            throw Abort()
        }))
        database.close()
        let reopened = try makeEncrypted()
        let rows: [Sample] = try reopened.getObjects(fromTable: "sampleTable")
        XCTAssertEqual(rows.count, 200)
    }

    /// What a crash leaves: the main file and a WAL never checkpointed (copied while the writer has them open),
    /// without the shared memory, so the next open recovers the WAL through the key.
    func testUncheckpointedWALIsRecoveredAfterACrash() throws {
        let database = try makeEncrypted()
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...100), intoTable: "sampleTable")
        try database.insert(objects: samples(101...120), intoTable: "sampleTable")
        let copy = directory.appendingPathComponent("copy", isDirectory: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: database.path + suffix, toPath: copy.appendingPathComponent("test.db" + suffix).path)
        }
        XCTAssertGreaterThan(try FileManager.default.attributesOfItem(atPath: database.path + "-wal")[.size] as? Int ?? 0, 0)
        let recovered = Database(withPath: copy.appendingPathComponent("test.db").path)
        try recovered.setCipherKey(rawKey: Self.key)
        XCTAssertEqual(try recovered.getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 120)
    }

    func testWrongKeyIsTypedAndChangesNothing() throws {
        let database = try makeEncrypted()
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...50), intoTable: "sampleTable")
        database.close()
        let before = try filesOnDisk()

        let wrong = try makeEncrypted(key: Self.otherKey)
        XCTAssertThrowsError(try wrong.getRows(sql: "SELECT count(*) FROM sampleTable")) { error in
            let error = error as? SiftError
            XCTAssertEqual(error?.cipherFailure, .wrongKey, "\(String(describing: error))")
            XCTAssertEqual(error?.code, .notADatabase)
            XCTAssertEqual(error?.isCorruption, false, "a wrong key is no reason to recover the file")
            XCTAssertEqual(error?.path, wrong.path)
            XCTAssertTrue(error?.message.contains(wrong.path) ?? false)
        }
        XCTAssertThrowsError(try wrong.insert(objects: samples(51...51), intoTable: "sampleTable"))
        wrong.close()
        XCTAssertEqual(try filesOnDisk(), before, "a wrong key wrote nothing")

        let right = try makeEncrypted()
        XCTAssertEqual(try right.getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 50)
    }

    /// verify(index:) on a connection that may not write checks a copy of the database: for an encrypted database
    /// that copy is kept in memory, never in a plaintext temporary file.
    func testVerifyOfAnEncryptedDatabaseThatMayNotWriteChecksACopyInMemory() throws {
        XCTAssertEqual(Database.verificationCopyPath(encrypted: true), ":memory:")
        XCTAssertEqual(Database.verificationCopyPath(encrypted: false), "")
        let database = try makeEncrypted()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: (1...200).map { Article($0, "title \($0)", "secret body \($0)", views: $0) },
                            intoTable: "articles")
        database.setConfig(named: "test.queryOnly", with: { try $0.exec(sql: "PRAGMA query_only=1") }, orderBy: 200)
        let verification = try database.verify(index: "articles_fts")
        XCTAssertTrue(verification.isConsistent, verification.description)
        XCTAssertEqual(verification.indexedRows, 200)
    }

    func testAnEncryptedDatabaseWritesNoPlaintextBackup() throws {
        let database = try makeEncrypted()
        try database.create(table: "sampleTable", of: Sample.self)
        XCTAssertThrowsError(try database.backup()) { error in
            XCTAssertEqual((error as? SiftError)?.code, .misuse)
            XCTAssertEqual((error as? SiftError)?.path, database.path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: database.backupPath))
        try assertNoPlaintext("sampleTable", "after a refused backup")
    }

    func testMissingKeyAndKeyForPlainFileAreTyped() throws {
        let encrypted = try makeEncrypted("encrypted.db")
        try encrypted.create(table: "sampleTable", of: Sample.self)
        encrypted.close()
        let unkeyed = makeDatabase("encrypted.db")
        try unkeyed.setCipherKey(nil)
        XCTAssertThrowsError(try unkeyed.getRows(sql: "SELECT 1 FROM sampleTable")) { error in
            XCTAssertEqual((error as? SiftError)?.cipherFailure, .missingKey, "\(error)")
            XCTAssertTrue((error as? SiftError)?.message.contains(unkeyed.path) ?? false)
        }

        let plain = makeDatabase("plain.db")
        try plain.create(table: "sampleTable", of: Sample.self)
        plain.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: plain.path))
        try plain.setCipherKey(rawKey: Self.key)
        XCTAssertThrowsError(try plain.getRows(sql: "SELECT 1 FROM sampleTable")) { error in
            XCTAssertEqual((error as? SiftError)?.cipherFailure, .notEncrypted, "\(error)")
        }
        plain.close()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: plain.path)), before)
    }

    func testFlippedByteInAPageIsDetected() throws {
        let database = try makeEncrypted()
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...400) { String(repeating: "x", count: 100) + "\($0)" }, intoTable: "sampleTable")
        database.close()
        let pages = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int) / 4096
        XCTAssertGreaterThan(pages, 5)
        // Flip one ciphertext byte of page 4 (pages count from 1).
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: database.path))
        try handle.seek(toOffset: 3 * 4096 + 100)
        let byte = try XCTUnwrap(handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: 3 * 4096 + 100)
        handle.write(Data([byte ^ 0x01]))
        try handle.close()

        let reopened = try makeEncrypted()
        XCTAssertThrowsError(try { let _: [Sample] = try reopened.getObjects(fromTable: "sampleTable") }()) { error in
            let error = error as? SiftError
            XCTAssertEqual(error?.cipherFailure, .authenticationFailed(page: 4), "\(String(describing: error))")
            XCTAssertEqual(error?.code, .corrupt)
            XCTAssertEqual(error?.path, reopened.path)
        }
    }

    func testFlippedByteInAWALFrameIsDetected() throws {
        let database = try makeEncrypted()
        database.setConfig(named: "noCheckpoint") { try $0.exec(sql: "PRAGMA wal_autocheckpoint=0") }
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...200) { String(repeating: "w", count: 100) + "\($0)" }, intoTable: "sampleTable")
        // The pool keeps the writer open, so the WAL and its index stay; a new reader reads pages from the WAL.
        let wal = database.path + "-wal"
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
        XCTAssertGreaterThan(size, 4 * 4096)
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: wal))
        try handle.seek(toOffset: UInt64(size - 100))  // in the last frame's page
        let byte = try XCTUnwrap(handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: UInt64(size - 100))
        handle.write(Data([byte ^ 0x80]))
        try handle.close()
        XCTAssertThrowsError(try { let _: [Sample] = try database.getObjects(fromTable: "sampleTable") }()) { error in
            guard case .authenticationFailed = (error as? SiftError)?.cipherFailure else { return XCTFail("\(error)") }
        }
        // Closing checkpoints, meets the damaged frame and fails where nobody sees it: that failure must not
        // explain the next error on this thread.
        database.close()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path("garbage.db")))
        XCTAssertThrowsError(try makeDatabase("garbage.db").getRows(sql: "SELECT 1 FROM sqlite_master")) { error in
            XCTAssertEqual((error as? SiftError)?.cipherFailure, .missingKey, "\(error)")
        }
    }

    func testRekeyChangesAddsAndRemovesTheKey() throws {
        let database = try makeEncrypted()
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...100), intoTable: "sampleTable")
        try database.rekey(rawKey: Self.otherKey)
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 100)
        database.close()
        XCTAssertThrowsError(try makeEncrypted().getRows(sql: "SELECT 1")) { error in
            XCTAssertEqual((error as? SiftError)?.cipherFailure, .wrongKey)
        }
        XCTAssertEqual(try makeEncrypted(key: Self.otherKey).getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 100)

        // Remove the key: a plain SQLite file.
        try database.rekey(nil)
        XCTAssertFalse(database.isEncrypted)
        database.close()
        let header = try XCTUnwrap(FileHandle(forReadingAtPath: database.path)?.read(upToCount: 16))
        XCTAssertEqual(header, Data("SQLite format 3\0".utf8))
        XCTAssertEqual(try makeDatabase().getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 100)

        // Add a key to the plain file.
        let plain = makeDatabase()
        try plain.rekey(rawKey: Self.key)
        try plain.insert(objects: samples(101...101), intoTable: "sampleTable")
        plain.close()
        XCTAssertEqual(try makeEncrypted().getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 101)
        XCTAssertEqual(try filesOnDisk().keys.filter { $0.contains(".rekey-") }, [], "no export left behind")
    }

    /// An export larger than the page cache spills pages before its commit.
    func testRekeyOfADatabaseLargerThanThePageCache() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...30_000) { String(repeating: "v", count: 150) + "\($0)" }, intoTable: "sampleTable")
        try database.rekey(rawKey: Self.key)
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 30_000)
        XCTAssertEqual(try database.getRows(sql: "PRAGMA integrity_check")[row: 0, column: 0].stringValue, "ok")
    }

    func testOtherPageSizeAndLargeSortsInMemory() throws {
        let database = makeDatabase()
        try database.setCipherKey(rawKey: Self.key, pageSize: 1024)
        // A tiny page cache makes SQLite sort in temporary files, which the cipher VFS keeps in memory.
        database.setConfig(named: "cache") { try $0.exec(sql: "PRAGMA cache_size=5") }
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: samples(1...3000) { "\(($0 * 7919) % 3001) text" }, intoTable: "sampleTable")
        try database.exec(sql: "CREATE INDEX byDescription ON sampleTable(description)")
        let sorted = try database.getRows(sql: "SELECT description FROM sampleTable ORDER BY description || '' LIMIT 1")
        XCTAssertEqual(sorted[row: 0, column: 0].stringValue, "1 text")
        XCTAssertEqual(try database.getRows(sql: "PRAGMA page_size")[row: 0, column: 0].int64Value, 1024)
        database.close()
        let wrongSize = makeDatabase()
        try wrongSize.setCipherKey(rawKey: Self.key)
        XCTAssertThrowsError(try wrongSize.getRows(sql: "SELECT 1 FROM sampleTable")) { error in
            XCTAssertEqual((error as? SiftError)?.cipherFailure, .wrongKey, "a wrong page size reads as a wrong key")
        }
    }

    func testBadKeysAreRejected() throws {
        let database = makeDatabase()
        XCTAssertThrowsError(try database.setCipherKey(Data()))
        XCTAssertThrowsError(try database.setCipherKey(rawKey: Data(count: 16)))
        XCTAssertThrowsError(try database.setCipherKey(rawKey: Self.key, salt: Data(count: 3)))
        XCTAssertThrowsError(try database.setCipherKey(rawKey: Self.key, pageSize: 1000))
        XCTAssertThrowsError(try database.setCipherKey(Data(count: 2 << 20)))
        XCTAssertFalse(database.isEncrypted)
    }
}
