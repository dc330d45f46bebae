import SiftEvaluation
import XCTest

final class LineReaderTests: TemporaryFilesTestCase {
    private func lines(_ bytes: [UInt8], chunkSize: Int = LineReader.defaultChunkSize,
                       maxLineLength: Int = LineReader.defaultMaxLineLength,
                       policy: MalformedLinePolicy = .strict) throws -> [String] {
        let reader = try LineReader(url: try file("input.txt", bytes: bytes), policy: policy,
                                    chunkSize: chunkSize, maxLineLength: maxLineLength)
        var result: [String] = []
        while let (number, text) = try reader.nextLine() {
            result.append("\(number):\(text)")
        }
        return result
    }

    func testLineEndingsAndMissingFinalNewline() throws {
        XCTAssertEqual(try lines(Array("a\r\nb\nc".utf8)), ["1:a", "2:b", "3:c"])
        XCTAssertEqual(try lines(Array("a\n\n".utf8)), ["1:a", "2:"])
        XCTAssertEqual(try lines(Array("\r\n".utf8)), ["1:"])
        XCTAssertEqual(try lines([]), [])
        // Only a \r right before \n is a line ending; one inside a line is content.
        XCTAssertEqual(try lines(Array("a\rb\n".utf8)), ["1:a\rb"])
    }

    func testByteOrderMarkIsDroppedFromFirstLineOnly() throws {
        XCTAssertEqual(try lines([0xEF, 0xBB, 0xBF] + Array("x\r\ny".utf8)), ["1:x", "2:y"])
        XCTAssertEqual(try lines([0xEF, 0xBB, 0xBF]), ["1:"])
    }

    /// Tiny chunks put every line ending, CRLF pair and multi-byte character across a chunk boundary.
    func testChunkBoundariesDoNotMatter() throws {
        let text = "é日本\r\n😀 x\n\r\nlast line ü"
        let expected = ["1:é日本", "2:😀 x", "3:", "4:last line ü"]
        for chunkSize in 1...9 {
            XCTAssertEqual(try lines(Array(text.utf8), chunkSize: chunkSize), expected, "chunk size \(chunkSize)")
        }
    }

    /// A source handing over fewer bytes than asked splits lines anywhere; what it throws reaches the caller,
    /// after the lines it completed.
    func testLinesFromASourceAndItsError() throws {
        struct SourceFailed: Error {}
        var remaining = Array("é日本\r\nsecond\nthird, cut".utf8)[...]
        let reader = LineReader(path: "source.txt") { count in
            guard !remaining.isEmpty else { throw SourceFailed() }
            let chunk = remaining.prefix(min(count, 3))
            remaining = remaining.dropFirst(chunk.count)
            return Data(chunk)
        }
        var read: [String] = []
        XCTAssertThrowsError(try { while let (_, text) = try reader.nextLine() { read.append(text) } }()) { error in
            XCTAssertTrue(error is SourceFailed, "\(error)")
        }
        XCTAssertEqual(read, ["é日本", "second"], "the unfinished last line is not returned")
    }

    func testInvalidUTF8IsATypedErrorWithItsLineNumber() throws {
        let bytes = Array("ok\n".utf8) + [0x61, 0xFF, 0x62] + Array("\nfine".utf8)
        var read: [String] = []
        let reader = try LineReader(url: try file("bad.txt", bytes: bytes))
        XCTAssertThrowsError(try { while let (_, text) = try reader.nextLine() { read.append(text) } }()) { error in
            XCTAssertEqual(error as? InputError, InputError(.invalidUTF8, line: 2, path: reader.url.path))
        }
        XCTAssertEqual(read, ["ok"])

        var skipped: [InputError] = []
        XCTAssertEqual(try lines(bytes, policy: .skip { skipped.append($0) }), ["1:ok", "3:fine"])
        XCTAssertEqual(skipped.map(\.line), [2])
        XCTAssertEqual(skipped.map(\.kind), [.invalidUTF8])
    }

    /// Every ill-formed case of Unicode table 3-7, including ones `String(decoding:)` would paper over.
    func testRejectsEveryKindOfIllFormedSequence() throws {
        let bad: [[UInt8]] = [
            [0x80],                    // lone continuation byte
            [0xC0, 0xAF],              // overlong "/"
            [0xC1, 0xBF],              // overlong
            [0xE0, 0x80, 0xAF],        // overlong 3-byte
            [0xED, 0xA0, 0x80],        // UTF-16 surrogate D800
            [0xF0, 0x80, 0x80, 0xAF],  // overlong 4-byte
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xF5, 0x80, 0x80, 0x80],  // invalid lead byte
            [0xE2, 0x82],              // truncated at end of line
            [0xE2, 0x82, 0x41],        // truncated by ASCII
        ]
        for sequence in bad {
            var skipped: [Int] = []
            let result = try lines(Array("12345678".utf8) + sequence + Array("\nok".utf8),
                                   policy: .skip { skipped.append($0.line) })
            XCTAssertEqual(result, ["2:ok"], "\(sequence)")
            XCTAssertEqual(skipped, [1], "\(sequence)")
        }
        let good = "A é ߿ ࠀ 日 \u{FFFD} 𐀀 😀 \u{10FFFF}"
        XCTAssertEqual(try lines(Array(good.utf8)), ["1:" + good])
    }

    func testOverlongLinesAreRejectedWithoutBufferingThem() throws {
        let text = Array("abc\nabcdefghij\nxy\nabcdefghijkl".utf8)
        for chunkSize in [2, 3, 64] {
            var skipped: [InputError] = []
            XCTAssertEqual(try lines(text, chunkSize: chunkSize, maxLineLength: 4, policy: .skip { skipped.append($0) }),
                           ["1:abc", "3:xy"], "chunk size \(chunkSize)")
            XCTAssertEqual(skipped.map(\.line), [2, 4], "chunk size \(chunkSize)")
            XCTAssertEqual(skipped.first?.kind, .lineTooLong(limit: 4))
            XCTAssertThrowsError(try lines(text, chunkSize: chunkSize, maxLineLength: 4)) { error in
                XCTAssertEqual((error as? InputError)?.line, 2)
            }
        }
        // Exactly at the limit is fine; a CRLF does not count towards it.
        XCTAssertEqual(try lines(Array("abcd\r\nab".utf8), chunkSize: 2, maxLineLength: 4), ["1:abcd", "2:ab"])
    }
}
