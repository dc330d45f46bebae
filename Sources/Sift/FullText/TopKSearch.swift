import CSQLite
import Foundation
import SiftRank

/// The upper bound of one term's contribution to a row's score (sift_rank's BM25F or sift_inb2's InB2, see
/// ``Ranking``) in any row of a block, from the block's impacts (`ImpactBlock`): computed in C by
/// `sift_bound_block` (sift_bound.h) with the arithmetic that scores rows, so the bound and the score come from one
/// formula.
///
/// Both score a term as weight * qtf * P / (k + P) (BM25F: k = k1 and the idf as weight; InB2: k = 1 and
/// In * (F + 1) / n), with P a sum over columns of a(c, len) * count(c), where a(c, len) shrinks as the column's
/// length len grows. A row of the block holds the term at most T(c) times in column c and at most S times in all,
/// and a column holding it is at least L(c) tokens long, so its count in c weighs at most a(c) = a(c, L(c)) and P
/// is at most the largest sum of a(c) * x(c) over 0 <= x(c) <= T(c) with the x(c) summing to at most S: filling
/// the columns of the largest a(c) first. As x / (k + x) grows with x, the contribution is at most
/// weight * qtf * P / (k + P) for that bound P; and always below weight * qtf (the free universal bound, used when
/// a count is too large to store). The search treats bounds within a relative 1e-9 of the k-th score as ties.
final class ImpactBound {
    /// `.bm25f` or `.inB2`.
    let ranking: Ranking.Kind
    /// The C side's description of the ranking, over copies of the weights and average lengths this bound owns.
    private var described: sift_bound_ranking

    init(_ ranking: Ranking.Kind, weights: [Double], averageLengths: [Double]) {
        self.ranking = ranking
        let (inb2, k1, b, c): (Int32, Double, Double, Double) = switch ranking {
        case .inB2(let c): (1, 1, 0, c)
        case .bm25f(let k1, let b): (0, k1, b, 0)
        case .bm25: (0, 1.2, 0.75, 0)
        }
        let columns = min(weights.count, averageLengths.count)
        let copies = UnsafeMutablePointer<Double>.allocate(capacity: max(1, 2 * columns))
        copies.initialize(from: Array(weights.prefix(columns)) + averageLengths.prefix(columns), count: 2 * columns)
        described = sift_bound_ranking(inb2: inb2, k1: k1, b: b, c: c, columns: Int32(columns), weights: copies,
                                       avglen: copies + columns)
    }

    deinit { UnsafeMutablePointer(mutating: described.weights)?.deallocate() }

    /// The bound for a term of query weight `qtf` and `idf` in the block whose impact bytes start at `bytes`;
    /// 0 when the term is in no row of the block.
    func contribution(_ bytes: UnsafePointer<UInt8>, qtf: Double, idf: Double) -> Double {
        if case .bm25 = ranking { return 0 }
        return sift_bound_block(&described, bytes, qtf, idf)
    }

    /// A term's weight as sift_rank computes it (Lucene's idf) or sift_inb2 (In * (F + 1) / n), from the rows, the
    /// rows holding it and its instances in them.
    func idf(rows: Double, having: Double, instances: Double) -> Double {
        sift_bound_idf(&described, rows, having, instances)
    }
}

