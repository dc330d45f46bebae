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
        try database.pool.reporting { try readNext(Object.self) }
    }

    private func readNext<Object: TableDecodable>(_ type: Object.Type) throws -> Object? {
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
