import CSQLite
import Foundation

/// How results are ranked, marked and paged.
public struct SearchOptions: Sendable, Hashable {
    /// Text put before and after each matched word in highlights and snippets.
    public struct Markers: Sendable, Hashable {
        /// Put before a matched word.
        public var open: String
        /// Put after a matched word.
        public var close: String
        /// `open` before each matched word, `close` after it: `Markers("<b>", "</b>")`.
        public init(_ open: String, _ close: String) {
            self.open = open
            self.close = close
        }
    }

    /// At most this many hits.
    public var limit: Int = 20
    /// Hits to skip (for paging).
    public var offset: Int = 0
    /// Weight per index column (1 when not given): `["title": 10, "body": 1]`. Either ranking takes them;
    /// ``Ranking/bm25f(k1:b:)`` needs them finite and not negative.
    public var weights: [String: Double] = [:]
    /// How hits are scored: Sift's BM25F, ``Ranking/default`` (k1 1.2, b 0.75), or FTS5's `bm25()` (see ``Ranking``).
    public var ranking: Ranking = .default
    /// Columns returned whole with the matched words marked.
    public var highlight: [String] = []
    /// Columns returned as short fragments around the matched words.
    public var snippet: [String] = []
    /// Text inserted before and after each matched word.
    public var markers = Markers("[", "]")
    /// Text marking where a snippet was cut.
    public var ellipsis: String = "…"
    /// A snippet's length in characters (1 to 100,000), the same for every script: a fragment of whole tokens
    /// around the best cluster of matched words, so a little shorter (or one long token). A column this long or
    /// shorter is returned whole.
    public var snippetLength: Int = 100
    /// Whether to count every hit, not only those returned. Counting reads every matching row; without it the
    /// pruned search of a large index passes over the blocks of rows that cannot reach the page (at 1,000,000 rows,
    /// two words, all terms: 1.0 ms at p50 against 1.8 with the total). ``SearchResults/totalCount`` is then nil.
    public var countTotal: Bool = true
    /// Pseudo-relevance feedback for `.anyTerm` questions under ``Ranking/bm25f(k1:b:)`` (nil: none, the default):
    /// a second search with words of the first one's best hits added (see ``Feedback``).
    public var feedback: Feedback?
    /// How many typos each word of an `.allTerms`, `.anyTerm` or `.prefix` query forgives (``TypoTolerance``):
    /// ``TypoTolerance/default`` (Meilisearch's defaults) unless set. On four English test collections it moved the
    /// nDCG@10 of clean queries by -0.002 to +0.001 and raised that of misspelled ones to 86-99% of the clean figure.
    /// Its costs: finding each word's variants (a walk over the index's term list), and the term list itself, held
    /// in memory per index, read from the index by the first typo-tolerant search and then kept up to date by this
    /// process's writes through the sync layer (other writes make the next search read it again). Set
    /// ``TypoTolerance/off`` to search every word as typed.
    ///
    ///     var options = SearchOptions()
    ///     options.typoTolerance = .off  // "aeroelastc" finds only "aeroelastc"
    public var typoTolerance: TypoTolerance = .default
    /// Whether the index's synonym list expands the query (true by default: a list exists because someone wrote it;
    /// a search of an index without one is unchanged). See ``Database/addSynonyms(_:to:)``.
    ///
    ///     var options = SearchOptions()
    ///     options.usesSynonyms = false      // "nyc" finds only "nyc"
    public var usesSynonyms: Bool = true
    /// The weight of a synonym's match relative to the word typed (0 to 1, ``defaultSynonymWeight`` by default): each
    /// synonym is a phrase of the query weighing this times its word's weight, scored with the row count of the
    /// most frequent member of its word's group (Lucene's `SynonymQuery` blends document frequencies the same way),
    /// so a row holding the word as typed ranks above one holding only a synonym, all else equal.
    public var synonymWeight: Double = SearchOptions.defaultSynonymWeight

