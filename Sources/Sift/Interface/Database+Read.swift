import CSQLite

extension Database {
    /// Reads objects with one statement: columns are decoded straight into `Object`, no per-row lookups.
    func selectObjects<Object: TableDecodable>(_ type: Object.Type, on properties: [PropertyConvertible]?, from table: String,
                                               filter: FilterClauses, distinct: Bool = false) throws -> [Object] {
        let binding = Object.CodingKeys.objectRelationalMapping
        return try read { handle in
            // A table with compressed columns is read through its view, which decompresses them (conditions too).
            let (statement, ordinals) = selectStatement(binding, properties, try CompressedColumns.source(of: table, on: handle),
                                                        filter, distinct)
            let rendered = statement.statementSQL
            let decoder = RowDecoder(binding: binding, ordinals: ordinals)
            return try handle.withStatement(rendered.sql) { stmt in
                try handle.bind(rendered.values, to: stmt, sql: rendered.sql)
                return try decoder.decodeRows(Object.self, from: stmt) { try handle.step(stmt) }
            }
        }
    }

    func selectStatement<Key: CodingTableKey>(_ binding: TableBinding<Key>, _ properties: [PropertyConvertible]?, _ table: String,
                                              _ filter: FilterClauses, _ distinct: Bool) -> (StatementSelect, [Int?]) {
        let requested = properties?.map { $0.asProperty() } ?? []
        let columns = requested.isEmpty ? binding.columnNames.map { Column(named: $0).asProperty() } : requested
        let statement = StatementSelect().select(distinct: distinct, columns).from(table)
        statement.filter = filter
        return (statement, columns.map { binding.ordinal(ofColumn: $0.name) })
    }

    func selectRows(on results: [ColumnResultConvertible], from table: String, filter: FilterClauses,
                    distinct: Bool = false) throws -> FundamentalRowXColumn {
        return try read { handle in
            let statement = StatementSelect().select(distinct: distinct, results).from(try CompressedColumns.source(of: table, on: handle))
            statement.filter = filter
            let rendered = statement.statementSQL
            return try handle.withStatement(rendered.sql) { stmt in
                try handle.bind(rendered.values, to: stmt, sql: rendered.sql)
                let count = sqlite3_column_count(stmt)
                var rows: FundamentalRowXColumn = []
                while try handle.step(stmt) {
                    rows.append((0..<count).map { RawStatement.value(stmt, $0) })
                }
                return rows
            }
        }
    }

    // MARK: - Objects

    /// Objects of `table` matching `condition`; the result type picks the model.
    ///
    ///     let objects: [Sample] = try database.getObjects(fromTable: "sampleTable",
    ///                                                    where: Sample.Properties.identifier < 5)
    public func getObjects<Object: TableDecodable>(on properties: [PropertyConvertible], fromTable table: String,
                                                   where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                                                   limit: Limit? = nil, offset: Offset? = nil) throws -> [Object] {
        try selectObjects(Object.self, on: properties, from: table, filter: filter(condition, orderList, limit, offset))
    }

    /// Objects of `table`, reading only the `on:` columns (all when none are given).
    public func getObjects<Object: TableDecodable>(on properties: PropertyConvertible..., fromTable table: String,
                                                   where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                                                   limit: Limit? = nil, offset: Offset? = nil) throws -> [Object] {
        try selectObjects(Object.self, on: properties, from: table, filter: filter(condition, orderList, limit, offset))
    }

    /// Objects of `table`, reading only the listed columns (the table named first).
    public func getObjects<Object: TableDecodable>(fromTable table: String, on property: PropertyConvertible,
                                                   _ more: PropertyConvertible..., where condition: Condition? = nil,
                                                   orderBy orderList: OrderByList? = nil, limit: Limit? = nil,
                                                   offset: Offset? = nil) throws -> [Object] {
        try selectObjects(Object.self, on: [property] + more, from: table, filter: filter(condition, orderList, limit, offset))
    }

