import ArgumentParser
import Foundation
import Sift
import SiftEvaluation
import SiftTools

/// `sift eval`: relevance and speed on a BEIR-layout test collection.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate search quality on a BEIR-layout collection (corpus.jsonl, queries.jsonl, qrels.tsv).",
        discussion: """
            Indexes the corpus (title and text) into a temporary database, runs every query as any-term \
            search keeping the top 1000 (ranked as --ranking says, a title word weighing --title-weight body words), and prints nDCG@10, MAP, Recall@100, MRR@10 and P@10 averaged \
            over the judged queries (trec_eval conventions), with indexing and query throughput. \
            --run writes the ranking as a TREC run file (qid Q0 docid rank score tag) for trec_eval. \
            --queries reads another query file of the collection (queries-typos.jsonl: the same queries misspelled); \
            --typos on (the default) searches with typo tolerance (SearchOptions.typoTolerance, Meilisearch's \
            defaults), --typos off every word as typed. \
            --query-vectors FILE (one {"_id", "vector"} a line, as scripts/embed-collection.py writes them) also \
            runs every query as a vector search and as a hybrid one (--fusion) over the documents' vectors \
            (--corpus-vectors, by default corpus.jsonl beside FILE), and prints the three side by side with the p \
            of a paired randomization test on nDCG@10 (10,000 seeded permutations) of hybrid against each.
            """)

    @Argument(help: ArgumentHelp("The collection folder, e.g. Corpora/sample.", valueName: "collection"))
    var collection: String

    @Option(help: "FTS5 tokenizer, e.g. sift_icu (default) or \"unicode61 remove_diacritics 2\".")
    var tokenizer = CorpusDatabase.defaultTokenizer

    @OptionGroup var rankingOptions: RankingOptions

    @Option(name: .customLong("run"), help: ArgumentHelp("Write the run to this TREC run file.", valueName: "file"))
    var runFile: String?

    @Option(help: ArgumentHelp("Keep the index in this new database file instead of a temporary one.", valueName: "file"))
    var db: String?

    @Option(help: ArgumentHelp("Read the queries from this file of the collection (or path) instead of queries.jsonl, "
                               + "e.g. queries-typos.jsonl.", valueName: "file"))
    var queries: String?

    @Option(help: ArgumentHelp("Search with the synonym rules of this file (Solr's format, as `sift synonyms import` reads).",
                               valueName: "file"))
    var synonymsFile: String?

    @Option(name: .customLong("query-vectors"), help: ArgumentHelp(
        "The queries' vectors, one {\"_id\", \"vector\"} a line: adds vector and hybrid runs.", valueName: "file"))
    var queryVectors: String?

    @Option(name: .customLong("corpus-vectors"), help: ArgumentHelp(
        "The documents' vectors, one {\"_id\", \"vector\"} a line (default: corpus.jsonl beside --query-vectors).",
        valueName: "file"))
    var corpusVectors: String?

    @Option(help: FusionChoice.help)
    var fusion: FusionChoice = .blend

    @Flag(help: "Print the numbers as one JSON object.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress display.")
    var quiet = false

    func run() throws {
        try Terminal.run {
            let progress = ProgressLine("indexing", quiet: quiet)
            let outcome = try Evaluator.run(collection: URL(fileURLWithPath: collection), tokenizer: tokenizer,
                                            databasePath: db, titleWeight: rankingOptions.titleWeight, ranking: rankingOptions.value,
                                            feedback: rankingOptions.feedbackValue, queries: queriesURL,
                                            typoTolerance: rankingOptions.typoTolerance, synonyms: try synonymRules(),
                                            synonymWeight: rankingOptions.synonymWeightValue, vectors: vectorSources,
                                            onProgress: progress.observer)
            ProgressLine.clear()
            if let runFile { try TRECRunFile.write(outcome.run, to: URL(fileURLWithPath: runFile)) }
            print(json ? try Self.json(outcome) : Self.text(outcome))
        }
    }

    func validate() throws {
        if corpusVectors != nil && queryVectors == nil { throw ValidationError("--corpus-vectors applies with --query-vectors") }
    }

    /// The vectors of `--query-vectors` and `--corpus-vectors`, nil without them.
    var vectorSources: VectorSources? {
        queryVectors.map {
            VectorSources(queries: URL(fileURLWithPath: $0), corpus: corpusVectors.map { URL(fileURLWithPath: $0) },
                          fusion: fusion.value)
        }
    }

    /// The rules of `--synonyms-file` (none without it).
    func synonymRules() throws -> [SynonymRule] {
        guard let synonymsFile else { return [] }
        return try SynonymRule.solrRules(try SynonymsCommand.Import.text(of: synonymsFile))
    }

    /// The queries' file: a name inside the collection folder when no such path exists as given.
    var queriesURL: URL? {
        guard let queries else { return nil }
        if FileManager.default.fileExists(atPath: queries) { return URL(fileURLWithPath: queries) }
        return URL(fileURLWithPath: collection).appendingPathComponent(queries)
    }

    static func text(_ outcome: EvaluationOutcome) -> String {
        let summary = outcome.report.summary
        func f(_ value: Double) -> String { String(format: "%.4f", value) }
        var lines = [
            "\(outcome.collection): \(outcome.documents) documents, \(outcome.queries) queries, tokenizer \(outcome.tokenizer), "
                + "ranking \(outcome.ranking)",
            "nDCG@10  \(f(summary.ndcgAt10))",
            "MAP      \(f(summary.map))",
            "R@100    \(f(summary.recallAt100))",
            "MRR@10   \(f(summary.mrrAt10))",
            "P@10     \(f(summary.precisionAt10))",
            "queries  \(summary.queryCount) judged" + (summary.queriesWithoutResults > 0 ? ", \(summary.queriesWithoutResults) without results" : ""),
        ]
        lines.append(String(format: "indexing %.2f s, %.0f docs/s, %.2f MB/s", outcome.indexingSeconds,
                            outcome.documentsPerSecond, outcome.megabytesPerSecond))
        lines.append(String(format: "querying %.2f s, %.0f queries/s", outcome.querySeconds, outcome.queriesPerSecond))
        if let vectors = outcome.vectors { lines += comparison(vectors) }
        return lines.joined(separator: "\n")
    }

    /// The text, vector and hybrid figures side by side, then the p of hybrid against each.
    static func comparison(_ vectors: VectorComparison) -> [String] {
        func row(_ name: String, _ value: (EvaluationSummary) -> Double) -> String {
            name.padding(toLength: 9, withPad: " ", startingAt: 0)
                + [vectors.text, vectors.vector, vectors.hybrid].map { String(format: "%8.4f", value($0.summary)) }.joined()
        }
        return [
            "",
            "         " + ["text", "vector", "hybrid"].map { $0.leftPadding(toLength: 8) }.joined() + "  (hybrid: \(fusionName(vectors.fusion)))",
            row("nDCG@10", \.ndcgAt10), row("MAP", \.map), row("R@100", \.recallAt100),
            String(format: "p, nDCG@10, paired randomization (10,000 permutations): hybrid vs text %.4f, hybrid vs vector %.4f",
                   vectors.hybridVersusText, vectors.hybridVersusVector),
        ]
    }

    static func fusionName(_ fusion: HybridFusion) -> String {
        switch fusion {
        case .scoreBlend(let weight): return "min-max blend, text weight \(weight)"
        case .reciprocalRank(let k): return "reciprocal rank fusion, k \(k)"
        }
    }

    static func json(_ outcome: EvaluationOutcome) throws -> String {
        let summary = outcome.report.summary
        var object: [String: Any] = [
            "collection": outcome.collection, "tokenizer": outcome.tokenizer, "ranking": outcome.ranking.description,
            "documents": outcome.documents,
            "ndcg_at_10": summary.ndcgAt10, "map": summary.map, "recall_at_100": summary.recallAt100,
            "mrr_at_10": summary.mrrAt10, "precision_at_10": summary.precisionAt10,
            "judged_queries": summary.queryCount, "queries_without_results": summary.queriesWithoutResults,
            "queries": outcome.queries, "indexing_seconds": outcome.indexingSeconds,
            "documents_per_second": outcome.documentsPerSecond, "megabytes_per_second": outcome.megabytesPerSecond,
            "query_seconds": outcome.querySeconds, "queries_per_second": outcome.queriesPerSecond,
        ]
        if let vectors = outcome.vectors {
            func figures(_ summary: EvaluationSummary) -> [String: Double] {
                ["ndcg_at_10": summary.ndcgAt10, "map": summary.map, "recall_at_100": summary.recallAt100]
            }
            object["vectors"] = [
                "text": figures(vectors.text.summary), "vector": figures(vectors.vector.summary),
                "hybrid": figures(vectors.hybrid.summary), "fusion": fusionName(vectors.fusion),
                "p_hybrid_text": vectors.hybridVersusText, "p_hybrid_vector": vectors.hybridVersusVector,
            ] as [String: Any]
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}

private extension String {
    /// The string right-aligned in `length` characters.
    func leftPadding(toLength length: Int) -> String { String(repeating: " ", count: max(0, length - count)) + self }
}
