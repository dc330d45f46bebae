import Foundation
import Sift
import SiftICU
import XCTest

/// Runs the `sift` executable end to end: exit statuses, output formats and messages.
final class CommandTests: ToolTestCase {
    func testIndexSearchStatsCheckOptimize() throws {
        try write("notes/tokyo.md", "# Tokyo Tower\n\nA 333-metre tower in Minato, Tokyo.")
        try write("notes/kyoto.txt", "Kyoto has many temples.")
        let index = try sift("index", "notes", "--db", "c.db")
        XCTAssertEqual(index.status, 0, index.stderr)
        XCTAssertTrue(index.stderr.contains("indexed 2 documents"), index.stderr)
        XCTAssertFalse(index.stderr.contains("\r"), "no progress display when standard error is not a terminal")

        let search = try sift("search", "tower", "--db", "c.db")
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertTrue(search.stdout.contains("1. [Tokyo] [Tower]") == false && search.stdout.contains("[Tower]"), search.stdout)

        let json = try sift("search", "tower", "--db", "c.db", "--json")
        let line = try XCTUnwrap(json.stdout.split(separator: "\n").first)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["id", "key", "title", "score", "snippet", "source", "fields"])
        XCTAssertEqual(object["key"] as? String, "tokyo.md")
        XCTAssertEqual(object["title"] as? String, "Tokyo [Tower]")
        XCTAssertTrue((object["source"] as? String)?.hasSuffix("notes/tokyo.md") == true)

        let stats = try sift("stats", "--db", "c.db")
        XCTAssertEqual(stats.status, 0, stats.stderr)
        XCTAssertTrue(stats.stdout.contains("documents  2"), stats.stdout)
        XCTAssertTrue(stats.stdout.contains("tokenizer  sift_icu"), stats.stdout)

        let check = try sift("check", "--db", "c.db")
        XCTAssertEqual(check.status, 0, check.stdout)
        XCTAssertTrue(check.stdout.hasPrefix("ok: 2 documents"), check.stdout)
        XCTAssertEqual(try sift("optimize", "--db", "c.db").status, 0)

