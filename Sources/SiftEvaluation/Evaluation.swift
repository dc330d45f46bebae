import Foundation

/// The standard measures for one query, as reported per query by trec_eval.
public struct QueryEvaluation: Sendable, Hashable {
    /// The query the row is for.
    public var queryID: String
    /// Judged relevant documents: the denominator of recall and average precision.
    public var relevantCount: Int
    /// Distinct documents the run returned; 0 means the query scores 0 everywhere.
    public var retrievedCount: Int
    /// `Metrics.ndcg` at 10, the headline number of BEIR tables.
    public var ndcgAt10: Double
    /// Over the full ranking, not cut at any depth.
    public var averagePrecision: Double
    /// `Metrics.recall` at 100: how much a re-ranker working on the top 100 could still find.
    public var recallAt100: Double
    /// `Metrics.reciprocalRank` cut at 10, as BEIR reports MRR@10.
    public var reciprocalRankAt10: Double
    /// `Metrics.precision` at 10.
    public var precisionAt10: Double

    /// Creates a row; normally produced by `EvaluationReport`.
    public init(queryID: String, relevantCount: Int, retrievedCount: Int, ndcgAt10: Double,
                averagePrecision: Double, recallAt100: Double, reciprocalRankAt10: Double, precisionAt10: Double) {
        self.queryID = queryID
        self.relevantCount = relevantCount
        self.retrievedCount = retrievedCount
        self.ndcgAt10 = ndcgAt10
        self.averagePrecision = averagePrecision
        self.recallAt100 = recallAt100
        self.reciprocalRankAt10 = reciprocalRankAt10
        self.precisionAt10 = precisionAt10
    }

    /// Scores one query's ranking (any order; it is put in trec_eval order first).
    public init(queryID: String, results: [ScoredDocument], judgments: [String: Int]) {
        let ranking = Run.trecOrdered(results).map(\.id)
        self.init(
            queryID: queryID,
            relevantCount: judgments.values.filter { $0 >= Qrels.relevanceThreshold }.count,
            retrievedCount: ranking.count,
            ndcgAt10: Metrics.ndcg(ranking: ranking, judgments: judgments, cutoff: 10),
            averagePrecision: Metrics.averagePrecision(ranking: ranking, judgments: judgments),
            recallAt100: Metrics.recall(ranking: ranking, judgments: judgments, cutoff: 100),
            reciprocalRankAt10: Metrics.reciprocalRank(ranking: ranking, judgments: judgments, cutoff: 10),
            precisionAt10: Metrics.precision(ranking: ranking, judgments: judgments, cutoff: 10))
    }
}

/// Means over the evaluated queries: the numbers BEIR-style tables report.
public struct EvaluationSummary: Sendable, Hashable, CustomStringConvertible {
    /// Mean nDCG@10.
    public var ndcgAt10: Double
    /// Mean average precision, over full rankings.
    public var map: Double
    /// Mean recall@100.
    public var recallAt100: Double
    /// Mean reciprocal rank, cut at 10.
    public var mrrAt10: Double
    /// Mean precision@10.
    public var precisionAt10: Double
    /// Queries averaged over: those with at least one relevant judgment.
    public var queryCount: Int
    /// Of those, how many the run had no results for; each adds 0 to every mean, so a high count
    /// usually means query IDs that do not match the judgments.
    public var queriesWithoutResults: Int

    /// Creates a summary; normally produced by `EvaluationReport`.
    public init(ndcgAt10: Double, map: Double, recallAt100: Double, mrrAt10: Double, precisionAt10: Double,
                queryCount: Int, queriesWithoutResults: Int) {
        self.ndcgAt10 = ndcgAt10
        self.map = map
        self.recallAt100 = recallAt100
        self.mrrAt10 = mrrAt10
        self.precisionAt10 = precisionAt10
        self.queryCount = queryCount
        self.queriesWithoutResults = queriesWithoutResults
    }

    /// Means of `rows` (all zero when there are none).
    public init(averaging rows: [QueryEvaluation]) {
        func mean(_ value: (QueryEvaluation) -> Double) -> Double {
            rows.isEmpty ? 0 : rows.reduce(0) { $0 + value($1) } / Double(rows.count)
        }
        self.init(ndcgAt10: mean(\.ndcgAt10), map: mean(\.averagePrecision), recallAt100: mean(\.recallAt100),
                  mrrAt10: mean(\.reciprocalRankAt10), precisionAt10: mean(\.precisionAt10),
                  queryCount: rows.count, queriesWithoutResults: rows.filter { $0.retrievedCount == 0 }.count)
    }

    /// One line with four decimals, the precision IR tables use.
    public var description: String {
        func f(_ value: Double) -> String { String(format: "%.4f", value) }
        return "nDCG@10 \(f(ndcgAt10))  MAP \(f(map))  R@100 \(f(recallAt100))  MRR@10 \(f(mrrAt10))  "
            + "P@10 \(f(precisionAt10))  queries \(queryCount)"
            + (queriesWithoutResults > 0 ? " (\(queriesWithoutResults) without results)" : "")
    }
}

/// Scores a run against judgments, per query and on average.
///
/// Averages run over every query with at least one relevant judgment — trec_eval's `-c` convention —
/// and a judged query missing from the run counts as 0. (pytrec_eval, and so BEIR, only reports
/// queries present in the run, and would also list judged queries with no relevant document, with
/// zeros; neither case arises when every judged query is searched.) Run queries without relevant
/// judgments are not scored and are listed in `ignoredQueryIDs`.
public struct EvaluationReport: Sendable, Hashable {
    /// One row per evaluated query, numeric IDs in numeric order.
    public var perQuery: [QueryEvaluation]
    /// The means of `perQuery`.
    public var summary: EvaluationSummary
    /// Queries in the run that have no relevant judgment, so cannot be scored.
    public var ignoredQueryIDs: [String]

    /// Evaluates `run` against `qrels`.
    public init(run: Run, qrels: Qrels) {
        perQuery = qrels.judgedQueryIDs.map { queryID in
            QueryEvaluation(queryID: queryID, results: run.results[queryID] ?? [], judgments: qrels[queryID])
        }
        summary = EvaluationSummary(averaging: perQuery)
        ignoredQueryIDs = sortedQueryIDs(run.results.keys.filter { qrels.relevantCount(for: $0) == 0 })
    }
}
