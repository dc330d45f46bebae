/// Why a compressed column's value could not be written or read (``SiftError/compressionFailure``).
///
/// A compressed value carries what decodes it (a format byte and its dictionary's id, then one zstd frame); one
/// that is damaged or names a dictionary the database does not hold fails the statement that reads it with this
/// error, never a crash.
///
///     do { let notes: [Note] = try database.getObjects(fromTable: "notes") }
///     catch let error as SiftError where error.compressionFailure != nil { print(error.message) }
public enum CompressionFailure: Sendable, Hashable {
    /// This build of Sift has no compression: it was built without the `Compression` package trait (see the
    /// README's package traits), so it links no zstd and cannot declare, read or write compressed columns.
    case unavailable
    /// The value's header or its zstd frame is damaged.
    case damagedValue
    /// The value names dictionary `id`, which the database does not hold.
    case unknownDictionary(id: Int64)
    /// The value says it decompresses to `size` bytes (-1: it does not say), past SQLite's length limit.
    case tooLarge(size: Int64)
    /// zstd failed to compress, or memory ran out.
    case failed
}

extension SiftError {
    /// The error for a declaration of compression in a build without the `Compression` trait.
    static func compressionUnavailable(path: String? = nil) -> SiftError {
        var error = SiftError(code: .misuse, message: "Column compression needs the `Compression` trait: this build of Sift "
                                  + "links no zstd.", path: path, operation: .schema)
        error.compressionFailure = .unavailable
        return error
    }
}