        // Damage the index behind Sift's back: check must notice and fail.
        let raw = Database(withPath: path("c.db"))
        raw.registerICUTokenizer()
        try raw.exec(sql: "DELETE FROM documents_fts_docsize")
        raw.close()
        let broken = try sift("check", "--db", "c.db")
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(broken.stdout.contains("problem:"), broken.stdout)
    }

    func testSearchOptionsAndWhere() throws {
        try write("docs.jsonl", """
            {"_id": "d1", "title": "Tokyo Tower", "text": "A 333-metre tower in Minato.", "lang": "en", "year": 1958}
            {"_id": "d2", "title": "東京タワー", "text": "東京都港区にある電波塔。東京タワーは1958年に完成した。", "lang": "ja", "year": 1958}
            {"_id": "d3", "title": "Tokyo Skytree", "text": "The tallest tower in Japan.", "lang": "en", "year": 2012}
            """)
        XCTAssertEqual(try sift("index", "docs.jsonl", "--db", "c.db", "--quiet").status, 0)
        func keys(_ arguments: String...) throws -> [String] {
            let outcome = try sift(["search"] + arguments + ["--db", "c.db", "--json"])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            return outcome.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["key"] as? String
            }
        }
        XCTAssertEqual(Set(try keys("tower")), ["d1", "d3"])
        XCTAssertEqual(try keys("tower", "--where", "lang=en", "--where", "year=2012"), ["d3"])
        XCTAssertEqual(try keys("tower", "--where", "title=Tokyo Tower"), ["d1"])
        XCTAssertEqual(try keys("tallest japan", "--mode", "phrase"), [])
        XCTAssertEqual(try keys("tallest tower", "--mode", "any").first, "d3")
        XCTAssertEqual(try keys("sky", "--mode", "prefix"), ["d3"])
        XCTAssertEqual(try keys("東京", "--where", "year=1958"), ["d2"])
        XCTAssertEqual(try keys("tower", "--limit", "1", "--offset", "1").count, 1)
        let bad = try sift("search", "x", "--db", "c.db", "--where", "nonsense")
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("field=value"), bad.stderr)
    }

    func testBadInputExitStatuses() throws {
        try write("docs.jsonl", "{\"_id\": \"a\", \"text\": \"alpha\"}\n{oops\n{\"_id\": \"b\", \"text\": \"beta\"}\n")
        let skipped = try sift("index", "docs.jsonl", "--db", "c.db")
        XCTAssertEqual(skipped.status, 1, "something was skipped")
        XCTAssertTrue(skipped.stderr.contains("docs.jsonl:2: malformed JSON"), skipped.stderr)
        XCTAssertTrue(try sift("search", "beta", "--db", "c.db").stdout.contains("[beta]"))

        let strict = try sift("index", "docs.jsonl", "--db", "strict.db", "--strict")
        XCTAssertEqual(strict.status, 2)
        XCTAssertTrue(strict.stderr.contains("docs.jsonl:2:"), strict.stderr)
        XCTAssertTrue(try sift("search", "alpha", "--db", "strict.db").stdout.contains("[alpha]"), "the line before is kept")
    }

    func testFolderInOtherCharsetsIsTranscodedAndBinaryFilesSkippedWithTheReason() throws {
        try write("docs/latin1.txt", try XCTUnwrap(IndexingTests.french.data(using: .isoLatin1)))
        let page = #"<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">"#
            + "<title>Crème</title></head><body>Crème brûlée</body></html>"
        try write("docs/legacy.html", try XCTUnwrap(page.data(using: .isoLatin1)))
        try write("docs/data.txt", Data([0x50, 0x4B, 0x03, 0x04, 0x00, 0x00]))
        let outcome = try sift("index", "docs", "--db", "c.db")
        XCTAssertEqual(outcome.status, 1, "the binary file was skipped")
        XCTAssertTrue(outcome.stderr.contains("sift: skipped \(path("docs/data.txt")): binary content (NUL byte at offset 4)"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("indexed 2 documents from 3 files"), outcome.stderr)
        let search = try sift("search", "brûlée", "--db", "c.db")
        XCTAssertTrue(search.stdout.contains("latin1.txt"), search.stdout)
        XCTAssertTrue(search.stdout.contains("Crème  (legacy.html"), search.stdout)
    }

    func testClearErrors() throws {
        let missing = try sift("search", "x", "--db", "missing.db")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("missing.db: no such file"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("missing.db")), "searching must not create a database")

        let source = try sift("index", "nowhere", "--db", "c.db")
        XCTAssertEqual(source.status, 2)
        XCTAssertTrue(source.stderr.contains("nowhere: no such file"), source.stderr)

        try write("text.db", String(repeating: "not a database ", count: 10))
        let text = try sift("stats", "--db", "text.db")
        XCTAssertEqual(text.status, 2)
        XCTAssertTrue(text.stderr.contains("is not a database"), text.stderr)

        // Someone else's database, in SQLite's default rollback-journal mode.
        let other = Database(withPath: path("other.db"))
        other.removeConfig(named: "sift.journalMode")
        try other.exec(sql: "CREATE TABLE people(name TEXT)")
        other.close()
        let foreign = try sift("check", "--db", "other.db")
        XCTAssertEqual(foreign.status, 2)
        XCTAssertTrue(foreign.stderr.contains("not a Sift corpus"), foreign.stderr)
        XCTAssertEqual(try other.getRows(sql: "PRAGMA journal_mode").first?.first?.stringValue, "delete",
                       "looking at a foreign database must not switch it to WAL")

        let usage = try sift("search", "x", "--db", "c.db", "--mode", "fuzzy")
        XCTAssertEqual(usage.status, 64)
    }

    func testDemoAndHelp() throws {
        let demo = try sift("demo")
        XCTAssertEqual(demo.status, 0, demo.stderr)
        for expected in ["[coffee]", "[天安门]", "[東京タワー]", "[김치]", "[São] [Paulo]", "[Bosphorus] [bridges]"] {
            XCTAssertTrue(demo.stdout.contains(expected), "\(expected) in:\n\(demo.stdout)")
        }
        for command in ["demo", "index", "search", "suggest", "eval", "stats", "check", "optimize"] {
            let help = try sift(command, "--help")
            XCTAssertEqual(help.status, 0)
            XCTAssertTrue(help.stdout.contains("USAGE: sift \(command)"), help.stdout)
        }
    }
}

