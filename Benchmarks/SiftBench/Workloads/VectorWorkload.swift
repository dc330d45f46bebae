import CSQLite
import Foundation
import Sift
import SiftVector

/// A row of the vector benchmark: a tag to filter on (id % 10), a few words for the hybrid searches, and a
/// random embedding.
struct VectorBenchRow: TableCodable {
    var id: Int64
    var tag: Int
    var text: String
    var embedding: Embedding
    enum CodingKeys: String, CodingTableKey {
        typealias Root = VectorBenchRow
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, tag, text, embedding
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// The full-text index over the benchmark rows' words.
struct VectorBenchText: TableCodable {
    var text: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = VectorBenchText
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case text
        static var virtualTableBinding: VirtualTableBinding? { VirtualTableBinding(with: .fts5) }
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
    /// sqlite-vec's run over the same vectors (nil: skipped).
    let sqliteVec: SqliteVecBaseline?

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

    /// Vector `i` of the seeded sequence (uniform in -1..<1 from 24 random bits each): rows are 0..<rows, the
    /// queries follow them. The generator advances by a constant each draw, so any vector can be made alone.
    func vector(_ i: Int) -> [Float] {
        var generator = SeededGenerator(seed: seed &+ UInt64(i * dimension) &* 0x9E37_79B9_7F4A_7C15)
        return (0..<dimension).map { _ in Float(generator.next() >> 40) / Float(1 << 23) - 1 }
    }

    /// Six words of a 200-word vocabulary, drawn from row `i`'s number.
    static func words(_ i: Int) -> String {
        var generator = SeededGenerator(seed: UInt64(i) &* 0x2545_F491_4F6C_DD1D)
        return (0..<6).map { _ in "w\(generator.next() % 200)" }.joined(separator: " ")
    }

