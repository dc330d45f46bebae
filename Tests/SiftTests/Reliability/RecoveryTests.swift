import Foundation
import XCTest
@testable import Sift

/// Backup, recovery and the detection of damaged files (with WCDB's repair kit as the model of the API).
final class RecoveryTests: SiftTestCase {
    /// A synced database of `rows` articles (some with bodies long enough for overflow pages) and a second table
    /// of another shape, closed (its WAL checkpointed) and backed up. Returns the articles as written.
    private func makeSample(rows: Int, longEvery: Int = 50, backup: Bool = true) throws -> (path: String, articles: [Int: Article]) {
        let database = makeDatabase("original.db")
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.exec(sql: "CREATE TABLE tags(tag TEXT, weight REAL)")
        var generator = SplitMix(seed: 16)
        let words = ["harbor", "lantern", "meadow", "copper", "violet", "granite", "willow", "ember", "tundra", "saffron"]
        var articles: [Int: Article] = [:]
        for id in 1...rows {
            let count = id % longEvery == 0 ? 2_500 : 8 + Int(generator.next() % 30)
            let body = (0..<count).map { _ in words[Int(generator.next() % UInt64(words.count))] }.joined(separator: " ")
            articles[id] = Article(id, "title \(id)", body, views: Int(generator.next() % 1000))
        }
        try database.insert(objects: articles.keys.sorted().compactMap { articles[$0] }, intoTable: "articles")
        for i in 0..<200 { try database.exec(sql: "INSERT INTO tags VALUES(?, ?)", values: ["tag\(i)", Double(i) / 7]) }
        if backup { try database.backup() }
        database.close()
        return (database.path, articles)
    }

