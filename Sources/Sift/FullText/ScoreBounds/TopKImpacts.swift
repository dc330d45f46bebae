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
/// postings)` with the rows of the chunk holding the term, the chunk's blocks and postings; a chunk no row of which
/// holds the term has no row. How deletes and updates changed a chunk's rows since is its delta (`ImpactDelta`), a
/// row of its own at chunk `-2 - chunk`. Extending them over new rows rewrites only the last chunks of each term
/// (448 bytes each with two columns), not every term's whole list, which made loading a million rows in batches
/// quadratic.
///
/// Every row of the two tables carries `checksum`, `sift_bounds_check` over its values (`metaChecked`,
/// `termChecked`; the postings aside: their structure and row count are checked as they are read), written with
/// the row and compared when a reader reads it: a row that differs, like any number no build writes, reads as
/// stale bounds (`Stale`), never as truth.
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
/// - a delete, an update or a single-row insert at or below the watermark keeps them exact (`RowFollower`): the
///   statement's net change of each listed term in each row goes into the log of changed rows (`ImpactLog`, one
///   row a statement), which a search reads beside the blocks; the statement that fills the log folds it: an added
///   row raises its block's maxima, and each row whose counts of a listed term changed goes into the term's delta
///   of its chunk, which carries the change of the term's row and instance counts and which a search reads beside
///   the chunk's postings; a delta of `impactSizes.delta` rows is folded into the postings. A removed row's
///   maxima stay, a bound now higher than needed: it may cost a search time, never a result. Such changes set
///   `valid` to 2, so that `optimize(index:)` rebuilds tight bounds;
/// - a bulk insert that reaches below the watermark clears `valid`.
struct TopKImpacts {
    /// The layout of the tables: 9 since a statement's changes go into a log first (`ImpactLog`), 8 since changed rows are kept per term and chunk (`ImpactDelta`), 7 since a
    /// posting's counts are packed two a byte (`ImpactPostings`), 6 since a changed row's counts were one row of a
    /// change log, 5 since a term's checksum is stored before its postings (reading a term's bounds and checksum
    /// then never walks the overflow pages of its postings, which a frequent term's fill), 4 since checksums, 3
    /// since postings, 2 since instance counts (`cf`). Impacts of another layout read as stale.
    static let tablesLayout: Int64 = 9
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

    /// Every row of the bounds' tables carries `checksum`: `sift_bounds_check` (sift_bound.h) over these of its
    /// values, written with the row and compared when it is read (a row that differs reads as stale bounds).
    static let metaChecked = "watermark, block, valid, columns, built_rows, chunk_blocks, layout"
    static let termChecked = "term, chunk, df, cf, blocks"
    /// `checksum = <the check of values>` as a column a reader selects: 1 when the row is as written.
    static func intact(_ values: String) -> String { "sift_bounds_check(\(values)) = checksum" }
    /// The new checksum of a row whose checked values go from `old` to `new` in an UPDATE: a row whose checksum
    /// was already wrong keeps it wrong (an update never makes damaged values look as written).
    static func updatedChecksum(_ old: String, _ new: String) -> String {
        "checksum = CASE WHEN checksum = sift_bounds_check(\(old)) THEN sift_bounds_check(\(new)) ELSE checksum END"
    }

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
    /// The change logs of layouts before 8 (a row per changed row, or per term and row), dropped with the bounds.
    static func formerChangeTables(_ index: String) -> [String] { [index + "_sift_changed", index + "_sift_changes"] }

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

