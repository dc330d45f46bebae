import Foundation
import Sift
import XCTest

/// `--key-file` and `SIFT_KEY` on every command that opens a corpus; the key never goes on the command line.
final class EncryptionCommandTests: ToolTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipUnless(Database.isEncryptionAvailable, "Sift was built without the Encryption trait")
    }

    func testEveryCommandTakesTheKeyFromAFileOrTheEnvironment() throws {
        try write("notes/tokyo.md", "# Tokyo Tower\n\nA 333-metre tower in Minato, Tokyo.")
        try write("notes/kyoto.txt", "Kyoto has many temples.")
        // A raw key (SQLCipher's x'...' form) keeps the test clear of the 256,000-iteration key derivation.
        let key = "x'" + String(repeating: "a5", count: 32) + "'"
        try write("key.txt", key + "\n")
        let index = try sift("index", "notes", "--db", "c.db", "--key-file", "key.txt")
        XCTAssertEqual(index.status, 0, index.stderr)
        let header = try XCTUnwrap(FileHandle(forReadingAtPath: path("c.db"))?.read(upToCount: 16))
        XCTAssertNotEqual(header, Data("SQLite format 3\0".utf8), "the corpus is encrypted")

        let search = try run(try Self.executable(), ["search", "tower", "--db", "c.db"], environment: ["SIFT_KEY": key])
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertTrue(search.stdout.contains("[Tower]"), search.stdout)
        for command in [["stats"], ["check"], ["optimize"], ["search", "temples"]] {
            let outcome = try sift(command + ["--db", "c.db", "--key-file", "key.txt"])
            XCTAssertEqual(outcome.status, 0, "\(command): \(outcome.stderr)")
        }
        let export = try sift("export", "--db", "c.db", "--key-file", "key.txt", "--out", "-")
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stdout.contains("Kyoto has many temples."))

        let missing = try sift("search", "tower", "--db", "c.db")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("is encrypted") && missing.stderr.contains("--key-file"), missing.stderr)
        try write("wrong.txt", "x'" + String(repeating: "5a", count: 32) + "'")
        let wrong = try sift("stats", "--db", "c.db", "--key-file", "wrong.txt")
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("Wrong key for") && wrong.stderr.contains("c.db"), wrong.stderr)
        try write("empty.txt", "\n")
        XCTAssertNotEqual(try sift("stats", "--db", "c.db", "--key-file", "empty.txt").status, 0)
        XCTAssertNotEqual(try sift("stats", "--db", "c.db", "--key-file", "nonexistent.txt").status, 0)
    }

    /// `sift check` on a damaged encrypted corpus names the recover command with the same key option.
    func testCheckOfADamagedEncryptedCorpusSuggestsRecoverWithTheKey() throws {
        for i in 1...40 { try write("notes/n\(i).txt", "Note \(i): " + String(repeating: "tower temple river \(i) ", count: 200)) }
        try write("key.txt", "x'" + String(repeating: "a5", count: 32) + "'")
        XCTAssertEqual(try sift("index", "notes", "--db", "c.db", "--key-file", "key.txt").status, 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("c.db"))))
        XCTAssertGreaterThan(bytes.count, 8 * 4096)
        for i in (3 * 4096)..<(bytes.count - 4096) where i % 4096 == 100 { bytes[i] ^= 0xFF }   // one byte in each page
        try Data(bytes).write(to: URL(fileURLWithPath: path("c.db")))
        let check = try sift("check", "--db", "c.db", "--key-file", "key.txt")
        XCTAssertNotEqual(check.status, 0)
        XCTAssertTrue((check.stdout + check.stderr).contains("sift recover c.db --to c-recovered.db --key-file key.txt"),
                      check.stdout + check.stderr)
    }
}
