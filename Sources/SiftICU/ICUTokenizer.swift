import Foundation
import Sift
import SiftICUCore

/// The ICU tokenizer outside SQLite: the same tokens FTS5 indexes, for query builders, tools and tests, as
/// `Token` values (the type `Database.tokenize(_:with:reason:)` returns for any FTS5 tokenizer).
///
/// For dictionary words instead of one token per CJK character (word segmentation, say), create it with
/// `arguments: ["cjk", "words"]`.
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

    /// The tokens of `text`, as a document being indexed or as a query (byte offsets index its UTF-8).
    ///
    /// With the default `cjk unigram`, text has a `|` token between two CJK runs that only punctuation or
    /// spaces separate, so phrases do not match across the gap; in a query its range is empty (`start == end`).
    public func tokenize(_ text: String, reason: TokenizeReason = .document) throws -> [Token] {
        var tokens: [Token] = []
        try tokenize(Data(text.utf8), reason: reason) { tokens.append($0) }
        return tokens
    }

    /// The tokens of raw bytes (invalid UTF-8 and NULs separate tokens; offsets index these bytes).
    public func tokenize(_ bytes: Data, reason: TokenizeReason = .document, _ body: (Token) -> Void) throws {
        guard !bytes.isEmpty else { return }
        guard bytes.count < Int(Int32.max) else {
            throw SiftError(code: .tooBig, message: "Text over 2 GB cannot be tokenized.", operation: .tokenize)
        }
        try withoutActuallyEscaping(body) { body in
            var context = body
            let rc = bytes.withUnsafeBytes { buffer in
                withUnsafeMutablePointer(to: &context) { ctx in
                    sift_icu_tokenize(raw, reason.icuFlags, buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                                      Int32(buffer.count), ctx, icuTokenCallback)
                }
            }
            if rc != SIFT_ICU_OK {
                throw SiftError(code: SiftError.Code(rawValue: rc), message: "ICU tokenization failed.", operation: .tokenize)
            }
        }
    }
}

private extension TokenizeReason {
    var icuFlags: Int32 {
        switch self {
        case .document: return SIFT_ICU_TOKENIZE_DOCUMENT
        case .query: return SIFT_ICU_TOKENIZE_QUERY
        }
    }
}

private let icuTokenCallback: sift_icu_token_callback = { context, flags, token, length, start, end in
    guard let context else { return SIFT_ICU_OK }
    let body = context.assumingMemoryBound(to: ((Token) -> Void).self).pointee
    let bytes = UnsafeBufferPointer(start: token.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) },
                                    count: Int(max(0, length)))
    body(Token(text: String(decoding: bytes, as: UTF8.self), start: Int(start), end: Int(end),
               isColocated: flags & SIFT_ICU_TOKEN_COLOCATED != 0))
    return SIFT_ICU_OK
}
