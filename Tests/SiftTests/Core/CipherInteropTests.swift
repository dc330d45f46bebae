import Foundation
import XCTest
import Sift

/// Files Sift encrypts open in SQLCipher 4 (PyPI `sqlcipher3-binary`, SQLCipher 4.12) with the same key, and
/// SQLCipher's files open in Sift. Skipped, saying why, when `scripts/sqlcipher-reference.sh` cannot install it.
final class CipherInteropTests: SiftTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireEncryption()
    }

    typealias Sample = CRUD.Sample

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The python3 that imports sqlcipher3, installed once per build folder.
    static let reference: Result<String, Error> = Result {
        let output = try run(repository.appendingPathComponent("scripts/sqlcipher-reference.sh").path, [], timeout: 300)
        guard output.status == 0, let python = output.stdout.split(separator: "\n").last else {
            throw ReferenceUnavailable(reason: output.stderr)
        }
        return String(python)
    }

    struct ReferenceUnavailable: Error { let reason: String }

    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60)
        throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let errors = Collected<Data>()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errors.append(err.fileHandleForReading.readDataToEndOfFile())
            done.signal()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self),
                String(decoding: errors.all.first ?? Data(), as: UTF8.self))
    }

    /// Runs a Python script against SQLCipher with `arguments` in `sys.argv[1...]`; returns its standard output.
    func sqlcipher(_ script: String, _ arguments: [String]) throws -> String {
        let python: String
        switch Self.reference {
        case .success(let path): python = path
        case .failure(let error as ReferenceUnavailable):
            throw XCTSkip("SQLCipher 4 reference (PyPI sqlcipher3-binary) could not be installed: \(error.reason)")
        case .failure(let error):
            throw XCTSkip("SQLCipher 4 reference (PyPI sqlcipher3-binary) could not be installed: \(error)")
        }
        let result = try Self.run(python, ["-c", script] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    final class Note: TableCodable {
        var id: Int = 0
        var body: String = ""
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Note
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case id, body
            static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
        }
        init() {}
        init(_ id: Int, _ body: String) { self.id = id; self.body = body }
    }

    final class NoteIndex: TableCodable {
        var body: String = ""
        enum CodingKeys: String, CodingTableKey {
            typealias Root = NoteIndex
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case body
            static var virtualTableBinding: VirtualTableBinding? { VirtualTableBinding(with: .fts5) }
        }
    }

    static let passphrase = "interop passphrase"

    func testSQLCipherOpensWhatSiftEncrypted() throws {
        let database = makeDatabase()
        try database.setCipherKey(Data(Self.passphrase.utf8))
        try database.create(table: "notes", of: Note.self)
        try database.create(virtualTable: "notes_fts", of: NoteIndex.self, syncedWith: "notes")
        try database.insert(objects: (1...300).map { Note($0, "note \($0) " + ($0 % 10 == 0 ? "aardvark" : "zebu")) },
                            intoTable: "notes")
        database.close()

        let output = try sqlcipher("""
            import sys, sqlcipher3
            db = sqlcipher3.connect(sys.argv[1])
            db.execute("PRAGMA key = '%s'" % sys.argv[2])
            print(db.execute("SELECT count(*) FROM notes").fetchone()[0])
            print(db.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'aardvark'").fetchone()[0])
            print(len(db.execute("PRAGMA cipher_integrity_check").fetchall()))
            print(db.execute("PRAGMA integrity_check").fetchone()[0])
            db.execute("INSERT INTO notes(id, body) VALUES (1000, 'written by sqlcipher')")
            db.commit()
            db.close()
            """, [database.path, Self.passphrase])
        XCTAssertEqual(output.split(separator: "\n"), ["300", "30", "0", "ok"], "count, FTS hits, HMAC failures, integrity")

        let reopened = makeDatabase()
        try reopened.setCipherKey(Data(Self.passphrase.utf8))
        let note: Note? = try reopened.getObject(fromTable: "notes", where: Note.Properties.id == 1000)
        XCTAssertEqual(note?.body, "written by sqlcipher")
    }

    func testOtherPageSizeBothWays() throws {
        let database = makeDatabase("sift.db")
        try database.setCipherKey(Data(Self.passphrase.utf8), pageSize: 1024)
        try database.create(table: "notes", of: Note.self)
        try database.insert(objects: (1...500).map { Note($0, "note \($0)") }, intoTable: "notes")
        database.close()
        let output = try sqlcipher("""
            import sys, sqlcipher3
            db = sqlcipher3.connect(sys.argv[1])
            db.execute("PRAGMA key = '%s'" % sys.argv[2])
            db.execute("PRAGMA cipher_page_size = 1024")
            print(db.execute("SELECT count(*) FROM notes").fetchone()[0])
            print(len(db.execute("PRAGMA cipher_integrity_check").fetchall()))
            other = sqlcipher3.connect(sys.argv[3])
            other.execute("PRAGMA key = '%s'" % sys.argv[2])
            other.execute("PRAGMA cipher_page_size = 1024")
            other.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
            other.executemany("INSERT INTO notes VALUES (?, ?)", [(i, "note %d" % i) for i in range(1, 301)])
            other.commit()
            other.close()
            """, [database.path, Self.passphrase, path("sqlcipher.db")])
        XCTAssertEqual(output.split(separator: "\n"), ["500", "0"])
        let theirs = makeDatabase("sqlcipher.db")
        try theirs.setCipherKey(Data(Self.passphrase.utf8), pageSize: 1024)
        XCTAssertEqual(try theirs.getRows(sql: "SELECT count(*) FROM notes")[row: 0, column: 0].int64Value, 300)
    }

    func testSiftOpensWhatSQLCipherEncrypted() throws {
        let rawKey = Data((0..<32).map { UInt8(255 - $0) })
        let hex = rawKey.map { String(format: "%02x", $0) }.joined()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, key) in [("passphrase.db", "'\(Self.passphrase)'"), ("raw.db", "\"x'\(hex)'\"")] {
            _ = try sqlcipher("""
                import sys, sqlcipher3
                db = sqlcipher3.connect(sys.argv[1])
                db.execute("PRAGMA key = " + sys.argv[2])
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
                db.execute("CREATE VIRTUAL TABLE notes_fts USING fts5(body)")
                for i in range(1, 401):
                    body = "note %d %s" % (i, "aardvark" if i % 8 == 0 else "zebu")
                    db.execute("INSERT INTO notes VALUES (?, ?)", (i, body))
                    db.execute("INSERT INTO notes_fts(rowid, body) VALUES (?, ?)", (i, body))
                db.commit()
                db.close()
                """, [path(name), key])
            let database = makeDatabase(name)
            if name == "raw.db" {
                try database.setCipherKey(rawKey: rawKey)
            } else {
                try database.setCipherKey(Data(Self.passphrase.utf8))
            }
            XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM notes")[row: 0, column: 0].int64Value, 400, name)
            XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'aardvark'")[row: 0, column: 0].int64Value, 50, name)
            XCTAssertEqual(try database.getRows(sql: "PRAGMA integrity_check")[row: 0, column: 0].stringValue, "ok", name)
            // Sift writes into SQLCipher's file, and SQLCipher reads it back.
            try database.insert(objects: [Note(1000, "written by sift")], intoTable: "notes")
            database.close()
            let back = try sqlcipher("""
                import sys, sqlcipher3
                db = sqlcipher3.connect(sys.argv[1])
                db.execute("PRAGMA key = " + sys.argv[2])
                print(db.execute("SELECT body FROM notes WHERE id = 1000").fetchone()[0])
                print(len(db.execute("PRAGMA cipher_integrity_check").fetchall()))
                """, [path(name), key])
            XCTAssertEqual(back.split(separator: "\n"), ["written by sift", "0"], name)
        }
    }
}
