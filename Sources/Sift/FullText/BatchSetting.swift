import CSQLite

/// An FTS5 setting that Sift raises while it indexes many rows in one pass, then puts back: a synced index's bulk
/// inserts (`SyncTracker`) and every FTS5 'rebuild' it issues (`Handle.rebuildFullTextIndex`).
struct BatchSetting: Sendable {
    let key: String
    /// FTS5's value when the index never set one.
    let defaultValue: Int64
    let batchValue: Int64

    /// The pending-terms buffer: a larger one means fewer, larger segments to write and merge. FTS5's 'rebuild' of
    /// 1,000,000 documents of 35 words took 6.5 s with it instead of 13.6 s (peak RSS 106 MB instead of 19 MB).
    static let hashSize = BatchSetting(key: "hashsize", defaultValue: 1_048_576, batchValue: 64 * 1_048_576)
    /// How many segments of a level FTS5 merges at once. A larger fan-out rewrites each posting fewer times,
    /// as Lucene's `LogMergePolicy` advises for batch index creation (its `mergeFactor`: larger values for
    /// batches, smaller ones for interactively maintained indexes), and leaves more segments behind, which
    /// later small writes or `optimize(index:)` merge. A 'rebuild' writes few segments: it does not need it.
    static let automerge = BatchSetting(key: "automerge", defaultValue: 4, batchValue: 8)

    /// The value of this setting in FTS5 table `index`.
    func value(in index: String, on handle: Handle) throws -> Int64 {
        try handle.withStatement("SELECT v FROM \(SQLBuilder.quote(index + "_config")) WHERE k = ?") { stmt in
            _ = RawStatement.bindText(key, at: 1, in: stmt)
            return try handle.step(stmt) ? sqlite3_column_int64(stmt, 0) : defaultValue
        }
    }

    func set(in index: String, to value: Int64, on handle: Handle) throws {
        try handle.fullTextCommand(key, rank: value, in: index)
    }

    /// Runs `body` with `settings` at their batch values in FTS5 table `index`, then puts back what the table had.
    /// A setting is raised only from a smaller positive value: an automerge of 0 (merging turned off) or a value
    /// already larger stays. On failure the caller's transaction rolls back, taking the settings with it; FTS5
    /// rereads its configuration when the rolled-back structure's cookie differs from the one it holds.
    static func raising<R>(_ settings: [BatchSetting], in index: String, on handle: Handle,
                           _ body: () throws -> R) throws -> R {
        var restore: [(BatchSetting, Int64)] = []
        defer { for (setting, value) in restore.reversed() { try? setting.set(in: index, to: value, on: handle) } }
        for setting in settings {
            let value = try setting.value(in: index, on: handle)
            guard value > 0, value < setting.batchValue else { continue }
            try setting.set(in: index, to: setting.batchValue, on: handle)
            restore.append((setting, value))
        }
        return try body()
    }
}

extension Handle {
    /// One of FTS5's special inserts into table `index` ('rebuild', 'optimize', 'merge', a setting such as
    /// 'automerge'...), with its `rank` argument when it takes one.
    func fullTextCommand(_ command: String, rank: Int64? = nil, in index: String) throws {
        let q = SQLBuilder.quote(index)
        // Sift's own command: its callers tell the score bounds what it did (see `statementDidStep`).
        let connection = observer as? FullTextConnection
        connection?.issuingCommands += 1
        defer { connection?.issuingCommands -= 1 }
        connection?.tracker.dictionaries.indexWrittenDirectly(index)
        if let rank {
            try execute("INSERT INTO \(q)(\(q), rank) VALUES(?, ?)", [FundamentalValue(command), FundamentalValue(rank)])
        } else {
            try execute("INSERT INTO \(q)(\(q)) VALUES(?)", [FundamentalValue(command)])
        }
    }

    /// FTS5's 'rebuild' of table `name` (every row of its content indexed again), with a batch's pending-terms
    /// buffer: the choke point of every rebuild Sift issues (a synced index created over existing rows,
    /// `rebuild(index:)`, migrations, recovery), which tells the score bounds' maintainer (`ScoreBounds`).
    func rebuildFullTextIndex(_ name: String) throws {
        try BatchSetting.raising([.hashSize], in: name, on: self) { try fullTextCommand("rebuild", in: name) }
        try DerivedStructures.indexRebuilt(name, on: self)
    }
}
