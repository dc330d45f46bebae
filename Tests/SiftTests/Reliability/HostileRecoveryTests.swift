import Foundation
import XCTest
@testable import Sift

/// Recovery of crafted files: sizes read from the file never size memory beyond what the file holds.
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
}
