import CSQLite
import Foundation
import SiftRank

/// A term's postings in one chunk of rows, as stored beside its blocks: per row of the chunk holding the term, in
/// rowid order, the rowid's distance from the previous row's (the first one's from the rowid before the chunk) as
/// an unsigned LEB128 number, then the term's count in each column. Counts of at most `SIFT_POSTINGS_PACKED_MAX` (14)
/// take four bits each, two a byte (column 2i in the low bits of byte i); a row with a larger one has the byte 0xFF
/// and then each count as an unsigned LEB128 number. A row of a frequent term in a table of two columns is then two
/// bytes, a fixed size the evaluator reads eight bytes at a time (`sift_topk_postings`, sift_topk.h), which scores a
/// query of listed terms from them without FTS5.
enum ImpactPostings {
    /// Appends a row whose `stats` are sift_doc_stats' (count, length) per column; `previous` is the rowid of the
    /// chunk's last row so far (or the rowid before the chunk).
    static func append(_ rowid: Int64, after previous: Int64, _ stats: UnsafePointer<Int32>, columns: Int, to bytes: inout [UInt8]) {
        leb128(UInt64(rowid - previous), to: &bytes)
        guard columns > 0 else { return }
        if (0..<columns).allSatisfy({ stats[2 * $0] <= SIFT_POSTINGS_PACKED_MAX }) {
            for pair in stride(from: 0, to: columns, by: 2) {
                let low = UInt8(max(0, stats[2 * pair]))
                let high = pair + 1 < columns ? UInt8(max(0, stats[2 * pair + 2])) : 0
                bytes.append(low | high << 4)
            }
        } else {
            bytes.append(0xFF)
            for c in 0..<columns { leb128(UInt64(max(0, stats[2 * c])), to: &bytes) }
        }
    }

    /// Appends a row with its `counts`, one a column (negative ones written as 0); `previous` as above.
    static func append(_ rowid: Int64, after previous: Int64, counts: ArraySlice<Int32>, to bytes: inout [UInt8]) {
        leb128(UInt64(rowid - previous), to: &bytes)
        guard !counts.isEmpty else { return }
        if counts.allSatisfy({ $0 <= SIFT_POSTINGS_PACKED_MAX }) {
            var column = counts.startIndex
            while column < counts.endIndex {
                let low = UInt8(max(0, counts[column]))
                let high = column + 1 < counts.endIndex ? UInt8(max(0, counts[column + 1])) : 0
                bytes.append(low | high << 4)
                column += 2
            }
        } else {
            bytes.append(0xFF)
            for count in counts { leb128(UInt64(max(0, count)), to: &bytes) }
        }
    }

    /// Appends `value` as unsigned LEB128.
    static func leb128(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Rows holding the term, in rowid order: their rowids and, per row, its count in each column.
    struct Rows: Equatable {
        var rowids: [Int64] = []
        var counts: [Int32] = []

        /// Appends row `i` of `rows`.
        mutating func append(_ rows: Rows, _ i: Int) {
            let columns = rows.rowids.isEmpty ? 0 : rows.counts.count / rows.rowids.count
            rowids.append(rows.rowids[i])
            counts.append(contentsOf: rows.counts[i * columns..<(i + 1) * columns])
        }

        /// Appends the rows `bytes` holds, each with `columns` counts, but those in `leftOut`, read as the
        /// evaluator reads them (`sift_postings_decode`); false when the postings are damaged (their rows stop
        /// before their last byte).
        @discardableResult
        mutating func decode(_ bytes: [UInt8], after base: Int64, columns: Int, leavingOut leftOut: Set<Int64> = []) -> Bool {
            var found = [Int64](repeating: 0, count: bytes.count)
            var foundCounts = [Int32](repeating: 0, count: bytes.count * columns)
            var whole: Int32 = 1
            let rows = bytes.withUnsafeBufferPointer { bytes in
                found.withUnsafeMutableBufferPointer { found in
                    foundCounts.withUnsafeMutableBufferPointer { foundCounts in
                        Int(sift_postings_decode(bytes.baseAddress, Int32(bytes.count), Int32(columns), base,
                                                 found.baseAddress, foundCounts.baseAddress, &whole))
                    }
                }
            }
            for r in 0..<rows where !leftOut.contains(found[r]) {
                rowids.append(found[r])
                counts.append(contentsOf: foundCounts[r * columns..<(r + 1) * columns])
            }
            return whole != 0
        }
    }

}
