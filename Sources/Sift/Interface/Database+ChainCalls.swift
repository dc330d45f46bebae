import CSQLite

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
