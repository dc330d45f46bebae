import Foundation
import XCTest
@testable import Sift

/// Vector blocks kept in memory (`Database.vectorCacheLimit`): within the limit, used only at the stamp the
/// snapshot holds, and never for indexes whose blocks have no stamps. (Every write path with blocks kept:
/// `VectorSyncKeptBlocksTests`.)
final class VectorBlockCacheTests: SiftTestCase {
    private let dimension = 8

    private func cache(_ database: Database) -> VectorBlockCache { database.pool.attachment(VectorBlockCache.init) }

    /// A database of `rows` random vectors, blocks kept up to 1 MiB, searched once (which keeps them).
    private func searchedWithBlocksKept(_ rows: Int, metric: VectorMetric, _ generator: inout SplitMix) throws -> Database {
        let database = try makeVectorDatabase(dimension: dimension, metric: metric)
        try database.insert(objects: (1...rows).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        database.vectorCacheLimit = 1 << 20
        try assertNearest(database, randomVector(dimension, &generator), metric: metric, dimension: dimension)
        return database
    }

    func testOffByDefaultAndKeptWithinTheLimit() throws {
        var generator = SplitMix(seed: 41)
        let database = try makeVectorDatabase(dimension: dimension, metric: .dot)
        try database.insert(objects: (1...300).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        try assertNearest(database, randomVector(dimension, &generator), metric: .dot, dimension: dimension)
        XCTAssertEqual(cache(database).usage.fills, 0)
        XCTAssertEqual(database.vectorCacheLimit, 0)
        // Room for the first block (256 vectors of 32 bytes and their rowids) and not the second as well.
        database.vectorCacheLimit = 256 * 40 + 100
        for _ in 0..<3 { try assertNearest(database, randomVector(dimension, &generator), metric: .dot, dimension: dimension) }
        let usage = cache(database).usage
        XCTAssertEqual(usage.bytes, 256 * 40)
        XCTAssertEqual(usage.fills, 1)
        XCTAssertEqual(usage.hits, 2)
        // Deleting every row of the first block: the copy of the block gone is dropped by the next scan.
        try database.delete(fromTable: "passage", where: Passage.Properties.id > 40)
        try assertNearest(database, randomVector(dimension, &generator), metric: .dot, dimension: dimension)
        XCTAssertEqual(cache(database).usage.bytes, 40 * 40)
        database.vectorCacheLimit = 0
        XCTAssertEqual(cache(database).usage.bytes, 0)
    }

    func testBlocksWithoutStampsAreReadEveryTimeUntilRebuilt() throws {
        var generator = SplitMix(seed: 42)
        let database = try makeVectorDatabase(dimension: dimension, quantization: .int8)
        try database.insert(objects: (1...100).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        // An index made before blocks had stamps (and an index of their sums).
        try database.exec(sql: "DROP INDEX passage_vectors_blocks_sums")
        try database.exec(sql: "ALTER TABLE passage_vectors_blocks DROP COLUMN stamp")
        database.vectorCacheLimit = 1 << 20
        try database.insert(objects: (101...120).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        try database.delete(fromTable: "passage", where: Passage.Properties.id == 7)
        for _ in 0..<2 { try assertNearest(database, randomVector(dimension, &generator), metric: .cosine, dimension: dimension) }
        XCTAssertEqual(cache(database).usage.fills, 0)
        XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [])
        // The rebuild gives the blocks stamps; writes keep them.
        try database.rebuild(vectorIndex: "passage_vectors")
        XCTAssertEqual(try database.read { try $0.count("SELECT count(*) FROM passage_vectors_blocks WHERE stamp IS NULL") }, 0)
        try database.insert(objects: Passage(500, randomVector(dimension, &generator)), intoTable: "passage")
        XCTAssertEqual(try database.read { try $0.count("SELECT count(*) FROM passage_vectors_blocks WHERE stamp IS NULL") }, 0)
        for _ in 0..<2 { try assertNearest(database, randomVector(dimension, &generator), metric: .cosine, dimension: dimension) }
        XCTAssertEqual(cache(database).usage.fills, 1)
        XCTAssertEqual(cache(database).usage.hits, 1)
        XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [])
    }
    /// With every block kept, a scan reads no block's record one by one, only their counts, stamps and checksums summed
    /// in one statement: a block whose stamp changed (a write, here made behind Sift's back) sends the scan back to the
    /// records, which keep the block again, and the next scan is whole again.
    func testEveryBlockKeptIsScannedWithoutTheirRecordsUntilAStampChanges() throws {
        var generator = SplitMix(seed: 44)
        let database = try searchedWithBlocksKept(600, metric: .dot, &generator)
        XCTAssertEqual(cache(database).wholeScans, 0, "the first scan reads the records and keeps the blocks")
        try assertNearest(database, randomVector(dimension, &generator), metric: .dot, dimension: dimension)
        XCTAssertEqual(cache(database).wholeScans, 1)
        try database.exec(sql: "UPDATE passage_vectors_blocks SET stamp = stamp + 1 WHERE block = 1")
        try assertNearest(database, randomVector(dimension, &generator), metric: .dot, dimension: dimension)
        XCTAssertEqual(cache(database).wholeScans, 1, "a stamp changed: the records are read")
        XCTAssertEqual(cache(database).usage.fills, 4, "three blocks, the changed one kept again")
        try assertNearest(database, randomVector(dimension, &generator), metric: .dot, dimension: dimension)
        XCTAssertEqual(cache(database).wholeScans, 2)
    }

    func testAKeptBlockDisagreeingWithTheFileIsDropped() throws {
        var generator = SplitMix(seed: 43)
        let database = try searchedWithBlocksKept(300, metric: .l2, &generator)
        XCTAssertEqual(cache(database).usage.bytes, 300 * 40)
        // A checksum changed behind Sift's back, its stamp kept: the copy is dropped, the search scores the rows.
        try database.exec(sql: "UPDATE passage_vectors_blocks SET vector_sum = vector_sum + 1 WHERE block = 0")
        try assertNearest(database, randomVector(dimension, &generator), metric: .l2, dimension: dimension)
        XCTAssertEqual(cache(database).usage.bytes, 44 * 40)
        XCTAssertFalse(try database.verify(vectorIndex: "passage_vectors").isEmpty)
        try database.rebuild(vectorIndex: "passage_vectors")
        try assertNearest(database, randomVector(dimension, &generator), metric: .l2, dimension: dimension)
        XCTAssertEqual(cache(database).usage.bytes, 300 * 40)
    }
}
