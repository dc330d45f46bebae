import CSQLite
import SiftRank

extension Database {
    /// The distributions of the facets `options` names over every row of `index` that `query` matches (with
    /// `condition` and ``SearchOptions/facetFilters``), without ranking any hit: a search's
    /// ``SearchResults/facets`` alone, for a filter panel drawn apart from the results. `options` also gives
    /// ``SearchOptions/facetLimit`` and the typo tolerance; its ranking, page and feedback are not used.
    ///
    ///     let panel = try database.facets(for: SearchQuery("coffee"), in: "articles_fts",
    ///                                     options: SearchOptions(facets: ["category", "year"]))
    ///     for value in panel["year"]?.top ?? [] { print(value.value, value.count) }
    public func facets(for query: SearchQuery, in index: String, where condition: Condition? = nil,
                       options: SearchOptions) throws -> [String: FacetDistribution] {
        try read { handle in
            let info = try ftsInfo(index, on: handle)
            let tokenizer = try handle.tokenizer(info.tokenizer)
            let filtered = try facetCondition(condition, options, info, on: handle)
            let variants: TypoVariant.Finder? = options.typoTolerance.isOff ? nil
                : typoVariants(info, tokenizer, options.typoTolerance, on: handle)
            guard let weighted = try query.weightedTree(spans: tokenizer.querySpans, distinct: options.ranking.weighsQueryTerms,
                                                        stopwords: pool.attachment(FullTextSettings.init).stopwords(for: info.tokenizer),
                                                        variants: variants)
            else { return Dictionary(uniqueKeysWithValues: options.facets.map { ($0, FacetDistribution(field: $0, counts: [:], limit: 0)) }) }
            // One snapshot for the rowids and the structures they are counted in.
            let snapshot = !handle.isInTransaction && sqlite3_exec(handle.raw, "BEGIN", nil, nil, nil) == SQLITE_OK
            defer { if snapshot { sqlite3_exec(handle.raw, "COMMIT", nil, nil, nil) } }
            return try facetDistributions(weighted.tree, info, filtered, options, on: handle)
        }
    }

    /// `condition` ANDed with the facet filters of `options` (each a column of the search's source, checked here).
    func facetCondition(_ condition: Condition?, _ options: SearchOptions, _ info: FTSTableInfo,
                        on handle: Handle) throws -> Condition? {
        guard !options.facets.isEmpty || !options.facetFilters.isEmpty else { return condition }
        let source = info.content?.table ?? info.name
        let columns = Set(try handle.columnNames(of: source))
        for column in options.facets + options.facetFilters.keys.sorted() where !columns.contains(column) {
            throw pool.report(SiftError.misuse("\(source) has no column \(column) to count or filter as a facet.", operation: .query))
        }
        var combined = condition
        for (column, values) in options.facetFilters.sorted(by: { $0.key < $1.key }) {
            let property = Column(named: column)
            let listed = values.filter { !$0.isNull }
            var filter: SQLExpression = listed.isEmpty ? SQLExpression(.value(0)) : property.in(listed)
            if listed.count < values.count { filter = listed.isEmpty ? property.isNull() : (property.isNull() || filter) }
            combined = combined.map { $0 && filter } ?? filter
        }
        return combined
    }

    /// The distributions of the facets `options` names over every row matching `tree` and `condition`: from the
    /// facet structures (`FacetStore`) when they are built and read as sound, else from a `GROUP BY` over the same
    /// matches. Runs in the search's read transaction.
    func facetDistributions(_ tree: FTS5Expression, _ info: FTSTableInfo, _ condition: Condition?, _ options: SearchOptions,
                            on handle: Handle) throws -> [String: FacetDistribution] {
        let counts = try FacetCounting.counts(of: options.facets, tree, info, condition,
                                              dictionaries: pool.attachment(FullTextSettings.init).facetDictionaries, on: handle)
        return Dictionary(uniqueKeysWithValues: counts.map { field, counted in
            (field, FacetDistribution(field: field, counts: counted.counts, limit: options.facetLimit,
                                      countedFromStructure: counted.fromStructure, matchesFromPostings: counted.matchesFromPostings))
        })
    }
}

/// Counting facets over a search's matches: the matching rowids collected once (from the score bounds' postings when
/// the query's terms are all listed and no condition applies, `TopKSearch.collectMatches`, else through FTS5, one
/// statement, in C), then each facet counted from its structure (`FacetStore.counts`), or with `GROUP BY` when it has
/// none or it reads as damaged.
enum FacetCounting {
    /// One facet's counts, whether they came from its structure (else from `GROUP BY`), and whether the matching
    /// rows were read from the postings.
    struct Counted {
        let counts: [FundamentalValue: Int]
        let fromStructure: Bool
        var matchesFromPostings = false
    }

    static func counts(of fields: [String], _ tree: FTS5Expression, _ info: FTSTableInfo, _ condition: Condition?,
                       dictionaries: FacetStore.DictionaryCache?, on handle: Handle) throws -> [String: Counted] {
        var statement = SearchStatement(index: info.name, content: info.content, columns: [], expression: tree.rendered)
        statement.condition = condition
        let declared = info.content == nil ? [] : try FacetStore.declared(info.name, on: handle)
        var result: [String: Counted] = [:]
        var rowids = sift_facet_rowids(rowids: nil, count: 0, capacity: 0)
        defer { sift_facet_rowids_free(&rowids) }
        var collected = false, fromPostings = false
        for field in fields where result[field] == nil {
            if let facet = declared.first(where: { $0.column == field }) {
                if !collected {
                    collected = true
                    // A condition reads the content rows: only FTS5's statement joins them.
                    fromPostings = condition == nil ? try TopKSearch.collectMatches(of: tree, info, into: &rowids, on: handle) : false
                    if !fromPostings {
                        statement.aggregate = .rowids
                        let rendered = statement.statementSQL
                        try handle.withStatement(rendered.sql) { stmt in
                            try handle.bind(rendered.values, to: stmt, sql: rendered.sql)
                            let rc = sift_facet_collect(stmt, 0, &rowids)
                            if rc != SQLITE_DONE { throw handle.error(rc, sql: rendered.sql, operation: .step) }
                        }
                    }
                }
                let buffer = UnsafeBufferPointer(start: rowids.rowids, count: Int(rowids.count))
                // Damaged structures (a table or an entry gone) count with GROUP BY, as implausible ones do.
                let read: [FundamentalValue: Int]?
                do { read = try FacetStore.counts(info.name, facet, rowids: buffer, cache: dictionaries, on: handle) } catch where FacetStore.isDamage(error) { read = nil }
                if let counts = read {
                    result[field] = Counted(counts: counts, fromStructure: true, matchesFromPostings: fromPostings)
                    continue
                }
            }
            statement.aggregate = .groupCounts(column: field)
            let rendered = statement.statementSQL
            result[field] = Counted(counts: try FacetStore.groupedCounts(rendered.sql, rendered.values, on: handle), fromStructure: false)
        }
        return result
    }
}
