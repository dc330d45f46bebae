import CSQLite

extension Database {
    /// Creates the FTS5 table declared by `rootType`'s `virtualTableBinding` (`IF NOT EXISTS`).
    ///
    ///     try database.create(virtualTable: "notes", of: Note.self)
    public func create<Root: TableDecodable>(virtualTable name: String, of rootType: Root.Type) throws {
        try writeWithoutTransaction { handle in
            try handle.execute(try Database.createVirtualTable(name, Root.CodingKeys.objectRelationalMapping, extra: [],
                                                               resolve: declaredTokenize).statementSQL.sql)
        }
    }

    /// Creates an FTS5 index over `contentTable` (external content keyed by its integer primary key) and
    /// records the pairing in the database, so every later `Database` on this file keeps it in sync.
    /// Rows already in the content table are indexed. `rootType` names the indexed columns, which must
    /// exist in the content table. An existing index with other columns (or another content table or rowid
    /// column) is recreated from `rootType` and rebuilt: that is how an index gains a column, for example in a
    /// migration step that adds the column to the content table.
    ///
    ///     try database.create(table: "articles", of: Article.self)
    ///     try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
    ///
    /// `tokenizer` overrides the binding's `tokenize` argument, for tools that choose it at run time.
    ///
    /// `facets` names columns of the content table whose values searches count over all of their matches
    /// (``SearchOptions/facets``); nil takes the binding's (``VirtualTableBinding/withFacets(_:)``). Sift keeps a
    /// compact structure of their values beside an explicitly synced index, exact after every write, and builds it
    /// here from the rows already there (a call that only changes the facets builds just them). A trigger-synced
    /// index counts its facets with a plain `GROUP BY` instead.
    ///
    ///     try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles",
    ///                         facets: ["category", "year"])
    public func create<Root: TableDecodable>(virtualTable name: String, of rootType: Root.Type, syncedWith contentTable: String,
                                             mode: SyncMode = .explicit, tokenizer: String? = nil,
                                             facets: [String]? = nil) throws {
        let binding = Root.CodingKeys.objectRelationalMapping
        let facets = facets ?? binding.virtualTable?.facetColumns ?? []
        try write { handle in
            guard try handle.schemaType(of: contentTable) == "table" else {
                throw pool.report(SiftError(code: .error, message: "The content table \(contentTable) does not exist.",
                                            path: path, tag: tag, operation: .schema))
            }
            let contentColumns = try handle.columnNames(of: contentTable)
            let missing = binding.columnNames.filter { !contentColumns.contains($0) }
            guard missing.isEmpty else {
                throw pool.report(SiftError(code: .error, message: "\(contentTable) has no column \(missing.joined(separator: ", ")) to index.",
                                            path: path, tag: tag, operation: .schema))
            }
            let missingFacets = facets.filter { !contentColumns.contains($0) }
            guard missingFacets.isEmpty, Set(facets).count == facets.count else {
                throw pool.report(SiftError(code: .error, message: missingFacets.isEmpty ? "A facet is named twice: \(facets)."
                                                : "\(contentTable) has no column \(missingFacets.joined(separator: ", ")) to count as a facet.",
                                            path: path, tag: tag, operation: .schema))
            }
            let rowid = try handle.integerPrimaryKey(of: contentTable) ?? "rowid"
            var synced = SyncedIndex(index: name, content: contentTable, rowidColumn: rowid, columns: binding.columnNames, mode: mode)
            try synced.readCompression(on: handle)
            // FTS5 reads a table with compressed columns through its decompressing view.
            let source = synced.readSource
            if source != contentTable && mode == .trigger {
                throw pool.report(SiftError.misuse("\(contentTable) has compressed columns, which triggers would index as "
                                                   + "compressed bytes: sync its indexes explicitly.", operation: .schema))
            }
            var existed = try handle.withStatement("SELECT 1 FROM sqlite_master WHERE name = ?") { stmt in
                try handle.bind([FundamentalValue(name)], to: stmt, sql: "")
                return try handle.step(stmt)
            }
            if existed {
                // An index whose columns or content differ from the model's is recreated from the model (and
                // rebuilt below), as a table gains the columns its model declares.
                let info = try FTSTableInfo.load(name, on: handle)
                if info.columns != binding.columnNames || info.content?.table != source || info.content?.rowid != rowid {
                    for sql in SyncedIndex(index: name, content: contentTable, rowidColumn: rowid, columns: [], mode: mode).dropTriggerSQL {
                        try handle.execute(sql)
                    }
                    try handle.execute("DROP TABLE \(SQLBuilder.quote(name))")
                    existed = false
                }
            }
            try handle.execute(try Database.createVirtualTable(name, binding, extra: [
                ModuleArgument(withContentTable: source), ModuleArgument(withContentRowID: rowid),
            ], tokenizer: tokenizer, resolve: declaredTokenize).statementSQL.sql)
            try handle.execute(SyncedIndex.createMetadataSQL)
            try handle.execute("INSERT OR REPLACE INTO sift_fts_sync VALUES(?, ?, ?, ?, ?)", [
                FundamentalValue(name), FundamentalValue(contentTable), FundamentalValue(rowid),
                FundamentalValue(binding.columnNames.joined(separator: "\u{1F}")), FundamentalValue(mode.rawValue),
            ])
            for sql in synced.dropTriggerSQL { try handle.execute(sql) }
            if mode == .trigger { for sql in synced.triggerSQL { try handle.execute(sql) } }
            // A new index is built from the rows already there, and gets score bounds when it supports them; an
            // index now synced by triggers drops its bounds (triggers would not keep them valid).
            let facetsChanged = try FacetStore.declare(name, columns: facets, on: handle)
            if !existed {
                try handle.rebuildFullTextIndex(name)
            } else if mode == .trigger {
                try DerivedStructures.indexDropped(name, on: handle)
            } else if facetsChanged {
                try FacetStore.rebuild(name, on: handle)
            }
        }
    }

