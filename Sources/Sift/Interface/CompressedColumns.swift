import CSQLite
import Foundation

/// The compressed columns of a database as it records them, and the view that reads their tables decompressed:
/// one owner for the two tables compression keeps (`sift_compressed_columns`, `sift_zstd_dictionaries`) and for
/// the views (`sift_plain_<table>`).
///
/// A compressed column holds text and blobs as `sift_compress` framed them (a format byte, the dictionary's id, one
/// zstd frame); values written before compression was declared, and short text that would not shrink, stay as
/// they were. The view selects every column of the table, the compressed ones through `sift_decompress`, so that
/// whatever reads it (Sift's reads through the binding, FTS5's external-content reads of a synced index: its
/// highlights, snippets and rebuilds) sees the plain values.
struct CompressedColumns {
    static let columnsTable = "sift_compressed_columns"
    static let dictionariesTable = "sift_zstd_dictionaries"
    static let createSQL = [
        """
        CREATE TABLE IF NOT EXISTS sift_compressed_columns(table_name TEXT NOT NULL, column_name TEXT NOT NULL, \
        level INTEGER NOT NULL, use_dictionary INTEGER NOT NULL, dictionary_id INTEGER NOT NULL DEFAULT 0, \
        compressed_through INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(table_name, column_name)) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS sift_zstd_dictionaries(id INTEGER PRIMARY KEY, table_name TEXT NOT NULL, \
        column_name TEXT NOT NULL, dictionary BLOB NOT NULL)
        """,
    ]
    /// The largest dictionary trained for a column, and how many of its values (and bytes) train it: zstd advises
    /// samples about 100 times the dictionary's size.
    static let dictionaryCapacity = 64 * 1024
    static let trainingSamples = 8_000
    static let trainingBytes = 8 * 1024 * 1024
    /// The sizes a caller may ask a dictionary to have at most.
    static let dictionarySizes = 1_024...(16 << 20)

    /// One compressed column.
    struct Column: Equatable {
        let name: String
        let level: Int
        let usesDictionary: Bool
        /// The dictionary new values are compressed with (0: none yet).
        let dictionary: Int64
        /// The rowid through which ``Database/compressRows(ofTable:batchSize:)`` has re-encoded the column.
        let compressedThrough: Int64
    }

    let table: String
    let columns: [Column]

    var isEmpty: Bool { columns.isEmpty }
    subscript(column: String) -> Column? { columns.first { $0.name == column } }

    /// The view that reads `table` decompressed.
    static func viewName(of table: String) -> String { "sift_plain_" + table }

    /// What reads `table` as plain values: its view when it has compressed columns, else the table itself.
    static func source(of table: String, on handle: Handle) throws -> String {
        guard try isDeclared(on: handle) else { return table }
        let view = viewName(of: table)
        return try handle.schemaType(of: view) == "view" ? view : table
    }

    /// The compressed columns of `table` (none when compression was never declared in this database).
    static func load(_ table: String, on handle: Handle) throws -> CompressedColumns {
        guard try isDeclared(on: handle) else { return CompressedColumns(table: table, columns: []) }
        let sql = "SELECT column_name, level, use_dictionary, dictionary_id, compressed_through FROM sift_compressed_columns "
            + "WHERE table_name = ? ORDER BY column_name"
        return try handle.withStatement(sql) { stmt in
            try handle.bind([FundamentalValue(table)], to: stmt, sql: sql)
            var columns: [Column] = []
            while try handle.step(stmt) {
                columns.append(Column(name: RawStatement.text(stmt, 0), level: Int(sqlite3_column_int64(stmt, 1)),
                                      usesDictionary: sqlite3_column_int64(stmt, 2) != 0, dictionary: sqlite3_column_int64(stmt, 3),
                                      compressedThrough: sqlite3_column_int64(stmt, 4)))
            }
            return CompressedColumns(table: table, columns: columns)
        }
    }

