/// A changed row's listed terms as the row holds them now, with their counts per column: the blob `counts` of the
/// row's entry in `<index>_sift_changed`, which a search reads in place of the row's postings.
///
/// One entry per listed term the row holds, in the terms' byte order: the term's UTF-8 length and bytes, then its
/// count in each column, each number unsigned LEB128. A row that is gone (deleted, or moved to another rowid) holds
/// none. One row of the table per changed row: following an update writes one entry, on one page, however many terms
/// the row holds (a table keyed by term and row spread them over a page each).
enum ChangedRowCounts {
    /// The blob of a row holding `entries` (each term once, its counts per column, none negative).
    static func encode(_ entries: [(term: String, counts: [Int32])]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries.sorted(by: { $0.term.utf8.lexicographicallyPrecedes($1.term.utf8) }) {
            let term = Array(entry.term.utf8)
            ImpactPostings.leb128(UInt64(term.count), to: &bytes)
            bytes += term
            for count in entry.counts { ImpactPostings.leb128(UInt64(max(0, count)), to: &bytes) }
        }
        return bytes
    }

    /// Appends, for each entry of `blob` (row `rowid`, `columns` counts an entry) whose term is one of `wanted`
    /// (UTF-8 bytes to the position of its rows in `rows`; slices, so that a lookup copies nothing), the row and its
    /// counts to those rows. Returns false when
    /// the blob is damaged: an entry cut short, a number too large, or terms out of order or repeated.
    static func decode(_ bytes: [UInt8], rowid: Int64, columns: Int, wanted: [ArraySlice<UInt8>: Int],
                       into rows: inout [ImpactPostings.Rows]) -> Bool {
        var at = 0
        var previous: ArraySlice<UInt8>?
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
        while at < bytes.count {
            guard let length = number(), length > 0, length <= UInt64(bytes.count - at) else { return false }
            let term = bytes[at..<at + Int(length)]
            at += Int(length)
            if let previous, !previous.lexicographicallyPrecedes(term) { return false }
            previous = term
            // The counts go straight to the rows of a wanted term; the others' are only checked.
            let position = wanted[term]
            if let position { rows[position].rowids.append(rowid) }
            for _ in 0..<columns {
                guard let count = number(), count <= UInt64(Int32.max) else { return false }
                if let position { rows[position].counts.append(Int32(count)) }
            }
        }
        return true
    }
}
