import Foundation
import XCTest
@testable import Sift

/// Identifiers, quoted strings and literals as `SQLBuilder` writes them.
final class SQLBuilderTests: XCTestCase {
    func testPlainIdentifiersStayBareAndEverythingElseIsQuoted() {
        for plain in ["plain_name1", "_x", "Title", "t1"] {
            XCTAssertEqual(SQLBuilder.quote(plain), plain)
        }
        let quoted = ["select": #""select""#, "SELECT": #""SELECT""#, "Order": #""Order""#, "offset": #""offset""#,
                      "set": #""set""#, "table": #""table""#, "1abc": #""1abc""#, "a b": #""a b""#, "a-b": #""a-b""#,
                      "héllo": #""héllo""#, "": #""""#, "t; DROP TABLE x": #""t; DROP TABLE x""#]
        for (name, sql) in quoted {
            assertSameBytes(SQLBuilder.quote(name), sql)
        }
    }

    func testQuotesInsideIdentifiersAreDoubledByteByByte() {
        assertSameBytes(SQLBuilder.quote(#"a"b"#), #""a""b""#)
        assertSameBytes(SQLBuilder.quote(#"""#), #""""""#)
        assertSameBytes(SQLBuilder.quote("a\"\u{301}b"), "\"a\"\"\u{301}b\"")
        assertSameBytes(SQLBuilder.quote("a'b"), #""a'b""#)
        assertSameBytes(SQLBuilder.quote("a\u{0}b"), #""ab""#)
    }

    func testEncloseDoublesOnlyItsMarkAndDropsNUL() {
        let single = UInt8(ascii: "'"), double = UInt8(ascii: "\"")
        assertSameBytes(SQLBuilder.enclose("it's", in: single), "'it''s'")
        assertSameBytes(SQLBuilder.enclose(#"say "hi""#, in: single), #"'say "hi"'"#)
        assertSameBytes(SQLBuilder.enclose(#"say "hi""#, in: double), #""say ""hi""""#)
        assertSameBytes(SQLBuilder.enclose("''", in: single), "''''''")
        assertSameBytes(SQLBuilder.enclose("", in: single), "''")
        assertSameBytes(SQLBuilder.enclose("'\u{301}", in: single), "'''\u{301}'")
        assertSameBytes(SQLBuilder.enclose("e\u{301}'\u{301}\u{302}x", in: single), "'e\u{301}''\u{301}\u{302}x'")
        assertSameBytes(SQLBuilder.enclose("a\u{0}'\u{0}b", in: single), "'a''b'")
        assertSameBytes(SQLBuilder.enclose("\u{0}", in: double), #""""#)
        assertSameBytes(SQLBuilder.enclose("🙂'世界", in: single), "'🙂''世界'")
    }

    func testLiterals() {
        XCTAssertEqual(SQLBuilder.literal(.null), "NULL")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(0)), "0")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(-42)), "-42")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(Int64.max)), "9223372036854775807")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(Int64.min)), "-9223372036854775808")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(2.25)), "2.25")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(-0.5)), "-0.5")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(1.0)), "1.0")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(1e300)), "1e+300")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(Double.nan)), "NULL")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(Double.infinity)), "1e999")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(-Double.infinity)), "-1e999")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue("it's")), "'it''s'")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue("")), "''")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(#"a"b"#)), #"'a"b'"#)
        assertSameBytes(SQLBuilder.literal(FundamentalValue("'\u{301}")), "'''\u{301}'")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(Data([0x00, 0x0F, 0xAB, 0xFF]))), "X'000FABFF'")
        XCTAssertEqual(SQLBuilder.literal(FundamentalValue(Data())), "X''")
    }
}
