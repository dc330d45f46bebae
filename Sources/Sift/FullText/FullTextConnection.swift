import CSQLite
import SiftRank
import SiftSnippet

/// The full-text layer's part of each connection, plugged into Core's one seam (``ConnectionObserver``): the
/// writer's sync tracker, its bulk-load policy, and the tokenizers the query builder created on the connection.
final class FullTextConnection: ConnectionObserver {
    let tracker = SyncTracker()
    /// FTS5 tokenizers created on this connection (for the query builder), by arguments.
    private var tokenizers: [String: TokenizerInstance] = [:]
    /// Whether the batch under way is being bulk-loaded.
    private var bulk = false
    /// How many of Sift's own FTS5 commands are under way (`Handle.fullTextCommand`): their callers tell the score
    /// bounds what they did.
    var issuingCommands = 0

    /// A write to a content table must commit with its index writes: every write gets a transaction.
    func statementNeedsTransaction(writesRows: Bool) -> Bool { writesRows }

    func statementDidStep(_ statement: OpaquePointer, writing tables: [String]?, on handle: Handle) throws {
        if !tracker.pending.isEmpty {
            do {
                try tracker.flush(on: handle)
            } catch {
                tracker.dictionaries.changesUncertain()
                // Some of the statement's index writes may be applied without its log row.
                for case .text(let index, _) in tracker.targets.map(\.owner) {
                    try? TermDictionaryStore.markStale(index.index, on: handle)
                }
                throw error
            }
        }
        // A statement that wrote a synced index itself (not through the sync layer: a raw FTS5 command, rows
        // inserted into the index), once it is done: its score bounds hear of it.
        guard let tables, issuingCommands == 0, sqlite3_stmt_busy(statement) == 0 else { return }
        for table in tables where tracker.indexNames.contains(table) {
            let expanded = sqlite3_expanded_sql(statement)
            defer { sqlite3_free(expanded) }
            let sql = expanded.map { String(cString: $0) } ?? String(cString: sqlite3_sql(statement))
            tracker.dictionaries.indexWrittenDirectly(table)
            try DerivedStructures.indexWrittenDirectly(table, sql: sql, on: handle)
        }
    }

    func statementDidFail(on handle: Handle) { tracker.discardPending() }

    func connectionWillBeUsed(_ handle: Handle, forWriting: Bool) throws {
        if forWriting { try tracker.refresh(on: handle) }
    }

    /// From `fullTextBulkThreshold` rows on, a content table's rows are indexed after the insert, in one pass.
    /// Below the threshold, the rows are indexed one by one, and the stored term dictionaries log the batch once.
    func batchWillBegin(inserting count: Int, into table: String, on handle: Handle) {
        guard handle.isObserved else { return }
        if count >= handle.pool.attachment(FullTextSettings.init).bulkThreshold { bulk = tracker.beginBulk(content: table) }
        if !bulk { tracker.batchBegan(inserting: count, into: table) }
    }

    func batchDidEnd(completed: Bool, on handle: Handle) throws {
        guard bulk else { return try tracker.batchEnded(completed: completed, on: handle) }
        bulk = false
        if completed { try tracker.finishBulk(on: handle) } else { tracker.endBulk() }
    }

    /// A migration step rewrites `table`: its indexes are rebuilt when the step ends, so its rows are not followed
    /// meanwhile, and the triggers of trigger-synced indexes go until then (a rollback brings them back).
    func tableMigrationWillBegin(_ table: String, on handle: Handle) throws {
        try tracker.suspend(table, on: handle)
        for index in try SyncedIndex.load(on: handle) where index.content == table {
            for sql in index.dropTriggerSQL { try handle.execute(sql) }
        }
    }

    func tableMigrationWillCommit(_ table: String, renamedColumns: [String: String], on handle: Handle) throws {
        try SyncedIndex.follow(migrationOf: table, renamedColumns: renamedColumns, on: handle)
        try VectorIndex.follow(migrationOf: table, renamedColumns: renamedColumns, on: handle)
    }

    func tableMigrationDidEnd(_ table: String, on handle: Handle) {
        tracker.resume(table, on: handle)
    }

    func transactionDidCommit(on handle: Handle) { tracker.dictionaries.transactionDidCommit(on: handle) }

    func transactionDidRollBack() { tracker.dictionaries.transactionDidRollBack() }

    func savepointDidBegin(_ name: String) { tracker.dictionaries.savepointDidBegin(name) }

    func savepointDidRelease(_ name: String) { tracker.dictionaries.savepointDidRelease(name) }

    func savepointDidRollBack(to name: String) { tracker.dictionaries.savepointDidRollBack(to: name) }

    func connectionWillClose(_ handle: Handle) {
        tracker.uninstall(from: handle)
        tokenizers.removeAll()
    }

