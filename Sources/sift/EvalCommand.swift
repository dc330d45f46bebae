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
            --typos on searches with typo tolerance (SearchOptions.typoTolerance, Meilisearch's defaults).
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
                                            synonymWeight: rankingOptions.synonymWeightValue, onProgress: progress.observer)
            ProgressLine.clear()
            if let runFile { try TRECRunFile.write(outcome.run, to: URL(fileURLWithPath: runFile)) }
            print(json ? try Self.json(outcome) : Self.text(outcome))
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
        return lines.joined(separator: "\n")
    }

    static func json(_ outcome: EvaluationOutcome) throws -> String {
        let summary = outcome.report.summary
        let object: [String: Any] = [
            "collection": outcome.collection, "tokenizer": outcome.tokenizer, "ranking": outcome.ranking.description,
            "documents": outcome.documents,
            "ndcg_at_10": summary.ndcgAt10, "map": summary.map, "recall_at_100": summary.recallAt100,
            "mrr_at_10": summary.mrrAt10, "precision_at_10": summary.precisionAt10,
            "judged_queries": summary.queryCount, "queries_without_results": summary.queriesWithoutResults,
            "queries": outcome.queries, "indexing_seconds": outcome.indexingSeconds,
            "documents_per_second": outcome.documentsPerSecond, "megabytes_per_second": outcome.megabytesPerSecond,
            "query_seconds": outcome.querySeconds, "queries_per_second": outcome.queriesPerSecond,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
