import CSQLite

extension Database {
    /// Creates the FTS5 table declared by `rootType`'s `virtualTableBinding` (`IF NOT EXISTS`).
    ///
    ///     try database.create(virtualTable: "notes", of: Note.self)
    public func create<Root: TableDecodable>(virtualTable name: String, of rootType: Root.Type) throws {
        try writeSingle { handle in
            try handle.execute(try Database.createVirtualTable(name, Root.CodingKeys.objectRelationalMapping, extra: []).statementSQL.sql)
        }
    }

    /// Creates an FTS5 index over `contentTable` (external content keyed by its integer primary key) and
    /// records the pairing in the database, so every later `Database` on this file keeps it in sync.
    /// Rows already in the content table are indexed. `rootType` names the indexed columns, which must
    /// exist in the content table.
    ///
    ///     try database.create(table: "articles", of: Article.self)
    ///     try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
    ///
    /// `tokenizer` overrides the binding's `tokenize` argument, for tools that choose it at run time.
    public func create<Root: TableDecodable>(virtualTable name: String, of rootType: Root.Type, syncedWith contentTable: String,
                                             mode: SyncMode = .explicit, tokenizer: String? = nil) throws {
        let binding = Root.CodingKeys.objectRelationalMapping
        try write { handle in
            guard try Database.schemaType(of: contentTable, on: handle) == "table" else {
                throw pool.report(SiftError(code: .error, message: "The content table \(contentTable) does not exist.",
                                            path: path, tag: tag, operation: .schema))
            }
            let contentColumns = try Database.columnNames(of: contentTable, on: handle)
            let missing = binding.columnNames.filter { !contentColumns.contains($0) }
            guard missing.isEmpty else {
                throw pool.report(SiftError(code: .error, message: "\(contentTable) has no column \(missing.joined(separator: ", ")) to index.",
                                            path: path, tag: tag, operation: .schema))
            }
            let rowid = try Database.integerPrimaryKey(of: contentTable, on: handle) ?? "rowid"
            let synced = SyncedIndex(index: name, content: contentTable, rowidColumn: rowid, columns: binding.columnNames, mode: mode)
            let existed = try handle.withStatement("SELECT 1 FROM sqlite_master WHERE name = ?") { stmt in
                try handle.bind([FundamentalValue(name)], to: stmt, sql: "")
                return try handle.step(stmt)
            }
            try handle.execute(try Database.createVirtualTable(name, binding, extra: [
                ModuleArgument(withContentTable: contentTable), ModuleArgument(withContentRowID: rowid),
            ], tokenizer: tokenizer).statementSQL.sql)
            try handle.execute(SyncedIndex.createMetadataSQL)
            try handle.execute("INSERT OR REPLACE INTO sift_fts_sync VALUES(?, ?, ?, ?, ?)", [
                FundamentalValue(name), FundamentalValue(contentTable), FundamentalValue(rowid),
                FundamentalValue(binding.columnNames.joined(separator: "\u{1F}")), FundamentalValue(mode.rawValue),
            ])
            for sql in synced.dropTriggerSQL { try handle.execute(sql) }
            if mode == .trigger { for sql in synced.triggerSQL { try handle.execute(sql) } }
            if !existed { try handle.execute("INSERT INTO \(SQLBuilder.quote(name))(\(SQLBuilder.quote(name))) VALUES('rebuild')") }
        }
    }

    static func createVirtualTable<Key: CodingTableKey>(_ name: String, _ binding: TableBinding<Key>, extra: [ModuleArgument],
                                                        tokenizer: String? = nil) throws -> StatementCreateVirtualTable {
        guard let virtual = binding.virtualTable else {
            throw SiftError.misuse("\(Key.Root.self) declares no virtualTableBinding.", operation: .schema)
        }
        var arguments = virtual.arguments
        if let tokenizer { arguments = arguments.filter { $0.key != "tokenize" } + [ModuleArgument(withTokenize: tokenizer)] }
        let given = Set(arguments.map(\.key))
        return StatementCreateVirtualTable().create(
            virtualTable: name, using: virtual.module,
            columns: binding.keys.indices.map { binding.columnDefinition(at: $0, forVirtualTable: true) },
            arguments: arguments + extra.filter { !given.contains($0.key) })
    }