    /// The default ``synonymWeight``: 0.5, the middle of the 0.3-0.7 that query expansion weighs added terms by
    /// (Anserini's RM3 gives its added words half the weight, as ``Feedback/rm3`` does; Lucene's `SynonymQuery` takes a
    /// boost of at most 1 per synonym beside blending their document frequencies). On Sift's small judged check of synonyms (31 rows, 6
    /// questions, some synonyms of another sense), every weight from 0.1 to 0.7 gave the same nDCG@5, 0.887 under both
    /// rankings, against 0.585 without synonyms; 1 gave 0.902 under InB2 and 0.874 under BM25F and no longer ranks the
    /// word typed first (see the "Facets and Synonyms" article).
    public static let defaultSynonymWeight = 0.5
    /// Columns of the content table whose values are counted over every matching row, not only the page of hits
    /// (``SearchResults/facets``): exact, from the compact structure Sift keeps for facets declared with the index
    /// (``VirtualTableBinding/withFacets(_:)``), else with a plain `GROUP BY` over the matches.
    ///
    ///     let results: SearchResults<Article> = try database.search("coffee", in: "articles_fts",
    ///                                                               options: SearchOptions(facets: ["category"]))
    ///     results.facets["category"]?.top   // [("drinks", 412), ("travel", 96), ...]
    public var facets: [String] = []
    /// How many of each facet's most frequent values ``FacetDistribution/top`` lists (every value is in
    /// ``FacetDistribution/counts``).
    public var facetLimit: Int = 10
    /// Keeps only the rows whose column holds one of the listed values, for each listed column (the columns of the
    /// content table, ANDed together; the values of one column ORed; ``FundamentalValue/null`` matches NULL). Applies to
    /// the hits, the total and the facet counts alike, together with the text and the `where:` condition.
    ///
    ///     options.facetFilters = ["category": ["books", "music"], "year": [2024]]
    public var facetFilters: [String: [FundamentalValue]] = [:]

    /// Default options: 20 hits, ``Ranking/default`` with equal weights, no highlights, totals counted.
    public init(limit: Int = 20, offset: Int = 0, weights: [String: Double] = [:], ranking: Ranking = .default,
                highlight: [String] = [], snippet: [String] = [], markers: Markers = Markers("[", "]"),
                ellipsis: String = "…", snippetLength: Int = 100, countTotal: Bool = true, feedback: Feedback? = nil,
                typoTolerance: TypoTolerance = .default, usesSynonyms: Bool = true,
                synonymWeight: Double = SearchOptions.defaultSynonymWeight, facets: [String] = [], facetLimit: Int = 10,
                facetFilters: [String: [FundamentalValue]] = [:]) {
        self.usesSynonyms = usesSynonyms
        self.synonymWeight = synonymWeight
        self.facets = facets
        self.facetLimit = facetLimit
        self.facetFilters = facetFilters
        self.feedback = feedback
        self.typoTolerance = typoTolerance
        self.ranking = ranking
        self.ellipsis = ellipsis
        self.snippetLength = snippetLength
        self.limit = limit
        self.offset = offset
        self.weights = weights
        self.highlight = highlight
        self.snippet = snippet
        self.markers = markers
        self.countTotal = countTotal
    }
}

/// One hit: the object, its score and its marked-up text.
public struct SearchHit<Object> {
    /// The matching object (the content table's model for a synced index).
    public let object: Object
    /// The rowid of the object.
    public let rowid: Int64
    /// Relevance under the search's ``SearchOptions/ranking``: larger is better, comparable only within one search.
    public let score: Double
    /// Highlighted columns, by name.
    public let highlights: [String: String]
    /// Snippets, by column name.
    public let snippets: [String: String]
}

/// A page of hits and the total number of hits.
public struct SearchResults<Object> {
    /// The hits, best first.
    public let hits: [SearchHit<Object>]
    /// Every hit's count, or nil when not requested (``SearchOptions/countTotal``). Exact, except from a pruned
    /// search (`.inB2` or `.bm25f` on a large synced index) of several words with more than 1,000 hits: then
    /// counting them all would cost as much as scoring them, and it is a lower bound (``totalCountIsLowerBound``):
    /// at least 1,001, and at least the hits of the most frequent word of an any-term query. A one-word search's
    /// total is always exact (the index keeps each frequent word's row count), and so is that of a search whose
    /// words are all frequent ones (scored from their postings, which count every hit on the way), up to 16 words
    /// and typo variants in all.
    public let totalCount: Int?
    /// The FTS5 expression that ran, for debugging.
    public let expression: String?
    /// Whether ``totalCount`` is a lower bound rather than the exact count (see there).
    public internal(set) var totalCountIsLowerBound = false
    /// The counts of the values of each column ``SearchOptions/facets`` names, over every matching row (exact).
    public internal(set) var facets: [String: FacetDistribution] = [:]
}

