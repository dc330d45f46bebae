import Foundation
import Sift
import SiftEvaluation
import SiftICU

/// A Sift corpus database: a `documents` table, its synced full-text index `documents_fts` over title
/// and body, and `sift_meta`, which records the format and the tokenizer so every later search
/// tokenizes queries exactly as the documents were.
public final class CorpusDatabase: Sendable {
    /// The ICU tokenizer: word segmentation for every script, CJK indexed per character.
    public static let defaultTokenizer = SiftICU.tokenizerName
    /// Lock waits longer than this fail with `SiftToolError.locked`: long enough to ride out another
    /// writer's batch, short enough that a stuck lock is reported rather than hung on.
    public static let defaultBusyTimeout: Double = 10

    /// The content table every corpus database keeps its documents in.
    public static let documentsTable = "documents"
    /// The full-text index over the documents' title and body, synced with ``documentsTable``.
    public static let indexTable = "documents_fts"
    static let metaTable = "sift_meta"
    static let formatName = "sift-corpus 1"

    /// The underlying database, for anything the tools do not wrap.
    public let database: Database
    /// The database file.
    public let path: String
    /// The tokenizer the index was built with (FTS5 `tokenize=` syntax).
    public let tokenizer: String

    private init(database: Database, path: String, tokenizer: String) {
        self.database = database
        self.path = path
        self.tokenizer = tokenizer
    }

    /// Opens an existing corpus; `key` is the passphrase of an encrypted one (see `Database.setCipherKey`).
    /// Throws `SiftToolError` for a missing file, a file that is not a database, a database that is not a corpus,
    /// a wrong or missing key, or a lock held too long by another process.
    public static func open(at path: String, busyTimeout: Double = defaultBusyTimeout, key: Data? = nil) throws -> CorpusDatabase {
        // SQLite would happily create an empty database here, turning a typo into a confusing "not a corpus".
        guard FileManager.default.fileExists(atPath: path) else { throw SiftToolError.missingFile(path) }
        let database = try connect(path, busyTimeout: busyTimeout, key: key)
        switch try inspect(database, path: path) {
        case .corpus(let tokenizer):
            enableWAL(database)
            return CorpusDatabase(database: database, path: path, tokenizer: tokenizer)
        case .empty:
            throw SiftToolError.notACorpus(path, detail: "it is empty")
        case .other(let detail):
            throw SiftToolError.notACorpus(path, detail: detail)
        }
    }

