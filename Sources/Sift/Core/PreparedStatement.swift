import CSQLite

/// A compiled SQL statement holding its connection until finalized: the raw escape hatch.
///
/// Not `Sendable`: use it on the thread that prepared it, then ``finalize()`` it (or let it go)
/// so its connection returns to the pool.
///
///     let statement = try database.prepare(sql: "SELECT id, name FROM people WHERE age > ?")
///     try statement.bind([30])
///     while try statement.step() {
///         print(statement.value(atIndex: 0).int64Value, statement.value(named: "name")?.stringValue ?? "")
///     }
///     statement.finalize()
public final class PreparedStatement {
    private let pool: HandlePool
    private let handle: Handle
    private let stmt: OpaquePointer
    var rawStatement: OpaquePointer { stmt }
    private let cached: Bool
    /// The SQL text, with `?` placeholders.
    public let sql: String
    private var isFinalized = false

    init(pool: HandlePool, handle: Handle, stmt: OpaquePointer, cached: Bool, sql: String) {
        self.pool = pool
        self.handle = handle
        self.stmt = stmt
        self.cached = cached
        self.sql = sql
    }

    deinit { finalize() }

    private func checkOpen() throws {
        if isFinalized { throw SiftError.misuse("The statement was finalized.", operation: .step, sql: sql) }
    }

    /// Binds `values` to the `?` parameters, in order.
    public func bind(_ values: [ColumnEncodable]) throws {
        try pool.reporting {
            try checkOpen()
            try handle.bind(values.map { $0.archivedValue() }, to: stmt, sql: sql)
        }
    }

    /// Binds one value to the parameter at `index` (1-based, as in SQLite).
    public func bind(_ value: ColumnEncodable, toIndex index: Int) throws {
        try pool.reporting {
            try checkOpen()
            let rc = RawStatement.bind(value.archivedValue(), at: Int32(index), in: stmt)
            if rc != SQLITE_OK { throw handle.error(rc, sql: sql, operation: .bind) }
        }
    }

    /// Steps once; `true` when a row is ready to read, `false` when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        try pool.reporting {
            try checkOpen()
            return try handle.step(stmt)
        }
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    public func reset() throws {
        try pool.reporting {
            try checkOpen()
            sqlite3_reset(stmt)
        }
    }

    /// The number of result columns.
    public var columnCount: Int { isFinalized ? 0 : Int(sqlite3_column_count(stmt)) }

    /// The name of the result column at `index` (0-based).
    public func columnName(atIndex index: Int) -> String {
        guard !isFinalized, let name = sqlite3_column_name(stmt, Int32(index)) else { return "" }
        return String(cString: name)
    }

    /// The index of the result column called `name`, if any.
    public func index(ofColumnNamed name: String) -> Int? {
        (0..<columnCount).first { columnName(atIndex: $0) == name }
    }

    /// The value of the current row at column `index` (0-based); NULL when out of range.
    public func value(atIndex index: Int) -> FundamentalValue {
        guard !isFinalized, index >= 0, index < columnCount else { return .null }
        return RawStatement.value(stmt, Int32(index))
    }

    /// The value of the current row in the column called `name`, or nil when there is no such column.
    public func value(named name: String) -> FundamentalValue? {
        index(ofColumnNamed: name).map(value(atIndex:))
    }

    /// All values of the current row.
    public func row() -> FundamentalRow {
        (0..<columnCount).map(value(atIndex:))
    }

    /// Releases the statement and returns its connection to the pool. Safe to call twice.
    public func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        handle.relinquish(stmt, sql: sql, cached: cached)
        pool.checkin(handle)
    }
}

extension Database {
    /// Prepares one SQL statement. Read-only statements run on a reader connection, others on the writer.
    public func prepare(sql: String) throws -> PreparedStatement {
        try pool.reporting { try prepareStatement(sql) }
    }

    private func prepareStatement(_ sql: String) throws -> PreparedStatement {
        var handle = try pool.checkout(write: false)
        do {
            var (stmt, cached) = try handle.acquire(sql)
            if sqlite3_stmt_readonly(stmt) == 0 && pool.ownedWriter() !== handle {
                handle.relinquish(stmt, sql: sql, cached: cached)
                pool.checkin(handle)
                handle = try pool.checkout(write: true)
                (stmt, cached) = try handle.acquire(sql)
            }
            return PreparedStatement(pool: pool, handle: handle, stmt: stmt, cached: cached, sql: sql)
        } catch {
            pool.checkin(handle)
            throw error
        }
    }

    /// Runs one SQL statement with `values` bound to its `?` parameters (never spliced into the text).
    ///
    ///     try database.exec(sql: "UPDATE people SET name = ? WHERE id = ?", values: ["Ada", 1])
    public func exec(sql: String, values: [ColumnEncodable] = []) throws {
        let statement = try prepare(sql: sql)
        defer { statement.finalize() }
        try statement.bind(values)
        while try statement.step() {}
    }

    /// Runs one query with bound values and returns all its rows.
    public func getRows(sql: String, values: [ColumnEncodable] = []) throws -> FundamentalRowXColumn {
        let statement = try prepare(sql: sql)
        defer { statement.finalize() }
        try statement.bind(values)
        var rows: FundamentalRowXColumn = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }
}