/// `sift check` on databases it may not write, and its three verdicts.
final class CheckCommandTests: ToolTestCase {
    /// A healthy corpus in `folder`, made with `sift index` and closed (so no -wal or -shm file remains).
    private func makeHealthyCorpus(in folder: String) throws -> String {
        try write("docs.jsonl", (1...40).map { #"{"_id": "d\#($0)", "text": "document number \#($0) about kingfishers"}"# }
            .joined(separator: "\n"))
        try FileManager.default.createDirectory(atPath: path(folder), withIntermediateDirectories: true)
        let db = "\(folder)/c.db"
        let index = try sift("index", "docs.jsonl", "--db", db, "--quiet")
        XCTAssertEqual(index.status, 0, index.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path(db) + "-shm"))
        return db
    }

    private func setMode(_ mode: Int, _ name: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(name))
    }

    /// A write-protected database file used to fail with "problem: integrity-check: attempt to write a readonly
    /// database" and exit status 1, as if damaged (FTS5's integrity check is an INSERT). Root writes whatever the
    /// mode, so the check runs as an unprivileged user then.
    func testReadOnlyDatabaseFileIsCheckable() throws {
        let db = try makeHealthyCorpus(in: "ro")
        try setMode(0o777, "ro")  // SQLite may create -wal and -shm beside it, only the database is read-only
        try setMode(0o444, db)
        if try unprivileged(URL(fileURLWithPath: "/usr/bin/test"), ["-w", path(db)]).status == 0 {
            throw XCTSkip("\(db) is still writable with mode 444")
        }
        let check = try siftUnprivileged(["check", "--db", db])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("ok: 40 documents, 40 indexed"), check.stdout + check.stderr)

        // A damaged index is still found, by FTS5's integrity check (run on a copy) as well as by the row counts.
        try setMode(0o644, db)
        let raw = Database(withPath: path(db))
        try raw.exec(sql: "DELETE FROM documents_fts_docsize WHERE id = 7")
        raw.close()
        try setMode(0o444, db)
        let damaged = try siftUnprivileged(["check", "--db", db])
        XCTAssertEqual(damaged.status, 1, damaged.stdout + damaged.stderr)
        XCTAssertTrue(damaged.stdout.contains("problem: integrity-check"), damaged.stdout)
        XCTAssertFalse(damaged.stdout.contains("readonly"), damaged.stdout)
    }

    /// A WAL database in a folder the user cannot write has no -shm file and SQLite cannot create one, so it
    /// cannot even be read in place: check used to end with SQLite's error dump (exit status 2).
    func testDatabaseInAFolderThatIsNotWritableIsCheckable() throws {
        let db = try makeHealthyCorpus(in: "locked")
        try setMode(0o555, "locked")
        defer { try? setMode(0o755, "locked") }
        if try unprivileged(URL(fileURLWithPath: "/usr/bin/test"), ["-w", path("locked")]).status == 0 {
            throw XCTSkip("the folder is still writable with mode 555")
        }
        let check = try siftUnprivileged(["check", "--db", db])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("ok: 40 documents, 40 indexed"), check.stdout + check.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path(db) + "-shm"), "the folder is left as it was")
    }

    /// A missing part of the index is damage (exit status 1), not a failure to check.
    func testMissingIndexTableIsAProblem() throws {
        let db = try makeHealthyCorpus(in: "c")
        let raw = Database(withPath: path(db))
        try raw.exec(sql: "DROP TABLE documents_fts_idx")
        raw.close()
        let check = try sift("check", "--db", db)
        XCTAssertEqual(check.status, 1, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("problem: the full-text index's documents_fts_idx table is missing"), check.stdout)
    }

    /// Exit status 2 and `cannot check: <reason>` when the database cannot be checked at all.
    func testCannotCheckIsNotDamage() throws {
        let missing = try sift("check", "--db", "missing.db")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("cannot check: ") && missing.stderr.contains("missing.db: no such file"), missing.stderr)
        let help = try sift("check", "--help").stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(help.contains("0 healthy") && help.contains("1 damaged") && help.contains("2 cannot check"), help)
    }
}

