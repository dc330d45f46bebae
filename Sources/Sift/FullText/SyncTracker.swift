import CSQLite
import Foundation

/// The writer connection's view of the synced indexes, and the index changes waiting to be applied.
///
/// SQLite's pre-update hook reports every row change with its old and new values (inserts, updates,
/// deletes, REPLACE conflicts, cascades); for content tables with an explicit-mode index the hook copies
/// the indexed columns' values (`sqlite3_value_dup`, no Swift allocation), and right after the statement
/// step Sift writes the index in the same transaction. No triggers, no statement savepoints per row.
final class SyncTracker {
    struct Target {
        /// What follows the content table's rows: a full-text index, with its writes (prepared on first use:
        /// preparing needs the index's tokenizer; kept for the connection's lifetime, so the per-row path does no
        /// lookups) and its score bounds, or a vector index (its one column's values).
        enum Owner {
            case text(SyncedIndex, TargetStatements)
            case vectors(VectorFollower)
        }

        let content: String
        let name: [CChar]
        /// Position of each indexed column in the content table.
        let positions: [Int32]
        /// Position of each facet column in the content table (`FacetStore`): an update of these alone is recorded
        /// for the facets, without touching the index (none for a vector index).
        let facetPositions: [Int32]
        /// Whether the index declares facets: without, its facet follower is never told of a row (its per-statement
        /// look at the schema cost 5-7% of a row-by-row insert).
        var hasFacets = false
        let owner: Owner

        /// The full-text index, when the target is one.
        var index: SyncedIndex? {
            if case .text(let index, _) = owner { return index }
            return nil
        }
    }

    final class TargetStatements {
        var insert: OpaquePointer?
        var delete: OpaquePointer?
        /// What the index's score bounds are told of its row changes (the bounds' one interface for them).
        let bounds: IndexBoundsFollower
        /// What the index's facets are told of its row changes (the facets' one interface for them).
        let facets: FacetStore.Follower
        /// What the index's stored term dictionary is told of its row changes, and where they are tokenized.
        let dictionary: TermDictionaryStore.Writer
        init(_ index: SyncedIndex) {
            bounds = IndexBoundsFollower(index)
            facets = FacetStore.Follower(index)
            dictionary = TermDictionaryStore.Writer(index)
        }
        deinit {
            sqlite3_finalize(insert)
            sqlite3_finalize(delete)
        }
    }

    /// One row change; its values live in `values` (old ones, then new ones), so recording allocates nothing.
    struct Change {
        let target: Int
        let oldRowid: Int64
        let newRowid: Int64
        let start: Int
        let oldCount: Int
        let newCount: Int
        /// An update of facet columns alone: the facets follow it, the index and its bounds do not.
        var facetsOnly = false
        /// An update in place that left every facet column as it was: the index and its bounds follow it, the
        /// facets do not (their chunks would be written again with the same ordinals).
        var facetsUnchanged = false
    }

    /// Keeps the term dictionaries of typo-tolerant searches up to date with the row changes applied here.
    let dictionaries = TermDictionaryFollower()
    private(set) var schemaVersion: Int64 = -1
    /// Whether this connection turned on recursive triggers for trigger-synced indexes.
    private var recursiveTriggers = false
    private(set) var targets: [Target] = [] {
        didSet { indexNames = Set(targets.compactMap { $0.index?.index }) }
    }
    /// The names of the full-text indexes among `targets`: a statement's written tables are looked up here once it
    /// steps, without copying each target.
    private(set) var indexNames: Set<String> = []
    var pending: [Change] = []
    private var values: [OpaquePointer?] = []
    /// The content table being bulk-loaded (see `beginBulk`): only its new rowids are collected, once for all
    /// of its indexes.
    private var bulkContent: [CChar]?
    private var bulkRowids: [Int64] = []
    /// Content tables a migration step is rewriting: their indexes are rebuilt when the step ends, so their row
    /// changes are not followed meanwhile (their columns may move while the step runs).
    private var suspended: Set<String> = []

    var isActive: Bool { !targets.isEmpty }

    deinit {
        discardPending()
        endBulk()
    }