    /// Opens the corpus at `path`, creating it (and its folder) when the file is missing or an empty
    /// database. `tokenizer` applies to a new corpus; for an existing one it must match (nil accepts any).
    /// With `key`, a new corpus is encrypted and an existing one must be encrypted with it.
    public static func openOrCreate(at path: String, tokenizer: String? = nil,
                                    busyTimeout: Double = defaultBusyTimeout, key: Data? = nil) throws -> CorpusDatabase {
        if FileManager.default.fileExists(atPath: path) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw SiftToolError.notADatabase(path)
            }
        }
        let database = try connect(path, busyTimeout: busyTimeout, key: key)
        switch try inspect(database, path: path) {
        case .corpus(let existing):
            // A bare `sift_icu` names the corpus it was recorded for, or what Sift declares for it today.
            if let tokenizer, normalized(tokenizer) != normalized(existing),
               normalized(database.declaredTokenize(tokenizer)) != normalized(existing) {
                throw SiftToolError.tokenizerMismatch(path: path, existing: existing, requested: tokenizer)
            }
            enableWAL(database)
            return CorpusDatabase(database: database, path: path, tokenizer: existing)
        case .other(let detail):
            throw SiftToolError.notACorpus(path, detail: detail)
        case .empty:
            enableWAL(database)
            // Recorded as declared (`sift_icu` -> `sift_icu stem english`), so the record says what the index holds.
            let chosen = database.declaredTokenize(tokenizer ?? defaultTokenizer)
            try create(database, path: path, tokenizer: chosen)
            return CorpusDatabase(database: database, path: path, tokenizer: chosen)
        }
    }

    private enum Kind {
        case empty
        case corpus(tokenizer: String)
        case other(String)
    }

    private static func connect(_ path: String, busyTimeout: Double, key: Data?) throws -> Database {
        let database = Database(withPath: path)
        if let key {
            do {
                try database.setCipherKey(key)
            } catch let error as SiftError {
                throw SiftToolError.invalidArgument("bad key for \(path): \(error.message)")
            }
        }
        database.registerICUTokenizer()
        database.setConfig(named: "sift.busyTimeout", with: { $0.setBusyTimeout(busyTimeout) }, orderBy: Int.min)
        // Looking at a file must not change it: someone else's database is not switched to WAL.
        database.removeConfig(named: Database.journalModeConfigName)
        return database
    }

    private static func enableWAL(_ database: Database) {
        database.setConfig(named: Database.journalModeConfigName, with: { handle in
            try handle.exec(sql: "PRAGMA journal_mode=WAL")
            try handle.exec(sql: "PRAGMA synchronous=NORMAL")
        }, orderBy: Int.min + 1)
    }

    private static func inspect(_ database: Database, path: String) throws -> Kind {
        do {
            let tables = Set(try database.getRows(sql: "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0].stringValue })
            if tables.isEmpty { return .empty }
            guard tables.contains(metaTable) else { return .other("it has no \(metaTable) table") }
            let entries: [MetaEntry] = try database.getObjects(fromTable: metaTable)
            let meta = Dictionary(entries.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            guard meta["format"] == formatName else {
                return .other("its format is \(meta["format"].map { "\"\($0)\"" } ?? "not recorded"), expected \"\(formatName)\"")
            }
            for table in [documentsTable, indexTable] where !tables.contains(table) {
                return .other("its \(table) table is missing")
            }
            return .corpus(tokenizer: meta["tokenizer"] ?? defaultTokenizer)
        } catch {
            throw SiftToolError.translating(error, path: path)
        }
    }

    private static func create(_ database: Database, path: String, tokenizer: String) throws {
        do {
            try database.run(transaction: {
                try database.create(table: metaTable, of: MetaEntry.self)
                try database.create(table: documentsTable, of: StoredDocument.self)
                do {
                    try database.create(virtualTable: indexTable, of: StoredDocumentIndex.self, syncedWith: documentsTable,
                                        tokenizer: tokenizer)
                } catch let error as SiftError where error.code == .error {
                    throw SiftToolError.unknownTokenizer(tokenizer, detail: error.message)
                }
                let created = ISO8601DateFormatter().string(from: Date())
                try database.insertOrReplace(objects: [
                    MetaEntry(name: "format", value: formatName), MetaEntry(name: "tokenizer", value: tokenizer),
                    MetaEntry(name: "created", value: created), MetaEntry(name: "run", value: "0"),
                ], intoTable: metaTable)
            })
            // The schema backup `sift recover` needs when the file's own schema page is damaged (none for an
            // encrypted corpus: it would hold the schema in plaintext).
            if !database.isEncrypted { try database.backup() }
        } catch {
            throw SiftToolError.translating(error, path: path)
        }
    }

    /// Tokenizer strings differ in spacing and quoting only, as far as a comparison needs to care.
    private static func normalized(_ tokenizer: String) -> String {
        tokenizer.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Runs `body`, turning lock and file errors into tool errors about this database.
    func translatingErrors<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch {
            throw SiftToolError.translating(error, path: path)
        }
    }

    /// The number of the next indexing run, recorded at once so that an interrupted run's rows stay distinguishable.
    func beginRun() throws -> Int {
        try translatingErrors {
            var run = 0
            try database.run(transaction: {
                let current: MetaEntry? = try database.getObject(fromTable: Self.metaTable, where: MetaEntry.Properties.name == "run")
                run = (current.flatMap { Int($0.value) } ?? 0) + 1
                try database.insertOrReplace(objects: MetaEntry(name: "run", value: String(run)), intoTable: Self.metaTable)
            })
            return run
        }
    }

    // MARK: - Indexing lock

    /// The file `lockForIndexing()` locks: beside the database file itself (symbolic links resolved, so
    /// every path to one database finds one lock), named after it with `-index.lock`. It is left in place
    /// after a run: deleting a lock file that another process may have just opened would let two runs
    /// each lock a different file.
    var indexLockPath: String {
        URL(fileURLWithPath: database.path).resolvingSymlinksInPath().path + "-index.lock"
    }

    /// Takes the corpus's indexing lock, or throws `SiftToolError.indexingInProgress` at once if another
    /// indexing run (in this process or any other) holds it. The lock is released by `release()`, when
    /// the returned value is deinitialized, or by the system when the process ends however it ends.
    func lockForIndexing() throws -> IndexingLock {
        try IndexingLock(file: indexLockPath, corpus: path)
    }

    // MARK: - Maintenance

    /// How many documents the corpus holds.
    public func documentCount() throws -> Int {
        try translatingErrors {
            Int(try database.getValue(on: Column.all.count(), fromTable: Self.documentsTable).int64Value)
        }
    }

    /// Counts, sizes and sources.
    public func stats() throws -> CorpusStats {
        try translatingErrors {
            let sources = try database.getRows(sql: "SELECT origin, count(*) FROM documents GROUP BY origin ORDER BY origin")
                .map { CorpusStats.Source(origin: $0[0].stringValue, documents: Int($0[1].int64Value)) }
            let indexBytes = try database.getRows(sql: "SELECT coalesce(sum(length(block)), 0) FROM documents_fts_data")
                .first?.first?.int64Value ?? 0
            let created: MetaEntry? = try database.getObject(fromTable: Self.metaTable, where: MetaEntry.Properties.name == "created")
            let fileBytes = database.paths.dropLast().reduce(0) { total, file in
                total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
            }
            return CorpusStats(documents: sources.reduce(0) { $0 + $1.documents }, tokenizer: tokenizer,
                               databaseBytes: fileBytes, indexBytes: Int(indexBytes), created: created?.value, sources: sources)
        }
    }

    /// Verifies the full-text index against the documents (FTS5's integrity check, row counts), the vector index (if
    /// any) against their embeddings, and
    /// the database file (SQLite's `integrity_check`). Only damage is a problem in the result; when the
    /// corpus cannot be checked (locked, an I/O error...) it throws instead. A corpus this process may
    /// not write is checked too: the library runs FTS5's check, which is a write, on a temporary copy.
    public func check() throws -> CorpusCheck {
        try translatingErrors {
            var problems: [String] = []
            do {
                let integrity = try database.getRows(sql: "PRAGMA integrity_check").map { $0[0].stringValue }
                if integrity != ["ok"] { problems += integrity.map { "integrity_check: \($0)" } }
            } catch let error as SiftError where error.code == .corrupt {
                problems.append("integrity_check: \(error.message)")
            }
            let tables = Set(try database.getRows(sql: "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0].stringValue })
            let missing = ["data", "idx", "docsize", "config"].map { "\(Self.indexTable)_\($0)" }.filter { !tables.contains($0) }
            guard missing.isEmpty else {
                problems += missing.map { "the full-text index's \($0) table is missing" }
                return CorpusCheck(documents: try documentCount(), indexedRows: 0, problems: problems)
            }
            let verification = try database.verify(index: Self.indexTable)
            problems += verification.problems
            if try vectorBinding() != nil {
                problems += try database.verify(vectorIndex: Self.vectorIndex).map { "\(Self.vectorIndex): \($0)" }
            }
            if try !database.syncedIndexes().contains(where: { $0.index == Self.indexTable && $0.contentTable == Self.documentsTable }) {
                problems.append("\(Self.indexTable) is not recorded as synced with \(Self.documentsTable)")
            }
            return CorpusCheck(documents: verification.contentRows ?? 0, indexedRows: verification.indexedRows, problems: problems)
        }
    }

    /// Opens the corpus at `path` and checks it (`check()`), even where SQLite cannot read it in place:
    /// a WAL database whose folder this process cannot write and that has no -shm file (SQLite needs to
    /// create one to read it) is copied to a temporary folder, and the copy is checked. No -shm file means
    /// no connection has the database open, and the copy is used only if the files did not change while
    /// being copied. Throws when the corpus cannot be checked, as `open(at:)` and `check()` do.
    public static func check(at path: String, busyTimeout: Double = defaultBusyTimeout, key: Data? = nil) throws -> CorpusCheck {
        let corpus: CorpusDatabase
        do {
            corpus = try open(at: path, busyTimeout: busyTimeout, key: key)
        } catch SiftToolError.readOnly {
            return try checkCopy(of: path, busyTimeout: busyTimeout, key: key)
        }
        return try corpus.check()
    }

    private static func checkCopy(of path: String, busyTimeout: Double, key: Data?) throws -> CorpusCheck {
        let manager = FileManager.default
        let folder = manager.temporaryDirectory.appendingPathComponent("sift-check-\(UUID().uuidString)")
        let copy = folder.appendingPathComponent((path as NSString).lastPathComponent).path
        func fingerprint() -> [String] {
            ["", "-wal", "-journal", "-shm"].map { suffix in
                let attributes = try? manager.attributesOfItem(atPath: path + suffix)
                return "\(attributes?[.size] ?? "-") \(attributes?[.modificationDate] ?? "-")"
            }
        }
        let before = fingerprint()
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw SiftToolError.readOnly(path, detail: "cannot make a temporary folder to check a copy: \(FileReading.reason(error))")
        }
        defer { try? manager.removeItem(at: folder) }
        for suffix in ["", "-wal", "-journal"] where manager.fileExists(atPath: path + suffix) {
            do {
                try manager.copyItem(atPath: path + suffix, toPath: copy + suffix)
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy + suffix)
            } catch {
                throw SiftToolError.unreadable(path + suffix, detail: FileReading.reason(error))
            }
        }
        guard fingerprint() == before else {
            throw SiftToolError.readOnly(path, detail: "it changed while being copied to check it; try again")
        }
        do {
            let corpus = try open(at: copy, busyTimeout: busyTimeout, key: key)
            defer { corpus.database.close() }
            return try corpus.check()
        } catch let error as SiftToolError {
            throw error.replacingPath(copy, with: path)
        }
    }

    /// Merges the index into one segment: the fastest to query, at a one-off cost.
    public func optimize() throws {
        try translatingErrors { try database.optimize(index: Self.indexTable) }
    }
}