    func run(in directory: String) throws -> [String] {
        let path = directory + "/vectors.db"
        let database = Database(withPath: path)
        try database.create(table: "rows", of: VectorBenchRow.self)
        try database.create(vectorIndex: "rows_vectors",
                            with: VectorIndexBinding(column: "embedding", dimension: dimension, metric: .cosine, quantization: .int8),
                            syncedWith: "rows")
        try database.create(virtualTable: "rows_text", of: VectorBenchText.self, syncedWith: "rows")
        // The filter's column is indexed, as an app indexes the columns it filters on.
        try database.exec(sql: "CREATE INDEX rows_tag ON rows(tag)")
        var output: [String] = []
        let batch = 20_000
        let load = try Self.times((rows + batch - 1) / batch) { b in
            let ids = (b * batch)..<min(rows, (b + 1) * batch)
            try database.insert(objects: ids.map { VectorBenchRow(id: Int64($0 + 1), tag: ($0 + 1) % 10, text: Self.words($0), embedding: Embedding(vector($0))) },
                                intoTable: "rows")
        }
        output.append(String(format: "load: %d rows in %.1f s (bulk inserts of %d: rows, full-text index, vectors and int8 codes "
                             + "in the same transactions)", rows, load.reduce(0, +) / 1000, batch))
        database.close()
        let fileBytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        output.append(String(format: "file: %.1f MB, %.0f bytes per row", Double(fileBytes) / 1e6, Double(fileBytes) / Double(rows)))
        // A second index over the same column, with binary codes, built from the loaded rows.
        let binaryBuild = try Self.times(1) { _ in
            try database.create(vectorIndex: "rows_binary",
                                with: VectorIndexBinding(column: "embedding", dimension: dimension, metric: .cosine, quantization: .binary),
                                syncedWith: "rows")
        }
        database.close()
        output.append(String(format: "binary index over the loaded rows built in %.1f s", binaryBuild[0] / 1000))
        let sizes = try VectorDiskSizes(path)
        output += sizes.lines(rows: rows)

        let mmap = mmapMB
        database.setConfig(named: "mmap") { handle in try handle.exec(sql: "PRAGMA mmap_size = \(mmap * 1_048_576)") }
        output.append("mmap_size: \(mmapMB) MB")
        let queryVectors = (0..<queries).map { vector(rows + $0) }
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
        bytes = []
        let exactP50 = Percentiles(exactTimes).p50
        output.append("")
        output.append("| search (top \(limit), \(queries) queries, one thread) | p50 ms | p99 ms | mean ms | notes |")
        output.append("| --- | ---: | ---: | ---: | --- |")
        output.append(Self.line("memory floor: C sum of the \(rows * dimension * 4 / 1_000_000) MB of float32", floor, "checksum \(sink % 10)"))
        output.append(Self.line("exact float32", exactTimes, String(format: "%.2fx the floor (p50)", exactP50 / max(Percentiles(floor).p50, 1e-9))))
        for count in candidates {
            let (quantized, recall) = try quantizedSearches(database, queryVectors: queryVectors, exact: exact, candidates: count)
            output.append(Self.line("int8 + exact re-rank of \(count)", quantized,
                                    String(format: "recall@%d %.3f; %.2fx faster than exact (p50)", limit, recall,
                                           exactP50 / max(Percentiles(quantized).p50, 1e-9))))
        }
        for count in candidates {
            let (quantized, recall) = try quantizedSearches(database, in: "rows_binary", queryVectors: queryVectors, exact: exact, candidates: count)
            output.append(Self.line("binary + exact re-rank of \(count)", quantized,
                                    String(format: "recall@%d %.3f (random vectors: see the real embeddings' below); %.2fx faster than exact (p50)",
                                           limit, recall, exactP50 / max(Percentiles(quantized).p50, 1e-9))))
        }
        output += try keptBlocks(database, queryVectors: queryVectors, exact: exact, exactP50: exactP50, floorP50: Percentiles(floor).p50)
        let filtered = try Self.times(queries) { i in
            _ = try database.search(nearest: Embedding(queryVectors[i]), in: "rows_vectors", of: VectorBenchRow.self,
                                    where: VectorBenchRow.Properties.tag == 3, options: options)
        }
        output.append(Self.line("exact float32, where: tag = 3 (10% pass)", filtered, "scans every block, scoring the passing slots"))
        let filteredWide = try Self.times(queries) { i in
            _ = try database.search(nearest: Embedding(queryVectors[i]), in: "rows_vectors", of: VectorBenchRow.self,
                                    where: VectorBenchRow.Properties.tag < 5, options: options)
        }
        output.append(Self.line("exact float32, where: tag < 5 (50% pass)", filteredWide, "scans every block, testing each slot"))
        let hybrid = try Self.times(queries) { i in
            _ = try database.search(SearchQuery("w\(i % 200)"), nearest: Embedding(queryVectors[i]), in: "rows_text",
                                    vectors: "rows_vectors", of: VectorBenchRow.self, options: SearchOptions(limit: limit))
        }
        output.append(Self.line("hybrid: one word (3% of rows) + exact float32, 100 a side fused", hybrid, "one read snapshot"))
        let hybridFiltered = try Self.times(queries) { i in
            _ = try database.search(SearchQuery("w\(i % 200)"), nearest: Embedding(queryVectors[i]), in: "rows_text",
                                    vectors: "rows_vectors", of: VectorBenchRow.self, where: VectorBenchRow.Properties.tag == 3,
                                    options: SearchOptions(limit: limit))
        }
        output.append(Self.line("hybrid, where: tag = 3 (10% pass)", hybridFiltered))
        if let sqliteVec {
            output.append(compare(with: sqliteVec, exact: exact, exactP50: exactP50, queryVectors: queryVectors, in: directory))
        }
        // Writes one row at a time (each its own transaction): the blocks are written in place.
        let first = Int64(rows + 1)
        let inserts = try Self.times(200) { i in
            try database.insert(objects: VectorBenchRow(id: first + Int64(i), tag: 0, text: Self.words(i), embedding: Embedding(vector(i))),
                                intoTable: "rows")
        }
        let updates = try Self.times(200) { i in
            try database.update(table: "rows", on: VectorBenchRow.Properties.embedding, with: [Embedding(vector(rows + i))],
                                where: VectorBenchRow.Properties.id == Int64(1 + (i * 193 + 7) % rows))
        }
        let deletes = try Self.times(200) { i in
            try database.delete(fromTable: "rows", where: VectorBenchRow.Properties.id == Int64(1 + i * 97 % rows))
        }
        output.append(Self.line("insert one row (its own transaction)", inserts))
        output.append(Self.line("update one row's embedding (its own transaction)", updates))
        output.append(Self.line("delete one row (its own transaction)", deletes))
        return output
    }

    /// sqlite-vec's exact top-k over the same vectors (cosine, as Sift's index): its times, and Sift's ratio.
    /// The int8 scans re-ranking `count` candidates: their times, and their recall against `exact`.
    private func quantizedSearches(_ database: Database, in index: String = "rows_vectors", queryVectors: [[Float]], exact: [[Int64]],
                                   candidates count: Int) throws -> (times: [Double], recall: Double) {
        var found = 0
        let times = try Self.times(queries) { i in
            let hits: SearchResults<VectorBenchRow> = try database.search(
                nearest: Embedding(queryVectors[i]), in: index,
                options: VectorSearchOptions(limit: limit, scan: .quantized(candidates: count)))
            found += Set(hits.hits.map(\.rowid)).intersection(exact[i]).count
        }
        return (times, Double(found) / Double(max(1, queries * limit)))
    }

