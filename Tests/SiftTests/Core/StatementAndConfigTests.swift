import Foundation
import XCTest
@testable import Sift

final class StatementAndConfigTests: SiftTestCase {
    func testExecWithBoundValuesAndPrepareStep() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, score REAL, photo BLOB)")
        let hostile = "Robert'); DROP TABLE people;--"
        try database.exec(sql: "INSERT INTO people VALUES (?, ?, ?, ?)", values: [1, hostile, 2.5, Data([0, 1, 2])])
        try database.exec(sql: "INSERT INTO people VALUES (?, ?, ?, ?)", values: [2, "a\u{0}b", Optional<Double>.none, Data()])
        let statement = try database.prepare(sql: "SELECT id, name, score, photo FROM people WHERE id >= ? ORDER BY id")
        try statement.bind([1])
        XCTAssertEqual(statement.columnCount, 4)
        XCTAssertEqual(statement.columnName(atIndex: 1), "name")
        XCTAssertTrue(try statement.step())
        XCTAssertEqual(statement.value(named: "name")?.stringValue, hostile)
        XCTAssertEqual(statement.value(atIndex: 2).doubleValue, 2.5)
        XCTAssertEqual(statement.value(atIndex: 3).dataValue, Data([0, 1, 2]))
        XCTAssertTrue(try statement.step())
        XCTAssertEqual(statement.value(atIndex: 1).stringValue, "a\u{0}b", "embedded NUL kept")
        XCTAssertEqual(statement.value(atIndex: 2).type, .null)
        XCTAssertEqual(statement.value(atIndex: 3).type, .BLOB, "an empty blob is not NULL")
        XCTAssertNil(statement.value(named: "missing"))
        XCTAssertFalse(try statement.step())
        statement.finalize()
        statement.finalize()
        XCTAssertThrowsError(try statement.step())
    }

    func testWrongNumberOfValuesAndMultipleStatementsAreTypedErrors() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        XCTAssertThrowsError(try database.exec(sql: "INSERT INTO t VALUES (?)", values: [])) {
            XCTAssertEqual(($0 as? SiftError)?.code, .range)
        }
        XCTAssertThrowsError(try database.exec(sql: "INSERT INTO t VALUES (1); DROP TABLE t")) {
            XCTAssertEqual(($0 as? SiftError)?.code, .misuse)
        }
        XCTAssertThrowsError(try database.exec(sql: "SELEC nonsense")) { error in
            let e = error as? SiftError
            XCTAssertEqual(e?.code, .error)
            XCTAssertEqual(e?.operation, .prepare)
            XCTAssertEqual(e?.sql, "SELEC nonsense")
            XCTAssertEqual(e?.path, database.path)
            XCTAssertTrue(e?.description.contains("syntax error") ?? false)
        }
    }

    func testConfigsApplyToCurrentAndFutureConnectionsAndCanBeRemoved() throws {
        let database = makeDatabase()
        XCTAssertEqual(try database.getRows(sql: "PRAGMA cache_size")[row: 0, column: 0].int64Value, -2000)
        database.setConfig(named: "cache") { try $0.exec(sql: "PRAGMA cache_size=-4321") }
        XCTAssertEqual(try database.getRows(sql: "PRAGMA cache_size")[row: 0, column: 0].int64Value, -4321)
        // A connection opened later gets it too, and so does the writer.
        database.purgeFreeHandles()
        XCTAssertEqual(try database.getRows(sql: "PRAGMA cache_size")[row: 0, column: 0].int64Value, -4321)
        try database.run(transaction: {
            XCTAssertEqual(try database.getRows(sql: "PRAGMA cache_size")[row: 0, column: 0].int64Value, -4321)
        })
        database.setConfig(named: "cache") { try $0.exec(sql: "PRAGMA cache_size=-1234") }
        XCTAssertEqual(try database.getRows(sql: "PRAGMA cache_size")[row: 0, column: 0].int64Value, -1234)
        database.removeConfig(named: "cache")
        database.purgeFreeHandles()
        XCTAssertEqual(try database.getRows(sql: "PRAGMA cache_size")[row: 0, column: 0].int64Value, -2000)
    }

    func testConfigOrder() throws {
        let database = makeDatabase()
        let order = Collected<String>()
        database.setConfig(named: "second", with: { _ in order.append("second") }, orderBy: 2)
        database.setConfig(named: "first", with: { _ in order.append("first") }, orderBy: 1)
        _ = database.canOpen
        XCTAssertEqual(Array(order.all.prefix(2)), ["first", "second"])
    }

    func testFailingConfigIsTypedError() throws {
        struct Nope: Error {}
        let database = makeDatabase()
        database.setConfig(named: "broken") { _ in throw Nope() }
        XCTAssertThrowsError(try database.exec(sql: "SELECT 1")) { XCTAssertEqual(($0 as? SiftError)?.operation, .config) }
        database.removeConfig(named: "broken")
        XCTAssertNoThrow(try database.exec(sql: "SELECT 1"))
    }
}