/// Sift's pruned top-k search: an exact top k for sift_rank (`.bm25f`) or sift_inb2 (`.inB2`) on a synced index with
/// impacts (`TopKImpacts`), scoring only the blocks of rows whose bound can beat the k-th score found so far.
///
/// Rows are scored in C (`sift_topk`, sift_topk.h), which keeps the best k and, once it has k, scores exactly
/// only a row whose bound from its counts and its block's shortest column sizes beats the k-th: the sizes cost a
/// statement per row (about 0.6 of sift_rank's 0.8 us a row at 1,000,000 rows), stepping through a row 0.1 us.
/// When every term is listed it also passes over, unread, each row of a block whose bound cannot beat the k-th score
/// (a statement over all rows holding both terms of a frequent pair reads the counts of only a few blocks' rows).
///
/// Plans, chosen per query:
/// - every term listed: the tail through FTS5, then the rows up to the watermark from the terms' postings
///   (`sift_topk_postings`) and the changed rows' counts now, chunk by chunk in rowid order, a row's exact score
///   computed only when its block's bound and its own bound (its counts, its block's shortest sizes) beat the
///   k-th score: its sizes are then read from FTS5's docsize table. The total is exact;
/// - every term listed, more changed rows than a search reads (`impactSizes.changed`): blocks in decreasing order of their bound (the sum of the terms' block bounds; for
///   all-terms queries blocks missing a term are skipped), each with the adjacent blocks whose bounds beat the
///   k-th score too, up to `runBlocks`, in one statement; the tail above the watermark first; stops when the
///   next block's bound is at most the k-th score (block-max MaxScore over rowid ranges);
/// - all terms required and one not listed: FTS5's own plan (its AND seeks through the frequent terms' rows
///   from the rare one's), scored with known row counts;
/// - any term, some not listed: first every row holding a non-listed term, then blocks bounded by the listed
///   terms alone (a row without the rare terms scores at most that);
/// - any of two listed terms: after `pilotStatements` statements of blocks, the rows holding both when the blocks
///   that can still beat the k-th score would cost more (a high k-th score at once), then blocks where one
///   term alone can beat it, scoring only the rows holding that term.
/// Anything else (other rankings, conditions, phrases, prefixes, columns, NOT, no or invalid impacts) returns
/// nil: the caller runs FTS5's exhaustive plan.
struct TopKSearch {
    /// Up to this many hits the total is counted exactly; above, ``SearchResults/totalCountIsLowerBound``.
    static let exactTotalLimit = 1_000
    /// At most this many adjacent blocks are scored by one statement (8; measured at 1,000,000 rows, 16 or 32 were
    /// no better).
    static let runBlocks = 8
    /// Statements of blocks before a pair of any-term terms may switch to scoring the rows holding both (and again
    /// after twice as many, with a higher k-th score).
    static let pilotStatements = 8
    /// Costs in postings FTS5 reads in a two-term AND (15 ns each): a statement's own (about 25 us), and a row
    /// holding both terms (about 0.2 us, even passed over unread). Measured at 1,000,000 rows.
    static let statementPostings = 1_700.0
    static let matchPostings = 15.0

    struct Term {
        let token: String
        let qtf: Double
        var rows: Int64
        /// Its instances in those rows (InB2's F).
        var instances: Int64
        var blocks: [UInt8]?
        var idf = 0.0
    }

    let index: String
    let expression: String
    let terms: [Term]
    let requiresAll: Bool
    let meta: TopKImpacts.Meta
    /// `.bm25f` or `.inB2`.
    let ranking: Ranking.Kind
    let weights: [Double]

    /// The plan's inputs for `tree`, or nil when the pruned search does not apply.
    static func plan(_ tree: FTS5Expression, _ phraseWeights: [Double]?, _ info: FTSTableInfo, _ options: SearchOptions,
                     on handle: Handle) throws -> TopKSearch? {
        switch options.ranking.kind {
        case .bm25f, .inB2: break
        case .bm25: return nil
        }
        guard info.boundsUnsupportedReason == nil else { return nil }
        let operands: [FTS5Expression], requiresAll: Bool
        switch tree {
        case .all(let list): (operands, requiresAll) = (list, true)
        case .any(let list): (operands, requiresAll) = (list, false)
        case .string: (operands, requiresAll) = ([tree], true)
        default: return nil
        }
        guard let phraseWeights, phraseWeights.count == operands.count, !operands.isEmpty,
              let meta = try TopKImpacts.meta(info.name, on: handle), meta.valid, meta.columns == info.columns.count
        else { return nil }
        let tokenizer = try handle.tokenizer(info.tokenizer)
        var terms: [Term] = []
        for (operand, weight) in zip(operands, phraseWeights) {
            guard case .string(let text) = operand, let token = try TopKImpacts.token(of: text, tokenizer) else { return nil }
            guard let stored = try? TopKImpacts.stored(token, in: info.name, meta, on: handle) as (df: Int64, cf: Int64, blocks: [UInt8])??
            else { return nil }  // damaged bounds (`TopKImpacts.Stale`) or a failed read: FTS5's plan
            terms.append(Term(token: token, qtf: Double(max(0, weight)), rows: stored?.df ?? 0, instances: stored?.cf ?? 0,
                              blocks: stored?.blocks))
        }
        guard terms.contains(where: { $0.blocks != nil }) else { return nil }
        return TopKSearch(index: info.name, expression: tree.rendered, terms: terms, requiresAll: requiresAll, meta: meta,
                          ranking: options.ranking.kind, weights: info.columns.map { options.weights[$0] ?? 1 })
    }

