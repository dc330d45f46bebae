import CSQLite
import Foundation
import SiftICU
import XCTest

/// What registering the ICU tokenizer adds to a connection: the tokenizer only. Highlights come from FTS5's
/// highlight() through Sift's search; no SQL function trusts the tokenizer's offsets on its own.
final class RegisteredFunctionsTests: XCTestCase {
    func testRegisteringTheTokenizerAddsNoHighlightFunction() throws {
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(":memory:", &db), SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        let connection = try XCTUnwrap(db)
        try SiftICU.register(on: connection)
        XCTAssertEqual(sqlite3_exec(connection, "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'sift_icu'); "
                                        + "INSERT INTO t VALUES ('北京大学')", nil, nil, nil), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(connection, "SELECT highlight(t, 0, '[', ']') FROM t WHERE t MATCH '北京'", nil, nil, nil), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(connection, "SELECT sift_highlight(t, 0, '[', ']') FROM t WHERE t MATCH '北京'", nil, nil, nil), SQLITE_ERROR)
        XCTAssertEqual(String(cString: sqlite3_errmsg(connection)), "no such function: sift_highlight")
    }
}
