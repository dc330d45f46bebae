extension Database {
    /// Searches words and meaning at once: the full-text ranking of `query` in `index` and the nearest rows to
    /// `vector` in `vectorIndex` (both over the same content table), fused into one ranked list (see
    /// ``HybridFusion``). The text side keeps its options (ranking, weights, typo tolerance, feedback, highlights
    /// and snippets, which hits found by the text side carry); `options.limit` and `options.offset` page the fused
    /// list. `condition` filters both sides. ``SearchResults/totalCount`` is nil; ``SearchResults/expression`` is
    /// the text side's.
    ///
    ///     let results: SearchResults<Article> = try database.search(
    ///         SearchQuery("cheap flights lisbon"), nearest: Embedding(model.embed("cheap flights lisbon")),
    ///         in: "articles_fts", vectors: "articles_vectors", options: SearchOptions(highlight: ["title"]))
    ///
    /// - Throws: ``SiftError`` as either search does, and when the two indexes do not share a content table or
    ///   the fusion's parameters are out of range.
    public func search<Object: TableDecodable>(_ query: SearchQuery, nearest vector: Embedding, in index: String,
                                               vectors vectorIndex: String, of type: Object.Type = Object.self,
                                               where condition: Condition? = nil, options: SearchOptions = SearchOptions(),
                                               hybrid: HybridOptions = HybridOptions()) throws -> SearchResults<Object> {
        if let invalidity = hybrid.fusion.invalidity ?? options.rankingInvalidity {
            throw pool.report(SiftError.misuse(invalidity, operation: .query))
        }
        guard options.limit >= 0, options.offset >= 0, hybrid.candidates >= 1, hybrid.candidates <= 1_000_000 else {
            throw pool.report(SiftError.misuse("limit and offset must be >= 0, candidates 1 to 1,000,000.", operation: .query))
        }
        let depth = max(hybrid.candidates, options.limit + options.offset)
        var textOptions = options
        textOptions.limit = depth
        textOptions.offset = 0
        textOptions.countTotal = false
        // Both sides in one read snapshot: a write committing between them cannot make the sides disagree.
        let (text, nearest) = try read { handle in
            try handle.inSnapshot { () -> (SearchResults<Object>, SearchResults<Object>) in
                let vectors = try recordedVectorIndex(vectorIndex, on: handle)
                let content = try ftsInfo(index, on: handle).content?.table
                guard content == vectors.content else {
                    throw pool.report(SiftError.misuse("\(index) and \(vectorIndex) index different tables.", operation: .query))
                }
                let text = try search(query, in: index, Object.self, where: condition, options: textOptions, on: handle)
                let nearest = try search(nearest: vector, in: vectorIndex, Object.self, where: condition,
                                         options: VectorSearchOptions(limit: depth, scan: hybrid.scan), on: handle)
                return (text, nearest)
            }
        }
        // Normalized over each side's first `candidates` rows whatever the page: page 2 continues page 1.
        let fused = hybrid.fusion.fuse(text: text.hits.map { ($0.rowid, $0.score) }, vector: nearest.hits.map { ($0.rowid, $0.score) },
                                       depth: hybrid.candidates)
        var found: [Int64: SearchHit<Object>] = [:]
        for hit in nearest.hits + text.hits { found[hit.rowid] = hit }  // the text side's hit, with its markup, wins
        let page = fused.dropFirst(options.offset).prefix(options.limit)
        let hits = page.compactMap { entry in
            found[entry.rowid].map {
                SearchHit(object: $0.object, rowid: entry.rowid, score: entry.score, highlights: $0.highlights, snippets: $0.snippets)
            }
        }
        return SearchResults(hits: hits, totalCount: nil, expression: text.expression)
    }
}
