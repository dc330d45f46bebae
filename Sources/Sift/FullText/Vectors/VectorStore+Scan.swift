import CSQLite
import Foundation
import SiftVector

/// A row and its score under the index's metric (larger is better).
struct VectorCandidate: Equatable {
    let rowid: Int64
    let score: Float
}

/// What a scan of an index's blocks found: the best rows, best first; where each one's slot is (`places[i]`:
/// block * `SIFT_VECTOR_PLACE_BLOCK` + slot); and each block's stamp (nil: none) and count as the snapshot held them.
struct VectorScanResult {
    let candidates: [VectorCandidate]
    let places: [Int64]
    let blocks: [(stamp: Int64?, count: Int)]
}

extension VectorStore {
    /// How a scan reads the blocks: the float32 vectors (exact) or the index's codes (approximate).
    enum Reading { case vectors, codes }

    /// Bytes a full scan copies out of a block at a time, at most (see `nearest(_:limit:reading:filter:)`).
    static let pieceBytes = 98_304

    /// Slots a piece holds: a block of `capacity` slots of `stride` bytes cut into equal pieces of at most
    /// `pieceBytes` (at least one slot), so that no piece is a small remainder (256 int8 slots of 392 bytes: two
    /// pieces of 128, not 250 and 6).
    static func pieceSlots(capacity: Int, stride: Int) -> Int {
        let pieces = max(1, (capacity * stride + pieceBytes - 1) / pieceBytes)
        return max(1, (capacity + pieces - 1) / pieces)
    }

