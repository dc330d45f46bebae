import CSQLite
import Foundation

/// One SQLite connection.
///
/// Sift hands a handle to exactly one thread at a time (see `HandlePool`), so nothing in here locks.
/// Configs receive a handle to set it up; outside a config, use ``Database``.
public final class Handle: @unchecked Sendable {
    let raw: OpaquePointer
    /// The database file this connection is open on.
    public let path: String
    /// Whether the connection reads and writes through a cipher key.
    let isEncrypted: Bool
    unowned let pool: HandlePool

    var configGeneration = -1
    var hooksGeneration = -1
    var hooks = TraceHooks()
    /// Open transaction levels: 0 none, 1 a transaction, more are savepoints.
    var transactionDepth = 0
    /// The first error after which SQLite had rolled back the open transaction itself (an I/O error, a page
    /// failing authentication): what its COMMIT reports, rather than "no transaction is active".
    private var rollbackCause: SiftError?
    /// What watches this connection (see ``ConnectionObserver``); nil when no layer provides one.
    private(set) var observer: (any ConnectionObserver)?
    /// Whether steps call the observer; the observer turns it on when it has something to watch.
    var isObserved = false
    /// The statement this connection wrapped in a transaction of its own (a write the observer wanted in one).
    private var implicitTransactionOwner: OpaquePointer?

    private var cache: [String: CachedStatement] = [:]
    /// Statements that change rows of a table, as SQLite's authorizer reported while compiling them: INSERT,
    /// UPDATE, DELETE, REPLACE and upserts, whatever comments or `WITH` clauses come first; with the tables each
    /// one writes (triggers' included), for the commit observers (see `CommitObservers`).
    private var rowWriters: [OpaquePointer: [String]] = [:]
    /// Tables written by the transaction under way (every statement that started stepping since it began).
    private var changedTables: Set<String> = []
    /// Tables written by transactions that committed since the pool last took them (`takeCommittedTables`).
    private var committedTables: Set<String> = []
    /// Whether a transaction committed inside the step under way (SQLite's commit hook): the observer hears of it
    /// once the step is over (see ``ConnectionObserver/transactionDidCommit(on:)``).
    private var committed = false
    /// Statements that begin, release or roll back to a savepoint, as SQLite's authorizer reported while compiling
    /// them: the observer hears of each once it stepped (a name no savepoint has fails the step, and nothing is told).
    private var savepointSteps: [OpaquePointer: SavepointStep] = [:]
    /// The statement whose tables were last added to `changedTables`: a statement stepped row after row (a batch
    /// of inserts) is looked up once.
    private var lastNoted: OpaquePointer?
    private var performanceSQLs: [String: Int] = [:]
    private var performanceCost: Int64 = 0
    private var statementStarts: [OpaquePointer: UInt64] = [:]

    private struct CachedStatement {
        let stmt: OpaquePointer
        var inUse: Bool
    }
    private static let maxCachedStatements = 256