    func tokenizer(_ arguments: [String], on handle: Handle) throws -> TokenizerInstance {
        let key = arguments.joined(separator: "\u{1F}")
        if let cached = tokenizers[key] { return cached }
        let instance = try TokenizerInstance(arguments: arguments, on: handle)
        tokenizers[key] = instance
        return instance
    }
}

/// Every connection of every `Database` gets its full-text part (see ``ConnectionObserverProviding``).
extension Database: ConnectionObserverProviding {
    static func makeObserver(for handle: Handle) -> any ConnectionObserver {
        // Sift's ranking function on every connection, for any search (or SQL) that ranks with it. It cannot fail
        // short of a connection without FTS5, where no search runs anyway.
        _ = sift_rank_register(handle.raw)
        _ = sift_bound_register(handle.raw)
        _ = sift_postings_register(handle.raw)
        _ = sift_snippet_register(handle.raw)
        _ = sift_facet_register(handle.raw)
        return FullTextConnection()
    }
}

extension Handle {
    /// The tokenizer `arguments` name, created on this connection once and kept.
    func tokenizer(_ arguments: [String]) throws -> TokenizerInstance {
        guard let connection = observer as? FullTextConnection else {
            // Only a connection opened without the full-text layer lacks one; it still tokenizes, uncached.
            return try TokenizerInstance(arguments: arguments, on: self)
        }
        return try connection.tokenizer(arguments, on: self)
    }
}

/// The full-text layer's settings and caches for one database file, shared by its connections.
final class FullTextSettings: Sendable {
    private let threshold = Locked(10_000)
    /// FTS table descriptions for the search API, with the schema version they were read at.
    let tables = Locked<[String: (version: Int64, info: FTSTableInfo)]>([:])
    /// See ``Database/setDeclarationDefaults(_:forTokenizer:)``.
    let declarationDefaults = Locked<[String: [(name: String, value: String)]]>([:])
    /// See ``Database/setQueryStopwords(forTokenizer:_:)``.
    let stopwords = Locked<[String: @Sendable ([String]) -> Set<String>]>([:])
    /// The phrases' rows and instances last counted, per index (`PhraseStatistics`).
    let phraseStatistics = Locked<PhraseStatistics.Cache>([:])
    /// The terms of each index typo-tolerant searches walked, with the structure record they are exact at.
    let termDictionaries = Locked<TermDictionary.Cache>([:])
    /// How many times a term dictionary was read from an index's vocabulary, and loaded from the one stored beside
    /// it (`TermDictionaryStore`); the rest were kept ones.
    let termDictionaryReads = Locked(0)
    let termDictionaryLoads = Locked(0)
    /// The fewest log rows that fold a stored term dictionary's log into its list (`TermDictionaryStore`); tests
    /// lower it.
    let dictionaryFoldRows = Locked(8_192)
    /// Each index's synonym list normalized by its tokenizer, with the list's generation and the tokenizer it was
    /// normalized with (`SynonymSet`).
    let synonymSets = Locked<[String: (generation: Int64, tokenizer: [String], set: SynonymSet)]>([:])
    /// The facets' value dictionaries searches read, with the generation they were read at (`FacetStore`).
    let facetDictionaries = FacetStore.DictionaryCache([:])

    /// The query stopwords of an index declared with `tokenizer` (its name and arguments).
    func stopwords(for tokenizer: [String]) -> Set<String> {
        guard let name = tokenizer.first, let provider = stopwords.withLock({ $0[name] }) else { return [] }
        return provider(Array(tokenizer.dropFirst()))
    }

    /// From how many rows a synced index gets impacts, from how many rows a term is listed in them, the rowids
    /// per block, the blocks per stored chunk, the rows a bulk insert indexes and counts at a time, the shortest tail of rows inserted one by one that extends them (`TopKImpacts`), the rows
    /// FTS5 scores in the time of one statement over a block, the rows of a term's delta of a chunk that fold it into
    /// the chunk's postings (`ImpactDelta`), the statements or entries of the log of changed rows that fold it
    /// (`ImpactLog`), whether searches may take the postings plan (`TopKSearch`), and the
    /// ratios of the listed terms' rows to a rare group's rows at which an all-terms query with a group of rare terms
    /// takes it too (their rows read through FTS5); tests lower them, and turn the postings plan off to test the others.
    let impactSizes = Locked((rows: 20_000, listed: 100, block: Int64(256), chunk: 64, piece: 8_192, tail: 1_000,
                              statementRows: 30, delta: 64, logRows: 512, logEntries: 32_768, postings: true, rareRowsRatio: 4.0...4_096.0))

    /// See ``Database/fullTextBulkThreshold``.
    var bulkThreshold: Int {
        get { threshold.withLock { $0 } }
        set { threshold.withLock { $0 = max(1, newValue) } }
    }
}
