import Foundation
import Sift
import SiftEvaluation

/// What evaluating Sift on a test collection produced: the scores, the run they came from and the
/// cost of indexing and searching.
public struct EvaluationOutcome: Sendable {
    /// The collection's folder name.
    public var collection: String
    /// The tokenizer the corpus was indexed with.
    public var tokenizer: String
    /// The ranking the queries ran with.
    public var ranking: Ranking
    /// nDCG@10, MAP, Recall@100, MRR@10, P@10 per query and on average.
    public var report: EvaluationReport
    /// The ranking of every query, with BEIR `_id`s as document IDs.
    public var run: Run
    /// Documents indexed.
    public var documents: Int
    /// Bytes of `corpus.jsonl` read.
    public var corpusBytes: Int
    /// Seconds to index the corpus, including the final index merge.
    public var indexingSeconds: Double
    /// Queries run (all of queries.jsonl, judged or not).
    public var queries: Int
    /// Seconds to run them.
    public var querySeconds: Double
    /// The vector and hybrid rankings of the same queries, when the evaluation was given query vectors.
    public var vectors: VectorComparison?

    /// Indexing throughput.
    public var documentsPerSecond: Double { indexingSeconds > 0 ? Double(documents) / indexingSeconds : 0 }
    /// Indexing throughput in MB (10^6 bytes) of corpus file per second.
    public var megabytesPerSecond: Double { indexingSeconds > 0 ? Double(corpusBytes) / 1e6 / indexingSeconds : 0 }
    /// Query throughput, one query at a time.
    public var queriesPerSecond: Double { querySeconds > 0 ? Double(queries) / querySeconds : 0 }
}

/// Relevance evaluation on a BEIR-layout collection, as `sift eval` and the relevance benchmark run it.
public enum Evaluator {
    /// Indexes the collection's corpus (title and text) into a new corpus database, runs every query
    /// with `SearchQuery(text, mode: .anyTerm)` keeping the top `depth`, and scores the run against
    /// `qrels.tsv`. Bad corpus lines are errors: a silently shortened corpus would skew every number.
    ///
    /// - Parameters:
    ///   - databasePath: where to keep the corpus; nil uses a temporary file, deleted afterwards.
    ///     An existing file is an error, so timings are always those of a fresh index.
    ///   - titleWeight: weight of titles relative to bodies, 2 as `sift search` (1 treats them alike, as BEIR baselines do).
    ///   - ranking: how results are scored (``Ranking/default``, as `database.search` does).
    ///   - feedback: pseudo-relevance feedback (``SearchOptions/feedback``), none by default.
    ///   - queries: the queries' file (the collection's `queries.jsonl` when nil), e.g. its `queries-typos.jsonl`.
    ///   - typoTolerance: the typos each query word forgives (``SearchOptions/typoTolerance``), Meilisearch's defaults unless set.
    ///   - synonyms: synonym rules added to the index before the queries run (``Database/addSynonyms(_:to:)``).
    ///   - synonymWeight: ``SearchOptions/synonymWeight``; nil searches without synonyms.
    ///   - vectors: the query and document vectors (``VectorSources``); with them, every query also runs as a
    ///     vector search and a hybrid one, reported in ``EvaluationOutcome/vectors``.
    ///   - onProgress: indexing progress, for a progress display.
    public static func run(collection: URL, tokenizer: String = CorpusDatabase.defaultTokenizer,
                           databasePath: String? = nil, depth: Int = TRECRunFile.defaultDepth, titleWeight: Double = CorpusSearchOptions.defaultTitleWeight,
                           ranking: Ranking = .default, feedback: Feedback? = nil, queries queriesFile: URL? = nil,
                           typoTolerance: TypoTolerance = .default, synonyms: [SynonymRule] = [],
                           synonymWeight: Double? = SearchOptions.defaultSynonymWeight, vectors: VectorSources? = nil,
                           onProgress: ((IndexProgress) -> Void)? = nil) throws -> EvaluationOutcome {
        let testCollection = TestCollection(folder: collection)
        try testCollection.validate()
        let queries = try queriesFile.map { try testCollection.loadQueries(from: $0) } ?? testCollection.loadQueries()
        let qrels = try testCollection.loadQrels()

        let path = databasePath ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("sift-eval-\(UUID().uuidString).db").path
        if FileManager.default.fileExists(atPath: path) {
            throw SiftToolError.invalidArgument("\(path) already exists; evaluation indexes into a new database")
        }
        let corpus = try CorpusDatabase.openOrCreate(at: path, tokenizer: tokenizer)
        defer {
            if databasePath == nil {
                try? corpus.database.removeFiles()
                try? FileManager.default.removeItem(atPath: corpus.indexLockPath)
            }
        }

        let indexer = CorpusIndexer(corpus: corpus, options: IndexOptions(format: .beir, strict: true))
        indexer.onProgress = onProgress
        let indexStart = Date()
        let indexed = try indexer.index([collection])
        try corpus.optimize()
        if !synonyms.isEmpty { try corpus.database.addSynonyms(synonyms, to: CorpusDatabase.indexTable) }
        let indexingSeconds = Date().timeIntervalSince(indexStart)

        var run = Run(tag: "sift-" + corpus.tokenizer.split(whereSeparator: \.isWhitespace).joined(separator: "-")
                          + (ranking == .bm25 ? "" : "-" + ranking.description.prefix { $0 != "(" }.lowercased()) + (feedback == nil ? "" : "-rm3"))
        let queryStart = Date()
        for query in queries {
            let ranked = try corpus.rankedKeys(query.text, mode: .anyTerm, limit: depth, titleWeight: titleWeight, ranking: ranking,
                                                feedback: feedback, typoTolerance: typoTolerance, synonymWeight: synonymWeight)
            run.results[query.id] = ranked.map { ScoredDocument(id: $0.key, score: $0.score) }
        }
        let querySeconds = Date().timeIntervalSince(queryStart)

        let report = EvaluationReport(run: run, qrels: qrels)
        var comparison: VectorComparison?
        if let vectors {
            let queryVectors = try vectors.load(into: corpus, queries: queries)
            var vectorRun = Run(tag: run.tag + "-vector"), hybridRun = Run(tag: run.tag + "-hybrid")
            for query in queries {
                guard let vector = queryVectors[query.id] else { continue }
                vectorRun.results[query.id] = try corpus.rankedKeys(nearest: vector, limit: depth)
                    .map { ScoredDocument(id: $0.key, score: $0.score) }
                hybridRun.results[query.id] = try corpus.rankedKeys(
                    nearest: vector, text: query.text, fusion: vectors.fusion, limit: depth, titleWeight: titleWeight, ranking: ranking,
                    feedback: feedback, typoTolerance: typoTolerance, synonymWeight: synonymWeight)
                    .map { ScoredDocument(id: $0.key, score: $0.score) }
            }
            comparison = VectorComparison(text: report, vector: EvaluationReport(run: vectorRun, qrels: qrels),
                                          hybrid: EvaluationReport(run: hybridRun, qrels: qrels), fusion: vectors.fusion,
                                          vectorRun: vectorRun, hybridRun: hybridRun)
        }
        return EvaluationOutcome(collection: testCollection.name, tokenizer: corpus.tokenizer, ranking: ranking, report: report,
                                 run: run, documents: indexed.written, corpusBytes: indexed.bytes, indexingSeconds: indexingSeconds,
                                 queries: queries.count, querySeconds: querySeconds, vectors: comparison)
    }
}