    /// A scored row.
    struct Scored {
        let rowid: Int64
        let score: Double
    }

    /// The best `count` rows, best first, with the total (exact, or a lower bound above `exactTotalLimit`);
    /// nil rows when nothing matches.
    func run(count: Int, countTotal: Bool, on handle: Handle) throws -> (rows: [Scored], total: Int?, totalIsLowerBound: Bool) {
        let q = SQLBuilder.quote(index)
        let statementRows = handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.statementRows }
        // N and the columns' total sizes, as sift_rank sees them (from any matching row).
        let stats = try handle.withStatement("SELECT sift_stats(\(q)) FROM \(q) WHERE \(q) MATCH ? LIMIT 1") { stmt -> [Double]? in
            try handle.bind([FundamentalValue(expression)], to: stmt, sql: "")
            return try handle.step(stmt) ? RawStatement.text(stmt, 0).split(separator: " ").compactMap { Double($0) } : nil
        }
        guard let stats, stats.count == weights.count + 1 else { return ([], countTotal ? 0 : nil, false) }
        let rows = stats[0]
        let bound = ImpactBound(ranking, weights: weights, averageLengths: stats.dropFirst().map { rows > 0 ? $0 / rows : 0 })
        // The tail: rows above the watermark, and rows at rowid 0 or below when the index has any.
        var tails = meta.watermark < .max ? [(meta.watermark + 1)...Int64.max] : []
        if try handle.withStatement("SELECT min(rowid) <= 0 FROM \(SQLBuilder.quote(index + "_docsize"))", {
            try handle.step($0) && sqlite3_column_int64($0, 0) == 1
        }) {
            tails.append(Int64.min...0)
        }
        // Row counts and instances (InB2's F): the stored ones plus the tail's; non-listed terms' are counted (they
        // are rare), or kept from an earlier search of the unchanged index (`PhraseStatistics`).
        var terms = self.terms
        let rare = terms.indices.filter { terms[$0].blocks == nil }
        if !rare.isEmpty, let counted = try PhraseStatistics.counts(
            ofPhrases: rare.map { terms[$0].token }, in: index,
            cache: handle.pool.attachment(FullTextSettings.init).phraseStatistics, on: handle) {
            for (i, counts) in zip(rare, counted) { (terms[i].rows, terms[i].instances) = (counts.rows, counts.instances) }
        } else {
            for i in rare { (terms[i].rows, terms[i].instances) = try rowsMatching(FTS5Expression.quote(terms[i].token), in: nil, on: handle) }
        }
        for i in terms.indices {
            let phrase = FTS5Expression.quote(terms[i].token)
            if terms[i].blocks != nil {
                for tail in tails {
                    let found = try rowsMatching(phrase, in: tail, on: handle)
                    terms[i].rows += found.rows
                    terms[i].instances += found.instances
                }
            }
            terms[i].idf = bound.idf(rows: rows, having: Double(terms[i].rows), instances: Double(terms[i].instances))
        }
        // The scoring call for the expression, after `ignored` leading phrases that weigh nothing (see below): it
        // keeps the best rows in `collector` and counts the matching rows (`TopKCollector`, sift_topk.h).
        let counts = terms.map { PhraseStatistics.Counts(rows: $0.rows, instances: $0.instances) }
        let rank: SearchStatement.Rank = switch ranking {
        case .inB2(let c): .siftInB2(c: c, weights: weights, phraseWeights: terms.map(\.qtf), counts: counts)
        case .bm25f(let k1, let b): .siftRank(k1: k1, b: b, weights: weights, phraseWeights: terms.map(\.qtf), counts: counts)
        case .bm25: .bm25(weights: weights)
        }
        func collect(ignoring ignored: Int) -> String { rank.topKCall(on: index, ignoring: ignored) ?? "0" }
        var matched: Int64 = 0
        func score(_ sql: String, _ values: [FundamentalValue]) throws {
            try handle.withStatement(sql) { stmt in
                for (i, value) in values.enumerated() where RawStatement.bind(value, at: Int32(i + 1), in: stmt) != SQLITE_OK {
                    throw handle.error(sqlite3_errcode(handle.raw), sql: sql, operation: .bind)
                }
                sift_topk_bind(stmt, Int32(values.count + 1), collector.pointer)
                if try handle.step(stmt) { matched += sqlite3_column_int64(stmt, 0) }
            }
        }
        let select = "SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND " + collect(ignoring: 0)
        let listed = terms.allSatisfy { $0.blocks != nil }
        // complete: every matching row was counted in `matched`; distinct: none twice.
        var complete = true, distinct = true
        // Per block of rows, the bound of its rows' scores (blocks missing a required term left out).
        let stride = ImpactBlock.stride(columns: weights.count)
        let blockCount = Int(meta.watermark / meta.block) + 1
        var bounds: [(block: Int, bound: Double)] = []
        bounds.reserveCapacity(blockCount)
        let listedTerms = terms.filter { $0.blocks != nil && $0.qtf > 0 }
        // Per block, each listed term's bound (`contributions`, block-major) and their sum. A block is searched when
        // a row of it can match: every term of an all-terms query is in it, or any term of an any-term one (a term
        // only in columns weighing 0 is there, bound 0).
        let width = listedTerms.count
        var contributions = [Double](repeating: 0, count: blockCount * width)
        var blockBounds = [Double](repeating: 0, count: blockCount)
        for j in 0..<blockCount {
            var total = 0.0, missing = false, present = false
            for (t, term) in listedTerms.enumerated() {
                guard let blocks = term.blocks, (j + 1) * stride <= blocks.count, blocks[j * stride] > 0 else {
                    if requiresAll { missing = true; break }
                    continue
                }
                present = true
                let contribution = blocks.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress.map { bound.contribution($0 + j * stride, qtf: term.qtf, idf: term.idf) } ?? 0
                }
                contributions[j * width + t] = contribution
                total += contribution
            }
            if !missing && present {
                bounds.append((j, total))
                blockBounds[j] = total
            }
        }
        // Rows of a block whose bound cannot beat the k-th score are passed over unread, when the bounds cover every
        // term (a non-listed term has none).
        let collector = TopKCollector(capacity: count, blocks: terms.map(\.blocks), meta: meta, columns: weights.count,
                                      blockBounds: listed ? blockBounds : nil)
        defer { collector.release() }
        // FTS5's own plan when it scores fewer rows than the blocks would cost statements (a statement over a
        // block costs about as much as scoring `statementRows` rows, 30): all terms with a rare one, or only
        // rare-ish terms.
        let rowsToScore = requiresAll ? terms.map(\.rows).min() ?? 0 : terms.reduce(0) { $0 + $1.rows }
        let range = "SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND rowid BETWEEN ? AND ? AND " + collect(ignoring: 0)
        // A search reads up to `impactSizes.changed` changed rows (or 1% of the rows, when more) beside the postings.
        let changedLimit = max(Int64(handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.changed }),
                               meta.watermark / 100)
        if listed, terms.count <= Int(SIFT_POSTINGS_MAX_TERMS),
           let changed = try TopKImpacts.changedRows(index, meta, limit: changedLimit, on: handle) {
            // Every term listed: the tail through FTS5, the rest from the postings and the changed rows' counts.
            for tail in tails {
                try score(range, [FundamentalValue(expression), FundamentalValue(tail.lowerBound), FundamentalValue(tail.upperBound)])
            }
            let before = collector.pointer.pointee.matched
            try scorePostings(terms, rows: rows, totals: stats.dropFirst(), changed: changed, collector, on: handle)
            matched += collector.pointer.pointee.matched - before
        } else if (requiresAll && !listed) || rowsToScore < Int64(statementRows * bounds.count) {
            try score(select, [FundamentalValue(expression)])
        } else {
            if !listed {
                // Any term: every row with a non-listed term first (their bounds are not in the blocks).
                let rare = terms.filter { $0.blocks == nil }.map { FTS5Expression.quote($0.token) }.joined(separator: " OR ")
                try score("SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND rowid IN (SELECT rowid FROM \(q) WHERE \(q) MATCH ?) AND "
                          + collect(ignoring: 0), [FundamentalValue(expression), FundamentalValue(rare)])
                (complete, distinct) = (false, false)
            }
            // Any of two listed terms: the rows holding both, in one statement, once the blocks left would cost more
            // (below): the best rows are nearly always among them, so the k-th score is high at once, and a block
            // where neither term alone can beat it is done. The statement steps through both terms' rows.
            let pairs = !requiresAll && listed && listedTerms.count == 2 && terms.count == 2
            var bothScored = false
            func scoreBoth() throws {
                let both = listedTerms.map { FTS5Expression.quote($0.token) }.joined(separator: " AND ")
                try score(select, [FundamentalValue(both)])
                (complete, distinct) = (false, false)
                bothScored = true
            }
            // The tail, then the blocks by decreasing bound, each with its neighbours that can beat the k-th score
            // too (up to `runBlocks` blocks: one statement rather than several).
            for tail in tails {
                try score(range, [FundamentalValue(expression), FundamentalValue(tail.lowerBound), FundamentalValue(tail.upperBound)])
            }
            bounds.sort { $0.bound > $1.bound }
            var done = [Bool](repeating: false, count: blockCount)
            var parts: [(token: String, bound: Double)] = []
            var restrictedSQL: [Int: String] = [:]
            // Rows bounded by the k-th score (within rounding) could at best tie with it.
            let tolerance = { (threshold: Double) in threshold + 1e-9 * max(1, abs(threshold)) }
            var statements = 0, nextCheck = Self.pilotStatements
            for (next, (j, blockBound)) in bounds.enumerated() where !done[j] {
                let threshold = collector.threshold
                if let threshold, blockBound <= tolerance(threshold) {
                    complete = false
                    break
                }
                // After a few statements (a k-th score to judge by), the pair's rows holding both when the blocks
                // that can still beat it would cost more statements than stepping through the two terms' rows.
                statements += 1
                if pairs, !bothScored, statements == nextCheck, let threshold {
                    nextCheck *= 2
                    let left = bounds[next...].lazy.filter { !done[$0.block] && $0.bound > tolerance(threshold) }.count
                    // In postings read: a statement a block left and the two terms' rows in it, against both lists
                    // and the rows holding both (as many as if the terms were independent).
                    let postings = Double(terms[0].rows + terms[1].rows), n = max(1, rows)
                    let both = postings + Self.matchPostings * Double(terms[0].rows) * Double(terms[1].rows) / n
                    if Double(left) * (Self.statementPostings + Double(meta.block) * postings / n) > both { try scoreBoth() }
                }
                let limit = collector.threshold.map(tolerance) ?? 0
                var first = j, last = j
                while last - first + 1 < Self.runBlocks, last + 1 < blockCount, !done[last + 1], blockBounds[last + 1] > limit { last += 1 }
                while last - first + 1 < Self.runBlocks, first > 0, !done[first - 1], blockBounds[first - 1] > limit { first -= 1 }
                for i in first...last { done[i] = true }
                let low = max(1, Int64(first) * meta.block), high = min(meta.watermark, Int64(last) * meta.block + meta.block - 1)
                // Any term (MaxScore within the blocks): the terms whose bounds, smallest first, add up to at most
                // the k-th score cannot lift a row above it alone, so only rows holding another term are scored
                // (an expression requiring one of those, its phrases weighing nothing, before the query's own).
                // With two terms of which neither alone can lift a row above the k-th score, only rows holding
                // both are scored (an expression requiring both).
                var restricted: [String] = [], joiner = " OR "
                if !requiresAll, let threshold = collector.threshold {
                    parts.removeAll(keepingCapacity: true)
                    for (t, term) in listedTerms.enumerated() {
                        parts.append((term.token, (first...last).reduce(0.0) { max($0, contributions[$1 * width + t]) }))
                    }
                    parts.sort { $0.bound < $1.bound }
                    var sum = 0.0
                    for part in parts {
                        sum += part.bound
                        if sum > tolerance(threshold) { restricted.append(FTS5Expression.quote(part.token)) }
                    }
                    if restricted.count == parts.count { restricted = [] }
                    if parts.count == 2, parts[1].bound <= tolerance(threshold) {
                        restricted = parts.map { FTS5Expression.quote($0.token) }
                        joiner = " AND "
                    }
                }
                if bothScored && joiner == " AND " {
                    complete = false
                } else if restricted.isEmpty {
                    try score(range, [FundamentalValue(expression), FundamentalValue(low), FundamentalValue(high)])
                } else {
                    complete = false
                    let required = "(" + restricted.joined(separator: joiner) + ") AND " + expression
                    let sql = restrictedSQL[restricted.count] ?? ("SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND rowid BETWEEN ? AND ? AND "
                        + collect(ignoring: restricted.count))
                    restrictedSQL[restricted.count] = sql
                    try score(sql, [FundamentalValue(required), FundamentalValue(low), FundamentalValue(high)])
                }
            }
        }
        var total: Int?, lowerBound = false
        if countTotal {
            if complete {
                total = Int(matched)
            } else {
                let counted = try handle.withStatement(
                    "SELECT count(*) FROM (SELECT 1 FROM \(q) WHERE \(q) MATCH ? LIMIT \(Self.exactTotalLimit + 1))") { stmt in
                    try handle.bind([FundamentalValue(expression)], to: stmt, sql: "")
                    return try handle.step(stmt) ? Int(sqlite3_column_int64(stmt, 0)) : 0
                }
                if counted <= Self.exactTotalLimit {
                    total = counted
                } else if terms.count == 1 {
                    total = Int(terms[0].rows)
                } else {
                    lowerBound = true
                    total = max(counted, distinct ? Int(matched) : 0, requiresAll ? 0 : Int(terms.map(\.rows).max() ?? 0))
                }
            }
        }
        return (collector.rows, total, lowerBound)
    }

    /// Scores the rows from rowid 1 up to the watermark from the listed terms' postings (`sift_topk_postings`),
    /// chunk by chunk, into `collector`: the `changed` rows from their counts now instead. `terms` with their
    /// weights, `rows` and the columns' `totals` (sizes in tokens) as sift_stats gives them.
    private func scorePostings(_ terms: [Term], rows: Double, totals: ArraySlice<Double>, changed: [Int64],
                               _ collector: TopKCollector, on handle: Handle) throws {
        let table = SQLBuilder.quote(TopKImpacts.termsTable(index))
        let columns = weights.count
        // What C reads for the whole search, in memory of its own: the columns' weights and average sizes, the
        // terms' weights, the changed rows and, per term, their counts now.
        var kept: [UnsafeMutableRawPointer] = []
        defer { kept.forEach { $0.deallocate() } }
        func keep<T>(_ values: [T]) -> UnsafeMutablePointer<T> {
            let copy = UnsafeMutablePointer<T>.allocate(capacity: max(1, values.count))
            copy.initialize(from: values, count: values.count)
            kept.append(UnsafeMutableRawPointer(copy))
            return copy
        }
        let extras = try terms.map { try TopKImpacts.changedCounts(of: $0.token, in: index, meta, on: handle) }
        let extraRowids = extras.map { keep($0.rowids) }, extraCounts = extras.map { keep($0.counts) }
        let changedRows = keep(changed)
        let (model, k1, b, c): (Int32, Double, Double, Double) = switch ranking {
        case .inB2(let c): (1, 1, 0, c)
        case .bm25f(let k1, let b): (0, k1, b, 0)
        case .bm25: (0, 1.2, 0.75, 0)
        }
        var query = sift_postings_query(
            terms: Int32(terms.count), columns: Int32(columns), inb2: model, requires_all: requiresAll ? 1 : 0,
            k1: k1, b: b, c: c, weights: keep(weights), avglen: keep(totals.map { rows > 0 ? $0 / rows : 0 }),
            qtf: keep(terms.map(\.qtf)), idf: keep(terms.map(\.idf)), docsize: nil)
        // One statement per term (told apart for the statement cache), stepped together in chunk order.
        var statements: [(stmt: OpaquePointer, sql: String, cached: Bool)] = []
        defer { for s in statements { handle.relinquish(s.stmt, sql: s.sql, cached: s.cached) } }
        for (t, term) in terms.enumerated() {
            let sql = "SELECT chunk, postings, df FROM \(table) WHERE term = ? AND chunk >= 0 ORDER BY chunk /* \(t) */"
            let (stmt, cached) = try handle.acquire(sql)
            statements.append((stmt, sql, cached))
            sqlite3_bind_text(stmt, 1, term.token, -1, sift_sqlite_transient())
        }
        let chunkRows = Int64(meta.chunkBlocks) * meta.block, lastChunk = meta.watermark / chunkRows
        // A term's next chunk; a chunk number past the watermark's is damage.
        func step(_ t: Int) throws -> Int64 {
            guard try handle.step(statements[t].stmt) else { return .max }
            let chunk = sqlite3_column_int64(statements[t].stmt, 0)
            guard chunk <= lastChunk else { throw TopKImpacts.Stale(reason: "a chunk of \(terms[t].token) lies past the watermark") }
            return chunk
        }
        var chunks = try terms.indices.map(step)
        var pointers = [UnsafePointer<UInt8>?](repeating: nil, count: terms.count)
        var sizes = [Int32](repeating: 0, count: terms.count)
        var expected = [Int64](repeating: 0, count: terms.count)
        // Per term, its first changed row not passed yet; the first changed row of the chunk.
        var extraAt = [Int](repeating: 0, count: terms.count), changedAt = 0
        func nextChunk() -> Int64? {
            var next = chunks.min() ?? .max
            for t in terms.indices where extraAt[t] < extras[t].rowids.count {
                next = min(next, extras[t].rowids[extraAt[t]] / chunkRows)
            }
            return next == .max ? nil : next
        }
        try handle.withStatement("SELECT sz FROM \(SQLBuilder.quote(index + "_docsize")) WHERE id = ?") { docsize in
            query.docsize = docsize
            while let chunk = nextChunk() {
                let end = (chunk + 1) * chunkRows
                for t in terms.indices {
                    let here = chunks[t] == chunk
                    pointers[t] = here ? sqlite3_column_blob(statements[t].stmt, 1).map {
                        UnsafePointer($0.assumingMemoryBound(to: UInt8.self))
                    } : nil
                    sizes[t] = here ? sqlite3_column_bytes(statements[t].stmt, 1) : 0
                    expected[t] = here ? sqlite3_column_int64(statements[t].stmt, 2) : 0
                }
                var changedEnd = changedAt
                while changedEnd < changed.count, changed[changedEnd] < end { changedEnd += 1 }
                var slices: [sift_postings_extra] = []
                for t in terms.indices {
                    let first = extraAt[t]
                    while extraAt[t] < extras[t].rowids.count, extras[t].rowids[extraAt[t]] < end { extraAt[t] += 1 }
                    slices.append(sift_postings_extra(rowids: extraRowids[t] + first, counts: extraCounts[t] + first * columns,
                                                      count: Int32(extraAt[t] - first)))
                }
                let rc = sift_topk_postings(&query, collector.pointer, chunk * chunkRows - 1, end - 1, pointers, sizes, expected,
                                            changedRows + changedAt, Int32(changedEnd - changedAt), slices)
                changedAt = changedEnd
                if rc == SQLITE_CORRUPT {
                    throw TopKImpacts.Stale(reason: "the postings of chunk \(chunk) do not match the rows it records")
                }
                guard rc == SQLITE_OK else { throw handle.error(rc, sql: nil, operation: .step) }
                for t in terms.indices where chunks[t] == chunk { chunks[t] = try step(t) }
            }
        }
    }

    /// Rows matching `phrase`, with rowids in `rows` when given, and the phrase's instances in them (counted for
    /// InB2 only, else 0: reading positions costs).
    private func rowsMatching(_ phrase: String, in rows: ClosedRange<Int64>?, on handle: Handle) throws -> (rows: Int64, instances: Int64) {
        let q = SQLBuilder.quote(index)
        var instances = false
        if case .inB2 = ranking { instances = true }
        // Summed here: in an aggregate's argument FTS5's function would not be found.
        let sql = "SELECT \(instances ? "sift_instances(\(q))" : "count(*)") FROM \(q) WHERE \(q) MATCH ?"
            + (rows == nil ? "" : " AND rowid BETWEEN ? AND ?")
        return try handle.withStatement(sql) { stmt in
            let range = rows.map { [FundamentalValue($0.lowerBound), FundamentalValue($0.upperBound)] } ?? []
            try handle.bind([FundamentalValue(phrase)] + range, to: stmt, sql: sql)
            guard instances else { return (try handle.step(stmt) ? sqlite3_column_int64(stmt, 0) : 0, 0) }
            var found: (rows: Int64, instances: Int64) = (0, 0)
            while try handle.step(stmt) { found = (found.rows + 1, found.instances + sqlite3_column_int64(stmt, 0)) }
            return found
        }
    }
}

