import Foundation
import XCTest
@testable import Sift

/// Every write path keeps the vector blocks exact: after each, `verify(vectorIndex:)` finds nothing and searches
/// equal brute force over the rows.
class VectorSyncTests: SiftTestCase {
    private let dimension = 8
    /// The databases' `vectorCacheLimit`: 0 here; `VectorSyncKeptBlocksTests` runs every test again with blocks kept.
    class var keptBytes: Int { 0 }

    private func assertExact(_ database: Database, _ generator: inout SplitMix, metric: VectorMetric = .cosine,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [], file: file, line: line)
        if Self.keptBytes > 0 { try assertKeptBlocksAgree(database, &generator, file: file, line: line) }
        for _ in 0..<3 {
            try assertNearest(database, randomVector(dimension, &generator), metric: metric, dimension: dimension, limit: 15,
                              file: file, line: line)
        }
    }

    /// With blocks kept from before the last write: the blocks' scan (not the fallback over the rows, which a
    /// kept block failing its checksum would send the search to) gives the same top k from the kept blocks (the
    /// changed ones read again), from kept blocks only, and from the file alone; exact and quantized scans alike.
    private func assertKeptBlocksAgree(_ database: Database, _ generator: inout SplitMix, file: StaticString, line: UInt) throws {
        database.vectorCacheLimit = Self.keptBytes
        let cache = database.pool.attachment(VectorBlockCache.init)
        let query = randomVector(dimension, &generator)
        try database.read { handle in
            guard let index = try VectorIndex.load("passage_vectors", on: handle), case .success(let prepared) = index.prepared(query) else {
                return XCTFail("no index", file: file, line: line)
            }
            let store = VectorStore(index, on: handle)
            let rows = try store.state()?.rows ?? 0
            for reading in [VectorStore.Reading.vectors] + (index.quantization == .none ? [] : [.codes]) {
                func scan(_ cache: VectorBlockCache?) throws -> [VectorCandidate]? {
                    try handle.inSnapshot { try store.nearest(prepared, limit: 12, reading: reading, filter: nil, cache: cache)?.candidates }
                }
                let read = try scan(nil)
                XCTAssertNotNil(read, "\(reading): the blocks read as exact", file: file, line: line)
                let afterWrite = try scan(cache)
                let (hitsBefore, wholeBefore) = (cache.usage.hits, cache.wholeScans)
                let kept = try scan(cache)
                if rows > 0 {
                    XCTAssertGreaterThan(cache.usage.hits, hitsBefore, "blocks scored from memory", file: file, line: line)
                    // Every block kept and unchanged: none of their records read one by one.
                    XCTAssertEqual(cache.wholeScans, wholeBefore + 1, "\(reading): every block from memory", file: file, line: line)
                }
                XCTAssertEqual(afterWrite, read, "\(reading): kept blocks from before the write", file: file, line: line)
                XCTAssertEqual(kept, read, "\(reading): kept blocks", file: file, line: line)
                XCTAssertLessThanOrEqual(cache.usage.bytes, Self.keptBytes, file: file, line: line)
            }
            // The re-rank of a codes scan from the float32 blocks kept (scanned above): the scores of the rows' own vectors.
            if index.quantization != .none {
                try handle.inSnapshot {
                    guard let codes = try store.nearest(prepared, limit: 40, reading: .codes, filter: nil, cache: cache) else {
                        return XCTFail("codes not read", file: file, line: line)
                    }
                    let fromRows = try store.rescored(prepared, codes, cache: nil)
                    let fromKept = try store.rescored(prepared, codes, cache: cache)
                    XCTAssertFalse(fromRows.kept, file: file, line: line)
                    if rows > 0 { XCTAssertTrue(fromKept.kept, "scores from kept blocks", file: file, line: line) }
                    XCTAssertEqual(fromKept.scores, fromRows.scores, "re-rank from kept blocks", file: file, line: line)
                }
            }
        }
    }

    func testInsertUpdateReplaceDeleteOneByOne() throws {
        var generator = SplitMix(seed: 21)
        let database = try makeVectorDatabase(dimension: dimension, quantization: .int8)
        for id in 1...300 { try database.insert(objects: Passage(id, id % 17 == 0 ? nil : randomVector(dimension, &generator)), intoTable: "passage") }
        try assertExact(database, &generator)
        // Updates: new vectors, to NULL, from NULL, and a rowid change.
        for id in stride(from: 1, through: 300, by: 7) {
            try database.update(table: "passage", on: Passage.Properties.embedding, with: [Embedding(randomVector(dimension, &generator))],
                                where: Passage.Properties.id == id)
        }
        try database.exec(sql: "UPDATE passage SET embedding = NULL WHERE id % 11 = 0")
        try database.exec(sql: "UPDATE passage SET id = id + 1000 WHERE id % 13 = 0")
        try assertExact(database, &generator)
        // REPLACE over existing rows, and inserts that replace.
        try database.insertOrReplace(objects: (250...320).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        try database.exec(sql: "REPLACE INTO passage(id, text, \"group\", embedding) VALUES(5, '', 0, NULL)")
        try assertExact(database, &generator)
        // Deletes from the middle, the end, and everything in the last block.
        try database.delete(fromTable: "passage", where: Passage.Properties.id % 3 == 0)
        try database.delete(fromTable: "passage", where: Passage.Properties.id > 280)
        try assertExact(database, &generator)
        try database.delete(fromTable: "passage")
        try assertExact(database, &generator)
        try database.insert(objects: Passage(1, randomVector(dimension, &generator)), intoTable: "passage")
        try assertExact(database, &generator)
    }

    func testBulkInsertAndRolledBackTransactions() throws {
        var generator = SplitMix(seed: 22)
        let database = try makeVectorDatabase(dimension: dimension, metric: .l2, quantization: .binary)
        database.fullTextBulkThreshold = 10
        try database.insert(objects: (1...100).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        // A partial last block, then a bulk insert filling it and adding blocks, with gaps in the rowids.
        try database.insert(objects: (101...150).map { Passage($0 * 2, $0 % 9 == 0 ? nil : randomVector(dimension, &generator)) },
                            intoTable: "passage")
        try database.insert(objects: (400...1000).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        try assertExact(database, &generator, metric: .l2)
        // A bulk insert with one refused vector fails whole.
        let rows = (2000...2050).map { Passage($0, randomVector(dimension, &generator)) }
        rows[30].embedding = Embedding([1])
        XCTAssertThrowsError(try database.insert(objects: rows, intoTable: "passage"))
        try assertExact(database, &generator, metric: .l2)
        // A transaction that rolls back takes its vector writes with it.
        XCTAssertThrowsError(try database.run(transaction: {
            try database.delete(fromTable: "passage", where: Passage.Properties.id < 300)
            try database.insert(objects: Passage(5000, randomVector(dimension, &generator)), intoTable: "passage")
            throw SiftError.misuse("roll back")
        }))
        try assertExact(database, &generator, metric: .l2)
    }

    func testMigrationStepsRebuildAndFollowRenames() throws {
        var generator = SplitMix(seed: 23)
        let database = try makeVectorDatabase(dimension: dimension)
        try database.insert(objects: (1...300).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        let replacement = Embedding(randomVector(dimension, &generator))
        try database.migrate(table: "passage", of: Passage.self, toVersion: 1) { migrator in
            try migrator.exec(sql: "UPDATE passage SET embedding = ? WHERE id <= 40", values: [replacement])
            try migrator.exec(sql: "DELETE FROM passage WHERE id > 290")
            try migrator.rebuildTable()
        }
        try assertExact(database, &generator)
        try database.insert(objects: Passage(999, randomVector(dimension, &generator)), intoTable: "passage")
        try assertExact(database, &generator)
        // A step writing a refused vector fails, and rolls back.
        XCTAssertThrowsError(try database.migrate(table: "passage", of: Passage.self, toVersion: 2) { migrator in
            try migrator.exec(sql: "UPDATE passage SET embedding = x'00' WHERE id = 3")
        })
        try assertExact(database, &generator)
    }

    func testRebuildAndRecovery() throws {
        var generator = SplitMix(seed: 24)
        let database = try makeVectorDatabase(dimension: dimension, metric: .dot, quantization: .int8)
        try database.insert(objects: (1...500).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        try database.rebuild(vectorIndex: "passage_vectors")
        try assertExact(database, &generator, metric: .dot)
        database.close()
        let recovered = makeDatabase("recovered.db")
        let report = try Database.recover(from: path(), into: recovered)
        XCTAssertEqual(report.problems, [])
        try assertExact(recovered, &generator, metric: .dot)
        try recovered.insert(objects: Passage(501, randomVector(dimension, &generator)), intoTable: "passage")
        try assertExact(recovered, &generator, metric: .dot)
    }

    func testAnotherConnectionSeesTheIndexAndFollowsIt() throws {
        var generator = SplitMix(seed: 25)
        let first = try makeVectorDatabase(dimension: dimension)
        try first.insert(objects: (1...20).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        let second = makeDatabase()
        try second.insert(objects: (21...40).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        try second.delete(fromTable: "passage", where: Passage.Properties.id < 5)
        try assertExact(first, &generator)
        try assertExact(second, &generator)
    }
}

/// Every test above again, with vector blocks kept in memory between searches (`Database.vectorCacheLimit`): a kept
/// block is used only while the snapshot holds it unchanged.
/// (Each test is named again here: test discovery on Linux does not run inherited tests.)
final class VectorSyncKeptBlocksTests: VectorSyncTests {
    override class var keptBytes: Int { 64 << 20 }
    override func testInsertUpdateReplaceDeleteOneByOne() throws { try super.testInsertUpdateReplaceDeleteOneByOne() }
    override func testBulkInsertAndRolledBackTransactions() throws { try super.testBulkInsertAndRolledBackTransactions() }
    override func testMigrationStepsRebuildAndFollowRenames() throws { try super.testMigrationStepsRebuildAndFollowRenames() }
    override func testRebuildAndRecovery() throws { try super.testRebuildAndRecovery() }
    override func testAnotherConnectionSeesTheIndexAndFollowsIt() throws { try super.testAnotherConnectionSeesTheIndexAndFollowsIt() }
}
