import SiftEvaluation
import XCTest

/// Expected values were produced by pytrec_eval (the `pytrec-eval-terrier` 0.5.11 wheel, trec_eval
/// 9.0.8 inside): `SyntheticCollection.run` was written with `TRECRunFile.write`, its judgments as a
/// BEIR qrels.tsv, and both scored with
/// `RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recall.100", "P.10", "recip_rank"})`.
/// trec_eval has no MRR cut-off, so MRR@10 is `recip_rank` on each query's top 10 in trec_eval order
/// (score descending, docid descending). Means are over the six queries with a relevant judgment,
/// q3 (no results) counting 0 — pytrec_eval leaves it out of its output. Its values matched ours to
/// the last bit; the tolerance only allows for a different summation order.
final class PytrecEvalCrossCheckTests: XCTestCase {
    private struct Expected {
        var ndcg10, map, recall100, mrr10, p10: Double
    }

    private let perQuery: [String: Expected] = [
        "10": Expected(ndcg10: 0.4415801103577823, map: 0.24285714285714285, recall100: 1.0, mrr10: 0.2, p10: 0.2),
        "q1": Expected(ndcg10: 0.22486036416572236, map: 0.142745250819114, recall100: 0.5172413793103449, mrr10: 1.0, p10: 0.1),
        "q2": Expected(ndcg10: 0.49832902301299464, map: 0.41111111111111115, recall100: 1.0, mrr10: 0.3333333333333333, p10: 0.3),
        "q3": Expected(ndcg10: 0, map: 0, recall100: 0, mrr10: 0, p10: 0),   // not in pytrec_eval's output: no results
        "q6": Expected(ndcg10: 0.66967181649423, map: 0.5833333333333333, recall100: 1.0, mrr10: 0.5, p10: 0.2),
        "q7": Expected(ndcg10: 0.0, map: 0.08333333333333333, recall100: 1.0, mrr10: 0.0, p10: 0.0),  // recip_rank 1/12
    ]

    func testPerQueryValuesMatchPytrecEval() {
        let report = EvaluationReport(run: SyntheticCollection.run, qrels: SyntheticCollection.qrels)
        XCTAssertEqual(report.perQuery.map(\.queryID), ["10", "q1", "q2", "q3", "q6", "q7"])
        for row in report.perQuery {
            guard let expected = perQuery[row.queryID] else { continue }
            XCTAssertEqual(row.ndcgAt10, expected.ndcg10, accuracy: 1e-15, "nDCG@10 \(row.queryID)")
            XCTAssertEqual(row.averagePrecision, expected.map, accuracy: 1e-15, "AP \(row.queryID)")
            XCTAssertEqual(row.recallAt100, expected.recall100, accuracy: 1e-15, "R@100 \(row.queryID)")
            XCTAssertEqual(row.reciprocalRankAt10, expected.mrr10, accuracy: 1e-15, "RR@10 \(row.queryID)")
            XCTAssertEqual(row.precisionAt10, expected.p10, accuracy: 1e-15, "P@10 \(row.queryID)")
        }
        // pytrec_eval's uncut recip_rank for q7 is 1/12: the relevant document sits at rank 12.
        let q7 = Run.trecOrdered(SyntheticCollection.run.results["q7"]!).map(\.id)
        XCTAssertEqual(Metrics.reciprocalRank(ranking: q7, judgments: SyntheticCollection.qrels["q7"]), 1.0 / 12)
    }

    func testMeansMatchPytrecEval() {
        let summary = EvaluationReport(run: SyntheticCollection.run, qrels: SyntheticCollection.qrels).summary
        XCTAssertEqual(summary.queryCount, 6)
        XCTAssertEqual(summary.queriesWithoutResults, 1)
        XCTAssertEqual(summary.ndcgAt10, 0.30574021900512155, accuracy: 1e-15)
        XCTAssertEqual(summary.map, 0.24389669524233906, accuracy: 1e-15)
        XCTAssertEqual(summary.recallAt100, 0.7528735632183908, accuracy: 1e-15)
        XCTAssertEqual(summary.mrrAt10, 0.33888888888888885, accuracy: 1e-15)
        XCTAssertEqual(summary.precisionAt10, 0.13333333333333333, accuracy: 1e-15)
    }
}
