import CSQLite
import Foundation

/// One token as a tokenizer reports it: its text and the byte range of the input it came from. What
/// `Database.tokenize(_:with:reason:)` returns for any FTS5 tokenizer, and SiftICU's `ICUTokenizer` too.
public struct Token: Sendable, Hashable {
    /// The token as indexed (folded, normalized).
    public let text: String
    /// UTF-8 byte offset of the token's first byte in the input.
    public let start: Int
    /// UTF-8 byte offset just past the token in the input (equal to `start` for a token that stands for no
    /// text, such as a marker a tokenizer adds to a query).
    public let end: Int
    /// Whether the token shares the position of the previous one (a synonym such as a pinyin reading).
    public let isColocated: Bool

    /// A token with its byte range in the input, for tokenizers that report tokens outside SQLite.
    public init(text: String, start: Int, end: Int, isColocated: Bool = false) {
        self.text = text
        self.start = start
        self.end = end
        self.isColocated = isColocated
    }
}

/// Whether text is tokenized as a document being indexed or as a query (FTS5's `FTS5_TOKENIZE_DOCUMENT` and
/// `FTS5_TOKENIZE_QUERY`).
public enum TokenizeReason: Sendable {
    case document, query
    var flags: Int32 { self == .document ? FTS5_TOKENIZE_DOCUMENT : FTS5_TOKENIZE_QUERY }
}

/// A tokenizer instance created on a connection, kept for reuse.
final class TokenizerInstance {
    private var tokenizer = sift_fts5_tokenizer()

    init(arguments: [String], on handle: Handle) throws {
        var cStrings: [UnsafePointer<CChar>?] = arguments.map { UnsafePointer(strdup($0)) }
        defer { cStrings.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        let rc = arguments.isEmpty ? SQLITE_ERROR : cStrings.withUnsafeMutableBufferPointer { buffer -> Int32 in
            sift_fts5_tokenizer_open(handle.raw, buffer.baseAddress, Int32(buffer.count), &tokenizer)
        }
        guard rc == SQLITE_OK else {
            throw handle.pool.report(SiftError(code: .error, message: "Unknown tokenizer or bad arguments: \(arguments.joined(separator: " "))",
                                               path: handle.path, tag: handle.pool.tag, operation: .tokenize))
        }
    }

    deinit { sift_fts5_tokenizer_close(&tokenizer) }

    /// Calls `body` for each token of `text` (UTF-8), with the token bytes valid only during the call.
    func tokenize(_ text: String, reason: TokenizeReason,
                  _ body: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Void) throws {
        try tokenize(text, flags: reason.flags, body)
    }

    /// The one token a query finds for `text` (as the prefix of a prefix query with `prefix`: FTS5 passes
    /// `FTS5_TOKENIZE_PREFIX`, and a stemming tokenizer leaves such text unstemmed), or nil when it finds none or several.
    func queryToken(of text: String, prefix: Bool = false) throws -> String? {
        var tokens: [String] = []
        try tokenize(text, flags: FTS5_TOKENIZE_QUERY | (prefix ? FTS5_TOKENIZE_PREFIX : 0)) { bytes, _, _, _ in
            tokens.append(String(decoding: bytes, as: UTF8.self))
        }
        return tokens.count == 1 ? tokens[0] : nil
    }

    /// The tokens a query finds for `text`, in order, without those that share the previous token's position (a
    /// tokenizer's synonyms, such as a pinyin reading) or stand for no text: the terms of a phrase.
    func queryTokens(of text: String) throws -> [String] {
        var tokens: [String] = []
        try tokenize(text, flags: FTS5_TOKENIZE_QUERY) { bytes, start, end, colocated in
            if !colocated && start < end { tokens.append(String(decoding: bytes, as: UTF8.self)) }
        }
        return tokens
    }

    /// Calls `body` for each token of `text` tokenized with FTS5's `flags`.
    private func tokenize(_ text: String, flags: Int32, _ body: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Void) throws {
        guard !text.isEmpty else { return }
        var text = text
        text.makeContiguousUTF8()
        guard let done = try text.utf8.withContiguousStorageIfAvailable({ try tokenize(utf8: $0, flags: flags, body) }) else {
            throw SiftError(code: .error, message: "The tokenizer failed.", operation: .tokenize)
        }
        return done
    }

    /// Calls `body` for each token of `utf8` (bytes as a table's column holds them, passed to the tokenizer as they
    /// are) tokenized as a document is indexed.
    func tokenizeDocument(utf8: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Void) throws {
        guard !utf8.isEmpty else { return }
        try tokenize(utf8: utf8, flags: FTS5_TOKENIZE_DOCUMENT, body)
    }

    private func tokenize(utf8: UnsafeBufferPointer<UInt8>, flags: Int32,
                          _ body: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            var context = Context(body: body)
            let rc = withUnsafeMutablePointer(to: &context) { ctx in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    sift_fts5_tokenizer_run(&tokenizer, ctx, flags, chars.baseAddress, Int32(clamping: chars.count), tokenCallback)
                }
            }
            if rc != SQLITE_OK {
                throw SiftError(code: SiftError.Code(rawValue: rc), message: "The tokenizer failed.", operation: .tokenize)
            }
        }
    }

    /// The byte ranges of the query terms in `text`. Synonyms share their word's span, and a token over an empty
    /// range stands for no text of the query (a tokenizer's own marker, such as one that keeps phrase positions
    /// apart): neither is a term.
    func querySpans(_ text: String) throws -> [Range<Int>] {
        var spans: [Range<Int>] = []
        try tokenize(text, reason: .query) { _, start, end, colocated in
            if !colocated && start < end { spans.append(start..<end) }
        }
        return spans
    }

    /// Runs `body` with the FTS5 tokenizer itself, for C code that tokenizes without a call into Swift per token.
    func withRawTokenizer<T>(_ body: (UnsafeMutablePointer<sift_fts5_tokenizer>) throws -> T) rethrows -> T {
        try body(&tokenizer)
    }

    struct Context {
        let body: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Void
    }
}

