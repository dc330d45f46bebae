import CSQLite
import Foundation
import SiftRank

/// Counts the listed terms of new rows into an index's impacts (`TopKImpacts`): the rows' text is read on the
/// caller's connection, piece by piece, and tokenized in C; the counts go into the chunks the rows fall in, which
/// `finish` writes with the new watermark.
///
/// With `overlapping`, each piece is counted on a worker thread while the caller goes on: the sync layer reads a
/// piece of a bulk insert, hands it over, and has FTS5 index the same rows meanwhile, so the second pass over the
/// text costs no time of its own on a machine with a free core. At most four pieces (of 8,192 rows or 4 MB of
/// text) wait for the worker. The worker touches only this collector's term set, counts and its own tokenizer
/// instance (never the connection); the caller reads the counts only after waiting for it in `finish`. Only
/// tokenizers known to keep all their state in their instance run there.
final class ImpactsCollector: @unchecked Sendable {
    private let index: SyncedIndex
    private let meta: TopKImpacts.Meta
    private let terms: [String]
    private let top: Int64
    private let firstChunk: Int, chunks: Int, lastBlock: Int
    private let stride: Int, chunkBytes: Int
    private let columns: Int
    private let tokenizer: TokenizerInstance
    private let counter: ListedTermCounter
    /// Per term, the row counts, instance counts and blocks of chunks firstChunk..<firstChunk + chunks.
    private var dfs: [[Int64]]
    private var cfs: [[Int64]]
    private var blocks: [[UInt8]]
    /// Per term and chunk, the postings (`ImpactPostings`) and the last rowid in them.
    private var postings: [[[UInt8]]]
    private var lastRowids: [[Int64]]
    /// The largest rowid read so far (the rows up to it are counted or being counted).
    private var fed: Int64
    /// Rows read and counted at a time.
    private let pieceRows: Int
    /// The worker (`OverlappedWork`), made by the first piece when overlapping.
    private let overlapping: Bool
    private var worker: OverlappedWork<ImpactRows>?
    /// Pieces waiting for the worker, at most (their text is held meanwhile).
    private static let queued = 4
    /// A piece stops at this much text (or `pieceRows` rows).
    private static let pieceBytes = 4 << 20

    /// A collector of the rows above the impacts' watermark up to `top`, or nil when the index has no valid
    /// impacts. `listing` gives the terms when the impacts are being built (their tables just made, watermark 0).
    init?(_ index: SyncedIndex, listing: [String]? = nil, top: Int64, overlapping: Bool, on handle: Handle) throws {
        guard let meta = try TopKImpacts.meta(index.index, on: handle), meta.valid, meta.columns == index.columns.count,
              TopKImpacts.coverable(max(top, meta.watermark + 1), block: meta.block, columns: meta.columns) else { return nil }
        self.index = index
        self.meta = meta
        self.top = max(top, meta.watermark)
        terms = try listing ?? TopKImpacts.listedTerms(index.index, on: handle)
        columns = meta.columns
        stride = ImpactBlock.stride(columns: meta.columns)
        chunkBytes = meta.chunkBlocks * stride
        firstChunk = Int((meta.watermark + 1) / meta.block) / meta.chunkBlocks
        lastBlock = Int(max(self.top, meta.watermark + 1) / meta.block)
        chunks = lastBlock / meta.chunkBlocks - firstChunk + 1
        fed = meta.watermark
        pieceRows = max(1, handle.pool.attachment(FullTextSettings.init).impactSizes.withLock { $0.piece })
        let arguments = try FTSTableInfo.load(index.index, on: handle).tokenizer
        // A tokenizer of its own (not the connection's cached one): the worker may run it.
        tokenizer = try TokenizerInstance(arguments: arguments, on: handle)
        counter = try ListedTermCounter(terms, columns: columns)
        dfs = [[Int64]](repeating: [Int64](repeating: 0, count: chunks), count: terms.count)
        cfs = dfs
        blocks = [[UInt8]](repeating: [UInt8](repeating: 0, count: chunks * chunkBytes), count: terms.count)
        postings = [[[UInt8]]](repeating: [[UInt8]](repeating: [], count: chunks), count: terms.count)
        let chunkRows = Int64(meta.chunkBlocks) * meta.block
        let first = firstChunk
        let bases = (0..<chunks).map { Int64(first + $0) * chunkRows - 1 }
        lastRowids = [[Int64]](repeating: bases, count: terms.count)
        self.overlapping = overlapping && Self.runsAnywhere(arguments)
        if listing == nil { try loadPartialChunks(on: handle) }
    }

