import Foundation
import XCTest
@testable import Sift
import SiftICU
import SiftICUCore

/// The query builder and the sift_icu tokenizer share one CJK table (SiftText): the builder joins touching CJK
/// tokens into runs exactly where the tokenizer cut them.
final class CJKTableTests: XCTestCase {
    var directory: URL!
    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-cjk-\(UUID().uuidString)")
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    /// Every code point, doubled, through the C tokenizer: each token it reports as part of a CJK run (its own
    /// SIFT_ICU_TOKEN_CJK flag) begins with a character the query builder counts as CJK, and no other does.
    func testQueryBuilderAndTokenizerAgreeOnEveryCodePoint() throws {
        var tokenizer: OpaquePointer?
        XCTAssertEqual(sift_icu_tokenizer_create(nil, 0, &tokenizer, nil, 0), SIFT_ICU_OK)
        defer { sift_icu_tokenizer_destroy(tokenizer) }
        var tokens: [(flags: Int32, start: Int32)] = []
        var disagreements: [String] = []
        var cjkTokens = 0, otherTokens = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }  // surrogates
            let text = Array(String(repeating: String(scalar), count: 2).utf8)
            tokens.removeAll(keepingCapacity: true)
            let rc = text.withUnsafeBufferPointer { bytes in
                withUnsafeMutablePointer(to: &tokens) { context in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        sift_icu_tokenize(tokenizer, SIFT_ICU_TOKENIZE_QUERY, chars.baseAddress, Int32(chars.count), context) {
                            context, flags, _, _, start, _ in
                            context!.assumingMemoryBound(to: [(flags: Int32, start: Int32)].self).pointee.append((flags, start))
                            return SIFT_ICU_OK
                        }
                    }
                }
            }
            XCTAssertEqual(rc, SIFT_ICU_OK)
            for token in tokens where token.flags & SIFT_ICU_TOKEN_SEPARATOR == 0 {
                var iterator = text[Int(token.start)...].makeIterator()
                var decoder = UTF8()
                guard case .scalarValue(let first) = decoder.decode(&iterator) else { continue }
                let tokenizerSays = token.flags & SIFT_ICU_TOKEN_CJK != 0
                if tokenizerSays { cjkTokens += 1 } else { otherTokens += 1 }
                if SearchQuery.isCJK(first) != tokenizerSays && disagreements.count < 20 {
                    disagreements.append(String(format: "U+%04X: tokenizer %@, query builder %@", first.value,
                                                tokenizerSays ? "CJK" : "not CJK", SearchQuery.isCJK(first) ? "CJK" : "not CJK"))
                }
            }
        }
        XCTAssertEqual(disagreements, [])
        XCTAssertGreaterThan(cjkTokens, 150_000, "Han, kana and Hangul tokens seen")
        XCTAssertGreaterThan(otherTokens, 30_000, "tokens of other scripts seen")
        print("CJK table: \(cjkTokens) CJK tokens, \(otherTokens) others")
    }

    /// Code points the two tables used to disagree on: the query builder now keeps each string one run (one
    /// quoted phrase of the tokenizer's characters), so it finds the text written together and only that.
    func testFormerlyDisagreeingCodePointsFormOneRun() throws {
        let database = Database(withPath: directory.appendingPathComponent("cjk.db").path)
        database.registerICUTokenizer()
        try database.exec(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='sift_icu')")
        let samples: [(query: String, together: String, apart: String)] = [
            ("二○○○年", "生于二○○○年春天", "二，○○，○年"),    // U+25CB, written for zero
            ("〡〢〣", "码子〡〢〣记账", "〡 〢 〣"),              // U+3021... Hangzhou numerals
            ("くゝ〱", "くゝ〱と", "くゝ。〱"),                  // U+3031 vertical kana repeat mark
            ("ﾡﾤ", "ﾡﾤ입니다", "ﾡ ﾤ"),                          // U+FFA1, U+FFA4 halfwidth Hangul
            ("𛀁𛀂", "古い𛀁𛀂の字", "𛀁、𛀂"),                    // U+1B001, U+1B002 kana supplement
        ]
        for (id, sample) in samples.enumerated() {
            try database.exec(sql: "INSERT INTO docs(rowid, body) VALUES(?, ?), (?, ?)",
                              values: [2 * id + 1, sample.together, 2 * id + 2, sample.apart])
        }
        for (id, sample) in samples.enumerated() {
            let characters = sample.query.unicodeScalars.map { String($0) }
            XCTAssertEqual(try database.tokenize(sample.query, with: ["sift_icu"], reason: .query).count, characters.count,
                           "\(sample.query): one token per character")
            XCTAssertEqual(try database.expression(for: SearchQuery(sample.query), in: "docs"), "(\"\(sample.query)\")",
                           "one run, as the tokenizer indexed it")
            let pairs = zip(characters, characters.dropFirst()).map { "\"\($0)\($1)\"" }
            var seen = Set<String>()
            let pieces = (pairs + characters.map { "\"\($0)\"" }).filter { seen.insert($0).inserted }
            XCTAssertEqual(try database.expression(for: SearchQuery(sample.query, mode: .anyTerm), in: "docs"),
                           "(" + pieces.joined(separator: " OR ") + ")")
            let hits = try database.getRows(sql: "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rowid",
                                             values: [try XCTUnwrap(database.expression(for: SearchQuery(sample.query), in: "docs"))])
                .map { $0[0].int64Value }
            XCTAssertEqual(hits, [Int64(2 * id + 1)], "\(sample.query): the text written together, not apart")
        }
    }
}
