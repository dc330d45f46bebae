import CSQLite

extension Database {
    /// Turns compression on for existing text or BLOB columns of `table` (a model declares it for new tables with
    /// `columnCompressionBindings`, see ``ColumnCompression``), in one transaction: new values are compressed as
    /// they are written, and every read through Sift decompresses. The synced full-text indexes over the table are
    /// pointed at its decompressing view and rebuilt from it (their score bounds and facets with them), so searches,
    /// highlights and snippets read the plain text.
    ///
    /// Rows already there keep their plain values until ``compressRows(ofTable:batchSize:)`` re-encodes them, a
    /// batch per transaction; train a dictionary first (``trainCompressionDictionary(forColumn:inTable:maximumSize:)``):
    ///
    ///     try database.enableCompression(.zstd, forColumns: ["body"], inTable: "articles")
    ///     try database.trainCompressionDictionary(forColumn: "body", inTable: "articles")
    ///     while try !database.compressRows(ofTable: "articles") {}      // resumable: call again after a stop
    ///
    /// - Throws: ``CompressionFailure/unavailable`` in a build without the `Compression` trait; a misuse error for a
    ///   column the table lacks, or a table with a trigger-synced index (its triggers would index the compressed
    ///   bytes).
    public func enableCompression(_ compression: ColumnCompression = .zstd, forColumns columns: [String],
                                  inTable table: String) throws {
        try write { handle in
            try declareCompression(columns.map { ($0, compression) }, of: table, on: handle)
        }
    }

    /// Records compression of `columns` and, when a column is newly compressed and `followingIndexes`, lets the
    /// layers above follow the table (its synced indexes now read it through its view, and are rebuilt from it).
    func declareCompression(_ columns: [(column: String, compression: ColumnCompression)], of table: String,
                            followingIndexes: Bool = true, on handle: Handle) throws {
        guard CompressionEngine.isAvailable else { throw pool.report(SiftError.compressionUnavailable(path: path)) }
        if try handle.schemaType(of: "sift_fts_sync") == "table",
           try handle.count("SELECT count(*) FROM sift_fts_sync WHERE content_table = '\(table.replacingOccurrences(of: "'", with: "''"))' "
                            + "AND mode = 'trigger'") > 0 {
            throw pool.report(SiftError.misuse("\(table) has a trigger-synced index, whose triggers would index compressed "
                                               + "bytes: compress tables with explicitly synced indexes.", operation: .schema))
        }
        let added = try CompressedColumns.declare(columns.map { ($0.column, $0.compression.level, $0.compression.usesDictionary) },
                                                  of: table, framingLookalikes: followingIndexes, on: handle)
        if added && followingIndexes { try handle.observer?.tableMigrationWillCommit(table, renamedColumns: [:], on: handle) }
    }

    /// Trains a zstd dictionary of at most `maximumSize` bytes on the values of a compressed column (a random
    /// sample of 8,000 of them or more, about 32 times the dictionary's size, read decompressed) and makes it the one
    /// new values of the column are compressed with; returns its id, or nil when the column holds too few values to
    /// train on. Retraining later makes a new dictionary with a new id: values compressed with an older one stay
    /// readable (each names its dictionary, and dictionaries are kept), and ``compressRows(ofTable:batchSize:)``
    /// re-encodes them with the new one.
    ///
    /// A larger dictionary shrinks short values more, at the cost of its size once in the file and in each
    /// connection's memory: on values of 35 words drawn from 50,000 (`sift-bench scale`), a 1 MB dictionary at level
    /// 19 took the 209-byte bodies to 81 bytes where 64 KB at level 3 took them to 101.
    ///
    ///     let id = try database.trainCompressionDictionary(forColumn: "body", inTable: "articles")
    ///     try database.trainCompressionDictionary(forColumn: "body", inTable: "articles", maximumSize: 1 << 20)
    ///
    /// - Throws: a misuse error for a column that is not compressed, or a size outside 1 KB to 16 MB.
    @discardableResult
    public func trainCompressionDictionary(forColumn column: String, inTable table: String,
                                           maximumSize: Int = 64 * 1024) throws -> Int64? {
        guard CompressionEngine.isAvailable else { throw pool.report(SiftError.compressionUnavailable(path: path)) }
        return try write { handle in try CompressedColumns.train(column, of: table, maximumSize: maximumSize, on: handle) }
    }