final class BadFileTests: SiftTestCase {
    func testNonDatabaseFileIsTypedError() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = path("not-a-db.db")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: file))
        let database = Database(withPath: file)
        XCTAssertFalse(database.canOpen)
        XCTAssertThrowsError(try database.exec(sql: "SELECT 1")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .notADatabase)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), Data(repeating: 0x41, count: 8192), "nothing lost")
    }

    func testDirectoryInPlaceOfFileIsTypedError() throws {
        try FileManager.default.createDirectory(atPath: path("dir.db"), withIntermediateDirectories: true)
        let database = Database(withPath: path("dir.db"))
        XCTAssertThrowsError(try database.exec(sql: "SELECT 1")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .cantOpen)
        }
    }

    func testUncreatableDirectoryIsTypedError() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("file".utf8).write(to: directory.appendingPathComponent("blocker"))
        let database = Database(withPath: path("blocker/sub/x.db"))
        XCTAssertThrowsError(try database.exec(sql: "SELECT 1")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .cantOpen)
        }
    }

    func testOpeningWaitsForAnotherConnectionsLock() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A rollback-journal database exclusively locked by another connection: even reading the schema waits.
        let other = try RawConnection(path: path())
        try other.exec("CREATE TABLE t(x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
        let release = spawn {
            Thread.sleep(forTimeInterval: 0.3)
            try? other.exec("COMMIT")
        }
        let database = makeDatabase()
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM t")[row: 0, column: 0].int64Value, 1,
                       "the first connection waited for the lock instead of failing with SQLITE_BUSY")
        release.wait()
    }

    func testLockedDatabaseIsBusyErrorAfterTimeout() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        // Another process's lock, simulated by a connection outside Sift's pool.
        let other = try RawConnection(path: database.path)
        try other.exec("BEGIN EXCLUSIVE")
        database.setConfig(named: DefaultConfig.busyTimeoutName) { $0.setBusyTimeout(0.1) }
        XCTAssertThrowsError(try database.exec(sql: "INSERT INTO t VALUES (1)")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .busy)
        }
        try other.exec("ROLLBACK")
        XCTAssertNoThrow(try database.exec(sql: "INSERT INTO t VALUES (1)"))
    }
}

final class TracingTests: SiftTestCase {
    func testSQLErrorAndPerformanceTracing() throws {
        let database = makeDatabase()
        database.tag = 7
        let sqls = Collected<String>()
        let errors = Collected<SiftError>()
        let performance = Collected<([String: Int], Int64, Tag?)>()
        database.trace(ofSQL: { sqls.append($0) })
        database.trace(ofError: { errors.append($0) })
        database.trace(ofPerformance: { tag, sqls, cost in performance.append((sqls, cost, tag)) })
        try database.exec(sql: "CREATE TABLE t(x)")
        try database.run(transaction: {
            for i in 0..<3 { try database.exec(sql: "INSERT INTO t VALUES (?)", values: [i]) }
        })
        _ = try? database.exec(sql: "INSERT INTO missing VALUES (1)")
        XCTAssertTrue(sqls.all.contains("INSERT INTO t VALUES (?)"), "placeholders, never values")
        XCTAssertEqual(errors.all.count, 1)
        XCTAssertEqual(errors.all.first?.tag, 7)
        let transaction = performance.all.first { $0.0["INSERT INTO t VALUES (?)"] != nil }
        XCTAssertEqual(transaction?.0["INSERT INTO t VALUES (?)"], 3, "one report for the whole transaction")
        XCTAssertEqual(transaction?.0["BEGIN IMMEDIATE"], 1)
        XCTAssertGreaterThan(transaction?.1 ?? 0, 0)
        XCTAssertEqual(transaction?.2, 7)

        database.trace(ofSQL: nil)
        let before = sqls.all.count
        try database.exec(sql: "INSERT INTO t VALUES (9)")
        XCTAssertEqual(sqls.all.count, before, "removed hooks report nothing")
    }

    func testGlobalTracerAndLocalOverride() throws {
        let database = makeDatabase()
        let global = Collected<String>()
        let local = Collected<String>()
        Database.globalTrace(ofSQL: { global.append($0) })
        defer { Database.globalTrace(ofSQL: nil) }
        try database.exec(sql: "SELECT 'global'")
        database.trace(ofSQL: { local.append($0) })
        try database.exec(sql: "SELECT 'local'")
        XCTAssertTrue(global.all.contains("SELECT 'global'"))
        XCTAssertFalse(global.all.contains("SELECT 'local'"))
        XCTAssertEqual(local.all, ["SELECT 'local'"])
    }
}
