import Foundation
import XCTest
@testable import Sift

/// Recovery of crafted files: sizes read from the file never size memory beyond what the file holds, a cell or an
/// overflow chain is read once however many pointers lead to it, and the SQL of the file's schema is never run.
final class HostileRecoveryTests: SiftTestCase {
    static let marker = "hostile-marker"

    /// A synced database of `rows` articles (every 40th long enough for overflow pages) and a table of tags,
    /// closed and backed up.
    private func makeSample(_ name: String = "original.db", rows: Int = 200, mode: SyncMode = .explicit) throws -> String {
        let database = makeDatabase(name)
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", mode: mode)
        try database.exec(sql: "CREATE TABLE tags(tag TEXT, weight REAL)")
        var generator = SplitMix(seed: 17)
        let words = ["harbor", "lantern", "meadow", "copper", "violet", "granite", "willow", "ember", "tundra", "saffron"]
        try database.insert(objects: (1...rows).map { id in
            let count = id % 40 == 0 ? 5_000 : 6 + Int(generator.next() % 20)
            return Article(id, "title \(id)", (0..<count).map { _ in words[Int(generator.next() % 10)] }.joined(separator: " "),
                           views: Int(generator.next() % 1000))
        }, intoTable: "articles")
        for i in 0..<50 { try database.exec(sql: "INSERT INTO tags VALUES(?, ?)", values: ["tag\(i)", Double(i) / 7]) }
        try database.backup()
        database.close()
        return database.path
    }

