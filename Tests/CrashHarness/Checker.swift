import Foundation
import Sift

/// Reopens the database after a kill and compares it with the replayed workload.
final class Checker {
    let path: String
    private(set) var expected: Expected
    private(set) var passed = 0
    private(set) var failures: [String] = []
    /// Rows (ids) and groups (batches) whose content, search results and index entries were checked.
    private(set) var rowsChecked = 0
    private(set) var groupsChecked = 0
    private var context = ""

    init(path: String, workload: Workload) {
        self.path = path
        expected = Expected(workload: workload)
    }

    var workload: Workload { expected.workload }

    func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if condition {
            passed += 1
        } else {
            failures.append(context + message())
        }
    }

    /// Runs `body`, turning a thrown error into a failure.
    func guarded(_ what: String, _ body: () throws -> Void) {
        do { try body() } catch { check(false, "\(what): \(error)") }
    }

    // MARK: - After each kill

    struct RoundResult {
        var committed = 0
        var progress = 0
        var rows = 0
        var sampledRows = 0
        var index = "-"
    }

    /// `previous`: the batch committed before this writer started; `reported`: the batches it reported.
    func checkRound(_ round: Int, previous: Int, reported: [Int], sampleSize: Int, rng: inout SplitMix) -> RoundResult {
        context = "round \(round): "
        var result = RoundResult(committed: previous)
        let lastReported = reported.last ?? previous
        let database = openDatabase(path)
        defer { database.close() }
        guarded("reading the database") {
            let (committed, progress, newest) = try committedBatch(database)
            result.committed = committed
            result.progress = progress
            // Durability: every batch the writer reported committed is there.
            check(committed >= lastReported, "batch \(lastReported) was reported committed but the database's last batch is \(committed)")
            // At most the one batch that committed between its COMMIT and its report.
            check(committed <= lastReported + 1, "the database holds batch \(committed), but only \(lastReported) was reported")
            check(committed >= previous, "the database went back from batch \(previous) to \(committed)")
            guard failures.isEmpty else { return }
            expected.advance(to: committed)
            check(progress == expected.lastTransaction,
                  "the progress row says \(progress), the last transactional batch up to \(committed) is \(expected.lastTransaction)")
            check(newest == committed, "the newest rows are from batch \(newest), expected \(committed)")
            let indexExists = try hasIndex(database)
            check(committed == 0 || indexExists, "batch \(committed) is committed but the index does not exist")
            guard indexExists else { return }  // the first writer was killed before it created the index

            try checkTotals(database)
            result.rows = expected.rows.count
            result.index = try checkIndex(database)

            // Atomicity: the last few batches and the next one, row by row, with every row they touch,
            // plus a random sample of all the rows written so far.
            let window = max(1, committed - 3)...(committed + 1)
            var ids = Set<Int>()
            for number in window {
                let batch = workload.batch(number)
                ids.formUnion(batch.insertedIDs)
                ids.formUnion(batch.touchedIDs)
                ids.insert(batch.rolledBackID)
                try checkGroup(number, database)
            }
            if committed > 0 {
                for _ in 0..<sampleSize {
                    let number = 1 + rng.below(committed)
                    ids.insert(number * 1000 + rng.below(workload.rowCount(number)))
                }
            }
            for id in ids.sorted() { try checkRow(id, database) }
            result.sampledRows = ids.count
        }
        context = ""
        return result
    }

    // MARK: - At the end

    /// Every row and every batch ever written, row by row, and the whole table against the replay.
    func checkEverything(committed: Int) -> Int {
        context = "final check: "
        let database = openDatabase(path)
        defer { database.close() }
        var count = 0
        guarded("final check") {
            guard committed > 0 else { return }
            try checkTotals(database)
            _ = try checkIndex(database)
            let all: [Doc] = try database.getObjects(fromTable: Names.content)
            var actual: [Int: Doc] = [:]
            for doc in all { actual[doc.id ?? -1] = doc }
            check(actual.count == all.count, "duplicate ids in the content table")
            for (id, row) in expected.rows.sorted(by: { $0.key < $1.key }) {
                check(actual[id] == row.doc, "row \(id) is \(actual[id].map { "\($0)" } ?? "missing"), expected \(row.doc)")
            }
            for (id, doc) in actual.sorted(by: { $0.key < $1.key }) where expected.rows[id] == nil {
                check(false, "row \(id) should not exist: \(doc)")
            }
            for number in 1...(committed + 1) {
                let batch = workload.batch(number)
                try checkGroup(number, database)
                for id in batch.insertedIDs + [batch.rolledBackID] {
                    try checkRow(id, database, content: false)
                    count += 1
                }
            }
        }
        context = ""
        return count
    }

    // MARK: - Checks

    private func hasIndex(_ database: Database) throws -> Bool {
        try !database.getRows(sql: "SELECT 1 FROM sqlite_master WHERE name = ?", values: [Names.index]).isEmpty
    }

    /// Aggregates over every content row (count, ids, and each column weighted by id) against the replay.
    private func checkTotals(_ database: Database) throws {
        let row = try database.getRows(sql: Expected.checksumSQL).first?.map(\.int64Value) ?? []
        let wanted = expected.checksum
        check(row == wanted, "content table totals (count, ids, batch, views, title, body) are \(row), expected \(wanted)")
    }

    /// `verify(index:)`: FTS5's integrity check against the content table, and the row counts.
    private func checkIndex(_ database: Database) throws -> String {
        let verification = try database.verify(index: Names.index)
        check(verification.isConsistent, "verify(index:) reports: \(verification)")
        check(verification.indexedRows == expected.rows.count,
              "the index has \(verification.indexedRows) rows, expected \(expected.rows.count)")
        return verification.description
    }

    /// The ids `database.search` finds for one word as typed (decoded from the content table through the index).
    private func searchIDs(_ word: String, _ database: Database) throws -> [Int] {
        let results: SearchResults<Doc> = try database.search(SearchQuery(word), in: Names.index,
                                                              options: SearchOptions(limit: 1000, countTotal: false, typoTolerance: .off))
        return results.hits.compactMap(\.object.id).sorted()
    }

    /// The rowids the index itself holds for one word (an index entry whose content row is gone shows here,
    /// while the search's join with the content table would hide it).
    private func indexIDs(_ word: String, _ database: Database) throws -> [Int] {
        try database.getRows(sql: "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rowid", values: ["\"\(word)\""])
            .map { Int($0[0].int64Value) }
    }

    private func expectIDs(_ what: String, _ actual: [Int], _ wanted: [Int]) {
        check(actual == wanted, "\(what) gives rows \(actual), expected \(wanted)")
    }

    /// One word through the search API and in the index itself.
    private func expectWord(_ word: String, in wanted: [Int], _ database: Database) throws {
        expectIDs("search(\"\(word)\")", try searchIDs(word, database), wanted)
        expectIDs("the index's entries for \(word)", try indexIDs(word, database), wanted)
    }

    /// One row's content (unless the whole table was just compared), then its words.
    private func checkRow(_ id: Int, _ database: Database, content: Bool = true) throws {
        rowsChecked += 1
        let row = expected.rows[id]
        if content {
            let actual: Doc? = try database.getObject(fromTable: Names.content, where: Doc.Properties.id == id)
            check(actual == row?.doc, "row \(id) is \(actual.map { "\($0)" } ?? "missing"), expected \(row.map { "\($0.doc)" } ?? "no row")")
        }
        // Its title word finds it while it lives; its current body word finds it; every earlier body word
        // (and, once deleted, every word) finds nothing.
        try expectWord(Workload.titleWord(id), in: row == nil ? [] : [id], database)
        for version in Set(expected.versions[id] ?? []).sorted() {
            try expectWord(Workload.versionWord(id, version), in: row?.version == version ? [id] : [], database)
        }
    }

    /// All the live rows a batch first inserted, and nothing else (its rolled-back row, or rows of a batch
    /// that never committed), through the search API and in the index.
    private func checkGroup(_ number: Int, _ database: Database) throws {
        groupsChecked += 1
        let live = workload.batch(number).insertedIDs.filter { expected.rows[$0] != nil }  // ids are batch * 1000 + row
        try expectWord(Workload.groupWord(number), in: live, database)
    }
}
