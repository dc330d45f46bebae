import CSQLite
import SiftRank
import Foundation

/// Per-term score bounds that let a search skip most rows of a large index: Sift's "impacts", kept beside a
/// synced index in two ordinary SQLite tables and written in the same transaction as the index.
///
/// For every *listed* term (one in at least `minimumRows` rows when the impacts were built: the frequent
/// terms, whose rows a search cannot afford to score one by one) `<index>_sift_impacts` holds
/// - `df`: the number of rows with rowid <= `watermark` containing the term (what sift_rank's idf needs, so
///   the search never counts a frequent term's rows), and
/// - `blocks`: per block of `block` consecutive rowids, `ImpactBlock.stride` bytes: the largest count of the
///   term in a row (all columns together), and per column the largest count in it and the shortest length of
///   it among the rows holding the term there. They bound the term's BM25F contribution in every row of the
///   block for any k1, b, column weights and average lengths (see `ImpactBound`).
///
/// Both are stored per *chunk* of `chunk_blocks` blocks (a row `(term, chunk, df, blocks)`: the rows of the chunk
/// holding the term, and the chunk's blocks; a chunk no row of which holds the term has no row), so that extending
/// them over new rows rewrites only the last chunks, not every term's whole list (which made loading a million
/// rows in batches quadratic). A rowid table: its rows (about 1.8 kB for two columns) stay in the b-tree page,
/// where a WITHOUT ROWID table would give each its own overflow page.
///
/// `<index>_sift_topk` holds one row: `watermark` (rows above it are the *tail*: not in the blocks, always
/// scored), `block`, `chunk_blocks` and `valid`. A delete, an update or an insert at or below the watermark clears `valid` in
/// the same transaction (the counts and maxima no longer describe the rows): searches then take FTS5's
/// exhaustive plan until `rebuild(index:)` or `optimize(index:)` rebuilds them. A bulk insert above the
/// watermark extends them (counts and blocks of the new rows) in its transaction.
struct TopKImpacts {
    /// Terms in fewer rows than this are not listed: scoring every one of their rows is cheap (0.5% of the rows,
    /// at least 100).
    static func minimumRows(forRows rows: Int, on handle: Handle) -> Int {
        max(handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.listed }, rows / 200)
    }
    /// Below this many rows (20,000) an index gets no impacts: FTS5's plan is fast enough.
    static func automaticRows(on handle: Handle) -> Int {
        handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.rows }
    }

    static func metaTable(_ index: String) -> String { index + "_sift_topk" }
    static func termsTable(_ index: String) -> String { index + "_sift_impacts" }

    struct Meta {
        var watermark: Int64
        var block: Int64
        /// Blocks per stored chunk.
        var chunkBlocks: Int
        var valid: Bool
        var columns: Int
        /// Rows in the index when the impacts were built (which terms are listed depends on it).
        var builtRows: Int
    }

    /// The index's impacts metadata, or nil when it has none. Impacts in the earlier unchunked layout (no
    /// `chunk_blocks`) read as stale: searches do not use them and the next optimize or rebuild replaces them.
    static func meta(_ index: String, on handle: Handle) throws -> Meta? {
        guard try handle.schemaType(of: metaTable(index)) == "table" else { return nil }
        let table = SQLBuilder.quote(metaTable(index))
        guard try handle.count("SELECT count(*) FROM pragma_table_info('\(metaTable(index).replacingOccurrences(of: "'", with: "''"))') WHERE name = 'chunk_blocks'") == 1 else {
            return Meta(watermark: 0, block: 1, chunkBlocks: 1, valid: false, columns: 0, builtRows: 0)
        }
        return try handle.withStatement("SELECT watermark, block, valid, columns, built_rows, chunk_blocks FROM \(table)") { stmt in
            guard try handle.step(stmt) else { return nil }
            return Meta(watermark: sqlite3_column_int64(stmt, 0), block: max(1, sqlite3_column_int64(stmt, 1)),
                        chunkBlocks: max(1, Int(sqlite3_column_int64(stmt, 5))),
                        valid: sqlite3_column_int64(stmt, 2) == 1, columns: Int(sqlite3_column_int64(stmt, 3)),
                        builtRows: Int(sqlite3_column_int64(stmt, 4)))
        }
    }

    /// A listed term's row count and blocks: every block up to the watermark's, in order (zero where no row holds
    /// the term), or nil when the term is not listed.
    static func stored(_ term: String, in index: String, _ meta: Meta, on handle: Handle) throws -> (df: Int64, blocks: [UInt8])? {
        let chunkBytes = meta.chunkBlocks * ImpactBlock.stride(columns: meta.columns)
        let sql = "SELECT chunk, df, blocks FROM \(SQLBuilder.quote(termsTable(index))) WHERE term = ? ORDER BY chunk"
        return try handle.withStatement(sql) { stmt in
            sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
            var df: Int64 = 0, blocks: [UInt8] = [], found = false
            while try handle.step(stmt) {
                found = true
                df += sqlite3_column_int64(stmt, 1)
                let offset = Int(sqlite3_column_int64(stmt, 0)) * chunkBytes
                let count = Int(sqlite3_column_bytes(stmt, 2))
                guard offset >= 0, count <= chunkBytes, let blob = sqlite3_column_blob(stmt, 2) else { continue }
                if blocks.count < offset + count { blocks += [UInt8](repeating: 0, count: offset + count - blocks.count) }
                blocks.withUnsafeMutableBytes { target in
                    if let base = target.baseAddress { memcpy(base + offset, blob, count) }
                }
            }
            guard found else { return nil }
            let width = (Int(meta.watermark / meta.block) + 1) * ImpactBlock.stride(columns: meta.columns)
            if blocks.count < width { blocks += [UInt8](repeating: 0, count: width - blocks.count) }
            return (df, blocks)
        }
    }

    /// The invalidation the sync layer runs for a row change at `rowid`: clears `valid` when the row is at or
    /// below the watermark.
    static func invalidateSQL(_ index: String) -> String {
        "UPDATE \(SQLBuilder.quote(metaTable(index))) SET valid = 0 WHERE valid = 1 AND watermark >= ?"
    }

    /// The prepared invalidation (`invalidateSQL`) when the index has impacts, else nil; only unobserved steps, so
    /// the sync layer can call it while it applies row changes.
    static func invalidation(_ index: String, on handle: Handle) throws -> (statement: OpaquePointer, watermark: Int64)? {
        let exists = try handle.prepareUnmanaged("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        defer { sqlite3_finalize(exists) }
        sqlite3_bind_text(exists, 1, metaTable(index), -1, sift_sqlite_transient())
        guard try handle.stepUnobserved(exists) else { return nil }
        let read = try handle.prepareUnmanaged("SELECT watermark FROM \(SQLBuilder.quote(metaTable(index)))")
        defer { sqlite3_finalize(read) }
        let watermark = try handle.stepUnobserved(read) ? sqlite3_column_int64(read, 0) : Int64.max
        return (try handle.prepareUnmanaged(invalidateSQL(index)), watermark)
    }

    /// How many rows above the watermark the sync layer lets rows inserted one by one gather before it extends
    /// the impacts over them: 1,000, or 1/64 of the watermark when larger (so extending costs a constant share).
    static func tailRows(watermark: Int64, on handle: Handle) -> Int64 {
        max(Int64(handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.tail }), watermark / 64)
    }

    /// Builds the impacts of `index` from scratch (dropping any), over every row it holds.
    static func build(_ index: SyncedIndex, on handle: Handle) throws {
        try drop(index.index, on: handle)
        let q = SQLBuilder.quote
        let columns = index.columns.count
        try handle.execute("""
            CREATE TABLE \(q(metaTable(index.index)))(id INTEGER PRIMARY KEY CHECK (id = 1), watermark INTEGER NOT NULL, \
            block INTEGER NOT NULL, valid INTEGER NOT NULL, columns INTEGER NOT NULL, built_rows INTEGER NOT NULL, \
            chunk_blocks INTEGER NOT NULL)
            """)
        try handle.execute("""
            CREATE TABLE \(q(termsTable(index.index)))(term TEXT NOT NULL, chunk INTEGER NOT NULL, df INTEGER NOT NULL, \
            blocks BLOB NOT NULL, UNIQUE (term, chunk))
            """)
        let rows = try rowCount(index.index, on: handle)
        let sizes = handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0 }
        try handle.execute("INSERT INTO \(q(metaTable(index.index))) VALUES(1, 0, ?, 1, ?, ?, ?)",
                           [FundamentalValue(sizes.block), FundamentalValue(Int64(columns)), FundamentalValue(Int64(rows)),
                            FundamentalValue(Int64(sizes.chunk))])
        // Only terms a query finds as themselves: their rows are exactly those `MATCH '"term"'` returns.
        let tokenizer = try handle.tokenizer(try FTSTableInfo.load(index.index, on: handle).tokenizer)
        let terms = try frequentTerms(index.index, minimumRows: minimumRows(forRows: rows, on: handle), on: handle).filter { term in
            try TopKImpacts.token(of: term, tokenizer) == term
        }
        try extend(index, listing: terms, on: handle)
    }

    /// The one token a query finds for `text`, or nil when it has none or several.
    static func token(of text: String, _ tokenizer: TokenizerInstance) throws -> String? {
        var tokens: [String] = []
        try tokenizer.tokenize(text, reason: .query) { bytes, _, _, _ in tokens.append(String(decoding: bytes, as: UTF8.self)) }
        return tokens.count == 1 ? tokens[0] : nil
    }

    /// Keeps the impacts in step with a bulk insert of `rowids` (sorted) into the index, in its transaction:
    /// extends them over new rows above the watermark and clears `valid` for rows at or below it. An index without
    /// impacts gets them here once it holds `automaticRows` (the whole index is read once, its listed terms counted
    /// in C: about an eighth of the bulk insert's own time), so a large load leaves a searchable index with
    /// its bounds without an `optimize(index:)`. (Terms that become frequent later are listed by the next
    /// `rebuild(index:)` or `optimize(index:)` of stale impacts; until then their rows are scored one by one.)
    static func follow(bulkInsertOf rowids: [Int64], into index: SyncedIndex, on handle: Handle) throws {
        guard let first = rowids.first, index.mode == .explicit else { return }
        guard let meta = try meta(index.index, on: handle) else {
            if try rowCount(index.index, on: handle) >= automaticRows(on: handle) { try build(index, on: handle) }
            return
        }
        guard meta.valid else { return }
        if first <= meta.watermark {
            try handle.execute(invalidateSQL(index.index), [FundamentalValue(first)])
        } else {
            try extend(index, on: handle)
        }
    }

    /// Tokenizes the content rows with rowids in `rows` as FTS5 indexed them (same tokenizer, same text, a column's
    /// length counted as FTS5 counts it: tokens not colocated with the previous one) and calls `body` for every
    /// listed term (its index in `terms`) a row holds, with the row's sift_doc_stats-like (count, length) per
    /// column. One pass over the new rows' text instead of one index scan per listed term; the tokens are counted
    /// in C (`sift_topk_collect_row`), not one call into Swift each.
    private static func collect(_ index: SyncedIndex, rows: ClosedRange<Int64>, columns: Int, _ terms: [String],
                                on handle: Handle, _ body: (Int, Int64, UnsafePointer<Int32>) -> Void) throws {
        let tokenizer = try handle.tokenizer(try FTSTableInfo.load(index.index, on: handle).tokenizer)
        guard let set = sift_topk_terms_new(Int32(max(1, terms.count))) else { throw handle.error(SQLITE_NOMEM, sql: nil, operation: .tokenize) }
        defer { sift_topk_terms_free(set) }
        for term in terms {
            var term = term
            let added = term.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { sift_topk_terms_add(set, $0.baseAddress, Int32($0.count)) }
            }
            guard added >= 0 else { throw handle.error(SQLITE_NOMEM, sql: nil, operation: .tokenize) }
        }
        let q = SQLBuilder.quote
        let sql = "SELECT \(q(index.rowidColumn)), " + index.columns.map(q).joined(separator: ", ")
            + " FROM \(q(index.content)) WHERE \(q(index.rowidColumn)) BETWEEN ? AND ?"
        var indexes = [Int32](repeating: 0, count: max(1, terms.count))
        var stats = [Int32](repeating: 0, count: max(1, terms.count) * 2 * columns)
        try handle.withStatement(sql) { stmt in
            try handle.bind([FundamentalValue(rows.lowerBound), FundamentalValue(rows.upperBound)], to: stmt, sql: sql)
            while try handle.step(stmt) {
                let rowid = sqlite3_column_int64(stmt, 0)
                var touched: Int32 = 0
                let rc = tokenizer.withRawTokenizer { raw in
                    sift_topk_collect_row(set, raw, stmt, 1, Int32(columns), &indexes, &stats, &touched)
                }
                guard rc == SQLITE_OK else {
                    throw SiftError(code: SiftError.Code(rawValue: rc), message: "The tokenizer failed.", operation: .tokenize)
                }
                stats.withUnsafeBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    for k in 0..<Int(touched) { body(Int(indexes[k]), rowid, base + 2 * columns * k) }
                }
            }
        }
    }

    /// Adds the impacts of `term` in the rows with rowids in `rows` to `blocks` (long enough for them); returns
    /// how many of those rows contain it.
    private static func scan(_ term: String, in index: String, rows: ClosedRange<Int64>, _ meta: Meta,
                             into blocks: inout [UInt8], on handle: Handle) throws -> Int64 {
        let q = SQLBuilder.quote(index)
        let sql = "SELECT rowid, sift_doc_stats(\(q)) FROM \(q) WHERE \(q) MATCH ? AND rowid BETWEEN ? AND ?"
        let stride = ImpactBlock.stride(columns: meta.columns)
        var found: Int64 = 0
        try handle.withStatement(sql) { stmt in
            try handle.bind([FundamentalValue(FTS5Expression.quote(term)), FundamentalValue(rows.lowerBound),
                             FundamentalValue(rows.upperBound)], to: stmt, sql: sql)
            while try handle.step(stmt) {
                let rowid = sqlite3_column_int64(stmt, 0)
                let base = Int(rowid / meta.block) * stride
                guard let stats = sqlite3_column_blob(stmt, 1), Int(sqlite3_column_bytes(stmt, 1)) >= 8 * meta.columns,
                      base + stride <= blocks.count else { continue }
                found += 1
                ImpactBlock.add(stats.assumingMemoryBound(to: Int32.self), columns: meta.columns, into: &blocks, at: base)
            }
        }
        return found
    }

    /// What is wrong with the impacts of `index` (for `verify(index:)`): each listed term's count and block
    /// maxima recomputed from the index must equal the stored count and stay within the stored maxima. Stale
    /// impacts (`valid` cleared) are not checked: searches do not use them.
    static func problems(_ index: String, on handle: Handle) throws -> [String] {
        guard let meta = try meta(index, on: handle), meta.valid else { return [] }
        var problems: [String] = []
        let width = ImpactBlock.stride(columns: meta.columns)
        for term in try listedTerms(index, on: handle) {
            guard let (stored, blob) = try stored(term, in: index, meta, on: handle) else { continue }
            var fresh = [UInt8](repeating: 0, count: (Int(meta.watermark / meta.block) + 1) * width)
            let rows = try scan(term, in: index, rows: 0...meta.watermark, meta, into: &fresh, on: handle)
            if rows != stored { problems.append("impacts: \(term) is in \(rows) rows, \(stored) recorded") }
            if blob.count < fresh.count || !Swift.stride(from: 0, to: fresh.count, by: width).allSatisfy({ base in
                ImpactBlock.covers(stored: blob, fresh: fresh, at: base, columns: meta.columns)
            }) {
                problems.append("impacts: the block maxima of \(term) are below its counts")
            }
        }
        return problems
    }

    /// Builds the impacts of a synced (explicit) index of at least `automaticRows` rows; drops them otherwise.
    static func rebuild(_ index: String, on handle: Handle) throws {
        guard let synced = try SyncedIndex.load(on: handle).first(where: { $0.index == index && $0.mode == .explicit }),
              try rowCount(index, on: handle) >= automaticRows(on: handle) else {
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
    private static func listedTerms(_ index: String, on handle: Handle) throws -> [String] {
        try handle.withStatement("SELECT DISTINCT term FROM \(SQLBuilder.quote(termsTable(index))) ORDER BY term") { stmt in
            var terms: [String] = []
            while try handle.step(stmt) { terms.append(RawStatement.text(stmt, 0)) }
            return terms
        }
    }

    /// Adds the rows above the watermark to the impacts (their counts and blocks) and moves the watermark to the
    /// index's largest rowid. `listing`: the terms to add when building; nil extends the listed terms. Only the
    /// chunks the new rows fall in are read and written.
    static func extend(_ index: SyncedIndex, listing: [String]? = nil, on handle: Handle) throws {
        guard let meta = try meta(index.index, on: handle), meta.valid else { return }
        let q = SQLBuilder.quote
        let top = try handle.withStatement("SELECT max(rowid) FROM \(q(index.index + "_docsize"))") { stmt in
            try handle.step(stmt) ? sqlite3_column_int64(stmt, 0) : 0
        }
        guard top > meta.watermark || listing != nil else { return }
        let terms = try listing ?? listedTerms(index.index, on: handle)
        let stride = ImpactBlock.stride(columns: meta.columns), chunkBytes = meta.chunkBlocks * stride
        let firstChunk = Int((meta.watermark + 1) / meta.block) / meta.chunkBlocks
        let lastBlock = Int(max(top, meta.watermark + 1) / meta.block), lastChunk = lastBlock / meta.chunkBlocks
        let chunks = lastChunk - firstChunk + 1
        // Per term, the row counts and blocks of chunks firstChunk...lastChunk.
        var dfs = [[Int64]](repeating: [Int64](repeating: 0, count: chunks), count: terms.count)
        var blocks = [[UInt8]](repeating: [UInt8](repeating: 0, count: chunks * chunkBytes), count: terms.count)
        if listing == nil {
            let sql = "SELECT chunk, df, blocks FROM \(q(termsTable(index.index))) WHERE term = ? AND chunk >= ?"
            try handle.withStatement(sql) { stmt in
                for (i, term) in terms.enumerated() {
                    sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
                    sqlite3_bind_int64(stmt, 2, Int64(firstChunk))
                    while try handle.step(stmt) {
                        let chunk = Int(sqlite3_column_int64(stmt, 0)) - firstChunk
                        let count = Int(sqlite3_column_bytes(stmt, 2))
                        guard chunk >= 0, chunk < chunks, count <= chunkBytes, let blob = sqlite3_column_blob(stmt, 2) else { continue }
                        dfs[i][chunk] = sqlite3_column_int64(stmt, 1)
                        blocks[i].withUnsafeMutableBytes { target in
                            if let base = target.baseAddress { memcpy(base + chunk * chunkBytes, blob, count) }
                        }
                    }
                    sqlite3_reset(stmt)
                }
            }
        }
        if top > meta.watermark {
            try collect(index, rows: meta.watermark + 1...top, columns: meta.columns, terms, on: handle) { i, rowid, stats in
                let block = Int(rowid / meta.block) - firstChunk * meta.chunkBlocks
                dfs[i][block / meta.chunkBlocks] += 1
                ImpactBlock.add(stats, columns: meta.columns, into: &blocks[i], at: block * stride)
            }
        }
        let save = "INSERT OR REPLACE INTO \(q(termsTable(index.index)))(term, chunk, df, blocks) VALUES(?, ?, ?, ?)"
        try handle.withStatement(save) { stmt in
            for (i, term) in terms.enumerated() {
                for chunk in 0..<chunks where dfs[i][chunk] > 0 {
                    // The last chunk holds only the blocks up to the last row's.
                    let length = chunk == chunks - 1 ? (lastBlock % meta.chunkBlocks + 1) * stride : chunkBytes
                    sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
                    sqlite3_bind_int64(stmt, 2, Int64(firstChunk + chunk))
                    sqlite3_bind_int64(stmt, 3, dfs[i][chunk])
                    _ = blocks[i].withUnsafeBytes { bytes in
                        sqlite3_bind_blob(stmt, 4, bytes.baseAddress.map { $0 + chunk * chunkBytes }, Int32(length), sift_sqlite_transient())
                    }
                    while try handle.step(stmt) {}
                    sqlite3_reset(stmt)
                }
            }
        }
        try handle.execute("UPDATE \(q(metaTable(index.index))) SET watermark = ?", [FundamentalValue(top)])
    }
}

/// The impacts of one term in one block of rows, as stored: byte 0 the largest count of the term in a row (all
/// columns), then per column c three bytes: the largest count in c, and 65,535 minus the shortest length of c
/// (16 bits, little-endian) among the rows holding the term in c. Counts stop at 255, which means "no bound";
/// lengths above 65,535 count as 65,535 (shorter: a larger, still valid, bound). Zero bytes: no row holds the
/// term. Every field only grows as rows are added, so merging is a maximum.
enum ImpactBlock {
    static func stride(columns: Int) -> Int { 1 + 3 * columns }

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
