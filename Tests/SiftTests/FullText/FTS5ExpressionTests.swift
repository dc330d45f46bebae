import XCTest
@testable import Sift

/// `FTS5Expression.rendered`: the tree's operators, and text only ever inside FTS5 strings.
final class FTS5ExpressionTests: XCTestCase {
    private let a = FTS5Expression.string("a"), b = FTS5Expression.string("b"), c = FTS5Expression.string("c")

    private func check(_ expression: FTS5Expression, _ rendered: String, file: StaticString = #filePath, line: UInt = #line) {
        assertSameBytes(expression.rendered, rendered, file: file, line: line)
    }

    func testEachCaseRenders() {
        check(.string("fox"), #""fox""#)
        check(.prefix("fo"), #""fo"*"#)
        check(.all([a]), #"("a")"#)
        check(.all([a, b]), #"("a" "b")"#)
        check(.any([a, b]), #"("a" OR "b")"#)
        check(.excluding(a, b), #""a" NOT "b""#)
        check(.near(["a", "b"], distance: 4), #"(NEAR("a" "b", 4))"#)
        check(.near(["a"], distance: -2), #"(NEAR("a", 0))"#)
        check(.columns(["title"], a), #"{"title"} : "a""#)
        check(.columns(["title", "body"], .prefix("a")), #"{"title" "body"} : "a"*"#)
        check(.trusted("title : (a OR b)"), "title : (a OR b)")
    }

    func testOperandsThatAreNotStringsAreParenthesized() {
        // FTS5 takes juxtaposed phrases as AND, but a parenthesized group needs the word (`("a" OR "b") "c"` is a
        // syntax error).
        check(.all([.any([a, b]), .prefix("c")]), #"(("a" OR "b") AND "c"*)"#)
        check(.any([.all([a, b]), .near(["c", "d"], distance: 1)]), #"(("a" "b") OR (NEAR("c" "d", 1)))"#)
        check(.any([.excluding(a, b), c]), #"(("a" NOT "b") OR "c")"#)
        check(.excluding(.all([a]), .any([b, c])), #"("a") NOT ("b" OR "c")"#)
        check(.excluding(.columns(["t"], .all([a])), .any([b])), #"({"t"} : ("a")) NOT ("b")"#)
        check(.columns(["t"], .excluding(a, b)), #"{"t"} : ("a" NOT "b")"#)
        check(.columns(["t"], .columns(["u"], a)), #"{"t"} : ({"u"} : "a")"#)
        check(.all([.trusted("x OR y"), c]), #"((x OR y) AND "c")"#)
        check(.excluding(.trusted("x"), .trusted("y OR z")), "(x) NOT (y OR z)")
    }

    func testQuotesAreDoubledByteByByteAndNULDropped() {
        check(.string(#"say "hi""#), #""say ""hi""""#)
        check(.string("\""), #""""""#)
        check(.string(""), #""""#)
        // A quote followed by a combining mark is one Character that is not equal to a quote.
        check(.string("a\"\u{301}b"), "\"a\"\"\u{301}b\"")
        check(.string("a\u{0}b"), #""ab""#)
        check(.string("\u{0}\u{301}"), "\"\u{301}\"")
        check(.prefix(#"x""#), #""x"""*"#)
        check(.near([#"a""#, "\"\u{301}"], distance: 1), "(NEAR(\"a\"\"\" \"\"\"\u{301}\", 1))")
        check(.columns([#"ti"tle"#, "b\u{0}ody"], a), #"{"ti""tle" "body"} : "a""#)
        // Trusted syntax is the caller's, as written.
        check(.trusted(#"a "b"#), #"a "b"#)
    }
}
