import Foundation
import Sift
import XCTest

/// `sift check` on an encrypted corpus with one damaged page: the page fails authentication, SQLite rolls the
/// check's transaction back, and the check reports the damage (exit 1, the `sift recover` command), not the
/// COMMIT that found no transaction left ("cannot commit - no transaction is active", exit 2).
final class CheckDamagedPageTests: ToolTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipUnless(Database.isEncryptionAvailable, "Sift was built without the Encryption trait")
    }

    func testOneDamagedPageOfAnEncryptedCorpusIsReportedAsDamage() throws {
        for i in 1...40 { try write("notes/n\(i).txt", "Note \(i): " + String(repeating: "tower temple river \(i) ", count: 200)) }
        // A raw key keeps the test clear of the 256,000-iteration key derivation.
        try write("key.txt", "x'" + String(repeating: "a5", count: 32) + "'")
        XCTAssertEqual(try sift("index", "notes", "--db", "c.db", "--key-file", "key.txt").status, 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: path("c.db")))
        let pages = original.count / 4096
        XCTAssertGreaterThan(pages, 40)
        // Pages whose damage the full-text index's own check meets first (most of the file's pages are the index's).
        for page in [4, pages / 2, pages - 1] {
            var bytes = original
            bytes[(page - 1) * 4096 + 100] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: path("c.db")))
            let check = try sift("check", "--db", "c.db", "--key-file", "key.txt")
            XCTAssertEqual(check.status, 1, "page \(page): \(check.stdout) \(check.stderr)")
            XCTAssertTrue(check.stdout.contains("Page \(page) of") && check.stdout.contains("fails authentication"),
                          "page \(page): \(check.stdout)")
            XCTAssertTrue(check.stdout.contains("run: sift recover c.db --to c-recovered.db --key-file key.txt"),
                          "page \(page): \(check.stdout)")
            XCTAssertFalse(check.stderr.contains("no transaction is active"), "page \(page): \(check.stderr)")
        }
    }
}
