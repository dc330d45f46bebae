import Foundation
import XCTest
@testable import Sift

/// The fusion formulas against hand computations, and a hybrid search end to end.
final class HybridSearchTests: XCTestCase {
    func testScoreBlendNormalizesEachSideByHand() {
        // Text: 10, 6, 2 -> 1, 0.5, 0. Vector: 0.9, 0.8, 0.5 -> 1, 0.75, 0.
        let text: [(rowid: Int64, score: Double)] = [(1, 10), (2, 6), (3, 2)]
        let vector: [(rowid: Int64, score: Double)] = [(3, 0.9), (4, 0.8), (1, 0.5)]
        let fused = HybridFusion.default.fuse(text: text, vector: vector)
        // 1: 0.5*1 + 0.5*0 = 0.5; 2: 0.5*0.5 = 0.25; 3: 0 + 0.5*1 = 0.5; 4: 0.5*0.75 = 0.375.
        XCTAssertEqual(fused.map(\.rowid), [1, 3, 4, 2])
        for (got, want) in zip(fused.map(\.score), [0.5, 0.5, 0.375, 0.25]) { XCTAssertEqual(got, want, accuracy: 1e-12) }
        let textHeavy = HybridFusion.scoreBlend(textWeight: 0.8).fuse(text: text, vector: vector)
        // 1: 0.8; 2: 0.4; 3: 0.2; 4: 0.2 * 0.75 = 0.15.
        XCTAssertEqual(textHeavy.map(\.rowid), [1, 2, 3, 4])
        for (got, want) in zip(textHeavy.map(\.score), [0.8, 0.4, 0.2, 0.15]) { XCTAssertEqual(got, want, accuracy: 1e-12) }
    }

    func testScoreBlendOfOneCandidateOrEqualScores() {
        let fused = HybridFusion.default.fuse(text: [(7, 3)], vector: [(8, 0.2), (9, 0.2)])
        // One text candidate and equal vector scores: each normalizes to 1.
        XCTAssertEqual(fused.map(\.rowid), [7, 8, 9])
        XCTAssertEqual(fused.map(\.score), [0.5, 0.5, 0.5])
        XCTAssertEqual(HybridFusion.default.fuse(text: [], vector: []).count, 0)
    }

    func testReciprocalRankFusionByHand() {
        let text: [(rowid: Int64, score: Double)] = [(1, 10), (2, 6), (3, 2)]
        let vector: [(rowid: Int64, score: Double)] = [(3, 0.9), (4, 0.8), (1, 0.5)]
        let fused = HybridFusion.reciprocalRank(k: 60).fuse(text: text, vector: vector)
        let one = 1.0 / 61 + 1.0 / 63, three = 1.0 / 63 + 1.0 / 61, two = 1.0 / 62, four = 1.0 / 62
        XCTAssertEqual(fused.map(\.rowid), [1, 3, 2, 4])
        for (got, want) in zip(fused.map(\.score), [one, three, two, four]) { XCTAssertEqual(got, want, accuracy: 1e-15) }
    }

    func testOnlyTheFirstDepthRowsOfEachSideAreFused() {
        // Depth 2. Text: 10, 6 -> 1, 0; vector: 0.9, 0.8 -> 1, 0. Rows 5 and 6 are below depth on both sides.
        let text: [(rowid: Int64, score: Double)] = [(1, 10), (2, 6), (3, 2), (5, 1)]
        let vector: [(rowid: Int64, score: Double)] = [(3, 0.9), (4, 0.8), (1, 0.5), (6, 0.45)]
        let fused = HybridFusion.default.fuse(text: text, vector: vector, depth: 2)
        // 1: 0.5*1 + 0 (0.5 is below the vector minimum 0.8) = 0.5; 3: 0 + 0.5 = 0.5; 2: 0; 4: 0. Then 5 and 6: each is
        // its side's minimum over the whole lists, 0 either way, so the smaller rowid first.
        XCTAssertEqual(fused.map(\.rowid), [1, 3, 2, 4, 5, 6])
        for (got, want) in zip(fused.map(\.score), [0.5, 0.5, 0, 0, 0, 0]) { XCTAssertEqual(got, want, accuracy: 1e-12) }
        // Reciprocal rank fusion counts ranks 1 and 2 only: 1 gets 1/61 (its vector rank 3 is past the depth), 3 1/61,
        // 2 and 4 1/62; 5 and 6 follow with 0 (1/64 each over the whole lists).
        let rrf = HybridFusion.reciprocalRank(k: 60).fuse(text: text, vector: vector, depth: 2)
        XCTAssertEqual(rrf.map(\.rowid), [1, 3, 2, 4, 5, 6])
        let first: Double = 1.0 / 61, second: Double = 1.0 / 62
        let expected: [Double] = [first, first, second, second, 0, 0]
        for (got, want) in zip(rrf.map(\.score), expected) { XCTAssertEqual(got, want, accuracy: 1e-15) }
    }

