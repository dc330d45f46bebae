import CSQLite
import SiftRank

/// One pruned search under way (`TopKSearch.run`): what its plans share. The scoring statements' SQL (FTS5's
/// `MATCH` and the `sift_topk` call that keeps the best rows in `collector`), the rows they matched, and what they
/// read: the terms with their counts and weights, the tails, and per block of rows the bound of its rows' scores.
final class TopKRun {
    let handle: Handle
    let index: String
    /// The index, quoted.
    let q: String
    let expression: String
    let terms: [TopKSearch.Term]
    /// Rows in the index.
    let rows: Double
    /// Rowids outside the blocks: above the watermark, and 0 or below when the index has such rows.
    let tails: [ClosedRange<Int64>]
    let rank: SearchStatement.Rank
    let collector: TopKCollector
    /// Whether every term is listed (has blocks); the listed terms of positive weight.
    let listed: Bool
    let listedTerms: [TopKSearch.Term]
    let blockCount: Int
    /// Per block, each listed term's bound (block-major), and their sum (0: the block holds no match). Empty in the
    /// postings plan, which bounds the rows it merges itself.
    let contributions: [Double]
    let blockBounds: [Double]
    /// The blocks that can hold a match, with their bounds (empty in the postings plan).
    let bounds: [(block: Int, bound: Double)]
    /// Matching rows counted by the statements so far.
    var matched: Int64 = 0
    /// Whether every matching row was counted in `matched`, and none twice.
    var countedAll = true, distinct = true
    /// `SELECT count(*)` of the rows matching the expression (bound first), scoring each; `range`: with rowids in a
    /// range (bound second and third).
    let select: String, range: String

    init(handle: Handle, index: String, expression: String, terms: [TopKSearch.Term], rows: Double,
         tails: [ClosedRange<Int64>], rank: SearchStatement.Rank, collector: TopKCollector, listedTerms: [TopKSearch.Term],
         blockCount: Int, contributions: [Double], blockBounds: [Double], bounds: [(block: Int, bound: Double)]) {
        self.index = index
        (self.handle, self.q, self.expression, self.terms, self.rows) = (handle, SQLBuilder.quote(index), expression, terms, rows)
        (self.tails, self.rank, self.collector) = (tails, rank, collector)
        (self.listed, self.listedTerms) = (terms.allSatisfy { $0.blocks != nil }, listedTerms)
        (self.blockCount, self.contributions, self.blockBounds, self.bounds) = (blockCount, contributions, blockBounds, bounds)
        let call = rank.topKCall(on: index, ignoring: 0) ?? "0"
        select = "SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND " + call
        range = "SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND rowid BETWEEN ? AND ? AND " + call
    }

    /// The scoring call after `ignored` leading phrases that weigh nothing (an expression requiring some of the
    /// terms, before the query's own).
    func collect(ignoring ignored: Int) -> String {
        rank.topKCall(on: index, ignoring: ignored) ?? "0"
    }

    /// Runs a scoring statement (`values` bound first, the collector last) and counts what it matched.
    func score(_ sql: String, _ values: [FundamentalValue]) throws {
        matched += try count(sql, values) { sift_topk_bind($0, $1, collector.pointer) }
    }

    /// Steps a `SELECT count(*)` statement once, `values` bound first and a pointer bound last by `bindLast`: its count.
    private func count(_ sql: String, _ values: [FundamentalValue], bindLast: (OpaquePointer, Int32) -> Int32) throws -> Int64 {
        try handle.withStatement(sql) { stmt in
            for (i, value) in values.enumerated() where RawStatement.bind(value, at: Int32(i + 1), in: stmt) != SQLITE_OK {
                throw handle.error(sqlite3_errcode(handle.raw), sql: sql, operation: .bind)
            }
            _ = bindLast(stmt, Int32(values.count + 1))
            return try handle.step(stmt) ? sqlite3_column_int64(stmt, 0) : 0
        }
    }

    /// Scores every row holding a non-listed term with a row (their bounds are not in the blocks nor their rows in
    /// the postings), so that the plans then need only the listed terms: in an all-terms query each group then has
    /// a listed term in the rows left (else FTS5's own plan runs). One expression requires a rare term (its phrases
    /// weighing nothing) before the query's own: FTS5 reads the rare terms' rows and seeks the others' from them,
    /// rather than every row of the query's own. A row scored again later without its rare term scores lower, and
    /// the collector keeps its first score.
    func scoreRareTermsFirst() throws {
        let rare = terms.filter { $0.blocks == nil && $0.rows > 0 }.map { FTS5Expression.quote($0.token) }
        guard !rare.isEmpty else { return }
        try score("SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND " + collect(ignoring: rare.count),
                  [FundamentalValue("(" + rare.joined(separator: " OR ") + ") AND " + expression)])
        (countedAll, distinct) = (false, false)
    }

    /// Per term without blocks holding rows (a rare term), its rows from rowid 1 up to `last` with its count in each
    /// of the `columns` columns, read through FTS5 (`sift_term_rows`, no column size read): what the postings
    /// evaluator merges in place of the postings such a term does not have.
    func rareTermRows(upTo last: Int64, columns: Int) throws -> [Int: ImpactPostings.Rows] {
        var found: [Int: ImpactPostings.Rows] = [:]
        guard last >= 1 else { return found }
        let sql = "SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND rowid BETWEEN 1 AND ? AND sift_term_rows(\(q), ?)"
        for (t, term) in terms.enumerated() where term.blocks == nil && term.rows > 0 {
            // On the heap: the statement keeps the pointer until it is reset.
            let rows = UnsafeMutablePointer<sift_term_rows>.allocate(capacity: 1)
            rows.initialize(to: sift_term_rows(columns: Int32(columns), count: 0, capacity: 0, rowids: nil, counts: nil))
            defer {
                sift_term_rows_free(rows)
                rows.deallocate()
            }
            _ = try count(sql, [FundamentalValue(FTS5Expression.quote(term.token)), FundamentalValue(last)]) {
                sift_term_rows_bind($0, $1, rows)
            }
            let count = Int(rows.pointee.count)
            var held = ImpactPostings.Rows()
            if count > 0, let rowids = rows.pointee.rowids, let counts = rows.pointee.counts {
                held.rowids = Array(UnsafeBufferPointer(start: rowids, count: count))
                held.counts = Array(UnsafeBufferPointer(start: counts, count: count * columns))
            }
            found[t] = held
        }
        return found
    }

    /// Scores the rows of the tails through FTS5.
    func scoreTails() throws {
        for tail in tails {
            try score(range, [FundamentalValue(expression), FundamentalValue(tail.lowerBound), FundamentalValue(tail.upperBound)])
        }
    }
}