/// The C side of a pruned search's scoring (`sift_topk_collector`, see sift_topk.h): the best `capacity` rows
/// seen, and copies of the terms' impact blocks for its row bounds. Owned by one search; `release()` frees it.
struct TopKCollector {
    let pointer: UnsafeMutablePointer<sift_topk_collector>

    init(capacity: Int, blocks: [[UInt8]?], meta: TopKImpacts.Meta, columns: Int, blockBounds: [Double]?) {
        let capacity = max(0, capacity)
        pointer = .allocate(capacity: 1)
        let rowids = UnsafeMutablePointer<Int64>.allocate(capacity: max(1, capacity))
        let scores = UnsafeMutablePointer<Double>.allocate(capacity: max(1, capacity))
        let copies = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: max(1, blocks.count))
        let sizes = UnsafeMutablePointer<Int>.allocate(capacity: max(1, blocks.count))
        for (t, bytes) in blocks.enumerated() {
            sizes[t] = bytes?.count ?? 0
            copies[t] = bytes.map { bytes in
                let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
                copy.initialize(from: bytes, count: bytes.count)
                return UnsafePointer(copy)
            }
        }
        let bounds = blockBounds.map { bounds in
            let copy = UnsafeMutablePointer<Double>.allocate(capacity: max(1, bounds.count))
            copy.initialize(from: bounds, count: bounds.count)
            return UnsafePointer(copy)
        }
        pointer.initialize(to: sift_topk_collector(
            capacity: Int32(clamping: capacity), count: 0, rowids: rowids, scores: scores, terms: Int32(blocks.count),
            blocks: copies, bytes: sizes, block: meta.block, watermark: meta.watermark,
            stride: Int32(ImpactBlock.stride(columns: columns)), matched: 0, scored: 0, block_bounds: bounds,
            block_count: Int64(blockBounds?.count ?? 0)))
    }

    /// The k-th score once `capacity` rows are held.
    var threshold: Double? {
        let top = pointer.pointee
        return top.capacity > 0 && top.count >= top.capacity ? top.scores[Int(top.capacity) - 1] : nil
    }

    /// The rows held, best first.
    var rows: [TopKSearch.Scored] {
        let top = pointer.pointee
        return (0..<Int(top.count)).map { TopKSearch.Scored(rowid: top.rowids[$0], score: top.scores[$0]) }
    }

    func release() {
        let top = pointer.pointee
        for t in 0..<Int(top.terms) { top.blocks[t].map { UnsafeMutablePointer(mutating: $0).deallocate() } }
        top.blocks.deallocate()
        top.block_bounds.map { UnsafeMutablePointer(mutating: $0).deallocate() }
        top.bytes.deallocate()
        top.rowids.deallocate()
        top.scores.deallocate()
        pointer.deallocate()
    }
}

