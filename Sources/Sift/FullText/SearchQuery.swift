import Foundation
import SiftText

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

    /// At most this many words or runs are used (and twice as many pieces for `.anyTerm`): longer input
    /// (a pasted page, 1 MB of text) is cut, never an error.
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
    /// reports a malformed expression as a ``SiftError`` with operation `.query`. `columns` and `excluding`, set
    /// afterwards, apply to it as to any query.
    public static func advanced(_ expression: String) -> SearchQuery {
        SearchQuery(kind: .advanced(expression), columns: [], excluding: nil)
    }

    private init(kind: Kind, columns: [String], excluding: String?) {
        self.kind = kind
        self.columns = columns
        self.excluding = excluding
    }

    var isAdvanced: Bool { if case .advanced = kind { return true } else { return false } }
    /// Whether pseudo-relevance feedback applies: an `.anyTerm` question without CJK text (feedback words are never
    /// CJK, and against a question of many character pieces a few added words outweigh it).
    var takesFeedback: Bool {
        guard case .text(let text, .anyTerm) = kind else { return false }
        return !text.unicodeScalars.contains(where: SearchQuery.isCJK)
    }

    /// The FTS5 expression, or nil when the text holds nothing searchable (only punctuation, say).
    /// `spans` returns the byte ranges of the tokens the index's tokenizer finds in a text.
    func expression(spans: (String) throws -> [Range<Int>]) throws -> String? {
        try tree(spans: spans)?.rendered
    }

    /// The query as an FTS5 expression tree: the text only ever fills its strings.
    func tree(spans: (String) throws -> [Range<Int>]) throws -> FTS5Expression? {
        try weightedTree(spans: spans, distinct: false)?.tree
    }

    /// The expression tree and the weight of each of its phrases, in FTS5's phrase order (the order they are
    /// written in, excluded phrases included): what Sift's ranking function takes as query-term frequencies.
    ///
    /// A phrase weighs as many times as the question holds it. With `distinct`, `.allTerms` and `.prefix`
    /// search each repeated word once with its count (`"to be or not to be"`: `"to" "be" "or" "not"` weighing
    /// 2, 2, 1, 1); without it they repeat it, as `tree(spans:)` does, each weighing 1. `.anyTerm` always searches
    /// each piece once with its count. Phrase and `near` queries weigh each of their phrases 1, excluded phrases
    /// weigh 0, and an advanced query has no weights (nil): its phrases are the caller's.
    ///
    /// `stopwords` (lower-case words, and CJK pieces such as a hiragana particle) are left out of an `.anyTerm`
    /// question, unless it holds nothing else: a word such as "the" or "of" in a question says nothing about what
    /// is relevant (see
    /// ``Database/setQueryStopwords(forTokenizer:_:)``). Other modes keep every word: there each word is a condition.
    ///
    /// `feedback` adds terms to an `.anyTerm` question (pseudo-relevance feedback, RM3's interpolation): the
    /// question's own weights are scaled to sum to `originalWeight`, the feedback terms' to `1 - originalWeight`,
    /// and a term in both gets the sum. Other modes ignore it.
    ///
    /// `variants` gives the corrected variants of a word as typed (and whether it is the prefix of a `.prefix`
    /// search): each word of an `.allTerms`, `.anyTerm` or `.prefix` question (not a CJK run, not a feedback term)
    /// that has some becomes an OR-group of itself and them, the word first, each variant weighing the word's
    /// weight times its own (`"aeroelastc"` -> `("aeroelastc" OR "aeroelastic")`, weights 1 and 0.9).
    ///
    /// `synonyms` finds the entries of the index's synonym list that the question's words hold (``SynonymSet``). In an
    /// `.allTerms` or `.prefix` question, a word or run of words that is an entry becomes an OR-group of itself (its
    /// words all required, the typed word's corrected variants beside it) and the entries it also finds, each a
    /// phrase weighing `synonymWeight` times the word's weight (`"nyc"` -> `("nyc" OR "new york city")`,
    /// `"new york city"` -> `(("new" "york" "city") OR "nyc")`). In an `.anyTerm` question, the synonyms of a word
    /// join its group, and those of a run of words or of CJK pieces are terms of their own weighing `synonymWeight`.
    /// A `.phrase` question that is an entry as a whole becomes a group of itself and its synonyms. At most
    /// `2 * maxTerms` synonyms are added to one question.
    func weightedTree(spans: (String) throws -> [Range<Int>], distinct: Bool, stopwords: Set<String> = [],
                      feedback: (terms: [(term: String, weight: Double)], originalWeight: Double)? = nil,
                      variants: TypoVariant.Finder? = nil, synonyms: SynonymSet.Finder? = nil,
                      synonymWeight: Double = 1) throws
        -> (tree: FTS5Expression, weights: [Double]?)? {
        var tree: FTS5Expression
        var weights: [Double]?
        switch kind {
        case .advanced(let expression):
            tree = .trusted(expression)
        case .text(let text, let mode):
            // Stopwords go before the cap of maxTerms words, so a long question keeps more of its other words.
            // A phrase is one string, tokenized as a whole like the text it was copied from: its words stay together.
            var segments = try SearchQuery.segments(text, spans, skipping: mode == .anyTerm ? stopwords : [], phrase: mode == .phrase)
            if segments.isEmpty && mode == .anyTerm && !stopwords.isEmpty { segments = try SearchQuery.segments(text, spans) }
            guard !segments.isEmpty else { return nil }
            var terms: [(term: FTS5Expression, count: Double)]
            let matches = try synonyms?(segments) ?? []
            // The synonyms of a term of the question, and those searched as terms of their own (`.anyTerm`).
            var alternatives: [FTS5Expression: [String]] = [:], ownTerms: [String] = []
            switch mode {
            case .allTerms, .prefix:
                func word(_ i: Int) -> FTS5Expression {
                    mode == .prefix && i == segments.count - 1 ? .prefix(segments[i].text) : .string(segments[i].text)
                }
                terms = []
                var i = 0
                for match in matches + [SynonymSet.Match(segments: segments.count..<segments.count, synonyms: [])] {
                    while i < match.segments.lowerBound { terms.append((word(i), 1)); i += 1 }
                    guard !match.segments.isEmpty else { continue }
                    let term: FTS5Expression = match.segments.count == 1 ? word(i) : .all(match.segments.map(word))
                    if alternatives[term] == nil { alternatives[term] = match.synonyms }
                    terms.append((term, 1))
                    i = match.segments.upperBound
                }
            case .anyTerm:
                var pieces = SearchQuery.anyTermPieceCounts(segments, skipping: stopwords)
                if pieces.isEmpty { pieces = SearchQuery.anyTermPieceCounts(segments) }
                terms = pieces.map { (.string($0.piece), Double($0.count)) }
                for match in matches {
                    let word = FTS5Expression.string(segments[match.segments.lowerBound].text)
                    if match.segments.count == 1 && alternatives[word] == nil && terms.contains(where: { $0.term == word }) {
                        alternatives[word] = match.synonyms
                    } else {
                        ownTerms += match.synonyms
                    }
                }
            case .phrase:
                let phrase = FTS5Expression.string(segments.map(\.text).joined(separator: " "))
                terms = [(phrase, 1)]
                if let match = matches.first, match.segments == segments.indices { alternatives[phrase] = match.synonyms }
            }
            // The words as typed that may have corrected variants (before feedback adds its terms).
            var correctable: Set<FTS5Expression> = []
            if mode != .phrase && variants != nil {
                for (i, segment) in segments.enumerated() where !segment.isCJK {
                    correctable.insert(mode == .prefix && i == segments.count - 1 ? .prefix(segment.text) : .string(segment.text))
                }
            }
            var scale = 1.0
            if mode == .anyTerm, let feedback, case let added = feedback.terms.reduce(0, { $0 + $1.weight }), added > 0 {
                let own = terms.reduce(0) { $0 + $1.count }, kept = min(1, max(0, feedback.originalWeight))
                scale = kept / own
                terms = terms.map { ($0.term, kept * $0.count / own) }
                    + feedback.terms.map { (.string($0.term), (1 - kept) * $0.weight / added) }
                terms = SearchQuery.counted(terms)
            }
            if distinct { terms = SearchQuery.counted(terms) }
            var operands: [FTS5Expression] = [], phraseWeights: [Double] = []
            var synonymBudget = 2 * SearchQuery.maxTerms
            for (term, count) in terms {
                var found: [TypoVariant] = []
                if let variants, correctable.contains(term) {
                    switch term {
                    case .string(let word): found = try variants(word, false)
                    case .prefix(let word): found = try variants(word, true)
                    default: break
                    }
                }
                var added: [String] = []
                for synonym in alternatives[term] ?? [] where synonymBudget > 0 {
                    added.append(synonym)
                    synonymBudget -= 1
                }
                let members = [term] + found.map(\.term) + added.map { FTS5Expression.string($0) }
                operands.append(members.count == 1 ? term : .any(members))
                phraseWeights += Array(repeating: count, count: term.phraseCount ?? 1) + found.map { count * $0.weight }
                    + added.map { _ in count * synonymWeight }
            }
            var searched = Set(operands)
            for synonym in ownTerms where synonymBudget > 0 && searched.insert(.string(synonym)).inserted {
                operands.append(.string(synonym))
                phraseWeights.append(scale * synonymWeight)
                synonymBudget -= 1
            }
            tree = mode == .anyTerm ? .any(operands) : .all(operands)
            weights = phraseWeights
        case .near(let text, let distance):
            let segments = try SearchQuery.segments(text, spans)
            guard !segments.isEmpty else { return nil }
            tree = .near(segments.map(\.text), distance: distance)
            weights = Array(repeating: 1, count: segments.count)
        }
        if !columns.isEmpty { tree = .columns(columns, tree) }
        if let excluding, case let excluded = try SearchQuery.segments(excluding, spans), !excluded.isEmpty {
            tree = .excluding(tree, .any(excluded.map { .string($0.text) }))
            weights = weights.map { $0 + Array(repeating: 0, count: excluded.count) }
        }
        return (tree, weights)
    }

    /// Each distinct term once, where it first occurs, with the sum of its counts.
    static func counted(_ terms: [(term: FTS5Expression, count: Double)]) -> [(term: FTS5Expression, count: Double)] {
        var distinct: [(term: FTS5Expression, count: Double)] = []
        var positions: [FTS5Expression: Int] = [:]
        for (term, count) in terms {
            if let position = positions[term] {
                distinct[position].count += count
            } else {
                positions[term] = distinct.count
                distinct.append((term, count))
            }
        }
        return distinct
    }

    /// The tokenizer spans a segment joins, in order.
    struct Run {
        private(set) var range: Range<Int>
        let cjk: Bool
        private(set) var spans: [Range<Int>]

        init(_ span: Range<Int>, cjk: Bool) {
            range = span
            self.cjk = cjk
            spans = [span]
        }

        mutating func add(_ span: Range<Int>) {
            range = range.lowerBound..<max(range.upperBound, span.upperBound)
            spans.append(span)
        }

        /// The tokenizer's own pieces: overlapping spans (n-grams) make one piece, touching ones (CJK characters)
        /// one piece each.
        var parts: [Range<Int>] {
            var parts: [Range<Int>] = []
            for span in spans {
                if let last = parts.last, span.lowerBound < last.upperBound {
                    parts[parts.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
                } else {
                    parts.append(span)
                }
            }
            return parts
        }
    }

    /// A piece of the query text: a word, or a run of CJK characters (which has no spaces to split on).
    struct Segment: Equatable {
        let text: String
        let isCJK: Bool
        /// The tokens the segment was joined from, in order and touching: single characters for a per-character
        /// CJK tokenizer, the whole segment for a word or n-gram tokenizer.
        var parts: [String] = []
    }

    /// The pieces of `text` the tokenizer finds: overlapping pieces merged (n-gram tokenizers) and touching
    /// CJK pieces joined into one run (per-character tokenizers), at most `maxTerms`, leaving out the words
    /// whose lower-case text is one of `stopwords`. Each segment is to be an FTS5 string of its own, so only those the
    /// tokenizer finds a token in when given the segment alone are kept; with `phrase` the segments are to be joined
    /// into one string, which FTS5 tokenizes as a whole: an n-gram tokenizer's run keeps its words together, as
    /// typed, and a segment needs no token of its own.
    static func segments(_ text: String, _ spans: (String) throws -> [Range<Int>],
                         skipping stopwords: Set<String> = [], phrase: Bool = false) throws -> [Segment] {
        try locatedSegments(text, spans, skipping: stopwords, phrase: phrase).map(\.segment)
    }

    /// ``segments(_:_:skipping:phrase:)`` with the UTF-8 byte range of each in `text`.
    static func locatedSegments(_ text: String, _ spans: (String) throws -> [Range<Int>],
                                skipping stopwords: Set<String> = [], phrase: Bool = false) throws
        -> [(range: Range<Int>, segment: Segment)] {
        // NUL would end the expression early inside FTS5's parser; it is a separator like any control character.
        // (Bytes, not `Character`s: NUL followed by a combining mark is one `Character`.)
        var utf8 = Array(text.utf8)
        var clean = text
        if utf8.contains(0) {
            for i in utf8.indices where utf8[i] == 0 { utf8[i] = 0x20 }
            clean = String(decoding: utf8, as: UTF8.self)
        }
        func isCJK(_ range: Range<Int>) -> Bool {
            var iterator = utf8[range].makeIterator()
            var decoder = UTF8()
            if case .scalarValue(let scalar) = decoder.decode(&iterator) { return SearchQuery.isCJK(scalar) }
            return false
        }
        // Each segment is a run of the tokenizer's spans: overlapping ones (n-grams) or touching CJK ones.
        var merged: [Run] = []
        // A tokenizer may report offsets inside a character (FTS5's trigram does after case folding changes a
        // character's length, e.g. Ɐ to ɐ): widen such a span to whole characters rather than cut one in two.
        func isContinuation(_ i: Int) -> Bool { i < utf8.count && utf8[i] & 0xC0 == 0x80 }
        for reported in try spans(clean) where !reported.isEmpty && reported.lowerBound >= 0 && reported.upperBound <= utf8.count {
            var span = reported
            while span.lowerBound > 0 && isContinuation(span.lowerBound) { span = (span.lowerBound - 1)..<span.upperBound }
            while isContinuation(span.upperBound) { span = span.lowerBound..<(span.upperBound + 1) }
            let cjk = isCJK(span)
            if let last = merged.last,
               span.lowerBound < last.range.upperBound || (cjk && last.cjk && span.lowerBound == last.range.upperBound) {
                merged[merged.count - 1].add(span)
            } else {
                if merged.count == maxTerms { break }
                if !cjk && !stopwords.isEmpty && stopwords.contains(String(decoding: utf8[span], as: UTF8.self).lowercased()) { continue }
                merged.append(Run(span, cjk: cjk))
            }
        }
        // An n-gram tokenizer's grams run across spaces ("ck f", "k fo"), which merges every word into one
        // segment: "quick fox" would become the substring "quick fox". Split such a segment back into its words
        // when each word holds whole grams of its own (shorter words cannot be searched alone: they stay joined).
        // A phrase keeps the run: it is the substring as typed, with whatever white space is between its words.
        merged = merged.flatMap { run -> [Run] in
            guard !phrase, run.parts.count == 1, run.spans.count > 1 else { return [run] }
            let words = SearchQuery.words(in: run.range, of: utf8)
            guard words.count > 1,
                  words.allSatisfy({ word in run.spans.contains { word.contains($0.lowerBound) && $0.upperBound <= word.upperBound } })
            else { return [run] }
            return words.map { Run($0, cjk: isCJK($0)) }
        }
        func piece(_ range: Range<Int>) -> String { String(decoding: utf8[range], as: UTF8.self) }
        // FTS5 tokenizes each string of the expression on its own, and a tokenizer may find a token in a text that
        // the same piece alone does not hold: after a word, ICU's word breaker makes "__" or "‿‿" (connector
        // punctuation) a word of its own, which sift_icu keeps; alone it is punctuation and dropped. Such a string
        // is an empty phrase, and FTS5 leaves an empty phrase out of an AND or a NEAR group and numbers the
        // phrases after it one lower, so the query's phrase weights no longer fit its phrases (a step error).
        // So a segment that becomes a string of its own must hold a token on its own.
        if !phrase { merged = try merged.filter { run in try spans(piece(run.range)).contains { !$0.isEmpty } } }
        if merged.count > maxTerms { merged.removeLast(merged.count - maxTerms) }
        return merged.map { ($0.range, Segment(text: piece($0.range), isCJK: $0.cjk, parts: $0.parts.map(piece))) }
    }

    /// Han, kana, Hangul and their symbols: the scripts written without spaces between words. The query builder
    /// joins touching tokens that begin with such a character into one run. The table is SiftText's, the one
    /// the sift_icu tokenizer cuts CJK runs with, so both agree on every code point.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool { sift_is_cjk(scalar.value) != 0 }

    /// The byte ranges of `range` between white space.
    static func words(in range: Range<Int>, of utf8: [UInt8]) -> [Range<Int>] {
        var words: [Range<Int>] = []
        var start: Int?
        var i = range.lowerBound
        while i < range.upperBound {
            var iterator = utf8[i..<range.upperBound].makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { break }
            let length = UTF8.width(scalar)
            if scalar.properties.isWhitespace {
                if let first = start { words.append(first..<i) }
                start = nil
            } else if start == nil {
                start = i
            }
            i += length
        }
        if let first = start { words.append(first..<min(i, range.upperBound)) }
        return words
    }

    /// For questions: each word, and for CJK runs each adjacent pair of the tokenizer's pieces (characters, for a
    /// per-character tokenizer) and each piece, so a
    /// document sharing more of the question's characters and pairs ranks higher (measured on cmrc2018 and
    /// jsquad: this beats words, bigrams and characters alone). Duplicates removed.
    static func anyTermPieces(_ segments: [Segment]) -> [String] {
        anyTermPieceCounts(segments).map(\.piece)
    }

    /// ``anyTermPieces(_:)`` with how many times the question holds each piece (at most `2 * maxTerms` pieces),
    /// leaving out the CJK pieces (pairs or singles) that are `stopwords` (a hiragana particle such as の alone;
    /// the pairs holding it stay, so a word written in hiragana is still searched).
    static func anyTermPieceCounts(_ segments: [Segment], skipping stopwords: Set<String> = []) -> [(piece: String, count: Int)] {
        var pieces: [(piece: String, count: Int)] = []
        var positions: [String: Int] = [:]
        func add(_ piece: String, cjk: Bool = false) {
            if cjk && stopwords.contains(piece) { return }
            if let position = positions[piece] {
                pieces[position].count += 1
            } else if pieces.count < maxTerms * 2 {
                positions[piece] = pieces.count
                pieces.append((piece, 1))
            }
        }
        for segment in segments {
            // Pairs and singles of the tokenizer's own pieces: a tokenizer that keeps 北京大学 (or 𩊵title) as one
            // token gets that token, never characters it would not match on their own.
            guard segment.isCJK, segment.parts.count > 1 else { add(segment.text, cjk: segment.isCJK); continue }
            for (a, b) in zip(segment.parts, segment.parts.dropFirst()) { add(a + b, cjk: true) }
            for part in segment.parts { add(part, cjk: true) }
        }
        return pieces
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
