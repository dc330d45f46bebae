import Foundation

/// The data every workload draws on, generated once per process on first use (never inside a timed region),
/// and template databases that runs copy instead of rebuilding.
final class Fixtures {
    let scale: Int
    /// Rows of the ORM workloads and documents of the full-text workloads: 100,000 x scale.
    let rowCount: Int
    /// Searches per search run (fixed, whatever the scale).
    let searchCount = 1_000
    /// Bytes of text per script in the tokenizer workloads: 10 MB x scale.
    var tokenizerBytes: Int { 10_000_000 * scale }

    private let directory: String
    private let logGeneration: (String, Double) -> Void

    init(scale: Int, directory: String, log: @escaping (String, Double) -> Void) {
        self.scale = scale
        self.rowCount = 100_000 * scale
        self.directory = directory
        self.logGeneration = log
    }

    private func generate<T>(_ what: String, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        let value = try body()
        logGeneration(what, (ContinuousClock.now - start).seconds)
        return value
    }

    lazy var vocabulary: Vocabulary = generate("vocabulary") { Vocabulary() }
    lazy var records: [BenchRecord] = generate("\(rowCount) records") {
        DataGenerator.records(count: rowCount, vocabulary: vocabulary)
    }
    lazy var documents: [BenchDocument] = generate("\(rowCount) documents") {
        DataGenerator.documents(count: rowCount, vocabulary: vocabulary)
    }
    lazy var queries: [String] = generate("\(searchCount) queries") {
        DataGenerator.queries(count: searchCount, documents: documents, vocabulary: vocabulary)
    }

    private var texts: [TextKind: [String]] = [:]

    /// ~1 KB documents of `kind`, `tokenizerBytes` in all.
    func text(_ kind: TextKind) -> [String] {
        if let text = texts[kind] { return text }
        let text = generate("\(tokenizerBytes / 1_000_000) MB of \(kind.rawValue) text") {
            TextCorpus.documents(kind, totalBytes: tokenizerBytes, vocabulary: vocabulary)
        }
        texts[kind] = text
        return text
    }

    private var templates: [String: String] = [:]

    /// Copies a template database (built once by `build`, then closed so its WAL is checkpointed) to `path`.
    func copyTemplate(_ name: String, to path: String, build: (String) throws -> Void) throws {
        let template: String
        if let existing = templates[name] {
            template = existing
        } else {
            template = directory + "/template-\(name).sqlite"
            try generate("template database '\(name)'") { try build(template) }
            templates[name] = template
        }
        try FileManager.default.copyItem(atPath: template, toPath: path)
        // Flush the copy now: its writeback would otherwise compete with the timed run for the CPU and the disk.
        let fd = open(path, O_RDONLY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    /// Deletes the template databases (for callers whose directory outlives the process).
    func removeTemplates() {
        for template in templates.values { try? FileManager.default.removeItem(atPath: template) }
        templates.removeAll()
    }

    /// `items` with all records (the fetch and concurrent-read workloads).
    func copyItemsDatabase(to path: String) throws {
        try copyTemplate("items", to: path) { template in
            let db = try RawDatabase(path: template)
            try RawBaselines.createItemsTable(db)
            try RawBaselines.insertRecords(records, into: db)
        }
    }

    /// `docs` and its external-content index `fts` with all documents (the search workload).
    func copySearchDatabase(to path: String) throws {
        try copyTemplate("search", to: path) { template in
            let db = try RawDatabase(path: template)
            try RawBaselines.createDocsTables(db)
            try RawBaselines.insertDocumentsExplicit(documents, into: db)
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
