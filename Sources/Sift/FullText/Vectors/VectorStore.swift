import CSQLite
import Foundation
import SiftVector

/// The one owner of a vector index's derived tables: nothing else reads or writes them. It keeps the vectors of
/// the content rows in contiguous blocks (`<index>_vectors`: `blockRows` float32 vectors a row, one blob; the int8
/// or binary codes alike in `<index>_codes`), each block's rowids, count and checksums in `<index>_blocks`, and
/// where each row's vector sits in `<index>_slots` (rowid -> block * blockRows + slot). Blocks are dense: every
/// block but the last is full, so a removed vector's slot takes the last vector (its checksum terms move with it).
/// Every write of a block gives it a new stamp (a random number, `stamp` in `<index>_blocks`), so a copy of the
/// block kept in memory (`VectorBlockCache`) is used only while the block a snapshot reads has the copy's stamp:
/// no stamp comes back after a rollback or a rebuild.
///
/// It is told of every change through the sync layer (`SyncTracker` -> `VectorFollower`): rows inserted, updated,
/// deleted or replaced one by one, bulk loads, migration steps, recovery and rebuilds. Every number it reads back is
/// checked; what does not add up makes the index stale (`valid` = 0 in its record), writes stop following it, and
/// searches score the rows' own blobs until ``Database/rebuild(vectorIndex:)``. Its statements step unobserved.
struct VectorStore {
    let index: VectorIndex
    let handle: Handle
    /// The texts of the statements a write steps, made once for the index (the handle caches each prepared).
    let sql: Statements

    /// Something read back from the derived tables does not add up.
    struct Stale: Error {}

    /// The SQL of the statements the write paths step for one index, quoted and built once: the follower keeps
    /// them for the connection's lifetime, so a one-row change builds no SQL.
    final class Statements: Sendable {
        let slot, insertSlot, moveSlot, deleteSlot, lastBlock, header, setHeader: String
        let deleteBlocks: [String]
        let state = "SELECT rows, valid FROM sift_vector_sync WHERE index_name = ?"
        let addRows = "UPDATE sift_vector_sync SET rows = rows + ? WHERE index_name = ?"

        init(_ index: VectorIndex) {
            let q = SQLBuilder.quote
            let slots = q(index.slotsTable), blocks = q(index.blocksTable)
            slot = "SELECT slot FROM \(slots) WHERE rowid = ?"
            insertSlot = "INSERT INTO \(slots)(rowid, slot) VALUES(?, ?)"
            moveSlot = "UPDATE \(slots) SET slot = ? WHERE rowid = ?"
            deleteSlot = "DELETE FROM \(slots) WHERE rowid = ?"
            lastBlock = "SELECT block, count FROM \(blocks) ORDER BY block DESC LIMIT 1"
            header = "SELECT count, vector_sum, code_sum FROM \(blocks) WHERE block = ?"
            setHeader = "UPDATE \(blocks) SET count = ?, vector_sum = ?, code_sum = ?"
                + (index.stamped ? ", stamp = ?" : "") + " WHERE block = ?"
            deleteBlocks = [index.blocksTable, index.vectorsTable, index.codesTable].map { "DELETE FROM \(q($0)) WHERE block = ?" }
        }
    }

    init(_ index: VectorIndex, statements: Statements? = nil, on handle: Handle) {
        self.index = index
        self.handle = handle
        self.sql = statements ?? Statements(index)
    }

    // MARK: - Tables

