/// What one step of `migrate(table:of:toVersion:_:)` can do to its table, inside the step's transaction.
///
/// The model passed to `migrate` is the table's target: new columns come from its binding (type, constraints,
/// default), and a rebuild gives the table its definition. Every method runs at once, on the step's connection;
/// when the step returns, the model's columns the table still lacks are added, its indexes created, the synced
/// full-text indexes over the table brought up to date, and the new version recorded, all before the commit.
///
///     try database.migrate(table: "user", of: User.self, toVersion: 3) { migrator in
///         switch migrator.version {
///         case 1: try migrator.renameProperty(from: "sex", to: "gender")
///         case 2: try migrator.combineProperties("lastName", separator: ", ", "firstName", into: "fullName")
///         case 3:
///             let messages = StatementSelect().select(Column.all.count()).from("chat")
///                 .where(Column(named: "userId", table: "chat") == Column(named: "id", table: "user"))
///             try migrator.update(property: "msgCount", with: messages)
///         default: break
///         }
///     }
public final class Migrator {
    /// The database; its methods called inside the step run in the step's transaction.
    public let database: Database
    /// The table being migrated.
    public let table: String
    /// The version this step migrates the table to.
    public let version: Int
    /// The model's primary-key columns (seed: `primaryKey`).
    public var primaryKey: [String] { model.primaryKey }
    /// The version the table had before this step.
    public var fromVersion: Int { version - 1 }

    let handle: Handle
    let model: MigrationModel
    /// Columns this step renamed: each original name to its current name.
    private(set) var renamedColumns: [String: String] = [:]

    init(database: Database, handle: Handle, table: String, version: Int, model: MigrationModel) {
        self.database = database
        self.handle = handle
        self.table = table
        self.version = version
        self.model = model
    }

    /// The table's columns as they are now, in order.
    public func columnNames() throws -> [String] { try handle.columnNames(of: table) }

    // MARK: - Moving data

    /// Renames the column `old` to `new`, keeping its data, type, constraints and the indexes over it
    /// (`ALTER TABLE ... RENAME COLUMN`). When the table already has `new` (added by an earlier step or by
    /// `create(table:of:)`), `old`'s values are copied into it and `old` is dropped by a rebuild. When `old` is
    /// gone and `new` exists, the rename already happened and nothing is done.
    ///
    ///     try migrator.renameProperty(from: "sex", to: "gender")
    public func renameProperty(from old: String, to new: String) throws {
        let columns = try columnNames()
        switch (columns.contains(old), columns.contains(new)) {
        case (true, false):
            try handle.execute("ALTER TABLE \(q(table)) RENAME COLUMN \(q(old)) TO \(q(new))")
        case (true, true):
            try handle.execute("UPDATE \(q(table)) SET \(q(new)) = \(q(old))")
            try rebuild(dropping: [old], converting: [:])
        case (false, true):
            return
        case (false, false):
            throw misuse("\(table) has no column \(old) to rename.")
        }
        recordRename(old, new)
    }

    /// Sets `target` to `first + separator + second` in every row (the other one alone when one is NULL), adding
    /// `target` first when the table lacks it (the model must declare it). The two sources stay.
    ///
    ///     // "Jackson, Michael"
    ///     try migrator.combineProperties("lastName", separator: ", ", "firstName", into: "fullName")
    public func combineProperties(_ first: String, separator: String, _ second: String, into target: String) throws {
        let columns = try columnNames()
        for source in [first, second] where !columns.contains(source) {
            throw misuse("\(table) has no column \(source) to combine.")
        }
        try addProperty(target)
        try handle.execute("UPDATE \(q(table)) SET \(q(target)) = CASE WHEN \(q(first)) IS NULL THEN \(q(second)) "
                           + "WHEN \(q(second)) IS NULL THEN \(q(first)) ELSE \(q(first)) || ? || \(q(second)) END",
                           [FundamentalValue(separator)])
    }

    /// Sets `property` to `value` in the rows that match `condition` (every row by default), adding the column
    /// first when the table lacks it (the model must declare it). `value` is any expression over the row: another
    /// column, a function, or a select over other tables, which is how a new property is filled from them.
    ///
    ///     // each user's message count, from the chat table
    ///     let messages = StatementSelect().select(Column.all.count()).from("chat")
    ///         .where(Column(named: "userId", table: "chat") == Column(named: "id", table: "user"))
    ///     try migrator.update(property: "msgCount", with: messages)
    public func update(property: String, with value: ExpressionConvertible, where condition: Condition? = nil) throws {
        try addProperty(property)
        let update = StatementUpdate().update(table: table).set(Column(named: property), to: value).where(condition).statementSQL
        try handle.execute(update.sql, update.values)
    }

