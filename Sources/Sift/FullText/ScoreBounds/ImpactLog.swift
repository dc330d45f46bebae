import CSQLite
import Foundation
import SiftRank

/// How the listed terms' counts changed in rows at or below the watermark, by the statements since the log was last
/// folded: one row per statement in `<index>_sift_impacts_log`, `(seq, n, total, entries, checksum)`, appended by the
/// statement's transaction (`TopKImpacts.RowFollower`).
///
/// A statement that changes a few rows changes one or two dozen listed terms in each, and their deltas
/// (`ImpactDelta`) and blocks sit on as many pages: written each time, they made a one-row update cost three times
/// raw FTS5's. Appended here, its changes take one row; the statement that brings the log to `impactSizes.logRows`
/// statements or `impactSizes.logEntries` entries folds it, all statements at once, into the deltas and blocks
/// (each term's delta and blocks of a chunk written once for all of them), and empties it. A search reads the log
/// with the terms' blocks (`TopKImpacts.stored`): each entry of its terms puts the row's counts now in place of the
/// postings', changes the term's row and instance counts, and raises the row's block maxima, in memory.
///
/// `entries`: per term, in term order, the term's length in bytes and its bytes, the length in bytes of what follows
/// for it, the number of rows and, per row in rowid order, its distance from the previous row's rowid (the first
/// one's from 0) and per column the term's count now, the column's length now (0 where the row no longer holds the
/// term) and the count's change (zigzag), all unsigned LEB128. `n` is the number of entries (a term in a row), `total`
/// the log's entries up to the row; `checksum`, `sift_bounds_check(seq, n, total, entries, previous)`, with `previous`
/// the checksum of the row before (0 for the first): the last row's checksum stands for the whole log, which lets
/// searches keep its changes decoded (`Cache`) and read only the rows appended since.
enum ImpactLog {
    static func table(_ index: String) -> String { index + "_sift_impacts_log" }

    static func createSQL(_ index: String) -> String {
        "CREATE TABLE \(SQLBuilder.quote(table(index)))(seq INTEGER PRIMARY KEY, n INTEGER NOT NULL, total INTEGER NOT NULL, "
            + "entries BLOB NOT NULL, checksum INTEGER NOT NULL)"
    }

    /// The log's last row: its `seq` (the log's statements: they count from 1 after each fold), the entries of
    /// the log up to it (`total`) and its checksum (`check`), which the next row's chains to.
    struct Last: Equatable {
        var seq: Int64 = 0
        var total: Int64 = 0
        var check: Int64 = 0
    }

    /// The statement that reads the log's last row (`Last`), nothing when the log is empty.
    static func lastSQL(_ index: String) -> String {
        "SELECT seq, total, checksum FROM \(SQLBuilder.quote(table(index))) ORDER BY seq DESC LIMIT 1"
    }

    /// The statement that appends a row: seq, n, total, entries and the last row's checksum (0 for the first).
    static func appendSQL(_ index: String) -> String {
        "INSERT INTO \(SQLBuilder.quote(table(index)))(seq, n, total, entries, checksum) "
            + "VALUES(?1, ?2, ?3, ?4, sift_bounds_check(?1, ?2, ?3, ?4, ?5))"
    }

    /// The statement that reads the log's rows in order, all of them or (`after`) those past the seq bound to it.
    static func readSQL(_ index: String, after: Bool) -> String {
        "SELECT seq, n, total, entries, checksum FROM \(SQLBuilder.quote(table(index)))\(after ? " WHERE seq > ?1" : "") ORDER BY seq"
    }

    /// One term's change in one row: its count in each column now, the row's column lengths now, and how each count
    /// changed (the counts before are `now - difference`), in one array of three numbers a column.
    struct Change {
        private var values: [Int64]

        init(columns: Int) {
            values = [Int64](repeating: 0, count: 3 * columns)
        }

        var columns: Int { values.count / 3 }
        func now(_ column: Int) -> Int32 { Int32(truncatingIfNeeded: values[column]) }
        func length(_ column: Int) -> Int32 { Int32(truncatingIfNeeded: values[columns + column]) }
        func difference(_ column: Int) -> Int64 { values[2 * columns + column] }