extension Database {
    /// The pruned search (`TopKSearch`) when it applies to this query, else nil (the caller runs FTS5's plan).
    func prunedSearch<Object: TableDecodable>(_ tree: FTS5Expression, _ phraseWeights: [Double]?, _ info: FTSTableInfo,
                                              _ type: Object.Type, _ condition: Condition?, _ options: SearchOptions,
                                              on handle: Handle) throws -> SearchResults<Object>? {
        guard condition == nil, options.limit > 0, options.offset >= 0, info.content != nil else { return nil }
        guard let plan = try TopKSearch.plan(tree, phraseWeights, info, options, on: handle) else { return nil }
        let found: (rows: [TopKSearch.Scored], total: Int?, totalIsLowerBound: Bool)
        do {
            found = try plan.run(count: options.offset + options.limit, countTotal: options.countTotal, on: handle)
        } catch is TopKImpacts.Stale {
            return nil  // damaged bounds: FTS5's exhaustive plan finds every hit
        }
        let page = found.rows.dropFirst(options.offset)
        // The page's objects and marked-up columns, row by row (no rank column: FTS5's would count every row).
        var statement = searchStatement(plan.expression, info, Object.self, options)
        statement.rowid = 0
        let rendered = statement.statementSQL
        let decoder = HitDecoder<Object>(options: options)
        var hits: [SearchHit<Object>] = []
        try handle.withStatement(rendered.sql) { stmt in
            for row in page {
                try handle.bind(rendered.values.dropLast() + [FundamentalValue(row.rowid)], to: stmt, sql: rendered.sql)
                defer { sqlite3_reset(stmt) }
                guard try handle.step(stmt) else { continue }
                hits.append(try decoder.hit(from: stmt, score: row.score, markupAt: decoder.base + 1))
            }
        }
        return SearchResults(hits: hits, totalCount: found.total, expression: plan.expression,
                             totalCountIsLowerBound: found.totalIsLowerBound)
    }
}