    /// Adds the model's column `name` now, when the table lacks it (otherwise it is added when the step ends).
    public func addProperty(_ name: String) throws {
        guard try !columnNames().contains(name) else { return }
        guard let definition = model.addableDefinitions[name] else {
            throw misuse("The model of \(table) declares no property \(name).")
        }
        try handle.execute(StatementAlterTable(table: table, addColumn: definition).statementSQL.sql)
    }

    /// Runs one SQL statement, with `values` bound to its `?` parameters: the escape hatch for what the other
    /// methods do not cover. There is no intermediate table (as AHDataModel's migrator has): statements name ``table`` itself.
    ///
    ///     try migrator.exec(sql: "UPDATE user SET score = score * ? WHERE score > 0", values: [10])
    public func exec(sql: String, values: [ColumnEncodable] = []) throws {
        try handle.execute(sql, values.map { $0.archivedValue() })
    }

    // MARK: - Rebuilding

    /// Drops the columns `names`, which the model must no longer declare, by rebuilding the table (see
    /// ``rebuildTable(converting:)``); the table's other columns and their data stay.
    ///
    ///     try migrator.dropProperties("nickname", "legacyFlags")
    public func dropProperties(_ names: String...) throws {
        try rebuild(dropping: names, converting: [:])
    }

    /// Gives the table the model's definition through SQLite's table rebuild (https://sqlite.org/lang_altertable.html
    /// section 7): a new table is created from the model's binding (column types, constraints, table constraints
    /// and foreign keys), rows are copied with their rowids, the old table is dropped, the new one renamed, the
    /// model's indexes and the table's other indexes and triggers recreated. It is how a column changes type or
    /// constraints. Columns the model does not declare stay, as plain columns with their type, NOT NULL and default.
    /// Each new column takes the old column of its name, or `converting[name]`, an expression over the old row,
    /// or else its default. Foreign keys are checked (`PRAGMA foreign_key_check`) before the step commits.
    ///
    ///     // score was TEXT; the model now declares an Int
    ///     try migrator.rebuildTable(converting: ["score": Column(named: "score").cast(as: .integer64)])
    public func rebuildTable(converting: [String: ExpressionConvertible] = [:]) throws {
        try rebuild(dropping: [], converting: converting)
    }

    private func rebuild(dropping: [String], converting: [String: ExpressionConvertible]) throws {
        let old = try columnInfo()
        let oldNames = Set(old.map(\.name))
        let modelNames = Set(model.columnNames)
        for name in dropping where modelNames.contains(name) {
            throw misuse("The model of \(table) still declares \(name): remove it from CodingKeys to drop it.")
        }
        for name in converting.keys where !modelNames.contains(name) {
            throw misuse("The model of \(table) declares no property \(name) to convert.")
        }
        let kept = old.filter { !modelNames.contains($0.name) && !dropping.contains($0.name) }
        let temporary = "sift_migrating_" + table
        let savedIndexes = try schemaObjects(type: "index")
        let savedTriggers = try schemaObjects(type: "trigger")

        try handle.execute("DROP TABLE IF EXISTS \(q(temporary))")
        let create = StatementCreateTable().create(
            table: temporary, ifNotExists: false,
            with: model.columnDefinitions + kept.map { ColumnDefinition(sql: $0.definition) }, and: model.tableConstraints)
        try handle.execute(create.statementSQL.sql)

        var targets: [String] = []
        var sources: [ExpressionConvertible] = []
        if model.integerPrimaryKey == nil && !oldNames.contains(where: { ["rowid", "_rowid_", "oid"].contains($0.lowercased()) }) {
            targets.append("rowid")
            sources.append(Column(named: "rowid"))
        }
        for name in model.columnNames + kept.map(\.name) {
            if let conversion = converting[name] {
                targets.append(name)
                sources.append(conversion)
            } else if oldNames.contains(name) {
                targets.append(name)
                sources.append(Column(named: name))
            }
        }
        let select = StatementSelect().select(sources).from(table).statementSQL
        try handle.execute("INSERT INTO \(q(temporary))(\(targets.map(q).joined(separator: ", "))) " + select.sql, select.values)
        try handle.execute("DROP TABLE \(q(table))")
        // Views over the table would make a plain rename fail (it checks them while the table is missing), and
        // nothing refers to the temporary name: rename the legacy way.
        let legacy = try handle.count("PRAGMA legacy_alter_table") == 1
        if !legacy { try handle.execute("PRAGMA legacy_alter_table = ON") }
        do {
            try handle.execute(StatementAlterTable(table: temporary, renameTo: table).statementSQL.sql)
        } catch {
            if !legacy { try? handle.execute("PRAGMA legacy_alter_table = OFF") }
            throw error
        }
        if !legacy { try handle.execute("PRAGMA legacy_alter_table = OFF") }

        let present = Set(try columnNames())
        let modelIndexNames = Set(model.indexes.map(\.name))
        for index in model.indexes { try handle.execute(index.sql) }
        for index in savedIndexes where !modelIndexNames.contains(index.name) && index.columns.allSatisfy(present.contains) {
            try handle.execute(index.sql)
        }
        for trigger in savedTriggers { try handle.execute(trigger.sql) }
    }

