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
            on), then again without a total (`countTotal: false`, as Tantivy's searches are timed); FTS5 scoring every match with the same function (sift_inb2() or sift_rank()) and sorting (`rank \
            MATCH 'sift_inb2(...)' ORDER BY rank LIMIT 20`, Sift's \
            plan before pruning); raw FTS5 with its default bm25. Every Sift result is checked against the \
            exhaustive one: equal scores rank by rank, the same rows except among those tied with the 20th. \
            Then --churn random documents are deleted and as many updated in both engines (each change its own \
            transaction, timed), and the searches run again on indexes changed since their bounds were built (and \
            since FTS5 merged its segments). Last, `verify(index:)` of Sift's database is timed in a child process \
            (its peak RSS its own), and `rebuild(index:)` of a copy of it (then verified, untimed). With \
            --more-pairs, more raw and Sift loads follow the first ones, alternated. \
            Tantivy (its Python bindings, Benchmarks/Tantivy/requirements.txt; skipped with the reason when \
            `import tantivy` fails, or with --no-tantivy) indexes the same documents (written once to a file) with \
            one writer thread, times the same queries (all terms: a conjunction; any term: a disjunction; BM25, \
            top 20) and the same deletes and updates (one commit each), in a child process (Benchmarks/Tantivy/\
            scale_tantivy.py) between Sift's loads and its searches; each Sift figure is printed over Tantivy's.
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

    @Option(help: ArgumentHelp("""
        Queries of each kind also run through raw FTS5 and exhaustive scoring, each Sift result of those checked \
        (default: all; at 10M each any-term one takes seconds in both).
        """, valueName: "n"))
    var referenceQueries: Int?

    @Flag(inversion: .prefixedNo, help: "Run Tantivy on the same documents, queries and churn (its Python bindings).")
    var tantivy = true

    @Option(help: ArgumentHelp("Tantivy's writer heap, MB (one indexing thread).", valueName: "mb"))
    var tantivyHeap = 128

    @Option(help: ArgumentHelp("The Python interpreter that runs Tantivy.", valueName: "path"))
    var python = "python3"

    @Flag(help: "Skip the timed-only @TableRowCoding load (saves a load's time at 10M).")
    var noRowCoding = false

    @Flag(help: "Time Sift's searches alone: no raw FTS5 nor exhaustive queries between them, no exactness check and no @TableRowCoding load (for profiling).")
    var siftOnly = false

    @Flag(help: "Skip the last phase, verify(index:) and rebuild(index:) (minutes at 10M), for runs that time searches.")
    var noVerify = false

    @Option(name: .customLong("mmap-mb"), help: ArgumentHelp("""
        SQLite's mmap_size for the searching connections (Sift's and raw FTS5's), in MB (0: SQLite reads pages with \
        read calls, its default).
        """, valueName: "n"))
    var mmapMB = 0

    @Flag(help: """
        Search a kept Sift database as the earlier run left it (its changed rows and segments as they are); by \
        default it gets optimize(index:) first, as a fresh load would leave it.
        """)
    var asKept = false

    @Option(help: ArgumentHelp("Print the slowest searches without a total of each kind, with their words.", valueName: "n"))
    var slowest = 0

    @Option(help: ArgumentHelp("Search these words, all terms required, instead of the generated queries of both kinds, each --queries times (for profiling one query); repeatable.", valueName: "words"))
    var query: [String] = []

    @Option(help: ArgumentHelp("The same for any-term queries (with --query or alone).", valueName: "words"))
    var anyQuery: [String] = []

    @Flag(help: "Before the searches, compress Sift's docs.title and docs.body with zstd (ScaleCompression: sizes and times).")
    var compress = false

    @Option(help: ArgumentHelp("With --compress: zstd's level (1-22).", valueName: "level"))
    var compressLevel = 3

    @Option(help: ArgumentHelp("With --compress: the largest dictionary trained per column, in KB.", valueName: "kb"))
    var dictionaryKB = 64

    enum RankingChoice: String, ExpressibleByArgument {
        case inb2, bm25f

        var value: Ranking { self == .inb2 ? .inB2() : .bm25f() }
        /// The same ranking as an FTS5 rank function call, for the exhaustive reference (2 columns weighing 1).
        var call: String { self == .inb2 ? "sift_inb2(1.0, 2, 1.0, 1.0)" : "sift_rank(1.2, 0.75, 2, 1.0, 1.0)" }
    }

    func validate() throws {
        let count = documents ?? data.scale * 100_000
        if count < 1 { throw ValidationError("--documents takes a positive integer, not \(count)") }
        if churn < 0 || 2 * churn > count {
            throw ValidationError("--churn takes 0 to half the documents (\(count / 2)), not \(churn)")
        }
        if let referenceQueries, referenceQueries < 0 {
            throw ValidationError("--reference-queries takes 0 or more, not \(referenceQueries)")
        }
        if mmapMB < 0 { throw ValidationError("--mmap-mb takes 0 or more, not \(mmapMB)") }
        if !(15...4_096).contains(tantivyHeap) { throw ValidationError("--tantivy-heap takes 15 to 4096 MB") }
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

            var clock = PhaseClock()
            var phases: [(name: String, seconds: Double)] = []
            var indexing: [ScaleIndexReport] = []
            for engine in ScaleIndexCommand.Engine.allCases {
                let path = directory + "/\(engine.rawValue).sqlite"
                // The @TableRowCoding load is timed only: its database is not searched, nor kept.
                defer { if engine == .siftRowCoding { try? FileManager.default.removeItem(atPath: path) } }
                if (siftOnly || noRowCoding) && engine == .siftRowCoding { continue }
                if keep != nil, engine != .siftRowCoding, FileManager.default.fileExists(atPath: path) {
                    print("  \(engine.rawValue): reusing \(path)")
                    if engine == .sift && !asKept { try Self.renewBounds(path) }
                    continue
                }
                printError("indexing \(count) documents: \(engine.rawValue) ...")
                indexing.append(try ScaleIndexCommand.spawn(engine, path: path, documents: count))
            }
            phases.append(("Sift and raw loads", clock.lap()))
            let changes = corpus.churn(churn)
            let tantivyReport = try tantivyPhase(corpus, directory: directory, changes: changes)
            phases.append(("Tantivy (load, searches, churn, searches)", clock.lap()))
            ScaleReport.printIndexing(count: count, loads: indexing, tantivy: tantivyReport)
            if morePairs > 0 { try alternatedPairs(count: count, directory: directory, first: indexing) }
            if compress {
                try ScaleCompression.run(path: directory + "/sift.sqlite", documents: count, level: compressLevel, dictionaryKB: dictionaryKB)
                phases.append(("compression", clock.lap()))
            }
            let header = "top 20 of \(count) docs, Sift \(ranking.rawValue)"
            ScaleReport.printSearches(try searchPhase(corpus, directory: directory), header: header,
                                      tantivy: tantivyReport?.searches)
            phases.append(("searches", clock.lap()))
            if typos { try typoPhase(corpus, directory: directory) }
            if churn > 0 {
                let (raw, rawOnSift, sift) = try churnPhase(corpus, directory: directory, changes: changes)
                ScaleReport.printChurn(count: churn, raw: raw, rawOnSift: rawOnSift, sift: sift, tantivy: tantivyReport?.churn)
                phases.append(("churn", clock.lap()))
                ScaleReport.printSearches(try searchPhase(corpus, directory: directory),
                                          header: header + ", after \(churn) deletes and \(churn) updates",
                                          tantivy: tantivyReport?.searchesAfterChurn)
                phases.append(("searches after it", clock.lap()))
            }
            if !noVerify {
                let check = try ScaleIndexCommand.spawnVerify(path: directory + "/sift.sqlite")
                print("")
                print(String(format: "verify(index:) of Sift's database: %.1f s, peak RSS %.0f MB, %@", check.seconds,
                             Double(check.peakBytes) / 1_048_576, check.outcome ?? "no outcome"))
                let rebuilt = try ScaleIndexCommand.spawnRebuild(path: directory + "/sift.sqlite")
                print(String(format: "rebuild(index:) of a copy of it: %.1f s, peak RSS %.0f MB, then %@", rebuilt.seconds,
                             Double(rebuilt.peakBytes) / 1_048_576, rebuilt.outcome ?? "no outcome"))
                phases.append(("verify and rebuild", clock.lap()))
            }
            ScaleReport.printPhases(phases)
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
    /// A database kept by an earlier run gets `optimize(index:)`: it merges nothing in an index already merged and
    /// rebuilds score bounds that read as stale (those of an earlier layout), so that a reused database is searched
    /// with the bounds a fresh load would have.
    static func renewBounds(_ path: String) throws {
        let database = Database(withPath: path)
        defer { database.close() }
        let start = DispatchTime.now().uptimeNanoseconds
        try database.optimize(index: "fts")
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if seconds > 1 { print(String(format: "    optimize(index:) of the kept database: %.1f s (bounds rebuilt)", seconds)) }
    }

    /// Deletes `churn` random documents and updates as many, each change in its own transaction: raw FTS5 on its own
    /// database, raw FTS5 on a page-for-page copy of Sift's (the same FTS5 segments, so the same merges), then
    /// Sift's sync layer. FTS5 merges a level once it holds four segments, whatever their sizes, and a load leaves
    /// its one optimized segment on the level above its highest, so the two loads' indexes are rewritten at
    /// different points of the same changes; the copy isolates what the sync layer adds.
    private func churnPhase(_ corpus: ScaleCorpus, directory: String, changes: ScaleCorpus.Churn) throws
        -> (raw: ScaleChurnRates, rawOnSift: ScaleChurnRates, sift: ScaleChurnRates) {
        let copy = directory + "/sift-raw-churn.sqlite"
        try Self.copyDatabase(directory + "/sift.sqlite", to: copy)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        let raw = try Self.rawChurn(path: directory + "/raw.sqlite", changes: changes)
        let rawOnSift = try Self.rawChurn(path: copy, changes: changes)
        let database = Database(withPath: directory + "/sift.sqlite")
        let deletes = try Self.timedEach(changes.deleted) { id in
            try database.delete(fromTable: "docs", where: Column(named: "id") == id)
        }
        let updates = try Self.timedEach(Array(zip(changes.updated, changes.texts))) { id, text in
            try database.update(table: "docs", on: Doc.Properties.title, Doc.Properties.body, with: Doc(text),
                                where: Column(named: "id") == id)
        }
        try database.close {}
        sync()  // the changes' pages written back before the searches that follow are timed
        return (raw, rawOnSift, ScaleChurnRates(deleteMilliseconds: deletes, updateMilliseconds: updates))
    }

    /// Runs `body` on each of `items`, timed one by one: each one's milliseconds.
    private static func timedEach<T>(_ items: [T], _ body: (T) throws -> Void) rethrows -> [Double] {
        try items.map { item in
            let start = DispatchTime.now().uptimeNanoseconds
            try body(item)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
    }

    /// Copies the database at `path` page for page (SQLite's backup API), its WAL's content included.
    private static func copyDatabase(_ path: String, to copy: String) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
        let source = try RawDatabase(path: path), target = try RawDatabase(path: copy)
        guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
            throw SQLiteError(code: sqlite3_errcode(target.handle), db: target.handle)
        }
        let rc = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw SQLiteError(code: rc, db: target.handle) }
        // The copy on disk before anything is timed: its write-back (5 GB at 10M) would fall on the next phase.
        sync()
    }

    /// Raw FTS5's deletes and updates on the database at `path` (an external-content index `fts` over `docs`): the
    /// old values for FTS5's 'delete', then the new row.
    private static func rawChurn(path: String, changes: ScaleCorpus.Churn) throws -> ScaleChurnRates {
        let raw = try RawDatabase(path: path)
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
        let deletes = try timedEach(changes.deleted) { id in
            try raw.transaction {
                guard try removeFromIndex(id) else { return }
                sqlite3_bind_int64(delete.handle, 1, id)
                try delete.run()
            }
        }
        let updates = try timedEach(Array(zip(changes.updated, changes.texts))) { id, text in
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
        return ScaleChurnRates(deleteMilliseconds: deletes, updateMilliseconds: updates)
    }

    private func searchPhase(_ corpus: ScaleCorpus, directory: String) throws -> [ScaleSearchRow] {
        let database = Database(withPath: directory + "/sift.sqlite")
        let raw = try RawDatabase(path: directory + "/raw.sqlite")
        let exhaustive = try RawDatabase(path: directory + "/sift.sqlite")
        if mmapMB > 0 {
            let pragma = "PRAGMA mmap_size = \(mmapMB * 1_048_576)"
            database.setConfig(named: "mmap") { handle in try handle.exec(sql: pragma) }
            try raw.execute(pragma)
            try exhaustive.execute(pragma)
        }
        guard sift_rank_register(exhaustive.handle) == SQLITE_OK else { throw BenchError.checkFailed("sift_rank_register") }
        let ranking = self.ranking.value
        let options = SearchOptions(limit: 20, ranking: ranking, typoTolerance: .off)  // the words as typed, as Tantivy and FTS5 search them
        let rawSelect = try raw.prepare("""
            SELECT d.id, d.title, d.body FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? ORDER BY rank LIMIT 20
            """)
        // Sift's plan before pruning, and the reference: FTS5 scores every match with sift_rank and sorts.
        let exhaustiveSelect = try exhaustive.prepare("""
            SELECT d.id, d.title, d.body, fts.rank FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? \
            AND fts.rank MATCH ? ORDER BY fts.rank LIMIT 20
            """)
        let references = siftOnly ? 0 : min(queries, referenceQueries ?? queries)
        var rows: [ScaleSearchRow] = []
        for kind in ScaleCorpus.QueryKind.allCases {
            let mode: SearchQuery.Mode = kind == .zipfAll ? .allTerms : .anyTerm
            var row = ScaleSearchRow(kind: kind)
            var exact = 0
            var timed: [(ms: Double, text: String)] = []
            defer {
                for search in timed.sorted(by: { $0.ms > $1.ms }).prefix(slowest) {
                    print(String(format: "  slowest without a total, %@: %.1f ms '%@'", kind.rawValue, search.ms, search.text))
                }
            }
            let given = kind == .zipfAll ? query : anyQuery
            if given.isEmpty && !(query.isEmpty && anyQuery.isEmpty) { continue }
            let texts = given.isEmpty ? corpus.queries(kind, count: queries) : given.flatMap { Array(repeating: $0, count: queries) }
            for (number, text) in texts.enumerated() {
                let query = SearchQuery(text, mode: mode)
                var start = DispatchTime.now().uptimeNanoseconds
                let results = try database.search(query, in: "fts", of: Doc.self, options: options)
                row.sift.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                row.totals += results.totalCount ?? 0
                if results.totalCountIsLowerBound { row.lowerBounds += 1 }
                var topOnly = options
                topOnly.countTotal = false
                start = DispatchTime.now().uptimeNanoseconds
                let top = try database.search(query, in: "fts", of: Doc.self, options: topOnly)
                row.siftTopOnly.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                if slowest > 0 { timed.append((row.siftTopOnly.last ?? 0, text)) }
                if top.hits.map(\.rowid) == results.hits.map(\.rowid) && top.hits.map(\.score) == results.hits.map(\.score) {
                    row.topOnlySame += 1
                }
                if number >= references { continue }

                let words = text.split(separator: " ").map { "\"\($0)\"" }
                let rawExpression = words.joined(separator: mode == .allTerms ? " " : " OR ")
                start = DispatchTime.now().uptimeNanoseconds
                try withUTF8Text(rawExpression) { pointer, length in
                    sqlite3_bind_text(rawSelect.handle, 1, pointer, length, sift_sqlite_static())
                    defer { rawSelect.reset() }
                    while try rawSelect.step() { _ = columnText(rawSelect.handle, 1) }
                }
                row.raw.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)

                // The same expression and phrase weights as Sift's (distinct words: each weighs 1; no typo variants).
                guard let expression = try database.expression(for: query, in: "fts", ranking: ranking,
                                                               typoTolerance: options.typoTolerance) else { continue }
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
                row.exhaustive.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                // Exact: the same scores rank by rank, and the same rows except among those tied with the 20th.
                let last = best.last?.score ?? 0
                let ids = Set(best.map(\.id))
                let same = results.hits.count == best.count
                    && zip(results.hits, best).allSatisfy { hit, reference in close(hit.score, reference.score) }
                    && results.hits.allSatisfy { ids.contains($0.rowid) || close($0.score, last) }
                row.checked += 1
                if same { exact += 1 } else {
                    printError("  NOT EXACT: \(kind.rawValue) #\(number) '\(text)': Sift "
                               + "\(results.hits.prefix(3).map { "\($0.rowid):\($0.score)" }) vs \(best.prefix(3))")
                }
            }
            if row.checked > 0 { row.exact = exact }
            rows.append(row)
        }
        return rows
    }

    func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    func percentiles(_ times: [Double]) -> String { Percentiles(times).text }
}