    static func createVirtualTable<Key: CodingTableKey>(_ name: String, _ binding: TableBinding<Key>, extra: [ModuleArgument],
                                                        tokenizer: String? = nil,
                                                        resolve: (String) -> String = { $0 }) throws -> StatementCreateVirtualTable {
        guard let virtual = binding.virtualTable else {
            throw SiftError.misuse("\(Key.Root.self) declares no virtualTableBinding.", operation: .schema)
        }
        var arguments = virtual.arguments
        if let tokenizer { arguments = arguments.filter { $0.key != "tokenize" } + [ModuleArgument(withTokenize: tokenizer)] }
        // Declared with the tokenizer's default options written out (see setDeclarationDefaults(_:forTokenizer:)).
        arguments = arguments.map { $0.key == "tokenize" ? ModuleArgument(withTokenize: resolve($0.value)) : $0 }
        let given = Set(arguments.map(\.key))
        return StatementCreateVirtualTable().create(
            virtualTable: name, using: virtual.module,
            columns: binding.keys.indices.map { binding.columnDefinition(at: $0, forVirtualTable: true) },
            arguments: arguments + extra.filter { !given.contains($0.key) })
    }

    /// From how many objects an insert into a synced content table takes the bulk path: content rows
    /// first, then the index built from them in one pass (measured faster than row-by-row from here on).
    public var fullTextBulkThreshold: Int {
        get { pool.attachment(FullTextSettings.init).bulkThreshold }
        set { pool.attachment(FullTextSettings.init).bulkThreshold = newValue }
    }

    // MARK: - Maintenance

    private func command(_ index: String, _ command: String, _ rank: Int? = nil) throws {
        try write { handle in try handle.fullTextCommand(command, rank: rank.map(Int64.init), in: index) }
    }

    /// Rebuilds a full-text index from its content table, and what Sift keeps beside a synced index (the score
    /// bounds of a large one's pruned searches, see ``SearchResults/totalCount``, and the term dictionary typo
    /// tolerance and suggestions read), in one transaction. FTS5 indexes the rows
    /// with a 64 MB pending-terms buffer (its `hashsize`, put back after): at 1,000,000 documents of 35 words the
    /// rebuild took 12 s instead of 19, with a peak RSS of 133 MB.
    public func rebuild(index: String) throws {
        try write { handle in try handle.rebuildFullTextIndex(index) }
    }