private let tokenCallback: sift_token_callback = { context, flags, token, length, start, end in
    guard let context else { return SQLITE_OK }
    let ctx = context.assumingMemoryBound(to: TokenizerInstance.Context.self)
    let bytes = UnsafeBufferPointer(start: token.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }, count: Int(max(0, length)))
    ctx.pointee.body(bytes, Int(start), Int(end), (flags & FTS5_TOKEN_COLOCATED) != 0)
    return SQLITE_OK
}

extension Database {
    /// Tokenizes `text` with an FTS5 tokenizer (`["unicode61", "remove_diacritics", "2"]`, `["sift_icu"]`...)
    /// exactly as a table using it would, with the byte offsets highlight() and snippet() rely on.
    public func tokenize(_ text: String, with tokenizer: [String], reason: TokenizeReason = .document) throws -> [Token] {
        try read { handle in
            var tokens: [Token] = []
            try handle.tokenizer(tokenizer).tokenize(text, reason: reason) { bytes, start, end, colocated in
                tokens.append(Token(text: String(decoding: bytes, as: UTF8.self), start: start, end: end, isColocated: colocated))
            }
            return tokens
        }
    }
}

extension Database {
    /// Options Sift writes into every FTS5 table it declares with the tokenizer `name` when the declaration
    /// leaves them out, so the stored declaration says what the table holds, whatever later versions make of a
    /// bare name. SiftICU sets `stem english` for `sift_icu` this way: a binding's `tokenize: "sift_icu"` creates
    /// `sift_icu stem english`, while a table created earlier as bare `sift_icu` (unstemmed tokens) keeps its
    /// declaration and its meaning. `options` are name-value pairs, as the tokenizer takes them.
    ///
    ///     database.setDeclarationDefaults([("stem", "english")], forTokenizer: "sift_icu")
    public func setDeclarationDefaults(_ options: [(name: String, value: String)], forTokenizer name: String) {
        pool.attachment(FullTextSettings.init).declarationDefaults.withLock { $0[name] = options }
    }

    /// A `tokenize` value as Sift declares it: with the options of ``setDeclarationDefaults(_:forTokenizer:)``
    /// that it does not give appended (`sift_icu` -> `sift_icu stem english`; `sift_icu stem none` stays).
    public func declaredTokenize(_ tokenize: String) -> String {
        let words = tokenize.split(whereSeparator: \.isWhitespace).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'\"")) }
        guard let name = words.first,
              let defaults = pool.attachment(FullTextSettings.init).declarationDefaults.withLock({ $0[name] }) else { return tokenize }
        let given = Set(stride(from: 1, to: words.count, by: 2).map { words[$0] })
        let missing = defaults.filter { !given.contains($0.name) }
        return missing.isEmpty ? tokenize : ([tokenize] + missing.map { "\($0.name) \($0.value)" }).joined(separator: " ")
    }
}

extension Database {
    /// Words left out of natural-language (`.anyTerm`) questions on indexes declared with the tokenizer `name`:
    /// `provider` gets the declaration's arguments after the name (`["stem", "english"]`) and returns lower-case
    /// words (empty for none). Documents still index these words, so phrases and other modes find them. SiftICU
    /// sets the English list for `sift_icu stem english` this way.
    ///
    ///     database.setQueryStopwords(forTokenizer: "unicode61") { _ in ["the", "of", "and"] }
    public func setQueryStopwords(forTokenizer name: String, _ provider: @escaping @Sendable ([String]) -> Set<String>) {
        pool.attachment(FullTextSettings.init).stopwords.withLock { $0[name] = provider }
    }
}