/// Sources that exist but cannot be read, end to end.
final class UnreadableSourceTests: ToolTestCase {
    /// A file without read permission, in a folder and as a record file among other sources, used to end the
    /// run with Foundation's error dump (record file) or a Foundation sentence (folder file). Each must be
    /// reported as `path: cannot read: permission denied` and skipped (exit status 1) while the rest is indexed;
    /// the documents already indexed from the unreadable record file stay. With --strict the run stops on it.
    func testUnreadableFilesAreReportedSkippedAndKept() throws {
        // The database goes in a folder the unprivileged user can write.
        let writable = folder.appendingPathComponent("w")
        try FileManager.default.createDirectory(at: writable, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: writable.path)
        try write("notes/open.txt", "an open note about herons")
        try write("good.jsonl", #"{"_id": "g1", "text": "a good record about herons"}"#)
        try write("locked.jsonl", #"{"_id": "l1", "text": "a locked record about herons"}"#)
        let first = try siftUnprivileged(["index", "notes", "good.jsonl", "locked.jsonl", "--db", "w/c.db"])
        XCTAssertEqual(first.status, 0, first.stderr)

        try write("notes/secret.txt", "a secret note about herons")
        try write("other.csv", "id,text\nc1,a csv row about herons\n")
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path("notes/secret.txt"))
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path("locked.jsonl"))
        defer {
            for name in ["notes/secret.txt", "locked.jsonl"] {
                try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path(name))
            }
        }
        for name in ["notes/secret.txt", "locked.jsonl"] where try unprivilegedCanRead(path(name)) {
            throw XCTSkip("\(name) is still readable with mode 000 (a file system that ignores permissions?)")
        }

