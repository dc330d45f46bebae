import CSQLite

/// A select built step by step, then read all at once or one object at a time.
///
///     let select = try database.prepareSelect(of: Sample.self, fromTable: "sampleTable")
///         .where(Sample.Properties.identifier > 0).order(by: Sample.Properties.identifier.asOrder()).limit(10)
///     let objects: [Sample] = try select.allObjects()
public final class Select {
    let database: Database
    let statement: StatementSelect
    let properties: [Property]
    private var cursor: PreparedStatement?
    private var cursorDecoder: RowDecoder?
    /// Set when the rows ran out; changing a clause starts over.
    private var exhausted = false

    init(database: Database, properties: [Property], table: String, distinct: Bool) {
        self.database = database
        self.properties = properties
        statement = StatementSelect().select(distinct: distinct, properties).from(table)
    }

    /// `WHERE`.
    @discardableResult public func `where`(_ condition: Condition?) -> Select { statement.where(condition); restart(); return self }
    /// `ORDER BY`.
    @discardableResult public func order(by orderList: OrderByList?) -> Select { statement.order(by: orderList); restart(); return self }
    /// `GROUP BY`.
    @discardableResult public func group(by expressions: ExpressionConvertible...) -> Select {
        statement.groups = expressions.map { $0.asExpression() }
        restart()
        return self
    }
    /// `HAVING`.
    @discardableResult public func having(_ condition: Condition?) -> Select { statement.having(condition); restart(); return self }
    /// `LIMIT`.
    @discardableResult public func limit(_ limit: Limit?) -> Select { statement.limit(limit); restart(); return self }
    /// `OFFSET`.
    @discardableResult public func offset(_ offset: Offset?) -> Select { statement.offset(offset); restart(); return self }

    /// The SQL this select runs, values inline.
    public var description: String { statement.description }

    private func decoder<Object: TableDecodable>(for type: Object.Type) -> RowDecoder {
        let binding = Object.CodingKeys.objectRelationalMapping
        return RowDecoder(binding: binding, ordinals: properties.map { binding.ordinal(ofColumn: $0.name) })
    }

    /// Every remaining object.
    public func allObjects<Object: TableDecodable>(of type: Object.Type = Object.self) throws -> [Object] {
        var objects: [Object] = []
        while let object: Object = try nextObject() { objects.append(object) }
        return objects
    }

    /// The next object, or nil when there are no more (the connection is then released).
    public func nextObject<Object: TableDecodable>(of type: Object.Type = Object.self) throws -> Object? {
        if exhausted { return nil }
        if cursor == nil {
            cursor = try database.prepare(statement)
            cursorDecoder = decoder(for: Object.self)
        }
        guard let cursor, let decoder = cursorDecoder,
              decoder.bindingID == ObjectIdentifier(Object.CodingKeys.objectRelationalMapping) else {
            throw SiftError.misuse("A select reads one model type at a time.", operation: .decode)
        }
        guard try cursor.step() else {
            finish()
            return nil
        }
        return try cursor.withRawStatement { try decoder.decode(Object.self, from: $0) }
    }

    private func finish() {
        cursor?.finalize()
        cursor = nil
        cursorDecoder = nil
        exhausted = true
    }

    private func restart() {
        finish()
        exhausted = false
    }

    deinit { cursor?.finalize() }
}

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
        if cursor == nil { cursor = try database.prepare(statement) }
        guard let cursor, try cursor.step() else {
            self.cursor?.finalize()
            self.cursor = nil
            return nil
        }
        return cursor.row()
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

/// An insert of one model type, reusable for many batches.
public final class Insert<Object: TableEncodable> {
    let database: Database
    let table: String
    let properties: [PropertyConvertible]?
    let conflict: Conflict?

    init(database: Database, table: String, properties: [PropertyConvertible]?, conflict: Conflict?) {
        self.database = database
        self.table = table
        self.properties = properties
        self.conflict = conflict
    }

    /// Inserts `objects` (one transaction when there are several).
    public func execute(with objects: [Object]) throws {
        try database.insertObjects(objects, on: properties, into: table, conflict: conflict)
    }

    /// Inserts `objects`.
    public func execute(with objects: Object...) throws { try execute(with: objects) }
}

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

/// A select over several tables whose rows decode into one object per table.
///
///     let select = try database.prepareMultiSelect(
///         on: Message.Properties.all.inTable("message") + Author.Properties.all.inTable("author"),
///         fromTables: ["message", "author"])
///         .where(Message.Properties.authorID.inTable("message") == Author.Properties.identifier.inTable("author"))
///     for row in try select.allMultiObjects() { let message = row["message"] as? Message }
public final class MultiSelect {
    let select: RowSelect
    let properties: [Property]

    init(database: Database, properties: [Property], tables: [String]) {
        self.properties = properties
        select = RowSelect(database: database, results: properties, tables: tables, distinct: false)
    }

