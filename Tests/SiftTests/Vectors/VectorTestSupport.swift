import Foundation
import XCTest
@testable import Sift

/// A row with text, a group to filter on and an optional embedding.
final class Passage: TableCodable {
    var id: Int? = nil
    var text: String = ""
    var group: Int = 0
    var embedding: Embedding? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Passage
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, text, group, embedding
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ id: Int?, _ values: [Float]?, text: String = "", group: Int = 0) {
        self.id = id
        self.text = text
        self.group = group
        self.embedding = values.map(Embedding.init)
    }
}

/// The full-text index over Passage's text.
final class PassageIndex: TableCodable {
    var text: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = PassageIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case text
        static var virtualTableBinding: VirtualTableBinding? { VirtualTableBinding(with: .fts5) }
    }
}

func randomVector(_ dimension: Int, _ generator: inout SplitMix) -> [Float] {
    (0..<dimension).map { _ in Float.random(in: -1...1, using: &generator) }
}

/// The score brute force gives: in Double, from the raw values, as the index defines it (cosine similarity, dot
/// product, minus the Euclidean distance).
func bruteScore(_ a: [Float], _ b: [Float], _ metric: VectorMetric) -> Double {
    let dot = zip(a, b).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
    switch metric {
    case .dot: return dot
    case .cosine:
        let na = a.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        let nb = b.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        return dot / (na * nb)
    case .l2: return -zip(a, b).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }.squareRoot()
    }
}

extension SiftTestCase {
    /// The top `limit` of every passage with a valid vector (and meeting `keep`), by brute force over the rows.
    func bruteForce(_ database: Database, _ query: [Float], metric: VectorMetric, dimension: Int, limit: Int,
                    keep: (Passage) -> Bool = { _ in true }) throws -> [(rowid: Int64, score: Double)] {
        let rows: [Passage] = try database.getObjects(fromTable: "passage")
        return rows.compactMap { row -> (rowid: Int64, score: Double)? in
            guard let id = row.id, let values = row.embedding?.values, values.count == dimension, keep(row),
                  values.allSatisfy(\.isFinite) else { return nil }
            if metric == .cosine && values.allSatisfy({ $0 == 0 }) { return nil }
            return (Int64(id), bruteScore(query, values, metric))
        }
        .sorted { $0.score != $1.score ? $0.score > $1.score : $0.rowid < $1.rowid }
        .prefix(limit).map { $0 }
    }

    /// Asserts that a search's hits are a top `limit` of brute force: the same scores in the same order (within float
    /// rounding), each hit's score its own brute-force score.
    func assertNearest(_ database: Database, _ query: [Float], index: String = "passage_vectors", metric: VectorMetric,
                       dimension: Int, limit: Int = 10, where condition: Condition? = nil, keep: (Passage) -> Bool = { _ in true },
                       scan: VectorSearchOptions.Scan = .exact, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try bruteForce(database, query, metric: metric, dimension: dimension, limit: limit, keep: keep)
        let results: SearchResults<Passage> = try database.search(nearest: Embedding(query), in: index, where: condition,
                                                                   options: VectorSearchOptions(limit: limit, scan: scan))
        XCTAssertEqual(results.hits.count, expected.count, "hit count", file: file, line: line)
        let all = try bruteForce(database, query, metric: metric, dimension: dimension, limit: .max, keep: keep)
        let scores = Dictionary(all.map { ($0.rowid, $0.score) }, uniquingKeysWith: { a, _ in a })
        for (hit, want) in zip(results.hits, expected) {
            let tolerance = 1e-4 * max(1, abs(want.score))
            XCTAssertEqual(hit.score, want.score, accuracy: tolerance, "rank score", file: file, line: line)
            XCTAssertEqual(hit.score, scores[hit.rowid] ?? .nan, accuracy: tolerance, "row \(hit.rowid)'s own score", file: file, line: line)
            XCTAssertEqual(Int64(hit.object.id ?? -1), hit.rowid, file: file, line: line)
        }
    }

    /// A database with table `passage` and the vector index `passage_vectors` over its embeddings.
    func makeVectorDatabase(dimension: Int, metric: VectorMetric = .cosine, quantization: VectorQuantization = .none,
                            name: String = "test.db") throws -> Database {
        let database = makeDatabase(name)
        try database.create(table: "passage", of: Passage.self)
        try database.create(vectorIndex: "passage_vectors",
                            with: VectorIndexBinding(column: "embedding", dimension: dimension, metric: metric, quantization: quantization),
                            syncedWith: "passage")
        return database
    }
}
