/// A table with its model preset: the same one-line CRUD without repeating the table and the type.
///
///     let table = try database.getTable(named: "sampleTable", of: Sample.self)
///     try table?.insert(objects: object)
///     let objects = try table?.getObjects(where: Sample.Properties.identifier > 1)
public final class Table<Root: TableCodable>: Sendable {
    /// The database the table lives in.
    public let database: Database
    /// The table's name.
    public let name: String

    init(database: Database, name: String) {
        self.database = database
        self.name = name
    }

    /// Inserts objects (one transaction when there are several).
    public func insert(objects: [Root], on properties: [PropertyConvertible]? = nil) throws {
        try database.insertObjects(objects, on: properties, into: name, conflict: nil)
    }
    /// Inserts objects.
    public func insert(objects: Root..., on properties: [PropertyConvertible]? = nil) throws {
        try database.insertObjects(objects, on: properties, into: name, conflict: nil)
    }
    /// Inserts objects, replacing rows that collide.
    public func insertOrReplace(objects: [Root], on properties: [PropertyConvertible]? = nil) throws {
        try database.insertObjects(objects, on: properties, into: name, conflict: .replace)
    }
    /// Inserts objects, replacing rows that collide.
    public func insertOrReplace(objects: Root..., on properties: [PropertyConvertible]? = nil) throws {
        try database.insertObjects(objects, on: properties, into: name, conflict: .replace)
    }
    /// Deletes matching rows.
    public func delete(where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                       limit: Limit? = nil, offset: Offset? = nil) throws {
        try database.delete(fromTable: name, where: condition, orderBy: orderList, limit: limit, offset: offset)
    }
    /// Sets the `on:` columns of matching rows to `object`'s values.
    public func update(on properties: PropertyConvertible..., with object: Root, where condition: Condition? = nil,
                       orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws {
        try database.updateRows(name, on: properties, with: object, filter: database.filter(condition, orderList, limit, offset))
    }
    /// Sets the `on:` columns of matching rows to `object`'s values.
    public func update(on properties: [PropertyConvertible], with object: Root, where condition: Condition? = nil,
                       orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws {
        try database.updateRows(name, on: properties, with: object, filter: database.filter(condition, orderList, limit, offset))
    }
    /// Sets the `on:` columns of matching rows to the values of `row`.
    public func update(on properties: PropertyConvertible..., with row: [ColumnEncodable], where condition: Condition? = nil,
                       orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws {
        try database.updateRows(name, on: properties, with: row, filter: database.filter(condition, orderList, limit, offset))
    }
    /// Matching objects, reading only the `on:` columns (all when none are given).
    public func getObjects(on properties: PropertyConvertible..., where condition: Condition? = nil,
                           orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> [Root] {
        try database.selectObjects(Root.self, on: properties, from: name, filter: database.filter(condition, orderList, limit, offset))
    }
    /// The first matching object.
    public func getObject(on properties: PropertyConvertible..., where condition: Condition? = nil,
                          orderBy orderList: OrderByList? = nil, offset: Offset? = nil) throws -> Root? {
        try database.selectObjects(Root.self, on: properties, from: name, filter: database.filter(condition, orderList, 1, offset)).first
    }
    /// Matching rows of the `on:` results.
    public func getRows(on results: ColumnResultConvertible..., where condition: Condition? = nil,
                        orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalRowXColumn {
        try database.selectRows(on: results, from: name, filter: database.filter(condition, orderList, limit, offset))
    }
    /// The first matching row.
    public func getRow(on results: ColumnResultConvertible..., where condition: Condition? = nil,
                       orderBy orderList: OrderByList? = nil, offset: Offset? = nil) throws -> FundamentalRow {
        try database.selectRows(on: results, from: name, filter: database.filter(condition, orderList, 1, offset)).first ?? []
    }
    /// One column of matching rows.
    public func getColumn(on result: ColumnResultConvertible, where condition: Condition? = nil,
                          orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalColumn {
        try database.getColumn(on: result, fromTable: name, where: condition, orderBy: orderList, limit: limit, offset: offset)
    }
    /// One column of matching rows, without duplicates.
    public func getDistinctColumn(on result: ColumnResultConvertible, where condition: Condition? = nil,
                                  orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalColumn {
        try database.getDistinctColumn(on: result, fromTable: name, where: condition, orderBy: orderList, limit: limit, offset: offset)
    }
    /// One value.
    public func getValue(on result: ColumnResultConvertible, where condition: Condition? = nil,
                         orderBy orderList: OrderByList? = nil, offset: Offset? = nil) throws -> FundamentalValue {
        try database.getValue(on: result, fromTable: name, where: condition, orderBy: orderList, offset: offset)
    }
    /// One distinct value.
    public func getDistinctValue(on result: ColumnResultConvertible, where condition: Condition? = nil,
                                 orderBy orderList: OrderByList? = nil, offset: Offset? = nil) throws -> FundamentalValue {
        try database.getDistinctValue(on: result, fromTable: name, where: condition, orderBy: orderList, offset: offset)
    }
}

extension Database {
    /// The table `name` with its model preset, or nil when no such table exists.
    public func getTable<Root: TableCodable>(named name: String, of type: Root.Type = Root.self) throws -> Table<Root>? {
        try isTableExists(name) ? Table(database: self, name: name) : nil
    }
}
