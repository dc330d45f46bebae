import CSQLite
import SiftRank

/// Every row a query matches, without scoring any: what facet counting needs (`FacetCounting`). When every term of
/// the query is listed, the rows up to the watermark come from the terms' postings in C (`sift_topk_postings` with a
/// collector that keeps no row and appends each match's rowid) with their deltas (`ImpactDelta`), and only the
/// tails through FTS5: one pass over a few bytes a row instead of a `MATCH` statement stepped once a row (at
/// 1,000,000 matching rows about 40-55 ms of FTS5 alone).
extension TopKSearch {
    /// Appends to `matches` the rowid of every row of `info`'s index matching `tree`, in ascending order, and returns
    /// true; returns false (with `matches` as given) when the plan does not apply: the bounds are missing, stale or
    /// damaged, or the query has another shape than the pruned search reads or a term that is not listed. The
    /// caller then collects the rows through FTS5. Runs in the caller's read transaction.
    static func collectMatches(of tree: FTS5Expression, _ info: FTSTableInfo,
                               into matches: UnsafeMutablePointer<sift_facet_rowids>, on handle: Handle) throws -> Bool {
        guard info.boundsUnsupportedReason == nil, let (phrases, requiresAll) = phrases(of: tree),
              let meta = try TopKImpacts.meta(info.name, on: handle), meta.valid, meta.columns == info.columns.count,
              let terms = try terms(of: phrases, weights: phrases.map { _ in 1 }, info, meta, on: handle),
              terms.allSatisfy({ $0.blocks != nil })
        else { return false }
        guard handle.pool.attachment(FullTextSettings.init).impactSizes.withLock({ $0.postings }) else { return false }
        let given = matches.pointee.count
        do {
            let search = TopKSearch(index: info.name, expression: tree.rendered, terms: terms, requiresAll: requiresAll,
                                    meta: meta, ranking: .bm25f(k1: 1.2, b: 0.75), weights: info.columns.map { _ in 1 })
            // In rowid order: rows at 0 or below, the postings' rows 1 up to the watermark, the rows above it.
            if try TopKImpacts.hasLowTail(info.name, on: handle) {
                try search.collectThroughFTS5(Int64.min...0, into: matches, on: handle)
            }
            let collector = TopKCollector(capacity: 0, blocks: terms.map { _ in nil }, meta: meta, columns: info.columns.count,
                                          blockBounds: nil, matches: matches)
            defer { collector.release() }
            try search.scorePostings(terms, rows: 0, totals: ArraySlice(info.columns.map { _ in 0 }), collector,
                                     on: handle)
            if meta.watermark < .max {
                try search.collectThroughFTS5((meta.watermark + 1)...Int64.max, into: matches, on: handle)
            }
            return true
        } catch is TopKImpacts.Stale {
            matches.pointee.count = given
            return false
        }
    }

    /// Appends the rowids of the rows in `rows` matching the expression, through FTS5.
    private func collectThroughFTS5(_ rows: ClosedRange<Int64>, into matches: UnsafeMutablePointer<sift_facet_rowids>,
                                    on handle: Handle) throws {
        let q = SQLBuilder.quote(index)
        let sql = "SELECT rowid FROM \(q) WHERE \(q) MATCH ? AND rowid BETWEEN ? AND ?"
        try handle.withStatement(sql) { stmt in
            try handle.bind([FundamentalValue(expression), FundamentalValue(rows.lowerBound), FundamentalValue(rows.upperBound)],
                            to: stmt, sql: sql)
            let rc = sift_facet_collect(stmt, 0, matches)
            if rc != SQLITE_DONE { throw handle.error(rc, sql: sql, operation: .step) }
        }
    }
}
