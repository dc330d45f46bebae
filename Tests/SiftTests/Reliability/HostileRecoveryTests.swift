import Foundation
import XCTest
@testable import Sift

/// Recovery of crafted files: sizes read from the file never size memory beyond what the file holds, a cell or an
/// overflow chain is read once however many pointers lead to it, and the SQL of the file's schema is never run.
final class HostileRecoveryTests: SiftTestCase {
    static let marker = "hostile-marker"

    /// A thousand recoveries write and remove thousands of files: on Linux they go to memory (/dev/shm) when it
    /// is there.
    override func setUpWithError() throws {
        try super.setUpWithError()
        if FileManager.default.isWritableFile(atPath: "/dev/shm") {
            directory = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("sift-tests-\(UUID().uuidString)", isDirectory: true)
        }
    }

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

    // MARK: - The net

    /// Statements a crafted schema row may hold; each would leave the marker in a table, change the database, or
    /// never end, if recovery ran it.
    static let hostileSQL: [(type: String, sql: String)] = [
        ("table", "CREATE TABLE h AS SELECT '\(marker)' AS v"),
        ("table", "CREATE TABLE h AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i, '\(marker)' FROM c"),
        ("table", "CREATE TABLE IF NOT EXISTS h AS VALUES('\(marker)')"),
        ("table", "CREATE TABLE h(a DEFAULT (randomblob(1000000000)), b DEFAULT '\(marker)')"),
        ("table", "CREATE TABLE h(a CHECK (zeroblob(1000000000) IS NOT NULL))"),
        ("table", "CREATE TABLE h(a, b AS ((SELECT '\(marker)')))"),
        ("table", "CREATE TABLE h(a); INSERT INTO tags VALUES('\(marker)', 0)"),
        ("table", "CREATE TABLE h(a CHECK (a IN (WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c)))"),
        ("table", "CREATE TABLE h(a DEFAULT (load_extension('/nonexistent')))"),
        ("table", "CREATE TEMP TABLE h(a)"),
        ("table", "PRAGMA user_version = 77"),
        ("table", "CREATE TABLE h(a) WITHOUT ROWID AS SELECT 1"),
        ("table", "CREATE TABLE \"h\"\"; PRAGMA user_version = 77; --\"(a)"),
        ("table", "CREATE VIRTUAL TABLE h USING fts5(a, content='tags', rank='\(marker)')"),
        ("table", "CREATE VIRTUAL TABLE h USING fts4(a)"),
        ("table", "CREATE VIRTUAL TABLE h USING fts5vocab(articles_fts, row)"),
        ("table", "CREATE VIRTUAL TABLE h USING fts5(a, tokenize = (SELECT '\(marker)'))"),
        ("table", "CREATE TABLE h(" + (0..<3_000).map { "c\($0)" }.joined(separator: ", ") + ")"),
        ("table", "CREATE TABLE h(a CHECK (" + String(repeating: "(", count: 5_000) + "1" + String(repeating: ")", count: 5_000) + "))"),
        ("table", "CREATE TABLE h('a"),
        ("index", "CREATE INDEX h ON articles((SELECT '\(marker)'))"),
        ("index", "CREATE INDEX h ON articles(randomblob(1000000000))"),
        ("index", "CREATE INDEX h ON tags(tag) WHERE tag IN (SELECT '\(marker)')"),
        ("index", "CREATE INDEX h ON tags(printf('%.*c', 100000000, 'x'))"),
        ("index", "CREATE TABLE h AS SELECT '\(marker)'"),
        ("view", "CREATE VIEW h AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c"),
        ("view", "CREATE TABLE h AS SELECT '\(marker)'"),
        ("trigger", "CREATE TRIGGER h AFTER INSERT ON articles BEGIN INSERT INTO tags VALUES('\(marker)', 0); END"),
        ("trigger", "CREATE TRIGGER h AFTER INSERT ON tags BEGIN SELECT zeroblob(1000000000); END"),
        ("table", "CREATE TABLE h(a INTEGER PRIMARY KEY, b TEXT DEFAULT '\(marker)' CHECK (length(b) < 1000))"),
    ]

