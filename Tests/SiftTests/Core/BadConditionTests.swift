import Foundation
import XCTest
import Sift

/// A full disk and a corrupt file: typed errors, and nothing already committed is lost.
final class BadConditionTests: SiftTestCase {
    typealias Sample = CRUD.Sample

    func testFullDiskIsTypedErrorAndLosesNothing() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        let kept = (1...10).map { i -> Sample in let s = Sample(); s.identifier = i; s.description = "kept"; return s }
        try database.insert(objects: kept, intoTable: "sampleTable")
        // SQLite reports a database that cannot grow exactly as a full disk (SQLITE_FULL).
        let pages = try database.getRows(sql: "PRAGMA page_count")[row: 0, column: 0].int64Value
        database.setConfig(named: "limit") { try $0.exec(sql: "PRAGMA max_page_count=\(pages + 2)") }
        let big = (100...5000).map { i -> Sample in
            let s = Sample(); s.identifier = i; s.description = String(repeating: "x", count: 500); return s
        }
        XCTAssertThrowsError(try database.insert(objects: big, intoTable: "sampleTable")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .full, "\(error)")
        }
        database.removeConfig(named: "limit")
        database.purgeFreeHandles()
        let all: [Sample] = try database.getObjects(fromTable: "sampleTable")
        XCTAssertEqual(all.compactMap(\.identifier), Array(1...10), "the failed batch left nothing, the committed rows stayed")
        XCTAssertNoThrow(try database.insert(objects: big.prefix(3).map { $0 }, intoTable: "sampleTable"))
    }

    func testCorruptFileIsTypedError() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: (1...2000).map { i -> Sample in
            let s = Sample(); s.identifier = i; s.description = String(repeating: "y", count: 200); return s
        }, intoTable: "sampleTable")
        try database.close(onClosed: {
            // Overwrite the middle of the file (the table's b-tree pages) with garbage.
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: database.path))
            try handle.seek(toOffset: 8192)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 64 * 1024))
            try handle.close()
        })
        XCTAssertThrowsError(try { let _: [Sample] = try database.getObjects(fromTable: "sampleTable") }()) { error in
            let code = (error as? SiftError)?.code
            XCTAssertTrue(code == .corrupt || code == .notADatabase, "\(error)")
        }
    }
}
