import Foundation
import XCTest
@testable import Sift

/// Byte ranges of tokens, as kinds of tokenizer report them: `SearchQuery` without a database.
enum Spans {
    /// A word tokenizer (like `unicode61`): runs of anything but ASCII spaces and punctuation; a CJK run is one token.
    static func words(_ text: String) -> [Range<Int>] { runs(text, cjkAlone: false) }

    /// A per-character CJK tokenizer (like `sift_icu`'s CJK mode): each Han or kana character alone, other words whole.
    static func characters(_ text: String) -> [Range<Int>] { runs(text, cjkAlone: true) }

    /// A tokenizer that only splits on spaces: quotes, parentheses and colons stay in its tokens.
    static func spaceSeparated(_ text: String) -> [Range<Int>] {
        let bytes = Array(text.utf8)
        var spans: [Range<Int>] = [], start = 0
        for end in 0...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: " ") {
            if start < end { spans.append(start..<end) }
            start = end + 1
        }
        return spans
    }

    /// A trigram tokenizer: every three consecutive characters, overlapping.
    static func trigrams(_ text: String) -> [Range<Int>] {
        let ranges = scalars(text).map(\.range)
        guard ranges.count >= 3 else { return [] }
        return (0...(ranges.count - 3)).map { ranges[$0].lowerBound..<ranges[$0 + 2].upperBound }
    }

    /// A tokenizer whose tokens depend on their neighbours, as `sift_icu`'s on connector punctuation: space-separated
    /// words, where a word of underscores only is a token in a text that holds a letter and nothing alone.
    static func contextual(_ text: String) -> [Range<Int>] {
        let letters = text.unicodeScalars.contains { $0.properties.isAlphabetic }
        let bytes = Array(text.utf8)
        return spaceSeparated(text).filter { letters || !bytes[$0].allSatisfy { $0 == UInt8(ascii: "_") } }
    }

    /// These spans, whatever the text.
    static func fixed(_ spans: [Range<Int>]) -> (String) -> [Range<Int>] { { _ in spans } }

    private static func scalars(_ text: String) -> [(scalar: Unicode.Scalar, range: Range<Int>)] {
        var offset = 0
        return text.unicodeScalars.map { scalar in
            defer { offset += UTF8.width(scalar) }
            return (scalar, offset..<offset + UTF8.width(scalar))
        }
    }

    private static func runs(_ text: String, cjkAlone: Bool) -> [Range<Int>] {
        var spans: [Range<Int>] = [], current: Range<Int>?
        for (scalar, range) in scalars(text) {
            let v = scalar.value
            let alone = cjkAlone && ((0x3040...0x30FF).contains(v) || (0x4E00...0x9FFF).contains(v))
            let inWord = v >= 0x80 || (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v)
            if inWord && !alone {
                current = (current?.lowerBound ?? range.lowerBound)..<range.upperBound
                continue
            }
            if let run = current { spans.append(run) }
            current = nil
            if alone { spans.append(range) }
        }
        if let run = current { spans.append(run) }
        return spans
    }
}

/// `SearchQuery`'s segmentation, query pieces and expressions, from hand-made token spans.
final class SearchQueryTests: XCTestCase {
    private typealias Segment = SearchQuery.Segment

    /// A segment from one token of a word or n-gram tokenizer.
    private func word(_ text: String) -> Segment { Segment(text: text, isCJK: false, parts: [text]) }

    /// A CJK segment joined from these touching tokens.
    private func run(_ parts: String...) -> Segment { Segment(text: parts.joined(), isCJK: true, parts: parts) }

