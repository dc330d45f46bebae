import CSQLite

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