    /// Records `columns` of `table` as compressed (a column already recorded keeps its dictionary and progress,
    /// and takes the new level) and makes the table's view; true when a column was not compressed before.
    static func declare(_ columns: [(name: String, level: Int, usesDictionary: Bool)], of table: String,
                        framingLookalikes: Bool = true, on handle: Handle) throws -> Bool {
        guard CompressionEngine.isAvailable else { throw handle.pool.report(SiftError.compressionUnavailable(path: handle.path)) }
        for sql in createSQL { try handle.execute(sql) }
        let before = try load(table, on: handle)
        let present = try handle.columnNames(of: table)
        for column in columns {
            guard present.contains(column.name) else {
                throw handle.pool.report(SiftError.misuse("\(table) has no column \(column.name) to compress.", operation: .schema))
            }
            guard (1...22).contains(column.level) else {
                throw handle.pool.report(SiftError.misuse("zstd levels go from 1 to 22, not \(column.level).", operation: .schema))
            }
            try handle.execute("""
                INSERT INTO sift_compressed_columns(table_name, column_name, level, use_dictionary) VALUES(?, ?, ?, ?) \
                ON CONFLICT(table_name, column_name) DO UPDATE SET level = excluded.level, use_dictionary = excluded.use_dictionary
                """, [FundamentalValue(table), FundamentalValue(column.name), FundamentalValue(Int64(column.level)),
                      FundamentalValue(Int64(column.usesDictionary ? 1 : 0))])
        }
        try makeView(of: table, on: handle)
        // A blob already there that begins as a compressed value does would be read as one: framed now (its plain
        // value stays, so the synced indexes have nothing to follow). Other values stay as they are until
        // `compressRows` re-encodes them. Not in a migration step, whose columns may hold a renamed column's
        // compressed values.
        for column in columns where framingLookalikes && before[column.name] == nil {
            let name = SQLBuilder.quote(column.name)
            try handle.execute("UPDATE \(SQLBuilder.quote(table)) SET \(name) = sift_compress(\(name), \(column.level), 0) "
                               + "WHERE typeof(\(name)) = 'blob' AND substr(\(name), 1, 1) IN ("
                               + CompressionEngine.valueMarkers.map { String(format: "x'%02X'", $0) }.joined(separator: ", ") + ")")
        }
        return columns.contains { before[$0.name] == nil }
    }

    /// Whether the database records compressed columns (has `sift_compressed_columns`), known per schema version:
    /// the reads and writes of a database that never declared compression pay one `PRAGMA schema_version`, not a
    /// lookup in its schema each. Not kept from inside a write transaction, whose schema may roll back.
    static func isDeclared(on handle: Handle) throws -> Bool {
        let version = try handle.schemaVersion()
        let known = handle.pool.attachment(DeclaredState.init)
        if let state = known.state.withLock({ $0 }), state.version == version { return state.recorded }
        let recorded = try handle.schemaType(of: columnsTable) == "table"
        if sqlite3_txn_state(handle.raw, "main") != SQLITE_TXN_WRITE { known.state.withLock { $0 = (version, recorded) } }
        return recorded
    }

    /// What `isDeclared(on:)` read last, per database file.
    final class DeclaredState: Sendable {
        let state = Locked<(version: Int64, recorded: Bool)?>(nil)
    }

    /// A migration step of `table` is done (in its transaction): the records of its compressed columns follow the
    /// step's renames (a record the step's model already made for the new name stays, the old one goes), those of
    /// columns the step dropped go, and the view is made anew over the table's columns now (or dropped when none is
    /// compressed any more). Values keep their frames: each names the dictionary that decodes it.
    static func follow(migrationOf table: String, renamedColumns: [String: String], on handle: Handle) throws {
        guard try isDeclared(on: handle) else { return }
        let recorded = try load(table, on: handle)
        guard !recorded.isEmpty else { return }
        let present = Set(try handle.columnNames(of: table))
        for column in recorded.columns {
            let name = renamedColumns[column.name] ?? column.name
            let key = [FundamentalValue(table), FundamentalValue(column.name)]
            if !present.contains(name) || (name != column.name && recorded[name] != nil) {
                try handle.execute("DELETE FROM sift_compressed_columns WHERE table_name = ? AND column_name = ?", key)
            } else if name != column.name {
                try handle.execute("UPDATE sift_compressed_columns SET column_name = ? WHERE table_name = ? AND column_name = ?",
                                   [FundamentalValue(name)] + key)
            }
        }
        try makeView(of: table, on: handle)
    }

