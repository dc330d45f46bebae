import Foundation
import Sift

/// A condition on a stored field, `name=value`: `title`, `key`, `source` and `origin` are columns;
/// any other name is a field kept from the source (a JSON Lines field or a CSV column).
public struct FieldFilter: Sendable, Hashable {
    /// The field's name.
    public var field: String
    /// The value it must equal.
    public var value: String

    /// A filter on `field`.
    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }

    /// Parses `name=value` (the value may contain `=`).
    public init(parsing text: String) throws {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw SiftToolError.invalidArgument("--where expects field=value, got \"\(text)\"")
        }
        self.init(field: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
    }

    static let columns: Set<String> = ["title", "key", "source", "origin"]

    var condition: Condition {
        if Self.columns.contains(field) { return Column(named: field) == value }
        // Quoting the key keeps names with dots or spaces from being read as a JSON path.
        let path = "$.\"" + field.replacingOccurrences(of: "\"", with: "") + "\""
        let extracted = SQLExpression(function: "json_extract", [Column(named: "fields"), path])
        // JSON numbers come back from json_extract as numbers, which never equal the text "1989".
        if let number = Int(value) { return extracted == value || extracted == number }
        if let number = Double(value) { return extracted == value || extracted == number }
        return extracted == value
    }
}

/// How `CorpusDatabase.search` runs and presents a query.
public struct CorpusSearchOptions: Sendable, Hashable {
    /// How the words combine.
    public var mode: SearchQuery.Mode
    /// Conditions every hit must meet.
    public var filters: [FieldFilter]
    /// Weight of the title relative to the body: a word in a short title says more about the document.
    public var titleWeight: Double
    /// How hits are scored: ``Ranking/default`` (Sift's BM25F) unless set.
    public var ranking: Ranking
    /// Pseudo-relevance feedback for `.anyTerm` questions (``SearchOptions/feedback``); nil, the default, for none.
    public var feedback: Feedback?

    /// A title word weighs twice a body word (BM25F column weight): a short title says more about a document in
    /// fewer words, as field-weighting studies found (Robertson, Zaragoza and Taylor, "Simple BM25 extension to
    /// multiple weighted fields", 2004), and 2 is a cautious value. Measured: +0.006 nDCG@10 on cranfield and cisi,
    /// the two English test collections with titles; the CJK collections stay level (`sift eval`).
    public static let defaultTitleWeight: Double = 2
    /// Paging, markers and snippet size (the title is highlighted and the body snippeted, whatever they say).
    public var search: SearchOptions
    /// A query vector (as the documents' vectors were computed): with text, a hybrid search fusing both rankings by
    /// ``fusion``; with empty text, the nearest documents alone. Nil, the default, searches the text alone.
    public var vector: [Float]?
    /// How a hybrid search fuses its text and vector rankings (``HybridFusion/default``).
    public var fusion: HybridFusion = .default

    /// Ten hits, all terms, matches marked with `[` and `]`, titles weighted 2, ``Ranking/default``, snippets of 150
    /// characters.
    public init(mode: SearchQuery.Mode = .allTerms, limit: Int = 10, offset: Int = 0, filters: [FieldFilter] = [],
                markers: SearchOptions.Markers = SearchOptions.Markers("[", "]"), titleWeight: Double = defaultTitleWeight,
                ranking: Ranking = .default, snippetLength: Int = 150) {
        self.mode = mode
        self.filters = filters
        self.titleWeight = titleWeight
        self.ranking = ranking
        search = SearchOptions(limit: limit, offset: offset, markers: markers, snippetLength: snippetLength)
    }
}

/// One search hit, with the field names `sift search --json` prints.
public struct CorpusHit: Sendable, Hashable {
    /// The document's rowid in the corpus.
    public var id: Int
    /// The document's key (source id or relative path).
    public var key: String
    /// The title, matched words marked.
    public var title: String
    /// Relevance under the search's ranking; larger is better, comparable only within one query.
    public var score: Double
    /// A fragment of the body around the matched words, marked.
    public var snippet: String
    /// The file the document came from.
    public var source: String
    /// The source's other fields, as a JSON object text.
    public var fields: String
}

