import ArgumentParser
import Foundation
import Sift

/// `sift-bench typo-writes`: what typo tolerance costs a process that writes and searches: a typo-tolerant search
/// right after a one-row write (the term dictionary kept through the write, not read again), and one-row writes
/// through the sync layer with a kept dictionary and without one.
struct TypoWritesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "typo-writes",
        abstract: "Time a typo-tolerant search after a one-row write, and one-row writes with and without a kept term dictionary.",
        discussion: """
            The index is `scale`'s Sift database (`sift.sqlite` in --keep, which this command changes: give it a \
            copy). Each write updates the title and body of one random document (a new text of the corpus) in a \
            transaction of its own, through the sync layer. After --writes untimed ones, writes are timed in four \
            blocks of --writes each: \
            before any typo-tolerant search (no dictionary kept), with the dictionary kept, with a stale one (an \
            row indexed again beside the sync layer), and kept again; then --writes pairs of a write and \
            a typo-tolerant search of a misspelled pair of Zipf words, and a few searches after a write by another \
            connection, which read the vocabulary again.
            """)

    @OptionGroup var data: DataScale

    @Option(help: ArgumentHelp("Documents (overrides --scale).", valueName: "n"))
    var documents: Int?

    @Option(help: ArgumentHelp("The folder holding the sift.sqlite to change (a copy of `scale --keep`'s).", valueName: "dir"))
    var keep: String

    @Option(help: ArgumentHelp("Writes per block, and write-then-search pairs.", valueName: "n"))
    var writes = 300

    @Option(help: ArgumentHelp("Searches after another connection's write (each reads the term dictionary again).", valueName: "n"))
    var rereads = 5

    @Option(help: ArgumentHelp("Seed of the documents updated and their texts (another one for each run on one copy).", valueName: "n"))
    var seed: UInt64 = 1

    func validate() throws {
        if writes < 1 || rereads < 0 { throw ValidationError("--writes takes a positive integer, --rereads one >= 0") }
    }

    func run() throws {
        try runCommand(measuring: "typo-writes") {
            let count = documents ?? data.scale * 100_000
            let corpus = ScaleCorpus(count: count)
            let path = keep + "/sift.sqlite"
            guard FileManager.default.fileExists(atPath: path) else { throw BenchError.checkFailed("no \(path): run scale --keep first") }
            let database = Database(withPath: path)
            let rows = try database.getValue(on: Column.all.count(), fromTable: "docs").int64Value
            print("sift-bench typo-writes: \(rows) documents in \(path), \(writes) writes a block; \(MachineInfo.current().summaryLine)")
            var rng = SeededGenerator(seed: 0x7E57_2 &+ seed)
            // Texts of documents past the corpus's end, a different stretch for each seed.
            let start = Int64(count) + 1 + Int64(seed % 1_000) * Int64(6 * writes)
            let texts = corpus.documents(start...(start + Int64(6 * writes) - 1))
            var next = 0
            func write() throws -> Double {
                let text = texts[next % texts.count]
                next += 1
                let id = Int64(1 + rng.below(count))
                let start = DispatchTime.now().uptimeNanoseconds
                try database.update(table: "docs", on: Doc.Properties.title, Doc.Properties.body, with: [text.title, text.body],
                                    where: Column(named: "id") == id)
                return Self.milliseconds(since: start)
            }
            let misspelled = corpus.queries(.zipfAll, count: writes).map {
                $0.split(separator: " ").map { ScaleCommand.misspelled(String($0), &rng) }.joined(separator: " ")
            }
            func search(_ text: String) throws -> Double {
                let start = DispatchTime.now().uptimeNanoseconds
                let _: SearchResults<Doc> = try database.search(SearchQuery(text), in: "fts", options: SearchOptions(limit: 20))
                return Self.milliseconds(since: start)
            }
            let raw = try RawDatabase(path: path)
            /// One row indexed again as it is, beside the sync layer: the index's terms unchanged, its structure record not.
            func writeBeside() throws {
                let id = 1 + rng.below(count)
                try raw.execute("INSERT INTO fts(fts, rowid, title, body) SELECT 'delete', id, title, body FROM docs WHERE id = \(id)")
                try raw.execute("INSERT INTO fts(rowid, title, body) SELECT id, title, body FROM docs WHERE id = \(id)")
            }

            var blocks: [(String, [Double])] = []
            // Untimed: the pages the writes touch are read once before the blocks compare.
            for _ in 0..<writes { _ = try write() }
            blocks.append(("no dictionary kept", try (0..<writes).map { _ in try write() }))
            var first = try search(misspelled[0])
            print(String(format: "first typo-tolerant search (reads the term dictionary): %.0f ms", first))
            blocks.append(("dictionary kept", try (0..<writes).map { _ in try write() }))
            try writeBeside()
            blocks.append(("stale dictionary (written beside the sync layer)", try (0..<writes).map { _ in try write() }))
            first = try search(misspelled[1])
            print(String(format: "typo-tolerant search after it (reads the term dictionary again): %.0f ms", first))
            blocks.append(("dictionary kept, again", try (0..<writes).map { _ in try write() }))
            print("")
            print("| one-row update through the sync layer, ms | p50 / p90 / p99 | mean | updates/s |")
            print("|---|---|---|---|")
            for (label, times) in blocks {
                let mean = times.reduce(0, +) / Double(times.count)
                print(String(format: "| %@ | %@ | %.3f | %.0f |", label, Percentiles(times).text3, mean, 1_000 / mean))
            }

            var searches: [Double] = [], pairs: [Double] = [], clean: [Double] = []
            for text in misspelled.prefix(writes) { clean.append(try search(text)) }
            for text in misspelled.prefix(writes) {
                let written = try write()
                let searched = try search(text)
                searches.append(searched)
                pairs.append(written + searched)
            }
            var rereadTimes: [Double] = []
            for text in misspelled.prefix(rereads) {
                try writeBeside()
                rereadTimes.append(try search(text))
            }
            print("")
            print("| typo-tolerant search of a misspelled Zipf pair, top 20, ms | p50 / p90 / p99 |")
            print("|---|---|")
            print("| no write before it | \(Percentiles(clean).text3) |")
            print("| right after a one-row write through the sync layer | \(Percentiles(searches).text3) |")
            print("| the write and the search | \(Percentiles(pairs).text3) |")
            if !rereadTimes.isEmpty {
                print("| right after a write beside the sync layer (reads the term dictionary again; \(rereads) searches) | \(Percentiles(rereadTimes).text3) |")
            }
        }
    }

    private static func milliseconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }
}

extension Percentiles {
    /// "p50 / p90 / p99", three decimals each.
    var text3: String { String(format: "%.3f / %.3f / %.3f", p50, p90, p99) }
}