    /// (Re)creates `table`'s view over its current columns (after compression is declared, or the table gained a
    /// column); drops it when the table has no compressed column.
    static func makeView(of table: String, on handle: Handle) throws {
        let compressed = Set(try load(table, on: handle).columns.map(\.name))
        let view = SQLBuilder.quote(viewName(of: table))
        try handle.execute("DROP VIEW IF EXISTS \(view)")
        guard !compressed.isEmpty else { return }
        let q = SQLBuilder.quote
        var selected = try handle.columnNames(of: table).map { name in
            compressed.contains(name) ? "sift_decompress(\(q(name))) AS \(q(name))" : q(name)
        }
        // FTS5 reads external content by its `content_rowid`: a table without an INTEGER PRIMARY KEY shows its rowid.
        if try handle.integerPrimaryKey(of: table) == nil { selected.insert("rowid AS rowid", at: 0) }
        try handle.execute("CREATE VIEW \(view) AS SELECT \(selected.joined(separator: ", ")) FROM \(q(table))")
    }

    /// What a write binds `value` (a parameter when it is NULL) to column `name` through: `value` itself, or for a
    /// compressed column `sift_compress(value, level, dictionary)`.
    func writeExpression(ofColumn name: String, value: FundamentalValue = .null) -> ExpressionConvertible {
        guard let column = self[name] else { return value }
        return SQLExpression(.function("sift_compress", [.value(value), .raw(String(column.level)), .raw(String(column.dictionary))],
                                       distinct: false))
    }

    /// Trains a new dictionary on up to ``trainingSamples`` values of `column` (decompressed), stores it and makes
    /// it the one new values are compressed with; values compressed with an older one keep it (their frames name
    /// it). Returns its id, or nil when the column holds too little to train on (it then keeps its dictionary).
    static func train(_ column: String, of table: String, maximumSize: Int = dictionaryCapacity, on handle: Handle) throws -> Int64? {
        guard dictionarySizes.contains(maximumSize) else {
            throw handle.pool.report(SiftError.misuse("A dictionary's size goes from \(dictionarySizes.lowerBound) to "
                                                      + "\(dictionarySizes.upperBound) bytes, not \(maximumSize).", operation: .schema))
        }
        // Samples of about 32 times the dictionary's size (zstd advises 100; 32 trained a 1 MB dictionary as well on
        // short values), read at random.
        let samplesWanted = max(trainingSamples, maximumSize / 8), bytesWanted = max(trainingBytes, 32 * maximumSize)
        guard try load(table, on: handle)[column] != nil else {
            throw handle.pool.report(SiftError.misuse("\(table).\(column) is not compressed.", operation: .schema))
        }
        let q = SQLBuilder.quote
        let sql = "SELECT CAST(sift_decompress(\(q(column))) AS BLOB) FROM \(q(table)) WHERE rowid IN "
            + "(SELECT rowid FROM \(q(table)) WHERE \(q(column)) IS NOT NULL ORDER BY random() LIMIT \(samplesWanted))"
        var samples: [[UInt8]] = []
        var bytes = 0
        try handle.withStatement(sql) { stmt in
            while bytes < bytesWanted, try handle.step(stmt) {
                let sample = RawStatement.bytes(stmt, 0)
                guard !sample.isEmpty else { continue }
                bytes += sample.count
                samples.append(sample)
            }
        }
        // The next id in order (ids of dictionaries trained before ids were handed out are zstd's random ones, above
        // these): a compressed value names its dictionary by its distance from the first, in a byte or two.
        let id = try handle.withStatement("SELECT max(id) FROM sift_zstd_dictionaries WHERE id >= ? AND id < ?") { stmt -> Int64 in
            sqlite3_bind_int64(stmt, 1, CompressionEngine.firstDictionaryID)
            sqlite3_bind_int64(stmt, 2, CompressionEngine.firstDictionaryID + (1 << 24))
            guard try handle.step(stmt), sqlite3_column_type(stmt, 0) != SQLITE_NULL else { return CompressionEngine.firstDictionaryID }
            return sqlite3_column_int64(stmt, 0) + 1
        }
        guard samples.count >= 16,
              let trained = CompressionEngine.train(samples, capacity: min(maximumSize, max(1024, bytes / 10)), id: id)
        else { return nil }
        try handle.execute("INSERT INTO sift_zstd_dictionaries(id, table_name, column_name, dictionary) VALUES(?, ?, ?, ?)",
                           [FundamentalValue(id), FundamentalValue(table), FundamentalValue(column),
                            FundamentalValue(Data(trained))])
        try handle.execute("UPDATE sift_compressed_columns SET dictionary_id = ?, compressed_through = 0 "
                           + "WHERE table_name = ? AND column_name = ?",
                           [FundamentalValue(id), FundamentalValue(table), FundamentalValue(column)])
        return id
    }
}
