import CSQLite
import Foundation
import SiftVector

/// The rows a filtered search may return (`where:` on the content rows), as a bitmap over their rowid range when
/// it is small enough, else as a sorted list.
struct VectorRowFilter {
    private let low: Int64
    private var bits: [UInt64] = []
    private var sorted: [Int64] = []

    /// The rowids of `content`'s rows meeting `condition`.
    init(_ condition: Condition, of index: VectorIndex, on handle: Handle) throws {
        let rendered = condition.renderForExecution()
        let sql = "SELECT \(SQLBuilder.quote(index.rowidColumn)) FROM \(SQLBuilder.quote(index.content)) WHERE \(rendered.sql)"
        var rowids: [Int64] = []
        try handle.withStatement(sql) { stmt in
            try handle.bind(rendered.values, to: stmt, sql: sql)
            while try handle.step(stmt) { rowids.append(sqlite3_column_int64(stmt, 0)) }
        }
        rowids.sort()
        low = rowids.first ?? 0
        let span = (rowids.last ?? 0) &- low
        // A bitmap while it is at most 64 bits a passing row (and 64 MB): one load and one test per slot.
        if span >= 0, span / 64 < max(Int64(rowids.count), 1), span < 1 << 29 {
            bits = [UInt64](repeating: 0, count: Int(span / 64) + 1)
            for rowid in rowids {
                let offset = rowid - low
                bits[Int(offset / 64)] |= 1 << UInt64(offset % 64)
            }
        } else {
            sorted = rowids
        }
    }

    func contains(_ rowid: Int64) -> Bool {
        if !bits.isEmpty {
            let offset = rowid &- low
            guard offset >= 0, offset / 64 < Int64(bits.count) else { return false }
            return bits[Int(offset / 64)] & (1 << UInt64(offset % 64)) != 0
        }
        var lower = 0, upper = sorted.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if sorted[middle] < rowid { lower = middle + 1 } else { upper = middle }
        }
        return lower < sorted.count && sorted[lower] == rowid
    }
}

/// A row and its score under the index's metric (larger is better).
struct VectorCandidate: Equatable {
    let rowid: Int64
    let score: Float
}

extension VectorStore {
    /// How a scan reads the blocks: the float32 vectors (exact) or the index's codes (approximate).
    enum Reading { case vectors, codes }

