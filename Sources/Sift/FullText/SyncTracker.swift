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
        let insertSQL: String
        let deleteSQL: String
    }

    struct Change {
        let target: Int
        let oldRowid: Int64
        let newRowid: Int64
        var old: [OpaquePointer?]
        var new: [OpaquePointer?]
    }

    private(set) var schemaVersion: Int64 = -1
    private(set) var targets: [Target] = []
    var pending: [Change] = []
    /// Targets whose inserts are being bulk-loaded: only their new rowids are collected.
    var bulkTargets: Set<Int> = []
    var bulkRowids: [Int64] = []

    var isActive: Bool { !targets.isEmpty }

    deinit { discardPending() }

    func target(forContent table: String) -> Int? { targets.firstIndex { $0.index.content == table } }

    /// Reloads the synced indexes when the schema changed since the last look.
    func refresh(on handle: Handle) throws {
        let version = try handle.withStatement("PRAGMA schema_version") { stmt -> Int64 in
            _ = try handle.step(stmt)
            return sqlite3_column_int64(stmt, 0)
        }
        guard version != schemaVersion else { return }
        let indexes = try SyncedIndex.load(on: handle).filter { $0.mode == .explicit }
        var loaded: [Target] = []
        for index in indexes {
            let names = try Database.columnNames(of: index.content, on: handle)
            let positions = index.columns.compactMap { column in names.firstIndex(of: column).map(Int32.init) }
            guard positions.count == index.columns.count else { continue }
            loaded.append(Target(index: index, name: Array(index.content.utf8CString), positions: positions,
                                 insertSQL: index.insertSQL, deleteSQL: index.deleteSQL))
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
        switch op {
        case SQLITE_INSERT:
            pending.append(Change(target: t, oldRowid: key1, newRowid: key2, old: [], new: copy(db, positions, sqlite3_preupdate_new)))
        case SQLITE_DELETE:
            // A blob write reports as a delete without new values; Sift never uses incremental blob I/O on content tables.
            pending.append(Change(target: t, oldRowid: key1, newRowid: key2, old: copy(db, positions, sqlite3_preupdate_old), new: []))
        case SQLITE_UPDATE:
            if key1 == key2 && !indexedValuesChanged(db, positions) { return }
            pending.append(Change(target: t, oldRowid: key1, newRowid: key2, old: copy(db, positions, sqlite3_preupdate_old),
                                  new: copy(db, positions, sqlite3_preupdate_new)))
        default:
            return
        }
    }

    private func copy(_ db: OpaquePointer, _ positions: [Int32],
                      _ read: (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32) -> [OpaquePointer?] {
        positions.map { position in
            var value: OpaquePointer?
            guard read(db, position, &value) == SQLITE_OK else { return nil }
            return sqlite3_value_dup(value)
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
        let changes = pending
        pending.removeAll(keepingCapacity: true)
        defer { changes.forEach(SyncTracker.free) }
        for change in changes {
            let target = targets[change.target]
            if !change.old.isEmpty { try apply(target.deleteSQL, change.oldRowid, change.old, on: handle) }
            if !change.new.isEmpty { try apply(target.insertSQL, change.newRowid, change.new, on: handle) }
        }
    }

    private func apply(_ sql: String, _ rowid: Int64, _ values: [OpaquePointer?], on handle: Handle) throws {
        try handle.withStatement(sql) { stmt in
            sqlite3_bind_int64(stmt, 1, rowid)
            for (i, value) in values.enumerated() { sqlite3_bind_value(stmt, Int32(i + 2), value) }
            while try handle.stepUnsynced(stmt) {}
        }
    }

    /// Indexes the rows collected while `target` was bulk-loading: one `INSERT ... SELECT` per run of
    /// consecutive rowids, which lets FTS5 build its segments in large batches.
    func finishBulk(_ target: Int, on handle: Handle) throws {
        bulkTargets.remove(target)
        let rowids = bulkRowids.sorted()
        bulkRowids.removeAll()
        guard var low = rowids.first else { return }
        var high = low
        let sql = targets[target].index.insertRangeSQL
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

    func discardPending() {
        bulkTargets.removeAll()
        bulkRowids.removeAll()
        pending.forEach(SyncTracker.free)
        pending.removeAll()
    }

    private static func free(_ change: Change) {
        change.old.forEach { sqlite3_value_free($0) }
        change.new.forEach { sqlite3_value_free($0) }
    }
}

private let preupdateCallback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?,
                                               UnsafePointer<CChar>?, Int64, Int64) -> Void = { context, db, op, zDb, zName, key1, key2 in
    guard let context, let db, let zDb, let zName else { return }
    Unmanaged<Handle>.fromOpaque(context).takeUnretainedValue().sync?.record(db, op, zDb, zName, key1, key2)
}
