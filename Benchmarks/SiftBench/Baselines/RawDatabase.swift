import CSQLite

/// An error from the SQLite C API, with the connection's message.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite error \(code): \(message)" }

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    init(code: Int32, db: OpaquePointer?) {
        self.code = code
        self.message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
    }
}

/// The connection settings shared by every baseline and every candidate, so both sides measure the same
/// journal and durability work. They mirror Sift's `DefaultConfig` (Sources/Sift/Core/Config.swift): busy
/// timeout 10 s, WAL, `synchronous=NORMAL`, `foreign_keys=ON`. Keep the two in step; a Sift candidate that
/// changes its `Database`'s configs must end up with these.
enum ConnectionSettings {
    static let pragmas = [
        "PRAGMA journal_mode=WAL",
        "PRAGMA synchronous=NORMAL",
        "PRAGMA foreign_keys=ON",
    ]
    static let busyTimeoutMilliseconds: Int32 = 10_000

    /// Applies the shared settings to a raw connection.
    static func apply(to db: OpaquePointer) throws {
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        for pragma in pragmas {
            let rc = sqlite3_exec(db, pragma, nil, nil, nil)
            guard rc == SQLITE_OK else { throw SQLiteError(code: rc, db: db) }
        }
    }
}

/// A thin owner of a raw connection, for setup code. Hot loops call `sqlite3_*` directly on `handle`.
/// One thread at a time (opened with `SQLITE_OPEN_NOMUTEX`): each benchmark thread opens its own.
final class RawDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError(code: rc, db: db)
            sqlite3_close_v2(db)
            throw error
        }
        handle = db
        try ConnectionSettings.apply(to: db)
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, db: handle) }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw SQLiteError(code: rc, db: handle) }
        return RawStatement(handle: stmt, db: handle)
    }

    /// Runs `body` in one `BEGIN IMMEDIATE ... COMMIT`, rolling back on error.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The first column of the first row, as an integer (for counts and checks).
    func integer(_ sql: String) throws -> Int64 {
        let stmt = try prepare(sql)
        guard try stmt.step() else { throw SQLiteError(code: SQLITE_ERROR, message: "no row: \(sql)") }
        return sqlite3_column_int64(stmt.handle, 0)
    }

    /// The size of the database file in bytes (`page_count * page_size`).
    func fileSize() throws -> Int64 {
        try integer("PRAGMA page_count") * integer("PRAGMA page_size")
    }
}

/// A prepared statement, finalized when released.
final class RawStatement {
    let handle: OpaquePointer
    private let db: OpaquePointer

    init(handle: OpaquePointer, db: OpaquePointer) {
        self.handle = handle
        self.db = db
    }

    deinit { sqlite3_finalize(handle) }

    /// Steps once: true when a row is available, false when done.
    @inline(__always)
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw SQLiteError(code: rc, db: db)
        }
    }

    /// Steps a statement that returns no row, then resets it for the next bindings.
    @inline(__always)
    func run() throws {
        let rc = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard rc == SQLITE_DONE else { throw SQLiteError(code: rc, db: db) }
    }

    @inline(__always)
    func reset() { sqlite3_reset(handle) }
}

/// Calls `body` with a NUL-terminated UTF-8 pointer to `string` and its byte count. Native Swift strings are
/// contiguous UTF-8, so this neither copies nor allocates; bind with `SQLITE_STATIC` and step inside `body`.
@inline(__always)
func withUTF8Text<R>(_ string: String, _ body: (UnsafePointer<CChar>, Int32) throws -> R) rethrows -> R {
    try string.withCString { pointer in try body(pointer, Int32(string.utf8.count)) }
}

/// `String` from a text column, without `strlen`.
@inline(__always)
func columnText(_ stmt: OpaquePointer, _ index: Int32) -> String {
    guard let text = sqlite3_column_text(stmt, index) else { return "" }
    let count = Int(sqlite3_column_bytes(stmt, index))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
}