    /// Makes the derived tables (empty) and records the index, valid and empty.
    func create() throws {
        let q = SQLBuilder.quote
        try run(VectorIndex.createMetadataSQL)
        try drop()
        try run("CREATE TABLE \(q(index.blocksTable))(block INTEGER PRIMARY KEY, count INTEGER NOT NULL, "
                + "vector_sum INTEGER NOT NULL, code_sum INTEGER NOT NULL, rowids BLOB NOT NULL, stamp INTEGER)")
        try createSumsIndex()
        try run("CREATE TABLE \(q(index.vectorsTable))(block INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        try run("CREATE TABLE \(q(index.codesTable))(block INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        try run("CREATE TABLE \(q(index.slotsTable))(rowid INTEGER PRIMARY KEY, slot INTEGER NOT NULL)")
        try run("INSERT OR REPLACE INTO sift_vector_sync VALUES(?, ?, ?, ?, ?, ?, ?, ?, 0, 1)", [
            FundamentalValue(index.name), FundamentalValue(index.content), FundamentalValue(index.rowidColumn),
            FundamentalValue(index.column), FundamentalValue(index.dimension), FundamentalValue(index.metric.rawValue),
            FundamentalValue(index.quantization.rawValue), FundamentalValue(index.blockRows),
        ])
    }

    /// The blocks' counts, stamps and checksums without their rowids, in an index of their own: what a scan with every
    /// block kept sums (`keptWhole`) reads about 50 blocks a page, not one (each record's 2 KB of rowids fills half
    /// a page). Made with the blocks table and by a rebuild (indexes made before it are summed from their records).
    func createSumsIndex() throws {
        let q = SQLBuilder.quote
        try run("CREATE INDEX IF NOT EXISTS \(q(index.blocksTable + "_sums")) ON \(q(index.blocksTable))"
                + "(block, count, stamp, vector_sum, code_sum)")
    }

    /// Drops the derived tables (the record stays).
    func drop() throws {
        for table in index.tables { try run("DROP TABLE IF EXISTS \(SQLBuilder.quote(table))") }
    }

    /// Drops the derived tables and the record of the index named `name`.
    static func drop(_ name: String, on handle: Handle) throws {
        guard let index = try VectorIndex.load(name, on: handle) else { return }
        try VectorStore(index, on: handle).drop()
        try VectorStore(index, on: handle).run("DELETE FROM sift_vector_sync WHERE index_name = ?", [FundamentalValue(name)])
    }

    /// Empties the derived tables and fills them from the content table's rows. A row whose vector the index
    /// refuses is left out; with `strict` the first one throws instead. Returns the rows left out.
    @discardableResult
    func rebuild(strict: Bool) throws -> Int {
        guard index.stamped, try hasStamps() else {
            // Blocks made before stamps: the column is added, and the blocks written anew with stamps.
            if try !hasStamps() { try run("ALTER TABLE \(SQLBuilder.quote(index.blocksTable)) ADD COLUMN stamp INTEGER") }
            var stamped = index
            stamped.stamped = true
            return try VectorStore(stamped, on: handle).rebuild(strict: strict)
        }
        for table in index.tables { try run("DELETE FROM \(SQLBuilder.quote(table))") }
        try createSumsIndex()
        try run("UPDATE sift_vector_sync SET rows = 0, valid = 1 WHERE index_name = ?", [FundamentalValue(index.name)])
        var skipped = 0
        var batch: [(Int64, [Float])] = []
        let sql = "SELECT \(SQLBuilder.quote(index.rowidColumn)), \(SQLBuilder.quote(index.column)) FROM "
            + "\(SQLBuilder.quote(index.content)) ORDER BY 1"
        try handle.withStatement(sql) { stmt in
            while try handle.stepUnobserved(stmt) {
                let rowid = sqlite3_column_int64(stmt, 0)
                switch index.vector(column: 1, of: stmt) {
                case nil: continue
                case .success(let vector)?: batch.append((rowid, vector))
                case .failure(let failure)?:
                    if strict { throw index.error(failure, rowid: rowid, operation: .schema) }
                    skipped += 1
                }
                if batch.count >= 8 * index.blockRows {
                    try append(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
        }
        try append(batch)
        return skipped
    }

    // MARK: - State

    /// Whether the blocks table has its `stamp` column.
    private func hasStamps() throws -> Bool {
        try handle.withStatement("SELECT count(*) FROM pragma_table_info(?) WHERE name = 'stamp'") { stmt in
            try handle.bind([FundamentalValue(index.blocksTable)], to: stmt, sql: "")
            return try handle.stepUnobserved(stmt) && sqlite3_column_int64(stmt, 0) == 1
        }
    }

    /// A new stamp for a block being written.
    static func newStamp() -> Int64 { Int64.random(in: 1...Int64.max) }

    /// The record's vector count and validity; nil when the index is not recorded.
    func state() throws -> (rows: Int64, valid: Bool)? {
        try handle.withStatement(sql.state) { stmt in
            try handle.bind([FundamentalValue(index.name)], to: stmt, sql: "")
            guard try handle.stepUnobserved(stmt) else { return nil }
            return (sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 1) == 1)
        }
    }

    /// Marks the index stale: searches score the rows' own blobs until it is rebuilt.
    func markStale() throws {
        try run("UPDATE sift_vector_sync SET valid = 0 WHERE index_name = ?", [FundamentalValue(index.name)])
    }

    private func addRows(_ delta: Int64) throws {
        try run(sql.addRows, [FundamentalValue(delta), FundamentalValue(index.name)])
    }

    // MARK: - Writes

    /// Adds vectors (as `VectorIndex.prepared` made them) for rows that have none in the index: into the free
    /// slots of the last block, then in whole new blocks.
    func append(_ rows: [(rowid: Int64, vector: [Float])]) throws {
        guard !rows.isEmpty else { return }
        var rest = rows[...]
        var existing: [Int64] = []
        for row in rows where try slot(of: row.rowid) != nil { existing.append(row.rowid) }
        for rowid in existing { try remove(rowid) }
        if let last = try lastBlock(), last.count < index.blockRows {
            var header = try self.header(last.block)
            while header.count < index.blockRows, let row = rest.first {
                rest = rest.dropFirst()
                try write(row.rowid, row.vector, at: header.count, of: last.block, into: &header)
                header.count += 1
            }
            try setHeader(last.block, header)
        }
        var block = rest.isEmpty ? 0 : (try lastBlock()?.block ?? -1) + 1
        while !rest.isEmpty {
            let piece = rest.prefix(index.blockRows)
            rest = rest.dropFirst(piece.count)
            try insertBlock(block, Array(piece))
            block += 1
        }
        try addRows(Int64(rows.count))
    }

    /// Removes the vector of `rowid` (nothing when it has none): the last vector of the last block takes its slot.
    func remove(_ rowid: Int64) throws {
        guard let slot = try slot(of: rowid) else { return }
        let capacity = Int64(index.blockRows)
        let block = slot / capacity, at = Int(slot % capacity)
        guard slot >= 0, let last = try lastBlock(), block <= last.block else { throw Stale() }
        var header = try self.header(block)
        guard at < header.count, try rowidAt(at, of: block) == rowid else { throw Stale() }
        let removed = try slotSums(at, of: block, rowid: rowid)
        header.vectorSum &-= UInt64(at + 1) &* UInt64(removed.vector)
        header.codeSum &-= UInt64(at + 1) &* UInt64(removed.code)
        let lastAt = last.count - 1
        if block == last.block && at == lastAt {
            header.count -= 1
            try finish(block, header)
        } else {
            var lastHeader = block == last.block ? header : try self.header(last.block)
            let moved = try rowidAt(lastAt, of: last.block)
            let sums = try slotSums(lastAt, of: last.block, rowid: moved)
            lastHeader.vectorSum &-= UInt64(lastAt + 1) &* UInt64(sums.vector)
            lastHeader.codeSum &-= UInt64(lastAt + 1) &* UInt64(sums.code)
            lastHeader.count -= 1
            if block == last.block { header = lastHeader }
            let vector = try readBytes(index.vectorsTable, last.block, at: lastAt * index.vectorBytes, count: index.vectorBytes)
            let code = index.codeBytes > 0
                ? try readBytes(index.codesTable, last.block, at: lastAt * index.codeBytes, count: index.codeBytes) : []
            try writeBytes(index.vectorsTable, block, at: at * index.vectorBytes, vector)
            if !code.isEmpty { try writeBytes(index.codesTable, block, at: at * index.codeBytes, code) }
            try writeBytes(index.blocksTable, block, column: "rowids", at: at * 8, Self.bytes(of: moved))
            header.vectorSum &+= UInt64(at + 1) &* UInt64(sums.vector)
            header.codeSum &+= UInt64(at + 1) &* UInt64(sums.code)
            try run(sql.moveSlot, [FundamentalValue(block * capacity + Int64(at)), FundamentalValue(moved)])
            if block != last.block { try finish(last.block, lastHeader) }
            try finish(block, header)
        }
        try run(sql.deleteSlot, [FundamentalValue(rowid)])
        try addRows(-1)
    }

    /// Writes a block's header back, or deletes the block when it is empty.
    private func finish(_ block: Int64, _ header: Header) throws {
        guard header.count == 0 else { return try setHeader(block, header) }
        for delete in sql.deleteBlocks { try run(delete, [FundamentalValue(block)]) }
    }

    /// One block's header: its vector count and checksums (see `sift_vector_scan_f32`).
    struct Header {
        var count: Int
        var vectorSum: UInt64
        var codeSum: UInt64
    }

    private func header(_ block: Int64) throws -> Header {
        try handle.withStatement(sql.header) { stmt in
            sqlite3_bind_int64(stmt, 1, block)
            guard try handle.stepUnobserved(stmt) else { throw Stale() }
            let count = sqlite3_column_int64(stmt, 0)
            guard (0...Int64(index.blockRows)).contains(count) else { throw Stale() }
            return Header(count: Int(count), vectorSum: UInt64(bitPattern: sqlite3_column_int64(stmt, 1)),
                          codeSum: UInt64(bitPattern: sqlite3_column_int64(stmt, 2)))
        }
    }

    private func setHeader(_ block: Int64, _ header: Header) throws {
        try run(sql.setHeader, [
            FundamentalValue(header.count), FundamentalValue(Int64(bitPattern: header.vectorSum)),
            FundamentalValue(Int64(bitPattern: header.codeSum)),
        ] + (index.stamped ? [FundamentalValue(Self.newStamp())] : []) + [FundamentalValue(block)])
    }

    /// The last block and its vector count, checked.
    private func lastBlock() throws -> (block: Int64, count: Int)? {
        try handle.withStatement(sql.lastBlock) { stmt in
            guard try handle.stepUnobserved(stmt) else { return nil }
            let block = sqlite3_column_int64(stmt, 0), count = sqlite3_column_int64(stmt, 1)
            guard block >= 0, (1...Int64(index.blockRows)).contains(count) else { throw Stale() }
            return (block, Int(count))
        }
    }

    /// Where `rowid`'s vector sits (block * blockRows + slot), or nil when the index holds none for it.
    func slot(of rowid: Int64) throws -> Int64? {
        try handle.withStatement(sql.slot) { stmt in
            sqlite3_bind_int64(stmt, 1, rowid)
            return try handle.stepUnobserved(stmt) ? sqlite3_column_int64(stmt, 0) : nil
        }
    }

    /// Writes one vector (and its codes and rowid) into slot `at` of `block`, adding its checksum terms to `header`.
    private func write(_ rowid: Int64, _ vector: [Float], at: Int, of block: Int64, into header: inout Header) throws {
        let bytes = Self.bytes(of: vector), code = codes(of: vector)
        try writeBytes(index.vectorsTable, block, at: at * index.vectorBytes, bytes)
        if !code.isEmpty { try writeBytes(index.codesTable, block, at: at * index.codeBytes, code) }
        try writeBytes(index.blocksTable, block, column: "rowids", at: at * 8, Self.bytes(of: rowid))
        header.vectorSum &+= UInt64(at + 1) &* UInt64(Self.slotSum(bytes, rowid))
        header.codeSum &+= UInt64(at + 1) &* UInt64(code.isEmpty ? 0 : Self.slotSum(code, rowid))
        try run(sql.insertSlot,
                [FundamentalValue(rowid), FundamentalValue(block * Int64(index.blockRows) + Int64(at))])
    }

    /// Inserts a new block holding `rows` (at most `blockRows`), its blobs at full size.
    private func insertBlock(_ block: Int64, _ rows: [(rowid: Int64, vector: [Float])]) throws {
        let capacity = index.blockRows
        var vectors = [UInt8](repeating: 0, count: capacity * index.vectorBytes)
        var codes = [UInt8](repeating: 0, count: capacity * index.codeBytes)
        var rowids = [UInt8](repeating: 0, count: capacity * 8)
        var header = Header(count: rows.count, vectorSum: 0, codeSum: 0)
        for (at, row) in rows.enumerated() {
            let bytes = Self.bytes(of: row.vector), code = self.codes(of: row.vector)
            vectors.replaceSubrange(at * index.vectorBytes..<(at + 1) * index.vectorBytes, with: bytes)
            if !code.isEmpty { codes.replaceSubrange(at * index.codeBytes..<(at + 1) * index.codeBytes, with: code) }
            rowids.replaceSubrange(at * 8..<(at + 1) * 8, with: Self.bytes(of: row.rowid))
            header.vectorSum &+= UInt64(at + 1) &* UInt64(Self.slotSum(bytes, row.rowid))
            header.codeSum &+= UInt64(at + 1) &* UInt64(code.isEmpty ? 0 : Self.slotSum(code, row.rowid))
            try run(sql.insertSlot,
                    [FundamentalValue(row.rowid), FundamentalValue(block * Int64(capacity) + Int64(at))])
        }
        let q = SQLBuilder.quote
        let stamp = index.stamped ? [FundamentalValue(Self.newStamp())] : []
        try run("INSERT INTO \(q(index.blocksTable))(block, count, vector_sum, code_sum, rowids\(index.stamped ? ", stamp" : "")) "
                + "VALUES(?, ?, ?, ?, ?\(index.stamped ? ", ?" : ""))", [
            FundamentalValue(block), FundamentalValue(header.count), FundamentalValue(Int64(bitPattern: header.vectorSum)),
            FundamentalValue(Int64(bitPattern: header.codeSum)), FundamentalValue(Data(rowids)),
        ] + stamp)
        try run("INSERT INTO \(q(index.vectorsTable))(block, data) VALUES(?, ?)", [FundamentalValue(block), FundamentalValue(Data(vectors))])
        if index.codeBytes > 0 {
            try run("INSERT INTO \(q(index.codesTable))(block, data) VALUES(?, ?)", [FundamentalValue(block), FundamentalValue(Data(codes))])
        }
    }

    private func rowidAt(_ at: Int, of block: Int64) throws -> Int64 {
        let bytes = try readBytes(index.blocksTable, block, column: "rowids", at: at * 8, count: 8)
        return bytes.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
    }

    /// The checksum terms of slot `at` of `block` as stored.
    private func slotSums(_ at: Int, of block: Int64, rowid: Int64) throws -> (vector: UInt32, code: UInt32) {
        let vector = try readBytes(index.vectorsTable, block, at: at * index.vectorBytes, count: index.vectorBytes)
        guard index.codeBytes > 0 else { return (Self.slotSum(vector, rowid), 0) }
        let code = try readBytes(index.codesTable, block, at: at * index.codeBytes, count: index.codeBytes)
        return (Self.slotSum(vector, rowid), Self.slotSum(code, rowid))
    }

    // MARK: - Bytes

    /// A slot's codes for `vector` (as stored): empty without quantization.
    func codes(of vector: [Float]) -> [UInt8] {
        switch index.quantization {
        case .none: return []
        case .int8:
            var codes = [Int8](repeating: 0, count: index.dimension)
            var scale: Float = 0, norm2: Float = 0
            sift_vector_quantize_i8(vector, Int32(index.dimension), &codes, &scale, &norm2)
            return codes.map { UInt8(bitPattern: $0) } + Self.bytes(of: [scale, norm2])
        case .binary:
            var words = [UInt64](repeating: 0, count: index.codeWords)
            sift_vector_quantize_bits(vector, Int32(index.dimension), &words, Int32(index.codeWords))
            return words.flatMap { Self.bytes(of: Int64(bitPattern: $0)) }
        }
    }

    static func bytes(of vector: [Float]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: vector.count * 4)
        for (i, value) in vector.enumerated() {
            let bits = value.bitPattern.littleEndian
            withUnsafeBytes(of: bits) { for b in 0..<4 { bytes[4 * i + b] = $0[b] } }
        }
        return bytes
    }

    static func bytes(of rowid: Int64) -> [UInt8] {
        withUnsafeBytes(of: rowid.littleEndian) { Array($0) }
    }

    static func slotSum(_ bytes: [UInt8], _ rowid: Int64) -> UInt32 {
        bytes.withUnsafeBytes { sift_vector_slot_sum($0.baseAddress, $0.count, rowid) }
    }

    // MARK: - Blob I/O (in place: a slot's bytes, never the whole block)

    func openBlob(_ table: String, _ block: Int64, column: String, writable: Bool) throws -> OpaquePointer {
        var blob: OpaquePointer?
        let rc = sqlite3_blob_open(handle.raw, "main", table, column, block, writable ? 1 : 0, &blob)
        guard rc == SQLITE_OK, let blob else {
            sqlite3_blob_close(blob)
            if rc == SQLITE_ERROR { throw Stale() }  // no such row: the block went missing
            throw handle.error(rc, sql: nil, operation: .step)
        }
        return blob
    }

    private func readBytes(_ table: String, _ block: Int64, column: String = "data", at offset: Int, count: Int) throws -> [UInt8] {
        let blob = try openBlob(table, block, column: column, writable: false)
        defer { sqlite3_blob_close(blob) }
        guard offset >= 0, offset + count <= Int(sqlite3_blob_bytes(blob)) else { throw Stale() }
        var bytes = [UInt8](repeating: 0, count: count)
        let rc = sqlite3_blob_read(blob, &bytes, Int32(count), Int32(offset))
        guard rc == SQLITE_OK else { throw handle.error(rc, sql: nil, operation: .step) }
        return bytes
    }

    private func writeBytes(_ table: String, _ block: Int64, column: String = "data", at offset: Int, _ bytes: [UInt8]) throws {
        let blob = try openBlob(table, block, column: column, writable: true)
        defer { sqlite3_blob_close(blob) }
        guard offset >= 0, offset + bytes.count <= Int(sqlite3_blob_bytes(blob)) else { throw Stale() }
        let rc = sqlite3_blob_write(blob, bytes, Int32(bytes.count), Int32(offset))
        guard rc == SQLITE_OK else { throw handle.error(rc, sql: nil, operation: .step) }
    }

    /// Runs one statement to its end, unobserved (the sync layer may be applying changes around it).
    func run(_ sql: String, _ values: [FundamentalValue] = []) throws {
        try handle.withStatement(sql) { stmt in
            try handle.bind(values, to: stmt, sql: sql)
            while try handle.stepUnobserved(stmt) {}
        }
    }
}