extension Database {
    /// Searches a full-text index and returns ranked objects, decoded in the same query.
    ///
    ///     let results: SearchResults<Article> = try database.search(SearchQuery("sqlite search"), in: "articles_fts",
    ///         where: Article.Properties.published > cutoff,
    ///         options: SearchOptions(weights: ["title": 10], highlight: ["title"], snippet: ["body"]))
    public func search<Object: TableDecodable>(_ query: SearchQuery, in index: String, of type: Object.Type = Object.self,
                                               where condition: Condition? = nil,
                                               options: SearchOptions = SearchOptions()) throws -> SearchResults<Object> {
        if let invalidity = options.rankingInvalidity { throw pool.report(SiftError.misuse(invalidity, operation: .query)) }
        return try read { handle in try search(query, in: index, Object.self, where: condition, options: options, on: handle) }
    }

    /// A full-text search (see `search(_:in:of:where:options:)`) on `handle`, in one snapshot: the caller's
    /// transaction when one is open (a hybrid search reads its vector side in the same one), else its own.
    func search<Object: TableDecodable>(_ query: SearchQuery, in index: String, _ type: Object.Type, where condition: Condition?,
                                        options: SearchOptions, on handle: Handle) throws -> SearchResults<Object> {
        let info = try ftsInfo(index, on: handle)
        let tokenizer = try handle.tokenizer(info.tokenizer)
        let stopwords = pool.attachment(FullTextSettings.init).stopwords(for: info.tokenizer)
        let variants: TypoVariant.Finder? = options.typoTolerance.isOff ? nil
            : typoVariants(info, tokenizer, options.typoTolerance, on: handle)
        let synonyms = options.usesSynonyms ? try synonymFinder(info, tokenizer, on: handle) : nil
        let filtered = try facetCondition(condition, options, info, on: handle)
        guard var weighted = try query.weightedTree(spans: tokenizer.querySpans, distinct: options.ranking.weighsQueryTerms,
                                                    stopwords: stopwords, variants: variants, synonyms: synonyms,
                                                    synonymWeight: options.synonymWeight)
        else {
            var results = SearchResults<Object>(hits: [], totalCount: options.countTotal ? 0 : nil, expression: nil)
            results.facets = Dictionary(uniqueKeysWithValues: options.facets.map { ($0, FacetDistribution(field: $0, counts: [:], limit: options.facetLimit)) })
            return results
        }
        for column in query.columns + options.highlight + options.snippet + Array(options.weights.keys)
        where !info.columns.contains(column) {
            throw pool.report(SiftError.misuse("\(index) has no column \(column).", operation: .query))
        }
        // One snapshot for every statement of the search (a write committing between two of them could change
        // rows the impacts or the kept counts describe), and one read transaction rather than one a statement.
        let snapshot = !handle.isInTransaction && sqlite3_exec(handle.raw, "BEGIN", nil, nil, nil) == SQLITE_OK
        defer { if snapshot { sqlite3_exec(handle.raw, "COMMIT", nil, nil, nil) } }
        var rank = self.rank(options, info.columns, weighted.tree, weighted.weights)
        if let feedback = options.feedback, options.ranking.weighsQueryTerms, query.takesFeedback,
           let expanded = try expanded(query, weighted.tree, rank, filtered, by: feedback, info, tokenizer, stopwords,
                                       variants: variants, synonyms: synonyms, synonymWeight: options.synonymWeight,
                                       on: handle) {
            weighted = expanded
            rank = self.rank(options, info.columns, weighted.tree, weighted.weights)
        }
        var results: SearchResults<Object>
        if let pruned = try prunedSearch(weighted.tree, weighted.weights, info, Object.self, filtered, options, on: handle) {
            results = pruned
        } else {
            rank = try counted(rank, weighted.tree, info, on: handle)
            results = try runSearch(weighted.tree.rendered, rank, info, Object.self, filtered, options,
                                    isAdvanced: query.isAdvanced, on: handle)
        }
        if !options.facets.isEmpty {
            results.facets = try facetDistributions(weighted.tree, info, filtered, options, on: handle)
        }
        return results
    }

    /// Searches with user text: `try database.search("quick fox", in: "notes")`.
    public func search<Object: TableDecodable>(_ text: String, mode: SearchQuery.Mode = .allTerms, in index: String,
                                               of type: Object.Type = Object.self, where condition: Condition? = nil,
                                               options: SearchOptions = SearchOptions()) throws -> SearchResults<Object> {
        try search(SearchQuery(text, mode: mode), in: index, of: type, where: condition, options: options)
    }