/// A page of hits.
public struct CorpusSearchResults: Sendable, Hashable {
    /// The hits, best first.
    public var hits: [CorpusHit]
    /// All hits, not only this page.
    public var totalCount: Int
    /// The counts of each facet field the search asked for (``CorpusSearchOptions/search``'s `facets`), over all hits.
    public var facets: [String: FacetDistribution] = [:]
}

extension CorpusDatabase {
    /// Searches the corpus with user text (never an FTS5 syntax error), tokenized like the documents; with
    /// ``CorpusSearchOptions/vector``, by meaning too (hybrid), or by meaning alone when `text` is empty.
    public func search(_ text: String, options: CorpusSearchOptions = CorpusSearchOptions()) throws -> CorpusSearchResults {
        if let vector = options.vector { return try search(text, nearest: vector, options: options) }
        return try translatingErrors {
            let condition = Self.condition(options.filters)
            var searchOptions = Self.displayOptions(options)
            // Facets are asked for by field; each is counted in its column of `documents` (see `updateFacets`).
            if !searchOptions.facets.isEmpty {
                let known = try facetFields()
                for field in searchOptions.facets where !known.contains(field) {
                    throw SiftToolError.invalidArgument("\(field) is not a facet of this corpus: index with --facet \(field)")
                }
                searchOptions.facets = searchOptions.facets.map(Self.facetColumn)
            }
            let results: SearchResults<DocumentSummary> = try database.search(
                SearchQuery(text, mode: options.mode), in: Self.indexTable, where: condition, options: searchOptions)
            let hits = Self.corpusHits(results)
            var corpusResults = CorpusSearchResults(hits: hits, totalCount: results.totalCount ?? hits.count)
            for (column, distribution) in results.facets {
                corpusResults.facets[String(column.dropFirst(Self.facetPrefix.count))] = distribution
            }
            return corpusResults
        }
    }

    /// A search with a query vector: hybrid with text, nearest neighbours alone without.
    private func search(_ text: String, nearest vector: [Float], options: CorpusSearchOptions) throws -> CorpusSearchResults {
        guard options.search.facets.isEmpty else {
            throw SiftToolError.invalidArgument("facets count the matches of a text search, not those of a vector search")
        }
        let embedding = try checkedQueryVector(vector)
        return try translatingErrors {
            let condition = Self.condition(options.filters)
            let searchOptions = Self.displayOptions(options)
            let results: SearchResults<DocumentSummary>
            if text.allSatisfy(\.isWhitespace) {
                results = try database.search(nearest: embedding, in: Self.vectorIndex, where: condition,
                                              options: VectorSearchOptions(limit: searchOptions.limit, offset: searchOptions.offset))
            } else {
                results = try database.search(SearchQuery(text, mode: options.mode), nearest: embedding, in: Self.indexTable,
                                              vectors: Self.vectorIndex, where: condition, options: searchOptions,
                                              hybrid: HybridOptions(fusion: options.fusion))
            }
            let hits = Self.corpusHits(results)
            return CorpusSearchResults(hits: hits, totalCount: results.totalCount ?? hits.count)
        }
    }

    /// Every filter at once.
    private static func condition(_ filters: [FieldFilter]) -> Condition? {
        filters.reduce(nil) { condition, filter in condition.map { $0 && filter.condition } ?? filter.condition }
    }

    /// The library's options of a corpus search: its paging and facets, the title weighted, highlighted, the body
    /// snippeted.
    private static func displayOptions(_ options: CorpusSearchOptions) -> SearchOptions {
        var searchOptions = options.search
        searchOptions.weights = ["title": options.titleWeight]
        searchOptions.ranking = options.ranking
        searchOptions.feedback = options.feedback
        searchOptions.highlight = ["title"]
        searchOptions.snippet = ["body"]
        return searchOptions
    }

    private static func corpusHits(_ results: SearchResults<DocumentSummary>) -> [CorpusHit] {
        results.hits.map { hit in
            CorpusHit(id: Int(hit.rowid), key: hit.object.key, title: hit.highlights["title"] ?? hit.object.title,
                      score: hit.score, snippet: hit.snippets["body"] ?? "", source: hit.object.source, fields: hit.object.fields)
        }
    }

