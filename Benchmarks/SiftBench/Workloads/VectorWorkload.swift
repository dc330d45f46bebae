import CSQLite
import Foundation
import Sift
import SiftVector

/// A row of the vector benchmark: a tag to filter on (id % 10) and a random embedding.
struct VectorBenchRow: TableCodable {
    var id: Int64
    var tag: Int
    var embedding: Embedding
    enum CodingKeys: String, CodingTableKey {
        typealias Root = VectorBenchRow
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, tag, embedding
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// The vector benchmark's measurements on one database of `rows` random vectors (uniform in -1...1, seeded).
struct VectorWorkload {
    let rows: Int
    let dimension: Int
    let limit: Int
    let queries: Int
    let candidates: [Int]
    let seed: UInt64
    /// SQLite's `mmap_size` for the searching connections, in MB (0: SQLite reads pages with read calls).
    let mmapMB: Int

    /// Milliseconds of each call of `body`.
    static func times(_ count: Int, _ body: (Int) throws -> Void) rethrows -> [Double] {
        var times: [Double] = []
        for i in 0..<count {
            let start = DispatchTime.now().uptimeNanoseconds
            try body(i)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return times
    }

    static func line(_ name: String, _ times: [Double], _ extra: String = "") -> String {
        let percentiles = Percentiles(times)
        return String(format: "| %@ | %.2f | %.2f | %.2f |", name, percentiles.p50, percentiles.p99,
                      times.reduce(0, +) / Double(max(times.count, 1))) + " \(extra) |"
    }

    func run(in directory: String) throws -> [String] {
        var generator = SeededGenerator(seed: seed)
        // Uniform in -1..<1 from 24 random bits each.
        func vector() -> [Float] { (0..<dimension).map { _ in Float(generator.next() >> 40) / Float(1 << 23) - 1 } }
        let path = directory + "/vectors.db"
        let database = Database(withPath: path)
        try database.create(table: "rows", of: VectorBenchRow.self)
        try database.create(vectorIndex: "rows_vectors",
                            with: VectorIndexBinding(column: "embedding", dimension: dimension, metric: .cosine, quantization: .int8),
                            syncedWith: "rows")
        // The filter's column is indexed, as an app indexes the columns it filters on.
        try database.exec(sql: "CREATE INDEX rows_tag ON rows(tag)")
        var output: [String] = []
        let batch = 20_000
        let load = try Self.times((rows + batch - 1) / batch) { b in
            let ids = (b * batch)..<min(rows, (b + 1) * batch)
            try database.insert(objects: ids.map { VectorBenchRow(id: Int64($0 + 1), tag: ($0 + 1) % 10, embedding: Embedding(vector())) },
                                intoTable: "rows")
        }
        output.append(String(format: "load: %d rows in %.1f s (bulk inserts of %d, vectors and int8 codes written in the same transactions)",
                             rows, load.reduce(0, +) / 1000, batch))
        database.close()
        let fileBytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        output.append(String(format: "file: %.1f MB, %.0f bytes per vector (%d float32 bytes + %d int8 code bytes + rowid, slot "
                             + "and the row's own blob)", Double(fileBytes) / 1e6, Double(fileBytes) / Double(rows),
                             dimension * 4, dimension + 8))
        output += try tableSizes(path)

        let mmap = mmapMB
        database.setConfig(named: "mmap") { handle in try handle.exec(sql: "PRAGMA mmap_size = \(mmap * 1_048_576)") }
        output.append("mmap_size: \(mmapMB) MB")
        let queryVectors = (0..<queries).map { _ in vector() }
        let options = VectorSearchOptions(limit: limit)
        // Warm the page cache and the connection.
        for q in queryVectors.prefix(3) { _ = try database.search(nearest: Embedding(q), in: "rows_vectors", of: VectorBenchRow.self, options: options) }
        var exact: [[Int64]] = []
        let exactTimes = try Self.times(queries) { i in
            let hits: SearchResults<VectorBenchRow> = try database.search(nearest: Embedding(queryVectors[i]), in: "rows_vectors", options: options)
            exact.append(hits.hits.map(\.rowid))
        }
        // The floor: the same float32 bytes summed by a C loop, from memory already read once.
        var bytes = [UInt8](repeating: 0, count: rows * dimension * 4)
        for i in stride(from: 0, to: bytes.count, by: 4096) { bytes[i] = UInt8(truncatingIfNeeded: i) }
        var sink: UInt64 = 0
        let floor = Self.times(max(queries, 20)) { _ in sink &+= bytes.withUnsafeBytes { sift_vector_sum_words($0.baseAddress, $0.count) } }
        output.append("")
        output.append("| search (top \(limit), \(queries) queries, one thread) | p50 ms | p99 ms | mean ms | notes |")
        output.append("| --- | ---: | ---: | ---: | --- |")
        output.append(Self.line("memory floor: C sum of the \(rows * dimension * 4 / 1_000_000) MB of float32", floor, "checksum \(sink % 10)"))
        output.append(Self.line("exact float32", exactTimes, String(format: "%.2fx the floor (p50)",
                                                                     Percentiles(exactTimes).p50 / max(Percentiles(floor).p50, 1e-9))))
        for count in candidates {
            var found = 0
            let quantized = try Self.times(queries) { i in
                let hits: SearchResults<VectorBenchRow> = try database.search(
                    nearest: Embedding(queryVectors[i]), in: "rows_vectors",
                    options: VectorSearchOptions(limit: limit, scan: .quantized(candidates: count)))
                found += Set(hits.hits.map(\.rowid)).intersection(exact[i]).count
            }
            output.append(Self.line("int8 + exact re-rank of \(count)", quantized,
                                    String(format: "recall@%d %.3f", limit, Double(found) / Double(max(1, queries * limit)))))
        }
        let filtered = try Self.times(queries) { i in
            _ = try database.search(nearest: Embedding(queryVectors[i]), in: "rows_vectors", of: VectorBenchRow.self,
                                    where: VectorBenchRow.Properties.tag == 3, options: options)
        }
        output.append(Self.line("exact float32, where: tag = 3 (10% pass)", filtered))
        // Writes one row at a time (each its own transaction): the blocks are written in place.
        let first = Int64(rows + 1)
        let inserts = try Self.times(200) { i in
            try database.insert(objects: VectorBenchRow(id: first + Int64(i), tag: 0, embedding: Embedding(vector())), intoTable: "rows")
        }
        let deletes = try Self.times(200) { i in
            try database.delete(fromTable: "rows", where: VectorBenchRow.Properties.id == Int64(1 + i * 97 % rows))
        }
        output.append(Self.line("insert one row (its own transaction)", inserts))
        output.append(Self.line("delete one row (its own transaction)", deletes))
        return output
    }

    /// Bytes per table from SQLite's dbstat, when this SQLite has it.
    private func tableSizes(_ path: String) throws -> [String] {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return ["(cannot open \(path))"] }
        var stmt: OpaquePointer?
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_prepare_v2(db, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC", -1, &stmt, nil) == SQLITE_OK
        else { return ["(no dbstat in this SQLite: no per-table sizes)"] }
        var lines: [String] = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            let name = String(cString: sqlite3_column_text(stmt, 0)), size = sqlite3_column_int64(stmt, 1)
            guard size > 100_000 else { continue }
            lines.append(String(format: "  %@: %.1f MB (%.0f bytes per vector)", name, Double(size) / 1e6, Double(size) / Double(rows)))
        }
        return lines
    }
}