    /// Re-encodes up to `batchSize` rows of `table` whose compressed columns are not yet written with their current
    /// settings (plain values from before compression was declared, values of an older dictionary), in one
    /// transaction that also records how far it got: returns true once every row is done. Stopped at any point (an
    /// error, the process ending), the next call continues after the last committed batch.
    ///
    /// The rows' plain values do not change, so their synced indexes, score bounds and facets do not either: the
    /// sync layer compares the decompressed values of each update and leaves the index alone when they are equal.
    ///
    ///     while try !database.compressRows(ofTable: "articles", batchSize: 2_000) {}
    @discardableResult
    public func compressRows(ofTable table: String, batchSize: Int = 1_000) throws -> Bool {
        guard CompressionEngine.isAvailable else { throw pool.report(SiftError.compressionUnavailable(path: path)) }
        guard batchSize > 0 else { throw pool.report(SiftError.misuse("The batch size must be positive.", operation: .migration)) }
        return try write { handle in
            let compressed = try CompressedColumns.load(table, on: handle)
            guard let start = compressed.columns.map(\.compressedThrough).min() else {
                throw pool.report(SiftError.misuse("\(table) has no compressed column.", operation: .migration))
            }
            let q = SQLBuilder.quote
            let last = try handle.withStatement("SELECT max(rowid) FROM (SELECT rowid FROM \(q(table)) WHERE rowid > ? "
                                                + "ORDER BY rowid LIMIT \(batchSize))") { stmt -> Int64? in
                sqlite3_bind_int64(stmt, 1, start)
                return try handle.step(stmt) && sqlite3_column_type(stmt, 0) != SQLITE_NULL ? sqlite3_column_int64(stmt, 0) : nil
            }
            guard let last else { return true }
            let sets = compressed.columns.map { column in
                "\(q(column.name)) = sift_compress(sift_decompress(\(q(column.name))), \(column.level), \(column.dictionary))"
            }
            try handle.withStatement("UPDATE \(q(table)) SET \(sets.joined(separator: ", ")) WHERE rowid > ? AND rowid <= ?") { stmt in
                sqlite3_bind_int64(stmt, 1, start)
                sqlite3_bind_int64(stmt, 2, last)
                while try handle.step(stmt) {}
            }
            try handle.execute("UPDATE sift_compressed_columns SET compressed_through = max(compressed_through, ?) WHERE table_name = ?",
                               [FundamentalValue(last), FundamentalValue(table)])
            return false
        }
    }

    /// `filter` for an update or delete of `table`: on a table with compressed columns its condition is evaluated
    /// on the decompressing view (`rowid IN (SELECT key FROM view WHERE condition)`), so that it compares plain values.
    func plainFilter(_ filter: FilterClauses, of table: String, on handle: Handle) throws -> FilterClauses {
        guard let condition = filter.condition, try CompressedColumns.source(of: table, on: handle) != table else { return filter }
        let key = try handle.integerPrimaryKey(of: table) ?? "rowid"
        let select = StatementSelect().select(Column(named: key)).from(CompressedColumns.viewName(of: table))
        select.filter.condition = condition
        var plain = filter
        plain.condition = SQLExpression(.binary("IN", .column(name: "rowid", table: nil), .subquery(select)))
        return plain
    }

    /// Whether this build of Sift can compress columns (the `Compression` package trait, on by default).
    public static var isCompressionAvailable: Bool { CompressionEngine.isAvailable }
}
