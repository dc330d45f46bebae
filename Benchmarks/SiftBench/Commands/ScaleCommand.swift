import ArgumentParser
import CSQLite
import Foundation
import Sift
import SiftRank

/// `sift-bench scale`: search at a large size. Indexes the `ScaleCorpus` through Sift's sync layer and into a
/// raw FTS5 table (each in a child process, whose peak RSS is its VmHWM), then times top-20 searches of both
/// query kinds through `database.search` and through raw `MATCH ... ORDER BY rank LIMIT 20`, and checks every
/// Sift result against exhaustive scoring with the same ranking function.
struct ScaleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Index N x 100,000 generated documents (Sift sync layer and raw FTS5) and time top-20 searches.",
        discussion: """
            Documents: a 5-word title and a 30-word body, words Zipf-distributed over a 50,000-word vocabulary \
            (seeded). Each indexing run is a child process (`scale-index`): the rate counts the insert calls only \
            (not the generation; with Sift, the score bounds its bulk inserts build included), then each engine \
            optimizes (FTS5's merge into one segment; Sift's `optimize(index:)`), timed apart; the peak RSS is the \
            child's VmHWM at its end. Sift indexes twice: with a Codable model (`sift`, the database searched) and \
            with a `@TableRowCoding` one (`sift-rowcoding`, timed only, then deleted). Queries: --queries of each kind, \
            top 20 objects; Sift with --ranking (default inb2, `.inB2()`) and default options otherwise (totals \
            on); FTS5 scoring every match with the same function (sift_inb2() or sift_rank()) and sorting (`rank \
            MATCH 'sift_inb2(...)' ORDER BY rank LIMIT 20`, Sift's \
            plan before pruning); raw FTS5 with its default bm25. Every Sift result is checked against the \
            exhaustive one: equal scores rank by rank, the same rows except among those tied with the 20th. \
            Then --churn random documents are deleted and as many updated in both engines (each change its own \
            transaction, timed), and the searches run again on indexes changed since their bounds were built (and \
            since FTS5 merged its segments). Last, `verify(index:)` of Sift's database is timed in a child process \
            (its peak RSS its own), and `rebuild(index:)` of a copy of it (then verified, untimed). With \
            --more-pairs, more raw and Sift loads follow the first ones, alternated.
            """)

    @OptionGroup var data: DataScale

    @Option(help: ArgumentHelp("Documents (overrides --scale; for quick runs).", valueName: "n"))
    var documents: Int?

    @Option(help: ArgumentHelp("Queries of each kind.", valueName: "n"))
    var queries = 100

    @Option(help: ArgumentHelp("Keep the databases in this folder (reused when already built).", valueName: "dir"))
    var keep: String?

    @Option(help: ArgumentHelp("""
        After the searches, delete this many random documents and update as many (a new title and body), one \
        transaction each, in both engines (timed), then search again on the changed indexes (0: no second round).
        """, valueName: "n"))
    var churn = 1_000

    @Option(help: "The ranking searched with: inb2 (Sift's default) or bm25f.")
    var ranking: RankingChoice = .inb2

    @Option(help: ArgumentHelp("""
        Then index this many more raw and Sift (Codable) loads, alternated, timed only: the insert rate's ratio from \
        the means of all the loads, since one pair moves with the machine.
        """, valueName: "n"))
    var morePairs = 0

    @Flag(help: "Then time typo-tolerant searches of the Zipf pairs, as generated and misspelled (SearchOptions.typoTolerance).")
    var typos = false

    @Flag(help: "Time Sift's searches alone: no raw FTS5 nor exhaustive queries between them, no exactness check and no @TableRowCoding load (for profiling).")
    var siftOnly = false

    @Flag(help: "Before the searches, compress Sift's docs.title and docs.body with zstd (ScaleCompression: sizes and times).")
    var compress = false

    enum RankingChoice: String, ExpressibleByArgument {
        case inb2, bm25f

        var value: Ranking { self == .inb2 ? .inB2() : .bm25f() }
        /// The same ranking as an FTS5 rank function call, for the exhaustive reference (2 columns weighing 1).
        var call: String { self == .inb2 ? "sift_inb2(1.0, 2, 1.0, 1.0)" : "sift_rank(1.2, 0.75, 2, 1.0, 1.0)" }
    }

    func run() throws {
        try runCommand(measuring: "scale") {
            let count = documents ?? data.scale * 100_000
            let corpus = ScaleCorpus(count: count)
            let directory: String
            if let keep {
                try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
                directory = keep
            } else {
                var template = Array((NSTemporaryDirectory() + "/sift-scale-XXXXXX").utf8CString)
                guard let created = mkdtemp(&template) else { throw BenchError.checkFailed("mkdtemp failed") }
                directory = String(cString: created)
            }
            defer { if keep == nil { try? FileManager.default.removeItem(atPath: directory) } }
            let machine = MachineInfo.current()
            print("sift-bench scale: \(count) documents, \(queries) queries per kind; \(machine.summaryLine)")

            var indexing: [ScaleIndexReport] = []
            for engine in ScaleIndexCommand.Engine.allCases {
                let path = directory + "/\(engine.rawValue).sqlite"
                // The @TableRowCoding load is timed only: its database is not searched, nor kept.
                defer { if engine == .siftRowCoding { try? FileManager.default.removeItem(atPath: path) } }
                if siftOnly && engine == .siftRowCoding { continue }
                if keep != nil, engine != .siftRowCoding, FileManager.default.fileExists(atPath: path) {
                    print("  \(engine.rawValue): reusing \(path)")
                    continue
                }
                printError("indexing \(count) documents: \(engine.rawValue) ...")
                indexing.append(try ScaleIndexCommand.spawn(engine, path: path, documents: count))
            }
            if !indexing.isEmpty {
                print("")
                print("| indexing \(count) docs | inserts s | docs/s | then optimize s | peak RSS (VmHWM) | file |")
                print("|---|---|---|---|---|---|")
                for report in indexing {
                    print(String(format: "| %@ | %.1f | %.0f | %.1f | %.0f MB | %.0f MB |", report.engine, report.seconds,
                                 Double(count) / report.seconds, report.optimizeSeconds, Double(report.peakBytes) / 1_048_576,
                                 Double(report.fileBytes) / 1_048_576))
                }
            }
            if morePairs > 0 { try alternatedPairs(count: count, directory: directory, first: indexing) }
            if compress { try ScaleCompression.run(path: directory + "/sift.sqlite", documents: count) }
            try searchPhase(corpus, directory: directory, title: "")
            if typos { try typoPhase(corpus, directory: directory) }
            if churn > 0 {
                try churnPhase(corpus, directory: directory)
                try searchPhase(corpus, directory: directory, title: ", after \(churn) deletes and \(churn) updates")
            }
            let check = try ScaleIndexCommand.spawnVerify(path: directory + "/sift.sqlite")
            print("")
            print(String(format: "verify(index:) of Sift's database: %.1f s, peak RSS %.0f MB, %@", check.seconds,
                         Double(check.peakBytes) / 1_048_576, check.outcome ?? "no outcome"))
            let rebuilt = try ScaleIndexCommand.spawnRebuild(path: directory + "/sift.sqlite")
            print(String(format: "rebuild(index:) of a copy of it: %.1f s, peak RSS %.0f MB, then %@", rebuilt.seconds,
                         Double(rebuilt.peakBytes) / 1_048_576, rebuilt.outcome ?? "no outcome"))
        }
    }

    /// Indexes `morePairs` more raw and Sift loads, alternated (timed, then deleted), and prints every load's
    /// seconds and the ratio of the mean rates, `first` (this run's loads) included.
    private func alternatedPairs(count: Int, directory: String, first: [ScaleIndexReport]) throws {
        var seconds: [String: [Double]] = [:]
        for report in first where report.engine != ScaleIndexCommand.Engine.siftRowCoding.rawValue {
            seconds[report.engine, default: []].append(report.seconds)
        }
        for pair in 1...morePairs {
            for engine in [ScaleIndexCommand.Engine.raw, .sift] {
                let path = directory + "/pair-\(engine.rawValue).sqlite"
                defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
                printError("indexing \(count) documents, pair \(pair): \(engine.rawValue) ...")
                seconds[engine.rawValue, default: []].append(try ScaleIndexCommand.spawn(engine, path: path, documents: count).seconds)
            }
        }
        let raw = seconds["raw"] ?? [], sift = seconds["sift"] ?? []
        func list(_ values: [Double]) -> String { values.map { String(format: "%.2f", $0) }.joined(separator: " / ") }
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(1, values.count)) }
        print("")
        print("Alternated loads, inserts s: raw \(list(raw)); Sift (Codable) \(list(sift)); Sift's rate "
              + String(format: "%.2fx", mean(raw) / max(mean(sift), 1e-9)) + " the raw one (means)")
    }

    /// Deletes `churn` random documents and updates as many in both engines, each change in its own transaction.
    /// Raw FTS5 writes its external-content index itself (the old values for FTS5's 'delete', then the new row);
    /// Sift's sync layer does the same and keeps the score bounds exact.
    private func churnPhase(_ corpus: ScaleCorpus, directory: String) throws {
        var rng = SystemRandomNumberGenerator()
        let ids = (0..<2 * churn).map { _ in Int64.random(in: 1...Int64(corpus.count), using: &rng) }
        let deleted = Array(ids.prefix(churn)), updated = Array(ids.dropFirst(churn))
        // New texts: documents past the corpus's end.
        let texts = corpus.documents(Int64(corpus.count + 1)...Int64(corpus.count + churn))
        func timed(_ body: () throws -> Void) rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        let raw = try RawDatabase(path: directory + "/raw.sqlite")
        let old = try raw.prepare("SELECT title, body FROM docs WHERE id = ?")
        let unindex = try raw.prepare("INSERT INTO fts(fts, rowid, title, body) VALUES('delete', ?, ?, ?)")
        let delete = try raw.prepare("DELETE FROM docs WHERE id = ?")
        let update = try raw.prepare("UPDATE docs SET title = ?, body = ? WHERE id = ?")
        let index = try raw.prepare("INSERT INTO fts(rowid, title, body) VALUES (?, ?, ?)")
        /// Removes the row's words from the raw index; false when the row is gone.
        func removeFromIndex(_ id: Int64) throws -> Bool {
            sqlite3_bind_int64(old.handle, 1, id)
            defer { old.reset() }
            guard try old.step() else { return false }
            sqlite3_bind_int64(unindex.handle, 1, id)
            sqlite3_bind_value(unindex.handle, 2, sqlite3_column_value(old.handle, 0))
            sqlite3_bind_value(unindex.handle, 3, sqlite3_column_value(old.handle, 1))
            try unindex.run()
            return true
        }
        let rawDeletes = try timed {
            for id in deleted {
                try raw.transaction {
                    guard try removeFromIndex(id) else { return }
                    sqlite3_bind_int64(delete.handle, 1, id)
                    try delete.run()
                }
            }
        }
        let rawUpdates = try timed {
            for (id, text) in zip(updated, texts) {
                try raw.transaction {
                    guard try removeFromIndex(id) else { return }
                    try withUTF8Text(text.title) { title, titleLength in
                        try withUTF8Text(text.body) { body, bodyLength in
                            sqlite3_bind_text(update.handle, 1, title, titleLength, sift_sqlite_static())
                            sqlite3_bind_text(update.handle, 2, body, bodyLength, sift_sqlite_static())
                            sqlite3_bind_int64(update.handle, 3, id)
                            try update.run()
                            sqlite3_bind_int64(index.handle, 1, id)
                            sqlite3_bind_text(index.handle, 2, title, titleLength, sift_sqlite_static())
                            sqlite3_bind_text(index.handle, 3, body, bodyLength, sift_sqlite_static())
                            try index.run()
                        }
                    }
                }
            }
        }
        let database = Database(withPath: directory + "/sift.sqlite")
        let siftDeletes = try timed {
            for id in deleted { try database.delete(fromTable: "docs", where: Column(named: "id") == id) }
        }
        let siftUpdates = try timed {
            for (id, text) in zip(updated, texts) {
                try database.update(table: "docs", on: Doc.Properties.title, Doc.Properties.body, with: Doc(text),
                                    where: Column(named: "id") == id)
            }
        }
        try database.close {}
        print("")
        print("| \(churn) deletes, then \(churn) updates, one transaction each | deletes/s | updates/s |")
        print("|---|---|---|")
        print(String(format: "| raw | %.0f | %.0f |", Double(churn) / rawDeletes, Double(churn) / rawUpdates))
        print(String(format: "| Sift (score bounds kept exact) | %.0f | %.0f |", Double(churn) / siftDeletes, Double(churn) / siftUpdates))
    }

    private func searchPhase(_ corpus: ScaleCorpus, directory: String, title: String) throws {
        let database = Database(withPath: directory + "/sift.sqlite")
        let raw = try RawDatabase(path: directory + "/raw.sqlite")
        let exhaustive = try RawDatabase(path: directory + "/sift.sqlite")
        guard sift_rank_register(exhaustive.handle) == SQLITE_OK else { throw BenchError.checkFailed("sift_rank_register") }
        let ranking = self.ranking.value
        let options = SearchOptions(limit: 20, ranking: ranking)
        let rawSelect = try raw.prepare("""
            SELECT d.id, d.title, d.body FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? ORDER BY rank LIMIT 20
            """)
        // Sift's plan before pruning, and the reference: FTS5 scores every match with sift_rank and sorts.
        let exhaustiveSelect = try exhaustive.prepare("""
            SELECT d.id, d.title, d.body, fts.rank FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? \
            AND fts.rank MATCH ? ORDER BY fts.rank LIMIT 20
            """)
        print("")
        print("| top 20 of \(corpus.count) docs\(title), \(ranking), ms | Sift p50 / p90 / p99 | exhaustive p50 / p90 / p99 "
              + "| raw FTS5 bm25 p50 / p90 / p99 | Sift exact | Sift total (mean) |")
        print("|---|---|---|---|---|---|")
        for kind in ScaleCorpus.QueryKind.allCases {
            let mode: SearchQuery.Mode = kind == .zipfAll ? .allTerms : .anyTerm
            var siftTimes: [Double] = [], rawTimes: [Double] = [], exhaustiveTimes: [Double] = []
            var exact = 0, totals = 0, lowerBounds = 0
            for (number, text) in corpus.queries(kind, count: queries).enumerated() {
                let query = SearchQuery(text, mode: mode)
                var start = DispatchTime.now().uptimeNanoseconds
                let results = try database.search(query, in: "fts", of: Doc.self, options: options)
                siftTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                totals += results.totalCount ?? 0
                if results.totalCountIsLowerBound { lowerBounds += 1 }
                if siftOnly { continue }

                let words = text.split(separator: " ").map { "\"\($0)\"" }
                let rawExpression = words.joined(separator: mode == .allTerms ? " " : " OR ")
                start = DispatchTime.now().uptimeNanoseconds
                try withUTF8Text(rawExpression) { pointer, length in
                    sqlite3_bind_text(rawSelect.handle, 1, pointer, length, sift_sqlite_static())
                    defer { rawSelect.reset() }
                    while try rawSelect.step() { _ = columnText(rawSelect.handle, 1) }
                }
                rawTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)

                // The same expression and phrase weights as Sift's (distinct words: each weighs 1).
                guard let expression = try database.expression(for: query, in: "fts", ranking: ranking) else { continue }
                var best: [(id: Int64, score: Double)] = []
                start = DispatchTime.now().uptimeNanoseconds
                try withUTF8Text(expression) { pointer, length in
                    sqlite3_bind_text(exhaustiveSelect.handle, 1, pointer, length, sift_sqlite_static())
                    sqlite3_bind_text(exhaustiveSelect.handle, 2, self.ranking.call, -1, sift_sqlite_transient())
                    defer { exhaustiveSelect.reset() }
                    while try exhaustiveSelect.step() {
                        _ = columnText(exhaustiveSelect.handle, 1)
                        best.append((sqlite3_column_int64(exhaustiveSelect.handle, 0), -sqlite3_column_double(exhaustiveSelect.handle, 3)))
                    }
                }
                exhaustiveTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                // Exact: the same scores rank by rank, and the same rows except among those tied with the 20th.
                let last = best.last?.score ?? 0
                let ids = Set(best.map(\.id))
                let same = results.hits.count == best.count
                    && zip(results.hits, best).allSatisfy { hit, reference in close(hit.score, reference.score) }
                    && results.hits.allSatisfy { ids.contains($0.rowid) || close($0.score, last) }
                if same { exact += 1 } else {
                    printError("  NOT EXACT: \(kind.rawValue) #\(number) '\(text)': Sift "
                               + "\(results.hits.prefix(3).map { "\($0.rowid):\($0.score)" }) vs \(best.prefix(3))")
                }
            }
            let n = Double(max(1, siftTimes.count))
            print("| \(kind.rawValue) | \(percentiles(siftTimes)) | \(percentiles(exhaustiveTimes)) | \(percentiles(rawTimes)) | "
                  + (siftOnly ? "not checked | " : "\(exact)/\(siftTimes.count) | ") + String(format: "%.0f", Double(totals) / n)
                  + (lowerBounds > 0 ? " (\(lowerBounds) lower bounds)" : "") + " |")
        }
    }

    func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    func percentiles(_ times: [Double]) -> String { Percentiles(times).text }
}
