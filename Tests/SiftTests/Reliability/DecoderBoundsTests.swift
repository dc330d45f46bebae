import CSQLite
import Foundation
import SiftRank
import SiftSnippet
import XCTest

/// SiftRank's and SiftSnippet's C code on crafted input: stored rowids, block offsets, counts and collector sizes
/// a damaged or hostile file can hold, and token offsets a faulty tokenizer can report. Each read stays inside
/// its buffer (under `make asan` AddressSanitizer checks that too).
final class DecoderBoundsTests: XCTestCase {
    /// 2^62 - 1: a valid rowid whose block offset (block * 4 bytes, blocks of one rowid) wraps around 2^64 to -4.
    static let wrappingRowid: Int64 = (1 << 62) - 1

    // MARK: - Block offsets

    /// The postings evaluator bounds a row with its block's shortest column sizes; a block index past the term's
    /// blocks is compared with their number before it is multiplied, so it reads no byte before the blocks.
    func testPostingsOfAHugeRowidReadNoBlockBeforeTheImpacts() throws {
        let connection = try MemoryConnection()
        try connection.exec("CREATE TABLE docsize(id INTEGER PRIMARY KEY, sz BLOB); INSERT INTO docsize VALUES (\(Self.wrappingRowid), x'01')")
        let collector = Collector(capacity: 1, kth: 0.01, watermark: 0)
        let postings = leb128(UInt64(Self.wrappingRowid)) + [1]  // the distance, then the count in four bits
        let rc = try connection.evaluate(postings, into: collector)
        XCTAssertEqual(rc, SQLITE_OK)
        // With the shortest size read from the bytes before the blocks (65535 tokens) the row's bound (~2e-5) is
        // below the k-th score and the row is never scored; with no block, one token: bound 1/2.2, scored.
        XCTAssertEqual(collector.top.pointee.scored, 1)
        XCTAssertEqual(collector.top.pointee.rowids[0], Self.wrappingRowid)
    }

    /// The same for sift_topk(), whose block index comes from a rowid at most the stored watermark.
    func testTopKOfAHugeRowidReadsNoBlockBeforeTheImpacts() throws {
        let connection = try MemoryConnection()
        try connection.exec("CREATE VIRTUAL TABLE t USING fts5(x); INSERT INTO t(rowid, x) VALUES (\(Self.wrappingRowid), 'alpha')")
        let collector = Collector(capacity: 1, kth: 0.01, watermark: .max)
        XCTAssertEqual(try connection.topK(into: collector), 1)
        // Bound with one token: ln(4/3) / 2.2 = 0.13 > 0.01, scored; with 65535 tokens ~5e-6, skipped.
        XCTAssertEqual(collector.top.pointee.scored, 1)
        XCTAssertEqual(collector.top.pointee.rowids[0], Self.wrappingRowid)
    }

    // MARK: - Collectors of no rows

    /// A collector asked for 0 hits has no k-th score: the evaluator reads no `scores[-1]` (here a very low
    /// number placed before the scores, which would make it score the row) and only counts the rows.
    func testPostingsIntoACollectorOfNoRowsReadNoScore() throws {
        let connection = try MemoryConnection()
        try connection.exec("CREATE TABLE docsize(id INTEGER PRIMARY KEY, sz BLOB); INSERT INTO docsize VALUES (7, x'01')")
        let collector = Collector(capacity: 0, kth: nil, watermark: 0)
        XCTAssertEqual(try connection.evaluate(leb128(7) + [1], into: collector), SQLITE_OK)
        XCTAssertEqual(collector.top.pointee.matched, 1)
        XCTAssertEqual(collector.top.pointee.scored, 0)
        XCTAssertEqual(collector.top.pointee.count, 0)
    }

    func testTopKIntoACollectorOfNoRowsReadsNoScore() throws {
        let connection = try MemoryConnection()
        try connection.exec("CREATE VIRTUAL TABLE t USING fts5(x); INSERT INTO t(rowid, x) VALUES (7, 'alpha')")
        let collector = Collector(capacity: 0, kth: nil, watermark: .max)
        XCTAssertEqual(try connection.topK(into: collector), 1)
        XCTAssertEqual(collector.top.pointee.matched, 1)
        XCTAssertEqual(collector.top.pointee.scored, 0)
    }

    // MARK: - Postings and arguments

