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
    /// changes' transaction, after FTS5 applied them: an added row raises the maxima of its block (adding the
    /// term's chunk when it had none), and each row whose counts of a listed term changed goes into the term's
    /// delta of the row's chunk with its counts now (`ImpactDelta`), which carries the change of the term's row and
    /// instance counts; a delta that reaches `impactSizes.delta` rows is folded into the chunk's postings. Marks the
    /// impacts loose. One per connection and index, with its statements prepared once; it steps them unobserved.
    final class RowFollower {
        private let index: String
        private let tokenizer: TokenizerInstance
        /// The listed terms, as of schema version `schemaVersion` (building the impacts makes their tables anew).
        private let counter: ListedTermCounter
        let schemaVersion: Int64
        /// A delta of this many rows is folded into its chunk's postings.
        private let foldRows: Int
        /// The log's size that makes a statement fold it (`ImpactLog`).
        private let logLimits: (rows: Int, entries: Int)
        private let chunk, setBlocks, add, loosen, putDelta, emptyDelta, updateDelta, readDelta, readPostings, writePostings: OpaquePointer
        private let logLast, logAppend, logRead, logClear: OpaquePointer

        init(_ index: SyncedIndex, on handle: Handle) throws {
            self.index = index.index
            tokenizer = try handle.tokenizer(try FTSTableInfo.load(index.index, on: handle).tokenizer)
            schemaVersion = try handle.schemaVersion()
            counter = try ListedTermCounter(try listedTerms(index.index, on: handle), columns: index.columns.count)
            let sizes = handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0 }
            foldRows = max(1, sizes.delta)
            logLimits = (sizes.logRows, sizes.logEntries)
            let log = SQLBuilder.quote(ImpactLog.table(index.index))
            let table = SQLBuilder.quote(termsTable(index.index))
            var prepared: [OpaquePointer] = []
            do {
                for sql in ["SELECT rowid, blocks FROM \(table) WHERE term = ? AND chunk = ?",
                            "UPDATE \(table) SET blocks = ?1, " + updatedChecksum(termChecked, "term, chunk, df, cf, ?1") + " WHERE rowid = ?2",
                            "INSERT INTO \(table)(term, chunk, df, cf, blocks, checksum) VALUES(?1, ?2, 0, 0, ?3, sift_bounds_check(?1, ?2, 0, 0, ?3))",
                            "UPDATE \(SQLBuilder.quote(metaTable(index.index))) SET valid = 2, "
                                + updatedChecksum(metaChecked, "watermark, block, 2, columns, built_rows, chunk_blocks, layout") + " WHERE valid = 1",
                            // A delta's row made now, for a chunk the bounds had no rows in (the update below
                            // changed none): the new rows are all it holds.
                            "INSERT INTO \(table)(term, chunk, df, cf, blocks, checksum) VALUES(?1, ?2, ?3, ?4, ?5, sift_bounds_check(?1, ?2, ?3, ?4, ?5))",
                            "UPDATE \(table) SET df = 0, cf = 0, blocks = x'', checksum = sift_bounds_check(term, chunk, 0, 0, x'') WHERE rowid = ?",
                            // The same in the delta's row made with the bounds, returning nothing (without a RETURNING
                            // clause, 1M updates ran at 2,240 a second, not 2,056): `sift_postings_put_rows` tells the
                            // rows it holds.
                            "UPDATE \(table) SET df = df + ?3, cf = cf + ?4, blocks = coalesce(sift_postings_put(blocks, ?5, ?6, ?7), blocks), "
                                + updatedChecksum(termChecked, "term, chunk, df + ?3, cf + ?4, coalesce(sift_postings_put(blocks, ?5, ?6, ?7), blocks)")
                                + " WHERE term = ?1 AND chunk = ?2",
                            "SELECT rowid, df, cf, blocks, sift_postings_rows(blocks, ?3, ?4, ?5), \(intact(termChecked)) FROM \(table) "
                                + "WHERE term = ?1 AND chunk = ?2",
                            "SELECT rowid, df, cf, postings, \(intact(termChecked)) FROM \(table) WHERE term = ?1 AND chunk = ?2",
                            "UPDATE \(table) SET df = ?2, cf = ?3, postings = ?4, checksum = sift_bounds_check(term, chunk, ?2, ?3, blocks) "
                                + "WHERE rowid = ?1",
                            ImpactLog.lastSQL(index.index),
                            ImpactLog.appendSQL(index.index),
                            ImpactLog.readSQL(index.index, after: false),
                            "DELETE FROM \(log)"] {
                    prepared.append(try handle.prepareUnmanaged(sql))
                }
            } catch {
                prepared.forEach { sqlite3_finalize($0) }
                throw error
            }
            (chunk, setBlocks, add, loosen) = (prepared[0], prepared[1], prepared[2], prepared[3])
            (putDelta, emptyDelta, updateDelta, readDelta) = (prepared[4], prepared[5], prepared[6], prepared[7])
            (readPostings, writePostings) = (prepared[8], prepared[9])
            (logLast, logAppend, logRead, logClear) = (prepared[10], prepared[11], prepared[12], prepared[13])
        }

        deinit {
            [chunk, setBlocks, add, loosen, putDelta, emptyDelta, updateDelta, readDelta, readPostings, writePostings,
             logLast, logAppend, logRead, logClear].forEach { sqlite3_finalize($0) }
        }

        /// Applies `changes` to impacts of layout `meta` (as `readMeta` read it in this transaction): their net change
        /// per listed term and row (a row updated in place removes and adds most of its frequent terms, whose counts
        /// then often do not change; the last change of a row decides its counts now) goes into the log
        /// (`ImpactLog`), or, when the log is full, with the log's into the deltas and blocks. Impacts found damaged
        /// on the way are marked stale.
        func follow(_ changes: RowChanges, _ meta: Meta, on handle: Handle) throws {
            guard meta.columns == counter.columns, !changes.added.isEmpty else { return }
            do {
                let net = try netChanges(changes, columns: meta.columns)
                if !net.isEmpty { try log(net, meta, on: handle) }
                try step(loosen, on: handle)
            } catch is Stale {
                try ScoreBounds.markStale(index, on: handle)
            }
        }

        /// Per listed term and row of `changes`, its net change: kept when its counts changed, or when the row holds
        /// the term now in a column shorter than before (its block's bound on the length may have to fall).
        private func netChanges(_ changes: RowChanges, columns: Int) throws -> ImpactLog.Changes {
            var last: [Int64: Int] = [:]
            for (r, rowid) in changes.rows.rowids.enumerated() { last[rowid] = r }
            // Per term (its index) and row: the change so far, and the column lengths before the statement when its
            // first change of the row removed it.
            var net: [Int: [Int64: (change: ImpactLog.Change, before: [Int32]?)]] = [:]
            try counter.count(changes.rows, with: tokenizer) { r, i, stats in
                let added = changes.added[r], rowid = changes.rows.rowids[r]
                let seen = net[i]?[rowid]
                var entry = seen ?? (ImpactLog.Change(columns: columns), nil)
                for c in 0..<columns {
                    let count = Int64(max(0, stats[2 * c]))
                    entry.change.add(difference: added ? count : -count, in: c)
                }
                if added && r == last[rowid] {
                    for c in 0..<columns { entry.change.set(now: max(0, stats[2 * c]), length: max(0, stats[2 * c + 1]), in: c) }
                }
                if seen == nil && !added { entry.before = (0..<columns).map { max(0, stats[2 * $0 + 1]) } }
                net[i, default: [:]][rowid] = entry
            }
            var result = ImpactLog.Changes()
            for (i, rows) in net {
                for (rowid, entry) in rows {
                    let change = entry.change
                    let shorter = change.holdsNow && (entry.before.map { before in
                        (0..<columns).contains { change.now($0) > 0 && change.length($0) < before[$0] }
                    } ?? true)
                    if change.changesCounts || shorter { result.add(counter.terms[i], rowid, change) }
                }
            }
            return result
        }

        /// Appends `net` to the log, or, when that fills it, writes the log's changes and then `net`'s into the
        /// deltas and blocks and empties the log.
        private func log(_ net: ImpactLog.Changes, _ meta: Meta, on handle: Handle) throws {
            var last = ImpactLog.Last()
            let logged = try handle.stepUnobserved(logLast)
            if logged {
                last = ImpactLog.Last(seq: sqlite3_column_int64(logLast, 0), total: sqlite3_column_int64(logLast, 1),
                                      check: sqlite3_column_int64(logLast, 2))
            }
            sqlite3_reset(logLast)
            let (total, overflow) = last.total.addingReportingOverflow(Int64(net.count))
            if !overflow, last.seq >= 0, last.seq + 1 < Int64(logLimits.rows), total < Int64(logLimits.entries) {
                sqlite3_bind_int64(logAppend, 1, last.seq + 1)
                sqlite3_bind_int64(logAppend, 2, Int64(net.count))
                sqlite3_bind_int64(logAppend, 3, total)
                sqlite3_bind_int64(logAppend, 5, last.check)
                return try write(logAppend, net.encoded(columns: meta.columns), as: 4, on: handle)
            }
            var all = ImpactLog.Changes()
            if logged {
                defer { sqlite3_reset(logRead) }
                let read = try ImpactLog.read(logRead, meta, after: ImpactLog.Last(), into: &all) { try handle.stepUnobserved($0) }
                guard read == last else { throw Stale(reason: "the log of changed rows is damaged") }
            }
            all.add(net)
            try apply(all, meta, on: handle)
            if logged { try step(logClear, on: handle) }
        }

        /// Writes `changes` into the deltas and blocks: per term and chunk, the maxima of the rows that hold the term
        /// now raised, and the rows whose counts changed put into the term's delta there.
        private func apply(_ changes: ImpactLog.Changes, _ meta: Meta, on handle: Handle) throws {
            let chunkRows = Int64(meta.chunkBlocks) * meta.block
            let listed = Set(counter.terms)
            for term in changes.terms.keys.sorted() {
                guard listed.contains(term) else { throw Stale(reason: "the log of changed rows names \(term), which is not listed") }
                for chunk in changes.chunks(of: term, chunkRows: chunkRows) {
                    if !chunk.holding.isEmpty { try raise(term, chunk, meta, on: handle) }
                    if !chunk.delta.rowids.isEmpty {
                        try record(chunk.delta, rows: chunk.rows, instances: chunk.instances, of: term, in: chunk.chunk, meta, on: handle)
                    }
                }
            }
        }

        /// Raises the maxima of the blocks of the rows of `changes` that hold `term` now, adding the term's chunk
        /// when it has none.
        private func raise(_ term: String, _ changes: ImpactLog.ChunkChanges, _ meta: Meta, on handle: Handle) throws {
            let stride = ImpactBlock.stride(columns: meta.columns), first = changes.chunk * Int64(meta.chunkBlocks)
            let lastOffset = changes.holding.map { Int($0 / meta.block - first) * stride }.max() ?? 0
            var blocks = [UInt8](repeating: 0, count: lastOffset + stride)
            bind(term, chunk, changes.chunk)
            let stored = try handle.stepUnobserved(chunk) ? sqlite3_column_int64(chunk, 0) : nil
            if stored != nil {
                ImpactBlock.copyChunk(chunk, column: 1, into: &blocks, at: 0, chunkBytes: meta.chunkBlocks * stride)
            }
            sqlite3_reset(chunk)
            let before = blocks
            changes.raise(&blocks, from: first, block: meta.block, columns: meta.columns)
            guard blocks != before else { return }
            let write = stored == nil ? add : setBlocks
            _ = blocks.withUnsafeBytes {
                sqlite3_bind_blob(write, stored == nil ? 3 : 1, $0.baseAddress, Int32($0.count), sift_sqlite_transient())
            }
            if let stored { sqlite3_bind_int64(write, 2, stored) } else { bind(term, write, changes.chunk) }
            try step(write, on: handle)
        }

        /// Puts `rows` (sorted, with their counts of `term` now) into the term's delta of chunk `chunkIndex`, whose
        /// row and instance counts change by `rows` and `instances`; folds the delta into the chunk's postings when
        /// it reaches `foldRows` rows. Throws `Stale` when the delta is damaged.
        private func record(_ rows: ImpactPostings.Rows, rows rowsChange: Int64, instances: Int64, of term: String,
                            in chunkIndex: Int64, _ meta: Meta, on handle: Handle) throws {
            let columns = meta.columns, chunkRows = Int64(meta.chunkBlocks) * meta.block
            let base = chunkIndex * chunkRows - 1, lastRow = min(base + chunkRows, meta.watermark)
            let bytes = rows.encoded(after: base, columns: columns)
            func bound(_ stmt: OpaquePointer) -> OpaquePointer {
                bind(term, stmt, ImpactDelta.storedChunk(of: chunkIndex))
                sqlite3_bind_int64(stmt, 3, rowsChange)
                sqlite3_bind_int64(stmt, 4, instances)
                _ = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(stmt, 5, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), sift_sqlite_transient())
                }
                sqlite3_bind_int64(stmt, 6, Int64(columns))
                sqlite3_bind_int64(stmt, 7, base)
                sqlite3_bind_int64(stmt, 8, lastRow)
                return stmt
            }
            // The delta's row, made with the bounds (the rows it holds now told by `sift_postings_put_rows`); or made
            // now, for a chunk the bounds had no rows in, holding only these rows.
            defer { sqlite3_reset(updateDelta); sqlite3_reset(putDelta); sqlite3_reset(readDelta) }
            let update = bound(updateDelta)
            while try handle.stepUnobserved(update) {}
            let held: Int64
            if sqlite3_changes(handle.raw) == 1 {
                held = sift_postings_put_rows()
            } else {
                let insert = bound(putDelta)
                while try handle.stepUnobserved(insert) {}
                held = Int64(rows.rowids.count)
            }
            guard held >= 0 else { throw Stale(reason: "a delta of \(term) is damaged") }
            guard held >= foldRows else { return }
            // Folded: the delta as written, checked.
            bind(term, readDelta, ImpactDelta.storedChunk(of: chunkIndex))
            sqlite3_bind_int64(readDelta, 3, Int64(columns))
            sqlite3_bind_int64(readDelta, 4, base)
            sqlite3_bind_int64(readDelta, 5, lastRow)
            guard try handle.stepUnobserved(readDelta), sqlite3_column_int64(readDelta, 4) >= 0, sqlite3_column_int64(readDelta, 5) == 1 else {
                throw Stale(reason: "a delta of \(term) is damaged")
            }
            let (row, df, cf) = (sqlite3_column_int64(readDelta, 0), sqlite3_column_int64(readDelta, 1), sqlite3_column_int64(readDelta, 2))
            let delta = RawStatement.bytes(readDelta, 3)
            sqlite3_reset(readDelta)
            try fold(delta, rows: df, instances: cf, into: term, chunkIndex, after: base, lastRow: lastRow, columns: columns, on: handle)
            // The delta's row stays, emptied: the next change of the chunk writes it in place.
            sqlite3_bind_int64(emptyDelta, 1, row)
            try step(emptyDelta, on: handle)
        }

        /// The rows of the blob in `column` of `stmt`'s row (nil: none) after `base` and `newer`'s merged
        /// (`sift_postings_merge`), and how many; nil when the blob is damaged or a row passes `last`.
        private static func merge(_ stmt: OpaquePointer?, column: Int32, with newer: [UInt8], columns: Int, after base: Int64,
                                  last: Int64, keepingEmpty: Bool) -> (bytes: [UInt8], rows: Int)? {
            let blob = stmt.flatMap { sqlite3_column_blob($0, column)?.assumingMemoryBound(to: UInt8.self) }
            let count = stmt.map { Int(sqlite3_column_bytes($0, column)) } ?? 0
            var out = [UInt8](repeating: 0, count: count + newer.count), rows: Int32 = 0
            let written = newer.withUnsafeBufferPointer { newer in
                out.withUnsafeMutableBufferPointer { out in
                    sift_postings_merge(blob, Int32(count), newer.baseAddress, Int32(newer.count), Int32(columns), base,
                                        keepingEmpty ? 1 : 0, out.baseAddress, Int32(out.count), &rows)
                }
            }
            guard written >= 0 else { return nil }
            out.removeLast(out.count - Int(written))
            let lastRowid = out.withUnsafeBufferPointer { sift_postings_last_rowid($0.baseAddress, Int32($0.count), Int32(columns), base) }
            return lastRowid <= last ? (out, Int(rows)) : nil
        }

        /// Writes the chunk's postings of `term` with `delta` (stored rows: their counts now, changing the chunk's row
        /// and instance counts by `rows` and `instances`) applied. Throws `Stale` when the postings are damaged or do
        /// not agree with the delta.
        private func fold(_ delta: [UInt8], rows: Int64, instances: Int64, into term: String, _ chunkIndex: Int64,
                          after base: Int64, lastRow: Int64, columns: Int, on handle: Handle) throws {
            bind(term, readPostings, chunkIndex)
            defer { sqlite3_reset(readPostings) }
            guard try handle.stepUnobserved(readPostings) else {
                // No postings in the chunk: the delta may only remove rows it never held.
                guard rows == 0, instances == 0, let applied = Self.merge(nil, column: 3, with: delta, columns: columns, after: base,
                                                                          last: lastRow, keepingEmpty: false), applied.rows == 0 else {
                    throw Stale(reason: "a delta of \(term) adds rows to a chunk it is not in")
                }
                return
            }
            let row = sqlite3_column_int64(readPostings, 0)
            let (df, cf) = (sqlite3_column_int64(readPostings, 1), sqlite3_column_int64(readPostings, 2))
            let (rowsNow, rowsOverflow) = df.addingReportingOverflow(rows)
            let (instancesNow, instancesOverflow) = cf.addingReportingOverflow(instances)
            guard sqlite3_column_int64(readPostings, 4) == 1,
                  let now = Self.merge(readPostings, column: 3, with: delta, columns: columns, after: base, last: lastRow, keepingEmpty: false),
                  !rowsOverflow, !instancesOverflow, Int64(now.rows) == rowsNow, instancesNow >= rowsNow else {
                throw Stale(reason: "the postings of \(term) are damaged or do not agree with its delta")
            }
            sqlite3_reset(readPostings)
            sqlite3_bind_int64(writePostings, 1, row)
            sqlite3_bind_int64(writePostings, 2, rowsNow)
            sqlite3_bind_int64(writePostings, 3, instancesNow)
            try write(writePostings, now.bytes, as: 4, on: handle)
        }

        /// Runs `stmt` with `bytes` as parameter `parameter`.
        private func write(_ stmt: OpaquePointer, _ bytes: [UInt8], as parameter: Int32, on handle: Handle) throws {
            _ = bytes.withUnsafeBytes {
                // A non-null pointer for no bytes: an empty blob, not NULL.
                sqlite3_bind_blob(stmt, parameter, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), sift_sqlite_transient())
            }
            try step(stmt, on: handle)
        }

        /// Binds a term (parameter 1) and a chunk (parameter 2, when given).
        private func bind(_ term: String, _ stmt: OpaquePointer, _ chunk: Int64?) {
            sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
            if let chunk { sqlite3_bind_int64(stmt, 2, chunk) }
        }

        private func step(_ stmt: OpaquePointer, on handle: Handle) throws {
            defer { sqlite3_reset(stmt) }
            while try handle.stepUnobserved(stmt) {}
        }
    }
}
