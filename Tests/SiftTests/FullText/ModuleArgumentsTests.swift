import Foundation
import XCTest
@testable import Sift

/// `ModuleArguments`: reading `CREATE VIRTUAL TABLE ... USING fts5(...)` with FTS5's quoting rules.
final class ModuleArgumentsTests: XCTestCase {
    /// One argument as FTS5 reads it: a column declaration's words, or an option's key and unquoted value.
    private enum Argument: Equatable {
        case column([String])
        case option(String, String)
    }

    private func arguments(_ sql: String) -> [Argument] {
        ModuleArguments.split(ModuleArguments.body(of: sql)).map { argument in
            guard let option = sides(argument) else { return .column(ModuleArguments.words(argument)) }
            return .option(option.key.trimmingCharacters(in: .whitespaces),
                           ModuleArguments.unquote(option.value.trimmingCharacters(in: .whitespaces)))
        }
    }

    /// The text before and after an argument's top-level `=`.
    private func sides(_ argument: Substring) -> (key: String, value: String)? {
        guard let eq = ModuleArguments.topLevelEquals(argument) else { return nil }
        return (String(argument[..<eq]), String(argument[argument.unicodeScalars.index(after: eq)...]))
    }

    private func bytes<S: StringProtocol>(_ texts: [S]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    func testRepresentativeStatements() {
        XCTAssertEqual(arguments("CREATE VIRTUAL TABLE articles_fts USING fts5(title, body, content='articles', "
                                 + "content_rowid='id', tokenize = 'unicode61 remove_diacritics 2')"),
                       [.column(["title"]), .column(["body"]), .option("content", "articles"), .option("content_rowid", "id"),
                        .option("tokenize", "unicode61 remove_diacritics 2")])
        XCTAssertEqual(arguments(#"CREATE VIRTUAL TABLE IF NOT EXISTS notes USING fts5(text, tag UNINDEXED, "#
                                 + #"tokenize="porter unicode61", prefix='2 3')"#),
                       [.column(["text"]), .column(["tag", "UNINDEXED"]), .option("tokenize", "porter unicode61"), .option("prefix", "2 3")])
        XCTAssertEqual(arguments("CREATE VIRTUAL TABLE \"my docs\" USING fts5([the title], `the body` UNINDEXED, \"say \"\"hi\"\"\", "
                                 + "tokenize='sift_icu cjk words', content=\"x\")"),
                       [.column(["the title"]), .column(["the body", "UNINDEXED"]), .column([#"say "hi""#]),
                        .option("tokenize", "sift_icu cjk words"), .option("content", "x")])
        // Commas and parentheses inside quotes belong to the quoted text.
        XCTAssertEqual(arguments("CREATE VIRTUAL TABLE t USING fts5(a, tokenize = 'unicode61 separators '',.()''', b)"),
                       [.column(["a"]), .option("tokenize", "unicode61 separators ',.()'"), .column(["b"])])
        // A quote followed by a combining mark is one Character, and still a quote.
        XCTAssertEqual(arguments("CREATE VIRTUAL TABLE t USING fts5(\"a\"\"\u{301}b\", tokenize='unicode61 tokenchars ''\u{301}''')"),
                       [.column(["a\"\u{301}b"]), .option("tokenize", "unicode61 tokenchars '\u{301}'")])
    }

    func testBodyIsTheTextBetweenTheOuterParentheses() {
        XCTAssertEqual(ModuleArguments.body(of: "CREATE VIRTUAL TABLE notes USING fts5(text, tag UNINDEXED, prefix='2 3')"),
                       "text, tag UNINDEXED, prefix='2 3'")
        XCTAssertEqual(ModuleArguments.body(of: "CREATE VIRTUAL TABLE t USING fts5(a, tokenize = 'unicode61 separators ''()''')"),
                       "a, tokenize = 'unicode61 separators ''()'''")
        XCTAssertEqual(ModuleArguments.body(of: "CREATE VIRTUAL TABLE t USING fts5()"), "")
        XCTAssertEqual(ModuleArguments.body(of: "no parentheses"), "")
        XCTAssertEqual(ModuleArguments.body(of: ") backwards ("), "")
    }

    func testSplitOnTopLevelCommasOnly() {
        XCTAssertEqual(ModuleArguments.split("title, body, content='articles', tokenize = 'unicode61 remove_diacritics 2'"),
                       ["title", "body", "content='articles'", "tokenize = 'unicode61 remove_diacritics 2'"])
        XCTAssertEqual(ModuleArguments.split(#"a, tokenize="unicode61 tokenchars ',-'", b"#),
                       ["a", #"tokenize="unicode61 tokenchars ',-'""#, "b"])
        XCTAssertEqual(ModuleArguments.split("'a,b', [c,d], `e,f`, \"g,h\""), ["'a,b'", "[c,d]", "`e,f`", "\"g,h\""])
        XCTAssertEqual(ModuleArguments.split("'it''s, fine', x"), ["'it''s, fine'", "x"])
        XCTAssertEqual(ModuleArguments.split("[it's, fine], x"), ["[it's, fine]", "x"])
        XCTAssertEqual(ModuleArguments.split(" a ,\n b,, \t"), ["a", "b"])
        XCTAssertEqual(bytes(ModuleArguments.split("\"x,\"\u{301}, y")), bytes(["\"x,\"\u{301}", "y"]))
    }

    func testTopLevelEqualsSeparatesKeyFromValue() {
        XCTAssertEqual(sides("tokenize = 'unicode61 remove_diacritics 2'")?.key, "tokenize ")
        XCTAssertEqual(sides("tokenize = 'unicode61 remove_diacritics 2'")?.value, " 'unicode61 remove_diacritics 2'")
        XCTAssertEqual(sides("content_rowid='id'")?.key, "content_rowid")
        XCTAssertEqual(sides("tokenize='x=y'")?.value, "'x=y'")
        for quoted in ["tag UNINDEXED", "'a=b'", "\"a=b\"", "`a=b`", "[a=b]", "'a''=b'"] {
            XCTAssertNil(ModuleArguments.topLevelEquals(quoted[...]), quoted)
        }
        let marked = sides("\"k=\"\"\u{301}\" = v")
        assertSameBytes(marked?.key, "\"k=\"\"\u{301}\" ")
        assertSameBytes(marked?.value, " v")
    }

    func testUnquoteRemovesOneLevelOfQuoting() {
        XCTAssertEqual(ModuleArguments.unquote("'articles'"), "articles")
        XCTAssertEqual(ModuleArguments.unquote(#""porter unicode61""#), "porter unicode61")
        XCTAssertEqual(ModuleArguments.unquote("`my col`"), "my col")
        XCTAssertEqual(ModuleArguments.unquote("[my col]"), "my col")
        XCTAssertEqual(ModuleArguments.unquote("'it''s'"), "it's")
        XCTAssertEqual(ModuleArguments.unquote("'a''''b'"), "a''b")
        XCTAssertEqual(ModuleArguments.unquote(#""say ""hi""""#), #"say "hi""#)
        XCTAssertEqual(ModuleArguments.unquote("`a``b`"), "a`b")
        XCTAssertEqual(ModuleArguments.unquote("[a''b]"), "a''b")
        XCTAssertEqual(ModuleArguments.unquote("''"), "")
        assertSameBytes(ModuleArguments.unquote("'it''\u{301}s'"), "it'\u{301}s")
        for unquoted in ["plain", "'", "'unterminated", "'mismatched\"", "unicode61 remove_diacritics 2"] {
            XCTAssertEqual(ModuleArguments.unquote(unquoted), unquoted)
        }
    }

    func testWordsAreBarewordsAndQuotedStrings() {
        XCTAssertEqual(ModuleArguments.words("unicode61 remove_diacritics 2"), ["unicode61", "remove_diacritics", "2"])
        XCTAssertEqual(ModuleArguments.words("porter unicode61"), ["porter", "unicode61"])
        XCTAssertEqual(ModuleArguments.words("sift_icu cjk words"), ["sift_icu", "cjk", "words"])
        XCTAssertEqual(ModuleArguments.words("tag UNINDEXED"), ["tag", "UNINDEXED"])
        XCTAssertEqual(ModuleArguments.words("  a\tb\nc  "), ["a", "b", "c"])
        XCTAssertEqual(ModuleArguments.words("unicode61 tokenchars ',-'"), ["unicode61", "tokenchars", ",-"])
        XCTAssertEqual(ModuleArguments.words("unicode61 separators ',.()'"), ["unicode61", "separators", ",.()"])
        XCTAssertEqual(ModuleArguments.words(#""my col" UNINDEXED"#), ["my col", "UNINDEXED"])
        XCTAssertEqual(ModuleArguments.words("[my col] `other col`"), ["my col", "other col"])
        XCTAssertEqual(ModuleArguments.words(#"'it''s' "say ""hi""""#), ["it's", #"say "hi""#])
        XCTAssertEqual(ModuleArguments.words("[a''b]"), ["a''b"])
        XCTAssertEqual(ModuleArguments.words(""), [])
        XCTAssertEqual(bytes(ModuleArguments.words("\"a\"\"\u{301}b\" c")), bytes(["a\"\u{301}b", "c"]))
        XCTAssertEqual(bytes(ModuleArguments.words("unicode61 tokenchars '\u{301}'")), bytes(["unicode61", "tokenchars", "\u{301}"]))
    }
}