    /// Stops the worker once it has counted what it was handed, and waits for it: `finish` does, and whoever
    /// drops a collector that may have a worker without finishing it must (the worker holds the collector).
    func close() {
        worker?.close()
        worker = nil
    }

    /// Tokenizers that keep all their state in their instance (SQLite's own and SiftICU's), which a worker thread
    /// may run while the connection works; any other one is run on the caller's thread.
    static func runsAnywhere(_ arguments: [String]) -> Bool {
        guard let name = arguments.first?.lowercased() else { return false }
        if name == "porter" { return arguments.count == 1 || keepStateInInstance.contains(arguments[1].lowercased()) }
        return keepStateInInstance.contains(name)
    }

    private static let keepStateInInstance: Set<String> = ["unicode61", "ascii", "trigram", "sift_icu"]

    /// The chunks the new rows share with rows counted before (the watermark's chunk), as stored.
    private func loadPartialChunks(on handle: Handle) throws {
        let sql = "SELECT chunk, df, cf, blocks, postings, \(TopKImpacts.intact(TopKImpacts.termChecked)) FROM "
            + "\(SQLBuilder.quote(TopKImpacts.termsTable(index.index))) WHERE term = ? AND chunk >= ?"
        try handle.withStatement(sql) { stmt in
            for (i, term) in terms.enumerated() {
                sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
                sqlite3_bind_int64(stmt, 2, Int64(firstChunk))
                while try handle.step(stmt) {
                    let chunk = Int(sqlite3_column_int64(stmt, 0)) - firstChunk
                    guard chunk >= 0, chunk < chunks else { continue }
                    // Damaged chunks are not extended (their new checksum would make the damage look as written).
                    guard sqlite3_column_int64(stmt, 5) == 1 else { throw TopKImpacts.Stale(reason: "a chunk of \(term) is damaged") }
                    dfs[i][chunk] = sqlite3_column_int64(stmt, 1)
                    cfs[i][chunk] = sqlite3_column_int64(stmt, 2)
                    ImpactBlock.copyChunk(stmt, column: 3, into: &blocks[i], at: chunk, chunkBytes: chunkBytes)
                    postings[i][chunk] = RawStatement.bytes(stmt, 4)
                    lastRowids[i][chunk] = postings[i][chunk].withUnsafeBufferPointer { bytes in
                        sift_postings_last_rowid(bytes.baseAddress, Int32(bytes.count), Int32(columns), lastRowids[i][chunk])
                    }
                }
                sqlite3_reset(stmt)
            }
        }
    }

    /// Reads and counts every row up to rowid `last` not read yet. With a worker, the last piece is still being
    /// counted when this returns.
    func add(through last: Int64, on handle: Handle) throws {
        let last = min(last, top)
        let q = SQLBuilder.quote
        let sql = "SELECT \(q(index.rowidColumn)), " + index.columns.map(q).joined(separator: ", ")
            + " FROM \(q(index.readSource)) WHERE \(q(index.rowidColumn)) > ? AND \(q(index.rowidColumn)) <= ?"
            + " ORDER BY \(q(index.rowidColumn)) LIMIT \(pieceRows)"
        while fed < last {
            var piece = ImpactRows()
            var full = false
            try handle.withStatement(sql) { stmt in
                sqlite3_bind_int64(stmt, 1, fed)
                sqlite3_bind_int64(stmt, 2, last)
                while !full, try handle.step(stmt) {
                    piece.append(sqlite3_column_int64(stmt, 0), columns: columns) { c in
                        let column = Int32(c + 1)
                        return sqlite3_column_type(stmt, column) == SQLITE_NULL ? nil : sqlite3_column_text(stmt, column)
                            .map { UnsafeBufferPointer(start: $0, count: Int(sqlite3_column_bytes(stmt, column))) }
                    }
                    full = piece.bytes.count >= Self.pieceBytes
                }
            }
            fed = piece.rowids.count < pieceRows && !full ? last : piece.rowids.last ?? last
            if let failure = worker?.firstFailure { throw failure }
            if overlapping {
                if worker == nil { worker = OverlappedWork(name: "sift.impacts", queued: Self.queued) { [self] in try count($0) } }
                worker?.hand(piece)
            } else {
                try count(piece)
            }
        }
    }

