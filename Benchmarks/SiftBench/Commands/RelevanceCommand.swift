import ArgumentParser
import Foundation
import Sift
import SiftEvaluation
import SiftICU
import SiftTools

/// `sift-bench relevance`: ranking quality on every test collection found under the datasets folder, for each
/// tokenizer configuration, through the same code path as `sift eval`; and the ICU word segmentation scored
/// against the SIGHAN PKU gold standard.
struct RelevanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relevance",
        abstract: "Measure ranking quality on test collections, as `sift eval` does, for each configuration.",
        discussion: """
            Evaluates every BEIR collection it finds under --datasets (\(collections.joined(separator: ", "))) \
            with each configuration (\(configurations.map(\.label).joined(separator: "; "))), scores the ICU word \
            segmentation on sighan2005-pku, and searches CJK substrings as phrases; collections that are missing \
            are skipped and said so. Writes relevance.json and relevance.md to --out, and after a full run \
            regenerates the relevance section of the README.
            """)

    static let collections = ["cranfield", "cisi", "medline", "npl", "cmrc2018-dev", "jsquad-valid"]
    /// One way of indexing and ranking: Sift's default, the default with feedback, and two references.
    struct Configuration {
        let label: String
        let tokenizer: String
        let ranking: Ranking
        let titleWeight: Double
        let feedback: Feedback?
    }

    static let configurations = [
        Configuration(label: "default (sift_icu stem english, inB2, title 2)", tokenizer: "sift_icu", ranking: .default,
                      titleWeight: CorpusSearchOptions.defaultTitleWeight, feedback: nil),
        Configuration(label: "default + feedback (RM3)", tokenizer: "sift_icu", ranking: .default,
                      titleWeight: CorpusSearchOptions.defaultTitleWeight, feedback: .rm3),
        Configuration(label: "the default analysis with bm25f (k1 1.2, b 0.75; the default before inB2)", tokenizer: "sift_icu",
                      ranking: .bm25f(), titleWeight: CorpusSearchOptions.defaultTitleWeight, feedback: nil),
        Configuration(label: "first default (sift_icu stem none, bm25, title 1)", tokenizer: "sift_icu stem none",
                      ranking: .bm25, titleWeight: 1, feedback: nil),
        Configuration(label: "FTS5 porter unicode61, bm25, title 1", tokenizer: "porter unicode61", ranking: .bm25,
                      titleWeight: 1, feedback: nil),
    ]
    static let segmentationCollection = "sighan2005-pku"

    @Option(help: ArgumentHelp("The folder holding the collections (default: $SIFT_DATASETS, else ../shared/datasets).",
                               valueName: "dir"))
    var datasets: String?

    @Option(help: ArgumentHelp("Evaluate only these collections (\(segmentationCollection) included).", valueName: "a,b,..."),
            transform: commaSeparated)
    var only: [String]?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        try validateOnly(only, known: Self.collections + [Self.segmentationCollection], kind: "collection")
    }

    struct Row: Codable {
        let collection: String
        /// The configuration's label (``Configuration/label``).
        let tokenizer: String
        let queries: Int
        let ndcgAt10: Double
        let map: Double
        let recallAt100: Double
        let mrrAt10: Double
        let precisionAt10: Double
        let documentsPerSecond: Double
        let megabytesPerSecond: Double
        let queriesPerSecond: Double
    }

    struct Segmentation: Codable {
        let sentences: Int
        let precision: Double
        let recall: Double
        let f1: Double
        let oovRecall: Double
    }

    struct Report: Codable {
        let date: String
        let machine: MachineInfo
        let datasets: String
        let rows: [Row]
        let skipped: [String]
        let segmentation: Segmentation?
        let substrings: [SubstringRecall.Result]
    }

    func run() throws {
        try runCommand(measuring: "relevance", measure)
    }

    private func measure() throws {
        let datasets = self.datasets ?? ProcessInfo.processInfo.environment["SIFT_DATASETS"] ?? "../shared/datasets"
        let out = output.out
        let root = URL(fileURLWithPath: datasets, isDirectory: true)
        print("datasets: \(root.standardizedFileURL.path)")
        var rows: [Row] = []
        var skipped: [String] = []
        for name in Self.collections where only?.contains(name) ?? true {
            let folder = root.appendingPathComponent(name, isDirectory: true)
            let missing = TestCollection(folder: folder).missingFiles()
            guard missing.isEmpty else {
                skipped.append(name)
                print("skipped \(name): not found (missing \(missing.map { "\($0)" }.joined(separator: ", ")))")
                continue
            }
            for configuration in Self.configurations {
                let outcome = try Evaluator.run(collection: folder, tokenizer: configuration.tokenizer,
                                                titleWeight: configuration.titleWeight, ranking: configuration.ranking,
                                                feedback: configuration.feedback)
                let s = outcome.report.summary
                let row = Row(collection: name, tokenizer: configuration.label, queries: s.queryCount, ndcgAt10: s.ndcgAt10, map: s.map,
                              recallAt100: s.recallAt100, mrrAt10: s.mrrAt10, precisionAt10: s.precisionAt10,
                              documentsPerSecond: outcome.documentsPerSecond, megabytesPerSecond: outcome.megabytesPerSecond,
                              queriesPerSecond: outcome.queriesPerSecond)
                rows.append(row)
                print(Self.line(row))
            }
        }
        var segmentation: Segmentation?
        let pku = root.appendingPathComponent(Self.segmentationCollection, isDirectory: true)
        if only?.contains(Self.segmentationCollection) ?? true {
            if FileManager.default.fileExists(atPath: pku.appendingPathComponent("pku_test_gold.utf8").path) {
                segmentation = try Self.scoreSegmentation(pku)
                if let segmentation {
                    print("sighan2005-pku ICU words: P \(Self.f3(segmentation.precision)) R \(Self.f3(segmentation.recall)) "
                        + "F1 \(Self.f3(segmentation.f1)) OOV-R \(Self.f3(segmentation.oovRecall)) "
                        + "(\(segmentation.sentences) sentences)")
                }
            } else {
                skipped.append(Self.segmentationCollection)
                print("skipped \(Self.segmentationCollection): not found")
            }
        }
        var substrings: [SubstringRecall.Result] = []
        for name in ["cmrc2018-dev", "jsquad-valid"] where (only?.contains(name) ?? true) && !skipped.contains(name) {
            substrings.append(try SubstringRecall.collection(root.appendingPathComponent(name, isDirectory: true), name: name))
        }
        if (only?.contains(Self.segmentationCollection) ?? true) && segmentation != nil {
            substrings.append(try SubstringRecall.pkuWords(pku))
        }
        for result in substrings {
            print("substring recall \(result.source): \(result.found)/\(result.probes) (\(Self.f3(result.recall))), "
                + "false matches \(result.falseMatches)")
            for example in result.examples { print("    false match: \(example)") }
        }
        let report = Report(date: ISO8601DateFormatter().string(from: Date()), machine: .current(),
                            datasets: root.standardizedFileURL.path, rows: rows, skipped: skipped, segmentation: segmentation,
                            substrings: substrings)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(report).write(to: URL(fileURLWithPath: out + "/relevance.json"))
        let markdown = Self.render(report)
        try markdown.write(toFile: out + "/relevance.md", atomically: true, encoding: .utf8)
        print("wrote \(out)/relevance.json, \(out)/relevance.md")
        if let readme = output.readmePath(fullRun: only == nil) {
            try MarkdownReport.updateSection(in: readme, named: "relevance", with: markdown)
            print("updated \(readme)")
        }
    }

    static func f3(_ x: Double) -> String { String(format: "%.4f", x) }

    static func line(_ r: Row) -> String {
        "\(r.collection.padding(toLength: 14, withPad: " ", startingAt: 0)) \(r.tokenizer.padding(toLength: 52, withPad: " ", startingAt: 0)) "
            + "nDCG@10 \(f3(r.ndcgAt10))  MAP \(f3(r.map))  R@100 \(f3(r.recallAt100))  MRR@10 \(f3(r.mrrAt10))  "
            + "P@10 \(f3(r.precisionAt10))  q=\(r.queries)  \(Int(r.documentsPerSecond)) docs/s  \(Int(r.queriesPerSecond)) q/s"
    }

    /// ICU dictionary words (the tokenizer's `cjk words` option) against the gold segmentation; characters no
    /// token covers (punctuation) count as one-character words, as the gold standard has them.
    static func scoreSegmentation(_ folder: URL) throws -> Segmentation {
        let gold = try String(contentsOf: folder.appendingPathComponent("pku_test_gold.utf8"), encoding: .utf8)
        let vocabulary = Set(try String(contentsOf: folder.appendingPathComponent("pku_training_words.utf8"), encoding: .utf8)
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) })
        let tokenizer = try ICUTokenizer(arguments: ["cjk", "words"])
        var score = SegmentationScore()
        var sentences = 0
        for line in gold.split(whereSeparator: \.isNewline) {
            let goldWords = line.split(whereSeparator: { $0 == " " || $0 == "\u{3000}" }).map(String.init)
            guard !goldWords.isEmpty else { continue }
            let sentence = goldWords.joined()
            score.add(predicted: try predictedWords(sentence, tokenizer), gold: goldWords, vocabulary: vocabulary)
            sentences += 1
        }
        return Segmentation(sentences: sentences, precision: score.precision, recall: score.recall, f1: score.f1, oovRecall: score.oovRecall)
    }

    static func predictedWords(_ sentence: String, _ tokenizer: ICUTokenizer) throws -> [String] {
        let bytes = Array(sentence.utf8)
        var words: [String] = []
        var position = 0
        func uncovered(until end: Int) {
            guard position < end else { return }
            for character in String(decoding: bytes[position..<end], as: UTF8.self) where !character.isWhitespace {
                words.append(String(character))
            }
        }
        try tokenizer.tokenize(Data(sentence.utf8)) { token in
            guard !token.isColocated, token.start >= position, token.end <= bytes.count else { return }
            uncovered(until: token.start)
            words.append(String(decoding: bytes[token.start..<token.end], as: UTF8.self))
            position = token.end
        }
        uncovered(until: bytes.count)
        return words
    }

    static func render(_ report: Report) -> String {
        var text = "Measured \(report.date) on \(report.machine.summaryLine). Datasets: `\(report.datasets)`.\n\n"
        text += "| collection | configuration | queries | nDCG@10 | MAP | Recall@100 | MRR@10 | P@10 | index docs/s | index MB/s | queries/s |\n"
        text += "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"
        for r in report.rows {
            text += "| \(r.collection) | \(r.tokenizer) | \(r.queries) | \(f3(r.ndcgAt10)) | \(f3(r.map)) | \(f3(r.recallAt100)) | "
                + "\(f3(r.mrrAt10)) | \(f3(r.precisionAt10)) | \(Int(r.documentsPerSecond)) | \(String(format: "%.1f", r.megabytesPerSecond)) | "
                + "\(Int(r.queriesPerSecond)) |\n"
        }
        if let s = report.segmentation {
            text += "\nICU word segmentation on sighan2005-pku (\(s.sentences) sentences): precision \(f3(s.precision)), "
                + "recall \(f3(s.recall)), F1 \(f3(s.f1)), OOV recall \(f3(s.oovRecall)).\n"
        }
        if !report.substrings.isEmpty {
            text += "\nPhrase search of CJK strings in a `sift_icu` index (source document found / probes; hits not containing the string):\n\n"
            text += "| probes from | probes | found | recall | false matches |\n|---|--:|--:|--:|--:|\n"
            for r in report.substrings {
                text += "| \(r.source) | \(r.probes) | \(r.found) | \(f3(r.recall)) | \(r.falseMatches) |\n"
            }
        }
        if !report.skipped.isEmpty { text += "\nNot found, skipped: \(report.skipped.joined(separator: ", ")).\n" }
        return text
    }
}
