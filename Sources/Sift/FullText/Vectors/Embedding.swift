import Foundation

/// An embedding the application computed (Sift never computes them), stored in its row as a BLOB of
/// little-endian float32 values, 4 bytes a value. Declare a vector index over the column
/// (``Database/create(vectorIndex:with:syncedWith:)``) to search it by nearest neighbours.
///
///     final class Article: TableCodable {
///         var id: Int? = nil
///         var title = ""
///         var embedding = Embedding([])        // a BLOB column
///         enum CodingKeys: String, CodingTableKey { /* id, title, embedding */ }
///     }
///     article.embedding = Embedding(model.embed(article.title))
///
/// An empty embedding is stored as an empty blob; a vector index refuses it (its dimension is declared), so use
/// an optional (`Embedding?`, stored as NULL) for rows that have none yet: the index leaves NULL rows out.
public struct Embedding: ColumnCodable, Hashable, Sendable {
    /// The values, in order.
    public var values: [Float]

    /// An embedding of `values`.
    public init(_ values: [Float]) { self.values = values }

    /// The number of values.
    public var dimension: Int { values.count }

    /// The stored bytes: each value as a little-endian float32.
    public var data: Data {
        var data = Data(capacity: values.count * 4)
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// The embedding stored in `data` (little-endian float32 values), nil when its length is not a multiple of 4.
    public init?(data: Data) {
        guard data.count % 4 == 0 else { return nil }
        var values = [Float](repeating: 0, count: data.count / 4)
        data.withUnsafeBytes { raw in
            for i in values.indices {
                values[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
            }
        }
        self.values = values
    }

    /// Stored as a BLOB.
    public static var columnType: ColumnType { .BLOB }
    /// The stored blob (``data``).
    public func archivedValue() -> FundamentalValue { FundamentalValue(data) }
    /// The embedding a BLOB holds; nil for a blob whose length is not a multiple of 4.
    public init?(with value: FundamentalValue) {
        self.init(data: value.dataValue)
    }
}