    /// Overwrites `pages` (1-based) of the file at `path` with seeded garbage.
    private func damage(_ path: String, pages: [Int], pageSize: Int = 4096, seed: UInt64 = 7) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var generator = SplitMix(seed: seed)
        for page in pages where page * pageSize <= bytes.count {
            for i in (page - 1) * pageSize..<page * pageSize { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private func pages(of table: String, in path: String) throws -> (root: Int, all: [Int]) {
        let database = Database(withPath: path)
        defer { database.close() }
        let root = Int(try database.getRows(sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", values: [table])[0][0].int64Value)
        let all = try database.getRows(sql: "SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno", values: [table]).map { Int($0[0].int64Value) }
        return (root, all)
    }

    /// Every recovered article must be exactly the one written (no garbage passes for a row), except the `partial`
    /// ones, cut where their overflow pages were lost: their body is a prefix of the original. The index must agree
    /// with the content and find the recovered text.
    private func assertFaithful(_ recovered: Database, _ articles: [Int: Article], partial: Int = 0,
                                file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let rows = try recovered.getRows(sql: "SELECT id, title, body, views FROM articles").map { row in
            Article(Int(row[0].int64Value), row[1].stringValue, row[2].stringValue, views: row[3].isNull ? -1 : Int(row[3].int64Value))
        }
        var cut = 0
        for row in rows {
            let original = articles[row.id ?? -1]
            XCTAssertEqual(row.title, original?.title, file: file, line: line)
            if row.body != original?.body {
                cut += 1
                XCTAssertTrue(original?.body.hasPrefix(row.body) == true, "\(row.body.prefix(80))", file: file, line: line)
                XCTAssertEqual(row.views, -1, "the columns after the cut are NULL", file: file, line: line)
            } else {
                XCTAssertEqual(row.views, original?.views, file: file, line: line)
            }
        }
        XCTAssertEqual(cut, partial, "partial rows", file: file, line: line)
        let verification = try recovered.verify(index: "articles_fts")
        XCTAssertTrue(verification.isConsistent, "\(verification)", file: file, line: line)
        XCTAssertEqual(verification.indexedRows, rows.count, file: file, line: line)
        if let any = rows.first {
            let word = any.body.split(separator: " ").first.map(String.init) ?? ""
            let hits = try recovered.getRows(sql: "SELECT count(*) FROM articles_fts WHERE articles_fts MATCH ?", values: [word])[0][0].int64Value
            XCTAssertEqual(Int(hits), rows.filter { $0.body.split(separator: " ").contains { $0 == word } || $0.title.contains(word) }.count,
                           file: file, line: line)
        }
        return rows.count
    }

    func testBackupIsWrittenBesideTheDatabase() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        let backup = try database.backup()
        XCTAssertEqual(database.backupPath, database.path + "-sift-backup")
        XCTAssertEqual(try DatabaseBackup.load(from: database.backupPath), backup)
        XCTAssertEqual(backup.pageSize, 4096)
        XCTAssertEqual(backup.textEncoding, 1)
        XCTAssertTrue(backup.schema.contains { $0.name == "articles" && $0.type == "table" && $0.rootPage > 1 && $0.sql?.hasPrefix("CREATE TABLE") == true })
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        let later = try database.backup()
        XCTAssertNotEqual(later.schemaVersion, backup.schemaVersion)
        XCTAssertTrue(try DatabaseBackup.load(from: database.backupPath)?.schema.contains { $0.name == "articles_fts" } == true, "replaced")
        try database.removeFiles()
        XCTAssertFalse(FileManager.default.fileExists(atPath: database.backupPath), "a new database at the path must not meet an old backup")
        try Data("not json".utf8).write(to: URL(fileURLWithPath: database.backupPath))
        XCTAssertThrowsError(try DatabaseBackup.load(from: database.backupPath)) { XCTAssertEqual(($0 as? SiftError)?.code, .error, "not a corruption of the database") }
    }

    func testSoundFileIsCopiedThroughSQLite() throws {
        let sample = try makeSample(rows: 300)
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: sample.path, into: recovered)
        XCTAssertEqual(report.method, .sqlite)
        XCTAssertEqual(report.tables.map(\.name), ["articles", "sift_fts_sync", "tags"], "the index's own tables are rebuilt, not listed")
        XCTAssertEqual(report.tables.map(\.rowsRecovered), [300, 1, 200])
        XCTAssertEqual(report.rebuiltIndexes, ["articles_fts"])
        XCTAssertEqual(report.lostPages, [])
        XCTAssertEqual(try assertFaithful(recovered, sample.articles), 300)
        XCTAssertEqual(try recovered.syncedIndexes().map(\.index), ["articles_fts"], "the sync record is recovered: the index stays synced")
        try recovered.insert(objects: [Article(nil, "new", "zeppelin")], intoTable: "articles")
        let hits: SearchResults<Article> = try recovered.search("zeppelin", in: "articles_fts")
        XCTAssertEqual(hits.totalCount, 1)
    }

    func testGarbagePagesAreReadAroundAndEveryReadableRowIsRecovered() throws {
        let sample = try makeSample(rows: 2_000)
        let layout = try pages(of: "articles", in: sample.path)
        var generator = SplitMix(seed: 3)
        let damaged = Array(layout.all.filter { $0 != layout.root }.shuffled(using: &generator).prefix(5))
        try damage(sample.path, pages: damaged)
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: sample.path, into: recovered)
        XCTAssertEqual(report.method, .pages)
        XCTAssertTrue(Set(damaged).isSubset(of: report.lostPages), "\(damaged) \(report.lostPages)")
        let articles = try XCTUnwrap(report.tables.first { $0.name == "articles" })
        let count = try assertFaithful(recovered, sample.articles, partial: articles.partialRows)
        XCTAssertEqual(articles.rowsRecovered, count)
        XCTAssertGreaterThan(count, 2_000 - 5 * 60, "at most the rows of the five damaged pages are lost")
        XCTAssertLessThan(count, 2_000)
        XCTAssertEqual(report.tables.first { $0.name == "tags" }?.rowsRecovered, 200)
    }

    func testLeavesCutOffFromTheirTreeAreMatchedToTheirTable() throws {
        let sample = try makeSample(rows: 2_000)
        let root = try pages(of: "articles", in: sample.path).root
        try damage(sample.path, pages: [root])
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: sample.path, into: recovered)
        let articles = try XCTUnwrap(report.tables.first { $0.name == "articles" })
        XCTAssertEqual(articles.rowsRecovered, 2_000, "only the root (interior) page was lost: every leaf is an orphan, matched by its records")
        XCTAssertEqual(articles.rowsFromOrphanPages, 2_000)
        XCTAssertEqual(report.tables.first { $0.name == "tags" }?.rowsRecovered, 200, "no orphan went to the table of another shape")
        XCTAssertEqual(try assertFaithful(recovered, sample.articles), 2_000)
    }

    func testDestroyedSchemaPageNeedsTheBackup() throws {
        let sample = try makeSample(rows: 500)
        try damage(sample.path, pages: [1])
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: sample.path, into: recovered)
        XCTAssertTrue(report.usedBackup)
        XCTAssertEqual(report.tables.map(\.rowsRecovered), [500, 1, 200])
        XCTAssertEqual(try assertFaithful(recovered, sample.articles), 500)

