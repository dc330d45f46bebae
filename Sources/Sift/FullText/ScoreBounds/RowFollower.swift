import CSQLite
import Foundation
import SiftRank

extension TopKImpacts {
    /// Rows the impacts follow (see `RowFollower`): their text as FTS5 indexed it and, per row, whether it was
    /// added or removed.
    struct RowChanges {
        var rows = ImpactRows()
        var added: [Bool] = []
    }

    /// Keeps the impacts of one index exact through changes of rows from rowid 1 up to their watermark, in the
    /// changes' transaction, after FTS5 applied them: a removed row lowers the row count of every listed term it
    /// held; an added row raises them and the maxima of its block (adding the term's chunk when it had none). Marks
    /// the impacts loose. One per connection and index, with its statements prepared once; it steps them
    /// unobserved.
    final class RowFollower {
        private let tokenizer: TokenizerInstance
        /// The listed terms, as of schema version `schemaVersion` (building the impacts makes their tables anew).
        private let counter: ListedTermCounter
        let schemaVersion: Int64
        private let count, addCount, chunk, setBlocks, add, loosen, recordChanged: OpaquePointer

        init(_ index: SyncedIndex, on handle: Handle) throws {
            tokenizer = try handle.tokenizer(try FTSTableInfo.load(index.index, on: handle).tokenizer)
            schemaVersion = try handle.schemaVersion()
            counter = try ListedTermCounter(try listedTerms(index.index, on: handle), columns: index.columns.count)
            let table = SQLBuilder.quote(termsTable(index.index))
            var prepared: [OpaquePointer] = []
            do {
                // A listed term's row count changes in its chunk -1 row (made with the impacts: their rows sit
                // together, so a change dirties few pages; made here for impacts built before them).
                // Each write keeps the row's checksum (`updatedChecksum`: a damaged row stays damaged).
                for sql in ["UPDATE \(table) SET df = df + ?2, cf = cf + ?3, "
                                + updatedChecksum(termChecked, "term, chunk, df + ?2, cf + ?3, blocks") + " WHERE term = ?1 AND chunk = -1",
                            "INSERT INTO \(table)(term, chunk, df, cf, blocks, checksum) VALUES(?1, -1, ?2, ?3, x'', sift_bounds_check(?1, -1, ?2, ?3, x''))",
                            "SELECT rowid, blocks FROM \(table) WHERE term = ? AND chunk = ?",
                            "UPDATE \(table) SET blocks = ?1, " + updatedChecksum(termChecked, "term, chunk, df, cf, ?1") + " WHERE rowid = ?2",
                            "INSERT INTO \(table)(term, chunk, df, cf, blocks, checksum) VALUES(?1, ?2, 0, 0, ?3, sift_bounds_check(?1, ?2, 0, 0, ?3))",
                            "UPDATE \(SQLBuilder.quote(metaTable(index.index))) SET valid = 2, "
                                + updatedChecksum(metaChecked, "watermark, block, 2, columns, built_rows, chunk_blocks, layout") + " WHERE valid = 1",
                            "INSERT OR REPLACE INTO \(SQLBuilder.quote(changedTable(index.index)))(rowid, counts, checksum) "
                                + "VALUES(?1, ?2, sift_bounds_check(?1, ?2))"] {
                    prepared.append(try handle.prepareUnmanaged(sql))
                }
            } catch {
                prepared.forEach { sqlite3_finalize($0) }
                throw error
            }
            (count, addCount, chunk, setBlocks, add, loosen) = (prepared[0], prepared[1], prepared[2], prepared[3], prepared[4], prepared[5])
            recordChanged = prepared[6]
        }

        deinit { [count, addCount, chunk, setBlocks, add, loosen, recordChanged].forEach { sqlite3_finalize($0) } }

