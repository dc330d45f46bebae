import CSQLite
import Foundation
import SiftRank

/// The term dictionary of a synced index kept in the database beside it (`<index>_sift_dictionary`), so that the
/// first typo-tolerant search or suggestion of a process reads a list of terms instead of FTS5's whole index: at a
/// million rows, `fts5vocab` reads every doclist (0.7 s here), the stored list about half a megabyte.
///
/// It is derived data with one owner, this type, kept exact through every path that writes the index:
/// - Built from FTS5's vocabulary when FTS5 indexes every row anew (`DerivedStructures.indexRebuilt`: a synced
///   index created, `rebuild(index:)`, migrations, recovery, a raw `'rebuild'`), and by `optimize(index:)`.
/// - Rows changed through the sync layer: each statement's net change of each term's row count goes into a log row
///   of its own in the statement's transaction (`Writer`), so that rollbacks and savepoints undo it with the index
///   writes; a batch of inserts (`insert(objects:)` under the bulk threshold) makes one log row when it ends, its
///   rows counted on a worker thread when there are at least 1,024. Once the log holds `foldRows` rows (an eighth
///   of the terms, at least 8,192), or a row changes at least an eighth of the terms, the write folds the log into
///   the list. The writer sums the changes it logs as it logs them, so that a fold of rows it wrote itself reads
///   only the list (`Writer.Logged`). A fold costs a pass over the list, so the fewer folds the cheaper a
///   row-by-row load; a search that loads the dictionary cold reads up to `foldRows` log rows beside the list.
///   100,000 rows inserted one by one through `insert(objects:)` took 1.72x raw FTS5's time with a log row and a
///   count on the connection's thread per row, 1.19x-1.27x with the batch's one row counted on a worker
///   (`sift-bench throughput`).
/// - Any other write of the index that Sift sees (a bulk load, rows written into the index itself, FTS5's
///   `'delete'` and `'delete-all'` commands) leaves it stale: searches read the vocabulary, as without it, until it
///   is built again. A program writing the FTS5 table without Sift goes unseen, as it does by the score bounds:
///   `verify(index:)` reports the difference, `optimize(index:)` mends it.
///
/// Rows: `id -1` a header (layout, term count, the list's byte count, its pieces, `foldRows`); `id -2 - k` piece `k`
/// of the list (up to 1 MiB each; terms front-coded in term order, each with its row count); `id >= 0` the log,
/// each row a statement's changes (term, rows gained). Each row carries the checksum the score bounds use
/// (`sift_bounds_check`); every number read is checked before it sizes or indexes anything, and a list that
/// cannot be what Sift wrote reads as missing.
enum TermDictionaryStore {
    static func table(_ index: String) -> String { index + "_sift_dictionary" }

    /// The stored format; another value reads as stale.
    static let layout: Int64 = 1
    static let pieceBytes = 1 << 20
    private static let headerID: Int64 = -1

    /// Why a stored dictionary is not used.
    private struct Unusable: Error {}

    // MARK: - Building

    /// Builds the stored dictionary of `index` from FTS5's vocabulary when the sync layer keeps the index row by
    /// row (explicit mode); else drops it.
    static func build(_ index: String, on handle: Handle) throws {
        guard try SyncedIndex.load(on: handle).contains(where: { $0.index == index && $0.mode == .explicit }) else {
            return try drop(index, on: handle)
        }
        let dictionary = TermDictionary(terms: try FTSTableInfo.vocabulary(of: index, on: handle))
        try write(dictionary.base, index: index, on: handle)
    }

    /// The index or its sync is gone: so is its dictionary.
    static func drop(_ index: String, on handle: Handle) throws {
        try handle.execute("DROP TABLE IF EXISTS \(SQLBuilder.quote(table(index)))")
    }

    /// The index was written other than through the sync layer's row changes: its dictionary reads as stale (no
    /// header) until it is built again.
    static func markStale(_ index: String, on handle: Handle) throws {
        guard try exists(index, on: handle) else { return }
        try handle.withStatement("DELETE FROM \(SQLBuilder.quote(table(index)))") { stmt in while try handle.stepUnobserved(stmt) {} }
    }

