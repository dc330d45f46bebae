import CSQLite
import SiftRank
import Foundation

/// Per-term score bounds that let a search skip most rows of a large index: Sift's "impacts", kept beside a
/// synced index in two ordinary SQLite tables and written in the same transaction as the index.
///
/// For every *listed* term (one in at least `minimumRows` rows when the impacts were built: the frequent
/// terms, whose rows a search cannot afford to score one by one) `<index>_sift_impacts` holds
/// - `df` and `cf`: the number of rows with rowid in 1...`watermark` containing the term and its instances in
///   them (what sift_rank's idf and sift_inb2's after-effect need, so the search never counts a frequent term's
///   rows), and
/// - `blocks`: per block of `block` consecutive rowids, `ImpactBlock.stride` bytes: the largest count of the
///   term in a row (all columns together), and per column the largest count in it and the shortest length of
///   it among the rows holding the term there. They bound the term's BM25F contribution in every row of the
///   block for any k1, b, column weights and average lengths (see `ImpactBound`);
/// - `postings`: the rows holding the term and its count in each column (`ImpactPostings`), from which a query
///   of listed terms alone is scored without reading FTS5's index (`sift_topk_postings`): FTS5 steps through the
///   rows of a frequent pair at about 30 ns a row, the postings at a few.
///
/// They are stored per *chunk* of `chunk_blocks` blocks, 64 (16,384 rowids): a row `(term, chunk, df, cf, blocks,
/// postings)` with the rows of the chunk holding the term, the chunk's blocks and postings; a chunk no row of which holds the term has
/// no row. Chunk -1 (no blocks) holds how deletes and updates changed the term's row count, so that they write
/// one row per term, and those rows sit together on few pages. Extending them over new rows rewrites only the last chunks of each term (448 bytes each with two
/// columns), not every term's whole list, which made loading a million rows in batches quadratic.
///
/// `<index>_sift_topk` holds one row: `layout` (`TopKImpacts.tablesLayout`; impacts of an earlier layout read as stale),
/// `watermark` (the blocks describe the rows from rowid 1 up to it; the rows
/// above it and those at rowid 0 or below are the *tail*: not in the blocks, always scored and counted), `block`, `chunk_blocks` and `valid`: 1 when the impacts describe the
/// rows exactly, 2 when they are still valid but loose (see below), 0 when stale (searches take FTS5's
/// exhaustive plan until `rebuild(index:)` or `optimize(index:)` rebuilds them).
///
/// Every change is followed in its own transaction:
/// - a bulk insert above the watermark extends the impacts over the new rows (`Follower`), and rows inserted one
///   by one join them once their tail is long enough (`extend`);
/// - a delete, an update or a single-row insert at or below the watermark keeps them exact where a search needs
///   it (`follow`): the row counts go down and up with the rows, and an added row raises its block's maxima. A
///   removed row's maxima stay, a bound now higher than needed: it may cost a search time, never a result. Such
///   changes set `valid` to 2, so that `optimize(index:)` rebuilds tight bounds. The postings stay as written:
///   the changed rows are listed in `<index>_sift_changed` and their listed terms' counts now in
///   `<index>_sift_changes`, which a search reads in their place (up to `impactSizes.changed` rows; beyond,
///   it leaves the postings until `optimize(index:)` writes them anew);
/// - a bulk insert that reaches below the watermark clears `valid`.
struct TopKImpacts {
    /// The layout of the tables: 3 since postings (2 since instance counts, `cf`). Impacts of another layout read
    /// as stale.
    static let tablesLayout: Int64 = 3
    /// Terms in fewer rows than this are not listed: scoring every one of their rows is cheap (0.5% of the rows,
    /// at least 100).
    static func minimumRows(forRows rows: Int, on handle: Handle) -> Int {
        max(handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.listed }, rows / 200)
    }
    /// The rowids per block of impacts built now.
    static func blockSize(on handle: Handle) -> Int64 {
        handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.block }
    }
    /// Below this many rows (20,000) an index gets no impacts: FTS5's plan is fast enough.
    static func automaticRows(on handle: Handle) -> Int {
        handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.rows }
    }

    static func metaTable(_ index: String) -> String { index + "_sift_topk" }

    /// Stored bounds that cannot be what Sift wrote (a damaged or crafted file): a search takes FTS5's exhaustive
    /// plan instead, and `verify(index:)` reports it.
    struct Stale: Error {
        let reason: String
    }

    /// The most bytes of blocks one term may take in memory (64 MiB): bounds over more rowids than that covers (a
    /// watermark or a largest rowid far beyond the rows, from sparse rowids or a damaged file) are not built, or
    /// read as stale.
    static let maxBlockBytes: Int64 = 1 << 26

    /// Whether blocks of `block` rowids from rowid 1 up to `top` fit in `maxBlockBytes` for each term.
    static func coverable(_ top: Int64, block: Int64, columns: Int) -> Bool {
        guard top >= 0, block >= 1, (1...64).contains(columns) else { return false }
        return top / block < maxBlockBytes / Int64(ImpactBlock.stride(columns: columns))
    }
    static func termsTable(_ index: String) -> String { index + "_sift_impacts" }
    /// The rows changed since the postings were written (`rowid`), and their listed terms' counts now (`term`,
    /// `rowid`, `counts`): what a search reads instead of those rows' postings.
    static func changedTable(_ index: String) -> String { index + "_sift_changed" }
    static func changesTable(_ index: String) -> String { index + "_sift_changes" }

    struct Meta {
        var watermark: Int64
        var block: Int64
        /// Blocks per stored chunk.
        var chunkBlocks: Int
        var valid: Bool
        /// Valid, but changed rows may have left bounds higher than the rows need (`optimize(index:)` rebuilds them).
        var loose = false
        var columns: Int
        /// Rows in the index when the impacts were built (which terms are listed depends on it).
        var builtRows: Int

        init(watermark: Int64, block: Int64, chunkBlocks: Int, valid: Bool, columns: Int, builtRows: Int) {
            (self.watermark, self.block, self.chunkBlocks, self.valid) = (watermark, block, chunkBlocks, valid)
            (self.columns, self.builtRows) = (columns, builtRows)
        }

        /// The metadata in the current row of `stmt`, its fields in the given columns (`valid` 2: loose). Numbers
        /// no build writes (see `plausible`) read as stale bounds.
        init(_ stmt: OpaquePointer, watermark: Int32, valid: Int32, block: Int32, chunkBlocks: Int32, columns: Int32,
             builtRows: Int32) {
            let validity = sqlite3_column_int64(stmt, valid)
            self.init(watermark: sqlite3_column_int64(stmt, watermark), block: sqlite3_column_int64(stmt, block),
                      chunkBlocks: Int(sqlite3_column_int64(stmt, chunkBlocks)), valid: validity == 1 || validity == 2,
                      columns: Int(sqlite3_column_int64(stmt, columns)), builtRows: Int(sqlite3_column_int64(stmt, builtRows)))
            loose = validity == 2
            if !plausible {
                (self.valid, self.block, self.chunkBlocks, self.watermark) = (false, 1, 1, 0)
            }
        }

        /// Whether the numbers are ones a build writes: blocks of 1 to 2^20 rowids, chunks of 1 to 2^16 blocks, 1 to
        /// 64 columns (sift_topk's limit), and a watermark whose blocks fit in `maxBlockBytes` a term.
        var plausible: Bool {
            (1...(1 << 20)).contains(block) && (1...(1 << 16)).contains(chunkBlocks) && builtRows >= 0
                && TopKImpacts.coverable(watermark, block: block, columns: columns)
        }
    }

    /// The index's impacts metadata, or nil when it has none. Impacts of an earlier layout (no `layout`, or
    /// another) read as stale: searches do not use them and the next optimize or rebuild replaces them.
    static func meta(_ index: String, on handle: Handle) throws -> Meta? {
        guard try handle.schemaType(of: metaTable(index)) == "table" else { return nil }
        return try handle.withStatement("SELECT * FROM \(SQLBuilder.quote(metaTable(index)))") { stmt in
            guard try handle.step(stmt) else { return nil }
            // Named after the step: a cached statement is prepared again when the table changed.
            var at: [String: Int32] = [:]
            for i in 0..<sqlite3_column_count(stmt) { at[String(cString: sqlite3_column_name(stmt, i))] = i }
            guard let watermark = at["watermark"], let block = at["block"], let valid = at["valid"], let columns = at["columns"],
                  let built = at["built_rows"], let chunkBlocks = at["chunk_blocks"], let layout = at["layout"],
                  sqlite3_column_int64(stmt, layout) == tablesLayout else {
                return Meta(watermark: 0, block: 1, chunkBlocks: 1, valid: false, columns: 0, builtRows: 0)
            }
            return Meta(stmt, watermark: watermark, valid: valid, block: block, chunkBlocks: chunkBlocks, columns: columns,
                        builtRows: built)
        }
    }

    /// A listed term's row count, instance count and blocks: every block up to the watermark's, in order (zero
    /// where no row holds the term), or nil when the term is not listed. Throws `Stale` when what is stored cannot
    /// be what a build wrote: a chunk past the watermark's, a blob longer than a chunk, counts that overflow or
    /// leave more rows than rowids 1 up to the watermark, or fewer instances than rows.
    static func stored(_ term: String, in index: String, _ meta: Meta, on handle: Handle) throws -> (df: Int64, cf: Int64, blocks: [UInt8])? {
        let chunkBytes = meta.chunkBlocks * ImpactBlock.stride(columns: meta.columns)
        let lastChunk = meta.watermark / meta.block / Int64(meta.chunkBlocks)
        let sql = "SELECT chunk, df, cf, blocks FROM \(SQLBuilder.quote(termsTable(index))) WHERE term = ? ORDER BY chunk"
        return try handle.withStatement(sql) { stmt in
            sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
            var df: Int64 = 0, cf: Int64 = 0, blocks: [UInt8] = [], found = false
            while try handle.step(stmt) {
                found = true
                let chunk = sqlite3_column_int64(stmt, 0)
                let (rows, rowsOverflow) = df.addingReportingOverflow(sqlite3_column_int64(stmt, 1))
                let (instances, instancesOverflow) = cf.addingReportingOverflow(sqlite3_column_int64(stmt, 2))
                guard chunk >= -1, chunk <= lastChunk, !rowsOverflow, !instancesOverflow,
                      Int(sqlite3_column_bytes(stmt, 3)) <= (chunk < 0 ? 0 : chunkBytes) else {
                    throw Stale(reason: "the stored bounds of \(term) are damaged")
                }
                (df, cf) = (rows, instances)
                if chunk >= 0 { ImpactBlock.copyChunk(stmt, column: 3, into: &blocks, at: Int(chunk), chunkBytes: chunkBytes) }
            }
            guard found else { return nil }
            guard df >= 0, df <= meta.watermark, cf >= df else { throw Stale(reason: "the stored counts of \(term) are damaged") }
            let width = (Int(meta.watermark / meta.block) + 1) * ImpactBlock.stride(columns: meta.columns)
            if blocks.count < width { blocks += [UInt8](repeating: 0, count: width - blocks.count) }
            return (df, cf, blocks)
        }
    }

    /// Clears `valid` when the impacts reach `rowid` (a bulk insert at or below the watermark).
    static func invalidateSQL(_ index: String) -> String {
        "UPDATE \(SQLBuilder.quote(metaTable(index))) SET valid = 0 WHERE valid >= 1 AND watermark >= ?"
    }

    /// The statement the sync layer reads the impacts' layout with while it applies row changes (it may only step
    /// unobserved statements then). Nil when the index has no
    /// impacts or has them in the earlier layout (stale: nothing to follow).
    static func metaReader(_ index: String, on handle: Handle) throws -> OpaquePointer? {
        let exists = try handle.prepareUnmanaged("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        defer { sqlite3_finalize(exists) }
        sqlite3_bind_text(exists, 1, metaTable(index), -1, sift_sqlite_transient())
        guard try handle.stepUnobserved(exists) else { return nil }
        return try? handle.prepareUnmanaged(
            "SELECT watermark, valid, block, chunk_blocks, columns, built_rows, layout FROM \(SQLBuilder.quote(metaTable(index)))")
    }

    /// The impacts' layout as `metaReader` reads it, or nil when they are stale.
    static func readMeta(_ reader: OpaquePointer, on handle: Handle) throws -> Meta? {
        defer { sqlite3_reset(reader) }
        guard try handle.stepUnobserved(reader) else { return nil }
        let meta = Meta(reader, watermark: 0, valid: 1, block: 2, chunkBlocks: 3, columns: 4, builtRows: 5)
        return meta.valid && sqlite3_column_int64(reader, 6) == tablesLayout ? meta : nil
    }

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
        private let count, addCount, chunk, setBlocks, add, loosen, markChanged, removeCounts, addCounts: OpaquePointer

        init(_ index: SyncedIndex, on handle: Handle) throws {
            tokenizer = try handle.tokenizer(try FTSTableInfo.load(index.index, on: handle).tokenizer)
            schemaVersion = try handle.schemaVersion()
            counter = try ListedTermCounter(try listedTerms(index.index, on: handle), columns: index.columns.count)
            let table = SQLBuilder.quote(termsTable(index.index))
            var prepared: [OpaquePointer] = []
            do {
                // A listed term's row count changes in its chunk -1 row (made with the impacts: their rows sit
                // together, so a change dirties few pages; made here for impacts built before them).
                for sql in ["UPDATE \(table) SET df = df + ?2, cf = cf + ?3 WHERE term = ?1 AND chunk = -1",
                            "INSERT INTO \(table)(term, chunk, df, cf, blocks) VALUES(?1, -1, ?2, ?3, x'')",
                            "SELECT rowid, blocks FROM \(table) WHERE term = ? AND chunk = ?",
                            "UPDATE \(table) SET blocks = ? WHERE rowid = ?",
                            "INSERT INTO \(table)(term, chunk, df, cf, blocks) VALUES(?, ?, 0, 0, ?)",
                            "UPDATE \(SQLBuilder.quote(metaTable(index.index))) SET valid = 2 WHERE valid = 1",
                            "INSERT OR IGNORE INTO \(SQLBuilder.quote(changedTable(index.index)))(rowid) VALUES(?)",
                            "DELETE FROM \(SQLBuilder.quote(changesTable(index.index))) WHERE term = ? AND rowid = ?",
                            "INSERT OR REPLACE INTO \(SQLBuilder.quote(changesTable(index.index)))(term, rowid, counts) VALUES(?, ?, ?)"] {
                    prepared.append(try handle.prepareUnmanaged(sql))
                }
            } catch {
                prepared.forEach { sqlite3_finalize($0) }
                throw error
            }
            (count, addCount, chunk, setBlocks, add, loosen) = (prepared[0], prepared[1], prepared[2], prepared[3], prepared[4], prepared[5])
            (markChanged, removeCounts, addCounts) = (prepared[6], prepared[7], prepared[8])
        }

        deinit { [count, addCount, chunk, setBlocks, add, loosen, markChanged, removeCounts, addCounts].forEach { sqlite3_finalize($0) } }

        /// Applies `changes` to impacts of layout `meta` (as `readMeta` read it in this transaction). Writes only
        /// what changes: the row counts, a block only when the added row raises it, and the changed rows' counts
        /// beside the postings (which stay as written).
        func follow(_ changes: RowChanges, _ meta: Meta, on handle: Handle) throws {
            guard meta.columns == counter.columns, !changes.added.isEmpty else { return }
            let stride = ImpactBlock.stride(columns: meta.columns)
            for rowid in changes.rows.rowids {
                sqlite3_bind_int64(markChanged, 1, rowid)
                try step(markChanged, on: handle)
            }
            try counter.count(changes.rows, with: tokenizer) { r, i, stats in
                let term = counter.terms[i], added = changes.added[r], sign: Int64 = added ? 1 : -1
                let change = (rows: sign, instances: sign * ImpactBlock.instances(stats, columns: meta.columns))
                try step(count, term: term, change: change, on: handle)
                if sqlite3_changes(handle.raw) == 0 { try step(addCount, term: term, change: change, on: handle) }
                // The row's counts now: removed with its old text, written with its new one.
                let counting = added ? addCounts : removeCounts
                bind(term, counting, changes.rows.rowids[r])
                if added {
                    let counts = (0..<meta.columns).map { Int32(stats[2 * $0]) }
                    _ = counts.withUnsafeBytes { sqlite3_bind_blob(counting, 3, $0.baseAddress, Int32($0.count), sift_sqlite_transient()) }
                }
                try step(counting, on: handle)
                guard added else { return }
                let block = Int(changes.rows.rowids[r] / meta.block)
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

    /// How many rows above the watermark the sync layer lets rows inserted one by one gather before it extends
    /// the impacts over them: 1,000, or 1/64 of the watermark when larger (so extending costs a constant share).
    static func tailRows(watermark: Int64, on handle: Handle) -> Int64 {
        max(Int64(handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.tail }), watermark / 64)
    }

    /// Builds the impacts of `index` from scratch (dropping any), over every row it holds.
    static func build(_ index: SyncedIndex, on handle: Handle) throws {
        let terms = try create(index, on: handle)
        try ImpactsCollector(index, listing: terms, top: maxRowid(index.index, on: handle), overlapping: false, on: handle)?
            .finish(on: handle)
    }

    /// Makes the impacts tables of `index` (dropping any) with watermark 0 and returns the terms to list: those in
    /// at least `minimumRows` of the rows it holds now.
    private static func create(_ index: SyncedIndex, on handle: Handle) throws -> [String] {
        try drop(index.index, on: handle)
        let q = SQLBuilder.quote
        let columns = index.columns.count
        try handle.execute("""
            CREATE TABLE \(q(metaTable(index.index)))(id INTEGER PRIMARY KEY CHECK (id = 1), watermark INTEGER NOT NULL, \
            block INTEGER NOT NULL, valid INTEGER NOT NULL, columns INTEGER NOT NULL, built_rows INTEGER NOT NULL, \
            chunk_blocks INTEGER NOT NULL, layout INTEGER NOT NULL)
            """)
        try handle.execute("""
            CREATE TABLE \(q(termsTable(index.index)))(term TEXT NOT NULL, chunk INTEGER NOT NULL, df INTEGER NOT NULL, \
            cf INTEGER NOT NULL, blocks BLOB NOT NULL, postings BLOB NOT NULL DEFAULT x'', UNIQUE (term, chunk))
            """)
        try handle.execute("CREATE TABLE \(q(changedTable(index.index)))(rowid INTEGER PRIMARY KEY)")
        try handle.execute("""
            CREATE TABLE \(q(changesTable(index.index)))(term TEXT NOT NULL, rowid INTEGER NOT NULL, counts BLOB NOT NULL, \
            PRIMARY KEY (term, rowid)) WITHOUT ROWID
            """)
        let rows = try rowCount(index.index, on: handle)
        let sizes = handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0 }
        try handle.execute("INSERT INTO \(q(metaTable(index.index))) VALUES(1, 0, ?, 1, ?, ?, ?, ?)",
                           [FundamentalValue(sizes.block), FundamentalValue(Int64(columns)), FundamentalValue(Int64(rows)),
                            FundamentalValue(Int64(sizes.chunk)), FundamentalValue(tablesLayout)])
        // Only terms a query finds as themselves: their rows are exactly those `MATCH '"term"'` returns.
        let tokenizer = try handle.tokenizer(try FTSTableInfo.load(index.index, on: handle).tokenizer)
        let terms = try frequentTerms(index.index, minimumRows: minimumRows(forRows: rows, on: handle), on: handle).filter { term in
            try TopKImpacts.token(of: term, tokenizer) == term
        }
        // Their chunk -1 rows, which row changes count in (made together: they sit on few pages).
        try handle.withStatement("INSERT INTO \(q(termsTable(index.index)))(term, chunk, df, cf, blocks) VALUES(?, -1, 0, 0, x'')") { stmt in
            for term in terms {
                sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
                while try handle.step(stmt) {}
                sqlite3_reset(stmt)
            }
        }
        return terms
    }

    /// The index's largest rowid (0 when empty).
    static func maxRowid(_ index: String, on handle: Handle) throws -> Int64 {
        try handle.withStatement("SELECT max(rowid) FROM \(SQLBuilder.quote(index + "_docsize"))") { stmt in
            try handle.step(stmt) ? sqlite3_column_int64(stmt, 0) : 0
        }
    }

    /// The one token a query finds for `text`, or nil when it has none or several.
    static func token(of text: String, _ tokenizer: TokenizerInstance) throws -> String? {
        var tokens: [String] = []
        try tokenizer.tokenize(text, reason: .query) { bytes, _, _, _ in tokens.append(String(decoding: bytes, as: UTF8.self)) }
        return tokens.count == 1 ? tokens[0] : nil
    }

    /// Keeps the impacts in step with a bulk insert into the index, in its transaction: the sync layer makes one
    /// before FTS5 indexes the new rows (`rowids`, sorted; in the content table already), calls `willIndex` before
    /// each piece of them and `finish` after. New rows above the watermark are counted into the impacts, piece by
    /// piece on a worker thread while FTS5 indexes the same piece (see `ImpactsCollector`); a row from rowid 1 up
    /// to it clears `valid` (rows at rowid 0 or below are the low tail). An index without impacts gets them once it holds `automaticRows`: when the rows indexed
    /// so far reach it, their frequent terms are listed from FTS5's vocabulary and the rest of the insert counts
    /// them as above. (Terms that become frequent later are listed by the next `rebuild(index:)` or
    /// `optimize(index:)` of stale or loose impacts; until then their rows are scored one by one.)
    final class Follower {
        private let index: SyncedIndex
        private let top: Int64
        private var collector: ImpactsCollector?
        /// New rows FTS5 must have indexed for the impacts to be built here; nil when the index has them (or
        /// does not get them from this insert).
        private var buildAt: Int?
        private var indexed = 0

        deinit { collector?.close() }

        init(bulkInsertOf rowids: [Int64], into index: SyncedIndex, on handle: Handle) throws {
            self.index = index
            guard !rowids.isEmpty, index.mode == .explicit, try ScoreBounds.unsupportedReason(index.index, on: handle) == nil else {
                top = 0
                return
            }
            top = max(rowids.last ?? 0, try maxRowid(index.index, on: handle))
            guard let meta = try meta(index.index, on: handle) else {
                guard coverable(top, block: blockSize(on: handle), columns: index.columns.count) else { return }
                let needed = automaticRows(on: handle) - (try rowCount(index.index, on: handle))
                if needed <= rowids.count { buildAt = max(0, needed) }
                return
            }
            guard meta.valid else { return }
            guard meta.columns == index.columns.count, coverable(top, block: meta.block, columns: meta.columns) else {
                try ScoreBounds.markStale(index.index, on: handle)
                return
            }
            // Rows at rowid 0 or below are the low tail, which the impacts leave to every search.
            if let low = rowids.first(where: { $0 >= 1 }), low <= meta.watermark {
                try handle.execute(invalidateSQL(index.index), [FundamentalValue(low)])
            } else {
                collector = try ImpactsCollector(index, top: top, overlapping: true, on: handle)
            }
        }

        /// Before FTS5 indexes `rows` (a piece of `count` new rows): counts them, on the worker when there is one.
        func willIndex(_ rows: ClosedRange<Int64>, count: Int, on handle: Handle) throws {
            if let buildAt, indexed >= buildAt, indexed > 0 {
                self.buildAt = nil
                let terms = try create(index, on: handle)
                collector = try ImpactsCollector(index, listing: terms, top: top, overlapping: true, on: handle)
            }
            try collector?.add(through: rows.upperBound, on: handle)
            indexed += count
        }

        /// After FTS5 indexed every new row: counts what is left and writes the impacts.
        func finish(on handle: Handle) throws {
            if buildAt != nil, try rowCount(index.index, on: handle) >= automaticRows(on: handle) {
                buildAt = nil
                try build(index, on: handle)
            }
            try collector?.finish(on: handle)
        }
    }

    /// Adds the impacts of `term` in the rows with rowids in `rows` to `blocks` (long enough for them) and the
    /// rows with its count in each column to `postings`; returns how many of those rows contain it and its
    /// instances in them.
    private static func scan(_ term: String, in index: String, rows: ClosedRange<Int64>, _ meta: Meta,
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
    /// postings, with the changed rows' counts in their place, must equal the ones recomputed. Stale impacts
    /// (`valid` cleared) are not checked: searches do not use them.
    static func problems(_ index: String, on handle: Handle) throws -> [String] {
        guard let meta = try meta(index, on: handle), meta.valid else { return [] }
        var problems: [String] = []
        let changed: Set<Int64>
        do {
            changed = Set(try changedRows(index, meta, limit: nil, on: handle) ?? [])
        } catch let stale as Stale {
            return ["impacts: \(stale.reason)"]
        }
        for term in try listedTerms(index, on: handle) {
            do {
                problems += try termProblems(term, in: index, meta, changed: changed, on: handle)
            } catch let stale as Stale {
                problems.append("impacts: \(stale.reason)")
            }
        }
        return problems
    }

    /// What is wrong with the stored bounds of one listed term (see `problems`); throws `Stale` for damage that
    /// keeps them from being read at all.
    private static func termProblems(_ term: String, in index: String, _ meta: Meta, changed: Set<Int64>,
                                     on handle: Handle) throws -> [String] {
        var problems: [String] = []
        let width = ImpactBlock.stride(columns: meta.columns)
        guard let (rows, instances, blob) = try stored(term, in: index, meta, on: handle) else { return [] }
        var fresh = [UInt8](repeating: 0, count: (Int(meta.watermark / meta.block) + 1) * width)
        var postings = ImpactPostings.Rows()
        let found = meta.watermark < 1 ? (rows: 0, instances: 0)
            : try scan(term, in: index, rows: 1...meta.watermark, meta, into: &fresh, postings: &postings, on: handle)
        if try storedPostings(term, in: index, meta, changed: changed, on: handle) != postings {
            problems.append("impacts: the postings of \(term) differ from its rows")
        }
        if found.rows != rows { problems.append("impacts: \(term) is in \(found.rows) rows, \(rows) recorded") }
        if found.instances != instances {
            problems.append("impacts: \(term) occurs \(found.instances) times, \(instances) recorded")
        }
        if blob.count < fresh.count || !Swift.stride(from: 0, to: fresh.count, by: width).allSatisfy({ base in
            ImpactBlock.covers(stored: blob, fresh: fresh, at: base, columns: meta.columns)
        }) {
            problems.append("impacts: the block maxima of \(term) are below its counts")
        }
        return problems
    }

    /// A listed term's rows as a search reads them: its postings, but the `changed` rows' counts now for theirs;
    /// nil when a chunk's postings are damaged.
    private static func storedPostings(_ term: String, in index: String, _ meta: Meta, changed: Set<Int64>,
                                       on handle: Handle) throws -> ImpactPostings.Rows? {
        var stored = ImpactPostings.Rows(), whole = true
        let chunkRows = Int64(meta.chunkBlocks) * meta.block
        try handle.withStatement("SELECT chunk, postings FROM \(SQLBuilder.quote(termsTable(index))) WHERE term = ? AND chunk >= 0 ORDER BY chunk") { stmt in
            try handle.bind([FundamentalValue(term)], to: stmt, sql: "")
            while try handle.step(stmt) {
                whole = stored.decode(RawStatement.bytes(stmt, 1), after: sqlite3_column_int64(stmt, 0) * chunkRows - 1,
                                      columns: meta.columns, leavingOut: changed) && whole
            }
        }
        guard whole else { return nil }
        // The changed rows' counts now, merged in rowid order.
        let now = try changedCounts(of: term, in: index, meta, on: handle)
        var merged = ImpactPostings.Rows(), at = 0
        for i in now.rowids.indices {
            while at < stored.rowids.count, stored.rowids[at] < now.rowids[i] {
                merged.append(stored, at)
                at += 1
            }
            merged.append(now, i)
        }
        while at < stored.rowids.count {
            merged.append(stored, at)
            at += 1
        }
        return merged
    }

    /// The rows changed since the postings were written, sorted; nil when there are more than `limit`. Throws
    /// `Stale` for a row outside rowids 1 up to the watermark (only those are followed).
    static func changedRows(_ index: String, _ meta: Meta, limit: Int64?, on handle: Handle) throws -> [Int64]? {
        let sql = "SELECT rowid FROM \(SQLBuilder.quote(changedTable(index))) ORDER BY rowid" + (limit.map { " LIMIT \($0 + 1)" } ?? "")
        return try handle.withStatement(sql) { stmt in
            var rows: [Int64] = []
            while try handle.step(stmt) {
                let rowid = sqlite3_column_int64(stmt, 0)
                guard rowid >= 1, rowid <= meta.watermark else { throw Stale(reason: "the change log lists row \(rowid)") }
                rows.append(rowid)
            }
            return limit.map { rows.count > $0 } == true ? nil : rows
        }
    }

    /// A listed term's counts in the changed rows that hold it now, `columns` a row, in rowid order. Throws `Stale`
    /// for a row outside rowids 1 up to the watermark.
    static func changedCounts(of term: String, in index: String, _ meta: Meta, on handle: Handle) throws -> ImpactPostings.Rows {
        let columns = meta.columns
        let sql = "SELECT rowid, counts FROM \(SQLBuilder.quote(changesTable(index))) WHERE term = ? ORDER BY rowid"
        return try handle.withStatement(sql) { stmt in
            sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
            var found = ImpactPostings.Rows()
            while try handle.step(stmt) {
                let rowid = sqlite3_column_int64(stmt, 0)
                guard rowid >= 1, rowid <= meta.watermark else { throw Stale(reason: "the changed counts list row \(rowid)") }
                found.rowids.append(rowid)
                let blob = RawStatement.blob(stmt, 1)
                for c in 0..<columns {
                    found.counts.append(blob.count >= 4 * (c + 1) ? blob.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4 * c, as: Int32.self) } : 0)
                }
            }
            return found
        }
    }

    /// Builds the impacts of a synced (explicit) index of at least `automaticRows` rows that supports them
    /// (`ScoreBounds.unsupportedReason`) and whose rowids their blocks can cover (`coverable`); drops them otherwise.
    static func rebuild(_ index: String, on handle: Handle) throws {
        guard try ScoreBounds.unsupportedReason(index, on: handle) == nil,
              let synced = try SyncedIndex.load(on: handle).first(where: { $0.index == index && $0.mode == .explicit }),
              try rowCount(index, on: handle) >= automaticRows(on: handle),
              coverable(try maxRowid(index, on: handle), block: blockSize(on: handle), columns: synced.columns.count) else {
            try drop(index, on: handle)
            return
        }
        try build(synced, on: handle)
    }

    static func rowCount(_ index: String, on handle: Handle) throws -> Int {
        try handle.count("SELECT count(*) FROM \(SQLBuilder.quote(index + "_docsize"))")
    }

    static func drop(_ index: String, on handle: Handle) throws {
        try handle.execute("DROP TABLE IF EXISTS \(SQLBuilder.quote(metaTable(index)))")
        try handle.execute("DROP TABLE IF EXISTS \(SQLBuilder.quote(termsTable(index)))")
        try handle.execute("DROP TABLE IF EXISTS \(SQLBuilder.quote(changedTable(index)))")
        try handle.execute("DROP TABLE IF EXISTS \(SQLBuilder.quote(changesTable(index)))")
    }

    /// The terms in at least `minimumRows` rows (FTS5's own vocabulary; one pass over the index).
    private static func frequentTerms(_ index: String, minimumRows: Int, on handle: Handle) throws -> [String] {
        let vocabulary = "sift_topk_vocabulary"
        try handle.execute("DROP TABLE IF EXISTS temp.\(vocabulary)")
        try handle.execute("CREATE VIRTUAL TABLE temp.\(vocabulary) USING fts5vocab(main, \(SQLBuilder.quote(index)), row)")
        defer { try? handle.execute("DROP TABLE IF EXISTS temp.\(vocabulary)") }
        return try handle.withStatement("SELECT term FROM temp.\(vocabulary) WHERE doc >= ?") { stmt in
            try handle.bind([FundamentalValue(Int64(minimumRows))], to: stmt, sql: "")
            var terms: [String] = []
            while try handle.step(stmt) { terms.append(RawStatement.text(stmt, 0)) }
            return terms
        }
    }

    /// The listed terms, in order.
    static func listedTerms(_ index: String, on handle: Handle) throws -> [String] {
        try handle.withStatement("SELECT DISTINCT term FROM \(SQLBuilder.quote(termsTable(index))) ORDER BY term") { stmt in
            var terms: [String] = []
            while try handle.step(stmt) { terms.append(RawStatement.text(stmt, 0)) }
            return terms
        }
    }

    /// Adds the rows above the watermark to the impacts (their counts and blocks) and moves the watermark to the
    /// index's largest rowid.
    static func extend(_ index: SyncedIndex, on handle: Handle) throws {
        let top = try maxRowid(index.index, on: handle)
        guard let meta = try meta(index.index, on: handle), meta.valid, top > meta.watermark else { return }
        guard coverable(top, block: meta.block, columns: meta.columns) else { return try ScoreBounds.markStale(index.index, on: handle) }
        try ImpactsCollector(index, top: top, overlapping: false, on: handle)?.finish(on: handle)
    }
}

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

/// A term's postings in one chunk of rows, as stored beside its blocks: per row of the chunk holding the term, in
/// rowid order, unsigned LEB128 numbers: the rowid's distance from the previous row's (the first one's from the
/// rowid before the chunk), then the term's count in each column. What the postings evaluator (`sift_topk_postings`,
/// sift_topk.h) scores a query of listed terms from, without FTS5.
enum ImpactPostings {
    /// Appends a row whose `stats` are sift_doc_stats' (count, length) per column; `previous` is the rowid of the
    /// chunk's last row so far (or the rowid before the chunk).
    static func append(_ rowid: Int64, after previous: Int64, _ stats: UnsafePointer<Int32>, columns: Int, to bytes: inout [UInt8]) {
        leb128(UInt64(rowid - previous), to: &bytes)
        for c in 0..<columns { leb128(UInt64(max(0, stats[2 * c])), to: &bytes) }
    }

    private static func leb128(_ value: UInt64, to bytes: inout [UInt8]) {
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