    /// A count past INT32_MAX reads as INT32_MAX, never as a negative count; a rowid distance that would reach
    /// INT64_MAX ends the postings (damaged), from any base. Counts of at most 14 are packed two a byte; 0xFF starts
    /// counts written in full.
    func testPostingsCountsAndDistancesStayInRange() {
        var rowids = [Int64](repeating: 0, count: 16)
        var counts = [Int32](repeating: 0, count: 16)
        var whole: Int32 = 0
        let huge = leb128(7) + [0xFF] + leb128(UInt64(Int32.max) + 6)
        XCTAssertEqual(sift_postings_decode(huge, Int32(huge.count), 1, 0, &rowids, &counts, &whole), 1)
        XCTAssertEqual(rowids[0], 7)
        XCTAssertEqual(counts[0], Int32.max)
        XCTAssertEqual(whole, 1)

        let past = leb128(20) + [1]
        XCTAssertEqual(sift_postings_decode(past, Int32(past.count), 1, .max - 10, &rowids, &counts, &whole), 0)
        XCTAssertEqual(whole, 0)
        XCTAssertEqual(sift_postings_last_rowid(past, Int32(past.count), 1, .max - 10), .max - 10)
        // From a negative base, the largest distance that stays below INT64_MAX.
        let far = leb128(UInt64(Int64.max) + 4) + [1]
        XCTAssertEqual(sift_postings_decode(far, Int32(far.count), 1, -5, &rowids, &counts, &whole), 1)
        XCTAssertEqual(rowids[0], .max - 1)
        let farther = leb128(UInt64(Int64.max) + 5) + [1]
        XCTAssertEqual(sift_postings_decode(farther, Int32(farther.count), 1, -5, &rowids, &counts, &whole), 0)
        // Three columns: packed (3 in column 0, 1 in column 1, 0 in column 2), then in full, then a distance of 0
        // (damage); read the same way with eight bytes left after a row (in bulk) and without.
        let packed: [UInt8] = [5, 0x13, 0x00, 2, 0xFF, 15, 0, 200, 1]
        for padding in [[], [UInt8](repeating: 0, count: 8)] {
            let bytes = packed + [0, 0x11] + padding
            XCTAssertEqual(sift_postings_decode(bytes, Int32(bytes.count), 3, 0, &rowids, &counts, &whole), 2)
            XCTAssertEqual(Array(rowids[0..<2]), [5, 7])
            XCTAssertEqual(Array(counts[0..<6]), [3, 1, 0, 15, 0, 200])
            XCTAssertEqual(whole, 0)
        }
        XCTAssertEqual(sift_postings_decode(past, Int32(past.count), -1, 0, &rowids, &counts, &whole), 0, "negative columns")
    }

    /// Phrase counts and weights too long for a double are an SQL error, not an infinity converted to an integer.
    func testRankArgumentsBeyondADoubleAreAnError() throws {
        let connection = try MemoryConnection()
        try connection.exec("CREATE VIRTUAL TABLE t USING fts5(x); INSERT INTO t(rowid, x) VALUES (1, 'alpha')")
        let nines = String(repeating: "9", count: 400)
        XCTAssertThrowsError(try connection.exec("SELECT sift_rank_df(t, 1.2, 0.75, 1, 1, '1', '\(nines)') FROM t WHERE t MATCH 'alpha'")) {
            XCTAssertTrue("\($0)".contains("sift_rank_df: the last argument"), "\($0)")
        }
        XCTAssertThrowsError(try connection.exec("SELECT sift_rank(t, 1.2, 0.75, 1, 1, '\(nines)') FROM t WHERE t MATCH 'alpha'")) {
            XCTAssertTrue("\($0)".contains("phrase weights"), "\($0)")
        }
    }

    /// Terms listed after a row was counted still have room for their counts (the counts were sized for the
    /// terms listed at the first row).
    func testTermsListedAfterARowAreCounted() throws {
        let connection = try MemoryConnection()
        var tokenizer = sift_fts5_tokenizer()
        var name: [UnsafePointer<CChar>?] = [UnsafePointer(strdup("unicode61"))]
        defer { free(UnsafeMutablePointer(mutating: name[0])) }
        XCTAssertEqual(sift_fts5_tokenizer_open(connection.db, &name, 1, &tokenizer), SQLITE_OK)
        defer { sift_fts5_tokenizer_close(&tokenizer) }
        let set = try XCTUnwrap(sift_topk_terms_new(4))
        defer { sift_topk_terms_free(set) }
        var indexes = [Int32](repeating: -1, count: 4)
        var stats = [Int32](repeating: -1, count: 8)
        var touched: Int32 = 0
        func collect(_ text: String) -> Int32 {
            let bytes = Array(text.utf8CString)
            return bytes.withUnsafeBufferPointer { buffer in
                var texts: [UnsafePointer<CChar>?] = [buffer.baseAddress]
                var lengths: [Int32] = [Int32(buffer.count - 1)]
                return sift_topk_collect_row(set, &tokenizer, &texts, &lengths, 1, &indexes, &stats, &touched)
            }
        }
        XCTAssertEqual(sift_topk_terms_add(set, "alpha", 5), 0)
        XCTAssertEqual(collect("alpha beta"), SQLITE_OK)
        XCTAssertEqual(touched, 1)
        for term in ["beta", "gamma", "delta"] { XCTAssertGreaterThan(sift_topk_terms_add(set, term, Int32(term.utf8.count)), 0) }
        XCTAssertEqual(collect("delta delta gamma"), SQLITE_OK)
        XCTAssertEqual(touched, 2)
        var found: [Int32: [Int32]] = [:]
        for k in 0..<Int(touched) { found[indexes[k]] = [stats[2 * k], stats[2 * k + 1]] }
        XCTAssertEqual(found, [3: [2, 3], 2: [1, 3]])
    }

