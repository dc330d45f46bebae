import CSQLite

/// How an FTS5 index follows its content table.
public enum SyncMode: String, Sendable {
    /// Sift writes the index itself, in the same transaction, for every change made through Sift.
    /// No triggers: on this SQLite a trigger costs about 3x the explicit index write.
    case explicit
    /// Triggers on the content table keep the index consistent even for programs writing plain SQL. Such programs
    /// must turn on `PRAGMA recursive_triggers` (Sift's connections do) if they use REPLACE: SQLite deletes the rows
    /// a REPLACE conflicts with without firing their delete triggers otherwise, and their words stay in the index.
    case trigger
}

/// One synced index as recorded in the database (`sift_fts_sync`), so every connection knows it.
struct SyncedIndex: Sendable {
    static let metadataTable = "sift_fts_sync"
    static let createMetadataSQL = """
        CREATE TABLE IF NOT EXISTS sift_fts_sync(index_table TEXT PRIMARY KEY, content_table TEXT NOT NULL, \
        content_rowid TEXT NOT NULL, columns TEXT NOT NULL, mode TEXT NOT NULL)
        """

    let index: String
    let content: String
    let rowidColumn: String
    let columns: [String]
    let mode: SyncMode
    /// What FTS5 and Sift read the content rows through: the content table, or its decompressing view when the
    /// table has compressed columns (`CompressedColumns`), so that the index always sees plain text.
    var source: String? = nil
    /// The indexed columns stored compressed (by position in ``columns``): their values reach the index decompressed.
    var compressedColumns: [Int] = []

    /// The content table, or its decompressing view.
    var readSource: String { source ?? content }

    /// `INSERT INTO index(rowid, columns...) VALUES(?...)`.
    var insertSQL: String {
        "INSERT INTO \(SQLBuilder.quote(index))(rowid, \(columns.map(SQLBuilder.quote).joined(separator: ", "))) VALUES(?"
            + String(repeating: ", ?", count: columns.count) + ")"
    }

    /// FTS5's delete command for external content: it needs the old values to find the old tokens.
    var deleteSQL: String {
        "INSERT INTO \(SQLBuilder.quote(index))(\(SQLBuilder.quote(index)), rowid, \(columns.map(SQLBuilder.quote).joined(separator: ", "))) "
            + "VALUES('delete', ?" + String(repeating: ", ?", count: columns.count) + ")"
    }

    /// Indexes the content rows with rowids in a range, in one statement (the bulk path).
    var insertRangeSQL: String {
        let cols = columns.map(SQLBuilder.quote).joined(separator: ", ")
        return "INSERT INTO \(SQLBuilder.quote(index))(rowid, \(cols)) SELECT \(SQLBuilder.quote(rowidColumn)), \(cols) FROM "
            + "\(SQLBuilder.quote(readSource)) WHERE \(SQLBuilder.quote(rowidColumn)) BETWEEN ? AND ?"
    }

    /// Triggers for `.trigger` mode (what GRDB's synchronize generates).
    var triggerSQL: [String] {
        let q = SQLBuilder.quote
        let cols = columns.map(q).joined(separator: ", ")
        let newValues = columns.map { "new." + q($0) }.joined(separator: ", ")
        let oldValues = columns.map { "old." + q($0) }.joined(separator: ", ")
        let prefix = "sift_" + index
        let deleteOld = "INSERT INTO \(q(index))(\(q(index)), rowid, \(cols)) VALUES('delete', old.\(q(rowidColumn)), \(oldValues));"
        let insertNew = "INSERT INTO \(q(index))(rowid, \(cols)) VALUES(new.\(q(rowidColumn)), \(newValues));"
        return [
            "CREATE TRIGGER IF NOT EXISTS \(q(prefix + "_ai")) AFTER INSERT ON \(q(content)) BEGIN \(insertNew) END",
            "CREATE TRIGGER IF NOT EXISTS \(q(prefix + "_ad")) AFTER DELETE ON \(q(content)) BEGIN \(deleteOld) END",
            "CREATE TRIGGER IF NOT EXISTS \(q(prefix + "_au")) AFTER UPDATE OF \(cols), \(q(rowidColumn)) ON \(q(content)) BEGIN \(deleteOld) \(insertNew) END",
        ]
    }

    var dropTriggerSQL: [String] {
        ["_ai", "_ad", "_au"].map { "DROP TRIGGER IF EXISTS " + SQLBuilder.quote("sift_" + index + $0) }
    }

    static func load(on handle: Handle) throws -> [SyncedIndex] {
        guard try handle.schemaType(of: metadataTable) == "table" else { return [] }
        var indexes = try handle.withStatement("SELECT index_table, content_table, content_rowid, columns, mode FROM sift_fts_sync") { stmt in
            var indexes: [SyncedIndex] = []
            while try handle.step(stmt) {
                let columns = RawStatement.text(stmt, 3).split(separator: "\u{1F}").map(String.init)
                indexes.append(SyncedIndex(index: RawStatement.text(stmt, 0), content: RawStatement.text(stmt, 1),
                                           rowidColumn: RawStatement.text(stmt, 2), columns: columns,
                                           mode: SyncMode(rawValue: RawStatement.text(stmt, 4)) ?? .explicit))
            }
            return indexes
        }
        for i in indexes.indices { try indexes[i].readCompression(on: handle) }
        return indexes
    }

    /// Sets ``source`` and ``compressedColumns`` from the content table's compressed columns.
    mutating func readCompression(on handle: Handle) throws {
        let compressed = try CompressedColumns.load(content, on: handle)
        guard !compressed.isEmpty else { return }
        source = try CompressedColumns.source(of: content, on: handle)
        compressedColumns = columns.indices.filter { compressed[columns[$0]] != nil }
    }
}