    /// The best `limit` rows for `query` (prepared: `VectorIndex.prepared`) from the blocks, best first (ties: the
    /// smaller rowid first); nil when the index is stale or anything read from its tables does not add up (a block
    /// missing or out of order, a count, a blob length or a checksum that is wrong): the caller then scores the rows.
    func nearest(_ query: [Float], limit: Int, reading: Reading, filter: VectorRowFilter?) throws -> [VectorCandidate]? {
        guard let state = try state(), state.valid, limit > 0 else { return limit > 0 ? nil : [] }
        let capacity = index.blockRows
        let stride = reading == .vectors ? index.vectorBytes : index.codeBytes
        guard stride > 0 else { return nil }
        let top = TopK(limit)
        defer { top.deallocate() }
        let metric = index.metric == .l2 ? Int32(SIFT_VECTOR_L2) : Int32(SIFT_VECTOR_DOT)
        // The query's codes, quantized as the stored ones.
        var queryCodes = [Int8](repeating: 0, count: index.quantization == .int8 ? index.dimension : 0)
        var queryScale: Float = 0, queryNorm2: Float = 0
        var queryBits = [UInt64](repeating: 0, count: index.quantization == .binary ? index.codeWords : 0)
        if reading == .codes {
            switch index.quantization {
            case .none: return nil
            case .int8: sift_vector_quantize_i8(query, Int32(index.dimension), &queryCodes, &queryScale, &queryNorm2)
            case .binary: sift_vector_quantize_bits(query, Int32(index.dimension), &queryBits, Int32(index.codeWords))
            }
        }
        let q = SQLBuilder.quote
        let data = reading == .vectors ? index.vectorsTable : index.codesTable
        let sum = reading == .vectors ? "vector_sum" : "code_sum"
        let sql = "SELECT b.block, b.count, b.\(sum), b.rowids, d.data FROM \(q(index.blocksTable)) b "
            + "LEFT JOIN \(q(data)) d ON d.block = b.block ORDER BY b.block"
        var mask = [UInt8](repeating: 1, count: capacity)
        var expected: Int64 = 0, total: Int64 = 0, sawPartial = false
        let intact = try handle.withStatement(sql) { stmt -> Bool in
            while try handle.stepUnobserved(stmt) {
                let block = sqlite3_column_int64(stmt, 0), count = sqlite3_column_int64(stmt, 1)
                let checksum = UInt64(bitPattern: sqlite3_column_int64(stmt, 2))
                // Blocks 0, 1, 2... each full but the last; blobs exactly their declared size.
                guard block == expected, !sawPartial, (1...Int64(capacity)).contains(count),
                      sqlite3_column_type(stmt, 3) == SQLITE_BLOB, sqlite3_column_type(stmt, 4) == SQLITE_BLOB,
                      Int(sqlite3_column_bytes(stmt, 3)) == capacity * 8,
                      Int(sqlite3_column_bytes(stmt, 4)) == capacity * stride,
                      let rowids = sqlite3_column_blob(stmt, 3), let blob = sqlite3_column_blob(stmt, 4)
                else { return false }
                sawPartial = count < capacity
                expected += 1
                total += count
                var maskPointer: UnsafePointer<UInt8>?
                let n = Int(count)
                if let filter {
                    for i in 0..<n {
                        mask[i] = filter.contains(Int64(littleEndian: rowids.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self))) ? 1 : 0
                    }
                }
                let found: UInt64 = mask.withUnsafeBufferPointer { maskBuffer in
                    maskPointer = filter == nil ? nil : maskBuffer.baseAddress
                    switch (reading, index.quantization) {
                    case (.vectors, _):
                        return sift_vector_scan_f32(query, blob, rowids, maskPointer, Int32(n), Int32(index.dimension), metric, &top.state)
                    case (.codes, .binary):
                        return sift_vector_scan_bits(queryBits, blob, rowids, maskPointer, Int32(n), Int32(index.codeWords), &top.state)
                    case (.codes, _):
                        return sift_vector_scan_i8(queryCodes, queryScale, queryNorm2, blob, rowids, maskPointer, Int32(n),
                                                   Int32(index.dimension), metric, &top.state)
                    }
                }
                guard found == checksum else { return false }
            }
            return true
        }
        guard intact, total == state.rows else { return nil }
        return top.sorted()
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
                guard filter?.contains(rowid) ?? true, case .success(let vector)? = index.vector(column: 1, of: stmt) else { continue }
                sift_vector_top_offer(&top.state, score(query, vector), rowid)
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
                guard try handle.stepUnobserved(stmt), case .success(let vector)? = index.vector(column: 0, of: stmt) else { continue }
                scored.append(VectorCandidate(rowid: rowid, score: score(query, vector)))
            }
        }
        return scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.rowid < $1.rowid }
    }

    /// The score of a stored `vector` (prepared) for `query` (prepared) under the index's metric.
    func score(_ query: [Float], _ vector: [Float]) -> Float {
        let metric = index.metric == .l2 ? Int32(SIFT_VECTOR_L2) : Int32(SIFT_VECTOR_DOT)
        return vector.withUnsafeBytes { sift_vector_score_f32(query, $0.baseAddress, Int32(index.dimension), metric) }
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

    init(_ capacity: Int) {
        scores = .allocate(capacity: max(capacity, 1))
        rowids = .allocate(capacity: max(capacity, 1))
        state = sift_vector_top(scores: scores, rowids: rowids, count: 0, capacity: Int32(clamping: capacity))
    }

    func deallocate() {
        scores.deallocate()
        rowids.deallocate()
    }

    /// The kept pairs, best first.
    func sorted() -> [VectorCandidate] {
        sift_vector_top_sort(&state)
        return (0..<Int(state.count)).map { VectorCandidate(rowid: rowids[$0], score: scores[$0]) }
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