        try FileManager.default.removeItem(atPath: sample.path + "-sift-backup")
        let blind = makeDatabase("blind.db")
        let without = try Database.recover(from: sample.path, into: blind)
        XCTAssertFalse(without.usedBackup)
        XCTAssertEqual(without.rowsRecovered, 0, "without a schema no row can be given a table")
        XCTAssertGreaterThan(without.unassignedRows, 500)
    }

    func testZeroedHeaderAndTruncatedFile() throws {
        let sample = try makeSample(rows: 1_000, backup: false)
        let original = try Data(contentsOf: URL(fileURLWithPath: sample.path))
        var zeroed = original
        zeroed.replaceSubrange(0..<100, with: [UInt8](repeating: 0, count: 100))
        try zeroed.write(to: URL(fileURLWithPath: sample.path))
        let fromZeroed = makeDatabase("zeroed.db")
        let report = try Database.recover(from: sample.path, into: fromZeroed)
        XCTAssertEqual(report.method, .pages, "SQLite does not open a file without its header")
        XCTAssertEqual(report.tables.map(\.rowsRecovered), [1_000, 1, 200], "the page size is guessed, the schema is on page 1 past the header")
        XCTAssertEqual(try assertFaithful(fromZeroed, sample.articles), 1_000)

        let kept = original.count / 4096 * 6 / 10
        try original.prefix(kept * 4096).write(to: URL(fileURLWithPath: sample.path))
        let fromTruncated = makeDatabase("truncated.db")
        let truncated = try Database.recover(from: sample.path, into: fromTruncated)
        XCTAssertEqual(truncated.pageCount, original.count / 4096, "the header still says how long the file was")
        XCTAssertTrue(truncated.lostPages.contains(original.count / 4096))
        XCTAssertGreaterThan(try assertFaithful(fromTruncated, sample.articles), 0)
    }

    func testGarbageOfEveryKindNeverTraps() throws {
        var generator = SplitMix(seed: 99)
        let sample = try makeSample(rows: 200)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sample.path)))
        for round in 0..<40 {
            var bytes = original
            switch round % 4 {
            case 0: bytes = (0..<Int(generator.next() % 20_000)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            case 1: // single bytes flipped anywhere: headers, cell pointers, varints, overflow links
                for _ in 0..<200 { bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            case 2: bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count))))
            default: // plausible page headers over garbage
                for page in stride(from: 0, to: bytes.count, by: 4096) where generator.next() % 3 == 0 {
                    for i in page + 100..<min(page + 4096, bytes.count) { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
                    bytes[page + (page == 0 ? 100 : 0)] = [2, 5, 10, 13][Int(generator.next() % 4)]
                }
            }
            let damaged = path("damaged-\(round).db")
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            let target = makeDatabase("round-\(round).db")
            let report = try Database.recover(from: damaged, into: target, backup: sample.path + "-sift-backup")
            for table in report.tables {
                let quoted = "\"" + table.name.replacingOccurrences(of: "\"", with: "\"\"") + "\""  // names may be damaged too
                XCTAssertEqual(try target.getRows(sql: "SELECT count(*) FROM \(quoted)")[0][0].int64Value, Int64(table.rowsRecovered), table.name)
            }
            target.close()
        }
    }

    /// Pages freed without `secure_delete` keep their rows: deleted rows must not come back as orphans.
    func testFreedPagesDoNotBringDeletedRowsBack() throws {
        let database = makeDatabase("original.db")
        database.setConfig(named: "test.secureDelete", with: { try $0.exec(sql: "PRAGMA secure_delete = OFF") })
        try database.exec(sql: "CREATE TABLE kept(id INTEGER PRIMARY KEY, text TEXT)")
        try database.exec(sql: "CREATE TABLE gone(id INTEGER PRIMARY KEY, text TEXT, n INTEGER)")
        try database.run(transaction: {
            for i in 1...2_000 {
                try database.exec(sql: "INSERT INTO kept VALUES(?, ?)", values: [i, "kept row \(i)"])
                try database.exec(sql: "INSERT INTO gone VALUES(?, ?, ?)", values: [i, "deleted row \(i)", i])
            }
        })
        try database.exec(sql: "DELETE FROM gone WHERE id > 0")
        XCTAssertGreaterThan(try database.getRows(sql: "PRAGMA freelist_count")[0][0].int64Value, 10)
        try database.backup()
        database.close()
        let root = try pages(of: "kept", in: database.path).root
        try damage(database.path, pages: [root])
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: database.path, into: recovered)
        XCTAssertEqual(report.tables.map(\.name), ["kept", "gone"])
        XCTAssertEqual(report.tables.last?.rowsRecovered, 0, "the rows deleted from gone stay deleted")
        XCTAssertEqual(report.tables.first?.rowsRecovered, 2_000)
        XCTAssertEqual(try recovered.getRows(sql: "SELECT count(*) FROM kept WHERE text LIKE 'deleted%'")[0][0].int64Value, 0)
    }

    /// Rows committed to the write-ahead log but not yet checkpointed into the file are recovered from the log.
    func testCommitsStillInTheWriteAheadLogAreRecovered() throws {
        let database = makeDatabase("original.db")
        database.setConfig(named: "test.noCheckpoint", with: { try $0.exec(sql: "PRAGMA wal_autocheckpoint = 0") })
        try database.exec(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT)")
        try database.exec(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO notes(text) SELECT 'checkpointed ' || i FROM n")
        try database.exec(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        try database.exec(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO notes(text) SELECT 'in the log ' || i FROM n")
        try database.backup()
        // A copy of the files as a crash leaves them: the last commit only in the log.
        for suffix in ["", "-wal", "-sift-backup"] { try FileManager.default.copyItem(atPath: database.path + suffix, toPath: path("copy.db") + suffix) }
        database.close()
        var log = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("copy.db-wal"))))
        XCTAssertGreaterThan(log.count, 4096)
        // A leaf of the checkpointed rows (page 3, after the schema and the root) is damaged in the file.
        try damage(path("copy.db"), pages: [3])
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: path("copy.db"), into: recovered)
        XCTAssertEqual(report.method, .pages)
        XCTAssertEqual(report.tables.first?.rowsRecovered, 1_820, "one leaf of 180 checkpointed rows lost")
        XCTAssertEqual(try recovered.getRows(sql: "SELECT count(*) FROM notes WHERE text LIKE 'in the log%'")[0][0].int64Value, 1_000)

        // A log whose last frame is torn (its checksum fails) loses that transaction only, and the log never traps.
        log[log.count - 100] ^= 0xFF
        try Data(log).write(to: URL(fileURLWithPath: path("copy.db-wal")))
        let torn = makeDatabase("torn.db")
        let tornReport = try Database.recover(from: path("copy.db"), into: torn)
        XCTAssertLessThan(tornReport.rowsRecovered, 1_000, "the torn transaction is not applied")
        XCTAssertEqual(tornReport.rowsRecovered, 820)
    }

    /// A WITHOUT ROWID table lives in an index b-tree whose interior pages hold rows too, its key columns first
    /// (here k, n, v for a table declared n, k, v).
    func testWithoutRowidTablesAreReadFromTheirIndexTree() throws {
        let database = makeDatabase("original.db")
        try database.exec(sql: "CREATE TABLE kv(n INTEGER, k TEXT, v TEXT, PRIMARY KEY(k)) WITHOUT ROWID")
        var expected: [String] = []
        try database.run(transaction: {
            for i in 1...3_000 {
                let value = i % 100 == 0 ? String(repeating: "long value \(i) ", count: 400) : "value \(i)"
                try database.exec(sql: "INSERT INTO kv VALUES(?, ?, ?)", values: [i % 7, "key \(i)", value])
                expected.append("key \(i)|\(value)|\(i % 7)")
            }
        })
        database.close()
        let copied = makeDatabase("copied.db")
        XCTAssertEqual(try Database.recover(from: database.path, into: copied).method, .sqlite)
        XCTAssertEqual(Set(try copied.getRows(sql: "SELECT k, v, n FROM kv").map { "\($0[0].stringValue)|\($0[1].stringValue)|\($0[2].int64Value)" }),
                       Set(expected), "through SQLite too")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: database.path))
        bytes.replaceSubrange(0..<100, with: [UInt8](repeating: 0, count: 100))
        try bytes.write(to: URL(fileURLWithPath: database.path))
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: database.path, into: recovered)
        XCTAssertEqual(report.method, .pages)
        XCTAssertEqual(report.tables.first?.rowsRecovered, 3_000)
        let rows = try recovered.getRows(sql: "SELECT k, v, n FROM kv").map { "\($0[0].stringValue)|\($0[1].stringValue)|\($0[2].int64Value)" }
        XCTAssertEqual(Set(rows), Set(expected))
    }

    /// A header whose page count is garbage (but "valid for" the change counter) must not make recovery walk
    /// billions of missing pages.
    func testGarbagePageCountInTheHeaderIsBounded() throws {
        let sample = try makeSample(rows: 100)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sample.path)))
        let pages = bytes.count / 4096
        bytes.replaceSubrange(28..<32, with: [0xFF, 0xFF, 0xFF, 0xF0])
        bytes.replaceSubrange(92..<96, with: bytes[24..<28])
        try Data(bytes).write(to: URL(fileURLWithPath: sample.path))
        try damage(sample.path, pages: [3])
        let report = try Database.recover(from: sample.path, into: makeDatabase("recovered.db"))
        XCTAssertEqual(report.pageCount, pages)
        XCTAssertTrue(report.lostPages.contains(3))
    }

    /// A damaged schema row can name a virtual table otherwise than its `CREATE` statement does: its internal
    /// tables, created with it, must still be recognised as such (they were copied as ordinary tables, and the
    /// rebuild then changed them under the count).
    func testShadowTablesAreKnownByWhatTheVirtualTableCreates() throws {
        let sample = try makeSample(rows: 300)
        let layout = try pages(of: "tags", in: sample.path)
        try RawConnection(path: sample.path).exec(
            "PRAGMA writable_schema = ON; UPDATE sqlite_master SET name = 'articlfs_fts' WHERE name = 'articles_fts'")
        try damage(sample.path, pages: [layout.root])
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: sample.path, into: recovered)
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(report.tables.map(\.name), ["articles", "sift_fts_sync", "tags"])
        XCTAssertEqual(report.rebuiltIndexes, ["articles_fts"])
        XCTAssertEqual(try assertFaithful(recovered, sample.articles), 300)
    }

    /// The schema of a damaged (or crafted) file is not trusted to run anything but the CREATE statement its row
    /// is for.
    func testSchemaRowsRunOnlyTheirCreateStatement() throws {
        let sample = try makeSample(rows: 100)
        try RawConnection(path: sample.path).exec("""
            PRAGMA writable_schema = ON;
            INSERT INTO sqlite_master VALUES('table', 'evil', 'evil', 0, 'PRAGMA user_version = 42');
            INSERT INTO sqlite_master VALUES('view', 'evil2', 'evil2', 0, 'CREATE TABLE sneaky(x)');
            """)
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: sample.path, into: recovered)
        XCTAssertEqual(report.method, .pages, "SQLite refuses the schema")
        XCTAssertEqual(report.problems, [
            "table evil was not recreated: its schema row holds no CREATE TABLE statement",
            "view evil2 was not recreated: its schema row holds no CREATE VIEW statement",
        ])
        XCTAssertEqual(try recovered.getRows(sql: "PRAGMA user_version")[0][0].int64Value, 0)
        XCTAssertEqual(try recovered.getRows(sql: "SELECT count(*) FROM sqlite_master WHERE name = 'sneaky'")[0][0].int64Value, 0)
        XCTAssertEqual(try assertFaithful(recovered, sample.articles), 100)
    }

    func testDestinationMustBeEmptyAndDifferent() throws {
        let sample = try makeSample(rows: 10)
        let target = makeDatabase("target.db")
        try target.exec(sql: "CREATE TABLE t(x)")
        XCTAssertThrowsError(try Database.recover(from: sample.path, into: target)) { XCTAssertEqual(($0 as? SiftError)?.code, .misuse) }
        XCTAssertThrowsError(try Database.recover(from: sample.path, into: Database(withPath: sample.path))) {
            XCTAssertEqual(($0 as? SiftError)?.code, .misuse)
        }
        XCTAssertThrowsError(try Database.recover(from: path("missing.db"), into: makeDatabase("empty.db"))) {
            XCTAssertEqual(($0 as? SiftError)?.code, .cantOpen)
        }
    }

    func testCorruptionIsReportedWithCodes11And26() throws {
        let notADatabase = path("garbage.db")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: notADatabase))
        XCTAssertThrowsError(try Database(withPath: notADatabase).getRows(sql: "SELECT 1")) { error in
            let error = error as? SiftError
            XCTAssertEqual(error?.code, .notADatabase)
            XCTAssertEqual(error?.code.rawValue, 26)
            XCTAssertEqual(error?.isCorruption, true)
        }
        let sample = try makeSample(rows: 2_000)
        let layout = try pages(of: "articles", in: sample.path)
        try damage(sample.path, pages: [layout.root])
        XCTAssertThrowsError(try Database(withPath: sample.path).getRows(sql: "SELECT count(*), sum(length(body)) FROM articles")) { error in
            let error = error as? SiftError
            XCTAssertEqual(error?.code, .corrupt)
            XCTAssertEqual(error?.code.rawValue, 11)
            XCTAssertEqual(error?.isCorruption, true)
        }
        XCTAssertFalse(SiftError(code: .busy, message: "", operation: .step).isCorruption)
    }
}