    /// `WHERE`.
    @discardableResult public func `where`(_ condition: Condition?) -> MultiSelect { select.where(condition); return self }
    /// `ORDER BY`.
    @discardableResult public func order(by orderList: OrderByList?) -> MultiSelect { select.order(by: orderList); return self }
    /// `LIMIT`.
    @discardableResult public func limit(_ limit: Limit?) -> MultiSelect { select.limit(limit); return self }
    /// `OFFSET`.
    @discardableResult public func offset(_ offset: Offset?) -> MultiSelect { select.offset(offset); return self }

    /// The objects of the next row, keyed by table name.
    public func nextMultiObject() throws -> [String: any TableDecodable]? {
        guard let row = try select.nextRow() else { return nil }
        var groups: [String: (type: any TableDecodable.Type, values: [String: FundamentalValue])] = [:]
        for (property, value) in zip(properties, row) {
            guard let table = property.table, let root = property.root else { continue }
            groups[table, default: (root, [:])].values[property.name] = value
        }
        var objects: [String: any TableDecodable] = [:]
        for (table, group) in groups {
            let type: any TableDecodable.Type = group.type
            objects[table] = try MultiSelect.decode(type, from: group.values)
        }
        return objects
    }

    /// The objects of every remaining row, keyed by table name.
    public func allMultiObjects() throws -> [[String: any TableDecodable]] {
        var rows: [[String: any TableDecodable]] = []
        while let row = try nextMultiObject() { rows.append(row) }
        return rows
    }

    private static func decode<Object: TableDecodable>(_ type: Object.Type, from values: [String: FundamentalValue]) throws -> any TableDecodable {
        try ValueDecoder.decode(type, from: values)
    }
}

extension PreparedStatement {
    func withRawStatement<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R { try body(rawStatement) }
}

extension Database {
    /// A select of `type`'s columns from `table`.
    public func prepareSelect<Root: TableDecodable>(of type: Root.Type, fromTable table: String, isDistinct: Bool = false) throws -> Select {
        Select(database: self, properties: Root.CodingKeys.all, table: table, distinct: isDistinct)
    }

    /// A select of the listed properties from `table`; objects decode from them.
    public func prepareSelect(on properties: [PropertyConvertible], fromTable table: String, isDistinct: Bool = false) throws -> Select {
        Select(database: self, properties: properties.map { $0.asProperty() }, table: table, distinct: isDistinct)
    }

    /// A select of the listed properties from `table`; objects decode from them.
    public func prepareSelect(on properties: PropertyConvertible..., fromTable table: String, isDistinct: Bool = false) throws -> Select {
        try prepareSelect(on: properties, fromTable: table, isDistinct: isDistinct)
    }

    /// A select of values (columns, expressions, aggregates) from `table`.
    public func prepareRowSelect(on results: [ColumnResultConvertible], fromTable table: String, isDistinct: Bool = false) throws -> RowSelect {
        RowSelect(database: self, results: results, tables: [table], distinct: isDistinct)
    }

    /// A select of values (columns, expressions, aggregates) from `table`.
    public func prepareRowSelect(on results: ColumnResultConvertible..., fromTable table: String, isDistinct: Bool = false) throws -> RowSelect {
        RowSelect(database: self, results: results, tables: [table], distinct: isDistinct)
    }

    /// A select over several tables; each table's properties decode into its model.
    public func prepareMultiSelect(on properties: [PropertyConvertible], fromTables tables: [String]) throws -> MultiSelect {
        MultiSelect(database: self, properties: properties.map { $0.asProperty() }, tables: tables)
    }

    /// An insert of `type` into `table`, optionally of some columns only.
    public func prepareInsert<Root: TableEncodable>(of type: Root.Type, on properties: [PropertyConvertible]? = nil,
                                                    intoTable table: String) throws -> Insert<Root> {
        Insert(database: self, table: table, properties: properties, conflict: nil)
    }

    /// An insert-or-replace of `type` into `table`.
    public func prepareInsertOrReplace<Root: TableEncodable>(of type: Root.Type, on properties: [PropertyConvertible]? = nil,
                                                             intoTable table: String) throws -> Insert<Root> {
        Insert(database: self, table: table, properties: properties, conflict: .replace)
    }

    /// An update of the listed columns of `table`.
    public func prepareUpdate(table: String, on properties: [PropertyConvertible]) throws -> Update {
        Update(database: self, table: table, properties: properties)
    }

    /// An update of the listed columns of `table`.
    public func prepareUpdate(table: String, on properties: PropertyConvertible...) throws -> Update {
        Update(database: self, table: table, properties: properties)
    }

    /// A delete from `table`.
    public func prepareDelete(fromTable table: String) throws -> Delete {
        Delete(database: self, table: table)
    }
}
