import CSQLite
import Foundation
import SiftRank

/// Sift's pruned top-k search: an exact top k for sift_rank (`.bm25f`) or sift_inb2 (`.inB2`) on a synced index with
/// impacts (`TopKImpacts`), scoring only the blocks of rows whose bound can beat the k-th score found so far.
///
/// Rows are scored in C (`sift_topk`, sift_topk.h), which keeps the best k and, once it has k, scores exactly
/// only a row whose bound from its counts and its block's shortest column sizes beats the k-th: the sizes cost a
/// statement per row (about 0.6 of sift_rank's 0.8 us a row at 1,000,000 rows), stepping through a row 0.1 us.
/// When every term is listed it also passes over, unread, each row of a block whose bound cannot beat the k-th score
/// (a statement over all rows holding both terms of a frequent pair reads the counts of only a few blocks' rows).
///
/// Plans, chosen per query by `run` (the planner here, each plan in a file of its own beside it):
/// - terms listed, or non-listed ones whose rows are scored first through FTS5 (`PostingsPlan.swift`): the tail through
///   FTS5, then the rows up to the watermark from the listed terms' postings
///   (`sift_topk_postings`) with their deltas (`ImpactDelta`), chunk by chunk in rowid order, a row's exact score
///   computed only when its block's bound and its own bound (its counts, its block's shortest sizes) beat the
///   k-th score: its sizes are then read from FTS5's docsize table. The total is exact when every term is listed;
/// - more terms than the postings evaluator takes (`BlockPlan.swift`): blocks in decreasing order of their bound (the sum of the terms' block bounds; for
///   all-terms queries blocks missing a term are skipped), each with the adjacent blocks whose bounds beat the
///   k-th score too, up to `runBlocks`, in one statement; the tail above the watermark first; stops when the
///   next block's bound is at most the k-th score (block-max MaxScore over rowid ranges);
/// - all terms required and a word none of whose terms is listed (a rare group), when the listed terms' rows are 4
///   to 4,096 times the rare group's (`rareRowsRatio`): the postings plan, the rare terms' rows read through FTS5
///   (`TopKRun.rareTermRows`) and merged in place of the postings they do not have; the other terms' postings keep
///   only those rows, passed over four at a time (sift_postings.c);
/// - otherwise all terms required and a rare group, or fewer rows to score than blocks: FTS5's own plan (its AND
///   seeks through the frequent terms' rows from the rare one's), scored with known row counts;
/// - some terms not listed, with the block plan: first every row holding a non-listed term, then blocks bounded by
///   the listed terms alone (a row without the rare terms scores at most that);
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
        /// The query word it stands for: a word and its corrected variants (``TypoTolerance``) share a group, and an
        /// all-terms query requires a term of every group.
        let group: Int
        let qtf: Double
        var rows: Int64
        /// Its instances in those rows (InB2's F).
        var instances: Int64
        var blocks: [UInt8]?
        /// Per chunk whose rows changed since its postings were written, the term's delta there (`ImpactDelta`).
        var deltas: [Int64: ImpactPostings.Rows] = [:]
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
        guard info.boundsUnsupportedReason == nil, let (phrases, requiresAll) = phrases(of: tree),
              let phraseWeights, phraseWeights.count == phrases.count,
              let meta = try TopKImpacts.meta(info.name, on: handle), meta.valid, meta.columns == info.columns.count,
              let terms = try terms(of: phrases, weights: phraseWeights, info, meta, on: handle)
        else { return nil }
        guard terms.contains(where: { $0.blocks != nil }) else { return nil }
        return TopKSearch(index: info.name, expression: tree.rendered, terms: terms, requiresAll: requiresAll, meta: meta,
                          ranking: options.ranking.kind, weights: info.columns.map { options.weights[$0] ?? 1 })
    }

    /// The phrases of `tree` when the pruned search reads it (a phrase, or an AND or OR of phrases and of groups of
    /// them: a word and its corrected variants), each with its group (its operand), in FTS5's phrase order; nil for
    /// any other shape, or more operands than the postings evaluator takes.
    static func phrases(of tree: FTS5Expression) -> (phrases: [(text: String, group: Int)], requiresAll: Bool)? {
        let operands: [FTS5Expression], requiresAll: Bool
        switch tree {
        case .all(let list): (operands, requiresAll) = (list, true)
        case .any(let list): (operands, requiresAll) = (list, false)
        case .string: (operands, requiresAll) = ([tree], true)
        default: return nil
        }
        var phrases: [(text: String, group: Int)] = []
        for (group, operand) in operands.enumerated() {
            switch operand {
            case .string(let text): phrases.append((text, group))
            case .any(let members):
                for member in members {
                    guard case .string(let text) = member else { return nil }
                    phrases.append((text, group))
                }
            default: return nil
            }
        }
        guard !phrases.isEmpty, operands.count <= Int(SIFT_POSTINGS_MAX_TERMS) else { return nil }
        return (phrases, requiresAll)
    }

    /// The terms of `phrases` (their weights `weights`) with their stored counts and impact blocks (nil blocks: not
    /// listed); nil when a phrase is not one token or the bounds read as damaged (`TopKImpacts.Stale`).
    static func terms(of phrases: [(text: String, group: Int)], weights: [Double], _ info: FTSTableInfo,
                      _ meta: TopKImpacts.Meta, on handle: Handle) throws -> [Term]? {
        let tokenizer = try handle.tokenizer(info.tokenizer)
        var tokens: [String] = []
        for phrase in phrases {
            guard let token = try TopKImpacts.token(of: phrase.text, tokenizer) else { return nil }
            tokens.append(token)
        }
        // The log of changed rows, read once for all the terms.
        guard let log = try? ImpactLog.changes(info.name, meta, on: handle) else { return nil }
        var terms: [Term] = []
        for ((phrase, weight), token) in zip(zip(phrases, weights), tokens) {
            guard let stored = try? TopKImpacts.stored(token, in: info.name, meta, log: log, on: handle) as TopKImpacts.StoredTerm??
            else { return nil }  // damaged bounds (`TopKImpacts.Stale`) or a failed read: FTS5's plan
            terms.append(Term(token: token, group: phrase.group, qtf: Double(max(0, weight)), rows: stored?.df ?? 0,
                              instances: stored?.cf ?? 0, blocks: stored?.blocks, deltas: stored?.deltas ?? [:]))
        }
        return terms
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
        // The tail: rows above the watermark when the index has any (none after a bulk load or an optimize, when its
        // statements through FTS5, one a listed term and the scoring one, are left out), and rows at rowid 0 or below
        // when the index has any.
        let highTail = try meta.watermark < .max && TopKImpacts.maxRowid(index, on: handle) > meta.watermark
        var tails = highTail ? [(meta.watermark + 1)...Int64.max] : []
        if try TopKImpacts.hasLowTail(index, on: handle) { tails.append(Int64.min...0) }
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
        for i in terms.indices where terms[i].blocks != nil {
            let phrase = FTS5Expression.quote(terms[i].token)
            for tail in tails {
                let found = try rowsMatching(phrase, in: tail, on: handle)
                terms[i].rows += found.rows
                terms[i].instances += found.instances
            }
        }
        // A group's variants are scored with the counts of its most frequent member, as FTS5's plan scores them.
        // A group's terms are adjacent (one operand's phrases).
        var groups: [Range<Int>] = []
        for i in terms.indices {
            if let last = groups.last, terms[last.lowerBound].group == terms[i].group {
                groups[groups.count - 1] = last.lowerBound..<(i + 1)
            } else {
                groups.append(i..<(i + 1))
            }
        }
        let counts = PhraseStatistics.sharing(terms.map { PhraseStatistics.Counts(rows: $0.rows, instances: $0.instances) },
                                              in: groups)
        for i in terms.indices {
            terms[i].idf = bound.idf(rows: rows, having: Double(counts[i].rows), instances: Double(counts[i].instances))
        }
        // The scoring call for the expression, after `ignored` leading phrases that weigh nothing (see below): it
        // keeps the best rows in `collector` and counts the matching rows (`TopKCollector`, sift_topk.h).
        let rank: SearchStatement.Rank = switch ranking {
        case .inB2(let c): .siftInB2(c: c, weights: weights, phraseWeights: terms.map(\.qtf), counts: counts)
        case .bm25f(let k1, let b): .siftRank(k1: k1, b: b, weights: weights, phraseWeights: terms.map(\.qtf), counts: counts)
        case .bm25: .bm25(weights: weights)
        }
        // Terms no row holds (a word as typed that only its variants correct) count as listed: nothing to score.
        let listed = terms.allSatisfy { $0.blocks != nil || $0.rows == 0 }
        let blockCount = Int(meta.watermark / meta.block) + 1
        let listedTerms = terms.filter { $0.blocks != nil && $0.qtf > 0 }
        // FTS5's own plan when it scores fewer rows than the blocks would cost statements (a statement over a
        // block costs about as much as scoring `statementRows` rows, 30): all terms with a rare one, or only
        // rare-ish terms.
        let rowsToScore = requiresAll ? groups.map { terms[$0].reduce(0) { $0 + $1.rows } }.min() ?? 0 : terms.reduce(0) { $0 + $1.rows }
        // A group of an all-terms query none of whose terms is listed: every match holds one of them (rare terms).
        let rareGroup = requiresAll && groups.contains { terms[$0].allSatisfy { $0.blocks == nil } }
        // The postings plan, unless a group's rows are all a rare term's (FTS5's AND finds them sooner), or a test
        // asks for the others.
        let (postingsAllowed, rareRatio) = handle.pool.attachment(FullTextSettings.init).impactSizes.withLock {
            ($0.postings, $0.rareRowsRatio)
        }
        let evaluator = terms.count <= Int(SIFT_POSTINGS_MAX_TERMS) && postingsAllowed
        let postings = !rareGroup && evaluator
        // With a group of rare terms the postings plan still runs, the rare terms' rows read through FTS5 and merged
        // as their postings would be, when the listed terms' rows are `rareRowsRatio` times the rare group's: FTS5's
        // AND reads a page of a frequent term's rows for each rare row (and at most all of them), the postings plan
        // scans the listed terms' postings whole (about a nanosecond a row) for the rare rows alone. Measured at 1M
        // and 10M rows (two-word queries), each plan took the lead at a ratio of 4 and lost it past 4,096.
        let listedRows = terms.reduce(0.0) { $0 + ($1.blocks == nil ? 0 : Double($1.rows)) }
        let postingsWithRareRows = rareGroup && evaluator && rareRatio.contains(listedRows / Double(max(1, rowsToScore)))
        // The blocks' bounds, which the postings evaluator does without: it bounds each window of rows it merges by
        // the terms that window's matches hold (sift_postings.c).
        let perBlock = postings || postingsWithRareRows ? (contributions: [], blockBounds: [], bounds: [])
            : blockBounds(of: listedTerms, bound, blockCount: blockCount)
        // Rows of a block whose bound cannot beat the k-th score are passed over unread, when the bounds cover every
        // term (a non-listed term has none).
        let collector = TopKCollector(capacity: count, blocks: terms.map(\.blocks), meta: meta, columns: weights.count,
                                      blockBounds: listed && !postings ? perBlock.blockBounds : nil, topOnly: !countTotal)
        defer { collector.release() }
        let context = TopKRun(handle: handle, index: index, expression: expression, terms: terms, rows: rows, tails: tails,
                              rank: rank, collector: collector, listedTerms: listedTerms, blockCount: blockCount,
                              contributions: perBlock.contributions, blockBounds: perBlock.blockBounds, bounds: perBlock.bounds)
        if postings {
            // The tail through FTS5, the rows holding a rare term through FTS5, the rest from the listed terms'
            // postings and deltas.
            try context.scoreTails()
            try context.scoreRareTermsFirst()
            let before = collector.pointer.pointee.matched
            try scorePostings(terms, rows: rows, totals: stats.dropFirst(), collector, on: handle)
            context.matched += collector.pointer.pointee.matched - before
        } else if postingsWithRareRows {
            // The tail through FTS5, then the rows up to the watermark: the listed terms' from their postings and
            // deltas, the rare terms' read through FTS5 in their place.
            try context.scoreTails()
            let held = try context.rareTermRows(upTo: meta.watermark, columns: weights.count)
            let before = collector.pointer.pointee.matched
            try scorePostings(terms, rows: rows, totals: stats.dropFirst(), collector, rareRows: held, on: handle)
            context.matched += collector.pointer.pointee.matched - before
        } else if rareGroup || rowsToScore < Int64(statementRows * perBlock.bounds.count) {
            // FTS5's own plan: its AND seeks through the frequent terms' rows from the rare one's.
            try context.score(context.select, [FundamentalValue(expression)])
        } else {
            try scoreBlocks(context)
        }
        var total: Int?, lowerBound = false
        if countTotal {
            if context.countedAll {
                total = Int(context.matched)
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
                    total = max(counted, context.distinct ? Int(context.matched) : 0, requiresAll ? 0 : Int(terms.map(\.rows).max() ?? 0))
                }
            }
        }
        return (collector.rows, total, lowerBound)
    }

    /// Per block of rows, each listed term's bound (`contributions`, block-major), their sum (`blockBounds`), and
    /// the blocks that can hold a match with their sums (`bounds`). A block can hold a match when a term of every
    /// group of an all-terms query is in it, or any term of an any-term one (a term only in columns weighing 0 is
    /// there, bound 0). The rows holding a non-listed term are scored apart (`BlockPlan`), so in a block a group is
    /// there when one of its listed terms is.
    private func blockBounds(of listedTerms: [Term], _ bound: ImpactBound, blockCount: Int)
        -> (contributions: [Double], blockBounds: [Double], bounds: [(block: Int, bound: Double)]) {
        let stride = ImpactBlock.stride(columns: weights.count), width = listedTerms.count
        let groupsRequired = listedTerms.reduce(0) { $0 | 1 << $1.group }
        // Term by term (one pass over each term's blocks, no copy of a term per block), then block by block.
        var contributions = [Double](repeating: 0, count: blockCount * width)
        var groupsThere = [Int](repeating: 0, count: blockCount)
        for (t, term) in listedTerms.enumerated() {
            guard let blocks = term.blocks else { continue }
            let (qtf, idf, bit) = (term.qtf, term.idf, 1 << term.group)
            blocks.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                for j in 0..<min(blockCount, buffer.count / stride) where base[j * stride] > 0 {
                    groupsThere[j] |= bit
                    contributions[j * width + t] = bound.contribution(base + j * stride, qtf: qtf, idf: idf)
                }
            }
        }
        var blockBounds = [Double](repeating: 0, count: blockCount), bounds: [(block: Int, bound: Double)] = []
        for j in 0..<blockCount where groupsThere[j] != 0 && (!requiresAll || groupsThere[j] == groupsRequired) {
            var total = 0.0
            for t in 0..<width { total += contributions[j * width + t] }
            bounds.append((j, total))
            blockBounds[j] = total
        }
        return (contributions, blockBounds, bounds)
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
