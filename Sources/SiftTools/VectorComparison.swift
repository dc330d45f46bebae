import Foundation
import Sift
import SiftEvaluation

/// Where an evaluation finds its vectors (as `scripts/embed-collection.py` writes them: one `{"_id", "vector"}` a
/// line) and how its hybrid run fuses.
public struct VectorSources: Sendable, Hashable {
    /// The query vectors, one for every query of the evaluation.
    public var queries: URL
    /// The document vectors; every `_id` must be a document of the collection.
    public var corpus: URL
    /// The hybrid run's fusion (``HybridFusion/default``).
    public var fusion: HybridFusion

    /// Vectors from `queries` and `corpus`; without `corpus`, the `corpus.jsonl` beside `queries`.
    public init(queries: URL, corpus: URL? = nil, fusion: HybridFusion = .default) {
        self.queries = queries
        self.corpus = corpus ?? queries.deletingLastPathComponent().appendingPathComponent("corpus.jsonl")
        self.fusion = fusion
    }

    /// Stores the document vectors in `corpus` (declaring its vectors with their dimension) and returns the query
    /// vectors. Throws ``SiftToolError`` when a file is bad, a document vector names no document, or a query has
    /// no vector.
    func load(into corpus: CorpusDatabase, queries: [EvaluationQuery]) throws -> [String: [Float]] {
        let documents = try Self.read(self.corpus)
        let questions = try Self.read(self.queries)
        guard documents.dimension > 0 else { throw SiftToolError.invalidArgument("\(self.corpus.path) holds no vectors") }
        guard questions.dimension == documents.dimension else {
            throw SiftToolError.invalidArgument("\(self.queries.path) holds vectors of \(questions.dimension) values, "
                                                + "\(self.corpus.path) of \(documents.dimension)")
        }
        if let query = queries.first(where: { questions.vectors[$0.id] == nil }) {
            throw SiftToolError.invalidArgument("\(self.queries.path) has no vector for query \(query.id)")
        }
        try corpus.declareVectors(dimension: documents.dimension)
        let missing = try corpus.setVectors(documents.vectors.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        if let first = missing.first {
            throw SiftToolError.invalidArgument("\(self.corpus.path) has vectors of \(missing.count) ids that are no document "
                                                + "of the collection, e.g. \(first)")
        }
        return questions.vectors
    }

    private static func read(_ url: URL) throws -> VectorFile {
        guard FileManager.default.fileExists(atPath: url.path) else { throw SiftToolError.missingFile(url.path) }
        do {
            return try VectorFile.load(url)
        } catch let error as InputError {
            throw SiftToolError.badInput(error)
        }
    }
}

/// The text, vector and hybrid rankings of one collection's queries side by side, with Fisher's paired
/// randomization test (``RandomizationTest``) of the hybrid ranking's nDCG@10 against each of the others.
public struct VectorComparison: Sendable {
    /// The text ranking's scores (the evaluation's own report).
    public var text: EvaluationReport
    /// The vector ranking's: the nearest documents to each query's vector.
    public var vector: EvaluationReport
    /// The hybrid ranking's: text and vector fused by ``fusion``.
    public var hybrid: EvaluationReport
    /// How the hybrid ranking fused.
    public var fusion: HybridFusion
    /// The vector ranking of every query.
    public var vectorRun: Run
    /// The hybrid ranking of every query.
    public var hybridRun: Run

    /// The two-sided p of hybrid against text on nDCG@10 (10,000 seeded permutations, exact for 12 queries or fewer).
    public var hybridVersusText: Double { RandomizationTest.pValue(hybrid.perQuery.map(\.ndcgAt10), text.perQuery.map(\.ndcgAt10)) }
    /// The two-sided p of hybrid against vector on nDCG@10.
    public var hybridVersusVector: Double {
        RandomizationTest.pValue(hybrid.perQuery.map(\.ndcgAt10), vector.perQuery.map(\.ndcgAt10))
    }
}
