import CSQLite

/// One vector index as recorded in the database (`sift_vector_sync`), so every connection knows it: its
/// declaration, its content table, and the state of its derived tables (how many vectors they hold, whether they
/// are valid). ``VectorStore`` alone reads and writes the derived tables.
struct VectorIndex: Sendable, Hashable {
    static let metadataTable = "sift_vector_sync"
    static let createMetadataSQL = """
        CREATE TABLE IF NOT EXISTS sift_vector_sync(index_name TEXT PRIMARY KEY, content_table TEXT NOT NULL, \
        content_rowid TEXT NOT NULL, column_name TEXT NOT NULL, dimension INTEGER NOT NULL, metric TEXT NOT NULL, \
        quantization TEXT NOT NULL, block_rows INTEGER NOT NULL, rows INTEGER NOT NULL, valid INTEGER NOT NULL)
        """
    /// Vectors a block holds: 256 vectors of 384 float32 values are 393,216 bytes read in one piece.
    static let defaultBlockRows = 256

    let name: String
    let content: String
    let rowidColumn: String
    let column: String
    let dimension: Int
    let metric: VectorMetric
    let quantization: VectorQuantization
    let blockRows: Int
    /// Whether its blocks table has the `stamp` column (a random number written with every change of a block, which
    /// tells a block kept in memory from the block a snapshot holds: `VectorBlockCache`). Indexes made before it
    /// existed have none until ``Database/rebuild(vectorIndex:)``: their blocks are then read from the file every
    /// time. Not part of the declaration (`==` and `hash(into:)` leave it out).
    var stamped = true

    static func == (a: VectorIndex, b: VectorIndex) -> Bool {
        a.name == b.name && a.content == b.content && a.rowidColumn == b.rowidColumn && a.column == b.column
            && a.dimension == b.dimension && a.metric == b.metric && a.quantization == b.quantization && a.blockRows == b.blockRows
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(content)
        hasher.combine(dimension)
    }

    /// Bytes of one stored float32 vector.
    var vectorBytes: Int { dimension * 4 }
    /// Bytes of one slot's codes: int8 codes then the scale and squared norm (float32 each), or the sign bits in
    /// 64-bit words; 0 without quantization.
    var codeBytes: Int {
        switch quantization {
        case .none: return 0
        case .int8: return dimension + 8
        case .binary: return codeWords * 8
        }
    }
    /// 64-bit words of a binary code.
    var codeWords: Int { (dimension + 63) / 64 }

    var blocksTable: String { name + "_blocks" }
    var vectorsTable: String { name + "_vectors" }
    var codesTable: String { name + "_codes" }
    var slotsTable: String { name + "_slots" }
    /// Every table the index owns besides its record.
    var tables: [String] { [blocksTable, vectorsTable, codesTable, slotsTable] }

    /// Whether a declaration read from the file can be used: numbers in range, so nothing they size is absurd.
    var isPlausible: Bool {
        (1...VectorIndexBinding.maximumDimension).contains(dimension) && (1...4096).contains(blockRows)
            && !name.isEmpty && !content.isEmpty && !column.isEmpty
    }

    /// The recorded vector indexes (those whose record reads as a plausible declaration).
    static func load(on handle: Handle) throws -> [VectorIndex] {
        guard try handle.schemaType(of: metadataTable) == "table" else { return [] }
        let sql = "SELECT index_name, content_table, content_rowid, column_name, dimension, metric, quantization, block_rows, "
            + "(SELECT count(*) FROM pragma_table_info(index_name || '_blocks') WHERE name = 'stamp') FROM sift_vector_sync"
        return try handle.withStatement(sql) { stmt in
            var indexes: [VectorIndex] = []
            while try handle.stepUnobserved(stmt) {
                guard let metric = VectorMetric(rawValue: RawStatement.text(stmt, 5)),
                      let quantization = VectorQuantization(rawValue: RawStatement.text(stmt, 6)) else { continue }
                let dimension = sqlite3_column_int64(stmt, 4), blockRows = sqlite3_column_int64(stmt, 7)
                guard (1...Int64(VectorIndexBinding.maximumDimension)).contains(dimension), (1...4096).contains(blockRows) else { continue }
                var index = VectorIndex(name: RawStatement.text(stmt, 0), content: RawStatement.text(stmt, 1),
                                        rowidColumn: RawStatement.text(stmt, 2), column: RawStatement.text(stmt, 3),
                                        dimension: Int(dimension), metric: metric, quantization: quantization,
                                        blockRows: Int(blockRows))
                index.stamped = sqlite3_column_int64(stmt, 8) == 1
                if index.isPlausible { indexes.append(index) }
            }
            return indexes
        }
    }

    /// The recorded index named `name`, or nil.
    static func load(_ name: String, on handle: Handle) throws -> VectorIndex? {
        try load(on: handle).first { $0.name == name }
    }
}
