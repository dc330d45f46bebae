extension Database {
    /// Creates the table and indexes of `rootType` (`IF NOT EXISTS`), or upgrades an existing table:
    /// declared columns it lacks are added, columns the binding no longer declares are left alone
    /// (their data stays), and missing indexes are created. All in one transaction.
    ///
    ///     try database.create(table: "sampleTable", of: Sample.self)
    public func create<Root: TableDecodable>(table name: String, of rootType: Root.Type) throws {
        try createTable(named: name, binding: Root.CodingKeys.objectRelationalMapping)
    }

    /// Creates the table and indexes of an encode-only model.
    public func create<Root: TableEncodable>(table name: String, of rootType: Root.Type) throws {
        try createTable(named: name, binding: Root.CodingKeys.objectRelationalMapping)
    }

    /// Creates the table and indexes of a model that is both encodable and decodable.
    public func create<Root: TableCodable>(table name: String, of rootType: Root.Type) throws {
        try createTable(named: name, binding: Root.CodingKeys.objectRelationalMapping)
    }

    /// Creates or upgrades `name`. `inMigrationStep`: a migration step's end follows the table (its indexes and
    /// compressed columns, with the step's renames), so newly compressed columns are not followed here.
    func createTable<Key: CodingTableKey>(named name: String, binding: TableBinding<Key>, inMigrationStep: Bool = false) throws {
        try write { handle in
            switch try handle.schemaType(of: name) {
            case nil:
                let create = StatementCreateTable().create(
                    table: name, with: binding.keys.indices.map { ColumnDefinition(sql: binding.columnDefinition(at: $0)) },
                    and: binding.tableConstraints)
                try handle.execute(create.statementSQL.sql)
            case "table":
                let existing = Set(try handle.columnNames(of: name).map { $0.lowercased() })
                for ordinal in binding.keys.indices where !existing.contains(binding.columnNames[ordinal].lowercased()) {
                    let definition = Database.addableColumnDefinition(binding, ordinal)
                    try handle.execute(StatementAlterTable(table: name, addColumn: definition).statementSQL.sql)
                }
            case let other?:
                throw pool.report(SiftError(code: .error, message: "\(name) exists as a \(other), not a table.",
                                            path: path, tag: tag, operation: .schema))
            }
            for (suffix, index) in binding.indexes {
                let create = StatementCreateIndex().create(index: binding.indexName(suffix, table: name), isUnique: index.isUnique)
                    .on(name, indexesBy: index.columns)
                try handle.execute(create.statementSQL.sql)
            }
            // Declared compression is recorded (an existing table's new compressed columns are followed by its
            // indexes); the decompressing view is remade so that it shows the columns just added.
            if !binding.compressions.isEmpty {
                try declareCompression(binding.compressions, of: name, followingIndexes: !inMigrationStep, on: handle)
            } else if try !CompressedColumns.load(name, on: handle).isEmpty {
                try CompressedColumns.makeView(of: name, on: handle)
            }
        }
    }

    /// `ALTER TABLE ADD COLUMN` cannot add primary keys or unique columns; they keep their type and defaults.
    static func addableColumnDefinition<Key: CodingTableKey>(_ binding: TableBinding<Key>, _ ordinal: Int) -> ColumnDefinition {
        let constraint = binding.columnConstraints[ordinal]
        let addable = constraint.map {
            ColumnConstraintBinding(isNotNull: $0.isNotNull && $0.defaultValue != nil, defaultTo: $0.defaultValue)
        }
        return ColumnDefinition(name: binding.columnNames[ordinal], type: binding.columnTypes[ordinal], constraint: addable)
    }

    /// Whether a table (or view) called `name` exists.
    public func isTableExists(_ name: String) throws -> Bool {
        try read { try $0.schemaType(of: name) != nil }
    }

    /// Drops the table `name` if it exists.
    public func drop(table name: String) throws {
        try writeWithoutTransaction { try $0.execute(StatementDrop(table: name).statementSQL.sql) }
    }

    /// Drops the index `name` if it exists.
    public func drop(index name: String) throws {
        try writeWithoutTransaction { try $0.execute(StatementDrop(index: name).statementSQL.sql) }
    }
}
