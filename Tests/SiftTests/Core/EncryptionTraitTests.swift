import Foundation
import XCTest
@testable import Sift

/// A build without the `Encryption` trait: every call that takes a key throws ``CipherFailure/unavailable`` with a
/// message naming the trait, and plain databases work as ever. Skipped in a build with the trait (CipherTests).
final class EncryptionTraitTests: SiftTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipIf(Database.isEncryptionAvailable, "built with the Encryption trait: CipherTests cover encryption")
    }

    private func assertUnavailable(_ body: () throws -> Void, line: UInt = #line) {
        XCTAssertThrowsError(try body(), line: line) { error in
            let error = error as? SiftError
            XCTAssertEqual(error?.cipherFailure, .unavailable, line: line)
            XCTAssertEqual(error?.code, .misuse, line: line)
            XCTAssertTrue(error?.message.contains("`Encryption` trait") == true, "\(String(describing: error))", line: line)
            XCTAssertEqual(error?.isCorruption, false, line: line)
        }
    }

    func testEveryKeyTakingCallThrowsUnavailable() throws {
        let database = makeDatabase()
        assertUnavailable { try database.setCipherKey(Data("correct horse battery staple".utf8)) }
        assertUnavailable { try database.setCipherKey(rawKey: Data(repeating: 7, count: 32)) }
        assertUnavailable { try database.rekey(Data("new".utf8)) }
        let destination = makeDatabase("recovered.db")
        assertUnavailable {
            _ = try Database.recover(from: path(), into: destination, key: .rawKey(Data(repeating: 7, count: 32)))
        }
        // Nothing was changed: the database is plain and works.
        XCTAssertFalse(database.isEncrypted)
        try database.setCipherKey(nil)
        try database.exec(sql: "CREATE TABLE t(x)")
        try database.exec(sql: "INSERT INTO t VALUES (1)")
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM t")[row: 0, column: 0].int64Value, 1)
    }
}
