import CSQLite

/// A select of values, read as rows, a column or single values.
public final class RowSelect {
    let database: Database
    let statement: StatementSelect
    private var cursor: PreparedStatement?

    init(database: Database, results: [ColumnResultConvertible], tables: [String], distinct: Bool) {
        self.database = database
        statement = StatementSelect().select(distinct: distinct, results).from(tables)
    }

    /// `WHERE`.
    @discardableResult public func `where`(_ condition: Condition?) -> RowSelect { statement.where(condition); return self }
    /// `ORDER BY`.
    @discardableResult public func order(by orderList: OrderByList?) -> RowSelect { statement.order(by: orderList); return self }
    /// `GROUP BY`.
    @discardableResult public func group(by expressions: ExpressionConvertible...) -> RowSelect {
        statement.groups = expressions.map { $0.asExpression() }
        return self
    }
    /// `HAVING`.
    @discardableResult public func having(_ condition: Condition?) -> RowSelect { statement.having(condition); return self }
    /// `LIMIT`.
    @discardableResult public func limit(_ limit: Limit?) -> RowSelect { statement.limit(limit); return self }
    /// `OFFSET`.
    @discardableResult public func offset(_ offset: Offset?) -> RowSelect { statement.offset(offset); return self }

    /// The next row, or nil at the end.
    public func nextRow() throws -> FundamentalRow? {
        try nextRawRow { _ in cursor?.row() ?? [] }
    }

    /// Steps to the next row and reads it from the statement with `body`; nil at the end (the connection is
    /// then released).
    func nextRawRow<R>(_ body: (OpaquePointer) throws -> R) throws -> R? {
        try database.pool.reporting {
            if cursor == nil { cursor = try database.prepare(statement) }
            guard let cursor, try cursor.step() else {
                self.cursor?.finalize()
                self.cursor = nil
                return nil
            }
            return try cursor.withRawStatement(body)
        }
    }

    /// Every remaining row.
    public func allRows() throws -> FundamentalRowXColumn {
        var rows: FundamentalRowXColumn = []
        while let row = try nextRow() { rows.append(row) }
        return rows
    }

    /// The first column of the next row.
    public func nextValue() throws -> FundamentalValue? { try nextRow()?.first }

    /// The first column of every remaining row.
    public func allValues() throws -> FundamentalColumn { try allRows().map { $0.first ?? .null } }

    deinit { cursor?.finalize() }
}