        let second = try siftUnprivileged(["index", "notes", "good.jsonl", "locked.jsonl", "other.csv", "--db", "w/c.db"])
        XCTAssertEqual(second.status, 1, "skipped input: \(second.stderr)")
        XCTAssertTrue(second.stderr.contains("notes/secret.txt: cannot read: permission denied"), second.stderr)
        XCTAssertTrue(second.stderr.contains("locked.jsonl: cannot read: permission denied"), second.stderr)
        XCTAssertFalse(second.stderr.contains("Error Domain"), second.stderr)
        XCTAssertTrue(second.stderr.contains("2 skipped"), second.stderr)
        let search = try sift("search", "herons", "--db", "w/c.db", "--json", "--limit", "20")
        let keys = search.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["key"] as? String
        }
        XCTAssertEqual(Set(keys), ["open.txt", "g1", "l1", "c1"], "the rest is indexed and l1 is not removed as stale")

        let strict = try siftUnprivileged(["index", "good.jsonl", "locked.jsonl", "--db", "w/strict.db", "--strict"])
        XCTAssertEqual(strict.status, 2, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("locked.jsonl: cannot read: permission denied"), strict.stderr)
    }

    /// The same path as a permission error, reproducible as root: a folder read as a record file fails when
    /// read ("is a directory"). It used to end the run with Foundation's error dump.
    func testADirectoryReadAsARecordFileIsReportedAndSkipped() throws {
        try write("good.jsonl", #"{"_id": "g1", "text": "a good record"}"#)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.jsonl"), withIntermediateDirectories: true)
        let outcome = try sift("index", "folder.jsonl", "good.jsonl", "--format", "jsonl", "--db", "c.db")
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("folder.jsonl: cannot read: is a directory"), outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains("Error Domain"), outcome.stderr)
        XCTAssertTrue(try sift("search", "good", "--db", "c.db").stdout.contains("[good]"))
        let strict = try sift("index", "folder.jsonl", "good.jsonl", "--format", "jsonl", "--db", "strict.db", "--strict")
        XCTAssertEqual(strict.status, 2, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("folder.jsonl: cannot read: is a directory"), strict.stderr)
    }

    /// A subfolder that cannot be listed used to be taken for deleted: the documents of its files were removed.
    func testAnUnreadableSubfolderIsReportedAndItsDocumentsKept() throws {
        let writable = folder.appendingPathComponent("w")
        try FileManager.default.createDirectory(at: writable, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: writable.path)
        try write("notes/top.txt", "a note about owls")
        try write("notes/sub/deep.txt", "a deep note about owls")
        let first = try siftUnprivileged(["index", "notes", "--db", "w/c.db"])
        XCTAssertEqual(first.status, 0, first.stderr)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path("notes/sub"))
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path("notes/sub")) }
        if try unprivilegedCanRead(path("notes/sub")) { throw XCTSkip("notes/sub is still readable with mode 000") }

        let second = try siftUnprivileged(["index", "notes", "--db", "w/c.db"])
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("notes/sub: cannot read: permission denied"), second.stderr)
        XCTAssertFalse(second.stderr.contains("removed"), second.stderr)
        XCTAssertTrue(try sift("search", "deep", "--db", "w/c.db").stdout.contains("[deep]"))
    }
}

/// Two writers on one corpus, checked end to end with real processes.
final class ConcurrentIndexingTests: ToolTestCase {
    /// Two `sift index` runs of the same file at the same time. Each run used to stamp its documents with its
    /// own run number and, at the end of the file, delete the file's documents with a smaller number, so the
    /// later-numbered run deleted documents the other run had just rewritten (19,100 of 20,000 left, exit 0,
    /// `check` ok). Now every record must survive each round, and a run that did not index must say why.
    func testConcurrentRunsOfOneFileLoseNoDocument() throws {
        let count = 3000
        try write("docs.jsonl", (0..<count).map { #"{"_id": "d\#($0)", "text": "document number \#($0)"}"# }
            .joined(separator: "\n") + "\n")
        let first = try sift("index", "docs.jsonl", "--db", "r.db", "--quiet")
        XCTAssertEqual(first.status, 0, first.stderr)
        // The loss depends on how the two runs interleave; a few rounds show it on the old code every time tried.
        for round in 1...6 {
            let runs = try (0..<2).map { _ in try startSift(["index", "docs.jsonl", "--db", "r.db", "--batch-size", "20", "--quiet"]) }
            let outcomes = try runs.map { try $0.finish() }
            for outcome in outcomes where outcome.status != 0 {
                XCTAssertEqual(outcome.status, 2, "round \(round): \(outcome.stderr)")
                XCTAssertTrue(outcome.stderr.contains("another `sift index` is running on"), "round \(round): \(outcome.stderr)")
            }
            XCTAssertTrue(outcomes.contains { $0.status == 0 }, "round \(round): at least one run indexes")
            let check = try sift("check", "--db", "r.db")
            XCTAssertEqual(check.status, 0, "round \(round): \(check.stdout)\(check.stderr)")
            guard check.stdout.hasPrefix("ok: \(count) documents") else {
                return XCTFail("round \(round): documents lost: \(check.stdout)")
            }
        }
    }
}
