/// How a vector index compares vectors: larger scores rank first under each.
public enum VectorMetric: String, Sendable, Hashable, CaseIterable {
    /// Cosine similarity (from -1 to 1): the vectors are normalized when indexed, so their lengths do not count.
    /// The usual choice for text embeddings.
    case cosine
    /// The dot product: for embeddings trained for it (lengths count).
    case dot
    /// Euclidean distance; a hit's score is minus the distance, so nearer ranks first.
    case l2
}

/// Compact codes a vector index keeps beside its float32 vectors, so that a search can scan them instead
/// (``VectorSearchOptions/Scan/quantized(candidates:)``) and re-rank the best candidates with the exact float
/// scores. Exact float searches work with every choice.
public enum VectorQuantization: String, Sendable, Hashable, CaseIterable {
    /// Float32 vectors only.
    case none
    /// One signed byte a value (scaled per vector by its largest magnitude) plus 8 bytes: a quarter of the bytes
    /// to scan.
    case int8
    /// One bit a value (its sign), scored by Hamming distance: a thirty-second of the bytes, a coarser order.
    case binary
}

/// A vector index's declaration: the embedding column it indexes, the vectors' dimension, how they are compared
/// and which codes it keeps. ``Database/create(vectorIndex:with:syncedWith:)`` records it beside the content table,
/// as ``Database/create(virtualTable:of:syncedWith:mode:tokenizer:facets:)`` records a full-text index.
///
///     try database.create(vectorIndex: "articles_vectors",
///                         with: VectorIndexBinding(column: "embedding", dimension: 384, metric: .cosine),
///                         syncedWith: "articles")
public struct VectorIndexBinding: Sendable, Hashable {
    /// The content table's column holding each row's ``Embedding`` (a BLOB of float32 values, or NULL for none).
    public var column: String
    /// The number of values of every vector (1 to 65,536).
    public var dimension: Int
    /// How vectors are compared (cosine by default).
    public var metric: VectorMetric
    /// Which compact codes are kept beside the float32 vectors (none by default).
    public var quantization: VectorQuantization

    /// A declaration of an index over `column`'s vectors of `dimension` values.
    public init(column: String, dimension: Int, metric: VectorMetric = .cosine, quantization: VectorQuantization = .none) {
        self.column = column
        self.dimension = dimension
        self.metric = metric
        self.quantization = quantization
    }

    /// The largest dimension an index takes.
    public static let maximumDimension = 65_536
}