        /// Applies `changes` to impacts of layout `meta` (as `readMeta` read it in this transaction). Writes only
        /// what changes: each listed term's counts once, by the net change of every row the statement changed (a row
        /// updated in place removes and adds most of its frequent terms, whose counts then need no write), a block
        /// only when an added row raises it, and per changed row its listed terms' counts now beside the postings
        /// (which stay as written), one entry a row (`ChangedRowCounts`): the last change of the row decides.
        func follow(_ changes: RowChanges, _ meta: Meta, on handle: Handle) throws {
            guard meta.columns == counter.columns, !changes.added.isEmpty else { return }
            let stride = ImpactBlock.stride(columns: meta.columns)
            // Per listed term, the net change of its row and instance counts; per added row, its listed terms and
            // their counts.
            var net: [Int: (rows: Int64, instances: Int64)] = [:]
            var entries = [[(term: String, counts: [Int32])]](repeating: [], count: changes.added.count)
            try counter.count(changes.rows, with: tokenizer) { r, i, stats in
                let added = changes.added[r], sign: Int64 = added ? 1 : -1, rowid = changes.rows.rowids[r]
                let change = net[i] ?? (0, 0)
                net[i] = (change.rows + sign, change.instances + sign * ImpactBlock.instances(stats, columns: meta.columns))
                guard added else { return }
                let term = counter.terms[i]
                entries[r].append((term, (0..<meta.columns).map { Int32(stats[2 * $0]) }))
                let block = Int(rowid / meta.block)
                let chunkIndex = Int64(block / meta.chunkBlocks), offset = (block % meta.chunkBlocks) * stride
                var blocks = [UInt8](repeating: 0, count: offset + stride)
                bind(term, chunk, chunkIndex)
                let stored = try handle.stepUnobserved(chunk) ? sqlite3_column_int64(chunk, 0) : nil
                if stored != nil {
                    ImpactBlock.copyChunk(chunk, column: 1, into: &blocks, at: 0, chunkBytes: meta.chunkBlocks * stride)
                }
                sqlite3_reset(chunk)
                let before = blocks[offset..<offset + stride]
                ImpactBlock.add(stats, columns: meta.columns, into: &blocks, at: offset)
                guard blocks[offset..<offset + stride] != before else { return }
                let write = stored == nil ? add : setBlocks
                _ = blocks.withUnsafeBytes {
                    sqlite3_bind_blob(write, stored == nil ? 3 : 1, $0.baseAddress, Int32($0.count), sift_sqlite_transient())
                }
                if let stored { sqlite3_bind_int64(write, 2, stored) } else { bind(term, write, chunkIndex) }
                try step(write, on: handle)
            }
            for (i, change) in net.sorted(by: { $0.key < $1.key }) where change != (0, 0) {
                let term = counter.terms[i]
                try step(count, term: term, change: change, on: handle)
                if sqlite3_changes(handle.raw) == 0 { try step(addCount, term: term, change: change, on: handle) }
            }
            // Each changed row once, as its last change left it: its terms now, none when it was removed last.
            var last: [Int64: Int] = [:]
            for (r, rowid) in changes.rows.rowids.enumerated() { last[rowid] = r }
            for (rowid, r) in last.sorted(by: { $0.key < $1.key }) {
                let counts = changes.added[r] ? ChangedRowCounts.encode(entries[r]) : []
                sqlite3_bind_int64(recordChanged, 1, rowid)
                if counts.isEmpty {
                    sqlite3_bind_zeroblob(recordChanged, 2, 0)  // an empty blob, not NULL
                } else {
                    _ = counts.withUnsafeBytes { sqlite3_bind_blob(recordChanged, 2, $0.baseAddress, Int32($0.count), sift_sqlite_transient()) }
                }
                try step(recordChanged, on: handle)
            }
            try step(loosen, on: handle)
        }

        /// Binds a term (parameter 1) and a chunk (parameter 2, when given).
        private func bind(_ term: String, _ stmt: OpaquePointer, _ chunk: Int64?) {
            sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
            if let chunk { sqlite3_bind_int64(stmt, 2, chunk) }
        }

        /// Runs `stmt`, with a term (parameter 1) and changes of its row and instance counts (parameters 2 and 3)
        /// when given.
        private func step(_ stmt: OpaquePointer, term: String? = nil, change: (rows: Int64, instances: Int64)? = nil,
                          on handle: Handle) throws {
            defer { sqlite3_reset(stmt) }
            if let term { bind(term, stmt, nil) }
            if let change {
                sqlite3_bind_int64(stmt, 2, change.rows)
                sqlite3_bind_int64(stmt, 3, change.instances)
            }
            while try handle.stepUnobserved(stmt) {}
        }
    }
}
