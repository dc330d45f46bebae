import CSQLite
import Foundation
import SiftRank

/// The impacts of one term in one block of rows, as stored: byte 0 the largest count of the term in a row (all
/// columns), then per column c three bytes: the largest count in c, and 65,535 minus the shortest length of c
/// (16 bits, little-endian) among the rows holding the term in c. Counts stop at 255, which means "no bound";
/// lengths above 65,535 count as 65,535 (shorter: a larger, still valid, bound). Zero bytes: no row holds the
/// term. Every field only grows as rows are added, so merging is a maximum.
enum ImpactBlock {
    static func stride(columns: Int) -> Int { 1 + 3 * columns }

    /// Copies a stored chunk (the blob in `column` of `stmt`'s row) to its place, chunk `index` of `blocks`,
    /// growing `blocks` when it is shorter; a blob longer than a chunk or a negative index is ignored.
    static func copyChunk(_ stmt: OpaquePointer, column: Int32, into blocks: inout [UInt8], at index: Int, chunkBytes: Int) {
        let offset = index * chunkBytes, count = Int(sqlite3_column_bytes(stmt, column))
        guard index >= 0, count <= chunkBytes, let blob = sqlite3_column_blob(stmt, column) else { return }
        if blocks.count < offset + count { blocks += [UInt8](repeating: 0, count: offset + count - blocks.count) }
        blocks.withUnsafeMutableBytes { target in
            if let base = target.baseAddress { memcpy(base + offset, blob, count) }
        }
    }

    /// The instances of a term in a row whose `stats` are sift_doc_stats' (count, length) per column.
    static func instances(_ stats: UnsafePointer<Int32>, columns: Int) -> Int64 {
        (0..<columns).reduce(0) { $0 + Int64(max(0, stats[2 * $1])) }
    }

    /// Adds a row whose `stats` are sift_doc_stats' (count, length) per column.
    static func add(_ stats: UnsafePointer<Int32>, columns: Int, into blocks: inout [UInt8], at base: Int) {
        var total = 0
        for c in 0..<columns {
            let count = Int(stats[2 * c]), length = Int(stats[2 * c + 1])
            guard count > 0 else { continue }
            total += count
            let at = base + 1 + 3 * c
            blocks[at] = max(blocks[at], UInt8(min(255, count)))
            let inverted = UInt16(65_535 - min(65_535, max(0, length)))
            if inverted > UInt16(blocks[at + 1]) | UInt16(blocks[at + 2]) << 8 {
                blocks[at + 1] = UInt8(inverted & 0xFF)
                blocks[at + 2] = UInt8(inverted >> 8)
            }
        }
        blocks[base] = max(blocks[base], UInt8(min(255, total)))
    }

    /// Whether the `stored` block bounds everything the `fresh` one (recomputed from the rows) holds.
    static func covers(stored: [UInt8], fresh: [UInt8], at base: Int, columns: Int) -> Bool {
        guard stored[base] >= fresh[base] else { return false }
        for c in 0..<columns {
            let at = base + 1 + 3 * c
            let storedLength = UInt16(stored[at + 1]) | UInt16(stored[at + 2]) << 8
            let freshLength = UInt16(fresh[at + 1]) | UInt16(fresh[at + 2]) << 8
            if stored[at] < fresh[at] || storedLength < freshLength { return false }
        }
        return true
    }
}