    /// The FTS5 expression Sift runs for `query` on `index` under `ranking` (nil when there is nothing to search
    /// for). ``Ranking/bm25f(k1:b:)`` searches a repeated word once and weighs it by its count, so its expression
    /// can be shorter.
    /// With `typoTolerance`, each word that has corrected variants in the index is an OR-group of itself and them;
    /// with `usesSynonyms`, each word or run of words in the index's synonym list is an OR-group of itself and its
    /// synonyms (`"nyc"` -> `("nyc" OR "new york city")`).
    public func expression(for query: SearchQuery, in index: String, ranking: Ranking = .default,
                           typoTolerance: TypoTolerance = .default, usesSynonyms: Bool = true) throws -> String? {
        try read { handle in
            let info = try ftsInfo(index, on: handle)
            let tokenizer = try handle.tokenizer(info.tokenizer)
            let variants: TypoVariant.Finder? = typoTolerance.isOff ? nil : typoVariants(info, tokenizer, typoTolerance, on: handle)
            return try query.weightedTree(spans: tokenizer.querySpans, distinct: ranking.weighsQueryTerms,
                                          stopwords: pool.attachment(FullTextSettings.init).stopwords(for: info.tokenizer),
                                          variants: variants,
                                          synonyms: usesSynonyms ? try synonymFinder(info, tokenizer, on: handle) : nil)?.tree.rendered
        }
    }

    /// The rank function of `options` for an index with `columns` and a query `tree` whose phrases weigh
    /// `phraseWeights` (nil for FTS5's default ranking).
    private func rank(_ options: SearchOptions, _ columns: [String], _ tree: FTS5Expression, _ phraseWeights: [Double]?)
        -> SearchStatement.Rank? {
        let weights = columns.map { options.weights[$0] ?? 1 }
        // Weights for exactly the phrases FTS5 numbers, else none (each phrase then weighs 1).
        let counted = phraseWeights.flatMap { $0.count == tree.phraseCount ? $0 : nil }
        switch options.ranking.kind {
        case .bm25: return options.weights.isEmpty ? nil : .bm25(weights: weights)
        case .bm25f(let k1, let b): return .siftRank(k1: k1, b: b, weights: weights, phraseWeights: counted)
        case .inB2(let c): return .siftInB2(c: c, weights: weights, phraseWeights: counted)
        }
    }


    /// `rank` with the phrases' rows and instances it would count (kept between searches, see `PhraseStatistics`),
    /// when it is Sift's and the expression a plain list of phrases.
    private func counted(_ rank: SearchStatement.Rank?, _ tree: FTS5Expression, _ info: FTSTableInfo,
                         on handle: Handle) throws -> SearchStatement.Rank? {
        let cache = pool.attachment(FullTextSettings.init).phraseStatistics
        switch rank {
        case .siftRank(let k1, let b, let weights, let phraseWeights?, nil):
            return .siftRank(k1: k1, b: b, weights: weights, phraseWeights: phraseWeights,
                             counts: try PhraseStatistics.counts(of: tree, in: info.name, cache: cache, on: handle))
        case .siftInB2(let c, let weights, let phraseWeights?, nil):
            return .siftInB2(c: c, weights: weights, phraseWeights: phraseWeights,
                             counts: try PhraseStatistics.counts(of: tree, in: info.name, cache: cache, on: handle))
        default:
            return rank
        }
    }

    func ftsInfo(_ index: String, on handle: Handle) throws -> FTSTableInfo {
        let version = try handle.schemaVersion()
        let tables = pool.attachment(FullTextSettings.init).tables
        if let cached = tables.withLock({ $0[index] }), cached.version == version { return cached.info }
        let info = try FTSTableInfo.load(index, on: handle)
        tables.withLock { $0[index] = (version, info) }
        return info
    }