        /// Sets the count now and the length now of `column` (from 0 to Int32.max).
        mutating func set(now: Int32, length: Int32, in column: Int) {
            (values[column], values[columns + column]) = (Int64(now), Int64(length))
        }

        mutating func add(difference: Int64, in column: Int) {
            values[2 * columns + column] += difference
        }

        var holdsNow: Bool { (0..<columns).contains { values[$0] > 0 } }
        var heldBefore: Bool { (0..<columns).contains { values[$0] - values[2 * columns + $0] > 0 } }
        var changesCounts: Bool { (0..<columns).contains { values[2 * columns + $0] != 0 } }
        /// The change of the term's instances in the row.
        var instances: Int64 { (0..<columns).reduce(0) { $0 + values[2 * columns + $1] } }

        /// Appends the counts now, one a column.
        func appendCounts(to counts: inout [Int32]) {
            for c in 0..<columns { counts.append(now(c)) }
        }

        /// This change followed by `later`, a change of the same term in the same row.
        mutating func then(_ later: Change) {
            let columns = self.columns
            for c in 0..<2 * columns { values[c] = later.values[c] }
            for c in 2 * columns..<3 * columns { values[c] += later.values[c] }
        }
    }

    /// One term's changes in one chunk: the rows whose counts changed, with their counts now (the rows a delta
    /// holds), the change of the term's row and instance counts, and the rows that hold the term now with their
    /// (count, length) per column (`ImpactBlock.add`'s stats), whose blocks' maxima are raised.
    struct ChunkChanges {
        let chunk: Int64
        var delta = ImpactPostings.Rows()
        var rows: Int64 = 0
        var instances: Int64 = 0
        var holding: [Int64] = []
        var stats: [Int32] = []

        /// Adds the change of row `rowid` (after the rows added before).
        mutating func add(_ rowid: Int64, _ change: Change) {
            if change.holdsNow {
                holding.append(rowid)
                for c in 0..<change.columns {
                    stats.append(change.now(c))
                    stats.append(change.length(c))
                }
            }
            guard change.changesCounts else { return }
            delta.rowids.append(rowid)
            change.appendCounts(to: &delta.counts)
            // Within Int64: a log holds fewer entries than a blob has bytes, each changing by Int32.max at most.
            rows += (change.holdsNow ? 1 : 0) - (change.heldBefore ? 1 : 0)
            instances += change.instances
        }

        /// Raises the maxima of the rows holding the term in `blocks`, whose block `first` is at offset 0.
        func raise(_ blocks: inout [UInt8], from first: Int64, block: Int64, columns: Int) {
            let stride = ImpactBlock.stride(columns: columns)
            stats.withUnsafeBufferPointer { stats in
                guard let stats = stats.baseAddress else { return }
                for (i, rowid) in holding.enumerated() {
                    ImpactBlock.add(stats + 2 * columns * i, columns: columns, into: &blocks, at: Int(rowid / block - first) * stride)
                }
            }
        }
    }

    /// Changes by term, then rowid.
    struct Changes {
        var terms: [String: [Int64: Change]] = [:]
        private(set) var count = 0

        var isEmpty: Bool { count == 0 }

        /// Records `change` of `term` in `rowid`, after any recorded before.
        mutating func add(_ term: String, _ rowid: Int64, _ change: Change) {
            if terms[term, default: [:]][rowid]?.then(change) == nil {
                terms[term, default: [:]][rowid] = change
                count += 1
            }
        }

        /// `later`'s changes recorded after these.
        mutating func add(_ later: Changes) {
            for (term, rows) in later.terms {
                for (rowid, change) in rows { add(term, rowid, change) }
            }
        }

