import Foundation

/// How the rows of one chunk changed for one listed term since its postings were written: the rows whose counts of
/// the term changed, each with its counts now (all zero: the row no longer holds the term), stored as the postings
/// are (`ImpactPostings`) in a row of the terms table of its own, `(term, -2 - chunk)`, with the net change of the
/// term's row and instance counts (`df`, `cf`) and the rows in `blocks` (so the row's checksum covers them).
///
/// A search reads a term's deltas with its blocks (`TopKImpacts.stored`) and scores each chunk from its postings with
/// the delta's rows in their place. The fold of the log of changed rows (`ImpactLog`) puts its rows into the deltas
/// of their chunks (`sift_postings_put`, one statement a term and chunk) and leaves the postings as they are, until a delta holds `impactSizes.delta` rows (64): then it
/// is folded into its chunk's postings and emptied (`TopKImpacts.RowFollower`), the way FTS5's automerge folds small
/// segments. What a search reads beside the postings stays a bounded share of them however many rows change, and a
/// chunk's postings are rewritten once per 64 changes of the term in it.
///
/// Every listed term's delta row of every chunk is made, empty, when the bounds are built or extended, chunk by
/// chunk: the deltas one write changes then sit together on a few pages. Made as changes came, they spread over many
/// (at a million rows, updates ran at 1,402 a second that way, 2,028 with the rows made in place first).
enum ImpactDelta {
    /// The stored chunk number of the delta of chunk `chunk` (at least 0): -2 and below, apart from the postings'.
    static func storedChunk(of chunk: Int64) -> Int64 { -2 - chunk }

    /// The chunk whose delta has stored chunk number `stored` (-2 and below).
    static func chunk(ofStored stored: Int64) -> Int64 { -2 - stored }

    /// The most bytes a row of postings or a delta takes: its distance (10 bytes of LEB128 at most), and its counts
    /// written in full (the byte 0xFF, then 5 bytes each for counts up to Int32.max).
    static func maxRowBytes(columns: Int) -> Int { 10 + 1 + 5 * columns }

    /// The rows of a stored delta of the chunk whose rows follow rowid `base`, or nil when it is damaged: its rows
    /// stop before its last byte or reach past `last` (the chunk's last rowid, or the watermark when lower).
    static func decode(_ bytes: [UInt8], after base: Int64, last: Int64, columns: Int) -> ImpactPostings.Rows? {
        var rows = ImpactPostings.Rows()
        guard rows.decode(bytes, after: base, columns: columns), rows.rowids.last.map({ $0 <= last }) ?? true else { return nil }
        return rows
    }
}

extension ImpactPostings.Rows {
    /// The stored form of these rows (sorted by rowid, distinct, in the chunk whose rows follow rowid `base`): a
    /// chunk's postings, or a delta.
    func encoded(after base: Int64, columns: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rowids.count * (1 + (columns + 1) / 2))
        var previous = base
        for (i, rowid) in rowids.enumerated() {
            ImpactPostings.append(rowid, after: previous, counts: counts[i * columns..<(i + 1) * columns], to: &bytes)
            previous = rowid
        }
        return bytes
    }

    /// Whether row `i` holds the term (a count above zero in a column).
    func holds(_ i: Int, columns: Int) -> Bool {
        counts[i * columns..<(i + 1) * columns].contains { $0 > 0 }
    }

    /// These rows (sorted by rowid) with `newer`'s (sorted) in their place: a row of both takes `newer`'s counts.
    /// Rows that hold nothing stay (a delta keeps them: they leave the postings' row out).
    func replacing(with newer: ImpactPostings.Rows, columns: Int) -> ImpactPostings.Rows {
        var merged = ImpactPostings.Rows(), a = 0, b = 0
        merged.rowids.reserveCapacity(rowids.count + newer.rowids.count)
        merged.counts.reserveCapacity(counts.count + newer.counts.count)
        while a < rowids.count || b < newer.rowids.count {
            if b == newer.rowids.count || (a < rowids.count && rowids[a] < newer.rowids[b]) {
                merged.rowids.append(rowids[a])
                merged.counts += counts[a * columns..<(a + 1) * columns]
                a += 1
            } else {
                if a < rowids.count && rowids[a] == newer.rowids[b] { a += 1 }
                merged.rowids.append(newer.rowids[b])
                merged.counts += newer.counts[b * columns..<(b + 1) * columns]
                b += 1
            }
        }
        return merged
    }

    /// Postings (these rows) with a delta applied: the delta's rows in place of these, and those that hold nothing
    /// left out.
    func applying(_ delta: ImpactPostings.Rows, columns: Int) -> ImpactPostings.Rows {
        let merged = replacing(with: delta, columns: columns)
        var kept = ImpactPostings.Rows()
        kept.rowids.reserveCapacity(merged.rowids.count)
        kept.counts.reserveCapacity(merged.counts.count)
        for i in merged.rowids.indices where merged.holds(i, columns: columns) {
            kept.rowids.append(merged.rowids[i])
            kept.counts += merged.counts[i * columns..<(i + 1) * columns]
        }
        return kept
    }
}