    /// At least 1,000 mutants of a small synced database, its write-ahead log and its backup (seeded): commit
    /// frames claiming huge sizes with random salts, cell pointers aimed at one cell, overflow chains that loop or
    /// run long, hostile schema rows in page 1 and in the backup, random bytes, truncation, huge varints, flipped
    /// bytes. Each is recovered: a report or a typed error, never a trap, never a hang, and no schema SQL run (no
    /// table holds what a schema row's query would write, no view or trigger but Sift's own, user_version 0).
    func testHostileFilesGetAReportOrATypedError() throws {
        let original = try makeSample(rows: 200)
        let base = try read(original)
        let sampleBackup = try XCTUnwrap(try DatabaseBackup.load(from: original + "-sift-backup"))
        let pageCount = base.count / 4096
        let tagsRoot = try root(of: "tags", in: original)
        let layout = PageFile(bytes: base)
        let btree = (1...pageCount).filter { layout.kind(of: $0) != nil }
        /// Each b-tree page's cell offsets (in the file), read from its header.
        let cells: [Int: [Int]] = Dictionary(uniqueKeysWithValues: btree.map { page in
            let start = (page - 1) * 4096, h = start + (page == 1 ? 100 : 0)
            let leaf = base[h] == 10 || base[h] == 13
            let count = Int(base[h + 3]) << 8 | Int(base[h + 4])
            return (page, (0..<count).map { start + (Int(base[h + (leaf ? 8 : 12) + 2 * $0]) << 8 | Int(base[h + (leaf ? 9 : 13) + 2 * $0])) })
        })
        let chained = btree.filter { layout.kind(of: $0) == .tableLeaf }.flatMap { page in
            (cells[page] ?? []).compactMap { cell in Self.overflowLink(base, cell: cell).map { (cell: cell, link: $0) } }
        }
        XCTAssertGreaterThan(chained.count, 3)
        var generator = SplitMix(seed: 2024)
        func random(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(generator.next() % UInt64(bound)) }
        func u32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func page(_ number: Int) -> [UInt8] { Array(base[(number - 1) * 4096..<number * 4096]) }

        let damaged = path("mutant.db")
        var mutants = 0
        var outcomes: [String: Int] = [:]
        var kinds: [String: Int] = [:]
        /// The sample's bytes with `row` added to its schema (by SQLite, with writable_schema).
        func withSchemaRow(_ row: (String, String, String, Int, String)) throws -> [UInt8] {
            let scratch = path("scratch.db")
            try write(base, to: scratch)
            try addSchemaRows([row], to: scratch)
            return try read(scratch)
        }
        func recover(_ kind: String, bytes: [UInt8], wal: [UInt8]? = nil, backup: DatabaseBackup? = nil, hostile: String? = nil,
                     file: StaticString = #filePath, line: UInt = #line) throws {
            try write(bytes, to: damaged)
            try? FileManager.default.removeItem(atPath: damaged + "-wal")
            try? FileManager.default.removeItem(atPath: damaged + "-shm")
            if let wal { try write(wal, to: damaged + "-wal") }
            // The sample's backup for half of the mutants, none for the others.
            let backupPath = path("mutant-backup")
            try? FileManager.default.removeItem(atPath: backupPath)
            if let chosen = backup ?? (random(2) == 0 ? sampleBackup : nil) {
                try write(Array(try JSONEncoder().encode(chosen)), to: backupPath)
            }
            let target = makeDatabase("target.db")
            // No fsync: a thousand recoveries must not wait on the disk.
            target.setConfig(named: Database.journalModeConfigName, with: { handle in
                try handle.exec(sql: "PRAGMA journal_mode=MEMORY")
                try handle.exec(sql: "PRAGMA synchronous=OFF")
            }, orderBy: Int.min + 1)
            mutants += 1
            kinds[kind, default: 0] += 1
            do {
                let report = try Database.recover(from: damaged, into: target, backup: backupPath)
                outcomes["report (\(report.method.rawValue))", default: 0] += 1
                XCTAssertEqual(try target.getRows(sql: "PRAGMA user_version")[0][0].int64Value, 0, kind, file: file, line: line)
                XCTAssertEqual(try target.getRows(sql: "SELECT name FROM sqlite_master WHERE type IN ('view', 'trigger') AND name NOT LIKE 'sift\\_%' ESCAPE '\\'")
                    .count, 0, kind, file: file, line: line)
                if let hostile {
                    XCTAssertFalse(try allText(target).contains(Self.marker), "\(kind): \(hostile.prefix(80))", file: file, line: line)
                }
            } catch let error as SiftError {
                outcomes["typed error (\(error.code))", default: 0] += 1
            }
            target.close()
            try target.removeFiles()
        }

        // Write-ahead logs: commit frames claiming huge sizes, random salts, frames for pages far past the end.
        for round in 0..<150 {
            var bytes = base
            if round % 2 == 0 { overwrite(&bytes, page: btree[random(btree.count)], seed: UInt64(round)) }
            let claims = [0xFFFF_FFFF, 1 << 31, random(1 << 32), 1_000_000, pageCount + random(10), 0]
            let frames = (0..<(1 + random(4))).map { i -> (page: UInt32, commit: UInt32, data: [UInt8]) in
                let number = [1, 1 + random(pageCount), pageCount + 1 + random(1000), random(1 << 32)][random(4)]
                var data = page(1 + random(pageCount))
                if random(3) == 0 { data[random(4096)] = UInt8(random(256)) }
                return (UInt32(truncatingIfNeeded: number), UInt32(truncatingIfNeeded: i == 0 || random(2) == 0 ? claims[random(claims.count)] : 0), data)
            }
            var log = Self.log(pageSize: 4096, salts: (UInt32(truncatingIfNeeded: generator.next()), UInt32(truncatingIfNeeded: generator.next())), frames: frames)
            if random(4) == 0 { log[32 + 8 + random(8)] ^= 0xFF }  // a frame's salt no longer the header's
            if random(4) == 0 { log = Array(log.prefix(random(log.count))) }
            try recover("wal", bytes: bytes, wal: log)
        }
        // Cell pointers aimed at one cell (up to as many as the page holds), with its payload size made huge.
        for round in 0..<150 {
            var bytes = base
            let number = btree[random(btree.count)]
            let start = (number - 1) * 4096, h = start + (number == 1 ? 100 : 0)
            let leaf = bytes[h] == 10 || bytes[h] == 13
            let pointers = h + (leaf ? 8 : 12)
            let target = (cells[number] ?? []).isEmpty || random(5) == 0 ? start + 200 + random(3800) : (cells[number] ?? [])[random(cells[number]?.count ?? 0)]
            let count = min(1 + random(2_000), (start + 4096 - pointers) / 2 - 1, (target - pointers) / 2)
            guard count > 0 else { continue }
            bytes.replaceSubrange(h + 3..<h + 5, with: [UInt8(count >> 8), UInt8(count & 0xFF)])
            for i in 0..<count { bytes.replaceSubrange(pointers + 2 * i..<pointers + 2 * i + 2, with: [UInt8((target - start) >> 8), UInt8((target - start) & 0xFF)]) }
            if round % 3 == 0 { bytes.replaceSubrange(target..<target + 5, with: [0x83, 0xFF, 0xFF, 0xFF, 0x7F]) }  // a payload of about 1 GiB
            try recover("pointers", bytes: bytes)
        }
        // Overflow chains that loop, end on a page of another tree, point past the end, or run through every page.
        for round in 0..<150 {
            var bytes = base
            let cell = chained[random(chained.count)]
            let first = Int(bytes[cell.link]) << 24 | Int(bytes[cell.link + 1]) << 16 | Int(bytes[cell.link + 2]) << 8 | Int(bytes[cell.link + 3])
            switch round % 5 {
            case 0: bytes.replaceSubrange((first - 1) * 4096..<(first - 1) * 4096 + 4, with: u32(first))  // a page linking to itself
            case 1: bytes.replaceSubrange(cell.link..<cell.link + 4, with: u32([1, 0, pageCount + 1 + random(100), random(1 << 32)][random(4)]))
            case 2: // every page linked to the next, the first page of the chain first, the payload size raised
                for number in 2...pageCount {
                    bytes.replaceSubrange((number - 1) * 4096..<(number - 1) * 4096 + 4, with: u32(number == pageCount ? 2 : number + 1))
                }
                bytes.replaceSubrange(cell.cell..<cell.cell + 3, with: [0xFF, 0xFF, 0x7F])
            case 3: // the chain's pages linked into a loop through a random page
                for number in [first, 1 + random(pageCount), 1 + random(pageCount)] where number > 1 {
                    bytes.replaceSubrange((number - 1) * 4096..<(number - 1) * 4096 + 4, with: u32(first))
                }
            default: // another cell's chain: two cells sharing one
                let other = chained[random(chained.count)]
                bytes.replaceSubrange(cell.link..<cell.link + 4, with: bytes[other.link..<other.link + 4])
            }
            if random(2) == 0 { overwrite(&bytes, page: btree[random(btree.count)], seed: UInt64(round)) }
            try recover("chains", bytes: bytes)
        }
        // Hostile schema rows: in page 1 (the file otherwise sound, or damaged), or in the backup (page 1 destroyed).
        for (i, hostile) in Self.hostileSQL.enumerated() {
            for root in [0, tagsRoot] {
                let table = hostile.type == "index" ? "tags" : "h\(root)"
                var bytes = try withSchemaRow((hostile.type, "h\(root)", table, root, hostile.sql))
                if i % 2 == 1 { overwrite(&bytes, page: btree[random(btree.count)], seed: UInt64(i)) }
                try recover("schema", bytes: bytes, hostile: hostile.sql)
                var withHostile = sampleBackup
                withHostile.schema.append(DatabaseBackup.SchemaEntry(type: hostile.type, name: "h\(root)", tableName: table, rootPage: root, sql: hostile.sql))
                var destroyed = base
                overwrite(&destroyed, page: 1, seed: UInt64(i))
                try recover("schema", bytes: destroyed, backup: withHostile, hostile: hostile.sql)
            }
        }
        // Random bytes: whole files, and pages of the database overwritten.
        for round in 0..<100 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<random(40_000)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                bytes = base
                for _ in 0..<(1 + random(6)) { overwrite(&bytes, page: 1 + random(pageCount), seed: generator.next()) }
            }
            try recover("random bytes", bytes: bytes)
        }
        // Truncation anywhere (the header then says more pages than there are).
        for _ in 0..<100 { try recover("truncated", bytes: Array(base.prefix(random(base.count)))) }
        // Huge varints: a cell's payload size and rowid, and a record header's lengths, made 9 bytes of 0xFF.
        for round in 0..<100 {
            var bytes = base
            let number = btree[random(btree.count)]
            guard let cell = cells[number]?.randomElement(using: &generator) else { continue }
            let at = cell + [0, 1, 2, 3, 4, 5, 8][round % 7]
            bytes.replaceSubrange(at..<min(at + 9, bytes.count), with: [UInt8](repeating: round % 2 == 0 ? 0xFF : 0x80, count: min(9, bytes.count - at)))
            try recover("huge varints", bytes: bytes)
        }
        // Bytes flipped anywhere.
        for _ in 0..<150 {
            var bytes = base
            for _ in 0..<(1 + random(50)) { bytes[random(bytes.count)] = UInt8(random(256)) }
            try recover("flipped bytes", bytes: bytes)
        }
        print("hostile recovery mutants: \(mutants); by kind: \(kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
              + "outcomes: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        XCTAssertGreaterThanOrEqual(mutants, 1_000)
    }
}
