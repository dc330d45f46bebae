import Foundation
import XCTest
@testable import Sift

/// Filtered searches against brute force over the passing rows (each block scanned, each slot's rowid tested), for
/// each metric and scan, after writes that move slots, and over damage.
final class VectorFilterTests: SiftTestCase {
    func testFilteredSearchesMatchBruteForceOverThePassingRows() throws {
        for (n, metric) in VectorMetric.allCases.enumerated() {
            var generator = SplitMix(seed: 40 + UInt64(n))
            let database = try makeVectorDatabase(dimension: 20, metric: metric, quantization: .int8, name: "\(metric).db")
            // 1,100 rows in five blocks, a group each of 0..<10 (10% pass `group == 3`), a few without a vector.
            try database.insert(objects: (1...1100).map { Passage($0, $0 % 37 == 0 ? nil : randomVector(20, &generator), group: $0 % 10) },
                                intoTable: "passage")
            // Slots move: deletes take the last vectors, updates write in place, a REPLACE removes then adds.
            try database.delete(fromTable: "passage", where: Passage.Properties.id % 11 == 0)
            try database.update(table: "passage", on: Passage.Properties.embedding, with: [Embedding(randomVector(20, &generator))],
                                where: Passage.Properties.id % 13 == 3)
            try database.insertOrReplace(objects: Passage(3, randomVector(20, &generator), group: 3), intoTable: "passage")
            let cases: [(Condition, (Passage) -> Bool)] = [
                (Passage.Properties.group == 3, { $0.group == 3 }),            // 10%
                (Passage.Properties.group < 7, { $0.group < 7 }),              // 70%
                (Passage.Properties.id > 1090, { ($0.id ?? 0) > 1090 }),       // the last block's rows
            ]
            for (condition, keep) in cases {
                let query = randomVector(20, &generator)
                for scan in [VectorSearchOptions.Scan.exact, .quantized(candidates: 1100)] {
                    try assertNearest(database, query, metric: metric, dimension: 20, limit: 15, where: condition, keep: keep, scan: scan)
                }
            }
            XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [])
        }
    }

    func testFilteredSearchesOverDamageAndStaleIndexes() throws {
        var generator = SplitMix(seed: 47)
        let database = try makeVectorDatabase(dimension: 8, name: "damaged.db")
        try database.insert(objects: (1...700).map { Passage($0, randomVector(8, &generator), group: $0 % 10) }, intoTable: "passage")
        // Row 3's stored vector (slot 2 of block 0) holds a NaN, and the slots are shuffled (a scan reads the
        // blocks' own rowids): the search still equals brute force over the rows.
        try RawConnection(path: path("damaged.db")).exec(
            "UPDATE passage_vectors_vectors SET data = substr(data, 1, 64) || x'0000C07F' || substr(data, 69) WHERE block = 0; "
                + "UPDATE passage_vectors_slots SET slot = (slot + 1) % 700")
        let query = randomVector(8, &generator)
        try assertNearest(database, query, metric: .cosine, dimension: 8, limit: 9, where: Passage.Properties.group == 3,
                          keep: { $0.group == 3 })
        try RawConnection(path: path("damaged.db")).exec("UPDATE sift_vector_sync SET valid = 0")
        try assertNearest(database, query, metric: .cosine, dimension: 8, limit: 9, where: Passage.Properties.group == 3,
                          keep: { $0.group == 3 })
        try assertNearest(database, query, metric: .cosine, dimension: 8, limit: 9, where: Passage.Properties.group < 8,
                          keep: { $0.group < 8 })
    }

    func testRowFilterSortsAndTestsRowids() {
        let filter = VectorRowFilter(sorting: [9, 3, 3, 1_000_000_000, -4, 9])
        XCTAssertEqual(filter.rowids, [-4, 3, 9, 1_000_000_000])
        XCTAssertTrue([-4, 3, 9, 1_000_000_000].allSatisfy(filter.contains))
        XCTAssertFalse([0, 4, 10, 999_999_999].contains(where: filter.contains))
        let dense = VectorRowFilter(sorting: Array(stride(from: 10, through: 2000, by: 3)))
        XCTAssertTrue(dense.contains(13))
        XCTAssertFalse(dense.contains(14))
        XCTAssertEqual(VectorRowFilter(sorting: []).rowids, [])
    }
}