    /// The best `limit` rows for `query` (prepared: `VectorIndex.prepared`) from the blocks, best first (ties: the
    /// smaller rowid first); nil when the index is stale or anything read from its tables does not add up (a block
    /// missing or out of order, a count, a blob length or a checksum that is wrong): the caller then scores the rows.
    /// With a `filter`, every block is still read whole (its checksum covers all its slots) and only the passing
    /// slots are scored. With a `cache`, a block whose copy it keeps at the block's stamp is scored from memory, and
    /// a block read from the file is kept when the cache has room (see `VectorBlockCache`).
    func nearest(_ query: [Float], limit: Int, reading: Reading, filter: VectorRowFilter?,
                 cache: VectorBlockCache? = nil) throws -> VectorScanResult? {
        guard let state = try state(), state.valid, limit > 0 else {
            return limit > 0 ? nil : VectorScanResult(candidates: [], places: [], blocks: [])
        }
        guard let scan = ScanQuery(query, reading: reading, of: index) else { return nil }
        let top = TopK(limit, places: true)
        defer { top.deallocate() }
        let capacity = index.blockRows
        let q = SQLBuilder.quote
        let data = reading == .vectors ? index.vectorsTable : index.codesTable
        let sum = reading == .vectors ? "vector_sum" : "code_sum"
        let sql = "SELECT block, count, \(sum), rowids, \(index.stamped ? "stamp" : "NULL") FROM \(q(index.blocksTable)) ORDER BY block"
        // Each block's data is read through one blob handle moved from block to block, in pieces of about 96 KB
        // copied into one buffer that stays in the processor's cache while the piece is scored: SQLite copies a
        // blob out of its pages in any case, and a whole block assembled first would be read from memory twice.
        let piece = Self.pieceSlots(capacity: capacity, stride: scan.stride)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: piece * scan.stride, alignment: 64)
        defer { buffer.deallocate() }
        var blob: OpaquePointer?
        defer { sqlite3_blob_close(blob) }
        var mask = [UInt8](repeating: 1, count: capacity)
        /// Marks which of a block's `count` slots (their rowids at `rowids`) `filter` passes.
        func mark(_ rowids: UnsafeRawPointer, count: Int) {
            guard let filter else { return }
            for i in 0..<count {
                mask[i] = filter.contains(Int64(littleEndian: rowids.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self))) ? 1 : 0
            }
        }
        /// Scores `count` slots of a block from slot `first` (their data at `slots`, the block's rowids at `rowids`),
        /// the marked ones when filtered; returns their part of the block's checksum.
        func score(_ slots: UnsafeRawPointer, rowids: UnsafeRawPointer, first: Int = 0, count: Int) -> UInt64 {
            mask.withUnsafeBufferPointer { maskBuffer in
                scan.scan(slots, rowids: rowids + 8 * first, mask: filter == nil ? nil : maskBuffer.baseAddress.map { $0 + first },
                          first: first, count: count, into: top)
            }
        }
        var expected: Int64 = 0, total: Int64 = 0, sawPartial = false
        var blocks: [(stamp: Int64?, count: Int)] = []
        let keptBlocks = cache?.kept(index.name, codes: reading == .codes) ?? []
        var hits = 0
        defer { cache?.recordHits(hits) }
        if index.stamped, let whole = try keptWhole(keptBlocks, reading: reading, rows: state.rows, stride: scan.stride) {
            // Every block from memory, no record read one by one (the copies were checked as they were kept).
            for (block, kept) in whole.enumerated() {
                top.state.block = Int64(block)
                mark(kept.rowids, count: kept.count)
                _ = score(kept.base, rowids: kept.rowids, count: kept.count)
            }
            hits += whole.count
            cache?.recordWholeScan()
            let (candidates, places) = top.sortedWithPlaces()
            return VectorScanResult(candidates: candidates, places: places, blocks: whole.map { ($0.stamp, $0.count) })
        }
        let intact = try handle.withStatement(sql) { stmt -> Bool in
            while try handle.stepUnobserved(stmt) {
                let block = sqlite3_column_int64(stmt, 0), count = sqlite3_column_int64(stmt, 1)
                let checksum = UInt64(bitPattern: sqlite3_column_int64(stmt, 2))
                // Blocks 0, 1, 2... each full but the last; blobs exactly their declared size.
                guard block == expected, !sawPartial, (1...Int64(capacity)).contains(count),
                      sqlite3_column_type(stmt, 3) == SQLITE_BLOB, Int(sqlite3_column_bytes(stmt, 3)) == capacity * 8,
                      let rowids = sqlite3_column_blob(stmt, 3)
                else { return false }
                sawPartial = count < capacity
                expected += 1
                total += count
                let n = Int(count)
                mark(rowids, count: n)
                // The block kept in memory at this stamp, else read from the file (into a copy to keep, room permitting).
                let stamp = sqlite3_column_type(stmt, 4) == SQLITE_INTEGER ? sqlite3_column_int64(stmt, 4) : nil
                blocks.append((stamp, n))
                top.state.block = block
                let key = VectorBlockCache.Key(index: index.name, codes: reading == .codes, block: block)
                let bytes = n * scan.stride
                if let cache, let stamp, block < keptBlocks.count, let kept = keptBlocks[Int(block)],
                   kept.matches(stamp: stamp, count: n, bytes: bytes) {
                    hits += 1
                    guard score(kept.base, rowids: rowids, count: n) == checksum else {
                        // The block as stored differs from the copy (damage the stamp did not show): the copy goes,
                        // and this search scores the rows.
                        cache.drop(index.name, codes: reading == .codes, block: block)
                        return false
                    }
                    continue
                }
                if let open = blob {
                    let rc = sqlite3_blob_reopen(open, block)
                    if rc == SQLITE_ERROR { return false }  // no such row: the block's data went missing
                    guard rc == SQLITE_OK else { throw handle.error(rc, sql: nil, operation: .step) }
                } else {
                    do { blob = try openBlob(data, block, column: "data", writable: false) } catch is Stale { return false }
                }
                guard let blob, Int(sqlite3_blob_bytes(blob)) == capacity * scan.stride else { return false }
                let copy = stamp.flatMap { cache?.room(for: key, stamp: $0, count: n, bytes: bytes) }
                var found: UInt64 = 0
                for first in stride(from: 0, to: n, by: piece) {
                    let length = min(piece, n - first)
                    let target = copy.map { $0.base + first * scan.stride } ?? buffer
                    let rc = sqlite3_blob_read(blob, target, Int32(length * scan.stride), Int32(first * scan.stride))
                    guard rc == SQLITE_OK else { throw handle.error(rc, sql: nil, operation: .step) }
                    found &+= score(target, rowids: rowids, first: first, count: length)
                }
                guard found == checksum else { return false }
                if let copy {
                    copy.rowids.copyMemory(from: rowids, byteCount: 8 * n)
                    copy.recordChecksum = checksum
                    cache?.keep(copy, for: key)
                }
            }
            return true
        }
        guard intact, total == state.rows else { return nil }
        // Copies of blocks past the last one are of blocks gone since.
        cache?.drop(index.name, codes: reading == .codes, from: expected)
        let (candidates, places) = top.sortedWithPlaces()
        return VectorScanResult(candidates: candidates, places: places, blocks: blocks)
    }

    /// Every block's kept copy, in block order, when the snapshot's blocks are those copies: as many blocks as copies,
    /// numbered from 0, each stamped, full but the last, and their slots, stamps and checksums summed (`sift_sum64`,
    /// in one statement) as the copies' are. Each write of a block gives it a new random stamp, so a block written
    /// since its copy was kept changes the stamps' sum (but with odds of 2^-64), and a block changed behind Sift's
    /// back, its stamp kept, the checksums' sum. Nil otherwise: the scan reads the blocks' records one by one. At
    /// 100,000 vectors of 384 those records took about 2 us a block, a fifth to a third of a scan of codes kept.
    private func keptWhole(_ kept: [VectorBlockCache.Block?], reading: Reading, rows: Int64,
                           stride: Int) throws -> [VectorBlockCache.Block]? {
        guard !kept.isEmpty else { return nil }
        var whole: [VectorBlockCache.Block] = []
        whole.reserveCapacity(kept.count)
        var slots: Int64 = 0, stamps: UInt64 = 0, checksums: UInt64 = 0
        for (block, copy) in kept.enumerated() {
            guard let copy, (1...index.blockRows).contains(copy.count), copy.bytes == copy.count * stride,
                  block == kept.count - 1 || copy.count == index.blockRows else { return nil }
            whole.append(copy)
            slots += Int64(copy.count)
            stamps &+= UInt64(bitPattern: copy.stamp)
            checksums &+= copy.recordChecksum
        }
        guard slots == rows else { return nil }
        let sum = reading == .vectors ? "vector_sum" : "code_sum"
        let sql = "SELECT count(*), count(stamp), min(block), max(block), sum(count), sift_sum64(stamp), sift_sum64(\(sum)) "
            + "FROM \(SQLBuilder.quote(index.blocksTable))"
        return try handle.withStatement(sql) { stmt in
            guard try handle.stepUnobserved(stmt) else { return nil }
            let count = Int64(whole.count)
            let found = (0..<7).map { sqlite3_column_int64(stmt, Int32($0)) }
            return found == [count, count, 0, count - 1, rows, Int64(bitPattern: stamps), Int64(bitPattern: checksums)] ? whole : nil
        }
    }

    /// The exact scores of a scan's candidates, best first (ties: the smaller rowid first): each from its block's
    /// float32 vectors when `cache` keeps them at the stamp the scan read (the same bytes the rows' own vectors
    /// give, scaled as stored), else from the row's own vector (`exactScores`). Also tells whether any came from
    /// the cache.
    func rescored(_ query: [Float], _ scan: VectorScanResult, cache: VectorBlockCache?) throws -> (scores: [VectorCandidate], kept: Bool) {
        guard let cache, cache.limit > 0 else { return (try exactScores(query, of: scan.candidates.map(\.rowid)), false) }
        let metric = index.metric == .l2 ? Int32(SIFT_VECTOR_L2) : Int32(SIFT_VECTOR_DOT)
        var copies: [Int64: VectorBlockCache.Block] = [:]
        var fromKept: [(rowid: Int64, vector: UnsafeRawPointer)] = [], missing: [Int64] = []
        for (candidate, place) in zip(scan.candidates, scan.places) {
            let block = place / SIFT_VECTOR_PLACE_BLOCK, slot = Int(place % SIFT_VECTOR_PLACE_BLOCK)
            var copy = copies[block]
            if copy == nil, block >= 0, block < scan.blocks.count, let stamp = scan.blocks[Int(block)].stamp {
                let count = scan.blocks[Int(block)].count
                copy = cache.block(VectorBlockCache.Key(index: index.name, codes: false, block: block), stamp: stamp, count: count,
                                   bytes: count * index.vectorBytes)
                copies[block] = copy
            }
            guard let copy, slot < copy.count else {
                missing.append(candidate.rowid)
                continue
            }
            fromKept.append((candidate.rowid, UnsafeRawPointer(copy.base + slot * index.vectorBytes)))
        }
        // Scored in one call, the next candidates' vectors asked of the memory meanwhile (`copies` holds the blocks).
        var scores = [Float](repeating: .nan, count: fromKept.count)
        let vectors: [UnsafeRawPointer?] = fromKept.map(\.vector)
        sift_vector_score_f32_many(query, vectors, Int32(fromKept.count), Int32(index.dimension), metric, &scores)
        var scored: [VectorCandidate] = []
        for (candidate, score) in zip(fromKept, scores) {
            if score.isNaN { missing.append(candidate.rowid) } else { scored.append(VectorCandidate(rowid: candidate.rowid, score: score)) }
        }
        withExtendedLifetime(copies) {}
        let kept = !scored.isEmpty
        if !missing.isEmpty { scored += try exactScores(query, of: missing) }
        return (scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.rowid < $1.rowid }, kept)
    }

    /// The best `limit` rows for `query` scored from the rows' own blobs (every row, or those `filter` passes):
    /// what a search returns when the index cannot be trusted, and what the tests compare the blocks with.
    func nearestRows(_ query: [Float], limit: Int, filter: VectorRowFilter?) throws -> [VectorCandidate] {
        guard limit > 0 else { return [] }
        let top = TopK(limit)
        defer { top.deallocate() }
        let q = SQLBuilder.quote
        let sql = "SELECT \(q(index.rowidColumn)), \(q(index.column)) FROM \(q(index.content))"
        try handle.withStatement(sql) { stmt in
            while try handle.stepUnobserved(stmt) {
                let rowid = sqlite3_column_int64(stmt, 0)
                guard filter?.contains(rowid) ?? true, let score = rowScore(query, column: 1, of: stmt) else { continue }
                sift_vector_top_offer(&top.state, score, rowid)
            }
        }
        return top.sorted()
    }

    /// The exact scores of `rowids` from the rows' own blobs (rows without a valid vector are left out), best first.
    func exactScores(_ query: [Float], of rowids: [Int64]) throws -> [VectorCandidate] {
        let q = SQLBuilder.quote
        let sql = "SELECT \(q(index.column)) FROM \(q(index.content)) WHERE \(q(index.rowidColumn)) = ?"
        var scored: [VectorCandidate] = []
        try handle.withStatement(sql) { stmt in
            for rowid in rowids {
                sqlite3_reset(stmt)
                sqlite3_bind_int64(stmt, 1, rowid)
                guard try handle.stepUnobserved(stmt), let score = rowScore(query, column: 0, of: stmt) else { continue }
                scored.append(VectorCandidate(rowid: rowid, score: score))
            }
        }
        return scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.rowid < $1.rowid }
    }

    /// The score for `query` (prepared) of the row's own vector in `column` of `stmt` under the index's metric, the
    /// blob checked, scaled and scored in C (`sift_vector_score_blob`) as `VectorIndex.vector` and
    /// `sift_vector_score_f32` would; nil when the row holds no vector the index takes.
    private func rowScore(_ query: [Float], column: Int32, of stmt: OpaquePointer) -> Float? {
        guard sqlite3_column_type(stmt, column) == SQLITE_BLOB else { return nil }
        let metric = index.metric == .l2 ? Int32(SIFT_VECTOR_L2) : Int32(SIFT_VECTOR_DOT)
        let score = sift_vector_score_blob(query, sqlite3_column_blob(stmt, column), Int(sqlite3_column_bytes(stmt, column)),
                                           Int32(index.dimension), metric, index.metric == .cosine ? 1 : 0)
        return score.isNaN ? nil : score
    }

    /// What does not add up between the blocks and the content rows (empty when the index is exact).
    func problems() throws -> [String] {
        guard let state = try state() else { return ["\(index.name) is not recorded"] }
        guard state.valid else { return ["\(index.name) is stale: rebuild(vectorIndex:) makes it exact again"] }
        var problems: [String] = []
        // Every block checked as a search reads it (the float vectors, then the codes).
        let probe = [Float](repeating: 0, count: index.dimension)
        let blocks = try blockCount()
        if try nearest(probe, limit: 1, reading: .vectors, filter: nil) == nil, state.rows > 0 || blocks > 0 {
            problems.append("the vector blocks do not add up (count, order, size or checksum)")
        }
        if index.quantization != .none, try nearest(probe, limit: 1, reading: .codes, filter: nil) == nil, state.rows > 0 {
            problems.append("the code blocks do not add up (count, order, size or checksum)")
        }
        // Every row's vector in its slot, the same values; and no slot for a row without one.
        let q = SQLBuilder.quote
        var withVectors: Int64 = 0, refused = 0, misplaced = 0
        let sql = "SELECT \(q(index.rowidColumn)), \(q(index.column)) FROM \(q(index.content))"
        try handle.withStatement(sql) { stmt in
            while try handle.stepUnobserved(stmt) {
                let rowid = sqlite3_column_int64(stmt, 0)
                switch index.vector(column: 1, of: stmt) {
                case nil: continue
                case .failure?: refused += 1
                case .success(let vector)?:
                    withVectors += 1
                    if try storedVector(of: rowid) != vector { misplaced += 1 }
                }
            }
        }
        if misplaced > 0 { problems.append("\(misplaced) rows' vectors are missing or differ from the rows'") }
        if refused > 0 { problems.append("\(refused) rows hold no valid vector (left out of the index)") }
        let slots = try handle.count("SELECT count(*) FROM \(q(index.slotsTable))")
        if Int64(slots) != withVectors || state.rows != withVectors {
            problems.append("\(slots) slots and \(state.rows) recorded vectors for \(withVectors) rows with vectors")
        }
        return problems
    }

    private func blockCount() throws -> Int {
        try handle.count("SELECT count(*) FROM \(SQLBuilder.quote(index.blocksTable))")
    }

    /// The vector the blocks hold for `rowid` (nil when they hold none there or it cannot be read).
    private func storedVector(of rowid: Int64) throws -> [Float]? {
        guard let slot = try slot(of: rowid), slot >= 0 else { return nil }
        let capacity = Int64(index.blockRows), at = Int(slot % capacity)
        let q = SQLBuilder.quote
        let sql = "SELECT b.rowids, v.data FROM \(q(index.blocksTable)) b JOIN \(q(index.vectorsTable)) v ON v.block = b.block "
            + "WHERE b.block = ? AND b.count > ?"
        return try handle.withStatement(sql) { stmt -> [Float]? in
            sqlite3_bind_int64(stmt, 1, slot / capacity)
            sqlite3_bind_int64(stmt, 2, Int64(at))
            guard try handle.stepUnobserved(stmt), Int(sqlite3_column_bytes(stmt, 0)) == Int(capacity) * 8,
                  Int(sqlite3_column_bytes(stmt, 1)) == Int(capacity) * index.vectorBytes,
                  let rowids = sqlite3_column_blob(stmt, 0), let data = sqlite3_column_blob(stmt, 1),
                  Int64(littleEndian: rowids.loadUnaligned(fromByteOffset: 8 * at, as: Int64.self)) == rowid
            else { return nil }
            return (0..<index.dimension).map {
                Float(bitPattern: UInt32(littleEndian: data.loadUnaligned(fromByteOffset: at * index.vectorBytes + 4 * $0, as: UInt32.self)))
            }
        }
    }
}

