import Foundation
import SiftEvaluation
import XCTest

/// Hand-computed examples; the arithmetic is in the comments. log2(3) = 1.5849625, log2(5) = 2.3219281.
final class MetricsTests: XCTestCase {
    // Binary example: five results, relevant d2 and d4 retrieved at ranks 2 and 4, relevant d9 never
    // retrieved, d1 judged non-relevant, d3/d5 unjudged (non-relevant).
    private let ranking = ["d1", "d2", "d3", "d4", "d5"]
    private let judgments = ["d1": 0, "d2": 1, "d4": 1, "d9": 1]

    func testPrecisionDividesByTheCutoff() {
        // 2 relevant in the top 5 → 2/5; 1 in the top 3 → 1/3; top 10 has only 5 results: 2/10, not 2/5.
        XCTAssertEqual(Metrics.precision(ranking: ranking, judgments: judgments, cutoff: 5), 0.4)
        XCTAssertEqual(Metrics.precision(ranking: ranking, judgments: judgments, cutoff: 3), 1.0 / 3)
        XCTAssertEqual(Metrics.precision(ranking: ranking, judgments: judgments, cutoff: 10), 0.2)
        XCTAssertEqual(Metrics.precision(ranking: [], judgments: judgments, cutoff: 10), 0)
    }

    func testRecallDividesByAllRelevantDocuments() {
        // 3 relevant documents (d2, d4, d9): top 3 holds 1 → 1/3; top 5 holds 2 → 2/3; d9 is never found.
        XCTAssertEqual(Metrics.recall(ranking: ranking, judgments: judgments, cutoff: 3), 1.0 / 3)
        XCTAssertEqual(Metrics.recall(ranking: ranking, judgments: judgments, cutoff: 100), 2.0 / 3)
        XCTAssertEqual(Metrics.recall(ranking: ranking, judgments: ["d1": 0], cutoff: 100), 0)   // nothing relevant
    }

    func testAveragePrecision() {
        // Precision at each relevant rank: d2 at 2 → 1/2, d4 at 4 → 2/4. Sum 1, over 3 relevant → 1/3.
        XCTAssertEqual(Metrics.averagePrecision(ranking: ranking, judgments: judgments), 1.0 / 3)
        // All three relevant at the top: (1/1 + 2/2 + 3/3) / 3 = 1.
        XCTAssertEqual(Metrics.averagePrecision(ranking: ["d9", "d4", "d2", "d1"], judgments: judgments), 1)
        XCTAssertEqual(Metrics.averagePrecision(ranking: [], judgments: judgments), 0)
    }

    func testReciprocalRankWithAndWithoutCutoff() {
        // First relevant (d2) at rank 2 → 1/2; with a cutoff of 1 it is not reached → 0.
        XCTAssertEqual(Metrics.reciprocalRank(ranking: ranking, judgments: judgments), 0.5)
        XCTAssertEqual(Metrics.reciprocalRank(ranking: ranking, judgments: judgments, cutoff: 2), 0.5)
        XCTAssertEqual(Metrics.reciprocalRank(ranking: ranking, judgments: judgments, cutoff: 1), 0)
        XCTAssertEqual(Metrics.reciprocalRank(ranking: [], judgments: judgments), 0)
    }

    func testBinaryNDCG() {
        // DCG@5 = 1/log2(2+1) + 1/log2(4+1) = 0.6309298 + 0.4306766 = 1.0616063
        // Ideal: three relevant documents, all judged → 1/log2(2) + 1/log2(3) + 1/log2(4) = 1 + 0.6309298 + 0.5
        //        = 2.1309298; nDCG@5 = 1.0616063 / 2.1309298 = 0.4981893
        XCTAssertEqual(Metrics.ndcg(ranking: ranking, judgments: judgments, cutoff: 5), 0.49818925746641285, accuracy: 1e-15)
        // @2: DCG = 0.6309298; ideal cut at 2 as well = 1 + 0.6309298 → 0.3868528
        XCTAssertEqual(Metrics.ndcg(ranking: ranking, judgments: judgments, cutoff: 2), 0.38685280723454163, accuracy: 1e-15)
        XCTAssertEqual(Metrics.ndcg(ranking: ranking, judgments: ["d1": 0], cutoff: 10), 0)   // no ideal gain
        XCTAssertEqual(Metrics.ndcg(ranking: [], judgments: judgments, cutoff: 10), 0)
    }

