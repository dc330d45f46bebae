import Foundation

/// The block plan of a pruned search (`TopKSearch`), block-max MaxScore over rowid ranges: the tail through FTS5,
/// then the blocks by decreasing bound (the sum of the terms' block bounds; for all-terms queries blocks missing a
/// term are left out), each with the adjacent blocks whose bounds beat the k-th score too, up to `runBlocks`, in one
/// statement; it stops when the next block's bound is at most the k-th score. Any term: rows holding a non-listed
/// term first (their bounds are not in the blocks); within a block only the rows holding a term that can lift a
/// row above the k-th score; and for a pair of listed terms, the rows holding both once the blocks left would cost
/// more statements than stepping through both terms' rows.
extension TopKSearch {
    func scoreBlocks(_ run: TopKRun) throws {
        let (q, terms, rows, collector, listed) = (run.q, run.terms, run.rows, run.collector, run.listed)
        let (listedTerms, blockBounds, contributions, width, blockCount) =
            (run.listedTerms, run.blockBounds, run.contributions, run.listedTerms.count, run.blockCount)
        let (select, range, expression) = (run.select, run.range, run.expression)
        var bounds = run.bounds
        func score(_ sql: String, _ values: [FundamentalValue]) throws { try run.score(sql, values) }
        func collect(ignoring ignored: Int) -> String { run.collect(ignoring: ignored) }
        if !listed { try run.scoreRareTermsFirst() }
        // Any of two listed terms: the rows holding both, in one statement, once the blocks left would cost more
        // (below): the best rows are nearly always among them, so the k-th score is high at once, and a block
        // where neither term alone can beat it is done. The statement steps through both terms' rows.
        let pairs = !requiresAll && listed && listedTerms.count == 2 && terms.count == 2
        var bothScored = false
        func scoreBoth() throws {
            let both = listedTerms.map { FTS5Expression.quote($0.token) }.joined(separator: " AND ")
            try score(select, [FundamentalValue(both)])
            (run.countedAll, run.distinct) = (false, false)
            bothScored = true
        }
        // The tail, then the blocks by decreasing bound, each with its neighbours that can beat the k-th score
        // too (up to `runBlocks` blocks: one statement rather than several).
        try run.scoreTails()
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
                run.countedAll = false
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
                run.countedAll = false
            } else if restricted.isEmpty {
                try score(range, [FundamentalValue(expression), FundamentalValue(low), FundamentalValue(high)])
            } else {
                run.countedAll = false
                let required = "(" + restricted.joined(separator: joiner) + ") AND " + expression
                let sql = restrictedSQL[restricted.count] ?? ("SELECT count(*) FROM \(q) WHERE \(q) MATCH ? AND rowid BETWEEN ? AND ? AND "
                    + collect(ignoring: restricted.count))
                restrictedSQL[restricted.count] = sql
                try score(sql, [FundamentalValue(required), FundamentalValue(low), FundamentalValue(high)])
            }
        }
    }
}