    private func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    /// Writes `bytes` to `path` without the fsync `Data.write` does.
    private func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw CocoaError(.fileWriteUnknown) }
        defer { fclose(file) }
        guard bytes.isEmpty || fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    /// A write-ahead log (https://sqlite.org/fileformat2.html#walformat) of `frames`, with valid checksums
    /// (little-endian, magic 0x377F0682) and the given salts in the header and in every frame.
    static func log(pageSize: Int, salts: (UInt32, UInt32), frames: [(page: UInt32, commit: UInt32, data: [UInt8])]) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func checksum(_ bytes: [UInt8], _ sums: (UInt32, UInt32)) -> (UInt32, UInt32) {
            var (s0, s1) = sums
            for i in stride(from: 0, to: bytes.count, by: 8) {
                let x0 = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                let x1 = UInt32(bytes[i + 4]) | UInt32(bytes[i + 5]) << 8 | UInt32(bytes[i + 6]) << 16 | UInt32(bytes[i + 7]) << 24
                s0 = s0 &+ x0 &+ s1
                s1 = s1 &+ x1 &+ s0
            }
            return (s0, s1)
        }
        let header = be(0x377F_0682) + be(3_007_000) + be(UInt32(pageSize)) + be(0) + be(salts.0) + be(salts.1)
        var sums = checksum(header, (0, 0))
        var log = header + be(sums.0) + be(sums.1)
        for frame in frames {
            let head = be(frame.page) + be(frame.commit)
            sums = checksum(frame.data, checksum(head, sums))
            log += head + be(salts.0) + be(salts.1) + be(sums.0) + be(sums.1) + frame.data
        }
        return log
    }

    /// The root page of `table` in the (sound) database at `path`.
    private func root(of table: String, in path: String) throws -> Int {
        let database = Database(withPath: path)
        defer { database.close() }
        return Int(try database.getRows(sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", values: [table])[0][0].int64Value)
    }

    private func overwrite(_ bytes: inout [UInt8], page: Int, seed: UInt64, pageSize: Int = 4096) {
        var generator = SplitMix(seed: seed)
        for i in (page - 1) * pageSize..<min(page * pageSize, bytes.count) { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
    }

    // MARK: - Sizes read from the file

    /// A commit frame claiming 2^32 - 1 pages made recovery allocate 17.6 TB and abort; one claiming 100,000 pages
    /// cost 400 MB. The size is believed up to the file's pages plus one page per frame of the log.
    func testCommitFrameSizeIsBoundedByTheFramesInTheLog() throws {
        let path = try makeSample()
        let tags = try XCTUnwrap(try pages(of: "tags", in: path).first)
        var bytes = try read(path)
        let pages = bytes.count / 4096
        let page1 = Array(bytes[0..<4096])
        for claim: UInt32 in [100_000, 0xFFFF_FFFF] {
            let applied = PageFile.applyingWAL(Self.log(pageSize: 4096, salts: (7, 9), frames: [(1, claim, page1)]), to: bytes)
            XCTAssertEqual(applied.bytes.count, (pages + 1) * 4096, "claim \(claim)")
        }
        // A frame for a page past the end, in a log whose last commit claims everything: the page is applied.
        let grown = PageFile.applyingWAL(Self.log(pageSize: 4096, salts: (1, 2), frames: [(UInt32(pages + 1), 0, page1), (1, 0xFFFF_FFFF, page1)]),
                                         to: bytes)
        XCTAssertEqual(grown.bytes.count, (pages + 2) * 4096)
        XCTAssertEqual(Array(grown.bytes[pages * 4096..<(pages + 1) * 4096]), page1)

        // Through recovery, with the file damaged so that its pages are read.
        try write(Self.log(pageSize: 4096, salts: (0xDEAD, 0xBEEF), frames: [(1, 0xFFFF_FFFF, page1)]), to: path + "-wal")
        overwrite(&bytes, page: tags, seed: 1)
        try write(bytes, to: path)
        let report = try Database.recover(from: path, into: makeDatabase("recovered.db"))
        XCTAssertEqual(report.method, .pages)
        XCTAssertLessThanOrEqual(report.pageCount, pages + 1)
        XCTAssertEqual(report.tables.first { $0.name == "articles" }?.rowsRecovered, 200)
    }

    private func pages(of table: String, in path: String) throws -> [Int] {
        let database = Database(withPath: path)
        defer { database.close() }
        return try database.getRows(sql: "SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno", values: [table]).map { Int($0[0].int64Value) }
    }

    // MARK: - Cells and overflow chains

    /// Where the 4-byte overflow link of the table-leaf cell at `cell` (an offset in the file) is, nil when its
    /// payload fits the page (4096-byte pages).
    static func overflowLink(_ bytes: [UInt8], cell: Int) -> Int? {
        guard let size = PageFile.varint(bytes, at: cell, end: bytes.count),
              let rowid = PageFile.varint(bytes, at: cell + size.byteCount, end: bytes.count) else { return nil }
        let payload = Int(clamping: size.value), usable = 4096
        guard payload > usable - 35 else { return nil }
        let minLocal = (usable - 12) * 32 / 255 - 23
        let k = minLocal + (payload - minLocal) % (usable - 4)
        return cell + size.byteCount + rowid.byteCount + (k <= usable - 35 ? k : minLocal)
    }

    /// A table of `rows` rows whose 413 kB blobs each fill a chain of 101 overflow pages (and 489 bytes of their
    /// leaf), in a file written by SQLite; returns its path, its root (a leaf holding the cells) and the cells'
    /// offsets in the page.
    private func makeBlobFile(_ name: String, rows: Int = 1) throws -> (path: String, root: Int, cells: [Int]) {
        let path = self.path(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let raw = try RawConnection(path: path)
        try raw.exec("CREATE TABLE big(id INTEGER PRIMARY KEY, data BLOB)")
        for id in 1...rows { try raw.exec("INSERT INTO big VALUES(\(id), randomblob(413300))") }
        let root = try self.root(of: "big", in: path)
        let bytes = try read(path)
        let offset = (root - 1) * 4096
        let count = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
        let cells = (0..<count).map { Int(bytes[offset + 8 + 2 * $0]) << 8 | Int(bytes[offset + 9 + 2 * $0]) }
        return (path, root, cells)
    }

    /// 200 cell pointers aimed at one cell with a 100-page overflow chain: the cell was read once per pointer
    /// (199 copies of the chain, refused as duplicate rowids; a 16 MB chain took 199 s and 6.6 GB). It is read once.
    func testCellPointersAimedAtOneCellReadItOnce() throws {
        let file = try makeBlobFile("pointers.db")
        var bytes = try read(file.path)
        let offset = (file.root - 1) * 4096
        bytes[offset + 3] = 0
        bytes[offset + 4] = 200
        for i in 0..<200 {
            bytes[offset + 8 + 2 * i] = UInt8(file.cells[0] >> 8)
            bytes[offset + 9 + 2 * i] = UInt8(file.cells[0] & 0xFF)
        }
        try write(bytes, to: file.path)
        let report = try Database.recover(from: file.path, into: makeDatabase("recovered.db"))
        XCTAssertEqual(report.method, .pages)
        XCTAssertEqual(report.tables.map(\.rowsRecovered), [1])
        XCTAssertEqual(report.tables.map(\.rowsRejected), [0], "the cell is read once, not once per pointer")
    }

    /// Two cells (two rowids) whose overflow links lead into the same chain: a real file never shares an overflow
    /// page, and the chain is read for the first cell only; the second keeps its local part.
    func testAnOverflowChainIsReadForOneCellOnly() throws {
        let file = try makeBlobFile("shared.db", rows: 2)
        var bytes = try read(file.path)
        XCTAssertEqual(file.cells.count, 2)
        let offset = (file.root - 1) * 4096
        // The second cell's overflow link is made the first cell's.
        let first = try XCTUnwrap(Self.overflowLink(bytes, cell: offset + file.cells[0]))
        let second = try XCTUnwrap(Self.overflowLink(bytes, cell: offset + file.cells[1]))
        bytes.replaceSubrange(second..<second + 4, with: bytes[first..<first + 4])
        try write(bytes, to: file.path)
        let report = try Database.recover(from: file.path, into: makeDatabase("recovered.db"))
        XCTAssertEqual(report.method, .pages)
        XCTAssertEqual(report.tables.first?.rowsRecovered, 2)
        XCTAssertEqual(report.tables.first?.partialRows, 1, "the chain was copied for both cells")
    }

    /// A cell claiming a payload of about 1 GiB in a 400 kB file: memory was reserved for the claim and the row
    /// recovered as a partial one. A payload the file's pages cannot hold is garbage: the cell is not read.
    func testAPayloadLargerThanTheFileIsNotRead() throws {
        let file = try makeBlobFile("claim.db")
        var bytes = try read(file.path)
        let offset = (file.root - 1) * 4096
        let link = try XCTUnwrap(Self.overflowLink(bytes, cell: offset + file.cells[0]))
        let firstOverflow = Array(bytes[link..<link + 4])
        // A new cell: payload size S with a local part of minLocal bytes, a record whose header claims a blob of
        // S - 7 bytes (header: its size, NULL for the rowid alias, a 5-byte serial type), the same overflow link.
        let minLocal = (4096 - 12) * 32 / 255 - 23
        let size = minLocal + 4_000 + 4092 * 262_398
        func varint(_ value: Int) -> [UInt8] {
            var groups: [UInt8] = []
            var v = value
            repeat { groups.insert(UInt8(v & 0x7F), at: 0); v >>= 7 } while v > 0
            return groups.enumerated().map { $0.offset < groups.count - 1 ? $0.element | 0x80 : $0.element }
        }
        let type = varint(2 * (size - 7) + 12)
        XCTAssertEqual(type.count, 5)
        let record = [7, 0] + type + [UInt8](repeating: 0xAB, count: minLocal - 7)
        let crafted = varint(size) + [1] + record + firstOverflow
        let at = 1_000  // between the pointer array and the real cell, at the end of the page
        bytes.replaceSubrange(offset + at..<offset + at + crafted.count, with: crafted)
        bytes[offset + 8] = UInt8(at >> 8)
        bytes[offset + 9] = UInt8(at & 0xFF)
        try write(bytes, to: file.path)
        XCTAssertLessThan(bytes.count, size / 1000)
        let report = try Database.recover(from: file.path, into: makeDatabase("recovered.db"))
        XCTAssertEqual(report.method, .pages)
        XCTAssertEqual(report.tables.first?.rowsRecovered, 0, "a claim of \(size) bytes in a file of \(bytes.count)")
        XCTAssertEqual(report.tables.first?.partialRows, 0)
    }

    /// An overflow chain that loops back on itself, and one that runs through every page of the file: each page
    /// is followed once, and the chain ends.
    func testLoopingAndLongChainsEnd() throws {
        let file = try makeBlobFile("loop.db")
        var bytes = try read(file.path)
        let pageCount = bytes.count / 4096
        var chained: Set<Int> = []
        let chain = try XCTUnwrap(PageFile(bytes: bytes).cells(of: file.root, chained: &chained)?.cells.first?.overflowPages)
        XCTAssertEqual(chain.count, 101)
        // The 51st page links back to the 11th: a loop.
        let middle = (chain[50] - 1) * 4096
        bytes.replaceSubrange(middle..<middle + 4, with: [0, 0, UInt8(chain[10] >> 8), UInt8(chain[10] & 0xFF)])
        chained = []
        XCTAssertEqual(PageFile(bytes: bytes).cells(of: file.root, chained: &chained)?.cells.first?.overflowPages, Array(chain[...50]),
                       "followed once round, then stopped")
        // Every page of the file linked to the next, the cell claiming all of it: the chain ends at the file's end.
        for page in 2...pageCount where page != file.root {
            let next = page == pageCount ? 0 : page + 1 == file.root ? page + 2 : page + 1
            bytes.replaceSubrange((page - 1) * 4096..<(page - 1) * 4096 + 4, with: [0, 0, UInt8(next >> 8), UInt8(next & 0xFF)])
        }
        let link = try XCTUnwrap(Self.overflowLink(bytes, cell: (file.root - 1) * 4096 + file.cells[0]))
        bytes.replaceSubrange(link..<link + 4, with: [0, 0, 0, 2])
        chained = []
        let long = try XCTUnwrap(PageFile(bytes: bytes).cells(of: file.root, chained: &chained))
        XCTAssertLessThan(long.cells.first?.overflowPages.count ?? 0, pageCount)
        XCTAssertLessThanOrEqual(chained.count, pageCount)
    }

    // MARK: - Schema SQL

    /// Adds `rows` (type, name, table, root page, sql) to the schema of the database at `path`.
    private func addSchemaRows(_ rows: [(String, String, String, Int, String)], to path: String) throws {
        let raw = try RawConnection(path: path)
        try raw.exec("PRAGMA writable_schema = ON")
        for row in rows {
            try raw.exec("INSERT INTO sqlite_master VALUES(\(SchemaParser.literal(row.0)), \(SchemaParser.literal(row.1)), "
                         + "\(SchemaParser.literal(row.2)), \(row.3), \(SchemaParser.literal(row.4)))")
        }
    }

    /// Every text value of every table of `database` (virtual tables aside), to look for what a query would write.
    private func allText(_ database: Database) throws -> [String] {
        var texts: [String] = []
        let tables = try database.getRows(sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")
        for table in tables {
            for row in try database.getRows(sql: "SELECT * FROM \(SchemaParser.quote(table[0].stringValue))") {
                texts += row.filter { $0.type == .text }.map(\.stringValue)
            }
        }
        return texts
    }

    /// A schema row `CREATE TABLE x AS SELECT ...` (in the file's page 1 or in the backup) passed the check of its
    /// prefix and ran: a recursive query made recovery never end, a bounded one wrote what it computed.
    func testSchemaQueriesAreNeverRun() throws {
        let query = "CREATE TABLE x AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000) "
            + "SELECT i, '\(Self.marker)' AS t FROM c"
        let path = try makeSample()
        try addSchemaRows([("table", "x", "x", 0, query)], to: path)
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: path, into: recovered)
        XCTAssertTrue(report.problems.contains("table x was not recreated: CREATE TABLE ... AS runs a query; recovery does not run one from the file"),
                      "\(report.problems)")
        XCTAssertEqual(try recovered.getRows(sql: "SELECT count(*) FROM sqlite_master WHERE name = 'x'")[0][0].int64Value, 0)
        XCTAssertFalse(try allText(recovered).contains(Self.marker))
        XCTAssertEqual(report.tables.first { $0.name == "articles" }?.rowsRecovered, 200)

        // The same row in the backup, page 1 destroyed.
        let copy = try makeSample("copy.db")
        var backup = try XCTUnwrap(try DatabaseBackup.load(from: copy + "-sift-backup"))
        backup.schema.append(DatabaseBackup.SchemaEntry(type: "table", name: "x", tableName: "x", rootPage: 0, sql: query))
        try JSONEncoder().encode(backup).write(to: URL(fileURLWithPath: copy + "-sift-backup"))
        var bytes = try read(copy)
        overwrite(&bytes, page: 1, seed: 3)
        try write(bytes, to: copy)
        let fromBackup = makeDatabase("from-backup.db")
        let backupReport = try Database.recover(from: copy, into: fromBackup)
        XCTAssertTrue(backupReport.usedBackup)
        XCTAssertEqual(try fromBackup.getRows(sql: "SELECT count(*) FROM sqlite_master WHERE name = 'x'")[0][0].int64Value, 0)
        XCTAssertFalse(try allText(fromBackup).contains(Self.marker))
        XCTAssertEqual(backupReport.tables.first { $0.name == "articles" }?.rowsRecovered, 200)
    }

    /// Defaults and CHECK constraints that call functions are left out, named in the report; the table and its
    /// rows are kept. Views and triggers are not recreated; a synced index's triggers are, written by Sift.
    func testConstraintsViewsAndTriggersFromTheFile() throws {
        let path = try makeSample(mode: .trigger)
        try RawConnection(path: path).exec("""
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = 'CREATE TABLE tags(tag TEXT DEFAULT (randomblob(1000000000)), \
            weight REAL CHECK (zeroblob(weight) IS NOT NULL))' WHERE name = 'tags'
            """)
        try addSchemaRows([
            ("index", "tags_weight", "tags", 0, "CREATE INDEX tags_weight ON tags(weight DESC)"),
            ("index", "tags_blob", "tags", 0, "CREATE INDEX tags_blob ON tags(randomblob(1000000))"),
            ("view", "endless", "endless", 0, "CREATE VIEW endless AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c"),
            ("trigger", "spy", "articles", 0, "CREATE TRIGGER spy AFTER INSERT ON articles BEGIN INSERT INTO tags VALUES('\(Self.marker)', 0); END"),
        ], to: path)
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: path, into: recovered)
        XCTAssertEqual(report.problems, [
            "table tags: column tag: DEFAULT left out: calls randomblob()",
            "table tags: column weight: CHECK constraint left out: calls zeroblob()",
            "index tags_blob was not recreated: it indexes an expression that calls randomblob()",
            "view endless was not recreated: recovery does not run the SQL of a damaged file's views and triggers "
                + "(create it again from its definition if you trust it)",
            "trigger spy was not recreated: recovery does not run the SQL of a damaged file's views and triggers "
                + "(create it again from its definition if you trust it)",
        ])
        XCTAssertEqual(report.tables.first { $0.name == "tags" }?.rowsRecovered, 50)
        XCTAssertEqual(try recovered.getRows(sql: "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') ORDER BY name")
            .map { $0[0].stringValue }, ["sift_articles_fts_ad", "sift_articles_fts_ai", "sift_articles_fts_au", "sqlite_autoindex_sift_fts_sync_1",
                                         "tags_weight"])
        // The synced index follows plain SQL writes through the triggers Sift wrote.
        try recovered.exec(sql: "INSERT INTO articles(id, title, body, views) VALUES(1000, 'zeppelin', 'airship', 0)")
        let hits: SearchResults<Article> = try recovered.search("zeppelin", in: "articles_fts")
        XCTAssertEqual(hits.hits.compactMap(\.object.id), [1000])
        XCTAssertFalse(try allText(recovered).contains(Self.marker))
    }
}
