import ArgumentParser
import Foundation
import Sift
import SiftTools

/// `sift index`: reads folders and record files into a corpus database.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index folders, JSON Lines, CSV/TSV files or BEIR folders into a corpus database.",
        discussion: """
            Formats (see Corpora/README.md) are detected from each source: a folder holding corpus.jsonl \
            is BEIR; another folder is read recursively (.txt, .md, .html; more with --extensions; files \
            that are not UTF-8 are transcoded from their declared or detected charset, binary files skipped); \
            .jsonl/.ndjson, .csv and .tsv files by extension. Gzip files are read by the extension inside \
            (notes.txt.gz, page.html.gz, data.jsonl.gz); a folder's .gz file that decompresses to more than \
            64 MiB, the size limit of its files, is skipped, and so is a truncated or damaged one. Re-indexing a folder reads only files whose \
            size or modification time changed and removes documents of deleted files; re-indexing a file \
            replaces its documents. Bad lines, records and files are reported with file:line and skipped \
            (exit status 1), or stop the run with --strict (exit status 2); so are files and folders that \
            cannot be read (`path: cannot read: permission denied`), whose documents are kept. Ctrl-C commits the current \
            batch and exits with status 130. One `sift index` at a time per database: while one runs, \
            another on the same database stops at once with exit status 2 and writes nothing (the lock \
            is the file <db>-index.lock beside the database, released when the run ends, even if it is killed).
            """)

    @Argument(help: ArgumentHelp("Folders or files to index.", valueName: "source"))
    var sources: [String]

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("Force the format of every source: folder, jsonl, csv, tsv or beir.", valueName: "format"))
    var format: String?

    @Option(help: "FTS5 tokenizer for a new database, e.g. sift_icu (default) or \"unicode61 remove_diacritics 2\".")
    var tokenizer: String?

    @Option(name: .customLong("id-field"), help: "Record field holding the document id (default: _id, else id).")
    var idField: String?

    @Option(name: .customLong("title-field"), help: "Record field holding the title.")
    var titleField = "title"

    @Option(name: .customLong("text-field"), help: "Record field holding the text.")
    var textField = "text"

    @Option(help: ArgumentHelp("More file extensions to read as plain text in folders, comma-separated (e.g. rst,org).",
                               valueName: "list"))
    var extensions: String?

    @Option(name: .customLong("batch-size"), help: "Documents per transaction.")
    var batchSize = 1000

    @Option(name: .customLong("facet"), help: ArgumentHelp(
        "A record field (JSON Lines field, CSV column) whose values `sift search --facet` counts; repeat for several. "
            + "Kept for later runs.", valueName: "field"))
    var facets: [String] = []

    @Option(name: .customLong("vector-field"), help: ArgumentHelp(
        "A JSON Lines field holding each record's vector (an array of numbers, as the documents' embedding model wrote "
            + "them); the first one sets the dimension. `sift search --vector-file` searches them.", valueName: "field"))
    var vectorField: String?

    @Option(name: .customLong("vector-metric"), help: ArgumentHelp(
        "How vectors are compared when --vector-field declares them: cosine (default), dot or l2.", valueName: "metric"))
    var vectorMetric: String?

    @Flag(help: "Stop at the first bad input instead of skipping it.")
    var strict = false

    @Flag(name: .shortAndLong, help: "No progress display and no summary.")
    var quiet = false

    func validate() throws {
        if let format, SourceFormat(rawValue: format) == nil {
            throw ValidationError("unknown format \"\(format)\"; use one of \(SourceFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if let vectorMetric, VectorMetric(rawValue: vectorMetric) == nil {
            throw ValidationError("unknown vector metric \"\(vectorMetric)\"; use one of \(VectorMetric.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if vectorMetric != nil && vectorField == nil { throw ValidationError("--vector-metric applies with --vector-field") }
        if vectorField?.isEmpty == true { throw ValidationError("--vector-field needs a field name") }
    }

    func run() throws {
        try Terminal.run {
            let corpus = try CorpusDatabase.openOrCreate(at: database.db, tokenizer: tokenizer, key: database.key.passphrase())
            let options = IndexOptions(
                format: format.flatMap(SourceFormat.init(rawValue:)),
                fields: FieldNames(id: idField, title: titleField, text: textField),
                extraExtensions: extensions?.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ". ")) } ?? [],
                strict: strict, batchSize: batchSize, vectorField: vectorField,
                vectorMetric: vectorMetric.flatMap(VectorMetric.init(rawValue:)))
            let indexer = CorpusIndexer(corpus: corpus, options: options)
            let progress = ProgressLine("indexing", quiet: quiet)
            let interruption = Interruption()
            indexer.onProgress = progress.observer
            indexer.onProblem = { problem in
                ProgressLine.clear()
                Terminal.error("sift: skipped \(problem)")
            }
            indexer.shouldStop = { interruption.isRaised }
            let report = try indexer.index(sources.map { URL(fileURLWithPath: $0) })
            // The facet fields, new and earlier ones, filled for the documents this run wrote.
            try corpus.updateFacets(adding: facets)
            ProgressLine.clear()
            if !quiet {
                var line = "indexed \(plural(report.written, "document")) from \(plural(report.files, "file"))"
                    + String(format: " in %.2f s", report.seconds)
                if report.unchanged > 0 { line += ", \(report.unchanged) unchanged" }
                if report.removed > 0 { line += ", \(report.removed) removed" }
                if report.skipped > 0 { line += ", \(report.skipped) skipped" }
                if report.interrupted { line += " (interrupted)" }
                Terminal.error(line + "; \(plural(try corpus.documentCount(), "document")) in \(database.db)")
            }
            if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
        }
    }
}
