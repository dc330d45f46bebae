/// Why an embedding was refused (``SiftError/vectorFailure``): a vector index checks every vector written to the
/// column it indexes, in the row's own statement, and the row is not written.
///
///     do { try database.insert(objects: article, intoTable: "articles") }
///     catch let error as SiftError where error.vectorFailure != nil { print(error.message) }
public enum VectorFailure: Error, Sendable, Hashable {
    /// The vector has `actual` values; the index declares `expected` (or the blob is not whole float32 values:
    /// then `actual` is its length in bytes and the failure says so in the message).
    case wrongDimension(expected: Int, actual: Int)
    /// The value at `position` (from 0) is NaN or infinite.
    case notFinite(position: Int)
    /// A cosine index cannot rank a vector whose values are all 0 (it has no direction).
    case zeroVector
    /// The column holds something else than a blob (text, a number).
    case notABlob
}
