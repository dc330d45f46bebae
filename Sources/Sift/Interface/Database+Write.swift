import CSQLite

extension Database {
    /// The binding ordinals of `properties` (all columns when nil or empty).
    func ordinals<Key: CodingTableKey>(of properties: [PropertyConvertible]?, in binding: TableBinding<Key>) throws -> [Int] {
        guard let properties, !properties.isEmpty else { return Array(binding.keys.indices) }
        return try properties.map { property in
            let name = property.asProperty().name
            guard let ordinal = binding.ordinal(ofColumn: name) else {
                throw pool.report(SiftError.misuse("\(name) is not a column of \(Key.Root.self).", operation: .encode))
            }
            return ordinal
        }
    }

    func insertObjects<Object: TableEncodable>(_ objects: [Object], on properties: [PropertyConvertible]?,
                                               into table: String, conflict: Conflict?) throws {
        guard !objects.isEmpty else { return }
        let binding = Object.CodingKeys.objectRelationalMapping
        let ordinals = try ordinals(of: properties, in: binding)
        let encoder = RowEncoder(binding: binding, ordinals: ordinals)
        let primaryKeyParameter = binding.integerPrimaryKeyOrdinal.map { encoder.parameters.slots[$0] } ?? 0
        let body = { (handle: Handle) throws -> Void in
            // A compressed column's value goes through sift_compress (see CompressedColumns).
            let compressed = try CompressedColumns.load(table, on: handle)
            let sql = StatementInsert().insert(intoTable: table, with: ordinals.map { Column(named: binding.columnNames[$0]) },
                                               onConflict: conflict)
                .values(ordinals.map { compressed.writeExpression(ofColumn: binding.columnNames[$0]) })
                .statementSQL.sql
            // A large plain insert into a synced content table indexes its rows afterwards, in one pass.
            // Observers may handle a plain multi-row insert as one batch (the full-text sync indexes it in one pass).
            let batch = conflict == nil && objects.count > 1
            if batch { handle.observer?.batchWillBegin(inserting: objects.count, into: table, on: handle) }
            var completed = false
            // On any error the insert is rolled back, and so must be what the observer collected.
            defer { if batch && !completed { try? handle.observer?.batchDidEnd(completed: false, on: handle) } }
            try handle.withStatement(sql) { stmt in
                defer { encoder.finish() }
                // Objects are bound where they lie (see `bind(inPlace:to:)`); nothing writes through this pointer.
                try objects.withUnsafeBufferPointer { buffer in
                    guard let first = buffer.baseAddress else { return }
                    let objects = UnsafeMutablePointer(mutating: first)
                    for object in buffer.indices {
                        let autoIncrement = try encoder.bind(inPlace: &objects[object], to: stmt)
                        // Auto-increment: leave the key to SQLite, which uses max(rowid) + 1.
                        if autoIncrement && primaryKeyParameter > 0 { sqlite3_bind_null(stmt, primaryKeyParameter) }
                        _ = try handle.step(stmt)
                        sqlite3_reset(stmt)
                        if autoIncrement {
                            var target = objects[object]
                            target.lastInsertedRowID = handle.lastInsertedRowID
                        }
                    }
                }
            }
            completed = true
            if batch { try handle.observer?.batchDidEnd(completed: true, on: handle) }
        }
        // Several objects are one transaction: all or nothing, and much faster.
        if objects.count > 1 { try write(body) } else { try writeWithoutTransaction(body) }
    }

    func updateRows<Object: TableEncodable>(_ table: String, on properties: [PropertyConvertible], with object: Object,
                                            filter: FilterClauses) throws {
        let binding = Object.CodingKeys.objectRelationalMapping
        let ordinals = try ordinals(of: properties, in: binding)
        let encoder = RowEncoder(binding: binding, ordinals: ordinals)
        try writeWithoutTransaction { handle in
            let compressed = try CompressedColumns.load(table, on: handle)
            let statement = StatementUpdate().update(table: table)
            for ordinal in ordinals {
                let name = binding.columnNames[ordinal]
                statement.set(Column(named: name), to: compressed.writeExpression(ofColumn: name))
            }
            statement.filter = try plainFilter(filter, of: table, on: handle)
            let rendered = statement.statementSQL
            try handle.withStatement(rendered.sql) { stmt in
                defer { encoder.finish() }
                try encoder.bind(object, to: stmt)
                try Database.bind(Array(rendered.values.dropFirst(ordinals.count)), from: Int32(ordinals.count + 1), to: stmt, on: handle)
                while try handle.step(stmt) {}
            }
        }
    }

    func updateRows(_ table: String, on properties: [PropertyConvertible], with row: [ColumnEncodable], filter: FilterClauses) throws {
        guard properties.count == row.count else {
            throw pool.report(SiftError(code: .range, message: "\(properties.count) properties but \(row.count) values.", operation: .bind))
        }
        let (compressed, plain) = try read { handle in
            (try CompressedColumns.load(table, on: handle), try plainFilter(filter, of: table, on: handle))
        }
        let statement = StatementUpdate().update(table: table)
        for (property, value) in zip(properties, row) {
            statement.set(property, to: compressed.writeExpression(ofColumn: property.asProperty().name, value: value.archivedValue()))
        }
        statement.filter = plain
        try exec(statement)
    }