    func testInvalidParametersAreNamed() {
        XCTAssertNotNil(HybridFusion.scoreBlend(textWeight: 1.5).invalidity)
        XCTAssertNotNil(HybridFusion.scoreBlend(textWeight: .nan).invalidity)
        XCTAssertNotNil(HybridFusion.reciprocalRank(k: -1).invalidity)
        XCTAssertNil(HybridFusion.default.invalidity)
    }
}

final class HybridSearchDatabaseTests: SiftTestCase {
    func testOneRankedListFromTextAndVector() throws {
        let database = try makeVectorDatabase(dimension: 2, metric: .dot)
        try database.create(virtualTable: "passage_fts", of: PassageIndex.self, syncedWith: "passage")
        try database.insert(objects: [
            Passage(1, [0, 1], text: "coffee beans roasted"),
            Passage(2, [1, 0], text: "tea leaves"),
            Passage(3, [0.9, 0.1], text: "coffee"),
            Passage(4, [0.2, 0.2], text: "water"),
        ], intoTable: "passage")
        let query = SearchQuery("coffee")
        var options = SearchOptions(limit: 3, highlight: ["text"])
        options.ranking = .bm25
        let text: SearchResults<Passage> = try database.search(query, in: "passage_fts", options: options)
        let vector: SearchResults<Passage> = try database.search(nearest: Embedding([1, 0]), in: "passage_vectors")
        let results: SearchResults<Passage> = try database.search(query, nearest: Embedding([1, 0]), in: "passage_fts",
                                                                   vectors: "passage_vectors", options: options)
        let expected = HybridFusion.default.fuse(text: text.hits.map { ($0.rowid, $0.score) }, vector: vector.hits.map { ($0.rowid, $0.score) })
        XCTAssertEqual(results.hits.map(\.rowid), expected.prefix(3).map(\.rowid))
        XCTAssertEqual(results.hits.first?.rowid, 3, "found by both sides")
        XCTAssertEqual(results.hits.first { $0.rowid == 3 }?.highlights["text"], "[coffee]")
        XCTAssertEqual(results.hits.map { $0.object.id.map(Int64.init) }, results.hits.map(\.rowid))
        let rrf: SearchResults<Passage> = try database.search(query, nearest: Embedding([1, 0]), in: "passage_fts", vectors: "passage_vectors",
                                                               where: Passage.Properties.id != 2, options: options,
                                                               hybrid: HybridOptions(fusion: .reciprocalRank(k: 60)))
        XCTAssertFalse(rrf.hits.contains { $0.rowid == 2 })
        XCTAssertEqual(rrf.hits.first?.rowid, 3)
    }

    func testAPageDoesNotDependOnHowDeepTheSearchReads() throws {
        let database = try makeVectorDatabase(dimension: 4, metric: .cosine)
        try database.create(virtualTable: "passage_fts", of: PassageIndex.self, syncedWith: "passage")
        var generator = SplitMix(seed: 41)
        let words = ["coffee", "tea", "water", "milk", "sugar"]
        try database.insert(objects: (1...60).map { id in
            Passage(id, randomVector(4, &generator), text: (0..<4).map { _ in words.randomElement(using: &generator)! }.joined(separator: " "))
        }, intoTable: "passage")
        let query = SearchQuery("coffee tea", mode: .anyTerm), vector = Embedding([1, 0.5, 0, -0.2])
        for fusion in [HybridFusion.default, .reciprocalRank(k: 60)] {
            func page(limit: Int, offset: Int = 0) throws -> [Int64] {
                let results: SearchResults<Passage> = try database.search(
                    query, nearest: vector, in: "passage_fts", vectors: "passage_vectors",
                    options: SearchOptions(limit: limit, offset: offset), hybrid: HybridOptions(fusion: fusion, candidates: 10))
                return results.hits.map(\.rowid)
            }
            let deep = try page(limit: 50)
            XCTAssertEqual(try page(limit: 5), Array(deep.prefix(5)), "\(fusion)")
            // The first 10 rows are each side's 10 candidates or more: page 2 continues page 1.
            XCTAssertEqual(try page(limit: 5, offset: 5), Array(deep[5..<10]), "\(fusion)")
        }
    }
}