    /// `vector` as an ``Embedding`` the corpus's vector index takes, or a ``SiftToolError/invalidArgument(_:)``
    /// saying why not (no vectors, another dimension, zeros under cosine).
    func checkedQueryVector(_ vector: [Float]) throws -> Embedding {
        guard let binding = try vectorBinding() else {
            throw SiftToolError.invalidArgument("\(path) has no vectors: index a vector field with --vector-field")
        }
        if let problem = Self.problem(with: vector, for: binding) { throw SiftToolError.invalidArgument("query vector: \(problem)") }
        return Embedding(vector)
    }

    /// "Did you mean": `text` with its misspelled words corrected so that a search finds them all together, for
    /// a query that finds nothing; nil when it has hits or no correction does (see `Database.correction(for:in:typoTolerance:)`).
    public func correction(for text: String) throws -> String? {
        try translatingErrors { try database.correction(for: text, in: Self.indexTable) }
    }

    /// The keys of the best `limit` documents for `text` and their scores, without snippets or
    /// totals: what a ranking evaluation needs, at the least cost per query. `titleWeight` and `ranking` are
    /// those of ``CorpusSearchOptions``, `feedback` that of ``SearchOptions``, `synonymWeight` its ``SearchOptions/synonymWeight``
    /// (nil: no synonyms).
    public func rankedKeys(_ text: String, mode: SearchQuery.Mode = .anyTerm, limit: Int = 1000,
                           titleWeight: Double = CorpusSearchOptions.defaultTitleWeight,
                           ranking: Ranking = .default, feedback: Feedback? = nil,
                           typoTolerance: TypoTolerance = .default,
                           synonymWeight: Double? = SearchOptions.defaultSynonymWeight) throws -> [(key: String, score: Double)] {
        try translatingErrors {
            let results: SearchResults<DocumentKey> = try database.search(
                SearchQuery(text, mode: mode), in: Self.indexTable,
                options: Self.rankingOptions(limit: limit, titleWeight: titleWeight, ranking: ranking, feedback: feedback,
                                             typoTolerance: typoTolerance, synonymWeight: synonymWeight))
            return results.hits.map { ($0.object.key, $0.score) }
        }
    }

    /// The keys of the best `limit` documents nearest to `vector` (vector search alone) or, with `text`, of the
    /// hybrid search fusing both by `fusion`, and their scores: what an evaluation of vectors needs. The text side
    /// searches as ``rankedKeys(_:mode:limit:titleWeight:ranking:feedback:typoTolerance:synonymWeight:)`` does.
    public func rankedKeys(nearest vector: [Float], text: String? = nil, fusion: HybridFusion = .default,
                           mode: SearchQuery.Mode = .anyTerm, limit: Int = 1000,
                           titleWeight: Double = CorpusSearchOptions.defaultTitleWeight, ranking: Ranking = .default,
                           feedback: Feedback? = nil, typoTolerance: TypoTolerance = .default,
                           synonymWeight: Double? = SearchOptions.defaultSynonymWeight) throws -> [(key: String, score: Double)] {
        let embedding = try checkedQueryVector(vector)
        return try translatingErrors {
            let results: SearchResults<DocumentKey>
            if let text {
                results = try database.search(
                    SearchQuery(text, mode: mode), nearest: embedding, in: Self.indexTable, vectors: Self.vectorIndex,
                    options: Self.rankingOptions(limit: limit, titleWeight: titleWeight, ranking: ranking, feedback: feedback,
                                                 typoTolerance: typoTolerance, synonymWeight: synonymWeight),
                    hybrid: HybridOptions(fusion: fusion))
            } else {
                results = try database.search(nearest: embedding, in: Self.vectorIndex, options: VectorSearchOptions(limit: limit))
            }
            return results.hits.map { ($0.object.key, $0.score) }
        }
    }

    /// The text side's options of the ranked-keys searches: no snippets, no total.
    private static func rankingOptions(limit: Int, titleWeight: Double, ranking: Ranking, feedback: Feedback?,
                                       typoTolerance: TypoTolerance, synonymWeight: Double?) -> SearchOptions {
        SearchOptions(limit: limit, weights: titleWeight == 1 ? [:] : ["title": titleWeight], ranking: ranking, countTotal: false,
                      feedback: feedback, typoTolerance: typoTolerance, usesSynonyms: synonymWeight != nil,
                      synonymWeight: synonymWeight ?? SearchOptions.defaultSynonymWeight)
    }
}
