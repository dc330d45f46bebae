import CSQLite

/// A delete built step by step.
public final class Delete {
    let database: Database
    let statement: StatementDelete

    init(database: Database, table: String) {
        self.database = database
        statement = StatementDelete().delete(fromTable: table)
    }

    /// `WHERE`.
    @discardableResult public func `where`(_ condition: Condition?) -> Delete { statement.where(condition); return self }
    /// `ORDER BY`.
    @discardableResult public func order(by orderList: OrderByList?) -> Delete { statement.order(by: orderList); return self }
    /// `LIMIT`.
    @discardableResult public func limit(_ limit: Limit?) -> Delete { statement.limit(limit); return self }
    /// `OFFSET`.
    @discardableResult public func offset(_ offset: Offset?) -> Delete { statement.offset(offset); return self }

    /// Deletes the matching rows.
    public func execute() throws { try database.exec(statement) }
}