    func testGradedNDCGUsesTheGradeAsGain() {
        // Grades: a 1, b 3, c 0, d 2 (not retrieved), n -1 (negative: no gain, as in trec_eval).
        let graded = ["a": 1, "b": 3, "c": 0, "d": 2, "n": -1]
        let ranking = ["a", "b", "c", "n"]
        // DCG@3 = 1/log2(2) + 3/log2(3) + 0 = 1 + 1.8927893 = 2.8927893
        // Ideal gains sorted 3, 2, 1: 3/1 + 2/log2(3) + 1/log2(4) = 3 + 1.2618595 + 0.5 = 4.7618595
        // nDCG@3 = 2.8927893 / 4.7618595 = 0.6074915; deeper cutoffs add nothing on either side.
        XCTAssertEqual(Metrics.ndcg(ranking: ranking, judgments: graded, cutoff: 3), 0.6074915180456525, accuracy: 1e-15)
        XCTAssertEqual(Metrics.ndcg(ranking: ranking, judgments: graded, cutoff: 10), 0.6074915180456525, accuracy: 1e-15)
        // @1: 1 / 3 (the ideal puts the grade-3 document first).
        XCTAssertEqual(Metrics.ndcg(ranking: ranking, judgments: graded, cutoff: 1), 1.0 / 3, accuracy: 1e-15)
        // For the binary measures every grade ≥ 1 counts the same: a, b, d relevant → AP = (1/1 + 2/2) / 3.
        XCTAssertEqual(Metrics.averagePrecision(ranking: ranking, judgments: graded), 2.0 / 3)
    }

    func testTrecOrderingBreaksTiesByDescendingDocumentIDBytes() {
        let documents = [("b", 1.0), ("a", 1.0), ("c", 2.0), ("a10", 1.0), ("a9", 1.0), ("b", 0.5),
                         ("nan", .nan), ("low", -.infinity), ("A", 1.0)]
            .map { ScoredDocument(id: $0.0, score: $0.1) }
        // 2.0 first; then the 1.0 tie by bytes descending: "b" > "a9" > "a10" > "a" > "A" ("9" 0x39 > "1" 0x31,
        // "a" 0x61 > "A" 0x41); the duplicate "b" keeps its better score; NaN goes last.
        XCTAssertEqual(Run.trecOrdered(documents).map(\.id), ["c", "b", "a9", "a10", "a", "A", "low", "nan"])
        XCTAssertEqual(Run.trecOrdered(documents)[1].score, 1.0)
    }

    func testTiesDecideTheMetricsTheWayTrecEvalDoes() {
        // x and y tie; trec_eval puts y first, so whether x or y is relevant changes every measure.
        let results = [ScoredDocument(id: "x", score: 1), ScoredDocument(id: "y", score: 1)]
        let yRelevant = QueryEvaluation(queryID: "q", results: results, judgments: ["y": 1])
        let xRelevant = QueryEvaluation(queryID: "q", results: results, judgments: ["x": 1])
        XCTAssertEqual(yRelevant.reciprocalRankAt10, 1)
        XCTAssertEqual(xRelevant.reciprocalRankAt10, 0.5)
        XCTAssertEqual(yRelevant.ndcgAt10, 1)
        XCTAssertEqual(xRelevant.ndcgAt10, 1 / log2(3.0))   // 1/log2(3) over an ideal of 1
    }
}
