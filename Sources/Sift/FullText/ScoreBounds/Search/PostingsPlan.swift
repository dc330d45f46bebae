import CSQLite
import Foundation
import SiftRank

/// The postings plan of a pruned search (`TopKSearch`): when every term is listed, the rows from rowid 1 up to
/// the watermark are scored from the terms' postings in C, chunk by chunk, without reading FTS5's index.
extension TopKSearch {
    /// Scores the rows from rowid 1 up to the watermark from the listed terms' postings (`sift_topk_postings`),
    /// chunk by chunk, into `collector`, each chunk's with the term's delta there in their place (`ImpactDelta`).
    /// `terms` with their weights, `rows` and the columns' `totals` (sizes in tokens) as sift_stats gives them.
    /// `rareRows`: per term without postings (not listed), its rows up to the watermark with their counts
    /// (`TopKRun.rareTermRows`), merged as its postings would be.
    func scorePostings(_ terms: [Term], rows: Double, totals: ArraySlice<Double>,
                       _ collector: TopKCollector, rareRows: [Int: ImpactPostings.Rows] = [:], on handle: Handle) throws {
        let table = SQLBuilder.quote(TopKImpacts.termsTable(index))
        let columns = weights.count
        // What C reads for the whole search, in memory of its own: the columns' weights and average sizes, the
        // terms' weights, the changed rows and, per term, their counts now.
        var kept: [UnsafeMutableRawPointer] = []
        defer { kept.forEach { $0.deallocate() } }
        func keep<T>(_ values: [T]) -> UnsafeMutablePointer<T> {
            let copy = UnsafeMutablePointer<T>.allocate(capacity: max(1, values.count))
            copy.initialize(from: values, count: values.count)
            kept.append(UnsafeMutableRawPointer(copy))
            return copy
        }
        // Per term, the rows of its deltas in rowid order (chunks in order): all of them leave the postings' row
        // out (`changedRows`), those still holding the term take its place (`extras`).
        var changedRows: [[Int64]] = [], extras: [ImpactPostings.Rows] = []
        for (t, term) in terms.enumerated() {
            if let rare = rareRows[t] {
                changedRows.append([])
                extras.append(rare)
                continue
            }
            var left = [Int64](), holding = ImpactPostings.Rows()
            for (_, delta) in term.deltas.sorted(by: { $0.key < $1.key }) {
                left += delta.rowids
                for i in delta.rowids.indices where delta.holds(i, columns: columns) { holding.append(delta, i) }
            }
            changedRows.append(left)
            extras.append(holding)
        }
        let extraRowids = extras.map { keep($0.rowids) }, extraCounts = extras.map { keep($0.counts) }
        let leftOut = changedRows.map { keep($0) }
        let (model, k1, b, c): (Int32, Double, Double, Double) = switch ranking {
        case .inB2(let c): (1, 1, 0, c)
        case .bm25f(let k1, let b): (0, k1, b, 0)
        case .bm25: (0, 1.2, 0.75, 0)
        }
        var query = sift_postings_query(
            terms: Int32(terms.count), columns: Int32(columns), inb2: model, requires_all: requiresAll ? 1 : 0,
            k1: k1, b: b, c: c, weights: keep(weights), avglen: keep(totals.map { rows > 0 ? $0 / rows : 0 }),
            qtf: keep(terms.map(\.qtf)), idf: keep(terms.map(\.idf)), docsize: nil, group: UnsafePointer(keep(terms.map { Int32($0.group) })))
        // One statement per term (told apart for the statement cache), stepped together in chunk order.
        var statements: [(stmt: OpaquePointer, sql: String, cached: Bool)] = []
        defer { for s in statements { handle.relinquish(s.stmt, sql: s.sql, cached: s.cached) } }
        for (t, term) in terms.enumerated() {
            // The rows' checksums were compared by `TopKImpacts.stored` when the search was planned, in the same
            // snapshot (a search is one read transaction): not hashed again here.
            let sql = "SELECT chunk, postings, df FROM \(table) WHERE term = ? AND chunk >= 0 ORDER BY chunk /* \(t) */"
            let (stmt, cached) = try handle.acquire(sql)
            statements.append((stmt, sql, cached))
            sqlite3_bind_text(stmt, 1, term.token, -1, sift_sqlite_transient())
        }
        let chunkRows = Int64(meta.chunkBlocks) * meta.block, lastChunk = meta.watermark / chunkRows
        // A term's next chunk; a chunk number past the watermark's is damage.
        func step(_ t: Int) throws -> Int64 {
            guard try handle.step(statements[t].stmt) else { return .max }
            let chunk = sqlite3_column_int64(statements[t].stmt, 0)
            guard chunk <= lastChunk else {
                throw TopKImpacts.Stale(reason: "a chunk of \(terms[t].token) is damaged")
            }
            return chunk
        }
        var chunks = try terms.indices.map { rareRows[$0] == nil ? try step($0) : .max }
        var pointers = [UnsafePointer<UInt8>?](repeating: nil, count: terms.count)
        var sizes = [Int32](repeating: 0, count: terms.count)
        var expected = [Int64](repeating: 0, count: terms.count)
        // Per term, its first changed row not passed yet (holding it, and all).
        var extraAt = [Int](repeating: 0, count: terms.count), changedAt = [Int](repeating: 0, count: terms.count)
        func nextChunk() -> Int64? {
            var next = chunks.min() ?? .max
            for t in terms.indices where extraAt[t] < extras[t].rowids.count {
                next = min(next, extras[t].rowids[extraAt[t]] / chunkRows)
            }
            return next == .max ? nil : next
        }
        try handle.withStatement(TopKImpacts.columnSizesSQL(index)) { docsize in
            query.docsize = docsize
            while let chunk = nextChunk() {
                let end = (chunk + 1) * chunkRows
                for t in terms.indices {
                    let here = chunks[t] == chunk
                    pointers[t] = here ? sqlite3_column_blob(statements[t].stmt, 1).map {
                        UnsafePointer($0.assumingMemoryBound(to: UInt8.self))
                    } : nil
                    sizes[t] = here ? sqlite3_column_bytes(statements[t].stmt, 1) : 0
                    expected[t] = here ? sqlite3_column_int64(statements[t].stmt, 2) : 0
                }
                var slices: [sift_postings_extra] = []
                for t in terms.indices {
                    let first = extraAt[t], firstChanged = changedAt[t]
                    while extraAt[t] < extras[t].rowids.count, extras[t].rowids[extraAt[t]] < end { extraAt[t] += 1 }
                    while changedAt[t] < changedRows[t].count, changedRows[t][changedAt[t]] < end { changedAt[t] += 1 }
                    slices.append(sift_postings_extra(rowids: extraRowids[t] + first, counts: extraCounts[t] + first * columns,
                                                      count: Int32(extraAt[t] - first), left_out: leftOut[t] + firstChanged,
                                                      left_out_count: Int32(changedAt[t] - firstChanged)))
                }
                let rc = sift_topk_postings(&query, collector.pointer, chunk * chunkRows - 1, end - 1, pointers, sizes, expected,
                                            slices)
                if rc == SQLITE_CORRUPT {
                    throw TopKImpacts.Stale(reason: "the postings of chunk \(chunk) do not match the rows it records")
                }
                guard rc == SQLITE_OK else { throw handle.error(rc, sql: nil, operation: .step) }
                for t in terms.indices where chunks[t] == chunk { chunks[t] = try step(t) }
            }
        }
    }
}
