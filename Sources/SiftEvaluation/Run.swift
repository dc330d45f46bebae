/// One retrieved document and the score the system gave it. There is no rank: like trec_eval, rank
/// is derived from the scores, so a run file's rank column can never disagree with the metrics.
public struct ScoredDocument: Sendable, Hashable {
    /// The corpus document's `_id`.
    public var id: String
    /// Higher is better; only the order matters to the metrics, never the scale.
    public var score: Double

    /// Creates a result entry.
    public init(id: String, score: Double) {
        self.id = id
        self.score = score
    }
}

/// A system's results for a set of queries (a "run" in TREC terms), in any order.
public struct Run: Sendable, Hashable {
    /// Identifies the system in run files; must not contain whitespace.
    public var tag: String
    /// Query ID → retrieved documents. Order within a list does not matter; see `trecOrdered`.
    public var results: [String: [ScoredDocument]]

    /// Creates a run.
    public init(tag: String = "sift", results: [String: [ScoredDocument]] = [:]) {
        self.tag = tag
        self.results = results
    }

    /// The query's results in trec_eval order; empty when the query has none.
    public func ranking(for queryID: String) -> [ScoredDocument] {
        Run.trecOrdered(results[queryID] ?? [])
    }

    /// Orders documents exactly as trec_eval does before scoring, so metrics match it to the last
    /// digit: score descending, ties broken by document ID *descending*, compared as bytes (C `strcmp`).
    /// trec_eval rejects a run with a repeated document; here only its best-scored entry is kept.
    /// NaN scores sort last (trec_eval's order for them is undefined). IDs are *ordered* by bytes but
    /// *deduplicated* as Swift strings, which treats canonically equivalent spellings as one ID.
    public static func trecOrdered(_ documents: [ScoredDocument]) -> [ScoredDocument] {
        let sorted = documents.sorted(by: trecPrecedes)
        var seen = Set<String>(minimumCapacity: sorted.count)
        var unique: [ScoredDocument] = []
        unique.reserveCapacity(sorted.count)
        for document in sorted where seen.insert(document.id).inserted {
            unique.append(document)
        }
        return unique
    }

    private static func trecPrecedes(_ a: ScoredDocument, _ b: ScoredDocument) -> Bool {
        let aIsNaN = a.score.isNaN, bIsNaN = b.score.isNaN
        if aIsNaN != bIsNaN { return bIsNaN }
        if !aIsNaN, a.score != b.score { return a.score > b.score }
        return b.id.utf8.lexicographicallyPrecedes(a.id.utf8)
    }
}
