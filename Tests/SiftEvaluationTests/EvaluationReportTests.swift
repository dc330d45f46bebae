import SiftEvaluation
import XCTest

final class EvaluationReportTests: XCTestCase {
    // q1 is answered perfectly, q2 is judged but gets no results, q3 has nothing relevant, q9 is not judged.
    private let qrels = Qrels(["q1": ["a": 1], "q2": ["b": 1], "q3": ["c": 0]])
    private let run = Run(results: ["q1": [ScoredDocument(id: "a", score: 3)],
                                    "q3": [ScoredDocument(id: "c", score: 1)],
                                    "q9": [ScoredDocument(id: "z", score: 1)]])

    func testAveragesOverQueriesWithARelevantDocumentCountingMissingResultsAsZero() {
        let report = EvaluationReport(run: run, qrels: qrels)
        XCTAssertEqual(report.perQuery.map(\.queryID), ["q1", "q2"])
        XCTAssertEqual(report.perQuery[0], QueryEvaluation(queryID: "q1", relevantCount: 1, retrievedCount: 1,
            ndcgAt10: 1, averagePrecision: 1, recallAt100: 1, reciprocalRankAt10: 1, precisionAt10: 0.1))
        XCTAssertEqual(report.perQuery[1], QueryEvaluation(queryID: "q2", relevantCount: 1, retrievedCount: 0,
            ndcgAt10: 0, averagePrecision: 0, recallAt100: 0, reciprocalRankAt10: 0, precisionAt10: 0))
        // Means over q1 and q2: (1 + 0) / 2 each; P@10 (0.1 + 0) / 2 = 0.05.
        XCTAssertEqual(report.summary, EvaluationSummary(ndcgAt10: 0.5, map: 0.5, recallAt100: 0.5, mrrAt10: 0.5,
                                                         precisionAt10: 0.05, queryCount: 2, queriesWithoutResults: 1))
        XCTAssertEqual(report.ignoredQueryIDs, ["q3", "q9"])
        XCTAssertEqual(report.summary.description,
                       "nDCG@10 0.5000  MAP 0.5000  R@100 0.5000  MRR@10 0.5000  P@10 0.0500  queries 2 (1 without results)")
    }

    func testEmptyRunAndEmptyJudgmentsGiveZerosNotNaN() {
        let emptyRun = EvaluationReport(run: Run(), qrels: qrels).summary
        XCTAssertEqual(emptyRun.queryCount, 2)
        XCTAssertEqual(emptyRun.queriesWithoutResults, 2)
        XCTAssertEqual([emptyRun.ndcgAt10, emptyRun.map, emptyRun.recallAt100, emptyRun.mrrAt10, emptyRun.precisionAt10],
                       [0, 0, 0, 0, 0])
        let nothingJudged = EvaluationReport(run: run, qrels: Qrels()).summary
        XCTAssertEqual(nothingJudged.queryCount, 0)
        XCTAssertEqual(nothingJudged.map, 0)
    }

    func testPerQueryRowsAreInNaturalIDOrder() {
        let judged = Qrels(["10": ["a": 1], "2": ["a": 1], "b": ["a": 1], "a": ["a": 1]])
        XCTAssertEqual(EvaluationReport(run: Run(), qrels: judged).perQuery.map(\.queryID), ["2", "10", "a", "b"])
    }
}