        /// The changes of `term`, in rowid order.
        func rows(of term: String) -> [(rowid: Int64, change: Change)] {
            (terms[term] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }

        /// The changes of `term` per chunk of `chunkRows` rowids, in chunk order, as the fold writes them and a search
        /// applies them.
        func chunks(of term: String, chunkRows: Int64) -> [ChunkChanges] {
            var chunks: [ChunkChanges] = []
            for (rowid, change) in rows(of: term) {
                let chunk = rowid / chunkRows
                if chunks.last?.chunk != chunk { chunks.append(ChunkChanges(chunk: chunk)) }
                chunks[chunks.count - 1].add(rowid, change)
            }
            return chunks
        }

        /// The stored form (see `ImpactLog`).
        func encoded(columns: Int) -> [UInt8] {
            var bytes: [UInt8] = [], rows: [UInt8] = []
            for term in terms.keys.sorted() {
                rows.removeAll(keepingCapacity: true)
                let changes = self.rows(of: term)
                ImpactPostings.leb128(UInt64(changes.count), to: &rows)
                var previous: Int64 = 0
                for (rowid, change) in changes {
                    ImpactPostings.leb128(UInt64(rowid - previous), to: &rows)
                    previous = rowid
                    for c in 0..<columns {
                        ImpactPostings.leb128(UInt64(max(0, change.now(c))), to: &rows)
                        ImpactPostings.leb128(UInt64(max(0, change.length(c))), to: &rows)
                        let delta = change.difference(c)
                        ImpactPostings.leb128(delta >= 0 ? UInt64(delta) << 1 : UInt64(-delta) << 1 | 1, to: &rows)
                    }
                }
                let utf8 = Array(term.utf8)
                ImpactPostings.leb128(UInt64(utf8.count), to: &bytes)
                bytes += utf8
                ImpactPostings.leb128(UInt64(rows.count), to: &bytes)
                bytes += rows
            }
            return bytes
        }

        /// Adds the changes stored in `bytes` (one statement's, after those added before); false when they are
        /// damaged: they stop before their end, a count or length is negative or past Int32.max, a count before the
        /// change is, rowids do not rise within 1 up to `watermark`, or there are not `entries` of them.
        mutating func decode(_ bytes: [UInt8], columns: Int, watermark: Int64, entries: Int64) -> Bool {
            var at = 0, found: Int64 = 0
            func number() -> UInt64? {
                var value: UInt64 = 0, shift: UInt64 = 0
                while at < bytes.count, shift < 64 {
                    let byte = bytes[at]
                    at += 1
                    value |= UInt64(byte & 0x7F) << shift
                    if byte < 0x80 { return value }
                    shift += 7
                }
                return nil
            }
            let most = UInt64(Int32.max)
            while at < bytes.count {
                guard let termBytes = number(), termBytes <= UInt64(bytes.count - at) else { return false }
                let term = String(decoding: bytes[at..<at + Int(termBytes)], as: UTF8.self)
                at += Int(termBytes)
                guard let rowBytes = number(), rowBytes <= UInt64(bytes.count - at) else { return false }
                let end = at + Int(rowBytes)
                // Each row takes at least one byte for its rowid and three a column.
                guard let rows = number(), rows <= UInt64(end - at) / UInt64(1 + 3 * columns) else { return false }
                var rowid: Int64 = 0
                for _ in 0..<rows {
                    guard let distance = number(), distance >= 1, distance <= UInt64(watermark - rowid) else { return false }
                    rowid += Int64(distance)
                    var change = Change(columns: columns)
                    for c in 0..<columns {
                        guard let now = number(), let length = number(), let zigzag = number(), now <= most, length <= most,
                              zigzag >> 1 <= most else { return false }
                        let delta = zigzag & 1 == 0 ? Int64(zigzag >> 1) : -Int64(zigzag >> 1)
                        guard Int64(now) - delta >= 0, Int64(now) - delta <= Int64(most) else { return false }
                        change.set(now: Int32(now), length: Int32(length), in: c)
                        change.add(difference: delta, in: c)
                    }
                    add(term, rowid, change)
                    found += 1
                }
                guard at == end, found <= entries else { return false }
            }
            return found == entries
        }
    }

