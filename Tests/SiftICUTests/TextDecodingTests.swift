import Foundation
import SiftICU
import XCTest

final class TextDecodingTests: XCTestCase {
    static let german = """
        Die Straßenbahn fährt über die Brücke, während die Kinder im Park spielen und die Vögel singen. \
        Im Frühling blühen überall Blumen, und viele Leute trinken draußen einen Kaffee mit süßem Kuchen. \
        Große Städte wie München und Köln sind bei Touristen aus aller Welt sehr beliebt.
        """

    func testDetectsAndConvertsLatin1() throws {
        let bytes = try XCTUnwrap(Self.german.data(using: .isoLatin1))
        let detected = try XCTUnwrap(TextDecoding.detectCharset(bytes))
        XCTAssertTrue(["ISO-8859-1", "windows-1252"].contains(detected.charset), detected.charset)
        XCTAssertGreaterThanOrEqual(detected.confidence, TextDecoding.defaultMinimumConfidence)
        let decoded = try XCTUnwrap(TextDecoding.decode(bytes))
        XCTAssertEqual(decoded.text, Self.german)
        XCTAssertEqual(decoded.charset, detected.charset)
    }

    func testALongASCIIPreambleDoesNotHideTheCharset() throws {
        let text = String(repeating: "An ASCII licence header line, the same in every charset.\n", count: 3000) + Self.german
        let decoded = try XCTUnwrap(TextDecoding.decode(try XCTUnwrap(text.data(using: .isoLatin1))))
        XCTAssertEqual(decoded.text, text)
        XCTAssertTrue(["ISO-8859-1", "windows-1252"].contains(decoded.charset), decoded.charset)
    }

    func testShiftJIS() throws {
        let text = "日本語の文章です。東京と大阪は大きな都市で、毎日たくさんの人が新幹線で移動しています。京都には古いお寺がたくさんあります。"
        let decoded = try XCTUnwrap(TextDecoding.decode(try XCTUnwrap(text.data(using: .shiftJIS))))
        XCTAssertEqual(decoded.charset, "Shift_JIS")
        XCTAssertEqual(decoded.text, text)
    }

    func testDeclaredCharset() throws {
        // 0xA4 is the euro sign in ISO-8859-15 and the currency sign in ISO-8859-1.
        let bytes = Data("Prix : 25 ".utf8) + Data([0xA4])
        XCTAssertEqual(TextDecoding.decode(bytes, declared: "ISO-8859-15"),
                       TextDecoding.Decoded(text: "Prix : 25 €", charset: "ISO-8859-15", confidence: 100))
        // Latin-1 and ASCII labels mean windows-1252, as in browsers: 0x93/0x94 are curly quotes there.
        let quoted = Data([0x93]) + Data("bien".utf8) + Data([0x94])
        XCTAssertEqual(TextDecoding.decode(quoted, declared: "latin1")?.text, "\u{201C}bien\u{201D}")
        XCTAssertEqual(TextDecoding.decode(quoted, declared: "iso-8859-1")?.charset, "windows-1252")
        // A declaration that more than 2% of the bytes contradict (here, invalid in EUC-JP) is ignored.
        let latin1 = try XCTUnwrap(Self.german.data(using: .isoLatin1))
        let decoded = try XCTUnwrap(TextDecoding.decode(latin1, declared: "EUC-JP"))
        XCTAssertEqual(decoded.text, Self.german)
        XCTAssertNotEqual(decoded.charset, "EUC-JP")
        // So is an unknown one, and UTF-8 (the bytes are not UTF-8).
        XCTAssertEqual(TextDecoding.decode(latin1, declared: "no-such-charset")?.text, Self.german)
        XCTAssertEqual(TextDecoding.decode(latin1, declared: "utf-8")?.text, Self.german)
        XCTAssertEqual(TextDecoding.decode(latin1, declared: "UTF-16")?.text, Self.german)
    }

    func testConvertCountsSubstitutions() throws {
        let converted = try XCTUnwrap(TextDecoding.convert(Data([0x41, 0xFF, 0x42, 0xC3]), from: "UTF-8"))
        XCTAssertEqual(converted.substitutions, 2, "an invalid byte and a truncated sequence")
        XCTAssertEqual(converted.text, "A\u{FFFD}B\u{FFFD}")
        XCTAssertEqual(TextDecoding.convert(Data([0x82, 0xA0, 0x81, 0x42]), from: "sjis")?.text, "あ。")
        XCTAssertEqual(TextDecoding.convert(Data("abc".utf8), from: "koi8-r")?.text, "abc")
        XCTAssertNil(TextDecoding.convert(Data("abc".utf8), from: "no-such-charset"))
        XCTAssertEqual(TextDecoding.convert(Data(), from: "UTF-16")?.text, "")
    }
}