    /// The same searches with every block kept in memory (`Database.vectorCacheLimit`): the first search, which
    /// reads the blocks from the file and keeps them, then the timed ones, which score the kept copies; the hits
    /// checked against the exact ones read from the file. The limit is set back to 0 after.
    private func keptBlocks(_ database: Database, queryVectors: [[Float]], exact: [[Int64]], exactP50: Double,
                            floorP50: Double) throws -> [String] {
        var output: [String] = []
        let options = VectorSearchOptions(limit: limit)
        // Room for both indexes' float32 blocks, the int8 codes and the binary codes, each block with its rowids.
        database.vectorCacheLimit = rows * (2 * dimension * 4 + dimension + 8 + (dimension + 63) / 64 * 8 + 8 + 4 * 8) + (1 << 20)
        defer { database.vectorCacheLimit = 0 }
        let first = try Self.times(1) { _ in
            _ = try database.search(nearest: Embedding(queryVectors[0]), in: "rows_vectors", of: VectorBenchRow.self, options: options)
        }
        var same = 0
        let kept = try Self.times(queries) { i in
            let hits: SearchResults<VectorBenchRow> = try database.search(nearest: Embedding(queryVectors[i]), in: "rows_vectors", options: options)
            same += hits.hits.map(\.rowid) == exact[i] ? 1 : 0
        }
        output.append(Self.line("exact float32, blocks kept in memory", kept,
                                String(format: "%.2fx the floor (p50); %d of %d the same hits as read from the file; the first search, "
                                       + "keeping the blocks, %.1f ms", Percentiles(kept).p50 / max(floorP50, 1e-9), same, queries, first[0])))
        for count in candidates {
            _ = try database.search(nearest: Embedding(queryVectors[0]), in: "rows_vectors", of: VectorBenchRow.self,
                                    options: VectorSearchOptions(limit: limit, scan: .quantized(candidates: count)))
            let (quantized, recall) = try quantizedSearches(database, queryVectors: queryVectors, exact: exact, candidates: count)
            output.append(Self.line("int8 + exact re-rank of \(count), codes and float32 blocks kept", quantized,
                                    String(format: "recall@%d %.3f; %.2fx faster than exact kept, %.2fx than exact read (p50)", limit,
                                           recall,
                                           Percentiles(kept).p50 / max(Percentiles(quantized).p50, 1e-9),
                                           exactP50 / max(Percentiles(quantized).p50, 1e-9))))
        }
        // The binary index's own float32 blocks, kept by an exact search of it, for the re-rank.
        _ = try database.search(nearest: Embedding(queryVectors[0]), in: "rows_binary", of: VectorBenchRow.self, options: options)
        for count in candidates {
            _ = try database.search(nearest: Embedding(queryVectors[0]), in: "rows_binary", of: VectorBenchRow.self,
                                    options: VectorSearchOptions(limit: limit, scan: .quantized(candidates: count)))
            let (quantized, recall) = try quantizedSearches(database, in: "rows_binary", queryVectors: queryVectors, exact: exact, candidates: count)
            output.append(Self.line("binary + exact re-rank of \(count), codes and float32 blocks kept", quantized,
                                    String(format: "recall@%d %.3f; %.2fx faster than exact kept, %.2fx than exact read (p50)", limit,
                                           recall,
                                           Percentiles(kept).p50 / max(Percentiles(quantized).p50, 1e-9),
                                           exactP50 / max(Percentiles(quantized).p50, 1e-9))))
        }
        let filtered = try Self.times(queries) { i in
            _ = try database.search(nearest: Embedding(queryVectors[i]), in: "rows_vectors", of: VectorBenchRow.self,
                                    where: VectorBenchRow.Properties.tag == 3, options: options)
        }
        output.append(Self.line("exact float32, where: tag = 3 (10% pass), blocks kept", filtered))
        let hybrid = try Self.times(queries) { i in
            _ = try database.search(SearchQuery("w\(i % 200)"), nearest: Embedding(queryVectors[i]), in: "rows_text",
                                    vectors: "rows_vectors", of: VectorBenchRow.self, options: SearchOptions(limit: limit))
        }
        output.append(Self.line("hybrid: one word + exact float32, blocks kept", hybrid))
        return output
    }

    private func compare(with baseline: SqliteVecBaseline, exact: [[Int64]], exactP50: Double, queryVectors: [[Float]],
                         in directory: String) -> String {
        switch baseline.run(vectors: vector, rows: rows, queries: queryVectors, dimension: dimension, limit: limit, in: directory) {
        case .failure(let reason):
            return "| sqlite-vec vec0 exact | - | - | - | skipped: \(reason) |"
        case .success(let report):
            let same = zip(report.found, exact).reduce(0) { $0 + Set($1.0).intersection($1.1).count }
            let p50 = Percentiles(report.times_ms).p50
            return Self.line("sqlite-vec \(report.version) vec0 exact (cosine)", report.times_ms, String(
                format: "Sift exact is %.1fx faster (p50); the same top %d: %.3f; load %.0f s; %.0f bytes per vector on disk",
                p50 / max(exactP50, 1e-9), limit, Double(same) / Double(max(1, queries * limit)), report.load_seconds,
                Double(report.file_bytes) / Double(max(report.rows, 1))))
        }
    }
}
