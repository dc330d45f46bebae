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
}
