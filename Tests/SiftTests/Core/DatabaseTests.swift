import Foundation
import XCTest
@testable import Sift

final class DatabaseTests: SiftTestCase {
    func testNothingTouchesDiskUntilFirstUseAndDirectoriesAreCreated() throws {
        let nested = directory.appendingPathComponent("a/b/c/sample.db").path
        let database = Database(withPath: nested)
        XCTAssertFalse(FileManager.default.fileExists(atPath: nested))
        XCTAssertFalse(database.isOpened)
        XCTAssertTrue(database.canOpen)
        XCTAssertTrue(database.isOpened)
        XCTAssertTrue(FileManager.default.fileExists(atPath: nested))
        XCTAssertEqual(database.path, nested)
        XCTAssertEqual(database.paths, [nested, nested + "-wal", nested + "-shm", nested + "-journal"])
    }

    func testFileURLInitializerAndTag() throws {
        let database = Database(withFileURL: URL(fileURLWithPath: path()))
        XCTAssertNil(database.tag)
        database.tag = 42
        XCTAssertEqual(Database(withPath: path()).tag, 42, "same path, same pool")
    }

    func testTwoDatabasesOnOnePathSharePool() throws {
        let a = makeDatabase(), b = makeDatabase()
        XCTAssertTrue(a.pool === b.pool)
        try a.exec(sql: "CREATE TABLE t(x)")
        try b.exec(sql: "INSERT INTO t VALUES (?)", values: [1])
        XCTAssertEqual(try a.getRows(sql: "SELECT x FROM t")[row: 0, column: 0].int64Value, 1)
    }

    func testWALIsTheDefaultJournalMode() throws {
        let database = makeDatabase()
        XCTAssertEqual(try database.getRows(sql: "PRAGMA journal_mode")[row: 0, column: 0].stringValue, "wal")
    }

    func testCloseAndRemoveFiles() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        XCTAssertTrue(database.isOpened)
        database.close()
        XCTAssertFalse(database.isOpened)
        try database.close(onClosed: { try database.removeFiles() })
        for file in database.paths { XCTAssertFalse(FileManager.default.fileExists(atPath: file), file) }
        // Reopens on demand, as a fresh database.
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM sqlite_master")[row: 0, column: 0].int64Value, 0)
    }

    func testPurgeFreeHandles() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        XCTAssertTrue(database.isOpened)
        database.purgeFreeHandles()
        XCTAssertFalse(database.isOpened)
        try database.exec(sql: "INSERT INTO t VALUES (1)")
        Database.purgeFreeHandlesInAllDatabases()
        XCTAssertFalse(database.isOpened)
    }

    func testCloseOnClosedBlocksConcurrentWriterUntilClosureEnds() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE events(name TEXT)")
        let events = Collected<String>()
        let insideClosure = DispatchSemaphore(value: 0)
        var writer: DispatchGroup?
        try database.close(onClosed: {
            events.append("closure-start")
            writer = spawn {
                insideClosure.signal()
                try? database.exec(sql: "INSERT INTO events VALUES ('writer')")
                events.append("writer-done")
            }
            insideClosure.wait()
            Thread.sleep(forTimeInterval: 0.3)  // the writer must still be waiting
            XCTAssertFalse(FileManager.default.fileExists(atPath: database.path + "-wal") && database.isOpened)
            events.append("closure-end")
        })
        writer?.wait()
        XCTAssertEqual(events.all, ["closure-start", "closure-end", "writer-done"])
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM events")[row: 0, column: 0].int64Value, 1)
    }

    func testCloseInsideOwnTransactionIsATypedError() throws {
        let database = makeDatabase()
        try database.begin()
        XCTAssertThrowsError(try database.close(onClosed: {})) { error in
            XCTAssertEqual((error as? SiftError)?.code, .misuse)
        }
        try database.rollback()
    }
}
