import ArgumentParser
import Foundation
import SiftTools

/// `sift demo`: the first thing to run.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Index the multilingual sample corpus and run example searches in English, Chinese, Japanese and Korean.",
        discussion: """
            Uses Corpora/sample from the current directory or the repository holding the executable, or a \
            handful of built-in documents when neither is found. The index goes to a temporary file unless \
            --db names one; then try `sift search <words> --db <file>`.
            """)

    @Option(help: ArgumentHelp("Keep the demo index in this file.", valueName: "file"))
    var db: String?

    @OptionGroup var key: KeyOptions

    func run() throws {
        try Terminal.run {
            let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("sift-demo-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: temporary) }
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)

            let source: URL
            if let sample = SampleCorpus.locate(from: SampleCorpus.defaultStarts) {
                source = sample
                print("Indexing \(relative(sample.path)) (the sample corpus in 5 languages)…")
            } else {
                source = temporary.appendingPathComponent("demo.jsonl")
                try SampleCorpus.embeddedJSONLines.write(to: source, atomically: true, encoding: .utf8)
                print("Corpora/sample not found; indexing a few built-in documents…")
            }
            let path = db ?? temporary.appendingPathComponent("demo.db").path
            let corpus = try CorpusDatabase.openOrCreate(at: path, key: key.passphrase())
            let report = try CorpusIndexer(corpus: corpus).index([source])
            print(String(format: "%d documents indexed in %.2f s with the %@ tokenizer.\n", try corpus.documentCount(),
                         report.seconds, corpus.tokenizer))

            for (language, query) in SampleCorpus.demoQueries {
                print("\(language): sift search \"\(query)\"")
                let results = try corpus.search(query, options: CorpusSearchOptions(limit: 3, markers: Terminal.markers,
                                                                                     snippetLength: 60))
                HitPrinter.printText(results, offset: 0, indent: "  ")
                print("")
            }
            // What people type: two misspelled words ("bosporus", "brigdes"), found with typo tolerance (on by default).
            let misspelled = "bosporus brigdes"
            print("English, misspelled: sift search \"\(misspelled)\"")
            let options = CorpusSearchOptions(limit: 3, markers: Terminal.markers, snippetLength: 60)
            HitPrinter.printText(try corpus.search(misspelled, options: options), offset: 0, indent: "  ")
            print("")
            if db == nil {
                corpus.database.close()
                print("Keep an index with `sift demo --db demo.db`, then `sift search <words> --db demo.db`.")
            } else {
                print("The index is in \(path): try `sift search <words> --db \(path)`.")
            }
        }
    }

    private func relative(_ path: String) -> String {
        let current = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(current) ? String(path.dropFirst(current.count)) : path
    }
}
