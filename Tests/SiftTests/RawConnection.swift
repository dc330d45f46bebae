import CSQLite

/// A plain SQLite connection outside Sift, standing in for another process in tests.
/// SQLite opens connections in serialized mode by default, so handing one to another thread is safe.
final class RawConnection: @unchecked Sendable {
    let db: OpaquePointer
    init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw SiftErrorStub.open }
        self.db = db
    }
    deinit { sqlite3_close_v2(db) }
    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw SiftErrorStub.exec(String(cString: sqlite3_errmsg(db))) }
    }
    enum SiftErrorStub: Error { case open, exec(String) }
}
