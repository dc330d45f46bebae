import Foundation

/// What a person typed, turned into an FTS5 query that can never be a syntax error.
///
/// The text is split with the index's own tokenizer; each piece of the original text is then quoted as an
/// FTS5 string, so quotes, `*`, `:`, `^`, parentheses and the words AND/OR/NOT/NEAR are just text.
///
///     SearchQuery("tiananmen square")                       // all terms
///     SearchQuery("quick fox", mode: .anyTerm)
///     SearchQuery("北京大学", mode: .phrase, columns: ["title"])
///     SearchQuery("sea", mode: .prefix)                     // search as you type
///     SearchQuery.advanced("title : (sift OR sqlite) NOT lucene")  // trusted FTS5 syntax, validated
public struct SearchQuery: Sendable, Hashable {
    /// How the terms combine.
    public enum Mode: Sendable, Hashable {
        /// Every term must occur.
        case allTerms
        /// Any term may occur; more matching terms rank higher.
        case anyTerm
        /// The terms must occur together, in order.
        case phrase
        /// Every term must occur; the last one may be the beginning of a word (search as you type).
        case prefix
    }

    enum Kind: Sendable, Hashable {
        case text(String, Mode)
        case near(String, distance: Int)
        case advanced(String)
    }

    let kind: Kind
    /// Only these columns are searched (all when empty).
    public var columns: [String]
    /// Documents containing any of these terms are left out.
    public var excluding: String?

    /// At most this many terms are used: longer input (a pasted page, 1 MB of text) is cut, never an error.
    public static let maxTerms = 64

    /// A query from user text.
    public init(_ text: String, mode: Mode = .allTerms, columns: [String] = [], excluding: String? = nil) {
        kind = .text(text, mode)
        self.columns = columns
        self.excluding = excluding
    }

    /// A query from user text in bytes; invalid UTF-8 is a typed error rather than a guess.
    public init(utf8 data: Data, mode: Mode = .allTerms, columns: [String] = []) throws {
        guard let text = String(validatingUTF8Data: data) else {
            throw SiftError(code: .mismatch, message: "The query text is not valid UTF-8.", operation: .query)
        }
        self.init(text, mode: mode, columns: columns)
    }

    /// Terms that must occur within `distance` tokens of each other.
    public static func near(_ text: String, distance: Int = 10, columns: [String] = []) -> SearchQuery {
        SearchQuery(kind: .near(text, distance: max(0, distance)), columns: columns, excluding: nil)
    }

    /// FTS5 query syntax from a trusted caller; Sift checks it against the index before running it and
    /// reports a malformed expression as a ``SiftError`` with operation `.query`.
    public static func advanced(_ expression: String) -> SearchQuery {
        SearchQuery(kind: .advanced(expression), columns: [], excluding: nil)
    }

    private init(kind: Kind, columns: [String], excluding: String?) {
        self.kind = kind
        self.columns = columns
        self.excluding = excluding
    }

    var isAdvanced: Bool { if case .advanced = kind { return true } else { return false } }

    /// The FTS5 expression, or nil when the text holds nothing searchable (only punctuation, say).
    /// `spans` returns the byte ranges of the tokens the index's tokenizer finds in a text.
    func expression(spans: (String) throws -> [Range<Int>]) throws -> String? {
        let core: String
        switch kind {
        case .advanced(let expression):
            return expression
        case .text(let text, let mode):
            let terms = try SearchQuery.terms(text, spans)
            guard !terms.isEmpty else { return nil }
            switch mode {
            case .allTerms: core = terms.map(SearchQuery.quote).joined(separator: " ")
            case .anyTerm: core = terms.map(SearchQuery.quote).joined(separator: " OR ")
            case .prefix: core = terms.map(SearchQuery.quote).joined(separator: " ") + "*"
            case .phrase: core = SearchQuery.quote(terms.joined(separator: " "))
            }
        case .near(let text, let distance):
            let terms = try SearchQuery.terms(text, spans)
            guard !terms.isEmpty else { return nil }
            core = "NEAR(" + terms.map(SearchQuery.quote).joined(separator: " ") + ", \(distance))"
        }
        var expression = "(" + core + ")"
        if !columns.isEmpty {
            expression = "{" + columns.map(SearchQuery.quote).joined(separator: " ") + "} : " + expression
        }
        if let excluding, case let excluded = try SearchQuery.terms(excluding, spans), !excluded.isEmpty {
            expression += " NOT (" + excluded.map(SearchQuery.quote).joined(separator: " OR ") + ")"
        }
        return expression
    }

    /// The pieces of `text` the tokenizer finds, overlapping pieces merged (n-gram tokenizers), at most `maxTerms`.
    static func terms(_ text: String, _ spans: (String) throws -> [Range<Int>]) throws -> [String] {
        // NUL would end the expression early inside SQLite's parser.
        let clean = text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: " ") : text
        var merged: [Range<Int>] = []
        for span in try spans(clean) where !span.isEmpty {
            if let last = merged.last, span.lowerBound < last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                if merged.count == maxTerms { break }
                merged.append(span)
            }
        }
        let utf8 = Array(clean.utf8)
        return merged.compactMap { range in
            guard range.lowerBound >= 0, range.upperBound <= utf8.count else { return nil }
            return String(decoding: utf8[range], as: UTF8.self)
        }
    }

    /// An FTS5 string: everything inside is text, `"` doubled.
    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension String {
    /// Decodes UTF-8, or nil when the bytes are not valid UTF-8.
    init?(validatingUTF8Data data: Data) {
        var valid = true
        var iterator = data.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: break loop
            case .error: valid = false; break loop
            }
        }
        guard valid else { return nil }
        self = String(decoding: data, as: UTF8.self)
    }
}