    /// Merges all of an index's segments into one: the fastest index to query, at a one-off cost. For a synced
    /// index of 20,000 rows or more, also builds the score bounds its `.bm25f` searches prune with, when it has
    /// none yet (rows inserted one at a time below the threshold, or an index synced before it had them) or
    /// deletes and updates left them looser than the rows need (searches stay exact and pruned meanwhile, a little
    /// slower), and writes the synced index's term dictionary anew from FTS5's vocabulary (which a bulk load leaves
    /// stale; 0.7 s at a million documents): call it after a large load and after many deletes or updates.
    ///
    ///     try database.insert(objects: articles, intoTable: "articles")   // a million rows
    ///     try database.optimize(index: "articles_fts")
    public func optimize(index: String) throws {
        try command(index, "optimize")
        try write { handle in try DerivedStructures.indexOptimized(index, on: handle) }
    }

    /// Does up to `pages` pages of incremental merge work, for writers that want to spread it out.
    public func merge(index: String, pages: Int = 500) throws { try command(index, "merge", pages) }

    /// FTS5's automatic merge policy: merge once `automerge` segments of a level exist (0 turns it off),
    /// and force a merge at `crisisMerge` segments. Stored in the index, so it applies to every writer. The bulk
    /// path (``fullTextBulkThreshold``) merges 8 at once during its pass when `automerge` is between 1 and 7, and
    /// leaves 0 and larger values alone.
    public func setMergePolicy(index: String, automerge: Int = 4, crisisMerge: Int = 16) throws {
        try command(index, "automerge", automerge)
        try command(index, "crisismerge", crisisMerge)
    }

    /// Checks an index: FTS5's integrity check (against the content table for external content)
    /// and the number of indexed rows against the number of content rows.
    ///
    /// Only damage is reported in ``IndexVerification/problems``: SQLite's corruption errors, which include
    /// every failure of FTS5's integrity check. Any other error means the index could not be checked and is
    /// thrown as a ``SiftError`` (the database is locked, the index's tokenizer is not registered, an I/O error...).
    ///
    /// FTS5's integrity check is issued as an INSERT, which a read-only connection refuses (a write-protected
    /// file, `PRAGMA query_only`). Then the whole check runs on a private copy of the database made with
    /// SQLite's online backup API, in a temporary file SQLite deletes when it is closed, with the index's
    /// tokenizers taken from this connection: the database itself is only read, and the verdict is the same.
    public func verify(index: String) throws -> IndexVerification {
        try writeWithoutTransaction { handle in
            if sqlite3_db_readonly(handle.raw, "main") != 1 {
                do {
                    return try handle.inTransaction { try Database.verification(of: index, on: handle) }
                } catch let error as SiftError where error.code == .readonly {
                    // Writes are refused although the file is writable (query_only, or made read-only since): check a copy.
                }
            }
            return try verificationOfCopy(of: index, from: handle)
        }
    }

    /// The checks of `verify(index:)` on a connection that may write.
    private static func verification(of index: String, on handle: Handle) throws -> IndexVerification {
        var problems: [String] = []
        func damage(_ label: String, _ body: () throws -> Void) throws {
            do {
                try body()
            } catch let error as SiftError where error.code == .corrupt {
                problems.append("\(label): \(error.message)")
            }
        }
        try damage("integrity-check") { try handle.fullTextCommand("integrity-check", rank: 1, in: index) }
        let synced = try SyncedIndex.load(on: handle).first { $0.index == index }
        var indexed = 0
        var content: Int?
        try damage("counting rows") {
            indexed = try FTSTableInfo.load(index, on: handle).columnSize
                ? try handle.count("SELECT count(*) FROM \(SQLBuilder.quote(index + "_docsize"))")
                : try FTSTableInfo.indexedRows(index, on: handle)
            content = try synced.map { try handle.count("SELECT count(*) FROM \(SQLBuilder.quote($0.content))") }
        }
        if let content, content != indexed { problems.append("\(indexed) rows indexed, \(content) content rows") }
        try damage("impacts") { problems += try TopKImpacts.problems(index, on: handle) }
        try damage("facets") { problems += try FacetStore.problems(index, on: handle) }
        try damage("term dictionary") { problems += try TermDictionaryStore.problems(index, on: handle) }
        return IndexVerification(indexedRows: indexed, contentRows: content, problems: problems,
                                 searchPlan: try ScoreBounds.plan(of: index, on: handle))
    }

    /// Where `verify(index:)` copies a database it may not write: a private temporary file (an empty name: SQLite
    /// creates it and deletes it when it is closed), or memory for an encrypted database, whose pages must never
    /// reach the disk in plaintext.
    static func verificationCopyPath(encrypted: Bool) -> String { encrypted ? ":memory:" : "" }

