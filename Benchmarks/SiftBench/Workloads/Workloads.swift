import Foundation
import Sift
import SiftICU

/// A tokenizer measured by the tokenizer-throughput workload: a label, the FTS5 `tokenize=` argument, and for a
/// custom tokenizer its per-connection registration (it receives the raw `sqlite3 *`).
struct TokenizerUnderTest: Sendable {
    let name: String
    let tokenize: String
    let register: (@Sendable (OpaquePointer) throws -> Void)?

    init(_ name: String, tokenize: String, register: (@Sendable (OpaquePointer) throws -> Void)? = nil) {
        self.name = name
        self.tokenize = tokenize
        self.register = register
    }

    /// Every tokenizer measured: one `tokenizer-<name>` workload each.
    static let all: [TokenizerUnderTest] = [
        TokenizerUnderTest("unicode61", tokenize: "unicode61"),
        TokenizerUnderTest("icu", tokenize: "sift_icu", register: { try SiftICU.register(on: $0) }),
        // What Sift declares for `sift_icu` (English stemming), beside the bare, unstemmed `sift_icu` above.
        TokenizerUnderTest("icu-stem", tokenize: "sift_icu stem english", register: { try SiftICU.register(on: $0) }),
    ]
}

/// The throughput suite. A workload is a name (for `--only`), a title, and either a raw baseline with
/// candidates (see `SiftCandidates`) or a report-only body.
enum Workloads {
    static func all() -> [Workload] {
        [ormInsert, ormFetch, ftsInsert, search]
            + encryption
            + TokenizerUnderTest.all.map(tokenizerThroughput)
            + [concurrentReads, concurrentReadsSift, memory, queryBuild, observation]
    }

    /// Building an FTS5 query from user text (tokenizing with the index's tokenizer, quoting) must
    /// cost microseconds; GRDB's FTS5Pattern costs about 0.5 ms (it opens an in-memory database per call).
    static let queryBuild = Workload.report(
        "query-build", "Build 10,000 FTS5 queries from user text with the index's own tokenizer") { context in
        try context.fixtures.copySearchDatabase(to: context.databasePath)
        let database = Database(withPath: context.databasePath)
        let queries = context.fixtures.queries
        _ = try database.expression(for: SearchQuery("warm up"), in: "fts")
        var built = 0
        let start = ContinuousClock.now
        for round in 0..<10 {
            for query in queries {
                let mode: SearchQuery.Mode = round % 2 == 0 ? .allTerms : .anyTerm
                if try database.expression(for: SearchQuery(query, mode: mode), in: "fts") != nil { built += 1 }
            }
        }
        let seconds = (ContinuousClock.now - start).seconds
        try context.check(built == queries.count * 10, "every query built")
        context.record("microseconds per query", seconds / Double(built) * 1e6, unit: "µs", higherIsBetter: false)
    }

    // MARK: ORM

    static let ormInsert = Workload.comparison(
        "orm-insert", "Insert 100k x scale objects of 6 columns, one transaction",
        baseline: Variant("raw C API") { context in
            let db = try RawDatabase(path: context.databasePath)
            try RawBaselines.createItemsTable(db)
            let records = context.fixtures.records
            try context.measure { try RawBaselines.insertRecords(records, into: db) }
            try context.check(try db.integer("SELECT count(*) FROM items") == records.count, "items count")
        },
        candidates: [
            Variant("Sift insert(objects:)", targets: [.ratioAtMost(1.3)], body: SiftCandidates.ormInsert),
            Variant("Sift insert(objects:), @TableRowCoding", targets: [.ratioAtMost(1.3)],
                    body: SiftCandidates.ormInsertDirect),
        ])

    static let ormFetch = Workload.comparison(
        "orm-fetch", "Fetch 100k x scale objects of 6 columns into an array",
        baseline: Variant("raw C API") { context in
            try context.fixtures.copyItemsDatabase(to: context.databasePath)
            let db = try RawDatabase(path: context.databasePath)
            let records = try context.measure { try RawBaselines.fetchRecords(from: db) }
            try context.check(records == context.fixtures.records, "fetched records differ from inserted")
        },
        candidates: [
            Variant("Sift getObjects", targets: [.ratioAtMost(1.3)], body: SiftCandidates.ormFetch),
            Variant("Sift getObjects, @TableRowCoding", targets: [.ratioAtMost(1.3)],
                    body: SiftCandidates.ormFetchDirect),
            // Codable's floor: the raw fetch, then each struct through Item.init(from:) and nothing else.
            Variant("raw C API, then Codable's init(from:) alone") { context in
                try context.fixtures.copyItemsDatabase(to: context.databasePath)
                let db = try RawDatabase(path: context.databasePath)
                let items = try context.measure { try CodableFloor.items(from: try RawBaselines.fetchRecords(from: db)) }
                try context.check(items.map(\.record) == context.fixtures.records, "decoded records differ from inserted")
            },
        ])

