import CSQLite

/// Versioned migrations: each table's schema version is stored in the database (table `sift_schema_versions`),
/// and `migrate` moves a table from its stored version to the model's, one step per version, each step in a
/// transaction of its own with its version bump.
extension Database {
    static let schemaVersionsTable = "sift_schema_versions"

    /// The schema version recorded for `table`: 0 when none was ever recorded (a table created before it was
    /// versioned, or one that does not exist).
    ///
    ///     let version = try database.schemaVersion(ofTable: "user")
    public func schemaVersion(ofTable table: String) throws -> Int {
        try read { try Database.schemaVersion(of: table, on: $0) }
    }

    /// Brings `table` to `version`, running `step` once per version from the stored version + 1 up to `version`,
    /// with a ``Migrator`` whose ``Migrator/version`` says which step it is. A table that does not exist yet is
    /// created from the model and recorded at `version` without running any step (there is no data to move).
    ///
    /// Each step runs in a transaction of its own (foreign keys off, as SQLite's table rebuild requires, and
    /// checked with `PRAGMA foreign_key_check` before the commit); when the step returns, the model's columns
    /// the table lacks are added, its indexes created, the synced full-text indexes over the table brought up
    /// to date and rebuilt, and the version recorded, all before the commit. Other connections see the old
    /// table and version until then. A step that throws rolls back with everything it did: the table keeps the
    /// version and data it had, and the ``SiftError`` thrown has ``SiftError/Operation/migration`` and the
    /// step's ``SiftError/migrationVersion``. Call it outside any transaction.
    ///
    ///     try database.migrate(table: "user", of: User.self, toVersion: 2) { migrator in
    ///         if migrator.version == 1 { try migrator.renameProperty(from: "sex", to: "gender") }
    ///         if migrator.version == 2 { try migrator.combineProperties("lastName", separator: ", ", "firstName", into: "fullName") }
    ///     }
    public func migrate<Root: TableDecodable>(table name: String, of rootType: Root.Type, toVersion version: Int,
                                              _ step: (Migrator) throws -> Void) throws {
        try migrateTable(named: name, binding: Root.CodingKeys.objectRelationalMapping, toVersion: version, step)
    }

    /// `migrate(table:of:toVersion:_:)` for an encode-only model.
    public func migrate<Root: TableEncodable>(table name: String, of rootType: Root.Type, toVersion version: Int,
                                              _ step: (Migrator) throws -> Void) throws {
        try migrateTable(named: name, binding: Root.CodingKeys.objectRelationalMapping, toVersion: version, step)
    }

    /// `migrate(table:of:toVersion:_:)` for a model that is both encodable and decodable.
    public func migrate<Root: TableCodable>(table name: String, of rootType: Root.Type, toVersion version: Int,
                                            _ step: (Migrator) throws -> Void) throws {
        try migrateTable(named: name, binding: Root.CodingKeys.objectRelationalMapping, toVersion: version, step)
    }

    /// Brings `table` to the highest version in `steps`, running the step registered for each version above the
    /// stored one, in order (a version without a step only records the version). See
    /// `migrate(table:of:toVersion:_:)`.
    ///
    ///     try database.migrate(table: "user", of: User.self, steps: [
    ///         1: { try $0.renameProperty(from: "sex", to: "gender") },
    ///         2: { try $0.combineProperties("lastName", separator: ", ", "firstName", into: "fullName") },
    ///         3: { try $0.update(property: "msgCount", with: messageCount) },
    ///     ])
    public func migrate<Root: TableCodable>(table name: String, of rootType: Root.Type,
                                            steps: [Int: (Migrator) throws -> Void]) throws {
        try migrateTable(named: name, binding: Root.CodingKeys.objectRelationalMapping, toVersion: steps.keys.max() ?? 0) {
            try steps[$0.version]?($0)
        }
    }

    func migrateTable<Key: CodingTableKey>(named table: String, binding: TableBinding<Key>, toVersion target: Int,
                                           _ step: (Migrator) throws -> Void) throws {
        guard target >= 0 else {
            throw pool.report(SiftError.misuse("Schema versions start at 0; \(target) was asked for \(table).", operation: .migration))
        }
        guard !isInTransaction else {
            throw pool.report(SiftError.misuse("migrate(table:) runs each step in a transaction of its own (foreign keys "
                                               + "can only be turned off outside one): call it outside a transaction.",
                                               operation: .migration))
        }
        try pool.withHandle(write: true) { handle in
            guard try handle.schemaType(of: table) != nil else {
                try handle.inTransaction {
                    try createTable(named: table, binding: binding)
                    try Database.setSchemaVersion(target, of: table, on: handle)
                }
                return
            }
            let current = try Database.schemaVersion(of: table, on: handle)
            guard current <= target else {
                throw SiftError(code: .error, message: "\(table) is at schema version \(current), newer than \(target): "
                                + "this database was migrated by a later version of the application.", operation: .migration)
            }
            guard current < target else {
                try createTable(named: table, binding: binding)
                return
            }
            let model = MigrationModel(binding, table: table)
            for version in (current + 1)...target {
                let migrator = Migrator(database: self, handle: handle, table: table, version: version, model: model)
                try runStep(migrator, on: handle) {
                    try step(migrator)
                    try createTable(named: table, binding: binding, inMigrationStep: true)
                }
            }
        }
    }