    /// Reloads the synced indexes when the schema changed since the last look.
    func refresh(on handle: Handle) throws {
        let version = try handle.schemaVersion()
        guard version != schemaVersion else { return }
        let all = try SyncedIndex.load(on: handle)
        // A REPLACE deletes the rows it conflicts with without firing their delete triggers unless recursive
        // triggers are on: trigger-synced indexes would keep the replaced rows' words.
        if all.contains(where: { $0.mode == .trigger }) && !recursiveTriggers {
            try handle.execute("PRAGMA recursive_triggers = ON")
            recursiveTriggers = true
        }
        let indexes = all.filter { $0.mode == .explicit && !suspended.contains($0.content) }
        var loaded: [Target] = []
        for index in indexes {
            let names = try handle.columnNames(of: index.content)
            let positions = index.columns.compactMap { column in names.firstIndex(of: column).map(Int32.init) }
            guard positions.count == index.columns.count else { continue }
            let declared = try FacetStore.declared(index.index, on: handle)
            let facetPositions = declared.compactMap { facet in names.firstIndex(of: facet.column).map(Int32.init) }
            loaded.append(Target(content: index.content, name: Array(index.content.utf8CString), positions: positions,
                                 facetPositions: facetPositions, hasFacets: !declared.isEmpty,
                                 owner: .text(index, TargetStatements(index))))
        }
        // Vector indexes follow their one column through the same hook and the same flush.
        for index in try VectorIndex.load(on: handle) where !suspended.contains(index.content) {
            guard let position = try handle.columnNames(of: index.content).firstIndex(of: index.column) else { continue }
            loaded.append(Target(content: index.content, name: Array(index.content.utf8CString), positions: [Int32(position)],
                                 facetPositions: [], owner: .vectors(VectorFollower(index))))
        }
        let wasActive = isActive
        targets = loaded
        schemaVersion = version
        if isActive && !wasActive {
            // The hook's context is the tracker itself; `uninstall` removes the hook before the tracker goes.
            sqlite3_preupdate_hook(handle.raw, preupdateCallback, Unmanaged.passUnretained(self).toOpaque())
        } else if !isActive && wasActive {
            sqlite3_preupdate_hook(handle.raw, nil, nil)
        }
        handle.isObserved = isActive
    }

    /// Stops following `content` until `resume`: a migration step is rewriting it.
    func suspend(_ content: String, on handle: Handle) throws {
        suspended.insert(content)
        schemaVersion = -1
        try refresh(on: handle)
    }

    /// Follows `content` again once its migration step has committed or rolled back.
    func resume(_ content: String, on handle: Handle) {
        suspended.remove(content)
        schemaVersion = -1
        // When the reload fails here, the next checkout of the writer retries it (the version no longer matches).
        try? refresh(on: handle)
    }

    func uninstall(from handle: Handle) {
        if isActive { sqlite3_preupdate_hook(handle.raw, nil, nil) }
        handle.isObserved = false
        discardPending()
        endBulk()
        targets = []
    }

    // MARK: - Recording (inside the hook: no SQL allowed here)

    fileprivate func record(_ db: OpaquePointer, _ op: Int32, _ zDb: UnsafePointer<CChar>, _ zName: UnsafePointer<CChar>,
                            _ key1: Int64, _ key2: Int64) {
        guard strcmp(zDb, "main") == 0 else { return }
        if op == SQLITE_INSERT, let bulkContent, Self.same(bulkContent, zName) {
            bulkRowids.append(key2)
            return
        }
        // A content table may have several indexes (different tokenizers or columns): each records the change.
        for t in targets.indices where Self.same(targets[t].name, zName) {
            record(t, db, op, key1, key2)
        }
    }