    /// The first matching object, or nil.
    ///
    ///     let object: Sample? = try database.getObject(fromTable: "sampleTable",
    ///                                                 orderBy: Sample.Properties.identifier.asOrder(by: .descending))
    public func getObject<Object: TableDecodable>(on properties: [PropertyConvertible], fromTable table: String,
                                                  where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                                                  offset: Offset? = nil) throws -> Object? {
        try selectObjects(Object.self, on: properties, from: table, filter: filter(condition, orderList, 1, offset)).first
    }

    /// The first matching object, reading only the `on:` columns (all when none are given).
    public func getObject<Object: TableDecodable>(on properties: PropertyConvertible..., fromTable table: String,
                                                  where condition: Condition? = nil, orderBy orderList: OrderByList? = nil,
                                                  offset: Offset? = nil) throws -> Object? {
        try selectObjects(Object.self, on: properties, from: table, filter: filter(condition, orderList, 1, offset)).first
    }

    // MARK: - Values

    /// All matching rows of the `on:` results (every column when none are given).
    ///
    ///     let allRows = try database.getRows(fromTable: "sampleTable")
    ///     print(allRows[row: 2, column: 0].int32Value)
    public func getRows(on results: [ColumnResultConvertible], fromTable table: String, where condition: Condition? = nil,
                        orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalRowXColumn {
        try selectRows(on: results, from: table, filter: filter(condition, orderList, limit, offset))
    }

    /// All matching rows of the `on:` results (every column when none are given).
    public func getRows(on results: ColumnResultConvertible..., fromTable table: String, where condition: Condition? = nil,
                        orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalRowXColumn {
        try selectRows(on: results, from: table, filter: filter(condition, orderList, limit, offset))
    }

    /// The first matching row (empty when there is none).
    public func getRow(on results: [ColumnResultConvertible], fromTable table: String, where condition: Condition? = nil,
                       orderBy orderList: OrderByList? = nil, offset: Offset? = nil) throws -> FundamentalRow {
        try selectRows(on: results, from: table, filter: filter(condition, orderList, 1, offset)).first ?? []
    }

    /// The first matching row (empty when there is none).
    public func getRow(on results: ColumnResultConvertible..., fromTable table: String, where condition: Condition? = nil,
                       orderBy orderList: OrderByList? = nil, offset: Offset? = nil) throws -> FundamentalRow {
        try selectRows(on: results, from: table, filter: filter(condition, orderList, 1, offset)).first ?? []
    }

    /// One column of the matching rows.
    public func getColumn(on result: ColumnResultConvertible, fromTable table: String, where condition: Condition? = nil,
                          orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalColumn {
        try selectRows(on: [result], from: table, filter: filter(condition, orderList, limit, offset)).map { $0[0] }
    }

    /// One column of the matching rows, without duplicates.
    public func getDistinctColumn(on result: ColumnResultConvertible, fromTable table: String, where condition: Condition? = nil,
                                  orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalColumn {
        try selectRows(on: [result], from: table, filter: filter(condition, orderList, limit, offset), distinct: true).map { $0[0] }
    }

    /// One value: the `on:` result of the first matching row (NULL when there is none).
    ///
    ///     let maxIdentifier = try database.getValue(on: Sample.Properties.identifier.max(), fromTable: "sampleTable")
    public func getValue(on result: ColumnResultConvertible, fromTable table: String, where condition: Condition? = nil,
                         orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalValue {
        try selectRows(on: [result], from: table, filter: filter(condition, orderList, limit ?? 1, offset)).first?.first ?? .null
    }

    /// One value of the distinct results (NULL when there is none).
    public func getDistinctValue(on result: ColumnResultConvertible, fromTable table: String, where condition: Condition? = nil,
                                 orderBy orderList: OrderByList? = nil, limit: Limit? = nil, offset: Offset? = nil) throws -> FundamentalValue {
        try selectRows(on: [result], from: table, filter: filter(condition, orderList, limit ?? 1, offset), distinct: true).first?.first ?? .null
    }
}