    // MARK: - Helpers

    private struct ColumnInfo {
        let name: String
        let definition: String
    }

    private func columnInfo() throws -> [ColumnInfo] {
        try handle.withStatement("SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info(?)") { stmt in
            try handle.bind([FundamentalValue(table)], to: stmt, sql: "")
            var columns: [ColumnInfo] = []
            while try handle.step(stmt) {
                let name = RawStatement.text(stmt, 0)
                var definition = q(name)
                let type = RawStatement.text(stmt, 1)
                if !type.isEmpty { definition += " " + type }
                if RawStatement.text(stmt, 2) == "1" { definition += " NOT NULL" }
                let defaultValue = RawStatement.text(stmt, 3)
                if !defaultValue.isEmpty { definition += " DEFAULT " + defaultValue }
                columns.append(ColumnInfo(name: name, definition: definition))
            }
            return columns
        }
    }

    /// The table's indexes or triggers with their SQL (automatic indexes have none) and, for indexes, the columns.
    private func schemaObjects(type: String) throws -> [(name: String, sql: String, columns: [String])] {
        let objects = try handle.withStatement(
            "SELECT name, sql FROM sqlite_master WHERE type = ? AND tbl_name = ? AND sql IS NOT NULL") { stmt in
            try handle.bind([FundamentalValue(type), FundamentalValue(table)], to: stmt, sql: "")
            var objects: [(String, String)] = []
            while try handle.step(stmt) { objects.append((RawStatement.text(stmt, 0), RawStatement.text(stmt, 1))) }
            return objects
        }
        return try objects.map { name, sql in
            guard type == "index" else { return (name, sql, []) }
            let columns = try handle.withStatement("SELECT name FROM pragma_index_info(?) WHERE name IS NOT NULL") { stmt in
                try handle.bind([FundamentalValue(name)], to: stmt, sql: "")
                var columns: [String] = []
                while try handle.step(stmt) { columns.append(RawStatement.text(stmt, 0)) }
                return columns
            }
            return (name, sql, columns)
        }
    }

    /// Records that the column first called `old` in this step is now `new` (a dropped column maps to itself and
    /// is simply gone from the table).
    private func recordRename(_ old: String, _ new: String) {
        if let original = renamedColumns.first(where: { $0.value == old })?.key {
            renamedColumns[original] = new
        } else {
            renamedColumns[old] = new
        }
    }

    private func q(_ name: String) -> String { SQLBuilder.quote(name) }

    private func misuse(_ message: String) -> SiftError { SiftError.misuse(message, operation: .migration) }
}

/// What a migration needs of the target model's binding, without its key type.
struct MigrationModel {
    let columnNames: [String]
    let columnDefinitions: [ColumnDefinition]
    let addableDefinitions: [String: ColumnDefinition]
    let tableConstraints: [(name: String, binding: TableConstraintBinding)]
    let indexes: [(name: String, sql: String)]
    let integerPrimaryKey: String?
    let primaryKey: [String]

    init<Key: CodingTableKey>(_ binding: TableBinding<Key>, table: String) {
        columnNames = binding.columnNames
        columnDefinitions = binding.keys.indices.map { ColumnDefinition(sql: binding.columnDefinition(at: $0)) }
        var addable: [String: ColumnDefinition] = [:]
        for ordinal in binding.keys.indices {
            addable[binding.columnNames[ordinal]] = Database.addableColumnDefinition(binding, ordinal)
        }
        addableDefinitions = addable
        tableConstraints = binding.tableConstraints
        indexes = binding.indexes.map { suffix, index in
            let name = binding.indexName(suffix, table: table)
            return (name, StatementCreateIndex().create(index: name, isUnique: index.isUnique).on(table, indexesBy: index.columns)
                .statementSQL.sql)
        }
        integerPrimaryKey = binding.integerPrimaryKeyOrdinal.map { binding.columnNames[$0] }
        primaryKey = binding.keys.indices.filter { binding.columnConstraints[$0]?.isPrimary == true }.map { binding.columnNames[$0] }
    }
}
