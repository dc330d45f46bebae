import CSQLite

extension Database {
    /// The rows nearest to `vector` under the index's metric, best first, decoded in the same read: each hit's
    /// ``SearchHit/score`` is its cosine similarity, dot product, or minus its Euclidean distance (larger is nearer;
    /// ties: the smaller rowid first). Exact by default: every vector is scored (see ``VectorSearchOptions/Scan``).
    /// `condition` keeps only the content rows meeting it, checked before they are scored.
    ///
    ///     let results: SearchResults<Article> = try database.search(
    ///         nearest: Embedding(model.embed("cheap flights to Lisbon")), in: "articles_vectors",
    ///         where: Article.Properties.published > cutoff)
    ///     for hit in results.hits { print(hit.score, hit.object.title) }
    ///
    /// Every number read from the index's blocks is checked, and so are the returned hits (against their rows'
    /// own vectors); when anything does not add up, the search scores the rows' own vectors instead (slower, as
    /// exact). ``SearchResults/totalCount`` is nil.
    ///
    /// - Throws: ``SiftError`` when there is no such index, the options are out of range, the scan asks for codes
    ///   the index does not keep, or the query's dimension or values are refused (``SiftError/vectorFailure``).
    public func search<Object: TableDecodable>(nearest vector: Embedding, in vectorIndex: String, of type: Object.Type = Object.self,
                                               where condition: Condition? = nil,
                                               options: VectorSearchOptions = VectorSearchOptions()) throws -> SearchResults<Object> {
        try read { handle in try search(nearest: vector, in: vectorIndex, Object.self, where: condition, options: options, on: handle) }
    }

    /// A nearest-neighbour search (see `search(nearest:in:of:where:options:)`) on `handle`, in one snapshot: the
    /// caller's transaction when one is open (a hybrid search reads its text side in the same one), else its own.
    func search<Object: TableDecodable>(nearest vector: Embedding, in vectorIndex: String, _ type: Object.Type,
                                        where condition: Condition?, options: VectorSearchOptions,
                                        on handle: Handle) throws -> SearchResults<Object> {
        try handle.inSnapshot {
            let found = try nearest(vector, in: vectorIndex, where: condition, options: options, on: handle)
            return SearchResults(hits: try vectorHits(found.candidates, of: found.index, Object.self, on: handle),
                                 totalCount: nil, expression: nil)
        }
    }

    /// The page of candidates of a nearest-neighbour search (see `search(nearest:...)`), with exact scores.
    func nearest(_ vector: Embedding, in name: String, where condition: Condition?, options: VectorSearchOptions,
                 on handle: Handle) throws -> (index: VectorIndex, candidates: [VectorCandidate]) {
        guard options.limit >= 0, options.offset >= 0, options.limit <= 1_000_000, options.offset <= 1_000_000 else {
            throw pool.report(SiftError.misuse("limit and offset must be 0 to 1,000,000.", operation: .query))
        }
        let index = try recordedVectorIndex(name, on: handle)
        let query: [Float]
        switch index.prepared(vector.values) {
        case .success(let prepared): query = prepared
        case .failure(let failure): throw pool.report(index.error(failure, rowid: nil, operation: .query))
        }
        let store = VectorStore(index, on: handle)
        let cache = pool.attachment(VectorBlockCache.init)
        let filter = try condition.map { try VectorRowFilter($0, of: index, on: handle) }
        let wanted = options.limit + options.offset
        var candidates: [VectorCandidate]
        switch options.scan {
        case .exact:
            candidates = try store.nearest(query, limit: wanted, reading: .vectors, filter: filter, cache: cache).map(\.candidates)
                .flatMap { found in
                    // The hits against their rows' own vectors: a block that holds other values than its rows is stale.
                    let exact = try store.exactScores(query, of: found.map(\.rowid))
                    return Self.agree(found, exact) ? exact : nil
                } ?? store.nearestRows(query, limit: wanted, filter: filter)
        case .quantized(let count):
            guard index.quantization != .none else {
                throw pool.report(SiftError.misuse("\(name) keeps no codes to scan: declare it with int8 or binary quantization.",
                                                   operation: .query))
            }
            guard count >= 1, count <= 1_000_000 else {
                throw pool.report(SiftError.misuse("The candidates to re-rank must be 1 to 1,000,000.", operation: .query))
            }
            if let scan = try store.nearest(query, limit: max(count, wanted), reading: .codes, filter: filter, cache: cache) {
                let (rescored, kept) = try store.rescored(query, scan, cache: cache)
                candidates = Array(rescored.prefix(wanted))
                if kept {
                    // Scores from kept blocks, the hits checked against their rows' own vectors as an exact scan's are.
                    let exact = try store.exactScores(query, of: candidates.map(\.rowid))
                    candidates = Self.agree(candidates, exact)
                        ? exact : Array(try store.exactScores(query, of: scan.candidates.map(\.rowid)).prefix(wanted))
                }
            } else {
                candidates = try store.nearestRows(query, limit: wanted, filter: filter)
            }
        }
        candidates = Array(candidates.dropFirst(options.offset))
        // Scans rank L2 by minus the squared distance (the same order); hits carry minus the distance.
        if index.metric == .l2 {
            candidates = candidates.map { VectorCandidate(rowid: $0.rowid, score: -(max(0, -$0.score)).squareRoot()) }
        }
        return (index, candidates)
    }

    /// Whether the scores a scan found agree with those of the rows' own vectors (the same rows, scores within
    /// float rounding of the scan's summation order).
    static func agree(_ found: [VectorCandidate], _ exact: [VectorCandidate]) -> Bool {
        guard found.count == exact.count else { return false }
        let scores = Dictionary(exact.map { ($0.rowid, $0.score) }, uniquingKeysWith: { a, _ in a })
        return found.allSatisfy { candidate in
            guard let score = scores[candidate.rowid] else { return false }
            return abs(score - candidate.score) <= 1e-4 * max(1, abs(score), abs(candidate.score))
        }
    }

    /// The objects of `candidates` (rows of the index's content table), in their order, scored.
    func vectorHits<Object: TableDecodable>(_ candidates: [VectorCandidate], of index: VectorIndex, _ type: Object.Type,
                                            on handle: Handle) throws -> [SearchHit<Object>] {
        let q = SQLBuilder.quote
        let columns = Object.CodingKeys.objectRelationalMapping.columnNames.map(q).joined(separator: ", ")
        let sql = "SELECT \(columns), \(q(index.rowidColumn)) FROM \(q(index.content)) WHERE \(q(index.rowidColumn)) = ?"
        let decoder = HitDecoder<Object>(options: SearchOptions())
        var hits: [SearchHit<Object>] = []
        try handle.withStatement(sql) { stmt in
            for candidate in candidates {
                sqlite3_reset(stmt)
                sqlite3_bind_int64(stmt, 1, candidate.rowid)
                guard try handle.step(stmt) else { continue }
                hits.append(try decoder.hit(from: stmt, score: Double(candidate.score), markupAt: decoder.base + 1))
            }
        }
        return hits
    }
}