    // MARK: Full-text

    /// Indexes `fixtures.documents` with `load`, timing the load; fully verified on the warm-up run.
    private static func ftsLoad(trigger: Bool = false,
                                _ load: @escaping @Sendable ([BenchDocument], RawDatabase) throws -> Void)
        -> Variant.Body {
        { context in
            let db = try RawDatabase(path: context.databasePath)
            try RawBaselines.createDocsTables(db, trigger: trigger)
            let documents = context.fixtures.documents
            try context.measure { try load(documents, db) }
            if context.isWarmUp {
                try RawBaselines.verifyIndex(db, expectedCount: documents.count)
            } else {
                try context.check(try db.integer("SELECT count(*) FROM docs") == documents.count, "docs count")
            }
        }
    }

    static let ftsExplicit = Variant("raw explicit content + index inserts",
                                     body: ftsLoad(RawBaselines.insertDocumentsExplicit))
    static let ftsTrigger = Variant("raw AFTER INSERT trigger", body: ftsLoad(trigger: true) { documents, db in
        try db.transaction { try RawBaselines.insertDocumentsContentOnly(documents, into: db) }
    })
    static let ftsRebuild = Variant("raw content, then 'rebuild'", body: ftsLoad(RawBaselines.insertDocumentsThenRebuild))
    static let ftsSynced = Variant("Sift synced insert", targets: [.ratioAtMost(1.2),
                                                                   .fasterThan(ftsTrigger.name, factor: 2.5)],
                                   body: SiftCandidates.ftsSyncedInsert)

    static let ftsInsert = Workload.comparison(
        "fts-insert", "Insert 100k x scale ~30-word documents into a content table + external-content FTS5 index",
        baseline: ftsExplicit,
        candidates: [
            Variant("raw content only, no index (floor)", body: { context in
                let db = try RawDatabase(path: context.databasePath)
                try RawBaselines.createDocsTables(db)
                let documents = context.fixtures.documents
                try context.measure {
                    try db.transaction { try RawBaselines.insertDocumentsContentOnly(documents, into: db) }
                }
            }),
            ftsTrigger,
            ftsRebuild,
            ftsSynced,
            Variant("Sift bulk load", targets: [.ratioAtMost(1.0)], body: SiftCandidates.ftsBulkLoad),
        ])

    /// Runs the 1,000 queries with `sql` on a copy of the search template; on the warm-up run, checks the rows
    /// against the baseline query's.
    private static func rawSearch(sql: String) -> Variant.Body {
        { context in
            try context.fixtures.copySearchDatabase(to: context.databasePath)
            let db = try RawDatabase(path: context.databasePath)
            let queries = context.fixtures.queries
            let digest = try context.measure { try RawBaselines.search(queries, in: db, sql: sql) }
            try context.check(digest.hits >= queries.count, "only \(digest.hits) hits for \(queries.count) queries")
            if context.isWarmUp && sql != RawBaselines.searchSQL {
                let expected = try RawBaselines.search(queries, in: db)
                try context.check(digest == expected, "\(digest), but the baseline query gives \(expected)")
            }
        }
    }

    static let search = Workload.comparison(
        "search", "1,000 searches of 1-3 words, top 20 with highlight, materialized (raw: bm25; Sift: its default, inB2)",
        baseline: Variant("raw prepared MATCH ... ORDER BY rank", body: rawSearch(sql: RawBaselines.searchSQL)),
        candidates: [
            Variant("raw ... ORDER BY bm25(fts) (naive)", body: rawSearch(sql: RawBaselines.searchSQLOrderByFunction)),
            Variant("Sift search (default: inB2)", targets: [.ratioAtMost(1.3)], body: SiftCandidates.search(ranking: .default)),
            Variant("Sift search, ranking .bm25f", targets: [.ratioAtMost(1.3)], body: SiftCandidates.search(ranking: .bm25f())),
            Variant("Sift search, ranking .bm25", targets: [.ratioAtMost(1.3)], body: SiftCandidates.search(ranking: .bm25)),
        ])

    // MARK: Encryption