    /// Adds to `changes` the changes of the rows `stmt` (`readSQL`, stepped by `step`) reads from the log of bounds of
    /// layout `meta`, each row checked against its checksum chained from `last` (the row before them; `Last()`
    /// before the first); returns the last row read. Throws `TopKImpacts.Stale` when a row is damaged or does not
    /// follow the one before it.
    static func read(_ stmt: OpaquePointer, _ meta: TopKImpacts.Meta, after last: Last,
                     into changes: inout Changes, step: (OpaquePointer) throws -> Bool) throws -> Last {
        var last = last
        while try step(stmt) {
            let (seq, entries, total) = (sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 1), sqlite3_column_int64(stmt, 2))
            let bytes = RawStatement.bytes(stmt, 3)
            let check = bytes.withUnsafeBytes { sift_bounds_check_log(seq, entries, total, $0.baseAddress, Int32($0.count), last.check) }
            let (sum, overflow) = last.total.addingReportingOverflow(entries)
            guard check == sqlite3_column_int64(stmt, 4), entries >= 0, !overflow, sum == total,
                  changes.decode(bytes, columns: meta.columns, watermark: meta.watermark, entries: entries) else {
                throw TopKImpacts.Stale(reason: "the log of changed rows is damaged")
            }
            last = Last(seq: seq, total: total, check: check)
        }
        return last
    }

    /// Every change the log of `index` holds (see `read(_:_:after:into:step:)`), read through `handle`'s
    /// cached statements and kept per pool (`Cache`): a search after no write reads only the log's last row, and
    /// after a write the rows it appended.
    /// `cached` false reads the whole log and checks every row (`verify(index:)`).
    static func changes(_ index: String, _ meta: TopKImpacts.Meta, cached: Bool = true, on handle: Handle) throws -> Snapshot {
        let last = try handle.withStatement(lastSQL(index)) { stmt in
            try handle.step(stmt) ? Last(seq: sqlite3_column_int64(stmt, 0), total: sqlite3_column_int64(stmt, 1),
                                         check: sqlite3_column_int64(stmt, 2)) : nil
        }
        guard let last else { return Snapshot(last: Last(), changes: Changes(), meta) }
        let cache = handle.pool.attachment(Cache.init)
        let key = Cache.Key(index: index, watermark: meta.watermark, block: meta.block, chunkBlocks: meta.chunkBlocks, columns: meta.columns)
        var kept = cached ? cache.snapshots.withLock { $0[key] } : nil
        if let found = kept, found.last == last { return found }
        if let found = kept, found.last.seq < last.seq {
            // The rows after the kept ones, if they chain to them (else the log was folded since: read it whole).
            var changes = found.changes
            let read = try? handle.withStatement(readSQL(index, after: true)) { stmt in
                sqlite3_bind_int64(stmt, 1, found.last.seq)
                return try ImpactLog.read(stmt, meta, after: found.last, into: &changes) { try handle.step($0) }
            }
            kept = read == last ? Snapshot(last: last, changes: changes, meta) : nil
        } else {
            kept = nil
        }
        let snapshot = try kept ?? {
            var changes = Changes()
            let read = try handle.withStatement(readSQL(index, after: false)) { stmt in
                try ImpactLog.read(stmt, meta, after: Last(), into: &changes) { try handle.step($0) }
            }
            guard read == last else { throw TopKImpacts.Stale(reason: "the log of changed rows is damaged") }
            return Snapshot(last: last, changes: changes, meta)
        }()
        cache.snapshots.withLock { $0[key] = snapshot }
        return snapshot
    }

    /// The logs' changes last read, per index and layout: the changes of a log are those of the rows up to its
    /// last, which the last row's checksum (chained through every row before it) stands for.
    final class Cache: Sendable {
        struct Key: Hashable {
            let index: String
            let watermark: Int64
            let block: Int64
            let chunkBlocks: Int
            let columns: Int
        }
        let snapshots = Locked([Key: Snapshot]())
    }

    /// The changes of a log up to its row `last`, and each term's as a search applies them, made on first use.
    final class Snapshot: Sendable {
        let last: Last
        let changes: Changes
        private let chunkRows: Int64
        private let terms = Locked([String: [ChunkChanges]]())

        init(last: Last, changes: Changes, _ meta: TopKImpacts.Meta) {
            (self.last, self.changes, chunkRows) = (last, changes, Int64(meta.chunkBlocks) * meta.block)
        }

        /// The changes of `term` per chunk (`Changes.chunks(of:chunkRows:)`), made once.
        func changes(of term: String) -> [ChunkChanges] {
            if let made = terms.withLock({ $0[term] }) { return made }
            let made = changes.chunks(of: term, chunkRows: chunkRows)
            terms.withLock { $0[term] = made }
            return made
        }
    }
}