    /// A statement not issued by the sync layer wrote FTS5 table `index` itself (`sql`): see
    /// `DerivedStructures.directWrite`.
    static func indexWrittenDirectly(_ index: String, sql: String, on handle: Handle) throws {
        switch DerivedStructures.directWrite(sql) {
        case .rebuild: try build(index, on: handle)
        case .neutral: break
        case .rows: try markStale(index, on: handle)
        }
    }

    private static func exists(_ index: String, on handle: Handle) throws -> Bool {
        try handle.withStatement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?") { stmt in
            try handle.bind([FundamentalValue(table(index))], to: stmt, sql: "")
            // Unobserved: the sync layer asks while it applies a statement's changes.
            return try handle.stepUnobserved(stmt)
        }
    }

    /// Writes `list` as the whole stored dictionary (header and pieces), the log emptied.
    private static func write(_ list: TermList, index: String, on handle: Handle) throws {
        try write(encode(list), terms: list.count, index: index, on: handle)
    }

    /// Writes a list of `terms` terms encoded as `encode` does as the whole stored dictionary, the log emptied.
    private static func write(_ bytes: [UInt8], terms: Int, index: String, on handle: Handle) throws {
        let quoted = SQLBuilder.quote(table(index))
        for sql in ["CREATE TABLE IF NOT EXISTS \(quoted)(id INTEGER PRIMARY KEY, data BLOB NOT NULL, checksum INTEGER NOT NULL)",
                    "DELETE FROM \(quoted)"] {
            try handle.withStatement(sql) { stmt in while try handle.stepUnobserved(stmt) {} }
        }
        let pieces = stride(from: 0, to: bytes.count, by: pieceBytes).map { Array(bytes[$0..<min(bytes.count, $0 + pieceBytes)]) }
        var header: [UInt8] = []
        let fewest = handle.pool.attachment(FullTextSettings.init).dictionaryFoldRows.withLock { $0 }
        let foldRows = max(1, fewest, terms / 8)
        for value in [layout, Int64(terms), Int64(bytes.count), Int64(pieces.count), Int64(foldRows)] {
            appendVarint(UInt64(value), to: &header)
        }
        try handle.withStatement("INSERT INTO \(quoted)(id, data, checksum) VALUES(?1, ?2, sift_bounds_check(?1, ?2))") { stmt in
            for (id, data) in [(headerID, header)] + pieces.enumerated().map({ (-2 - Int64($0.offset), $0.element) }) {
                defer { sqlite3_reset(stmt) }
                sqlite3_bind_int64(stmt, 1, id)
                _ = data.withUnsafeBytes { sqlite3_bind_blob(stmt, 2, $0.baseAddress, Int32($0.count), sift_sqlite_transient()) }
                while try handle.stepUnobserved(stmt) {}
            }
        }
    }

    // MARK: - Reading

    /// The stored dictionary of `index` as the transaction sees it, its log applied; nil when there is none, or it is
    /// stale or damaged (the caller reads the vocabulary).
    static func load(_ index: String, on handle: Handle) throws -> TermDictionary? {
        guard try exists(index, on: handle) else { return nil }
        return try? read(index, on: handle)
    }

    /// The stored dictionary with its log applied; throws `Unusable` when it is stale or not what Sift wrote.
    private static func read(_ index: String, on handle: Handle) throws -> TermDictionary {
        let stored = try readStored(index, on: handle)
        var changes: TermChanges = [:]
        for row in stored.log { try decodeLog(row, into: &changes) }
        let base = try decodeList(stored.list, terms: stored.terms)
        let dictionary = TermDictionary(base: base, added: TermList(TermList.Builder()), adjusted: [], letters: base.letterCounts())
        guard let applied = changes.isEmpty ? dictionary : dictionary.applying(changes) else { throw Unusable() }
        return applied
    }

    /// The stored list's bytes and term count, and its log's rows unless `withoutLog`; throws `Unusable` when it is
    /// stale or not what Sift wrote (the log rows' contents are checked as they are decoded).
    private static func readStored(_ index: String, withoutLog: Bool = false,
                                   on handle: Handle) throws -> (list: [UInt8], terms: Int, log: [[UInt8]]) {
        var header: [UInt8]?
        var pieces: [Int: [UInt8]] = [:]
        var log: [[UInt8]] = []
        let rows = withoutLog ? " WHERE id < 0" : ""
        try handle.withStatement(
            "SELECT id, data, sift_bounds_check(min(id, 0), data) = checksum FROM \(SQLBuilder.quote(table(index)))\(rows)"
        ) { stmt in
            while try handle.stepUnobserved(stmt) {
                let id = sqlite3_column_int64(stmt, 0)
                guard sqlite3_column_int(stmt, 2) == 1, sqlite3_column_type(stmt, 1) == SQLITE_BLOB else { throw Unusable() }
                let count = Int(sqlite3_column_bytes(stmt, 1))
                let data = count == 0 ? [] : Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(stmt, 1), count: count))
                if id == headerID {
                    header = data
                } else if id < headerID {
                    pieces[Int(-2 - id)] = data
                } else {
                    log.append(data)
                }
            }
        }
        guard let header else { throw Unusable() }
        var at = 0
        func number() throws -> Int {
            guard let (value, size) = PageFile.varint(header, at: at, end: header.count), value >= 0, value <= Int64(Int32.max)
            else { throw Unusable() }
            at += size
            return Int(value)
        }
        let (format, terms, bytes, pieceCount) = (try number(), try number(), try number(), try number())
        _ = try number()  // foldRows: the writer's
        guard format == layout, pieceCount == pieces.count, pieceCount == (bytes + pieceBytes - 1) / pieceBytes,
              terms <= bytes else { throw Unusable() }
        var list: [UInt8] = []
        list.reserveCapacity(bytes)
        for k in 0..<pieceCount {
            guard let piece = pieces[k], piece.count == min(pieceBytes, bytes - k * pieceBytes) else { throw Unusable() }
            list += piece
        }
        return (list, terms, log)
    }

    /// Folds the log into the list in C (`sift_term_changes_fold`), without making the dictionary searches read (each
    /// term's scalars, the letter counts). Throws `Unusable` when the list or the log is not what Sift writes, or the
    /// log's changes do not follow from the list (a count below 0, a new term losing rows or not valid UTF-8).
    private static func fold(_ index: String, logged: Writer.Logged? = nil, on handle: Handle) throws {
        // The writer's own sum when the log holds exactly the rows it appended since its last reset (their number and
        // their checksums' sum): then the log's rows are not read. Otherwise every row is read and summed (another
        // connection wrote some, or a rollback took some away).
        var own: OpaquePointer?
        if let logged, try logCount(index, on: handle) == (logged.rows, logged.checksums) { own = logged.changes }
        let stored = try readStored(index, withoutLog: own != nil, on: handle)
        var owned: OpaquePointer?
        defer { sift_term_changes_free(owned) }
        let changes: OpaquePointer
        if let own {
            changes = own
        } else {
            guard let summed = sift_term_changes_new() else {
                throw SiftError(code: .noMemory, message: "Out of memory for the term dictionary's log.", operation: .tokenize)
            }
            owned = summed
            for row in stored.log {
                let rc = row.withUnsafeBufferPointer { sift_term_changes_add_log(summed, $0.baseAddress, Int32($0.count)) }
                if rc == SQLITE_CORRUPT { throw Unusable() }
                guard rc == SQLITE_OK else {
                    throw SiftError(code: SiftError.Code(rawValue: rc), message: "The term dictionary's log could not be read.",
                                    operation: .tokenize)
                }
            }
            changes = summed
        }
        // Merged in C: the list's terms looked up among the changes, the new terms sorted and put between them.
        var out: UnsafeMutablePointer<UInt8>?
        var bytes: Int32 = 0, terms: Int32 = 0
        let rc = stored.list.withUnsafeBufferPointer { list in
            sift_term_changes_fold(changes, list.baseAddress, Int32(list.count), Int32(stored.terms), &out, &bytes, &terms)
        }
        defer { free(out) }
        if rc == SQLITE_CORRUPT { throw Unusable() }
        guard rc == SQLITE_OK else {
            throw SiftError(code: SiftError.Code(rawValue: rc), message: "Out of memory for the term dictionary.", operation: .tokenize)
        }
        let folded = out.map { Array(UnsafeBufferPointer(start: $0, count: Int(bytes))) } ?? []
        try write(folded, terms: Int(terms), index: index, on: handle)
    }

    /// The log's rows and their checksums' sum (modulo 2^64).
    private static func logCount(_ index: String, on handle: Handle) throws -> (Int, UInt64) {
        try handle.withStatement("SELECT checksum FROM \(SQLBuilder.quote(table(index))) WHERE id >= 0") { stmt in
            var rows = 0, checksums: UInt64 = 0
            while try handle.stepUnobserved(stmt) {
                rows += 1
                checksums &+= UInt64(bitPattern: sqlite3_column_int64(stmt, 0))
            }
            return (rows, checksums)
        }
    }

    /// What `verify(index:)` reports of the stored dictionary: that it cannot be read, or where it and FTS5's
    /// vocabulary differ. A stale one (no header) is not a problem: searches read the vocabulary.
    static func problems(_ index: String, on handle: Handle) throws -> [String] {
        guard try exists(index, on: handle) else { return [] }
        let headers = try handle.withStatement("SELECT count(*) FROM \(SQLBuilder.quote(table(index))) WHERE id = -1") { stmt in
            try handle.stepUnobserved(stmt) ? sqlite3_column_int64(stmt, 0) : 0
        }
        guard headers > 0 else { return [] }
        guard let stored = try? read(index, on: handle) else {
            return ["stored term dictionary: damaged (optimize(index:) writes it anew)"]
        }
        let fresh = TermList(terms: try FTSTableInfo.vocabulary(of: index, on: handle))
        let list = merged(stored)
        var counts: [String: (stored: Int64, indexed: Int64)] = [:]
        for position in 0..<list.count { counts[list.text(position), default: (0, 0)].stored = list.rows[position] }
        for position in 0..<fresh.count { counts[fresh.text(position), default: (0, 0)].indexed = fresh.rows[position] }
        let differing = counts.filter { $0.value.stored != $0.value.indexed }.sorted { $0.key < $1.key }
        guard let first = differing.first else { return [] }
        return ["stored term dictionary: \(differing.count) of \(counts.count) terms differ from the index's vocabulary "
                + "(\(first.key.debugDescription): \(first.value.stored) rows stored, \(first.value.indexed) indexed)"]
    }

    /// `dictionary` as one list in term order (its changes merged into its base).
    private static func merged(_ dictionary: TermDictionary) -> TermList {
        if dictionary.added.count == 0 && dictionary.adjustedPositions.isEmpty { return dictionary.base }
        return dictionary.applying([:], mergeThreshold: -1)?.base ?? dictionary.base
    }

    // MARK: - The log

    /// What the sync layer tells the stored dictionary of one index on one connection (`SyncTracker` keeps one per
    /// synced index, made anew when the schema changes): each statement's row changes, tokenized once for it and
    /// for the dictionary kept in memory (`TermDictionaryFollower`), then that the statement's index writes are
    /// done, when the statement's net changes go into one log row. Looks up at each statement's first change
    /// whether the index has a stored dictionary; steps its statements unobserved.
    final class Writer {
        private let index: SyncedIndex
        private var tokenizer: TokenizerInstance?
        /// Per indexed value, whether FTS5 tokenizes it (not an `UNINDEXED` column).
        private var indexed: [Bool] = []
        private var probe, append: OpaquePointer?
        /// Whether the statement under way logs its changes (nil: not looked up yet), and then `foldRows` and the
        /// stored list's term count.
        private var logging: Bool?
        private var foldRows = 0
        private var listTerms = 0
        /// Whether a batch of inserts is under way (`batchBegan`): its statements' changes make one log row when it
        /// ends, not one each.
        private var inBatch = false
        /// The rows of a batch of at least `overlappedRows` are counted on a worker thread (`OverlappedWork`) with a
        /// tokenizer of its own, in pieces of `pieceRows`, while the connection writes the rows: 100,000 rows inserted
        /// one by one spent 13% of their time counting terms on the connection's thread. `piece` is being filled.
        private var batchRows = 0
        private var overlapped: OverlappedWork<TopKImpacts.RowChanges>?
        private var piece = TopKImpacts.RowChanges()
        private var arguments: [String] = []
        /// Whether the tokenizer may run on a worker (`ImpactsCollector.runsAnywhere`).
        private var overlappable = false
        static let overlappedRows = 1_024
        private static let pieceRows = 1_024
        /// The statement's net changes so far, counted in C; while the statements are logged, also every change
        /// logged since the last fold (`Logged`), which a fold then need not read back from the log.
        private var collected: OpaquePointer?
        /// The log rows appended since `collected` was last reset, and their checksums' sum.
        private var loggedRows = 0
        private var loggedChecksums: UInt64 = 0

        /// What this writer logged since its last reset, summed: `rows` log rows whose checksums sum to `checksums`.
        struct Logged {
            let rows: Int
            let checksums: UInt64
            let changes: OpaquePointer
        }
        /// A row's indexed values for `sift_term_changes_add_row`, reused from row to row.
        private var texts: [UnsafePointer<CChar>?] = []
        private var lengths: [Int32] = []

        init(_ index: SyncedIndex) {
            self.index = index
        }

        /// Forgets every change counted and logged.
        private func reset() {
            sift_term_changes_reset(collected)
            (loggedRows, loggedChecksums) = (0, 0)
        }

        deinit {
            overlapped?.close()
            sqlite3_finalize(probe)
            sqlite3_finalize(append)
            sift_term_changes_free(collected)
        }

        /// Whether this statement's changes go into the stored dictionary's log.
        func isLogging(on handle: Handle) throws -> Bool {
            if let logging { return logging }
            var found = false
            if probe == nil, try TermDictionaryStore.exists(index.index, on: handle) {
                let quoted = SQLBuilder.quote(TermDictionaryStore.table(index.index))
                probe = try handle.prepareUnmanaged("SELECT data FROM \(quoted) WHERE id = -1")
                append = try handle.prepareUnmanaged(
                    "INSERT INTO \(quoted)(data, checksum) VALUES(?1, ?2)")
            }
            if let probe {
                defer { sqlite3_reset(probe) }
                let stepped: Bool
                do {
                    stepped = try handle.stepUnobserved(probe)
                } catch {
                    // Dropped since it was prepared (the index's sync ended in this connection's schema version).
                    if try TermDictionaryStore.exists(index.index, on: handle) { throw error }
                    logging = false
                    return false
                }
                if stepped, sqlite3_column_type(probe, 0) == SQLITE_BLOB {
                    let count = Int(sqlite3_column_bytes(probe, 0))
                    let header = Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(probe, 0), count: count))
                    // The term count and the fold threshold, the header's second and fifth numbers; a header that
                    // cannot be read folds at once.
                    var at = 0, values: [Int64] = []
                    while values.count < 5, let (value, size) = PageFile.varint(header, at: at, end: header.count) {
                        values.append(value)
                        at += size
                    }
                    let readable = values.count == 5 && values[4] > 0 && values[4] <= Int64(Int32.max)
                        && values[1] >= 0 && values[1] <= Int64(Int32.max)
                    foldRows = readable ? Int(values[4]) : 1
                    listTerms = readable ? Int(values[1]) : 0
                    found = true
                }
            }
            logging = found
            return found
        }

        /// A changed row: the distinct terms of its old values (one row less each) and of its new ones (one row
        /// more) join the statement's net changes, read through `text(side, column)` (side 0 the old values, 1 the new
        /// ones; nil for NULL) and counted in C (`sift_term_changes`).
        func rowChanged(old: Int64?, new: Int64?, text: (Int, Int) -> UnsafeBufferPointer<UInt8>?, on handle: Handle) throws {
            if tokenizer == nil {
                // Unobserved: the sync layer is applying the statement's changes, which an observed step would apply again.
                let observed = handle.isObserved
                handle.isObserved = false
                defer { handle.isObserved = observed }
                let info = try FTSTableInfo.load(index.index, on: handle)
                tokenizer = try handle.tokenizer(info.tokenizer)
                arguments = info.tokenizer
                overlappable = ImpactsCollector.runsAnywhere(info.tokenizer)
                indexed = index.columns.map { !info.unindexedColumns.contains($0) }
            }
            if collected == nil { collected = sift_term_changes_new() }
            guard let tokenizer, let collected else {
                throw SiftError(code: .noMemory, message: "Out of memory for a statement's term changes.", operation: .tokenize)
            }
            if inBatch, batchRows >= Self.overlappedRows, overlappable {
                return try overlap(old: old, new: new, text: text, into: collected, on: handle)
            }
            if texts.count != indexed.count {
                texts = [UnsafePointer<CChar>?](repeating: nil, count: indexed.count)
                lengths = [Int32](repeating: 0, count: indexed.count)
            }
            for (side, present) in [(0, old != nil), (1, new != nil)] where present {
                for (column, indexed) in indexed.enumerated() {
                    let value = indexed ? text(side, column) : nil
                    texts[column] = value?.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
                    lengths[column] = Int32(clamping: value?.count ?? 0)
                }
                let rc = tokenizer.withRawTokenizer { raw in
                    sift_term_changes_add_row(collected, raw, texts, lengths, Int32(indexed.count), side == 0 ? -1 : 1)
                }
                guard rc == SQLITE_OK else {
                    throw SiftError(code: SiftError.Code(rawValue: rc), message: "The tokenizer failed.", operation: .tokenize)
                }
            }
        }

        /// Hands a changed row's values to the batch's worker (made by the batch's first row), a piece at a time.
        private func overlap(old: Int64?, new: Int64?, text: (Int, Int) -> UnsafeBufferPointer<UInt8>?,
                             into collected: OpaquePointer, on handle: Handle) throws {
            if overlapped == nil {
                let tokenizer = try TokenizerInstance(arguments: arguments, on: handle)
                let columns = indexed.count
                overlapped = OverlappedWork(name: "sift.dictionary") { piece in
                    try Self.count(piece, columns: columns, with: tokenizer, into: collected)
                }
            }
            if let failure = overlapped?.firstFailure { throw failure }
            for (side, rowid) in [(0, old), (1, new)] {
                guard let rowid else { continue }
                piece.rows.append(rowid, columns: indexed.count) { column in indexed[column] ? text(side, column) : nil }
                piece.added.append(side == 1)
            }
            if piece.added.count >= Self.pieceRows {
                overlapped?.hand(piece)
                // The next piece takes about as much room: reserved once, not grown by doubling.
                let (bytes, ranges) = (piece.rows.bytes.count, piece.rows.ranges.count)
                piece = TopKImpacts.RowChanges()
                piece.rows.bytes.reserveCapacity(bytes + bytes / 4)
                piece.rows.ranges.reserveCapacity(ranges)
                piece.rows.rowids.reserveCapacity(Self.pieceRows)
                piece.added.reserveCapacity(Self.pieceRows)
            }
        }

        /// Counts a piece's rows into `collected` (on the worker).
        private static func count(_ piece: TopKImpacts.RowChanges, columns: Int, with tokenizer: TokenizerInstance,
                                  into collected: OpaquePointer) throws {
            try piece.rows.forEachRow(columns: columns) { r, texts, lengths in
                let rc = tokenizer.withRawTokenizer { raw in
                    sift_term_changes_add_row(collected, raw, texts, lengths, Int32(columns), piece.added[r] ? 1 : -1)
                }
                guard rc == SQLITE_OK else {
                    throw SiftError(code: SiftError.Code(rawValue: rc), message: "The tokenizer failed.", operation: .tokenize)
                }
            }
        }

        /// A batch of `rows` inserts into the index's content table begins (`insert(objects:)`, inside a transaction
        /// or a savepoint that `batchEnded` precedes): until it ends, its statements' changes are summed, not logged.
        /// 100,000 rows inserted one by one wrote 100,000 log rows and folded 12 times without it.
        func batchBegan(rows: Int) {
            inBatch = true
            batchRows = rows
        }

        /// The batch ended: when `completed`, its changes go into one log row (and are returned when `decoding`);
        /// else its rows are being rolled back, and so are its changes.
        func batchEnded(completed: Bool, decoding: Bool, on handle: Handle) throws -> TermChanges? {
            guard inBatch else { return nil }
            inBatch = false
            var failure: Error?
            if let overlapped {
                if completed && !piece.added.isEmpty { overlapped.hand(piece) }
                do { try overlapped.waitUntilDone() } catch { failure = error }
                overlapped.close()
                self.overlapped = nil
            }
            piece = TopKImpacts.RowChanges()
            if completed && failure == nil { return try statementApplied(decoding: decoding, on: handle) }
            sift_term_changes_discard(collected)
            logging = nil
            if let failure { throw failure }
            return nil
        }

        /// The statement's index writes are applied: its net changes go into one log row (a full log is then folded),
        /// and are returned when `decoding` (for the dictionary kept in memory). Inside a batch, nothing yet.
        func statementApplied(decoding: Bool, on handle: Handle) throws -> TermChanges? {
            if inBatch { return nil }
            do {
                return try logged(decoding: decoding, on: handle)
            } catch {
                // The log row may be gone with the statement (a rollback follows): nothing summed so far is trusted, and
                // the next fold reads the log.
                reset()
                throw error
            }
        }

        private func logged(decoding: Bool, on handle: Handle) throws -> TermChanges? {
            let logs = logging == true
            defer {
                logging = nil
                // Not logged: nothing to keep for a fold.
                if !logs { reset() }
            }
            guard let collected, logs || decoding else { return nil }
            var out: UnsafeMutablePointer<UInt8>?
            var count: Int32 = 0, changed: Int32 = 0
            let rc = sift_term_changes_encode(collected, &out, &count, &changed)
            defer { free(out) }
            guard rc == SQLITE_OK else {
                throw SiftError(code: SiftError.Code(rawValue: rc), message: "Out of memory for a statement's term changes.",
                                operation: .tokenize)
            }
            guard let out, count > 0 else { return decoding ? [:] : nil }
            if logging == true, let append {
                // The log row's rowid is not the statement's: the caller's last inserted rowid stays as it was.
                let lastRowid = sqlite3_last_insert_rowid(handle.raw)
                defer { sqlite3_set_last_insert_rowid(handle.raw, lastRowid) }
                do {
                    defer { sqlite3_reset(append) }
                    // The checksum readers compare with sift_bounds_check(0, data), computed once here.
                    let checksum = sift_bounds_check_blob(0, out, count)
                    sqlite3_bind_blob(append, 1, out, count, sift_sqlite_transient())
                    sqlite3_bind_int64(append, 2, checksum)
                    while try handle.stepUnobserved(append) {}
                    loggedRows += 1
                    loggedChecksums &+= UInt64(bitPattern: checksum)
                }
                // A full log folds; so does a row of many changes (a batch's): a fold costs a pass over the list, so
                // a row changing at least an eighth of its terms pays for it, and a cold load reads less.
                if sqlite3_last_insert_rowid(handle.raw) + 1 >= Int64(foldRows) || Int(changed) >= max(1_024, listTerms / 8) {
                    defer { reset() }
                    do {
                        try TermDictionaryStore.fold(index.index, logged: Logged(rows: loggedRows, checksums: loggedChecksums,
                                                                               changes: collected), on: handle)
                    } catch is Unusable {
                        try TermDictionaryStore.markStale(index.index, on: handle)
                    }
                }
            }
            guard decoding else { return nil }
            var changes: TermChanges = [:]
            try TermDictionaryStore.decodeLog(Array(UnsafeBufferPointer(start: out, count: Int(count))), into: &changes)
            return changes
        }
    }

    // MARK: - Formats

    /// A term list: per term in term order, the bytes it shares with the one before, the length of the rest, the
    /// rest (UTF-8), and its row count; SQLite varints.
    static func encode(_ list: TermList) -> [UInt8] {
        var bytes: [UInt8] = []
        var previous: [UInt8] = []
        for position in 0..<list.count {
            let term = Array(list.text(position).utf8)
            var shared = 0
            while shared < min(term.count, previous.count), term[shared] == previous[shared] { shared += 1 }
            appendVarint(UInt64(shared), to: &bytes)
            appendVarint(UInt64(term.count - shared), to: &bytes)
            bytes += term[shared...]
            appendVarint(UInt64(max(0, list.rows[position])), to: &bytes)
            previous = term
        }
        return bytes
    }

    /// `terms` terms from `bytes` (see `encode`): each after the one before in byte order (so in scalar order:
    /// every term is valid UTF-8, checked), held by at least one row; nothing left over.
    private static func decodeList(_ bytes: [UInt8], terms: Int) throws -> TermList {
        var builder = TermList.Builder()
        var previous: [UInt8] = []
        var at = 0
        func number() throws -> Int64 {
            guard let (value, size) = PageFile.varint(bytes, at: at, end: bytes.count), value >= 0 else { throw Unusable() }
            at += size
            return value
        }
        for index in 0..<terms {
            let shared = try number(), suffix = try number()
            guard shared <= Int64(previous.count), suffix <= Int64(bytes.count - at) else { throw Unusable() }
            var term = Array(previous[..<Int(shared)])
            term += bytes[at..<(at + Int(suffix))]
            at += Int(suffix)
            let rows = try number()
            // At most 2^48 rows: applying a log's changes (each within Int32) then cannot overflow.
            guard rows > 0, rows <= 1 << 48, index == 0 || previous.lexicographicallyPrecedes(term), let text = validUTF8(term[...])
            else { throw Unusable() }
            builder.append(text.unicodeScalars, rows: rows)
            previous = term
        }
        guard at == bytes.count else { throw Unusable() }
        return TermList(builder)
    }

    /// Adds a log row's changes to `changes`. A log row (written by `sift_term_changes_encode`, sift_terms.h): the term
    /// count, then per term its byte count, its bytes and its rows gained (zigzag), SQLite varints.
    static func decodeLog(_ bytes: [UInt8], into changes: inout TermChanges) throws {
        var at = 0
        func number() throws -> UInt64 {
            guard let (value, size) = PageFile.varint(bytes, at: at, end: bytes.count) else { throw Unusable() }
            at += size
            return UInt64(bitPattern: value)
        }
        let count = try number()
        guard count <= UInt64(bytes.count) else { throw Unusable() }
        for _ in 0..<count {
            let length = try number()
            guard length <= UInt64(bytes.count - at) else { throw Unusable() }
            let term = Array(bytes[at..<(at + Int(length))])
            at += Int(length)
            let zigzag = try number()
            let change = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            // Compared without `abs`, which traps on Int64.min (a crafted zigzag of all ones).
            guard change >= -Int64(Int32.max), change <= Int64(Int32.max) else { throw Unusable() }
            let total = changes[term, default: 0] + change
            changes[term] = total == 0 ? nil : total
        }
        guard at == bytes.count else { throw Unusable() }
    }

    /// `bytes` as a string when they are valid UTF-8.
    private static func validUTF8(_ bytes: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// Appends `value` as an SQLite varint (big-endian, 7 bits a byte while the high bit is set, the ninth byte whole).
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        if value >> 56 != 0 {
            for i in 0..<8 { bytes.append(UInt8((value >> (57 - 7 * UInt64(i))) & 0x7F) | 0x80) }
            bytes.append(UInt8(value & 0xFF))
            return
        }
        var groups = 1
        while groups < 8, value >> (7 * UInt64(groups)) != 0 { groups += 1 }
        for i in stride(from: groups - 1, through: 0, by: -1) {
            bytes.append(UInt8((value >> (7 * UInt64(i))) & 0x7F) | (i > 0 ? 0x80 : 0))
        }
    }
}