    static func bind(_ values: [FundamentalValue], from first: Int32, to stmt: OpaquePointer, on handle: Handle) throws {
        for (i, value) in values.enumerated() {
            let rc = RawStatement.bind(value, at: first + Int32(i), in: stmt)
            if rc != SQLITE_OK { throw handle.error(rc, sql: nil, operation: .bind) }
        }
    }

    func filter(_ condition: Condition?, _ orderList: OrderByList?, _ limit: Limit?, _ offset: Offset?) -> FilterClauses {
        FilterClauses(condition: condition, orderBy: orderList?.orderTerms ?? [], limit: limit?.asExpression(),
                      offset: offset?.asExpression())
    }

    // MARK: - Public insert

    /// Inserts objects; fails on a conflict. Several objects are inserted in one transaction.
    /// With `on:`, only those columns are written and the others take their defaults.
    ///
    ///     try database.insert(objects: object, intoTable: "sampleTable")
    public func insert<Object: TableEncodable>(objects: [Object], on properties: [PropertyConvertible]? = nil,
                                               intoTable table: String) throws {
        try insertObjects(objects, on: properties, into: table, conflict: nil)
    }

    /// Inserts objects; fails on a conflict.
    public func insert<Object: TableEncodable>(objects: Object..., on properties: [PropertyConvertible]? = nil,
                                               intoTable table: String) throws {
        try insertObjects(objects, on: properties, into: table, conflict: nil)
    }

    /// Inserts objects, writing only the columns listed in `on:`.
    public func insert<Object: TableEncodable>(objects: [Object], on properties: PropertyConvertible...,
                                               intoTable table: String) throws {
        try insertObjects(objects, on: properties, into: table, conflict: nil)
    }

    /// Inserts objects, writing only the columns listed in `on:`.
    public func insert<Object: TableEncodable>(objects: Object..., on properties: PropertyConvertible...,
                                               intoTable table: String) throws {
        try insertObjects(objects, on: properties, into: table, conflict: nil)
    }

    /// Inserts objects, replacing rows whose primary key or unique columns collide.
    public func insertOrReplace<Object: TableEncodable>(objects: [Object], on properties: [PropertyConvertible]? = nil,
                                                        intoTable table: String) throws {
        try insertObjects(objects, on: properties, into: table, conflict: .replace)
    }

    /// Inserts objects, replacing rows whose primary key or unique columns collide.
    public func insertOrReplace<Object: TableEncodable>(objects: Object..., on properties: [PropertyConvertible]? = nil,
                                                        intoTable table: String) throws {
        try insertObjects(objects, on: properties, into: table, conflict: .replace)
    }

    /// Inserts or replaces objects, writing only the columns listed in `on:`.
    public func insertOrReplace<Object: TableEncodable>(objects: [Object], on properties: PropertyConvertible...,
                                                        intoTable table: String) throws {
        try insertObjects(objects, on: properties, into: table, conflict: .replace)
    }

    /// Inserts or replaces objects, writing only the columns listed in `on:`.
    public func insertOrReplace<Object: TableEncodable>(objects: Object..., on properties: PropertyConvertible...,
                                                        intoTable table: String) throws {
        try insertObjects(objects, on: properties, into: table, conflict: .replace)
    }

    // MARK: - Public delete

    /// Deletes the rows of `table` that match `condition`, taken in `orderList` order, skipping `offset`, at most `limit`.
    ///
    ///     try database.delete(fromTable: "sampleTable", where: Sample.Properties.identifier > 1)
    public func delete(fromTable table: String, where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                       limit: Limit? = nil, offset: Offset? = nil) throws {
        let statement = StatementDelete().delete(fromTable: table)
        let clauses = filter(condition, orderList, limit, offset)
        statement.filter = try read { handle in try plainFilter(clauses, of: table, on: handle) }
        try exec(statement)
    }

    // MARK: - Public update

    /// Sets the `on:` columns of the matching rows to `object`'s values.
    ///
    ///     try database.update(table: "sampleTable", on: Sample.Properties.description, with: object,
    ///                         where: Sample.Properties.identifier > 1)
    public func update<Object: TableEncodable>(table: String, on properties: [PropertyConvertible], with object: Object,
                                               where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                                               limit: Limit? = nil, offset: Offset? = nil) throws {
        try updateRows(table, on: properties, with: object, filter: filter(condition, orderList, limit, offset))
    }

    /// Sets the `on:` columns of the matching rows to `object`'s values.
    public func update<Object: TableEncodable>(table: String, on properties: PropertyConvertible..., with object: Object,
                                               where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                                               limit: Limit? = nil, offset: Offset? = nil) throws {
        try updateRows(table, on: properties, with: object, filter: filter(condition, orderList, limit, offset))
    }

    /// Sets the `on:` columns of the matching rows to the values of `row`, in order.
    ///
    ///     let row: [ColumnEncodable] = ["update"]
    ///     try database.update(table: "sampleTable", on: Sample.Properties.description, with: row, limit: 3)
    public func update(table: String, on properties: [PropertyConvertible], with row: [ColumnEncodable],
                       where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                       limit: Limit? = nil, offset: Offset? = nil) throws {
        try updateRows(table, on: properties, with: row, filter: filter(condition, orderList, limit, offset))
    }

    /// Sets the `on:` columns of the matching rows to the values of `row`, in order.
    public func update(table: String, on properties: PropertyConvertible..., with row: [ColumnEncodable],
                       where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                       limit: Limit? = nil, offset: Offset? = nil) throws {
        try updateRows(table, on: properties, with: row, filter: filter(condition, orderList, limit, offset))
    }
}