    /// Opens a connection; with `cipher`, through the encrypting VFS (see ``Database/setCipherKey(_:pageSize:)``).
    /// `uri` lets SQL name URI filenames (`ATTACH`, `VACUUM INTO`).
    init(path: String, pool: HandlePool, cipher: CipherKey? = nil, uri: Bool = false) throws {
        self.path = path
        self.pool = pool
        self.isEncrypted = cipher != nil
        var db: OpaquePointer?
        CipherKey.clearFailure()
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        if cipher != nil || uri { flags |= SQLITE_OPEN_URI }
        let rc = try sqlite3_open_v2(cipher?.uri(for: path) ?? path, &db, flags, cipher.map { _ in try CipherKey.vfsName() })
        var prepared = rc
        if rc == SQLITE_OK, let db, let cipher { prepared = CipherKey.prepare(db, pageSize: cipher.pageSize) }
        guard prepared == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw pool.report(Handle.explain(SiftError(code: SiftError.Code(rawValue: prepared), extendedCode: prepared,
                                                       message: message, path: path, tag: pool.tag, operation: .open),
                                             path: path, encrypted: cipher != nil))
        }
        raw = db
        sqlite3_extended_result_codes(db, 1)
        // Wait (until the configs set the real timeout) rather than fail when another connection is busy,
        // e.g. recovering the WAL while several threads open connections at once.
        sqlite3_busy_timeout(db, 10_000)
        // SQLite opens lazily: read the schema now so a file that is not a database (or a wrong key) fails here, typed.
        do {
            try execute("SELECT count(*) FROM sqlite_master")
        } catch let error as SiftError {
            sqlite3_close_v2(db)
            throw Handle.explain(error, path: path, encrypted: cipher != nil)
        }
        // Which tables each committed transaction wrote: the statements' tables are noted as they step, the
        // hooks (on this connection's thread, inside the COMMIT or ROLLBACK) keep or drop them.
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_commit_hook(db, handleCommitCallback, context)
        sqlite3_rollback_hook(db, handleRollbackCallback, context)
        // sift_compress and sift_decompress, which compressed columns and their decoding views call.
        CompressionEngine.register(db)
        observer = Handle.observerProvider?.makeObserver(for: self)
    }

    func close() {
        observer?.connectionWillClose(self)
        observer = nil
        isObserved = false
        for entry in cache.values { sqlite3_finalize(entry.stmt) }
        cache.removeAll()
        rowWriters.removeAll()
        savepointSteps.removeAll()
        lastNoted = nil
        sqlite3_commit_hook(raw, nil, nil)
        sqlite3_rollback_hook(raw, nil, nil)
        if hooks.isActive { sqlite3_trace_v2(raw, 0, nil, nil) }
        sqlite3_close_v2(raw)
        if isEncrypted { CipherKey.clearFailure() }
    }

    // MARK: - Errors

    /// The error for a failed SQLite call on this connection; the entry point it leaves Sift through reports it.
    func error(_ rc: Int32, sql: String?, operation: SiftError.Operation) -> SiftError {
        let extended = sqlite3_extended_errcode(raw)
        let message = String(cString: sqlite3_errmsg(raw))
        var error = Handle.explain(SiftError(code: SiftError.Code(rawValue: rc), extendedCode: extended, message: message,
                                             sql: sql, path: path, tag: pool.tag, operation: operation),
                                   path: path, encrypted: isEncrypted)
        error.compressionFailure = CompressionEngine.takeFailure()
        if transactionDepth > 0, rollbackCause == nil, sqlite3_get_autocommit(raw) != 0 { rollbackCause = error }
        return error
    }

    /// `error` with its cipher failure (wrong key, missing key, tampering), if it has one.
    private static func explain(_ error: SiftError, path: String, encrypted: Bool) -> SiftError {
        // What the cipher VFS recorded on this thread is taken either way (a plain connection exports to an
        // encrypted file in `rekey`), so that it is never left to a later error.
        let explained = CipherKey.explain(error, path: path)
        return encrypted || explained.cipherFailure != nil ? explained : CipherKey.explainUnkeyed(error, path: path)
    }

    // MARK: - Statements

    /// Runs `body` with a prepared statement for `sql`, cached on this connection and reset afterwards.
    func withStatement<R>(_ sql: String, _ body: (OpaquePointer) throws -> R) throws -> R {
        let (stmt, cached) = try acquire(sql)
        defer { relinquish(stmt, sql: sql, cached: cached) }
        return try body(stmt)
    }

    func acquire(_ sql: String) throws -> (OpaquePointer, cached: Bool) {
        if var entry = cache[sql], !entry.inUse {
            entry.inUse = true
            cache[sql] = entry
            return (entry.stmt, true)
        }
        let reusable = cache[sql] == nil
        let stmt = try prepareRaw(sql, persistent: reusable)
        if reusable {
            if cache.count >= Handle.maxCachedStatements { evictIdleStatements() }
            cache[sql] = CachedStatement(stmt: stmt, inUse: true)
        }
        return (stmt, reusable)
    }

    func relinquish(_ stmt: OpaquePointer, sql: String, cached: Bool) {
        if implicitTransactionOwner == stmt {
            // A RETURNING write left before its end: its changes so far commit with what the observer writes.
            sqlite3_reset(stmt)
            do {
                try observer?.statementDidStep(stmt, writing: rowWriters[stmt], on: self)
                try finishImplicitTransaction()
            } catch {
                // Nobody is left to throw to (finalize cannot throw): roll back, and tell the error tracer.
                implicitTransactionOwner = nil
                if sqlite3_get_autocommit(raw) == 0 { try? executeUnobserved("ROLLBACK") }
                if let error = error as? SiftError { pool.report(error) }
            }
        }
        guard cached else {
            forget(stmt)
            sqlite3_finalize(stmt)
            return
        }
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
        cache[sql]?.inUse = false
    }

    private func evictIdleStatements() {
        for (sql, entry) in cache where !entry.inUse {
            forget(entry.stmt)
            sqlite3_finalize(entry.stmt)
            cache[sql] = nil
        }
    }

    /// Drops what is known of a statement about to be finalized (its pointer may come back for another one).
    private func forget(_ stmt: OpaquePointer) {
        rowWriters[stmt] = nil
        savepointSteps[stmt] = nil
        if lastNoted == stmt { lastNoted = nil }
    }

    /// A statement outside the cache, for owners that keep it for the connection's lifetime.
    /// Its owner steps it with `stepUnobserved`, so whether it writes rows is not recorded.
    func prepareUnmanaged(_ sql: String) throws -> OpaquePointer {
        try prepareRaw(sql, persistent: true, recordingWrites: false)
    }

    private func prepareRaw(_ sql: String, persistent: Bool, recordingWrites: Bool = true) throws -> OpaquePointer {
        var stmt: OpaquePointer?
        let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        var writes = AuthorizedWrites()
        // The tail points into the temporary C string, so it is inspected inside the closure. The authorizer
        // reports what the statement will do while SQLite compiles it, and only then.
        let (rc, trailing) = sql.withCString { text -> (Int32, Bool) in
            withUnsafeMutablePointer(to: &writes) { tables in
                if recordingWrites { sqlite3_set_authorizer(raw, rowWriteAuthorizer, tables) }
                defer { if recordingWrites { sqlite3_set_authorizer(raw, nil, nil) } }
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v3(raw, text, -1, flags, &stmt, &tail)
                return (rc, tail.map { !Handle.isBlank($0) } ?? false)
            }
        }
        guard rc == SQLITE_OK else {
            sqlite3_finalize(stmt)
            throw error(rc, sql: sql, operation: .prepare)
        }
        guard let stmt else {
            throw pool.report(SiftError.misuse("The SQL contains no statement.", operation: .prepare, sql: sql))
        }
        // One statement per call: a second one would silently not run (and is how injected SQL hides).
        if trailing {
            sqlite3_finalize(stmt)
            throw pool.report(SiftError.misuse("Only one SQL statement can be prepared at a time.",
                                               operation: .prepare, sql: sql))
        }
        if !writes.tables.isEmpty { rowWriters[stmt] = writes.tables }
        if let savepoint = writes.savepoint { savepointSteps[stmt] = savepoint }
        return stmt
    }

    private static func isBlank(_ p: UnsafePointer<CChar>) -> Bool {
        var p = p
        while p.pointee != 0 {
            switch UInt8(bitPattern: p.pointee) {
            case 0x20, 0x09, 0x0A, 0x0D, 0x3B: p += 1
            default: return false
            }
        }
        return true
    }

    /// Steps once; `true` when a row is available. On an observed connection the observer hears of every step,
    /// and a write outside any transaction gets one when the observer asks for it (see ``ConnectionObserver``).
    @inline(__always)
    func step(_ stmt: OpaquePointer) throws -> Bool {
        if stmt != lastNoted { note(stmt) }
        if isObserved, let observer { return try observedStep(stmt, observer) }
        return try stepUnobserved(stmt)
    }

    /// Adds the tables `stmt` writes to the transaction's (before its step: a statement outside any transaction
    /// commits inside it).
    private func note(_ stmt: OpaquePointer) {
        lastNoted = stmt
        if let tables = rowWriters[stmt] { changedTables.formUnion(tables) }
    }

    fileprivate func transactionDidCommit() {
        committed = true
        if !changedTables.isEmpty {
            committedTables.formUnion(changedTables)
            changedTables.removeAll(keepingCapacity: true)
        }
        lastNoted = nil
    }

    fileprivate func transactionDidRollBack() {
        changedTables.removeAll(keepingCapacity: true)
        lastNoted = nil
        committed = false
        observer?.transactionDidRollBack()
    }

    /// Tells the observer of the transaction the step just over committed, if it did (and the commit held).
    private func announceCommit() {
        committed = false
        if sqlite3_get_autocommit(raw) != 0 { observer?.transactionDidCommit(on: self) }
    }

    /// The tables written by the transactions that committed since the last call (empty when none did); only the
    /// thread that holds this connection calls it.
    func takeCommittedTables() -> Set<String> {
        guard !committedTables.isEmpty else { return [] }
        defer { committedTables = [] }
        return committedTables
    }

    @inline(__always)
    func stepUnobserved(_ stmt: OpaquePointer) throws -> Bool {
        let rc = sqlite3_step(stmt)
        if committed { announceCommit() }
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw error(rc, sql: String(cString: sqlite3_sql(stmt)), operation: .step)
    }

    private func observedStep(_ stmt: OpaquePointer, _ observer: any ConnectionObserver) throws -> Bool {
        let implicit = sqlite3_get_autocommit(raw) != 0 && sqlite3_stmt_busy(stmt) == 0 && sqlite3_stmt_readonly(stmt) == 0
            && observer.statementNeedsTransaction(writesRows: rowWriters[stmt] != nil)
        // BEGIN IMMEDIATE is itself not read-only: run the transaction control unobserved, or it would recurse.
        if implicit {
            try executeUnobserved("BEGIN IMMEDIATE")
            implicitTransactionOwner = stmt
        }
        let savepoint = savepointSteps.isEmpty ? nil : savepointSteps[stmt]
        do {
            let rc = sqlite3_step(stmt)
            if committed { announceCommit() }
            guard rc == SQLITE_ROW || rc == SQLITE_DONE else {
                // The failed statement was rolled back, so the changes it reported never happened.
                observer.statementDidFail(on: self)
                throw error(rc, sql: String(cString: sqlite3_sql(stmt)), operation: .step)
            }
            switch savepoint {
            case .begin(let name): observer.savepointDidBegin(name)
            case .release(let name): observer.savepointDidRelease(name)
            case .rollBack(let name): observer.savepointDidRollBack(to: name)
            case nil: break
            }
            try observer.statementDidStep(stmt, writing: rowWriters[stmt], on: self)
            // A statement with RETURNING commits when it is done, here or when it is reset early.
            if rc == SQLITE_DONE && implicitTransactionOwner == stmt { try finishImplicitTransaction() }
            return rc == SQLITE_ROW
        } catch {
            if implicitTransactionOwner == stmt {
                implicitTransactionOwner = nil
                sqlite3_reset(stmt)
                if sqlite3_get_autocommit(raw) == 0 { try? executeUnobserved("ROLLBACK") }
            }
            throw error
        }
    }

    private func finishImplicitTransaction() throws {
        implicitTransactionOwner = nil
        try executeUnobserved("COMMIT")
    }

    func bind(_ values: [FundamentalValue], to stmt: OpaquePointer, sql: String) throws {
        let expected = Int(sqlite3_bind_parameter_count(stmt))
        guard values.count == expected else {
            throw pool.report(SiftError(code: .range, message: "The statement takes \(expected) values; \(values.count) were given.",
                                        sql: sql, path: path, tag: pool.tag, operation: .bind))
        }
        for (i, value) in values.enumerated() {
            let rc = RawStatement.bind(value, at: Int32(i + 1), in: stmt)
            if rc != SQLITE_OK { throw error(rc, sql: sql, operation: .bind) }
        }
    }

    private func executeUnobserved(_ sql: String) throws {
        try withStatement(sql) { stmt in while try stepUnobserved(stmt) {} }
    }

    /// Runs one statement to completion with bound values.
    func execute(_ sql: String, _ values: [FundamentalValue] = []) throws {
        try withStatement(sql) { stmt in
            try bind(values, to: stmt, sql: sql)
            while try step(stmt) {}
        }
    }

    // MARK: - Public API for configs

    /// Runs one SQL statement on this connection, with values bound to its `?` parameters.
    public func exec(sql: String, values: [ColumnEncodable] = []) throws {
        try execute(sql, values.map { $0.archivedValue() })
    }

    /// How long a statement waits for another process's lock before failing with ``SiftError/Code/busy``.
    public func setBusyTimeout(_ seconds: Double) {
        sqlite3_busy_timeout(raw, Int32(max(0, min(seconds * 1000, Double(Int32.max)))))
    }

    /// The schema cookie: it changes whenever any connection changes the schema, so caches key on it.
    func schemaVersion() throws -> Int64 {
        try withStatement("PRAGMA schema_version") { stmt in try step(stmt) ? sqlite3_column_int64(stmt, 0) : 0 }
    }

    /// The rowid of the last row this connection inserted.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(raw) }

    /// The number of rows the last statement changed.
    public var changes: Int { Int(sqlite3_changes(raw)) }

    /// The underlying `sqlite3*`, for registering functions, collations and tokenizers in a config.
    /// Keep it inside the config: the connection belongs to Sift's pool.
    public var sqliteConnection: OpaquePointer { raw }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(raw) == 0 }

    // MARK: - Transactions (savepoints nest inside)

    func beginTransaction() throws {
        if transactionDepth == 0 {
            rollbackCause = nil
            // IMMEDIATE takes the write lock now, so a later write cannot fail with a deadlock-style BUSY.
            try execute("BEGIN IMMEDIATE")
        } else {
            try execute("SAVEPOINT sift_\(transactionDepth)")
        }
        transactionDepth += 1
    }

    func commitTransaction() throws {
        precondition(transactionDepth > 0)
        // SQLite rolled the transaction back on an error the caller may have handled: that error, not COMMIT's.
        if let rollbackCause, sqlite3_get_autocommit(raw) != 0 { throw rollbackCause }
        if transactionDepth == 1 {
            try execute("COMMIT")
        } else {
            try execute("RELEASE sift_\(transactionDepth - 1)")
        }
        transactionDepth -= 1
    }

    func rollbackTransaction() throws {
        precondition(transactionDepth > 0)
        defer { transactionDepth -= 1 }
        if transactionDepth == 1 {
            // SQLite may already have rolled back (e.g. after SQLITE_FULL); then there is nothing to undo.
            if sqlite3_get_autocommit(raw) == 0 { try execute("ROLLBACK") }
        } else {
            try execute("ROLLBACK TO sift_\(transactionDepth - 1)")
            try execute("RELEASE sift_\(transactionDepth - 1)")
        }
    }

    /// Runs `body` in a transaction (or a savepoint inside an open one) on this connection.
    func inTransaction<R>(_ body: () throws -> R) throws -> R {
        try beginTransaction()
        let result: R
        do {
            result = try body()
        } catch {
            try? rollbackTransaction()
            throw error
        }
        do {
            try commitTransaction()
        } catch {
            try? rollbackTransaction()
            throw error
        }
        return result
    }

    // MARK: - Tracing

    func install(_ newHooks: TraceHooks, generation: Int) {
        hooksGeneration = generation
        // Performance needs STMT too: SQLite's own profile clock has millisecond resolution, so Sift times
        // each statement from its first step (STMT) to its end (PROFILE) with a nanosecond clock.
        let mask = (newHooks.isActive ? UInt32(SQLITE_TRACE_STMT) : 0)
            | (newHooks.performance != nil ? UInt32(SQLITE_TRACE_PROFILE) : 0)
        let wasActive = hooks.isActive
        hooks = newHooks
        if mask == 0 {
            if wasActive { sqlite3_trace_v2(raw, 0, nil, nil) }
            performanceSQLs.removeAll()
            performanceCost = 0
            statementStarts.removeAll()
        } else {
            sqlite3_trace_v2(raw, mask, handleTraceCallback, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    fileprivate func traced(_ type: UInt32, _ p: UnsafeMutableRawPointer?, _ x: UnsafeMutableRawPointer?) {
        guard let p else { return }
        let stmt = OpaquePointer(p)
        if type == UInt32(SQLITE_TRACE_STMT) {
            // Trigger programs report "-- name"; only top-level statements are the caller's SQL.
            if let x, x.assumingMemoryBound(to: CChar.self).pointee == 0x2D { return }
            if hooks.performance != nil { statementStarts[stmt] = Handle.now() }
            if let tracer = hooks.sql, let sql = sqlite3_sql(stmt) { tracer(String(cString: sql)) }
        } else if type == UInt32(SQLITE_TRACE_PROFILE), let perf = hooks.performance {
            guard let start = statementStarts.removeValue(forKey: stmt) else { return }
            let sql = sqlite3_sql(stmt).map { String(cString: $0) } ?? ""
            performanceSQLs[sql, default: 0] += 1
            performanceCost += Int64(Handle.now() &- start)
            // Within a transaction the report waits for its end, so it covers the whole transaction.
            if sqlite3_get_autocommit(raw) != 0 {
                let sqls = performanceSQLs, cost = performanceCost
                performanceSQLs.removeAll(keepingCapacity: true)
                performanceCost = 0
                perf(pool.tag, sqls, cost)
            }
        }
    }
}

extension Handle {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// What SQLite's authorizer reported of a statement being compiled (see `rowWriteAuthorizer`).
private struct AuthorizedWrites {
    /// The tables whose rows it changes.
    var tables: [String] = []
    /// The savepoint it begins, releases or rolls back to.
    var savepoint: SavepointStep?
}

/// What a statement does to a savepoint (`SAVEPOINT`, `RELEASE`, `ROLLBACK TO`), with the savepoint's name as written.
enum SavepointStep: Equatable {
    case begin(String)
    case release(String)
    case rollBack(String)
}

/// Records, in the `AuthorizedWrites` it is given, the tables whose rows a statement being compiled changes (SQLite's
/// own schema tables aside: DDL writes those, and DDL such as `PRAGMA journal_mode` or `VACUUM` must stay outside
/// Sift's transactions), and the savepoint it begins, releases or rolls back to. It never denies anything.
private let rowWriteAuthorizer: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32 = { context, action, table, second, _, _ in
    guard let context, let table else { return SQLITE_OK }
    let writes = context.assumingMemoryBound(to: AuthorizedWrites.self)
    if action == SQLITE_SAVEPOINT {
        // The operation ("BEGIN", "RELEASE" or "ROLLBACK") comes first, the savepoint's name second.
        guard let second else { return SQLITE_OK }
        let name = String(cString: second)
        if sqlite3_stricmp(table, "BEGIN") == 0 { writes.pointee.savepoint = .begin(name) }
        if sqlite3_stricmp(table, "RELEASE") == 0 { writes.pointee.savepoint = .release(name) }
        if sqlite3_stricmp(table, "ROLLBACK") == 0 { writes.pointee.savepoint = .rollBack(name) }
        return SQLITE_OK
    }
    guard action == SQLITE_INSERT || action == SQLITE_UPDATE || action == SQLITE_DELETE else { return SQLITE_OK }
    if sqlite3_strnicmp(table, "sqlite_", 7) != 0 {
        let name = String(cString: table)
        if !writes.pointee.tables.contains(name) { writes.pointee.tables.append(name) }
    }
    return SQLITE_OK
}

/// A transaction is committing on the connection (its thread, inside the COMMIT): 0 lets it.
private let handleCommitCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
    guard let context else { return 0 }
    Unmanaged<Handle>.fromOpaque(context).takeUnretainedValue().transactionDidCommit()
    return 0
}

private let handleRollbackCallback: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
    guard let context else { return }
    Unmanaged<Handle>.fromOpaque(context).takeUnretainedValue().transactionDidRollBack()
}

private let handleTraceCallback: @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
                                                 UnsafeMutableRawPointer?) -> Int32 = { type, context, p, x in
    guard let context else { return 0 }
    Unmanaged<Handle>.fromOpaque(context).takeUnretainedValue().traced(type, p, x)
    return 0
}
