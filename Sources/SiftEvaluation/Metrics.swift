import Foundation

/// Per-query relevance measures with trec_eval's definitions (as used by BEIR through pytrec_eval).
/// Each takes a ranking already in final order — document IDs, best first, no repeats, such as
/// `Run.trecOrdered(...).map(\.id)` — and the query's judgments. A document is relevant when its
/// grade is at least `Qrels.relevanceThreshold`; unjudged documents are non-relevant.
public enum Metrics {
    /// Normalised discounted cumulative gain at `cutoff`: gain is the grade itself (linear, negatives
    /// count as 0), discounted by log2(rank + 1); the ideal ranking is built from every judged document
    /// of the query, retrieved or not. 0 when the query has no relevant document.
    public static func ndcg(ranking: [String], judgments: [String: Int], cutoff: Int) -> Double {
        var dcg = 0.0
        for (index, id) in ranking.prefix(max(cutoff, 0)).enumerated() {
            let gain = judgments[id] ?? 0
            if gain > 0 {
                // trec_eval: sum += gain / log2((double) (i + 2)) for the document at 0-based index i.
                dcg += Double(gain) / log2(Double(index + 2))
            }
        }
        let idealGains = judgments.values.filter { $0 > 0 }.sorted(by: >).prefix(max(cutoff, 0))
        var ideal = 0.0
        for (index, gain) in idealGains.enumerated() {
            ideal += Double(gain) / log2(Double(index + 2))
        }
        return ideal > 0 ? dcg / ideal : 0
    }

    /// Average precision over the whole ranking: the precision at each relevant document's rank,
    /// summed and divided by the number of relevant documents (retrieved or not). MAP is its mean.
    public static func averagePrecision(ranking: [String], judgments: [String: Int]) -> Double {
        let relevant = relevantCount(judgments)
        guard relevant > 0 else { return 0 }
        var found = 0
        var sum = 0.0
        for (index, id) in ranking.enumerated() where isRelevant(id, judgments) {
            found += 1
            sum += Double(found) / Double(index + 1)
        }
        return sum / Double(relevant)
    }

    /// The share of the query's relevant documents found in the first `cutoff` results.
    public static func recall(ranking: [String], judgments: [String: Int], cutoff: Int) -> Double {
        let relevant = relevantCount(judgments)
        guard relevant > 0 else { return 0 }
        return Double(relevantRetrieved(ranking, judgments, cutoff)) / Double(relevant)
    }

    /// The share of the first `cutoff` positions holding a relevant document. Divides by `cutoff` even
    /// when fewer results came back, as trec_eval does, so returning less is never rewarded.
    public static func precision(ranking: [String], judgments: [String: Int], cutoff: Int) -> Double {
        guard cutoff > 0 else { return 0 }
        return Double(relevantRetrieved(ranking, judgments, cutoff)) / Double(cutoff)
    }

    /// 1 / rank of the first relevant document within the first `cutoff` results, 0 when there is
    /// none; trec_eval's `recip_rank` is this with no cutoff. MRR is its mean.
    public static func reciprocalRank(ranking: [String], judgments: [String: Int], cutoff: Int = .max) -> Double {
        for (index, id) in ranking.prefix(max(cutoff, 0)).enumerated() where isRelevant(id, judgments) {
            return 1 / Double(index + 1)
        }
        return 0
    }

    private static func isRelevant(_ id: String, _ judgments: [String: Int]) -> Bool {
        (judgments[id] ?? 0) >= Qrels.relevanceThreshold
    }

    private static func relevantCount(_ judgments: [String: Int]) -> Int {
        judgments.values.reduce(0) { $0 + ($1 >= Qrels.relevanceThreshold ? 1 : 0) }
    }

    private static func relevantRetrieved(_ ranking: [String], _ judgments: [String: Int], _ cutoff: Int) -> Int {
        ranking.prefix(max(cutoff, 0)).reduce(0) { $0 + (isRelevant($1, judgments) ? 1 : 0) }
    }
}