    private static func same(_ name: [CChar], _ other: UnsafePointer<CChar>) -> Bool {
        name.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { strcmp($0, other) == 0 } ?? false }
    }

    private func record(_ t: Int, _ db: OpaquePointer, _ op: Int32, _ key1: Int64, _ key2: Int64) {
        let positions = targets[t].positions
        let start = values.count
        switch op {
        case SQLITE_INSERT:
            copy(db, positions, sqlite3_preupdate_new)
            pending.append(Change(target: t, oldRowid: key1, newRowid: key2, start: start, oldCount: 0, newCount: positions.count))
        case SQLITE_DELETE:
            // A blob write reports as a delete without new values; Sift never uses incremental blob I/O on content tables.
            copy(db, positions, sqlite3_preupdate_old)
            pending.append(Change(target: t, oldRowid: key1, newRowid: key2, start: start, oldCount: positions.count, newCount: 0))
        case SQLITE_UPDATE:
            if key1 == key2 && !valuesChanged(db, positions) {
                let facets = targets[t].facetPositions
                if !facets.isEmpty && valuesChanged(db, facets) {
                    pending.append(Change(target: t, oldRowid: key1, newRowid: key2, start: start, oldCount: 0, newCount: 0,
                                          facetsOnly: true))
                }
                return
            }
            let facets = targets[t].facetPositions
            copy(db, positions, sqlite3_preupdate_old)
            copy(db, positions, sqlite3_preupdate_new)
            pending.append(Change(target: t, oldRowid: key1, newRowid: key2, start: start, oldCount: positions.count,
                                  newCount: positions.count,
                                  facetsUnchanged: key1 == key2 && !facets.isEmpty && !valuesChanged(db, facets)))
        default:
            return
        }
    }

    private func copy(_ db: OpaquePointer, _ positions: [Int32],
                      _ read: (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32) {
        for position in positions {
            var value: OpaquePointer?
            values.append(read(db, position, &value) == SQLITE_OK ? sqlite3_value_dup(value) : nil)
        }
    }

    /// Whether an update changed any of the columns at `positions` (an update that leaves every indexed column as it
    /// was does not touch the index).
    private func valuesChanged(_ db: OpaquePointer, _ positions: [Int32]) -> Bool {
        for position in positions {
            var old: OpaquePointer?, new: OpaquePointer?
            guard sqlite3_preupdate_old(db, position, &old) == SQLITE_OK, sqlite3_preupdate_new(db, position, &new) == SQLITE_OK
            else { return true }
            let type = sqlite3_value_type(old)
            if type != sqlite3_value_type(new) { return true }
            switch type {
            case SQLITE_NULL: continue
            case SQLITE_INTEGER: if sqlite3_value_int64(old) != sqlite3_value_int64(new) { return true }
            case SQLITE_FLOAT: if sqlite3_value_double(old) != sqlite3_value_double(new) { return true }
            default:
                let n = sqlite3_value_bytes(old)
                if n != sqlite3_value_bytes(new) { return true }
                let a = sqlite3_value_blob(old), b = sqlite3_value_blob(new)
                if n > 0, let a, let b, memcmp(a, b, Int(n)) != 0 { return true }
            }
        }
        return false
    }

    // MARK: - Applying (right after the statement step, same transaction)

    func flush(on handle: Handle) throws {
        defer {
            discardPending()
            // Each vector index reads its state again at the next statement's first change.
            for target in targets { if case .vectors(let follower) = target.owner { follower.statementApplied() } }
        }
        var touched: Set<Int> = []
        var refused: SiftError?
        for change in pending {
            guard case .text(let index, let statements) = targets[change.target].owner else {
                if case .vectors(let follower) = targets[change.target].owner {
                    try follower.rowChanged(old: change.oldCount > 0 ? change.oldRowid : nil,
                                            new: change.newCount > 0 ? change.newRowid : nil,
                                            value: change.newCount > 0 ? values[change.start + change.oldCount] : nil, on: handle)
                    if refused == nil { refused = follower.takeFailure() }
                }
                continue
            }
            touched.insert(change.target)
            let facets = targets[change.target].hasFacets
            if change.facetsOnly {
                statements.facets.rowChanged(old: change.oldRowid, new: change.newRowid)
                continue
            }
            // Compressed columns reach the index, its bounds and the comparison below as their plain text; an update
            // that re-encodes a row (compressRows) leaves the text, so the index and its bounds, as it was.
            if !index.compressedColumns.isEmpty {
                try decompress(change, columns: index.compressedColumns, on: handle)
                if change.oldCount > 0 && change.newCount > 0 && change.oldRowid == change.newRowid
                    && (0..<change.oldCount).allSatisfy({ Self.equal(values[change.start + $0], values[change.start + change.oldCount + $0]) }) {
                    if facets && !change.facetsUnchanged { statements.facets.rowChanged(old: change.oldRowid, new: change.newRowid) }
                    continue
                }
            }
            if facets && !change.facetsUnchanged {
                statements.facets.rowChanged(old: change.oldCount > 0 ? change.oldRowid : nil,
                                             new: change.newCount > 0 ? change.newRowid : nil)
            }
            // The row's text as FTS5 indexes it: the old values, then the new ones.
            let text = { (side: Int, column: Int) -> UnsafeBufferPointer<UInt8>? in
                let at = change.start + (side == 0 ? 0 : change.oldCount) + column
                guard let value = self.values[at], sqlite3_value_type(value) != SQLITE_NULL,
                      let text = sqlite3_value_text(value) else { return nil }
                return UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
            }
            // Before the index is written: the dictionary's follower reads the index as the transaction found it. The
            // row is tokenized once for the stored dictionary's log and the one kept in memory.
            let logging = try statements.dictionary.isLogging(on: handle)
            if try dictionaries.follows(index, on: handle) || logging {
                try statements.dictionary.rowChanged(old: change.oldCount > 0 ? change.oldRowid : nil,
                                                     new: change.newCount > 0 ? change.newRowid : nil, text: text, on: handle)
            }
            if change.oldCount > 0 {
                if statements.delete == nil { statements.delete = try handle.prepareUnmanaged(index.deleteSQL) }
                if let delete = statements.delete { try apply(delete, change.oldRowid, change.start, change.oldCount, on: handle) }
            }
            if change.newCount > 0 {
                if statements.insert == nil { statements.insert = try handle.prepareUnmanaged(index.insertSQL) }
                if let insert = statements.insert {
                    try apply(insert, change.newRowid, change.start + change.oldCount, change.newCount, on: handle)
                }
            }
            try statements.bounds.rowChanged(old: change.oldCount > 0 ? change.oldRowid : nil,
                                             new: change.newCount > 0 ? change.newRowid : nil,
                                             columns: targets[change.target].positions.count, text: text, on: handle)
        }
        // The bounds and the facets follow once the changes are applied (what they step is observed: the recorded
        // values go first).
        discardPending()
        for t in touched {
            guard case .text(let index, let statements) = targets[t].owner else { continue }
            try statements.bounds.statementApplied(on: handle)
            if targets[t].hasFacets { try statements.facets.statementApplied(on: handle) }
            let following = dictionaries.isFollowing(index.index)
            if let changes = try statements.dictionary.statementApplied(decoding: following, on: handle), following {
                dictionaries.statementChanged(index.index, changes)
            }
        }
        // Every change is applied (the indexes agree with the rows as written); a refused vector fails the statement.
        if let refused { throw handle.pool.report(refused) }
    }

    /// Replaces the recorded values of `change`'s compressed `columns` (old and new) by their plain values.
    private func decompress(_ change: Change, columns: [Int], on handle: Handle) throws {
        let sides = (change.oldCount > 0 ? [change.start] : []) + (change.newCount > 0 ? [change.start + change.oldCount] : [])
        let framed = sides.flatMap { side in columns.map { side + $0 } }.filter { sqlite3_value_type(values[$0]) == SQLITE_BLOB }
        guard !framed.isEmpty else { return }
        try handle.withStatement("SELECT sift_decompress(?)") { stmt in
            for at in framed {
                defer { sqlite3_reset(stmt); sqlite3_clear_bindings(stmt) }
                sqlite3_bind_value(stmt, 1, values[at])
                guard try handle.stepUnobserved(stmt) else { continue }
                let plain = sqlite3_value_dup(sqlite3_column_value(stmt, 0))
                sqlite3_value_free(values[at])
                values[at] = plain
            }
        }
    }

    /// Whether two recorded values are the same value.
    private static func equal(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Bool {
        let type = sqlite3_value_type(a)
        guard type == sqlite3_value_type(b) else { return false }
        switch type {
        case SQLITE_NULL: return true
        case SQLITE_INTEGER: return sqlite3_value_int64(a) == sqlite3_value_int64(b)
        case SQLITE_FLOAT: return sqlite3_value_double(a) == sqlite3_value_double(b)
        default:
            let n = sqlite3_value_bytes(a)
            guard n == sqlite3_value_bytes(b) else { return false }
            guard n > 0, let x = sqlite3_value_blob(a), let y = sqlite3_value_blob(b) else { return true }
            return memcmp(x, y, Int(n)) == 0
        }
    }

    private func apply(_ stmt: OpaquePointer, _ rowid: Int64, _ start: Int, _ count: Int, on handle: Handle) throws {
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        sqlite3_bind_int64(stmt, 1, rowid)
        for i in 0..<count { sqlite3_bind_value(stmt, Int32(i + 2), values[start + i]) }
        while try handle.stepUnobserved(stmt) {}
    }

    // MARK: - Batches of inserts

    /// A batch of `rows` inserts into `content`, each row indexed as it comes (below the bulk threshold), begins:
    /// the stored term dictionaries of its indexes log the batch's changes once, when it ends (`batchEnded`).
    func batchBegan(inserting rows: Int, into content: String) {
        for target in targets where target.content == content {
            if case .text(_, let statements) = target.owner { statements.dictionary.batchBegan(rows: rows) }
        }
    }

    /// The batch begun by `batchBegan` ended: `completed` (its transaction still open), or failed and being rolled
    /// back.
    func batchEnded(completed: Bool, on handle: Handle) throws {
        for target in targets {
            guard case .text(let index, let statements) = target.owner else { continue }
            let following = completed && dictionaries.isFollowing(index.index)
            if let changes = try statements.dictionary.batchEnded(completed: completed, decoding: following, on: handle),
               following {
                dictionaries.statementChanged(index.index, changes)
            }
        }
    }

    // MARK: - Bulk loading

    /// Starts collecting the rowids of rows inserted into `content` instead of indexing them one by one; false
    /// when no synced index covers that table. Every path out must end with `finishBulk` or `endBulk`.
    func beginBulk(content: String) -> Bool {
        guard bulkContent == nil, targets.contains(where: { $0.content == content }) else { return false }
        bulkContent = Array(content.utf8CString)
        bulkRowids.removeAll(keepingCapacity: true)
        return true
    }

    /// Stops bulk loading and forgets the collected rowids (their statement failed and was rolled back, or they
    /// were indexed). Safe to call when no bulk load is under way.
    func endBulk() {
        bulkContent = nil
        bulkRowids.removeAll()
    }

    /// Indexes the rows collected since `beginBulk` into every index of the content table: one
    /// `INSERT ... SELECT` per run of consecutive rowids (8,192 rows at most: `impactSizes.piece`), which lets FTS5 build its segments in
    /// large batches, while the index's score bounds count the same rows on a worker thread (`TopKImpacts.Follower`).
    /// The bulk state is cleared first, so nothing of it survives a failure here.
    func finishBulk(on handle: Handle) throws {
        guard let content = bulkContent.map({ name in
            String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }) else { return }
        let rowids = bulkRowids.sorted()
        endBulk()
        for target in targets where target.content == content {
            guard case .text(let index, let statements) = target.owner else {
                if case .vectors(let follower) = target.owner { try follower.bulkInserted(rowids, on: handle) }
                continue
            }
            // Tokenizing every row again for the dictionaries would cost about what reading the vocabulary does
            // once the load is over: the next typo-tolerant search reads it, until `optimize(index:)` stores it.
            dictionaries.indexWrittenDirectly(index.index)
            try TermDictionaryStore.markStale(index.index, on: handle)
            let impacts = try TopKImpacts.Follower(bulkInsertOf: rowids, into: index, on: handle)
            let piece = handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.piece }
            // FTS5 writes the pass's segments and merges them as each statement ends: set for a batch.
            try BatchSetting.raising([.hashSize, .automerge], in: index.index, on: handle) {
                try Self.index(rowids, into: index, pieceRows: piece, on: handle) { rows, count in
                    try impacts.willIndex(rows, count: count, on: handle)
                }
            }
            try impacts.finish(on: handle)
            statements.bounds.bulkLoaded()
            try statements.facets.bulkInserted(rowids, on: handle)
        }
    }

    /// `willIndex` is called before each statement with its rowid range and how many of `rowids` it holds
    /// (at most `pieceRows`).
    private static func index(_ rowids: [Int64], into index: SyncedIndex, pieceRows: Int, on handle: Handle,
                              willIndex: (ClosedRange<Int64>, Int) throws -> Void) throws {
        guard var low = rowids.first else { return }
        var high = low, count = 1
        let sql = index.insertRangeSQL
        func flushRange() throws {
            try willIndex(low...high, count)
            try handle.withStatement(sql) { stmt in
                sqlite3_bind_int64(stmt, 1, low)
                sqlite3_bind_int64(stmt, 2, high)
                while try handle.stepUnobserved(stmt) {}
            }
        }
        for rowid in rowids.dropFirst() {
            if rowid == high + 1 && count < pieceRows { high = rowid; count += 1; continue }
            if rowid == high { continue }
            try flushRange()
            low = rowid
            high = rowid
            count = 1
        }
        try flushRange()
    }

    /// Forgets recorded changes (after applying them, or because their statement failed and was undone).
    func discardPending() {
        for value in values { sqlite3_value_free(value) }
        values.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
    }
}

private let preupdateCallback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?,
                                               UnsafePointer<CChar>?, Int64, Int64) -> Void = { context, db, op, zDb, zName, key1, key2 in
    guard let context, let db, let zDb, let zName else { return }
    Unmanaged<SyncTracker>.fromOpaque(context).takeUnretainedValue().record(db, op, zDb, zName, key1, key2)
}
