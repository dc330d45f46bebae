import Foundation
import XCTest
import Sift
import SiftTools

/// `sift check` on a damaged corpus says how to recover it; `sift recover` does, into a corpus `sift` can use.
final class RecoverCommandTests: ToolTestCase {
    private func damagedCorpus(page: Int? = nil, zeroHeader: Bool = false) throws -> String {
        let db = path("corpus.db")
        _ = try CorruptionSuite.buildCorpus(at: db, documents: 1_500)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: db)))
        if zeroHeader { for i in 0..<100 { bytes[i] = 0 } }
        if let page {
            let root = page
            for i in (root - 1) * 4096..<root * 4096 { bytes[i] = UInt8(truncatingIfNeeded: i &* 7919 >> 3) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: db))
        return db
    }

    func testCheckSuggestsRecoverAndRecoverRebuildsTheCorpus() throws {
        // The documents table's root page: damage it and SQLite reports the file corrupt.
        let probe = path("probe.db")
        _ = try CorruptionSuite.buildCorpus(at: probe, documents: 1_500)
        let root = Int(try Database(withPath: probe).getRows(sql: "SELECT rootpage FROM sqlite_master WHERE name = 'documents'")[0][0].int64Value)
        Database(withPath: probe).close()
        let db = try damagedCorpus(page: root)

        let check = try sift("check", "--db", db)
        XCTAssertEqual(check.status, 1, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("run: sift recover \(db) --to \(path("corpus-recovered.db"))"), check.stdout + check.stderr)

        let recover = try sift("recover", db, "--to", path("corpus-recovered.db"))
        XCTAssertEqual(recover.status, 1, "a page was lost: " + recover.stdout + recover.stderr)
        XCTAssertTrue(recover.stdout.contains("documents: 1,500 rows") || recover.stdout.contains("documents: 1500 rows"), recover.stdout)
        XCTAssertTrue(recover.stdout.contains("rebuilt full-text index documents_fts"), recover.stdout)
        XCTAssertTrue(recover.stdout.contains("pages lost: 1 of"), recover.stdout)

        let recovered = try sift("check", "--db", path("corpus-recovered.db"))
        XCTAssertEqual(recovered.status, 0, recovered.stdout + recovered.stderr)
        XCTAssertTrue(recovered.stdout.hasPrefix("ok: 1500 documents, 1500 indexed"), recovered.stdout)
        let search = try sift("search", "granite", "--db", path("corpus-recovered.db"))
        XCTAssertEqual(search.status, 0, search.stderr)

        let again = try sift("recover", db, "--to", path("corpus-recovered.db"))
        XCTAssertEqual(again.status, 2, "never overwrites")
        XCTAssertTrue(again.stderr.contains("exists"), again.stderr)
    }

    /// `sift index` backs up a new corpus's schema, so a corpus whose first page is destroyed is recovered whole.
    func testIndexedCorpusSurvivesALostSchemaPage() throws {
        try write("docs/a.txt", "granite quarry by the river")
        try write("docs/b.txt", "copper kettle on the stove")
        XCTAssertEqual(try sift("index", path("docs"), "--db", path("c.db")).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("c.db-sift-backup")))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("c.db"))))
        for i in 0..<4096 { bytes[i] = UInt8(truncatingIfNeeded: i &* 7919 >> 3) }
        try Data(bytes).write(to: URL(fileURLWithPath: path("c.db")))
        let recover = try sift("recover", path("c.db"), "--to", path("new.db"))
        XCTAssertTrue(recover.stdout.contains("with the schema from the backup"), recover.stdout)
        XCTAssertTrue(recover.stdout.contains("documents: 2 rows"), recover.stdout)
        let search = try sift("search", "kettle", "--db", path("new.db"))
        XCTAssertTrue(search.stdout.contains("b.txt"), search.stdout)
    }

    func testZeroedHeaderIsNotADatabaseAndStillRecovers() throws {
        let db = try damagedCorpus(zeroHeader: true)
        let check = try sift("check", "--db", db)
        XCTAssertEqual(check.status, 2, check.stdout + check.stderr)
        XCTAssertTrue(check.stderr.contains("run sift recover \(db) --to"), check.stderr)
        let recover = try sift("recover", db, "--to", path("new.db"))
        XCTAssertEqual(recover.status, 0, recover.stdout + recover.stderr)
        XCTAssertEqual(try sift("check", "--db", path("new.db")).status, 0)
    }

    /// An encrypted corpus: `sift recover` takes its key like the other commands, reads the damaged pages with it and
    /// writes the recovered corpus encrypted with the same key; without the key it says the file may be encrypted.
    func testEncryptedCorpusIsRecoveredWithItsKeyIntoAnEncryptedCorpus() throws {
        try XCTSkipUnless(Database.isEncryptionAvailable, "Sift was built without the Encryption trait")
        let words = ["granite", "quarry", "river", "copper", "kettle", "stove", "lantern", "meadow"]
        for i in 0..<300 {
            try write("docs/\(i).txt", (0..<40).map { words[($0 * 7 + i) % words.count] }.joined(separator: " ") + " doc\(i)")
        }
        // A raw key (SQLCipher's x'...' form) keeps the test clear of the 256,000-iteration key derivation.
        try write("key.txt", "x'" + String(repeating: "a5", count: 32) + "'\n")
        XCTAssertEqual(try sift("index", path("docs"), "--db", path("c.db"), "--key-file", path("key.txt")).status, 0)
        try FileManager.default.copyItem(atPath: path("c.db"), toPath: path("intact.db"))

        let sound = try sift("recover", path("intact.db"), "--to", path("sound.db"), "--key-file", path("key.txt"))
        XCTAssertEqual(sound.status, 0, sound.stdout + sound.stderr)
        XCTAssertTrue(sound.stdout.contains("through SQLite") && sound.stdout.contains("documents: 300 rows"), sound.stdout)

        let database = Database(withPath: path("c.db"))
        try database.setCipherKey(rawKey: Data(repeating: 0xa5, count: 32))
        let leaf = Int(try database.getRows(sql: "SELECT pageno FROM dbstat WHERE name = 'documents' AND pagetype = 'leaf' ORDER BY pageno")[1][0].int64Value)
        database.close()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("c.db"))))
        for i in (leaf - 1) * 4096..<leaf * 4096 { bytes[i] = UInt8(truncatingIfNeeded: i &* 7919 >> 3) }
        try Data(bytes).write(to: URL(fileURLWithPath: path("c.db")))

        let unkeyed = try sift("recover", path("c.db"), "--to", path("new.db"))
        XCTAssertEqual(unkeyed.status, 2, unkeyed.stdout + unkeyed.stderr)
        XCTAssertTrue(unkeyed.stderr.contains("may be encrypted") && unkeyed.stderr.contains("--key-file"), unkeyed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("new.db")), "nothing left behind to block the next try")

        let recover = try sift("recover", path("c.db"), "--to", path("new.db"), "--key-file", path("key.txt"))
        XCTAssertEqual(recover.status, 1, "a page was lost: " + recover.stdout + recover.stderr)
        XCTAssertTrue(recover.stdout.contains("read page by page"), recover.stdout)
        XCTAssertTrue(recover.stdout.contains("rebuilt full-text index documents_fts"), recover.stdout)
        let recovered = try XCTUnwrap(recover.stdout.split(separator: "\n").first { $0.hasPrefix("documents: ") })
        XCTAssertNotEqual(recovered, "documents: 0 rows")
        XCTAssertNotEqual(recovered, "documents: 300 rows")

        let header = try XCTUnwrap(FileHandle(forReadingAtPath: path("new.db"))?.read(upToCount: 16))
        XCTAssertNotEqual(header, Data("SQLite format 3\0".utf8), "the recovered corpus is encrypted")
        XCTAssertEqual(try sift("check", "--db", path("new.db"), "--key-file", path("key.txt")).status, 0)
        XCTAssertEqual(try sift("search", "granite", "--db", path("new.db")).status, 2, "not readable without the key")
        let search = try sift("search", "granite", "--db", path("new.db"), "--key-file", path("key.txt"))
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertTrue(search.stdout.contains(".txt"), search.stdout)
    }
}
