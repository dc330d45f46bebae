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
        let index: SyncedIndex
        let name: [CChar]
        /// Position of each indexed column in the content table.
        let positions: [Int32]
        /// The index writes, prepared on first use (preparing needs the index's tokenizer) and kept for the
        /// connection's lifetime, so the per-row path does no lookups.
        let statements: TargetStatements
    }

    final class TargetStatements {
        var insert: OpaquePointer?
        var delete: OpaquePointer?
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
    }

    private(set) var schemaVersion: Int64 = -1
    private(set) var targets: [Target] = []
    var pending: [Change] = []
    private var values: [OpaquePointer?] = []
    /// Targets whose inserts are being bulk-loaded: only their new rowids are collected.
    var bulkTargets: Set<Int> = []
    var bulkRowids: [Int64] = []

    var isActive: Bool { !targets.isEmpty }

    deinit { discardPending() }

    func target(forContent table: String) -> Int? { targets.firstIndex { $0.index.content == table } }

    /// Reloads the synced indexes when the schema changed since the last look.
    func refresh(on handle: Handle) throws {
        let version = try handle.schemaVersion()
        guard version != schemaVersion else { return }
        let indexes = try SyncedIndex.load(on: handle).filter { $0.mode == .explicit }
        var loaded: [Target] = []
        do {
            for index in indexes {
                let names = try Database.columnNames(of: index.content, on: handle)
                let positions = index.columns.compactMap { column in names.firstIndex(of: column).map(Int32.init) }
                guard positions.count == index.columns.count else { continue }
                loaded.append(Target(index: index, name: Array(index.content.utf8CString), positions: positions,
                                     statements: TargetStatements()))
            }
        }
        let wasActive = isActive
        targets = loaded
        schemaVersion = version
        if isActive && !wasActive {
            sqlite3_preupdate_hook(handle.raw, preupdateCallback, Unmanaged.passUnretained(handle).toOpaque())
        } else if !isActive && wasActive {
            sqlite3_preupdate_hook(handle.raw, nil, nil)
        }
    }

    func uninstall(from handle: Handle) {
        if isActive { sqlite3_preupdate_hook(handle.raw, nil, nil) }
        discardPending()
        targets = []
    }

    // MARK: - Recording (inside the hook: no SQL allowed here)

    fileprivate func record(_ db: OpaquePointer, _ op: Int32, _ zDb: UnsafePointer<CChar>, _ zName: UnsafePointer<CChar>,
                            _ key1: Int64, _ key2: Int64) {
        guard strcmp(zDb, "main") == 0 else { return }
        guard let t = targets.firstIndex(where: { target in
            target.name.withUnsafeBufferPointer { name in name.baseAddress.map { strcmp($0, zName) == 0 } ?? false }
        }) else { return }
        if bulkTargets.contains(t) {
            if op == SQLITE_INSERT { bulkRowids.append(key2); return }
        }
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
            if key1 == key2 && !indexedValuesChanged(db, positions) { return }
            copy(db, positions, sqlite3_preupdate_old)
            copy(db, positions, sqlite3_preupdate_new)
            pending.append(Change(target: t, oldRowid: key1, newRowid: key2, start: start, oldCount: positions.count,
                                  newCount: positions.count))
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

    /// An update that leaves every indexed column as it was does not touch the index.
    private func indexedValuesChanged(_ db: OpaquePointer, _ positions: [Int32]) -> Bool {
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
        defer { discardPending(keepBulk: true) }
        for change in pending {
            let target = targets[change.target]
            let statements = target.statements
            if change.oldCount > 0 {
                if statements.delete == nil { statements.delete = try handle.prepareUnmanaged(target.index.deleteSQL) }
                if let delete = statements.delete { try apply(delete, change.oldRowid, change.start, change.oldCount, on: handle) }
            }
            if change.newCount > 0 {
                if statements.insert == nil { statements.insert = try handle.prepareUnmanaged(target.index.insertSQL) }
                if let insert = statements.insert {
                    try apply(insert, change.newRowid, change.start + change.oldCount, change.newCount, on: handle)
                }
            }
        }
    }

    private func apply(_ stmt: OpaquePointer, _ rowid: Int64, _ start: Int, _ count: Int, on handle: Handle) throws {
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        sqlite3_bind_int64(stmt, 1, rowid)
        for i in 0..<count { sqlite3_bind_value(stmt, Int32(i + 2), values[start + i]) }
        while try handle.stepUnsynced(stmt) {}
    }

    /// Indexes the rows collected while `target` was bulk-loading: one `INSERT ... SELECT` per run of
    /// consecutive rowids, which lets FTS5 build its segments in large batches.
    func finishBulk(_ target: Int, on handle: Handle) throws {
        bulkTargets.remove(target)
        let rowids = bulkRowids.sorted()
        bulkRowids.removeAll()
        guard var low = rowids.first else { return }
        var high = low
        let index = targets[target].index
        let sql = index.insertRangeSQL
        // A larger pending-terms buffer for the one pass means fewer, larger segments to write and merge.
        let previousHashSize = try index.hashSize(on: handle)
        try index.setHashSize(SyncedIndex.bulkHashSize, on: handle)
        defer { try? index.setHashSize(previousHashSize, on: handle) }
        func flushRange() throws {
            try handle.withStatement(sql) { stmt in
                sqlite3_bind_int64(stmt, 1, low)
                sqlite3_bind_int64(stmt, 2, high)
                while try handle.stepUnsynced(stmt) {}
            }
        }
        for rowid in rowids.dropFirst() {
            if rowid == high + 1 { high = rowid; continue }
            if rowid == high { continue }
            try flushRange()
            low = rowid
            high = rowid
        }
        try flushRange()
    }

    /// Forgets recorded changes (after applying them, or because their statement failed and was undone).
    func discardPending(keepBulk: Bool = false) {
        if !keepBulk {
            bulkTargets.removeAll()
            bulkRowids.removeAll()
        }
        for value in values { sqlite3_value_free(value) }
        values.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
    }
}

private let preupdateCallback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?,
                                               UnsafePointer<CChar>?, Int64, Int64) -> Void = { context, db, op, zDb, zName, key1, key2 in
    guard let context, let db, let zDb, let zName else { return }
    Unmanaged<Handle>.fromOpaque(context).takeUnretainedValue().sync?.record(db, op, zDb, zName, key1, key2)
}