    /// The INTEGER PRIMARY KEY column of a table (its rowid alias), if it has one.
    static func integerPrimaryKey(of table: String, on handle: Handle) throws -> String? {
        try handle.withStatement("SELECT name, upper(type), (SELECT count(*) FROM pragma_table_info(?1) WHERE pk > 0) FROM pragma_table_info(?1) WHERE pk = 1") { stmt in
            try handle.bind([FundamentalValue(table)], to: stmt, sql: "")
            guard try handle.step(stmt), RawStatement.text(stmt, 1) == "INTEGER", sqlite3_column_int64(stmt, 2) == 1 else { return nil }
            return RawStatement.text(stmt, 0)
        }
    }

    /// From how many objects an insert into a synced content table takes the bulk path: content rows
    /// first, then the index built from them in one pass (measured faster than row-by-row from here on).
    public var fullTextBulkThreshold: Int {
        get { pool.fullTextBulkThreshold }
        set { pool.fullTextBulkThreshold = newValue }
    }

    // MARK: - Maintenance

    private func command(_ index: String, _ command: String, _ rank: Int? = nil) throws {
        let q = SQLBuilder.quote(index)
        try write { handle in
            if let rank {
                try handle.execute("INSERT INTO \(q)(\(q), rank) VALUES(?, ?)", [FundamentalValue(command), FundamentalValue(rank)])
            } else {
                try handle.execute("INSERT INTO \(q)(\(q)) VALUES(?)", [FundamentalValue(command)])
            }
        }
    }

    /// Rebuilds a full-text index from its content table.
    public func rebuild(index: String) throws { try command(index, "rebuild") }

    /// Merges all of an index's segments into one: the fastest index to query, at a one-off cost.
    public func optimize(index: String) throws { try command(index, "optimize") }

    /// Does up to `pages` pages of incremental merge work, for writers that want to spread it out.
    public func merge(index: String, pages: Int = 500) throws { try command(index, "merge", pages) }

    /// FTS5's automatic merge policy: merge once `automerge` segments of a level exist (0 turns it off),
    /// and force a merge at `crisisMerge` segments. Stored in the index, so it applies to every writer.
    public func setMergePolicy(index: String, automerge: Int = 4, crisisMerge: Int = 16) throws {
        try command(index, "automerge", automerge)
        try command(index, "crisismerge", crisisMerge)
    }

    /// Checks an index: FTS5's integrity check (against the content table for external content)
    /// and the number of indexed rows against the number of content rows.
    public func verify(index: String) throws -> IndexVerification {
        let q = SQLBuilder.quote(index)
        return try write { handle in
            var problems: [String] = []
            do {
                try handle.execute("INSERT INTO \(q)(\(q), rank) VALUES('integrity-check', 1)")
            } catch let error as SiftError {
                problems.append("integrity-check: \(error.message)")
            }
            let synced = try SyncedIndex.load(on: handle).first { $0.index == index }
            let indexed = try Database.count("SELECT count(*) FROM \(SQLBuilder.quote(index + "_docsize"))", on: handle)
            let content = try synced.map { try Database.count("SELECT count(*) FROM \(SQLBuilder.quote($0.content))", on: handle) }
            if let content, content != indexed { problems.append("\(indexed) rows indexed, \(content) content rows") }
            return IndexVerification(indexedRows: indexed, contentRows: content, problems: problems)
        }
    }

    static func count(_ sql: String, on handle: Handle) throws -> Int {
        try handle.withStatement(sql) { stmt in try handle.step(stmt) ? Int(sqlite3_column_int64(stmt, 0)) : 0 }
    }

    /// The synced indexes recorded in this database.
    public func syncedIndexes() throws -> [(index: String, contentTable: String, mode: SyncMode)] {
        try read { handle in try SyncedIndex.load(on: handle).map { ($0.index, $0.content, $0.mode) } }
    }
}

/// What ``Database/verify(index:)`` found.
public struct IndexVerification: Sendable, CustomStringConvertible {
    /// Rows in the index.
    public let indexedRows: Int
    /// Rows in the content table (nil when the index has no content table).
    public let contentRows: Int?
    /// Everything that is wrong; empty when the index is consistent.
    public let problems: [String]
    /// Whether the index and its content agree.
    public var isConsistent: Bool { problems.isEmpty }
    /// A readable rendering.
    public var description: String {
        isConsistent ? "consistent (\(indexedRows) rows)" : problems.joined(separator: "; ")
    }
}