        /// Stale bounds of no layout.
        static let stale = Meta(watermark: 0, block: 1, chunkBlocks: 1, valid: false, columns: 0, builtRows: 0)

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
        let read = try handle.withStatement("SELECT * FROM \(SQLBuilder.quote(metaTable(index)))") { stmt -> Meta? in
            guard try handle.step(stmt) else { return nil }
            // Named after the step: a cached statement is prepared again when the table changed.
            var at: [String: Int32] = [:]
            for i in 0..<sqlite3_column_count(stmt) { at[String(cString: sqlite3_column_name(stmt, i))] = i }
            guard let watermark = at["watermark"], let block = at["block"], let valid = at["valid"], let columns = at["columns"],
                  let built = at["built_rows"], let chunkBlocks = at["chunk_blocks"], let layout = at["layout"],
                  sqlite3_column_int64(stmt, layout) == tablesLayout else { return Meta.stale }
            return Meta(stmt, watermark: watermark, valid: valid, block: block, chunkBlocks: chunkBlocks, columns: columns,
                        builtRows: built)
        }
        // The layout's columns are all there: its checksum can be read.
        guard let meta = read, meta.valid else { return read }
        let intact = try handle.withStatement("SELECT \(intact(metaChecked)) FROM \(SQLBuilder.quote(metaTable(index)))") { stmt in
            try handle.step(stmt) && sqlite3_column_int64(stmt, 0) == 1
        }
        return intact ? meta : Meta.stale
    }

    /// A listed term as stored: its row and instance counts, its blocks (every block up to the watermark's, in
    /// order, zero where no row holds the term) and, per chunk whose rows changed since its postings were written,
    /// its delta (`ImpactDelta`).
    struct StoredTerm {
        var df: Int64
        var cf: Int64
        var blocks: [UInt8]
        var deltas: [Int64: ImpactPostings.Rows]
    }

    /// A listed term's counts, blocks and deltas, with the changes of the log (`ImpactLog`) applied (`log`: as read
    /// for this term among others; read now when nil), or nil when the term is not listed. Throws `Stale` when what
    /// is stored cannot be what a build wrote: a chunk past the watermark's, a blob longer than a chunk, a delta or a
    /// log that does not decode or reaches past its chunk, counts that overflow or leave more rows than rowids 1 up to
    /// the watermark, or fewer instances than rows.
    static func stored(_ term: String, in index: String, _ meta: Meta, log: ImpactLog.Snapshot? = nil,
                       on handle: Handle) throws -> StoredTerm? {
        let log = try log ?? ImpactLog.changes(index, meta, on: handle)
        let chunkBytes = meta.chunkBlocks * ImpactBlock.stride(columns: meta.columns)
        let lastChunk = meta.watermark / meta.block / Int64(meta.chunkBlocks)
        let chunkRows = Int64(meta.chunkBlocks) * meta.block
        let sql = "SELECT chunk, df, cf, blocks, \(intact(termChecked)) FROM \(SQLBuilder.quote(termsTable(index))) WHERE term = ? ORDER BY chunk"
        return try handle.withStatement(sql) { stmt in
            sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
            var found = StoredTerm(df: 0, cf: 0, blocks: [], deltas: [:]), any = false
            while try handle.step(stmt) {
                any = true
                let chunk = sqlite3_column_int64(stmt, 0)
                let (rows, rowsOverflow) = found.df.addingReportingOverflow(sqlite3_column_int64(stmt, 1))
                let (instances, instancesOverflow) = found.cf.addingReportingOverflow(sqlite3_column_int64(stmt, 2))
                guard sqlite3_column_int64(stmt, 4) == 1, chunk != -1, chunk >= ImpactDelta.storedChunk(of: lastChunk),
                      chunk <= lastChunk, !rowsOverflow, !instancesOverflow,
                      chunk < 0 || Int(sqlite3_column_bytes(stmt, 3)) <= chunkBytes else {
                    throw Stale(reason: "the stored bounds of \(term) are damaged")
                }
                (found.df, found.cf) = (rows, instances)
                if chunk >= 0 {
                    ImpactBlock.copyChunk(stmt, column: 3, into: &found.blocks, at: Int(chunk), chunkBytes: chunkBytes)
                } else {
                    // A delta holds at most the chunk's rows: a longer blob is damage (and would size the decoding).
                    let changed = ImpactDelta.chunk(ofStored: chunk), base = changed * chunkRows - 1
                    guard Int64(sqlite3_column_bytes(stmt, 3)) <= chunkRows * Int64(ImpactDelta.maxRowBytes(columns: meta.columns)),
                          let delta = ImpactDelta.decode(RawStatement.bytes(stmt, 3), after: base,
                                                         last: min(base + chunkRows, meta.watermark), columns: meta.columns) else {
                        throw Stale(reason: "a delta of \(term) is damaged")
                    }
                    if !delta.rowids.isEmpty { found.deltas[changed] = delta }
                }
            }
            guard any else { return nil }
            let width = (Int(meta.watermark / meta.block) + 1) * ImpactBlock.stride(columns: meta.columns)
            if found.blocks.count < width { found.blocks += [UInt8](repeating: 0, count: width - found.blocks.count) }
            try apply(log.changes(of: term), to: &found, meta)
            guard found.df >= 0, found.df <= meta.watermark, found.cf >= found.df else {
                throw Stale(reason: "the stored counts of \(term) are damaged")
            }
            return found
        }
    }

    /// Applies a term's changes from the log (`ImpactLog`, per chunk, every rowid from 1 up to the watermark) to its
    /// stored counts, blocks and deltas: the rows whose counts changed in place of the deltas' and postings' rows,
    /// and the maxima of the rows holding the term raised.
    private static func apply(_ chunks: [ImpactLog.ChunkChanges], to found: inout StoredTerm, _ meta: Meta) throws {
        for changes in chunks {
            changes.raise(&found.blocks, from: 0, block: meta.block, columns: meta.columns)
            if !changes.delta.rowids.isEmpty {
                found.deltas[changes.chunk] = found.deltas[changes.chunk].map { $0.replacing(with: changes.delta, columns: meta.columns) }
                    ?? changes.delta
            }
            let (rows, rowsOverflow) = found.df.addingReportingOverflow(changes.rows)
            let (instances, instancesOverflow) = found.cf.addingReportingOverflow(changes.instances)
            guard !rowsOverflow, !instancesOverflow else { throw Stale(reason: "the stored counts of a term are damaged") }
            (found.df, found.cf) = (rows, instances)
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
            "SELECT watermark, valid, block, chunk_blocks, columns, built_rows, layout, \(intact(metaChecked)) FROM \(SQLBuilder.quote(metaTable(index)))")
    }

    /// The impacts' layout as `metaReader` reads it, or nil when they are stale.
    static func readMeta(_ reader: OpaquePointer, on handle: Handle) throws -> Meta? {
        defer { sqlite3_reset(reader) }
        guard try handle.stepUnobserved(reader) else { return nil }
        let meta = Meta(reader, watermark: 0, valid: 1, block: 2, chunkBlocks: 3, columns: 4, builtRows: 5)
        return meta.valid && sqlite3_column_int64(reader, 6) == tablesLayout && sqlite3_column_int64(reader, 7) == 1 ? meta : nil
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
    static func create(_ index: SyncedIndex, on handle: Handle) throws -> [String] {
        try drop(index.index, on: handle)
        let q = SQLBuilder.quote
        let columns = index.columns.count
        try handle.execute("""
            CREATE TABLE \(q(metaTable(index.index)))(id INTEGER PRIMARY KEY CHECK (id = 1), watermark INTEGER NOT NULL, \
            block INTEGER NOT NULL, valid INTEGER NOT NULL, columns INTEGER NOT NULL, built_rows INTEGER NOT NULL, \
            chunk_blocks INTEGER NOT NULL, layout INTEGER NOT NULL, checksum INTEGER NOT NULL)
            """)
        try handle.execute("""
            CREATE TABLE \(q(termsTable(index.index)))(term TEXT NOT NULL, chunk INTEGER NOT NULL, df INTEGER NOT NULL, \
            cf INTEGER NOT NULL, blocks BLOB NOT NULL, checksum INTEGER NOT NULL, postings BLOB NOT NULL DEFAULT x'', \
            UNIQUE (term, chunk))
            """)
        try handle.execute(ImpactLog.createSQL(index.index))
        let rows = try rowCount(index.index, on: handle)
        let sizes = handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0 }
        try handle.execute("INSERT INTO \(q(metaTable(index.index))) VALUES(1, 0, ?1, 1, ?2, ?3, ?4, ?5, sift_bounds_check(0, ?1, 1, ?2, ?3, ?4, ?5))",
                           [FundamentalValue(sizes.block), FundamentalValue(Int64(columns)), FundamentalValue(Int64(rows)),
                            FundamentalValue(Int64(sizes.chunk)), FundamentalValue(tablesLayout)])
        // Only terms a query finds as themselves: their rows are exactly those `MATCH '"term"'` returns.
        let tokenizer = try handle.tokenizer(try FTSTableInfo.load(index.index, on: handle).tokenizer)
        return try FTSTableInfo.vocabulary(of: index.index, minimumRows: Int64(minimumRows(forRows: rows, on: handle)), on: handle)
            .map(\.term).filter { term in
            try TopKImpacts.token(of: term, tokenizer) == term
        }
    }

    /// Whether the index holds rows at rowid 0 or below (FTS5's `_docsize` table): the low tail every search scores.
    static func hasLowTail(_ index: String, on handle: Handle) throws -> Bool {
        try handle.withStatement("SELECT min(rowid) <= 0 FROM \(SQLBuilder.quote(index + "_docsize"))") {
            try handle.step($0) && sqlite3_column_int64($0, 0) == 1
        }
    }

    /// The statement reading one row's column sizes from FTS5's `_docsize` table (`sz`, by `id`): what the
    /// postings evaluator scores rows with.
    static func columnSizesSQL(_ index: String) -> String {
        "SELECT sz FROM \(SQLBuilder.quote(index + "_docsize")) WHERE id = ?"
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
        try handle.execute("DROP TABLE IF EXISTS \(SQLBuilder.quote(ImpactLog.table(index)))")
        for table in formerChangeTables(index) { try handle.execute("DROP TABLE IF EXISTS \(SQLBuilder.quote(table))") }
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
        do {
            try ImpactsCollector(index, top: top, overlapping: false, on: handle)?.finish(on: handle)
        } catch is Stale {
            try ScoreBounds.markStale(index.index, on: handle)  // damaged chunks: rebuilt by optimize(index:)
        }
    }
}