    /// One step: foreign keys off outside the transaction, the step, the foreign-key check, the version bump and
    /// the observers' follow-up inside it; everything rolls back when any part fails.
    private func runStep(_ migrator: Migrator, on handle: Handle, _ body: () throws -> Void) throws {
        let table = migrator.table, version = migrator.version
        do {
            let foreignKeys = try handle.count("PRAGMA foreign_keys") == 1
            if foreignKeys { try handle.execute("PRAGMA foreign_keys = OFF") }
            defer { if foreignKeys { try? handle.execute("PRAGMA foreign_keys = ON") } }
            try handle.beginTransaction()
            do {
                try handle.observer?.tableMigrationWillBegin(table, on: handle)
                try body()
                if foreignKeys { try Database.checkForeignKeys(on: handle) }
                try Database.setSchemaVersion(version, of: table, on: handle)
                try CompressedColumns.follow(migrationOf: table, renamedColumns: migrator.renamedColumns, on: handle)
                try handle.observer?.tableMigrationWillCommit(table, renamedColumns: migrator.renamedColumns, on: handle)
                try handle.commitTransaction()
            } catch {
                try? handle.rollbackTransaction()
                handle.observer?.tableMigrationDidEnd(table, on: handle)
                throw error
            }
            handle.observer?.tableMigrationDidEnd(table, on: handle)
        } catch {
            throw Database.migrationError(error, table: table, version: version)
        }
    }

    private static func checkForeignKeys(on handle: Handle) throws {
        let violation = try handle.withStatement("SELECT \"table\", rowid, parent FROM pragma_foreign_key_check LIMIT 1") { stmt in
            try handle.step(stmt) ? "a row of \(RawStatement.text(stmt, 0)) (rowid \(RawStatement.text(stmt, 1))) refers to "
                + "a missing row of \(RawStatement.text(stmt, 2))" : nil
        }
        if let violation {
            throw SiftError(code: .constraint, message: "Foreign key check failed: \(violation).", operation: .migration)
        }
    }

    private static func migrationError(_ error: Error, table: String, version: Int) -> SiftError {
        var wrapped: SiftError
        if let error = error as? SiftError {
            wrapped = SiftError(level: error.level, code: error.code, extendedCode: error.extendedCode,
                                message: "Migrating \(table) to version \(version) failed: \(error.message)",
                                sql: error.sql, path: error.path, tag: error.tag, operation: .migration)
        } else {
            wrapped = SiftError(code: .error, message: "Migrating \(table) to version \(version) failed: \(error)", operation: .migration)
        }
        wrapped.migrationVersion = version
        // The error tracer saw the step's error where it left the call inside the step: once is enough.
        wrapped.isReported = (error as? SiftError)?.isReported ?? false
        return wrapped
    }

    static func schemaVersion(of table: String, on handle: Handle) throws -> Int {
        guard try handle.schemaType(of: schemaVersionsTable) == "table" else { return 0 }
        return try handle.withStatement("SELECT version FROM sift_schema_versions WHERE table_name = ?") { stmt in
            try handle.bind([FundamentalValue(table)], to: stmt, sql: "")
            return try handle.step(stmt) ? Int(sqlite3_column_int64(stmt, 0)) : 0
        }
    }

    static func setSchemaVersion(_ version: Int, of table: String, on handle: Handle) throws {
        try handle.execute("CREATE TABLE IF NOT EXISTS sift_schema_versions(table_name TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        try handle.execute("INSERT OR REPLACE INTO sift_schema_versions(table_name, version) VALUES(?, ?)",
                           [FundamentalValue(table), FundamentalValue(Int64(version))])
    }
}

extension TableCodable {
    /// The model-side form, as AHDataModel's `Model.migrate(ToVersion:migrationBlock:)`:
    /// `migrate(table:of:toVersion:_:)` on the table named after the model unless `table` is given.
    ///
    ///     try User.migrate(in: database, toVersion: 1) { migrator in
    ///         try migrator.renameProperty(from: "sex", to: "gender")
    ///     }
    public static func migrate(in database: Database, table: String? = nil, toVersion version: Int,
                               _ step: (Migrator) throws -> Void) throws {
        try database.migrate(table: table ?? String(describing: Self.self), of: Self.self, toVersion: version, step)
    }
}
