import Foundation
import Sift
import SiftICUCore

/// One token from the ICU tokenizer, with exact UTF-8 byte offsets into the input.
public struct ICUToken: Sendable, Hashable {
    /// The normalized token text.
    public let text: String
    /// Byte offset of the first byte in the input.
    public let start: Int
    /// Byte offset just past the token.
    public let end: Int
    /// At the same position as the previous token (pinyin and other synonyms).
    public let isColocated: Bool
    /// From a Han, kana or Hangul run.
    public let isCJK: Bool
    /// The `|` marker between two CJK runs that only punctuation separates (query builders skip it).
    public let isSeparator: Bool
}

/// The ICU tokenizer outside SQLite: the same tokens FTS5 indexes, for query builders, tools and tests.
///
/// Not thread-safe (ICU break iterators are per instance): use one per thread.
public final class ICUTokenizer {
    private let raw: OpaquePointer

    /// A tokenizer with FTS5-style arguments, e.g. `["cjk", "unigram", "pinyin", "1"]`.
    public init(arguments: [String] = []) throws {
        var pointer: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        var cStrings: [UnsafePointer<CChar>?] = arguments.map { UnsafePointer(strdup($0)) }
        defer { cStrings.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        let rc = cStrings.withUnsafeMutableBufferPointer { args in
            sift_icu_tokenizer_create(args.baseAddress, Int32(args.count), &pointer, &message, Int32(message.count))
        }
        guard rc == SIFT_ICU_OK, let pointer else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SiftError(code: SiftError.Code(rawValue: rc), message: text, operation: .tokenize)
        }
        raw = pointer
    }

    deinit { sift_icu_tokenizer_destroy(raw) }

    /// Whether text is tokenized as indexed text, as a query, or into dictionary words.
    public enum Mode: Sendable {
        case document, query, words
        var flags: Int32 {
            switch self {
            case .document: return SIFT_ICU_TOKENIZE_DOCUMENT
            case .query: return SIFT_ICU_TOKENIZE_QUERY
            case .words: return SIFT_ICU_TOKENIZE_WORDS
            }
        }
    }

    /// The tokens of `text`.
    public func tokenize(_ text: String, mode: Mode = .document) throws -> [ICUToken] {
        var tokens: [ICUToken] = []
        try tokenize(Data(text.utf8), mode: mode) { tokens.append($0) }
        return tokens
    }

    /// The tokens of raw bytes (invalid UTF-8 and NULs separate tokens; offsets index these bytes).
    public func tokenize(_ bytes: Data, mode: Mode = .document, _ body: (ICUToken) -> Void) throws {
        guard !bytes.isEmpty else { return }
        guard bytes.count < Int(Int32.max) else {
            throw SiftError(code: .tooBig, message: "Text over 2 GB cannot be tokenized.", operation: .tokenize)
        }
        try withoutActuallyEscaping(body) { body in
            var context = body
            let rc = bytes.withUnsafeBytes { buffer in
                withUnsafeMutablePointer(to: &context) { ctx in
                    sift_icu_tokenize(raw, mode.flags, buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                                      Int32(buffer.count), ctx, icuTokenCallback)
                }
            }
            if rc != SIFT_ICU_OK {
                throw SiftError(code: SiftError.Code(rawValue: rc), message: "ICU tokenization failed.", operation: .tokenize)
            }
        }
    }
}

private let icuTokenCallback: sift_icu_token_callback = { context, flags, token, length, start, end in
    guard let context else { return SIFT_ICU_OK }
    let body = context.assumingMemoryBound(to: ((ICUToken) -> Void).self).pointee
    let bytes = UnsafeBufferPointer(start: token.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) },
                                    count: Int(max(0, length)))
    body(ICUToken(text: String(decoding: bytes, as: UTF8.self), start: Int(start), end: Int(end),
                  isColocated: flags & SIFT_ICU_TOKEN_COLOCATED != 0, isCJK: flags & SIFT_ICU_TOKEN_CJK != 0,
                  isSeparator: flags & SIFT_ICU_TOKEN_SEPARATOR != 0))
    return SIFT_ICU_OK
}
