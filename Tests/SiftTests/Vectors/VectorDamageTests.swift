import Foundation
import XCTest
@testable import Sift

/// Damaged or hostile vector tables: every search still equals brute force over the rows (it scores the rows'
/// own vectors when the blocks do not add up), `verify` names the damage, writes never crash, and a rebuild makes
/// the index exact again.
final class VectorDamageTests: SiftTestCase {
    private let dimension = 6

    private func damaged(_ sql: String, quantization: VectorQuantization = .none, seed: UInt64,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        var generator = SplitMix(seed: seed)
        let name = "damaged-\(seed).db"
        let database = try makeVectorDatabase(dimension: dimension, quantization: quantization, name: name)
        try database.insert(objects: (1...600).map { Passage($0, randomVector(dimension, &generator), group: $0 % 4) },
                            intoTable: "passage")
        try RawConnection(path: path(name)).exec(sql)
        let query = randomVector(dimension, &generator)
        let scan: VectorSearchOptions.Scan = quantization == .none ? .exact : .quantized(candidates: 600)
        try assertNearest(database, query, metric: .cosine, dimension: dimension, limit: 12, scan: scan, file: file, line: line)
        try assertNearest(database, query, metric: .cosine, dimension: dimension, limit: 5, where: Passage.Properties.group == 1,
                          keep: { $0.group == 1 }, scan: scan, file: file, line: line)
        XCTAssertNotEqual(try database.verify(vectorIndex: "passage_vectors"), [], sql, file: file, line: line)
        // Writes over the damage: never a crash; the index stays right or turns stale (searches read the rows).
        try database.delete(fromTable: "passage", where: Passage.Properties.id % 5 == 0)
        try database.insert(objects: (601...620).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        try assertNearest(database, query, metric: .cosine, dimension: dimension, limit: 12, scan: scan, file: file, line: line)
        try database.rebuild(vectorIndex: "passage_vectors")
        XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [], file: file, line: line)
        try assertNearest(database, query, metric: .cosine, dimension: dimension, limit: 12, scan: scan, file: file, line: line)
    }

    func testDamagedBlocks() throws {
        try damaged("UPDATE passage_vectors_blocks SET count = 300 WHERE block = 0", seed: 1)
        try damaged("UPDATE passage_vectors_blocks SET count = -1 WHERE block = 1", seed: 2)
        try damaged("UPDATE passage_vectors_blocks SET count = 255 WHERE block = 0", seed: 3)
        try damaged("UPDATE passage_vectors_blocks SET vector_sum = vector_sum + 1 WHERE block = 1", seed: 4)
        try damaged("UPDATE passage_vectors_blocks SET rowids = zeroblob(2048) WHERE block = 0", seed: 5)
        try damaged("UPDATE passage_vectors_blocks SET rowids = x'00' WHERE block = 2", seed: 6)
        try damaged("DELETE FROM passage_vectors_blocks WHERE block = 1", seed: 7)
        try damaged("UPDATE passage_vectors_blocks SET block = 7 WHERE block = 2", seed: 8)
        try damaged("UPDATE sift_vector_sync SET rows = 9", seed: 9)
    }

    func testDamagedVectorsAndCodes() throws {
        // A vector's bytes changed (to NaN, to another value), a blob cut short or of another type, codes altered.
        try damaged("UPDATE passage_vectors_vectors SET data = x'0000C07F' || substr(data, 5) WHERE block = 0", seed: 11)
        try damaged("UPDATE passage_vectors_vectors SET data = substr(data, 1, 100) || x'01' || substr(data, 102) WHERE block = 1", seed: 12)
        try damaged("UPDATE passage_vectors_vectors SET data = substr(data, 1, 1000) WHERE block = 0", seed: 13)
        try damaged("UPDATE passage_vectors_vectors SET data = 'text' WHERE block = 2", seed: 14)
        try damaged("DELETE FROM passage_vectors_vectors WHERE block = 0", seed: 15)
        try damaged("UPDATE passage_vectors_codes SET data = substr(data, 1, 10) || x'7F' || substr(data, 12) WHERE block = 0",
                    quantization: .int8, seed: 16)
        try damaged("UPDATE passage_vectors_codes SET data = x'' WHERE block = 1", quantization: .int8, seed: 17)
    }

    func testDamagedSlots() throws {
        try damaged("UPDATE passage_vectors_slots SET slot = slot + 1 WHERE rowid = 10", seed: 21)
        try damaged("UPDATE passage_vectors_slots SET slot = 99999999 WHERE rowid = 15", seed: 22)
        try damaged("UPDATE passage_vectors_slots SET slot = -5 WHERE rowid = 20", seed: 23)
        try damaged("DELETE FROM passage_vectors_slots WHERE rowid % 2 = 0", seed: 24)
    }

    func testStaleIndexIsFollowedAgainAfterRebuild() throws {
        var generator = SplitMix(seed: 31)
        let database = try makeVectorDatabase(dimension: dimension)
        try database.insert(objects: (1...50).map { Passage($0, randomVector(dimension, &generator)) }, intoTable: "passage")
        try RawConnection(path: path()).exec("UPDATE sift_vector_sync SET valid = 0")
        try database.insert(objects: Passage(51, randomVector(dimension, &generator)), intoTable: "passage")
        try assertNearest(database, randomVector(dimension, &generator), metric: .cosine, dimension: dimension)
        try database.rebuild(vectorIndex: "passage_vectors")
        try database.insert(objects: Passage(52, randomVector(dimension, &generator)), intoTable: "passage")
        XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [])
    }

    func testImplausibleDeclarationsAreIgnored() throws {
        let database = try makeVectorDatabase(dimension: dimension)
        try RawConnection(path: path()).exec("UPDATE sift_vector_sync SET dimension = 1000000000")
        XCTAssertEqual(try database.vectorIndexes().count, 0)
        XCTAssertThrowsError(try database.search(nearest: Embedding([1]), in: "passage_vectors", of: Passage.self))
        try database.insert(objects: Passage(1, [1, 2]), intoTable: "passage")
    }
}