/// The C scans' top-k, in memory Swift owns for the scan's length.
final class TopK {
    var state: sift_vector_top
    private let scores: UnsafeMutablePointer<Float>
    private let rowids: UnsafeMutablePointer<Int64>
    private let places: UnsafeMutablePointer<Int64>?

    /// With `places`, a scan keeps where each kept pair's slot is (set `state.block` before each block).
    init(_ capacity: Int, places: Bool = false) {
        scores = .allocate(capacity: max(capacity, 1))
        rowids = .allocate(capacity: max(capacity, 1))
        self.places = places ? .allocate(capacity: max(capacity, 1)) : nil
        state = sift_vector_top(scores: scores, rowids: rowids, count: 0, capacity: Int32(clamping: capacity),
                                places: self.places, block: 0)
    }

    func deallocate() {
        scores.deallocate()
        rowids.deallocate()
        places?.deallocate()
    }

    /// The kept pairs, best first.
    func sorted() -> [VectorCandidate] {
        sift_vector_top_sort(&state)
        return (0..<Int(state.count)).map { VectorCandidate(rowid: rowids[$0], score: scores[$0]) }
    }

    /// The kept pairs, best first, and their places (empty without `places`).
    func sortedWithPlaces() -> ([VectorCandidate], [Int64]) {
        let candidates = sorted()
        return (candidates, places.map { places in (0..<Int(state.count)).map { places[$0] } } ?? [])
    }
}

