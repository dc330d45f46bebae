import CSQLite

/// The rows a filtered search may return (`where:` on the content rows): their rowids sorted, and a bitmap over
/// their rowid range when it is small enough, so that a scan tests each slot's rowid with one load.
struct VectorRowFilter {
    /// The passing rowids, ascending, each once.
    let rowids: [Int64]
    private let low: Int64
    private var bits: [UInt64] = []

    /// The rowids of `content`'s rows meeting `condition`.
    init(_ condition: Condition, of index: VectorIndex, on handle: Handle) throws {
        let rendered = condition.renderForExecution()
        let sql = "SELECT \(SQLBuilder.quote(index.rowidColumn)) FROM \(SQLBuilder.quote(index.content)) WHERE \(rendered.sql)"
        var rowids: [Int64] = []
        try handle.withStatement(sql) { stmt in
            try handle.bind(rendered.values, to: stmt, sql: sql)
            while try handle.step(stmt) { rowids.append(sqlite3_column_int64(stmt, 0)) }
        }
        self.init(sorting: rowids)
    }

    /// The filter passing `rowids` (in any order, repeats allowed).
    init(sorting rowids: [Int64]) {
        var sorted = rowids.sorted()
        if sorted.count > 1 {
            var kept = 1
            for i in 1..<sorted.count where sorted[i] != sorted[kept - 1] {
                sorted[kept] = sorted[i]
                kept += 1
            }
            sorted.removeLast(sorted.count - kept)
        }
        self.rowids = sorted
        low = sorted.first ?? 0
        let span = (sorted.last ?? 0) &- low
        // A bitmap while it is at most 64 bits a passing row (and 64 MB): one load and one test per slot.
        if span >= 0, span / 64 < max(Int64(sorted.count), 1), span < 1 << 29 {
            bits = [UInt64](repeating: 0, count: Int(span / 64) + 1)
            for rowid in sorted {
                let offset = rowid - low
                bits[Int(offset / 64)] |= 1 << UInt64(offset % 64)
            }
        }
    }

    func contains(_ rowid: Int64) -> Bool {
        if !bits.isEmpty {
            let offset = rowid &- low
            guard offset >= 0, offset / 64 < Int64(bits.count) else { return false }
            return bits[Int(offset / 64)] & (1 << UInt64(offset % 64)) != 0
        }
        var lower = 0, upper = rowids.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if rowids[middle] < rowid { lower = middle + 1 } else { upper = middle }
        }
        return lower < rowids.count && rowids[lower] == rowid
    }
}
