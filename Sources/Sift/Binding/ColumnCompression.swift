/// How a text or BLOB column is compressed, declared per property in a model's `CodingKeys`
/// (`columnCompressionBindings`), or for an existing column with
/// ``Database/enableCompression(_:forColumns:inTable:)``.
///
/// Values are compressed with zstd as they are written and decompressed as they are read through the binding and
/// by the table's synced full-text indexes (which index, highlight and cut snippets from the plain text). With a
/// dictionary (the default), ``Database/trainCompressionDictionary(forColumn:inTable:maximumSize:)`` trains one on the
/// column's own values, which is what makes short values (a title, a paragraph) shrink; until then values are
/// compressed alone.
///
///     enum CodingKeys: String, CodingTableKey {
///         typealias Root = Article
///         static let objectRelationalMapping = TableBinding(CodingKeys.self)
///         case id, title, body
///         static var columnCompressionBindings: [CodingKeys: ColumnCompression]? { [.body: .zstd] }
///     }
///
/// Needs the `Compression` package trait (on by default): without it, declaring compression throws a
/// ``SiftError`` whose ``SiftError/compressionFailure`` is ``CompressionFailure/unavailable``.
public struct ColumnCompression: Sendable, Hashable {
    /// zstd's compression level, 1 (fastest) to 22 (smallest); 3 is zstd's default.
    public let level: Int
    /// Whether values are compressed with a dictionary trained on the column's values, once one is trained.
    public let usesDictionary: Bool

    /// zstd at level 3 with a dictionary trained on the column.
    public static let zstd = ColumnCompression(level: 3, usesDictionary: true)

    /// zstd at `level`, with or without a trained dictionary.
    public static func zstd(level: Int = 3, dictionary: Bool = true) -> ColumnCompression {
        ColumnCompression(level: level, usesDictionary: dictionary)
    }

    /// A compression at `level`, with or without a trained dictionary.
    public init(level: Int, usesDictionary: Bool) {
        self.level = level
        self.usesDictionary = usesDictionary
    }
}