    private func check(_ query: SearchQuery, _ tree: FTS5Expression?, _ rendered: String?,
                       spans: (String) -> [Range<Int>] = Spans.words, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try query.tree(spans: spans), tree, file: file, line: line)
        if let rendered {
            assertSameBytes(try query.expression(spans: spans), rendered, file: file, line: line)
        } else {
            XCTAssertNil(try query.expression(spans: spans), file: file, line: line)
        }
    }

    // MARK: Segments

    func testWordTokenizerSpansAreSeparateSegments() throws {
        XCTAssertEqual(try SearchQuery.segments("quick, brown fox!", Spans.words), [word("quick"), word("brown"), word("fox")])
        // A word tokenizer keeps a CJK run as one token: one part, the whole run.
        XCTAssertEqual(try SearchQuery.segments("北京大学 東京", Spans.words), [run("北京大学"), run("東京")])
        XCTAssertEqual(try SearchQuery.segments("𩊵title", Spans.words), [run("𩊵title")])
    }

    func testTouchingPerCharacterCJKSpansJoinIntoOneRun() throws {
        XCTAssertEqual(try SearchQuery.segments("北京大学", Spans.characters), [run("北", "京", "大", "学")])
        XCTAssertEqual(try SearchQuery.segments("北京 大学", Spans.characters), [run("北", "京"), run("大", "学")])
        XCTAssertEqual(try SearchQuery.segments("東京タワー", Spans.characters), [run("東", "京", "タ", "ワ", "ー")])
        XCTAssertEqual(try SearchQuery.segments("sql北京db", Spans.characters), [word("sql"), run("北", "京"), word("db")])
        // Touching tokens that are not CJK stay apart.
        XCTAssertEqual(try SearchQuery.segments("abcd", Spans.fixed([0..<2, 2..<4])), [word("ab"), word("cd")])
    }

    func testOverlappingSpansMergeIntoOneSegmentWithOnePart() throws {
        XCTAssertEqual(try SearchQuery.segments("abcde", Spans.trigrams), [word("abcde")])
        XCTAssertEqual(try SearchQuery.segments("abc", Spans.fixed([0..<2, 1..<3])), [word("abc")])
        XCTAssertEqual(try SearchQuery.segments("北京大学", Spans.trigrams), [run("北京大学")])
        XCTAssertEqual(try SearchQuery.segments("ab", Spans.trigrams), [], "too short for a trigram")
        // An overlapping span extends the last part of a per-character run.
        XCTAssertEqual(try SearchQuery.segments("北京大", Spans.fixed([0..<3, 3..<6, 3..<9])), [run("北", "京大")])
    }

    func testSegmentsWithoutATokenOfTheirOwnAreLeftOut() throws {
        // FTS5 tokenizes each string alone: "__" would be an empty phrase, which FTS5 leaves out of an AND or NEAR.
        XCTAssertEqual(try SearchQuery.segments("hello __ world", Spans.contextual), [word("hello"), word("world")])
        XCTAssertEqual(try SearchQuery.segments("__ __", Spans.contextual), [])
        try check(SearchQuery("hello __"), .all([.string("hello")]), #"("hello")"#, spans: Spans.contextual)
        try check(SearchQuery("hello __", mode: .prefix), .all([.prefix("hello")]), #"("hello"*)"#, spans: Spans.contextual)
        try check(SearchQuery.near("hello __ world"), .near(["hello", "world"], distance: 10), #"(NEAR("hello" "world", 10))"#,
                  spans: Spans.contextual)
        // A phrase is tokenized as a whole, as the text it was copied from: "__" stays between its words.
        try check(SearchQuery("hello __ world", mode: .phrase), .all([.string("hello __ world")]), #"("hello __ world")"#,
                  spans: Spans.contextual)
        try check(SearchQuery("hello", excluding: "x __"), .excluding(.all([.string("hello")]), .any([.string("x")])),
                  #"("hello") NOT ("x")"#, spans: Spans.contextual)
    }

    func testAnNGramPhraseIsTheSubstringAsTyped() throws {
        // Each word holds grams of its own: separate strings in every mode but .phrase, which keeps the white space.
        for space in ["  ", "\t", "\u{2028}\u{2028}", " \n "] {
            let text = "quick" + space + "fox"
            try check(SearchQuery(text), .all([.string("quick"), .string("fox")]), #"("quick" "fox")"#, spans: Spans.trigrams)
            try check(SearchQuery(text, mode: .phrase), .all([.string(text)]), "(\"\(text)\")", spans: Spans.trigrams)
        }
    }

    func testSpansInsideACharacterAreWidenedToWholeCharacters() throws {
        // Ɐ is E2 B1 AF: "xⱯy" is x at 0, Ɐ at 1..<4, y at 4.
        XCTAssertEqual(try SearchQuery.segments("xⱯy", Spans.fixed([2..<5])), [word("Ɐy")])
        XCTAssertEqual(try SearchQuery.segments("xⱯy", Spans.fixed([0..<2])), [word("xⱯ")])
        XCTAssertEqual(try SearchQuery.segments("xⱯy", Spans.fixed([0..<1, 2..<3])), [word("x"), word("Ɐ")])
        // 𩊵 is F0 AA 8A B5, at 1..<5: a span inside it is the character, a CJK one.
        XCTAssertEqual(try SearchQuery.segments("a𩊵b", Spans.fixed([2..<4])), [run("𩊵")])
    }

    func testEmptySpansAndSpansOutsideTheTextAreIgnored() throws {
        XCTAssertEqual(try SearchQuery.segments("abc", Spans.fixed([1..<1, -1..<2, 2..<4, 0..<3])), [word("abc")])
    }

    func testNULIsASeparator() throws {
        var seen: [String] = []
        let segments = try SearchQuery.segments("one\u{0}two") { text in
            seen.append(text)
            return Spans.words(text)
        }
        XCTAssertEqual(segments, [word("one"), word("two")])
        assertSameBytes(seen.first, "one two", "the tokenizer never sees the NUL")
        // NUL followed by a combining mark is one Character, and still a separator.
        _ = try SearchQuery.segments("a\u{0}\u{301}b") { text in
            seen.append(text)
            return []
        }
        assertSameBytes(seen.last, "a \u{301}b")
        // A token across the NUL holds a space in its place.
        assertSameBytes(try SearchQuery.segments("a\u{0}b", Spans.fixed([0..<3])).first?.text, "a b")
    }

    func testAtMostMaxTermsSegments() throws {
        let words = (0..<100).map { "w\($0)" }
        let segments = try SearchQuery.segments(words.joined(separator: " "), Spans.words)
        XCTAssertEqual(segments, words.prefix(SearchQuery.maxTerms).map(word))
        // A run counts once, however many characters it has.
        let characters = (0..<100).map { String(Unicode.Scalar(UInt32(0x4E00 + $0))!) }
        let long = try SearchQuery.segments(characters.joined(), Spans.characters)
        XCTAssertEqual(long.count, 1)
        XCTAssertEqual(long.first?.parts, characters)
        // At the limit, an overlapping span still extends the last segment; a new one is left out.
        let text = String(repeating: "x ", count: 70)
        let limit = SearchQuery.maxTerms
        let spans = (0..<limit).map { 2 * $0..<2 * $0 + 1 } + [2 * limit - 2..<2 * limit, 2 * limit..<2 * limit + 1]
        let cut = try SearchQuery.segments(text, Spans.fixed(spans))
        XCTAssertEqual(cut.count, limit)
        XCTAssertEqual(cut.last, word("x "))
    }

    // MARK: Pieces for .anyTerm

    func testAnyTermPiecesArePairsAndSinglesOfCJKPartsAndWholeWordsOtherwise() {
        XCTAssertEqual(SearchQuery.anyTermPieces([word("quick"), word("brown"), word("quick")]), ["quick", "brown"])
        XCTAssertEqual(SearchQuery.anyTermPieces([run("北", "京", "大", "学")]), ["北京", "京大", "大学", "北", "京", "大", "学"])
        XCTAssertEqual(SearchQuery.anyTermPieces([run("北", "京"), run("京", "都")]), ["北京", "北", "京", "京都", "都"])
        XCTAssertEqual(SearchQuery.anyTermPieces([run("哈", "哈", "哈")]), ["哈哈", "哈"])
        XCTAssertEqual(SearchQuery.anyTermPieces([word("sql"), run("北", "京"), word("sql")]), ["sql", "北京", "北", "京"])
        // A run kept as one token (word and n-gram tokenizers) is that token, never characters.
        XCTAssertEqual(SearchQuery.anyTermPieces([run("北京大学")]), ["北京大学"])
        XCTAssertEqual(SearchQuery.anyTermPieces([run("𩊵title")]), ["𩊵title"])
        // Only CJK runs are taken apart.
        XCTAssertEqual(SearchQuery.anyTermPieces([Segment(text: "ab", isCJK: false, parts: ["a", "b"])]), ["ab"])
    }

    func testAnyTermPiecesStopAtTwiceMaxTerms() {
        let characters = (0..<100).map { String(Unicode.Scalar(UInt32(0x4E00 + $0))!) }
        let pairs = zip(characters, characters.dropFirst()).map { $0 + $1 }
        let pieces = SearchQuery.anyTermPieces([Segment(text: characters.joined(), isCJK: true, parts: characters)])
        XCTAssertEqual(pieces.count, 2 * SearchQuery.maxTerms)
        XCTAssertEqual(pieces, Array((pairs + characters).prefix(2 * SearchQuery.maxTerms)))
    }

    // MARK: Expressions

    func testEveryModeWithAndWithoutColumnsAndExclusion() throws {
        let text = "quick brown fox"
        let modes: [(query: ([String], String?) -> SearchQuery, tree: FTS5Expression, rendered: String)] = [
            ({ SearchQuery(text, columns: $0, excluding: $1) },
             .all([.string("quick"), .string("brown"), .string("fox")]), #"("quick" "brown" "fox")"#),
            ({ SearchQuery(text, mode: .anyTerm, columns: $0, excluding: $1) },
             .any([.string("quick"), .string("brown"), .string("fox")]), #"("quick" OR "brown" OR "fox")"#),
            ({ SearchQuery(text, mode: .phrase, columns: $0, excluding: $1) },
             .all([.string("quick brown fox")]), #"("quick brown fox")"#),
            ({ SearchQuery(text, mode: .prefix, columns: $0, excluding: $1) },
             .all([.string("quick"), .string("brown"), .prefix("fox")]), #"("quick" "brown" "fox"*)"#),
            ({ columns, excluding in
                var query = SearchQuery.near(text, distance: 3, columns: columns)
                query.excluding = excluding
                return query
            }, .near(["quick", "brown", "fox"], distance: 3), #"(NEAR("quick" "brown" "fox", 3))"#),
        ]
        let excluded = FTS5Expression.any([.string("lazy"), .string("dog")])
        for (query, tree, rendered) in modes {
            try check(query([], nil), tree, rendered)
            try check(query(["title"], nil), .columns(["title"], tree), #"{"title"} : "# + rendered)
            try check(query([], "lazy dog"), .excluding(tree, excluded), rendered + #" NOT ("lazy" OR "dog")"#)
            try check(query(["title", "body"], "lazy, dog!"), .excluding(.columns(["title", "body"], tree), excluded),
                      #"({"title" "body"} : "# + rendered + #") NOT ("lazy" OR "dog")"#)
        }
    }

    func testNearDistanceDefaultsToTenAndIsNeverNegative() throws {
        try check(SearchQuery.near("quick fox"), .near(["quick", "fox"], distance: 10), #"(NEAR("quick" "fox", 10))"#)
        try check(SearchQuery.near("quick fox", distance: -3), .near(["quick", "fox"], distance: 0), #"(NEAR("quick" "fox", 0))"#)
    }

    func testCJKRunsInEveryMode() throws {
        let characters = Spans.characters
        try check(SearchQuery("北京大学"), .all([.string("北京大学")]), #"("北京大学")"#, spans: characters)
        try check(SearchQuery("北京大学", mode: .anyTerm),
                  .any(["北京", "京大", "大学", "北", "京", "大", "学"].map { .string($0) }),
                  #"("北京" OR "京大" OR "大学" OR "北" OR "京" OR "大" OR "学")"#, spans: characters)
        try check(SearchQuery("北京 大学", mode: .phrase), .all([.string("北京 大学")]), #"("北京 大学")"#, spans: characters)
        try check(SearchQuery("北京 大学", mode: .prefix), .all([.string("北京"), .prefix("大学")]), #"("北京" "大学"*)"#,
                  spans: characters)
        try check(SearchQuery.near("北京 大学"), .near(["北京", "大学"], distance: 10), #"(NEAR("北京" "大学", 10))"#,
                  spans: characters)
        // Tokenizers that keep the run whole get it whole in .anyTerm too.
        try check(SearchQuery("北京大学", mode: .anyTerm), .any([.string("北京大学")]), #"("北京大学")"#, spans: Spans.words)
        try check(SearchQuery("北京大学", mode: .anyTerm), .any([.string("北京大学")]), #"("北京大学")"#, spans: Spans.trigrams)
    }

    func testNothingSearchableIsNil() throws {
        for mode in [SearchQuery.Mode.allTerms, .anyTerm, .phrase, .prefix] {
            try check(SearchQuery("", mode: mode), nil, nil)
            try check(SearchQuery("!!! ... ,;", mode: mode, columns: ["title"], excluding: "fox"), nil, nil)
        }
        try check(SearchQuery.near(" \t"), nil, nil)
        // An exclusion with nothing searchable in it is left out.
        try check(SearchQuery("fox", excluding: "..."), .all([.string("fox")]), #"("fox")"#)
    }

    func testTypedTextOnlyFillsStrings() throws {
        let spaces = Spans.spaceSeparated
        try check(SearchQuery(#"a"b OR c"#), .all([.string(#"a"b"#), .string("OR"), .string("c")]), #"("a""b" "OR" "c")"#,
                  spans: spaces)
        try check(SearchQuery(#"a"b OR c"#, mode: .anyTerm), .any([.string(#"a"b"#), .string("OR"), .string("c")]),
                  #"("a""b" OR "OR" OR "c")"#, spans: spaces)
        // A quote followed by a combining mark is one Character; its quote is still doubled.
        try check(SearchQuery("x\"\u{301}y"), .all([.string("x\"\u{301}y")]), "(\"x\"\"\u{301}y\")", spans: spaces)
        try check(SearchQuery("x\"\u{301}y", mode: .prefix), .all([.prefix("x\"\u{301}y")]), "(\"x\"\"\u{301}y\"*)", spans: spaces)
        try check(SearchQuery("fox", excluding: "\"\u{301}) OR (body:secret"),
                  .excluding(.all([.string("fox")]), .any([.string("\"\u{301})"), .string("OR"), .string("(body:secret")])),
                  "(\"fox\") NOT (\"\"\"\u{301})\" OR \"OR\" OR \"(body:secret\")", spans: spaces)
        try check(SearchQuery("fox", columns: [#"ti"tle"#]), .columns([#"ti"tle"#], .all([.string("fox")])),
                  #"{"ti""tle"} : ("fox")"#)
    }

    func testAdvancedIsPassedThroughUntokenized() throws {
        let text = "title : (sift OR sqlite) NOT lucene"
        try check(SearchQuery.advanced(text), .trusted(text), text, spans: { _ in
            XCTFail("an advanced query is not tokenized")
            return []
        })
    }

    func testTokenizerErrorsPropagate() {
        struct Refused: Error {}
        XCTAssertThrowsError(try SearchQuery("fox").tree(spans: { _ in throw Refused() })) { XCTAssertTrue($0 is Refused) }
        XCTAssertThrowsError(try SearchQuery.near("fox").expression(spans: { _ in throw Refused() })) { XCTAssertTrue($0 is Refused) }
        // The exclusion goes through the tokenizer too.
        XCTAssertThrowsError(try SearchQuery("fox", excluding: "dog").tree(spans: { text in
            if text == "dog" { throw Refused() }
            return Spans.words(text)
        })) { XCTAssertTrue($0 is Refused) }
    }
}