    // MARK: - Snippets and a tokenizer's offsets

    /// A token that starts past the end of the text (a faulty tokenizer's offsets) is marked at the text's end:
    /// nothing after the text is copied into the snippet.
    func testSnippetOfATokenStartingPastTheTextCopiesNothingAfterIt() throws {
        let connection = try MemoryConnection(craftedTokenizer: true)
        try connection.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'crafted'); INSERT INTO t(rowid, x) VALUES (1, 'alpha beta far')")
        XCTAssertEqual(try connection.text("SELECT sift_snippet(t, 0, '[', ']', '...', 100) FROM t WHERE t MATCH 'far'"), "alpha beta far[]")
        // A fragment shorter than the text: the window's start and end come from the same offsets.
        let long = (1...40).map { "w\($0)" }.joined(separator: " ") + " far"
        try connection.exec("INSERT INTO t(rowid, x) VALUES (2, '\(long)')")
        let snippet = try connection.text("SELECT sift_snippet(t, 0, '[', ']', '...', 20) FROM t WHERE t MATCH 'far' AND rowid = 2")
        XCTAssertTrue(snippet.hasSuffix("far[]"), snippet)
        XCTAssertFalse(snippet.utf8.contains(0), snippet)
    }

    /// Offsets out of order (a phrase's last token ending before its first starts) mark an empty span, and never
    /// copy a negative length.
    func testSnippetOfOffsetsOutOfOrderMarksAnEmptySpan() throws {
        let connection = try MemoryConnection(craftedTokenizer: true)
        try connection.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'crafted'); INSERT INTO t(rowid, x) VALUES (1, 'alpha beta back')")
        XCTAssertEqual(try connection.text("SELECT sift_snippet(t, 0, '[', ']', '...', 100) FROM t WHERE t MATCH '\"beta back\"'"),
                       "alpha []beta back")
    }
}

// MARK: - Support

/// LEB128, as the impacts' postings store numbers.
private func leb128(_ value: UInt64) -> [UInt8] {
    var value = value, bytes: [UInt8] = []
    repeat {
        bytes.append(UInt8(value & 0x7F) | (value >= 0x80 ? 0x80 : 0))
        value >>= 7
    } while value != 0
    return bytes
}

/// A collector (sift_topk.h) of `capacity` rows, holding one row of score `kth` when given (then full at
/// capacity 1), with one term's impact blocks (one column: 4 bytes a block, 2 blocks, no row in them). The bytes
/// just before the blocks, where an offset wrapped to -4 lands, describe a block whose shortest size is 65535
/// tokens; the double before the scores, where `scores[-1]` lands, is -1e300.
private final class Collector {
    let top = UnsafeMutablePointer<sift_topk_collector>.allocate(capacity: 1)
    private let scores = UnsafeMutablePointer<Double>.allocate(capacity: 2)
    private let rowids = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
    private let blockBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 16)
    private let blocks = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 1)
    private let sizes = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    init(capacity: Int32, kth: Double?, watermark: Int64) {
        blockBytes.initialize(repeating: 0, count: 16)
        blockBytes[5] = 1                       // block at -4: column 0's largest count 1, shortest 65535 - 0
        blocks[0] = UnsafePointer(blockBytes + 8)
        sizes[0] = 8
        scores.initialize(repeating: -1e300, count: 2)
        if let kth { scores[1] = kth }
        rowids[0] = 0
        top.initialize(to: sift_topk_collector(
            capacity: capacity, count: kth == nil ? 0 : 1, rowids: rowids, scores: scores + 1, terms: 1, blocks: blocks,
            bytes: sizes, block: 1, watermark: watermark, stride: 4, matched: 0, scored: 0, block_bounds: nil,
            block_count: 0, matches: nil, top_only: 0))
    }

    deinit {
        for pointer in [UnsafeMutableRawPointer(top), UnsafeMutableRawPointer(scores), UnsafeMutableRawPointer(rowids),
                        UnsafeMutableRawPointer(blockBytes), UnsafeMutableRawPointer(blocks), UnsafeMutableRawPointer(sizes)] {
            pointer.deallocate()
        }
    }
}

