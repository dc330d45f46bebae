#if Compression
import SiftZstd
#endif
import CSQLite

/// The one seam between Sift and zstd: every call into SiftZstd (the value format, the SQL functions
/// `sift_compress`/`sift_decompress` and dictionary training, C) goes through here, and no other Swift file imports it.
///
/// Built with the `Compression` package trait (on by default), this calls SiftZstd, which links libzstd. Built
/// without it, Sift links no zstd: ``isAvailable`` is false, declaring compression throws
/// ``CompressionFailure/unavailable``, and the SQL functions are not registered.
enum CompressionEngine {
#if Compression
    /// Whether this build of Sift can compress columns (the `Compression` trait).
    static let isAvailable = true

    /// Registers `sift_compress(value, level, dictionary)` and `sift_decompress(value)` on a new connection.
    static func register(_ db: OpaquePointer) { _ = sift_zstd_register(db) }

    /// What the last compression or decompression on this thread failed with, if it did; clears it.
    static func takeFailure() -> CompressionFailure? {
        var detail: Int64 = 0
        switch sift_zstd_take_failure(&detail) {
        case Int32(SIFT_ZSTD_DAMAGED.rawValue): return .damagedValue
        case Int32(SIFT_ZSTD_UNKNOWN_DICTIONARY.rawValue): return .unknownDictionary(id: detail)
        case Int32(SIFT_ZSTD_TOO_LARGE.rawValue): return .tooLarge(size: detail)
        case Int32(SIFT_ZSTD_FAILED.rawValue): return .failed
        default: return nil
        }
    }

    /// The first dictionary id (the first of zstd's private range); ids are handed out in order from it.
    static let firstDictionaryID = Int64(SIFT_ZSTD_FIRST_ID)
    /// The first byte of a compressed value, in either of its forms (sift_zstd.h).
    static let valueMarkers = [UInt8(SIFT_ZSTD_MAGIC), UInt8(SIFT_ZSTD_COMPACT_TEXT), UInt8(SIFT_ZSTD_COMPACT_BLOB)]
        + (0..<6).map { UInt8(SIFT_ZSTD_ONE_BLOCK) + $0 }

    /// A dictionary of at most `capacity` bytes trained on `samples`, with id `id` (from ``firstDictionaryID`` to
    /// `UInt32.max`); nil when zstd's trainer cannot make one (too few or too short samples).
    static func train(_ samples: [[UInt8]], capacity: Int, id: Int64) -> [UInt8]? {
        let sizes = samples.map(\.count)
        let joined = samples.flatMap { $0 }
        guard !samples.isEmpty, !joined.isEmpty, capacity > 0, id >= firstDictionaryID, id <= Int64(UInt32.max) else { return nil }
        var dictionary = [UInt8](repeating: 0, count: capacity)
        let size = dictionary.withUnsafeMutableBytes { out in
            joined.withUnsafeBytes { input in
                sizes.withUnsafeBufferPointer { sizes in
                    sift_zstd_train(out.baseAddress, capacity, input.baseAddress, sizes.baseAddress, UInt32(samples.count), UInt32(id))
                }
            }
        }
        guard size > 0 else { return nil }
        return Array(dictionary.prefix(size))
    }
#else
    /// Whether this build of Sift can compress columns: it was built without the `Compression` trait.
    static let isAvailable = false
    static func register(_ db: OpaquePointer) {}
    static func takeFailure() -> CompressionFailure? { nil }
    static let firstDictionaryID: Int64 = 32_768
    static let valueMarkers: [UInt8] = []
    static func train(_ samples: [[UInt8]], capacity: Int, id: Int64) -> [UInt8]? { nil }
#endif
}
