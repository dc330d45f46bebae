import ArgumentParser
import Foundation
import Sift

/// `sift-bench suggest`: the latency of search-box suggestions (`Database.suggestions(for:in:)`) and of "did you
/// mean" (`Database.correction(for:in:)`) on the `scale` workload's index.
struct SuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "Time suggestions (completions, did you mean) on N x 100,000 generated documents.",
        discussion: """
            The index is `scale`'s Sift database (`sift.sqlite` in --keep, reused when it exists, else built as \
            `scale` builds it). The first call reads the index's term dictionary (cached until the index \
            changes) and is timed apart. Then --queries of each kind, seeded: the first 1, 2 or 3 letters of a \
            Zipf-drawn word, alone and after a Zipf-drawn word (what people type: frequent words) or a word drawn \
            uniformly (mostly rare ones); 5 letters of a word with one letter replaced (typo-tolerant \
            completions); two Zipf words, one with a letter replaced (did you mean). Times in ms per call, \
            10 suggestions each; with --repeats, each text's fastest of that many passes.
            """)

    @OptionGroup var data: DataScale

    @Option(help: ArgumentHelp("Documents (overrides --scale).", valueName: "n"))
    var documents: Int?

    @Option(help: ArgumentHelp("Queries of each kind.", valueName: "n"))
    var queries = 500

    @Option(help: ArgumentHelp("The folder of `scale --keep`: its sift.sqlite is used, or built there.", valueName: "dir"))
    var keep: String

    @Option(help: ArgumentHelp("Print the slowest n texts of each kind on standard error.", valueName: "n"))
    var slowest = 0

    @Option(help: ArgumentHelp("""
        Time each text this many times in a row and keep the fastest: the work a call does, without the         moments another process holds the CPU (1: every call as a person would see it).
        """, valueName: "n"))
    var repeats = 1

    func validate() throws {
        if queries < 1 || repeats < 1 { throw ValidationError("--queries and --repeats take a positive integer") }
    }

    func run() throws {
        try runCommand(measuring: "suggest") {
            let count = documents ?? data.scale * 100_000
            let corpus = ScaleCorpus(count: count)
            let path = keep + "/sift.sqlite"
            try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: path) {
                printError("indexing \(count) documents into \(path) ...")
                _ = try ScaleIndexCommand.spawn(.sift, path: path, documents: count)
            }
            let database = Database(withPath: path)
            let rows = try database.getValue(on: Column.all.count(), fromTable: "docs").int64Value
            print("sift-bench suggest: \(rows) documents in \(path), \(queries) queries per kind; \(MachineInfo.current().summaryLine)")
            var start = DispatchTime.now().uptimeNanoseconds
            _ = try database.suggestions(for: "a", in: "fts")
            print(String(format: "first call (reads the term dictionary): %.0f ms", milliseconds(since: start)))
            start = DispatchTime.now().uptimeNanoseconds
            _ = try database.suggestions(for: "b", in: "fts")
            print(String(format: "second call: %.2f ms", milliseconds(since: start)))
            print("")
            print("| \(rows) docs, ms per call\(repeats > 1 ? " (fastest of \(repeats) passes)" : "") | p50 | p90 | p99 | max | suggestions (mean) |")
            print("|---|---|---|---|---|---|")
            for (number, kind) in Kind.allCases.enumerated() {
                var rng = SeededGenerator(seed: 0x5_0661 &+ UInt64(number))
                let texts = (0..<queries).map { _ in kind.text(corpus.vocabulary, &rng) }
                var times = [Double](repeating: .infinity, count: texts.count), found = 0
                // Each pass times every text once; a text's time is its fastest pass, the passes far apart.
                for pass in 0..<max(1, repeats) {
                    for (index, text) in texts.enumerated() {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let count = kind == .correction ? (try database.correction(for: text, in: "fts") == nil ? 0 : 1)
                            : try database.suggestions(for: text, in: "fts").count
                        times[index] = min(times[index], milliseconds(since: start))
                        if pass == 0 { found += count }
                    }
                }
                for (time, text) in zip(times, texts).sorted(by: { $0.0 > $1.0 }).prefix(slowest) {
                    printError(String(format: "  %@: %.2f ms for \"%@\"", kind.rawValue, time, text))
                }
                let sorted = times.sorted()
                func at(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)] }
                print(String(format: "| %@ | %.2f | %.2f | %.2f | %.2f | %.1f |", kind.rawValue, at(0.5), at(0.9), at(0.99),
                             sorted.last ?? 0, Double(found) / Double(max(1, queries))))
            }
            try database.close {}
        }
    }

    private func milliseconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    /// What is typed.
    enum Kind: String, CaseIterable {
        case one = "1 letter", two = "2 letters", three = "3 letters"
        case wordOne = "Zipf word + 1 letter", wordTwo = "Zipf word + 2 letters", wordThree = "Zipf word + 3 letters"
        case rareTwo = "uniform word + 2 letters"
        case typo = "5 letters, one replaced (typo-tolerant)"
        case correction = "did you mean: 2 Zipf words, one letter replaced"

        func text(_ vocabulary: Vocabulary, _ rng: inout SeededGenerator) -> String {
            func prefix(_ letters: Int) -> String { String(vocabulary.sample(&rng).prefix(letters)) }
            func replaced(_ word: String) -> String {
                var letters = Array(word)
                let at = 1 + rng.below(max(1, letters.count - 1))
                if at < letters.count { letters[at] = letters[at] == "z" ? "q" : "z" }
                return String(letters)
            }
            switch self {
            case .one: return prefix(1)
            case .two: return prefix(2)
            case .three: return prefix(3)
            case .wordOne: return vocabulary.sample(&rng) + " " + prefix(1)
            case .wordTwo: return vocabulary.sample(&rng) + " " + prefix(2)
            case .wordThree: return vocabulary.sample(&rng) + " " + prefix(3)
            case .rareTwo: return vocabulary.words[rng.below(vocabulary.words.count)] + " " + prefix(2)
            case .typo:
                var word = ""
                while word.count < 5 { word = vocabulary.words[rng.below(vocabulary.words.count)] }
                return replaced(String(word.prefix(5)))
            case .correction:
                var word = ""
                while word.count < 5 { word = vocabulary.sample(&rng) }
                return vocabulary.sample(&rng) + " " + replaced(word)
            }
        }
    }
}