    /// Counts the listed terms of a piece's rows into the chunks.
    private func count(_ piece: ImpactRows) throws {
        try counter.count(piece, with: tokenizer) { r, i, stats in
            let block = Int(piece.rowids[r] / meta.block) - firstChunk * meta.chunkBlocks
            guard block >= 0, block / meta.chunkBlocks < chunks else { return }
            dfs[i][block / meta.chunkBlocks] += 1
            cfs[i][block / meta.chunkBlocks] += ImpactBlock.instances(stats, columns: columns)
            ImpactBlock.add(stats, columns: columns, into: &blocks[i], at: block * stride)
            let chunk = block / meta.chunkBlocks
            ImpactPostings.append(piece.rowids[r], after: lastRowids[i][chunk], stats, columns: columns, to: &postings[i][chunk])
            lastRowids[i][chunk] = piece.rowids[r]
        }
    }

    /// Counts the rows not read yet, writes the chunks the new rows fall in and moves the watermark to `top`.
    func finish(on handle: Handle) throws {
        defer { close() }
        try add(through: top, on: handle)
        try worker?.waitUntilDone()
        let q = SQLBuilder.quote
        // The partial chunk's row is updated in place (a REPLACE deletes and reinserts it, index entry included).
        let save = "INSERT INTO \(q(TopKImpacts.termsTable(index.index)))(term, chunk, df, cf, blocks, postings, checksum) "
            + "VALUES(?1, ?2, ?3, ?4, ?5, ?6, sift_bounds_check(?1, ?2, ?3, ?4, ?5)) ON CONFLICT(term, chunk) DO UPDATE SET "
            + "df = excluded.df, cf = excluded.cf, blocks = excluded.blocks, postings = excluded.postings, checksum = excluded.checksum"
        try handle.withStatement(save) { stmt in
            for (i, term) in terms.enumerated() {
                for chunk in 0..<chunks where dfs[i][chunk] > 0 {
                    // The last chunk holds only the blocks up to the last row's.
                    let length = chunk == chunks - 1 ? (lastBlock % meta.chunkBlocks + 1) * stride : chunkBytes
                    sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
                    sqlite3_bind_int64(stmt, 2, Int64(firstChunk + chunk))
                    sqlite3_bind_int64(stmt, 3, dfs[i][chunk])
                    sqlite3_bind_int64(stmt, 4, cfs[i][chunk])
                    _ = blocks[i].withUnsafeBytes { bytes in
                        sqlite3_bind_blob(stmt, 5, bytes.baseAddress.map { $0 + chunk * chunkBytes }, Int32(length), sift_sqlite_transient())
                    }
                    _ = postings[i][chunk].withUnsafeBytes { bytes in
                        sqlite3_bind_blob(stmt, 6, bytes.baseAddress, Int32(bytes.count), sift_sqlite_transient())
                    }
                    while try handle.step(stmt) {}
                    sqlite3_reset(stmt)
                }
            }
        }
        // Every term's delta row of every chunk the new rows fall in, empty, chunk by chunk: a write changes the deltas of
        // its rows' chunks, which then sit together on a few pages (made as changes came, they spread over many).
        try handle.withStatement("INSERT OR IGNORE INTO \(q(TopKImpacts.termsTable(index.index)))(term, chunk, df, cf, blocks, checksum) "
                                 + "VALUES(?1, ?2, 0, 0, x'', sift_bounds_check(?1, ?2, 0, 0, x''))") { stmt in
            for chunk in 0..<chunks {
                for term in terms {
                    sqlite3_bind_text(stmt, 1, term, -1, sift_sqlite_transient())
                    sqlite3_bind_int64(stmt, 2, ImpactDelta.storedChunk(of: Int64(firstChunk + chunk)))
                    while try handle.step(stmt) {}
                    sqlite3_reset(stmt)
                }
            }
        }
        try handle.execute("UPDATE \(q(TopKImpacts.metaTable(index.index))) SET watermark = ?1, "
                           + TopKImpacts.updatedChecksum(TopKImpacts.metaChecked, "?1, block, valid, columns, built_rows, chunk_blocks, layout"),
                           [FundamentalValue(top)])
    }
}