extension Handle {
    /// Runs `body` in one read snapshot (a transaction of its own, unless one is open).
    func inSnapshot<R>(_ body: () throws -> R) rethrows -> R {
        let snapshot = !isInTransaction && sqlite3_exec(raw, "BEGIN", nil, nil, nil) == SQLITE_OK
        defer { if snapshot { sqlite3_exec(raw, "COMMIT", nil, nil, nil) } }
        return try body()
    }
}

/// A query as the C scans take it: its float values, and for a scan of the codes, its codes quantized as the
/// stored ones.
struct ScanQuery {
    let values: [Float]
    let reading: VectorStore.Reading
    let quantization: VectorQuantization
    let dimension: Int
    let codeWords: Int
    let metric: Int32
    /// Bytes of one slot in the blocks read.
    let stride: Int
    private(set) var codes: [Int8] = []
    private(set) var scale: Float = 0
    private(set) var norm2: Float = 0
    private(set) var bits: [UInt64] = []

    /// Nil when `reading` is `.codes` and the index keeps none.
    init?(_ values: [Float], reading: VectorStore.Reading, of index: VectorIndex) {
        self.values = values
        self.reading = reading
        quantization = index.quantization
        dimension = index.dimension
        codeWords = index.codeWords
        metric = index.metric == .l2 ? Int32(SIFT_VECTOR_L2) : Int32(SIFT_VECTOR_DOT)
        stride = reading == .vectors ? index.vectorBytes : index.codeBytes
        guard stride > 0 else { return nil }
        guard reading == .codes else { return }
        switch quantization {
        case .none: return nil
        case .int8:
            codes = [Int8](repeating: 0, count: dimension)
            sift_vector_quantize_i8(values, Int32(dimension), &codes, &scale, &norm2)
        case .binary:
            bits = [UInt64](repeating: 0, count: codeWords)
            sift_vector_quantize_bits(values, Int32(dimension), &bits, Int32(codeWords))
        }
    }

    /// Scores `count` slots stored at `slots` (their rowids at `rowids`; slots `first`, `first` + 1, ... of their
    /// block) and offers them to `top`, skipping those `mask` zeroes; returns their part of the block's checksum
    /// (see `sift_vector_scan_f32`).
    func scan(_ slots: UnsafeRawPointer, rowids: UnsafeRawPointer, mask: UnsafePointer<UInt8>?, first: Int = 0, count: Int,
              into top: TopK) -> UInt64 {
        let first = Int32(first), count = Int32(count)
        switch (reading, quantization) {
        case (.vectors, _):
            return sift_vector_scan_f32(values, slots, rowids, mask, first, count, Int32(dimension), metric, &top.state)
        case (.codes, .binary):
            return sift_vector_scan_bits(bits, slots, rowids, mask, first, count, Int32(codeWords), &top.state)
        case (.codes, _):
            return sift_vector_scan_i8(codes, scale, norm2, slots, rowids, mask, first, count, Int32(dimension), metric, &top.state)
        }
    }
}
