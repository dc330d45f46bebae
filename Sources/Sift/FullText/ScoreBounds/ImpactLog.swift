import CSQLite
import Foundation

/// How the listed terms' counts changed in rows at or below the watermark, by the statements since the log was last
/// folded: one row per statement in `<index>_sift_impacts_log`, `(seq, n, entries, checksum)`, appended by the
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
/// term) and the count's change (zigzag), all unsigned LEB128. `n` is the number of entries (a term in a row);
/// `checksum`, `sift_bounds_check(seq, n, entries)`.
enum ImpactLog {
    static func table(_ index: String) -> String { index + "_sift_impacts_log" }

    static func createSQL(_ index: String) -> String {
        "CREATE TABLE \(SQLBuilder.quote(table(index)))(seq INTEGER PRIMARY KEY, n INTEGER NOT NULL, entries BLOB NOT NULL, "
            + "checksum INTEGER NOT NULL)"
    }

    /// One term's change in one row: its count in each column now, the row's column lengths now, and how each count
    /// changed (the counts before are `now - difference`).
    struct Change {
        var now: [Int32]
        var lengths: [Int32]
        var difference: [Int64]

        init(columns: Int) {
            now = [Int32](repeating: 0, count: columns)
            lengths = now
            difference = [Int64](repeating: 0, count: columns)
        }

        var holdsNow: Bool { now.contains { $0 > 0 } }
        var heldBefore: Bool { zip(now, difference).contains { Int64($0) - $1 > 0 } }
        var changesCounts: Bool { difference.contains { $0 != 0 } }

        /// This change followed by `later`, a change of the same term in the same row.
        mutating func then(_ later: Change) {
            (now, lengths) = (later.now, later.lengths)
            for c in difference.indices { difference[c] += later.difference[c] }
        }

        /// The (count, length) pairs of the row now, as `ImpactBlock.add` takes them.
        var stats: [Int32] {
            var stats: [Int32] = []
            stats.reserveCapacity(2 * now.count)
            for c in now.indices { stats += [now[c], lengths[c]] }
            return stats
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
                        ImpactPostings.leb128(UInt64(max(0, change.now[c])), to: &rows)
                        ImpactPostings.leb128(UInt64(max(0, change.lengths[c])), to: &rows)
                        let delta = change.difference[c]
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

        /// Adds the changes stored in `bytes` (one statement's, after those added before) of the terms `keep` accepts
        /// (every term when nil); false when they are damaged: they stop before their end, a count or length is
        /// negative or past Int32.max, a count before the change is, rowids do not rise within 1 up to `watermark`,
        /// or there are more than `entries` of them.
        mutating func decode(_ bytes: [UInt8], columns: Int, watermark: Int64, entries: Int64, keep: Set<String>?) -> Bool {
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
                guard keep?.contains(term) ?? true else {
                    at = end
                    continue
                }
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
                        (change.now[c], change.lengths[c], change.difference[c]) = (Int32(now), Int32(length), delta)
                    }
                    add(term, rowid, change)
                    found += 1
                }
                guard at == end, found <= entries else { return false }
            }
            return keep != nil || found == entries
        }
    }

    /// The statement `read` steps.
    static func readSQL(_ index: String) -> String {
        "SELECT seq, n, entries, sift_bounds_check(seq, n, entries) = checksum FROM \(SQLBuilder.quote(table(index))) ORDER BY seq"
    }

    /// The changes `stmt` (`readSQL`, stepped by `step`) reads from the log of bounds of layout `meta`, of the terms
    /// in `terms` (every term when nil), in the order the statements made them. Throws `TopKImpacts.Stale` when the
    /// log is damaged.
    static func read(_ stmt: OpaquePointer, _ meta: TopKImpacts.Meta, terms: Set<String>?,
                     step: (OpaquePointer) throws -> Bool) throws -> Changes {
        var changes = Changes()
        while try step(stmt) {
            let entries = sqlite3_column_int64(stmt, 1)
            guard sqlite3_column_int64(stmt, 3) == 1, entries >= 0,
                  changes.decode(RawStatement.bytes(stmt, 2), columns: meta.columns, watermark: meta.watermark,
                                 entries: entries, keep: terms) else {
                throw TopKImpacts.Stale(reason: "the log of changed rows is damaged")
            }
        }
        return changes
    }

    /// The changes the log of `index` holds (see `read(_:_:terms:step:)`), read with `handle`'s cached statement.
    static func read(_ index: String, _ meta: TopKImpacts.Meta, terms: Set<String>?, on handle: Handle) throws -> Changes {
        try handle.withStatement(readSQL(index)) { stmt in
            try read(stmt, meta, terms: terms) { try handle.step($0) }
        }
    }
}
