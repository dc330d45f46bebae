import Foundation
import XCTest
@testable import Sift

/// Exact top-k against brute force over the rows, for each metric and the edges of the input.
final class VectorSearchTests: SiftTestCase {
    func testExactTopKMatchesBruteForceForEachMetric() throws {
        for (n, metric) in VectorMetric.allCases.enumerated() {
            var generator = SplitMix(seed: UInt64(n))
            let database = try makeVectorDatabase(dimension: 24, metric: metric, name: "\(metric).db")
            // 600 rows: several blocks of 256, the last one partial.
            try database.insert(objects: (1...600).map { Passage($0, randomVector(24, &generator)) }, intoTable: "passage")
            for _ in 0..<5 {
                try assertNearest(database, randomVector(24, &generator), metric: metric, dimension: 24, limit: 17)
            }
            XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [])
        }
    }

    func testTiesAndDuplicatesRankTheSmallerRowidFirst() throws {
        // Integer values: every score is exact in float, so ties are ties.
        let database = try makeVectorDatabase(dimension: 3, metric: .dot)
        let rows: [[Float]] = [[1, 0, 0], [0, 1, 0], [1, 0, 0], [2, 0, 0], [1, 0, 0], [0, 0, 1], [2, 0, 0]]
        try database.insert(objects: rows.enumerated().map { Passage($0.offset + 1, $0.element) }, intoTable: "passage")
        let results: SearchResults<Passage> = try database.search(nearest: Embedding([1, 0, 0]), in: "passage_vectors",
                                                                   options: VectorSearchOptions(limit: 5))
        XCTAssertEqual(results.hits.map(\.rowid), [4, 7, 1, 3, 5])
        XCTAssertEqual(results.hits.map(\.score), [2, 2, 1, 1, 1])
        let page: SearchResults<Passage> = try database.search(nearest: Embedding([1, 0, 0]), in: "passage_vectors",
                                                                options: VectorSearchOptions(limit: 2, offset: 3))
        XCTAssertEqual(page.hits.map(\.rowid), [3, 5])
    }

    func testDimensionOneAnd4096() throws {
        var generator = SplitMix(seed: 7)
        let one = try makeVectorDatabase(dimension: 1, metric: .l2, name: "one.db")
        try one.insert(objects: (1...50).map { Passage($0, [Float($0 % 13)]) }, intoTable: "passage")
        try assertNearest(one, [4.2], metric: .l2, dimension: 1, limit: 5)
        let wide = try makeVectorDatabase(dimension: 4096, name: "wide.db")
        try wide.insert(objects: (1...20).map { Passage($0, randomVector(4096, &generator)) }, intoTable: "passage")
        try assertNearest(wide, randomVector(4096, &generator), metric: .cosine, dimension: 4096, limit: 6)
    }

    func testRefusedVectorsFailTheirStatementAndLeaveNoRow() throws {
        let database = try makeVectorDatabase(dimension: 4)
        try database.insert(objects: Passage(1, [1, 2, 3, 4]), intoTable: "passage")
        func failure(_ values: [Float]) -> VectorFailure? {
            do {
                try database.insert(objects: Passage(2, values), intoTable: "passage")
                return nil
            } catch let error as SiftError {
                return error.vectorFailure
            } catch {
                return nil
            }
        }
        XCTAssertEqual(failure([1, 2, 3]), .wrongDimension(expected: 4, actual: 3))
        XCTAssertEqual(failure([1, .nan, 3, 4]), .notFinite(position: 1))
        XCTAssertEqual(failure([1, 2, .infinity, 4]), .notFinite(position: 2))
        XCTAssertEqual(failure([0, 0, 0, 0]), .zeroVector)
        XCTAssertEqual((try database.getObjects(fromTable: "passage") as [Passage]).count, 1, "the refused rows are not written")
        // An update to a refused vector fails too, and the row keeps its vector.
        XCTAssertThrowsError(try database.update(table: "passage", on: Passage.Properties.embedding, with: [Embedding([1, 1])],
                                                 where: Passage.Properties.id == 1))
        XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [])
        try assertNearest(database, [1, 2, 3, 4], metric: .cosine, dimension: 4)
        // And the query: its dimension and values.
        for bad in [[Float](repeating: 1, count: 5), [1, 2, .nan, 4]] {
            XCTAssertThrowsError(try database.search(nearest: Embedding(bad), in: "passage_vectors", of: Passage.self)) { error in
                XCTAssertNotNil((error as? SiftError)?.vectorFailure)
            }
        }
    }

    func testFilteredSearchKeepsOnlyRowsMeetingTheCondition() throws {
        var generator = SplitMix(seed: 11)
        let database = try makeVectorDatabase(dimension: 16)
        try database.insert(objects: (1...700).map { Passage($0, randomVector(16, &generator), group: $0 % 10) }, intoTable: "passage")
        for _ in 0..<3 {
            try assertNearest(database, randomVector(16, &generator), metric: .cosine, dimension: 16, limit: 12,
                              where: Passage.Properties.group == 3, keep: { $0.group == 3 })
        }
        try assertNearest(database, randomVector(16, &generator), metric: .cosine, dimension: 16,
                          where: Passage.Properties.group > 100, keep: { _ in false })
    }

    func testRowsWithoutVectorsAreLeftOut() throws {
        let database = try makeVectorDatabase(dimension: 2, metric: .dot)
        try database.insert(objects: [Passage(1, nil), Passage(2, [1, 1]), Passage(3, nil)], intoTable: "passage")
        let results: SearchResults<Passage> = try database.search(nearest: Embedding([1, 0]), in: "passage_vectors")
        XCTAssertEqual(results.hits.map(\.rowid), [2])
    }

    func testQuantizedScansReRankWithExactScores() throws {
        var generator = SplitMix(seed: 5)
        for quantization in [VectorQuantization.int8, .binary] {
            let database = try makeVectorDatabase(dimension: 32, metric: .cosine, quantization: quantization, name: "\(quantization).db")
            try database.insert(objects: (1...400).map { Passage($0, randomVector(32, &generator)) }, intoTable: "passage")
            // With every row a candidate the re-rank is exact.
            try assertNearest(database, randomVector(32, &generator), metric: .cosine, dimension: 32,
                              scan: .quantized(candidates: 400))
            let query = randomVector(32, &generator)
            let results: SearchResults<Passage> = try database.search(nearest: Embedding(query), in: "passage_vectors",
                                                                       options: VectorSearchOptions(limit: 10, scan: .quantized(candidates: 80)))
            XCTAssertEqual(results.hits.count, 10)
            for hit in results.hits {
                XCTAssertEqual(hit.score, bruteScore(query, hit.object.embedding?.values ?? [], .cosine), accuracy: 1e-4)
            }
            XCTAssertEqual(try database.verify(vectorIndex: "passage_vectors"), [])
        }
        let plain = try makeVectorDatabase(dimension: 2, name: "plain.db")
        XCTAssertThrowsError(try plain.search(nearest: Embedding([1, 0]), in: "passage_vectors", of: Passage.self,
                                              options: VectorSearchOptions(scan: .quantized(candidates: 10))))
    }

    func testEmbeddingStoresLittleEndianFloat32() throws {
        let embedding = Embedding([1, -2.5])
        XCTAssertEqual(Array(embedding.data), [0, 0, 0x80, 0x3F, 0, 0, 0x20, 0xC0])
        XCTAssertEqual(Embedding(data: embedding.data), embedding)
        XCTAssertNil(Embedding(data: Data([1, 2, 3])))
    }

    func testDeclarationsAreCheckedAndKept() throws {
        let database = try makeVectorDatabase(dimension: 8, metric: .dot, quantization: .int8)
        let listed = try database.vectorIndexes()
        XCTAssertEqual(listed.map(\.index), ["passage_vectors"])
        XCTAssertEqual(listed.first?.binding, VectorIndexBinding(column: "embedding", dimension: 8, metric: .dot, quantization: .int8))
        XCTAssertThrowsError(try database.create(vectorIndex: "v2", with: VectorIndexBinding(column: "nope", dimension: 8), syncedWith: "passage"))
        XCTAssertThrowsError(try database.create(vectorIndex: "v2", with: VectorIndexBinding(column: "embedding", dimension: 0), syncedWith: "passage"))
        XCTAssertThrowsError(try database.create(vectorIndex: "passage", with: VectorIndexBinding(column: "embedding", dimension: 8), syncedWith: "passage"))
        try database.exec(sql: "CREATE TABLE mine_slots(x)")
        XCTAssertThrowsError(try database.create(vectorIndex: "mine", with: VectorIndexBinding(column: "embedding", dimension: 8),
                                                 syncedWith: "passage"))
        XCTAssertTrue(try database.isTableExists("mine_slots"))
        XCTAssertEqual(try database.vectorIndexes().map(\.index), ["passage_vectors"])
        try database.drop(vectorIndex: "passage_vectors")
        XCTAssertEqual(try database.vectorIndexes().count, 0)
        try database.insert(objects: Passage(1, [1]), intoTable: "passage")  // nothing follows the column any more
    }
}