/// What `CorpusDatabase.stats()` reports.
public struct CorpusStats: Sendable, Hashable {
    /// Documents per indexed folder or file.
    public struct Source: Sendable, Hashable {
        /// The folder or file given to `sift index`, as an absolute path.
        public var origin: String
        /// Documents from it.
        public var documents: Int
    }
    /// All documents.
    public var documents: Int
    /// The index's tokenizer.
    public var tokenizer: String
    /// The database file and its write-ahead log, in bytes.
    public var databaseBytes: Int
    /// The full-text index's own data (its segments), in bytes.
    public var indexBytes: Int
    /// When the corpus was created (ISO 8601), if recorded.
    public var created: String?
    /// Documents per source.
    public var sources: [Source]
}

/// What `CorpusDatabase.check()` found.
public struct CorpusCheck: Sendable, Hashable {
    /// Rows in `documents`.
    public var documents: Int
    /// Rows in the full-text index.
    public var indexedRows: Int
    /// Everything that is wrong; empty when the corpus is healthy.
    public var problems: [String]
    /// Whether nothing is wrong.
    public var isHealthy: Bool { problems.isEmpty }
}

/// An exclusive `flock(2)` lock on a corpus's lock file, held by one indexing run for its whole duration.
///
/// `flock` locks belong to an open file description, so two runs conflict whether they are two processes
/// or two indexers in one process, and the kernel drops the lock when the descriptor is closed, including
/// when the process is killed: a crashed run never leaves the corpus locked. The lock is on a separate
/// file, never on the database: closing a descriptor of the database file would drop SQLite's own
/// POSIX locks on it.
final class IndexingLock {
    private var descriptor: Int32

    /// Locks `file` (created if missing) or throws: `indexingInProgress(corpus)` when it is held,
    /// `cannotLock` when the file cannot be opened or locked.
    init(file: String, corpus: String) throws {
        var descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 && (errno == EACCES || errno == EROFS) {
            // Someone else's corpus, readable but with a lock file we cannot write: locking needs only a read descriptor.
            descriptor = open(file, O_RDONLY | O_CLOEXEC)
        }
        guard descriptor >= 0 else { throw SiftToolError.cannotLock(corpus, detail: "\(file): \(systemReason(errno))") }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            if code == EWOULDBLOCK { throw SiftToolError.indexingInProgress(corpus) }
            throw SiftToolError.cannotLock(corpus, detail: "\(file): \(systemReason(code))")
        }
        self.descriptor = descriptor
    }

    /// Releases the lock; later calls do nothing.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