/// An in-memory SQLite connection with sift_rank's functions and sift_snippet, and optionally the tokenizer
/// `crafted`, which reports offsets a faulty tokenizer could.
private final class MemoryConnection {
    let db: OpaquePointer
    struct Failure: Error, CustomStringConvertible { let description: String }

    init(craftedTokenizer: Bool = false) throws {
        var db: OpaquePointer?
        guard sqlite3_open(":memory:", &db) == SQLITE_OK, let db else { throw Failure(description: "cannot open") }
        self.db = db
        guard sift_rank_register(db) == SQLITE_OK, sift_snippet_register(db) == SQLITE_OK else {
            throw Failure(description: "cannot register the functions")
        }
        if craftedTokenizer {
            guard let api = sift_fts5_api(db) else { throw Failure(description: "no FTS5") }
            var tokenizer = fts5_tokenizer(xCreate: craftedCreate, xDelete: { _ in }, xTokenize: craftedTokenize)
            guard api.pointee.xCreateTokenizer(api, "crafted", nil, &tokenizer, nil) == SQLITE_OK else {
                throw Failure(description: "cannot register the tokenizer")
            }
        }
    }

    deinit { sqlite3_close_v2(db) }

    func exec(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw Failure(description: message.map { String(cString: $0) } ?? "error")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw Failure(description: String(cString: sqlite3_errmsg(db)))
        }
        return stmt
    }

    func text(_ sql: String) throws -> String {
        let stmt = try prepare(sql)
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW else { throw Failure(description: String(cString: sqlite3_errmsg(db))) }
        let bytes = sqlite3_column_blob(stmt, 0)
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(stmt, 0))), as: UTF8.self)
    }

    /// sift_topk() over the rows of t matching 'alpha' (one column, BM25F with k1 1.2 and b 0.75, the phrase in
    /// one row) into `collector`; the count of matching rows.
    func topK(into collector: Collector) throws -> Int64 {
        let stmt = try prepare("SELECT count(*) FROM t WHERE t MATCH 'alpha' AND sift_topk(t, 1.2, 0.75, 1, 1, '1', '1', 0, ?)")
        defer { sqlite3_finalize(stmt) }
        XCTAssertEqual(sift_topk_bind(stmt, 1, collector.top), SQLITE_OK)
        guard sqlite3_step(stmt) == SQLITE_ROW else { throw Failure(description: String(cString: sqlite3_errmsg(db))) }
        return sqlite3_column_int64(stmt, 0)
    }

    /// sift_topk_postings() of one term's postings (base 0; one column, BM25F with k1 1.2 and b 0.75, idf 1) with
    /// the sizes of table docsize, into `collector`.
    func evaluate(_ postings: [UInt8], into collector: Collector) throws -> Int32 {
        let docsize = try prepare("SELECT sz FROM docsize WHERE id = ?")
        defer { sqlite3_finalize(docsize) }
        let one = UnsafeMutablePointer<Double>.allocate(capacity: 1)
        one.initialize(to: 1)
        defer { one.deallocate() }
        var query = sift_postings_query(terms: 1, columns: 1, inb2: 0, requires_all: 0, k1: 1.2, b: 0.75, c: 1, weights: one,
                                        avglen: one, qtf: one, idf: one, docsize: docsize, group: nil)
        return postings.withUnsafeBufferPointer { bytes in
            var pointers: [UnsafePointer<UInt8>?] = [bytes.baseAddress]
            var sizes: [Int32] = [Int32(bytes.count)]
            return sift_topk_postings(&query, collector.top, 0, .max, &pointers, &sizes, nil, nil)
        }
    }
}

private let craftedCreate: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafePointer<CChar>?>?, Int32,
                                           UnsafeMutablePointer<OpaquePointer?>?) -> Int32 = { _, _, _, out in
    out?.pointee = OpaquePointer(bitPattern: 1)
    return SQLITE_OK
}

/// Splits on spaces and reports each word at its offsets, except "far" (offsets 8 to 12 bytes past the text's end)
/// and "back" (bytes 0 to 1: before the word it follows).
private let craftedTokenize: @convention(c) (
    OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32,
    (@convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32)?
) -> Int32 = { _, context, _, text, length, token in
    guard let text, let token, length > 0 else { return SQLITE_OK }
    let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
    var start = 0
    for i in 0...Int(length) where i == Int(length) || bytes[i] == 0x20 {
        defer { start = i + 1 }
        guard i > start else { continue }
        let word = String(decoding: UnsafeBufferPointer(start: bytes + start, count: i - start), as: UTF8.self)
        let offsets: (Int32, Int32) = switch word {
        case "far": (length + 8, length + 12)
        case "back": (0, 1)
        default: (Int32(start), Int32(i))
        }
        let rc = token(context, 0, text + start, Int32(i - start), offsets.0, offsets.1)
        if rc != SQLITE_OK { return rc }
    }
    return SQLITE_OK
}
