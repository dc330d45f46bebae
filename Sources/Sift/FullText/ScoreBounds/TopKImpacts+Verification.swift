import CSQLite
import Foundation
import SiftRank

/// `verify(index:)`'s check of the score bounds: each listed term recomputed from FTS5's index.
extension TopKImpacts {
    /// Adds the impacts of `term` in the rows with rowids in `rows` to `blocks` (long enough for them) and the
    /// rows with its count in each column to `postings`; returns how many of those rows contain it and its
    /// instances in them.
    static func scan(_ term: String, in index: String, rows: ClosedRange<Int64>, _ meta: Meta,
                             into blocks: inout [UInt8], postings: inout ImpactPostings.Rows,
                             on handle: Handle) throws -> (rows: Int64, instances: Int64) {
        let q = SQLBuilder.quote(index)
        let sql = "SELECT rowid, sift_doc_stats(\(q)) FROM \(q) WHERE \(q) MATCH ? AND rowid BETWEEN ? AND ?"
        let stride = ImpactBlock.stride(columns: meta.columns)
        var found: Int64 = 0, instances: Int64 = 0
        try handle.withStatement(sql) { stmt in
            try handle.bind([FundamentalValue(FTS5Expression.quote(term)), FundamentalValue(rows.lowerBound),
                             FundamentalValue(rows.upperBound)], to: stmt, sql: sql)
            while try handle.step(stmt) {
                let rowid = sqlite3_column_int64(stmt, 0)
                let base = Int(rowid / meta.block) * stride
                guard let stats = sqlite3_column_blob(stmt, 1), Int(sqlite3_column_bytes(stmt, 1)) >= 8 * meta.columns,
                      base + stride <= blocks.count else { continue }
                found += 1
                let counts = stats.assumingMemoryBound(to: Int32.self)
                instances += ImpactBlock.instances(counts, columns: meta.columns)
                ImpactBlock.add(counts, columns: meta.columns, into: &blocks, at: base)
                postings.rowids.append(rowid)
                for c in 0..<meta.columns { postings.counts.append(counts[2 * c]) }
            }
        }
        return (found, instances)
    }

    /// What is wrong with the impacts of `index` (for `verify(index:)`): each listed term's count and block
    /// maxima recomputed from the index must equal the stored count and stay within the stored maxima, and its
    /// postings, with its deltas' rows in their place, must equal the ones recomputed. Stale impacts (`valid`
    /// cleared) are not checked: searches do not use them.
    static func problems(_ index: String, on handle: Handle) throws -> [String] {
        guard let meta = try meta(index, on: handle), meta.valid else { return [] }
        var problems: [String] = []
        let listed = try listedTerms(index, on: handle)
        // The log of changed rows whole (a search reads only its terms' changes).
        var log = ImpactLog.Snapshot(last: ImpactLog.Last(), changes: ImpactLog.Changes(), meta)
        do {
            log = try ImpactLog.changes(index, meta, cached: false, on: handle)
            let unlisted = log.changes.terms.keys.filter { !listed.contains($0) }
            if let term = unlisted.sorted().first { problems.append("impacts: the log of changed rows names \(term), which is not listed") }
        } catch let stale as Stale {
            problems.append("impacts: \(stale.reason)")
        } catch let error as SiftError where error.code == .error {
            problems.append("impacts: the log of changed rows cannot be read (\(error.message))")
        }
        for term in listed {
            do {
                problems += try termProblems(term, in: index, meta, log: log, on: handle)
            } catch let stale as Stale {
                problems.append("impacts: \(stale.reason)")
            }
        }
        return problems
    }

    /// What is wrong with the stored bounds of one listed term, with the changes `log` holds (see `problems`);
    /// throws `Stale` for damage that keeps them from being read at all.
    private static func termProblems(_ term: String, in index: String, _ meta: Meta, log: ImpactLog.Snapshot,
                                     on handle: Handle) throws -> [String] {
        var problems: [String] = []
        let width = ImpactBlock.stride(columns: meta.columns)
        guard let stored = try stored(term, in: index, meta, log: log, on: handle) else { return [] }
        var fresh = [UInt8](repeating: 0, count: (Int(meta.watermark / meta.block) + 1) * width)
        var postings = ImpactPostings.Rows()
        let found = meta.watermark < 1 ? (rows: 0, instances: 0)
            : try scan(term, in: index, rows: 1...meta.watermark, meta, into: &fresh, postings: &postings, on: handle)
        if try storedPostings(term, in: index, meta, deltas: stored.deltas, on: handle) != postings {
            problems.append("impacts: the postings of \(term) differ from its rows")
        }
        if found.rows != stored.df { problems.append("impacts: \(term) is in \(found.rows) rows, \(stored.df) recorded") }
        if found.instances != stored.cf {
            problems.append("impacts: \(term) occurs \(found.instances) times, \(stored.cf) recorded")
        }
        let blob = stored.blocks
        if blob.count < fresh.count || !Swift.stride(from: 0, to: fresh.count, by: width).allSatisfy({ base in
            ImpactBlock.covers(stored: blob, fresh: fresh, at: base, columns: meta.columns)
        }) {
            problems.append("impacts: the block maxima of \(term) are below its counts")
        }
        return problems
    }

    /// A listed term's rows as a search reads them: each chunk's postings with the term's delta there applied; nil
    /// when a chunk's postings are damaged.
    private static func storedPostings(_ term: String, in index: String, _ meta: Meta, deltas: [Int64: ImpactPostings.Rows],
                                       on handle: Handle) throws -> ImpactPostings.Rows? {
        var stored = ImpactPostings.Rows(), whole = true
        let chunkRows = Int64(meta.chunkBlocks) * meta.block
        var chunks: [Int64: ImpactPostings.Rows] = [:]
        try handle.withStatement("SELECT chunk, postings FROM \(SQLBuilder.quote(termsTable(index))) WHERE term = ? AND chunk >= 0 ORDER BY chunk") { stmt in
            try handle.bind([FundamentalValue(term)], to: stmt, sql: "")
            while try handle.step(stmt) {
                let chunk = sqlite3_column_int64(stmt, 0)
                var rows = ImpactPostings.Rows()
                whole = rows.decode(RawStatement.bytes(stmt, 1), after: chunk * chunkRows - 1, columns: meta.columns) && whole
                chunks[chunk] = rows
            }
        }
        guard whole else { return nil }
        for chunk in Set(chunks.keys).union(deltas.keys).sorted() {
            let rows = (chunks[chunk] ?? ImpactPostings.Rows()).applying(deltas[chunk] ?? ImpactPostings.Rows(), columns: meta.columns)
            stored.rowids += rows.rowids
            stored.counts += rows.counts
        }
        return stored
    }
}