    /// `verify(index:)` for a connection that may not write: the same checks on a temporary copy of the database.
    private func verificationOfCopy(of index: String, from handle: Handle) throws -> IndexVerification {
        let copy = try Handle(path: Database.verificationCopyPath(encrypted: handle.isEncrypted), pool: pool)
        defer { copy.close() }
        do {
            guard let backup = sqlite3_backup_init(copy.raw, "main", handle.raw, "main") else {
                throw copy.error(sqlite3_errcode(copy.raw), sql: nil, operation: .file)
            }
            var rc = sqlite3_backup_step(backup, -1)
            var waits = 0
            while (rc == SQLITE_BUSY || rc == SQLITE_LOCKED || rc == SQLITE_OK) && waits < 1000 {
                // OK: more pages to copy; BUSY or LOCKED: another connection holds a lock for a moment.
                if rc != SQLITE_OK { waits += 1; sqlite3_sleep(10) }
                rc = sqlite3_backup_step(backup, -1)
            }
            let finished = sqlite3_backup_finish(backup)
            if rc != SQLITE_DONE || finished != SQLITE_OK {
                let code = rc != SQLITE_DONE ? rc : finished
                let message = String(cString: sqlite3_errstr(code))
                if code & 0xFF == SQLITE_CORRUPT {
                    return IndexVerification(indexedRows: 0, contentRows: nil, problems: ["copying the database: \(message)"],
                                             searchPlan: "unknown: the database could not be copied")
                }
                throw pool.report(SiftError(code: SiftError.Code(rawValue: code), extendedCode: code,
                                            message: "Cannot copy the database to check it: \(message)",
                                            path: path, tag: tag, operation: .file))
            }
            try Database.copyTokenizers(of: index, from: handle, to: copy)
            return try copy.inTransaction { try Database.verification(of: index, on: copy) }
        } catch let error as SiftError {
            // Errors on the copy are about this database, not about a nameless temporary file.
            var error = error
            error.path = path
            error.message += " (while checking a temporary copy of the database)"
            throw error
        }
    }

    /// Registers on `copy` the tokenizers `index` names, as `source` has them (FTS5 looks tokenizers up
    /// per connection, and the application's are registered by configs on the pool's connections only).
    /// The registration shares the source's tokenizer context, so `source` must stay open as long as `copy`.
    private static func copyTokenizers(of index: String, from source: Handle, to copy: Handle) throws {
        let names = try FTSTableInfo.load(index, on: source).tokenizer
        guard let from = sift_fts5_api(source.raw), let find = from.pointee.xFindTokenizer,
              let to = sift_fts5_api(copy.raw), let create = to.pointee.xCreateTokenizer else {
            throw source.pool.report(SiftError(code: .error, message: "FTS5 is not available to check a copy of the index.",
                                               path: source.path, tag: source.pool.tag, operation: .config))
        }
        // Tokenizer arguments may name tokenizers too (`porter sift_icu`); other words are simply not found.
        for name in Set(names) {
            var user: UnsafeMutableRawPointer?
            var methods = fts5_tokenizer()
            guard find(from, name, &user, &methods) == SQLITE_OK else { continue }
            let rc = create(to, name, user, &methods, nil)
            if rc != SQLITE_OK { throw copy.error(rc, sql: nil, operation: .config) }
        }
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
    /// Which plan the index's ranked searches get, and why: `pruned` when Sift's score bounds let a `.bm25f` or
    /// `.inB2` search skip the rows that cannot reach its top k, else `exhaustive` (FTS5 scores every match) with
    /// the reason: the index keeps no column sizes (`columnsize=0`) or positions per column (`detail=column` or
    /// `none`), is synced by triggers, holds fewer rows than bounds pay off at, or its bounds are stale until
    /// ``Database/optimize(index:)``.
    ///
    ///     print(try database.verify(index: "articles_fts").searchPlan)
    ///     // pruned: score bounds over rowids 1-1000000, exact
    public let searchPlan: String
    /// Whether the index and its content agree.
    public var isConsistent: Bool { problems.isEmpty }
    /// A readable rendering.
    public var description: String {
        isConsistent ? "consistent (\(indexedRows) rows)" : problems.joined(separator: "; ")
    }
}