/// Rows' text as FTS5 indexes it, in one buffer: per row and column, the range of its bytes in `bytes` (nil for
/// NULL).
struct ImpactRows: Sendable {
    var rowids: [Int64] = []
    var ranges: [Range<Int>?] = []
    var bytes: [UInt8] = []

    /// Calls `body(r, texts, lengths)` for each row `r`, in order, with its `columns` values as the C counters take
    /// them: a pointer into `bytes` (nil for NULL) and a byte count per column.
    func forEachRow(columns: Int, _ body: (Int, [UnsafePointer<CChar>?], [Int32]) throws -> Void) rethrows {
        var texts = [UnsafePointer<CChar>?](repeating: nil, count: columns)
        var lengths = [Int32](repeating: 0, count: columns)
        try bytes.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            for r in rowids.indices {
                for c in 0..<columns {
                    let range = ranges[r * columns + c]
                    texts[c] = range.flatMap { range in base.map { $0 + range.lowerBound } }
                    lengths[c] = Int32(range?.count ?? 0)
                }
                try body(r, texts, lengths)
            }
        }
    }

    /// Adds a row whose column `c` has the text `text(c)` (nil for NULL).
    mutating func append(_ rowid: Int64, columns: Int, _ text: (Int) -> UnsafeBufferPointer<UInt8>?) {
        rowids.append(rowid)
        for c in 0..<columns {
            guard let text = text(c) else {
                ranges.append(nil)
                continue
            }
            let start = bytes.count
            bytes.append(contentsOf: text)
            ranges.append(start..<bytes.count)
        }
    }
}

/// An index's listed terms as a C set (`sift_topk_terms`, sift_topk.h), counted in rows as FTS5 indexes them
/// without a call into Swift per token: what the bulk inserts' collector and the row follower count. One thread
/// at a time.
final class ListedTermCounter: @unchecked Sendable {
    let terms: [String]
    let columns: Int
    private let set: OpaquePointer
    /// Per listed term the row holds, its index and its (count, length) per column: reused from row to row.
    private var indexes: [Int32]
    private var stats: [Int32]

    init(_ terms: [String], columns: Int) throws {
        self.terms = terms
        self.columns = columns
        let nomem = SiftError(code: SiftError.Code(rawValue: SQLITE_NOMEM), message: "Out of memory for the listed terms.",
                              operation: .tokenize)
        guard let set = sift_topk_terms_new(Int32(max(1, terms.count))) else { throw nomem }
        self.set = set
        indexes = [Int32](repeating: 0, count: max(1, terms.count))
        stats = [Int32](repeating: 0, count: max(1, terms.count) * 2 * columns)
        for term in terms {
            var term = term
            let added = term.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { sift_topk_terms_add(set, $0.baseAddress, Int32($0.count)) }
            }
            guard added >= 0 else { throw nomem }
        }
    }

    deinit { sift_topk_terms_free(set) }

    /// Tokenizes each row of `rows` as a document with `tokenizer` and calls `body(row, term, stats)` for every
    /// listed term the row holds: its position in `rows` and in `terms`, and its (count, length) per column (length:
    /// the column's size in tokens as FTS5 counts it; 0 where the term is absent).
    func count(_ rows: ImpactRows, with tokenizer: TokenizerInstance,
               _ body: (Int, Int, UnsafePointer<Int32>) throws -> Void) throws {
        try rows.forEachRow(columns: columns) { r, texts, lengths in
            var touched: Int32 = 0
            let rc = tokenizer.withRawTokenizer { raw in
                sift_topk_collect_row(set, raw, texts, lengths, Int32(columns), &indexes, &stats, &touched)
            }
            guard rc == SQLITE_OK else {
                throw SiftError(code: SiftError.Code(rawValue: rc), message: "The tokenizer failed.", operation: .tokenize)
            }
            try stats.withUnsafeBufferPointer { stats in
                guard let stats = stats.baseAddress else { return }
                for k in 0..<Int(touched) { try body(r, Int(indexes[k]), stats + 2 * columns * k) }
            }
        }
    }
}
