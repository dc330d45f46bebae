import CSQLite

/// An update built step by step, executed with an object or a row of values.
public final class Update {
    let database: Database
    let table: String
    let properties: [PropertyConvertible]
    var filter = FilterClauses()

    init(database: Database, table: String, properties: [PropertyConvertible]) {
        self.database = database
        self.table = table
        self.properties = properties
    }

    /// `WHERE`.
    @discardableResult public func `where`(_ condition: Condition?) -> Update { filter.condition = condition; return self }
    /// `ORDER BY`.
    @discardableResult public func order(by orderList: OrderByList?) -> Update { filter.orderBy = orderList?.orderTerms ?? []; return self }
    /// `LIMIT`.
    @discardableResult public func limit(_ limit: Limit?) -> Update { filter.limit = limit?.asExpression(); return self }
    /// `OFFSET`.
    @discardableResult public func offset(_ offset: Offset?) -> Update { filter.offset = offset?.asExpression(); return self }

    /// Sets the columns to `object`'s values.
    public func execute<Object: TableEncodable>(with object: Object) throws {
        try database.updateRows(table, on: properties, with: object, filter: filter)
    }

    /// Sets the columns to the values of `row`, in order.
    public func execute(with row: [ColumnEncodable]) throws {
        try database.updateRows(table, on: properties, with: row, filter: filter)
    }
}
