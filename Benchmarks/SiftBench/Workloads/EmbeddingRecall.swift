import Foundation
import Sift

/// Recall of the quantized scans on real embeddings: the vectors of a `corpus.jsonl` (one `{"_id": ..., "vector":
/// [...]}` a line, as `scripts/embed-collection.py` writes them) in a database with an int8 and a binary index,
/// searched with the vectors of the `queries.jsonl` beside it (or every 10th corpus vector when there is none).
struct EmbeddingRecall {
    let corpus: String
    let limit: Int
    let candidates: [Int]

    /// Reads the `vector` of each line; lines without one are skipped, vectors of another dimension than the
    /// first refused.
    static func vectors(_ path: String) throws -> [[Float]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw BenchError.checkFailed("cannot read \(path)") }
        var vectors: [[Float]] = []
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let values = object["vector"] as? [Any] else { continue }
            let vector = values.compactMap { ($0 as? NSNumber)?.floatValue ?? ($0 as? Double).map(Float.init) }
            guard vector.count == values.count else { throw BenchError.checkFailed("\(path): a vector holds a value that is not a number") }
            guard vector.count == (vectors.first?.count ?? vector.count), (1...65_536).contains(vector.count) else {
                throw BenchError.checkFailed("\(path): a vector of \(vector.count) values")
            }
            vectors.append(vector)
        }
        return vectors
    }

    func run(in directory: String) throws -> [String] {
        let rows = try Self.vectors(corpus)
        guard let dimension = rows.first?.count else { throw BenchError.checkFailed("\(corpus) holds no vectors") }
        let queriesPath = URL(fileURLWithPath: corpus).deletingLastPathComponent().appendingPathComponent("queries.jsonl").path
        var queries = FileManager.default.fileExists(atPath: queriesPath) ? try Self.vectors(queriesPath) : []
        if queries.first?.count != dimension { queries = stride(from: 0, to: rows.count, by: 10).map { rows[$0] } }
        let path = directory + "/embeddings.db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = Database(withPath: path)
        try database.create(table: "rows", of: VectorBenchRow.self)
        for quantization in [VectorQuantization.int8, .binary] {
            try database.create(vectorIndex: "rows_\(quantization)",
                                with: VectorIndexBinding(column: "embedding", dimension: dimension, metric: .cosine, quantization: quantization),
                                syncedWith: "rows")
        }
        try database.insert(objects: rows.enumerated().map { VectorBenchRow(id: Int64($0.offset + 1), tag: 0, text: "", embedding: Embedding($0.element)) },
                            intoTable: "rows")
        var exact: [[Int64]] = []
        for query in queries {
            let hits: SearchResults<VectorBenchRow> = try database.search(nearest: Embedding(query), in: "rows_int8",
                                                                          options: VectorSearchOptions(limit: limit))
            exact.append(hits.hits.map(\.rowid))
        }
        var lines = ["", "real embeddings: \(rows.count) vectors of \(dimension) from \(corpus), \(queries.count) queries", "",
                     "| scan | recall@\(limit) |", "| --- | ---: |"]
        for quantization in [VectorQuantization.int8, .binary] {
            for count in candidates {
                var found = 0
                for (i, query) in queries.enumerated() {
                    let hits: SearchResults<VectorBenchRow> = try database.search(
                        nearest: Embedding(query), in: "rows_\(quantization)",
                        options: VectorSearchOptions(limit: limit, scan: .quantized(candidates: count)))
                    found += Set(hits.hits.map(\.rowid)).intersection(exact[i]).count
                }
                let wanted = exact.reduce(0) { $0 + $1.count }
                lines.append(String(format: "| %@ + exact re-rank of %d | %.4f |", "\(quantization)", count, Double(found) / Double(max(1, wanted))))
            }
        }
        return lines
    }
}
