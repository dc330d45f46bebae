/// How synced indexes follow a migration step of their content table (see ``Database/migrate(table:of:toVersion:_:)``):
/// when the step is done, inside its transaction, each index over the table is brought to the table's new shape
/// and rebuilt from it.
extension SyncedIndex {
    /// Brings every synced index over `table` up to date after a migration step: an indexed column the step
    /// renamed is renamed in the index, one it dropped leaves the index (an index left with no column is dropped
    /// with its record), a changed rowid column is followed, and the index is rebuilt from the content table, so
    /// `verify(index:)` is clean and searches find the migrated text; the rebuild builds the score bounds anew
    /// (`Handle.rebuildFullTextIndex`). Trigger-synced indexes get their triggers back.
    static func follow(migrationOf table: String, renamedColumns: [String: String], on handle: Handle) throws {
        let indexes = try load(on: handle).filter { $0.content == table }
        guard !indexes.isEmpty else { return }
        let present = Set(try handle.columnNames(of: table))
        let rowid = try handle.integerPrimaryKey(of: table) ?? "rowid"
        for index in indexes {
            let q = SQLBuilder.quote(index.index)
            for sql in index.dropTriggerSQL { try handle.execute(sql) }
            let columns = index.columns.map { renamedColumns[$0] ?? $0 }.filter(present.contains)
            if columns.isEmpty {
                try handle.execute("DROP TABLE IF EXISTS \(q)")
                try handle.execute("DELETE FROM sift_fts_sync WHERE index_table = ?", [FundamentalValue(index.index)])
                try DerivedStructures.indexDropped(index.index, forgettingDeclarations: true, on: handle)
                continue
            }
            try FacetStore.followMigration(of: index.index, renamedColumns: renamedColumns, present: present, on: handle)
            var current = index
            // A table whose columns were compressed (or no longer are) is read through its view (or no longer is).
            let source = try CompressedColumns.source(of: table, on: handle)
            let readsSource = try FTSTableInfo.load(index.index, on: handle).content?.table == source
            if columns != index.columns || rowid != index.rowidColumn || !readsSource {
                let create = try recreatedSQL(of: index.index, renamedColumns: renamedColumns, keeping: present, rowid: rowid,
                                              content: source, on: handle)
                try handle.execute("DROP TABLE \(q)")
                try handle.execute(create)
                try handle.execute("UPDATE sift_fts_sync SET columns = ?, content_rowid = ? WHERE index_table = ?", [
                    FundamentalValue(columns.joined(separator: "\u{1F}")), FundamentalValue(rowid), FundamentalValue(index.index),
                ])
                current = SyncedIndex(index: index.index, content: table, rowidColumn: rowid, columns: columns, mode: index.mode)
            }
            try handle.rebuildFullTextIndex(index.index)
            if current.mode == .trigger { for sql in current.triggerSQL { try handle.execute(sql) } }
        }
    }

    /// The index's `CREATE VIRTUAL TABLE` with its columns renamed or left out and its `content` and `content_rowid`
    /// set, every other argument (tokenizer, prefixes, UNINDEXED) as it was.
    static func recreatedSQL(of index: String, renamedColumns: [String: String], keeping present: Set<String>, rowid: String,
                             content: String, on handle: Handle) throws -> String {
        let sql = try handle.withStatement("SELECT sql FROM sqlite_master WHERE name = ? AND type = 'table'") { stmt -> String in
            try handle.bind([FundamentalValue(index)], to: stmt, sql: "")
            return try handle.step(stmt) ? RawStatement.text(stmt, 0) : ""
        }
        var arguments: [String] = []
        var hasRowid = false
        for argument in ModuleArguments.split(ModuleArguments.body(of: sql)) {
            if let eq = ModuleArguments.topLevelEquals(argument) {
                let key = argument[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
                if key == "content_rowid" {
                    arguments.append("content_rowid=" + SQLBuilder.enclose(rowid, in: UInt8(ascii: "'")))
                    hasRowid = true
                } else if key == "content" {
                    arguments.append("content=" + SQLBuilder.enclose(content, in: UInt8(ascii: "'")))
                } else {
                    arguments.append(String(argument))
                }
                continue
            }
            let words = ModuleArguments.words(argument)
            guard let name = words.first else { continue }
            let renamed = renamedColumns[name] ?? name
            guard present.contains(renamed) else { continue }
            arguments.append(([SQLBuilder.quote(renamed)] + words.dropFirst()).joined(separator: " "))
        }
        if !hasRowid { arguments.append("content_rowid=" + SQLBuilder.enclose(rowid, in: UInt8(ascii: "'"))) }
        return "CREATE VIRTUAL TABLE \(SQLBuilder.quote(index)) USING fts5(\(arguments.joined(separator: ", ")))"
    }
}