    /// Encrypted against plain, both through Sift in the same run: the cost of `setCipherKey` (SQLCipher 4
    /// format, AES-256-CBC + HMAC-SHA512 per page through libcrypto). Target: each within 1.5x.
    static let encryption: [Workload] = [
        encrypted("orm-insert", "Insert 100k x scale objects, encrypted vs plain",
                  plain: SiftCandidates.ormInsert, encrypted: SiftCandidates.ormInsertEncrypted),
        encrypted("orm-fetch", "Fetch 100k x scale objects, encrypted vs plain",
                  plain: SiftCandidates.ormFetch, encrypted: SiftCandidates.ormFetchEncrypted),
        encrypted("fts-insert", "Synced insert of 100k x scale documents (row by row), encrypted vs plain",
                  plain: SiftCandidates.ftsSyncedInsert, encrypted: SiftCandidates.ftsSyncedInsertEncrypted),
        encrypted("search", "1,000 searches, top 20 with highlight, encrypted vs plain",
                  plain: SiftCandidates.search(ranking: .default), encrypted: SiftCandidates.search(ranking: .default, encrypted: true)),
    ]

    private static func encrypted(_ name: String, _ title: String, plain: @escaping Variant.Body,
                                  encrypted: @escaping Variant.Body) -> Workload {
        .comparison("cipher-\(name)", title, baseline: Variant("Sift, plain", body: plain),
                    candidates: [Variant("Sift, encrypted", targets: [.ratioAtMost(1.5)], body: encrypted)])
    }

    // MARK: Report-only

    /// MB/s (10^6 bytes of UTF-8 per second) of indexing each script into a contentless FTS5 table, one
    /// transaction, and the resulting database size.
    static func tokenizerThroughput(_ tokenizer: TokenizerUnderTest) -> Workload {
        .report("tokenizer-\(tokenizer.name)",
                "Tokenizer throughput, \(tokenizer.tokenize): index 10 MB x scale per script") { context in
            for kind in TextKind.allCases {
                let texts = context.fixtures.text(kind)
                let bytes = texts.reduce(0) { $0 + $1.utf8.count }
                let db = try RawDatabase(path: context.path("\(kind.rawValue).sqlite"))
                try tokenizer.register?(db.handle)
                try RawBaselines.createTokenizerTable(db, tokenize: tokenizer.tokenize)
                let start = ContinuousClock.now
                try RawBaselines.indexTexts(texts, into: db)
                let seconds = (ContinuousClock.now - start).seconds
                context.record("\(kind.rawValue)", Double(bytes) / 1e6 / seconds, unit: "MB/s",
                               higherIsBetter: true)
                context.record("\(kind.rawValue) index size", Double(try db.fileSize()) / 1e6, unit: "MB",
                               higherIsBetter: false)
            }
        }
    }

    static let concurrentReads = Workload.report(
        "concurrent-reads", "Point selects by 2 reader threads for 1.5 s, without and with a writer thread") {
        try ConcurrentReads.run($0)
    }

    /// The same through one Sift `Database` shared by all threads (its pool of WAL readers and one writer).
    static let concurrentReadsSift = Workload.report(
        "concurrent-reads-sift", "Sift: getObject point selects by 2 reader threads for 1.5 s, without and with a writer") {
        try ConcurrentReads.run($0, sift: true)
    }

    /// How soon an observation delivers a fresh value after a commit (see `ObservationLatency`).
    static let observation = Workload.report(
        "observation", "Delivery latency of an observed query after each of 500 committed inserts") {
        try ObservationLatency.run($0)
    }

    /// Peak memory during the measured region of three fts-insert variants: the process's peak
    /// RSS growth (peak minus the resident size just before; freed heap is trimmed and the peak reset via
    /// /proc/self/clear_refs first), the absolute peak RSS (includes the fixtures: the generated documents),
    /// and the peak of SQLite's own allocations (`sqlite3_memory_highwater`).
    static let memory = Workload.report(
        "memory-fts-index", "Peak memory of indexing 100k x scale documents") { context in
        for (index, variant) in [ftsExplicit, ftsRebuild, ftsSynced].enumerated() {
            let subcontext = try context.subcontext("variant-\(index)")
            subcontext.tracksPeakMemory = true
            try variant.body(subcontext)
            guard let memory = subcontext.peakMemory else { throw BenchError.notMeasured(variant.name) }
            context.record("\(variant.name): RSS growth\(memory.reset ? "" : " (peak not reset)")",
                           Double(memory.residentPeak - memory.residentBefore) / 1e6, unit: "MB",
                           higherIsBetter: false)
            context.record("\(variant.name): peak RSS", Double(memory.residentPeak) / 1e6, unit: "MB",
                           higherIsBetter: false)
            context.record("\(variant.name): SQLite heap peak", Double(memory.sqlitePeak) / 1e6, unit: "MB",
                           higherIsBetter: false)
        }
    }
}