    private func runSearch<Object: TableDecodable>(_ expression: String, _ rank: SearchStatement.Rank?, _ info: FTSTableInfo,
                                                   _ type: Object.Type, _ condition: Condition?, _ options: SearchOptions,
                                                   isAdvanced: Bool, on handle: Handle) throws -> SearchResults<Object> {
        var statement = searchStatement(expression, info, Object.self, options)
        statement.rank = rank
        statement.condition = condition
        let rendered = statement.statementSQL
        let decoder = HitDecoder<Object>(options: options)
        var hits: [SearchHit<Object>] = []
        do {
            try handle.withStatement(rendered.sql) { stmt in
                try handle.bind(rendered.values, to: stmt, sql: rendered.sql)
                while try handle.step(stmt) {
                    hits.append(try decoder.hit(from: stmt, score: -sqlite3_column_double(stmt, decoder.base + 1),
                                                markupAt: decoder.base + 2))
                }
            }
        } catch let error as SiftError where isAdvanced && error.code == .error {
            // A malformed trusted expression: say so as a query error, not a generic SQL one.
            throw pool.report(SiftError(code: .error, message: "Invalid full-text query: \(error.message)", sql: error.sql,
                                        path: path, tag: tag, operation: .query))
        }
        var total: Int?
        if options.countTotal {
            if hits.count < options.limit && (options.offset == 0 || !hits.isEmpty) {
                total = options.offset + hits.count
            } else {
                statement.countsOnly = true
                let counting = statement.statementSQL
                total = try handle.withStatement(counting.sql) { stmt in
                    try handle.bind(counting.values, to: stmt, sql: counting.sql)
                    return try handle.step(stmt) ? Int(sqlite3_column_int64(stmt, 0)) : 0
                }
            }
        }
        return SearchResults(hits: hits, totalCount: total, expression: expression)
    }
}

extension Database {
    /// The search statement of `expression` on the index `info` selecting `Object`'s columns, with the
    /// highlights, snippets and page of `options` (no rank function or condition yet).
    func searchStatement<Object: TableDecodable>(_ expression: String, _ info: FTSTableInfo, _ type: Object.Type,
                                                 _ options: SearchOptions) -> SearchStatement {
        var statement = SearchStatement(index: info.name, content: info.content,
                                        columns: Object.CodingKeys.objectRelationalMapping.columnNames,
                                        expression: expression, limit: options.limit, offset: options.offset)
        let position = { (column: String) in info.columns.firstIndex(of: column) ?? 0 }
        statement.highlights = options.highlight.map {
            SearchStatement.Highlight(column: position($0), open: options.markers.open, close: options.markers.close)
        }
        statement.snippets = options.snippet.map {
            SearchStatement.Snippet(column: position($0), open: options.markers.open, close: options.markers.close,
                                    ellipsis: options.ellipsis, characters: options.snippetLength)
        }
        return statement
    }
}

/// Reads a search statement's row into a hit: the object's columns first, then its rowid (at `base`), then the
/// highlights and snippets of `options` in their order, wherever the caller says they start.
struct HitDecoder<Object: TableDecodable> {
    let options: SearchOptions
    let decoder: RowDecoder
    let base: Int32

    init(options: SearchOptions) {
        let binding = Object.CodingKeys.objectRelationalMapping
        self.options = options
        decoder = RowDecoder(binding: binding, ordinals: Array(binding.keys.indices))
        base = Int32(binding.keys.count)
    }

    func hit(from stmt: OpaquePointer, score: Double, markupAt first: Int32) throws -> SearchHit<Object> {
        let object = try decoder.decode(Object.self, from: stmt)
        var highlights: [String: String] = [:], snippets: [String: String] = [:]
        var column = first
        for name in options.highlight { highlights[name] = RawStatement.text(stmt, column); column += 1 }
        for name in options.snippet { snippets[name] = RawStatement.text(stmt, column); column += 1 }
        return SearchHit(object: object, rowid: sqlite3_column_int64(stmt, base), score: score,
                         highlights: highlights, snippets: snippets)
    }
}

extension SearchOptions {
    /// Why the ranking cannot run with these options (a parameter or a weight out of its range), or nil.
    var rankingInvalidity: String? {
        if let invalidity = ranking.invalidity ?? feedback?.invalidity { return invalidity }
        if !(synonymWeight >= 0 && synonymWeight <= 1) { return "synonymWeight must be between 0 and 1, not \(synonymWeight)." }
        guard ranking.weighsQueryTerms else { return nil }
        if let bad = weights.sorted(by: { $0.key < $1.key }).first(where: { !$0.value.isFinite || $0.value < 0 }) {
            return "The weight of \(bad.key) must be a finite number >= 0 for \(ranking), not \(bad.value)."
        }
        return nil
    }
}

extension SearchHit: Sendable where Object: Sendable {}
extension SearchResults: Sendable where Object: Sendable {}
