import ArgumentParser
import Foundation
import SiftTools

/// `sift export`: the corpus as an OpenSearch/Elasticsearch `_bulk` stream plus the index definition to load it into.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a corpus for OpenSearch/Elasticsearch: a _bulk NDJSON stream and an index definition.",
        discussion: """
            The bulk stream has two lines per document: {"index":{"_id":KEY,"_index":NAME}} and the document \
            (key, title, body, origin, source, and the source's other fields under "fields"). The index \
            definition is the body of PUT /NAME: analyzers matching the corpus's tokenizer (sift_icu needs the \
            analysis-icu plugin) and the mappings. Load them with
              curl -XPUT localhost:9200/NAME -d @index.json \\
                   -H 'Content-Type: application/json'
              curl -XPOST localhost:9200/_bulk --data-binary @docs.ndjson \\
                   -H 'Content-Type: application/x-ndjson'
            What the engines cannot reproduce exactly (CJK phrase handling, ranking, highlighting) is listed on \
            standard error. Documents are read in pages, so any corpus size exports in bounded memory.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("The index name (default: the database file's name, lower case).", valueName: "name"))
    var index: String?

    @Option(help: ArgumentHelp("The bulk NDJSON file (default, or -: standard output).", valueName: "file"))
    var out: String?

    @Option(help: ArgumentHelp("The index definition file (default: <out>.settings.json, or <name>.settings.json when writing to standard output).",
                               valueName: "file"))
    var settings: String?

    @Option(help: ArgumentHelp("For corpora built with \"sift_icu cjk words\": icu (ICU's dictionaries, as sift_icu), smartcn (mostly Chinese) or kuromoji (mostly Japanese).",
                               valueName: "icu|smartcn|kuromoji"))
    var wordTokenizer: SearchEngineExport.WordTokenizer = .icu

    @Option(help: ArgumentHelp("Documents read from the corpus at a time.", valueName: "n"))
    var pageSize = SearchEngineExport.defaultPageSize

    func validate() throws {
        if pageSize < 1 { throw ValidationError("--page-size must be at least 1") }
        if let out, let settings, URL(fileURLWithPath: out).standardized == URL(fileURLWithPath: settings).standardized {
            throw ValidationError("--out and --settings name the same file")
        }
    }

    func run() throws {
        try Terminal.run {
            let corpus = try CorpusDatabase.open(at: database.db, key: database.key.passphrase())
            let name = index ?? SearchEngineExport.defaultIndexName(forDatabase: database.db)
            try SearchEngineExport.validateIndexName(name)
            let definition = try SearchEngineExport.indexDefinition(forTokenizer: corpus.tokenizer, wordTokenizer: wordTokenizer)
            let out = self.out == "-" ? nil : self.out
            let settingsPath = settings ?? (out.map { $0 + ".settings.json" } ?? "\(name).settings.json")
            try SearchEngineExport.write(definition, to: settingsPath)
            let summary = try corpus.exportBulk(index: name, toFile: out, pageSize: pageSize)

            let size = String(format: "%.2f MB", Double(summary.bytes) / 1e6)
            Terminal.error("exported \(plural(summary.documents, "document")) to \(out ?? "standard output") (index \"\(name)\", \(size)); index definition in \(settingsPath)")
            if !definition.plugins.isEmpty {
                Terminal.error("the index definition needs the engine plugin\(definition.plugins.count == 1 ? "" : "s") \(definition.plugins.joined(separator: ", "))")
            }
            if !summary.overlongKeys.isEmpty {
                Terminal.error("warning: \(plural(summary.overlongKeys.count, "key")) longer than \(SearchEngineExport.maximumIDBytes) bytes, which the engines reject as _id (first: \(summary.overlongKeys[0].prefix(60))…)")
            }
            if !summary.unreadableFields.isEmpty {
                Terminal.error("warning: \(plural(summary.unreadableFields.count, "document")) whose stored fields are not a JSON object, exported with empty fields (first: \(summary.unreadableFields[0]))")
            }
            Terminal.error("tokenizer \"\(corpus.tokenizer)\"; not mapped exactly:")
            for note in definition.notes { Terminal.error("  - \(note)") }
        }
    }
}

extension SearchEngineExport.WordTokenizer: ExpressibleByArgument {}
