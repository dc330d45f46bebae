import Foundation
import Sift
import SiftEvaluation

/// Vectors of a corpus: one embedding per document (computed by the application, e.g. `scripts/embed-collection.py`),
/// kept in the column `embedding` of `documents` and searched through the vector index `documents_vectors`, which
/// Sift keeps exact as documents come and go. A corpus has vectors once `sift index --vector-field` (or
/// ``declareVectors(dimension:metric:)``) declared them; the first vector read sets their dimension.
extension CorpusDatabase {
    /// The vector index over the documents' embeddings, synced with ``documentsTable``.
    public static let vectorIndex = "documents_vectors"
    /// The column of ``documentsTable`` holding each document's ``Embedding`` (NULL: none).
    static let vectorColumn = "embedding"

    /// How the corpus's vectors are declared (dimension and metric), or nil when it has none.
    public func vectorBinding() throws -> VectorIndexBinding? {
        try translatingErrors {
            try database.vectorIndexes().first { $0.index == Self.vectorIndex }?.binding
        }
    }

    /// Declares the corpus's vectors: `dimension` values each, compared by `metric` (cosine when nil). A corpus that
    /// has vectors keeps its declaration: another dimension, or a `metric` other than its own, is a
    /// ``SiftToolError/invalidArgument(_:)``.
    @discardableResult
    public func declareVectors(dimension: Int, metric: VectorMetric? = nil) throws -> VectorIndexBinding {
        if let existing = try vectorBinding() {
            guard existing.dimension == dimension else {
                throw SiftToolError.invalidArgument("the corpus's vectors have \(existing.dimension) values, not \(dimension)")
            }
            if let metric, metric != existing.metric {
                throw SiftToolError.invalidArgument("the corpus's vectors are compared by \(existing.metric.rawValue), not \(metric.rawValue)")
            }
            return existing
        }
        guard (1...VectorIndexBinding.maximumDimension).contains(dimension) else {
            throw SiftToolError.invalidArgument("a vector takes 1 to \(VectorIndexBinding.maximumDimension) values, not \(dimension)")
        }
        let binding = VectorIndexBinding(column: Self.vectorColumn, dimension: dimension, metric: metric ?? .cosine)
        try translatingErrors {
            try database.run(transaction: {
                let columns = try database.getRows(sql: "SELECT name FROM pragma_table_info(?)", values: [Self.documentsTable])
                if !columns.contains(where: { $0[0].stringValue == Self.vectorColumn }) {
                    try database.exec(sql: "ALTER TABLE \(Self.documentsTable) ADD COLUMN \(Self.vectorColumn) BLOB")
                }
                try database.create(vectorIndex: Self.vectorIndex, with: binding, syncedWith: Self.documentsTable)
            })
        }
        return binding
    }

    /// Why `vector` cannot be a vector of this declaration (its length, or all zeros under cosine), or nil: what
    /// the index would refuse, said before a write fails on it. Values are finite already (``VectorFile/values``).
    static func problem(with vector: [Float], for binding: VectorIndexBinding) -> String? {
        if vector.count != binding.dimension {
            return "the vector has \(vector.count) values; the corpus's vectors have \(binding.dimension)"
        }
        if binding.metric == .cosine, vector.allSatisfy({ $0 == 0 }) { return "a vector of zeros has no direction (cosine)" }
        return nil
    }

    /// Sets the vectors of the documents with these keys, in one transaction, and returns the keys no document has.
    /// Every vector is checked against the declaration first (``SiftToolError/invalidArgument(_:)`` naming the key).
    public func setVectors(_ vectors: [(key: String, vector: [Float])]) throws -> [String] {
        guard !vectors.isEmpty else { return [] }
        guard let binding = try vectorBinding() else {
            throw SiftToolError.invalidArgument("the corpus has no vectors declared; index it with --vector-field")
        }
        for (key, vector) in vectors {
            if let problem = Self.problem(with: vector, for: binding) { throw SiftToolError.invalidArgument("\(key): \(problem)") }
        }
        var missing: [String] = []
        try translatingErrors {
            try database.run(transaction: {
                for (key, _) in vectors {
                    let found = try database.getRows(sql: "SELECT 1 FROM \(Self.documentsTable) WHERE key = ?", values: [key])
                    if found.isEmpty { missing.append(key) }
                }
                try writeVectors(vectors)
            })
        }
        return missing
    }

    /// Writes checked vectors into the rows with their keys, inside the caller's transaction; the vector index
    /// follows each update.
    func writeVectors(_ vectors: [(key: String, vector: [Float])]) throws {
        for (key, vector) in vectors {
            try database.exec(sql: "UPDATE \(Self.documentsTable) SET \(Self.vectorColumn) = ? WHERE key = ?",
                              values: [Embedding(vector), key])
        }
    }

    /// The query vector of `sift search --vector-file`: a file holding one JSON array of numbers.
    public static func queryVector(contentsOf path: String) throws -> [Float] {
        let data: Data
        do {
            data = try FileReading.contents(of: path)
        } catch let failure as FileReading.Failure {
            throw SiftToolError.unreadable(failure.path, detail: failure.reason)
        }
        guard let parsed = try? JSONSerialization.jsonObject(with: data), parsed is [Any] else {
            throw SiftToolError.badInput(InputError(.malformedJSON("a vector file holds one JSON array of numbers"), line: 1, path: path))
        }
        do {
            return try VectorFile.values(parsed, field: "vector", line: 1, path: path)
        } catch {
            throw SiftToolError.badInput(error)
        }
    }
}
