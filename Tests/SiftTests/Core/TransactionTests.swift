import Foundation
import XCTest
@testable import Sift

final class TransactionTests: SiftTestCase {
    private func count(_ database: Database, _ table: String = "t") throws -> Int64 {
        try database.getRows(sql: "SELECT count(*) FROM \(table)")[row: 0, column: 0].int64Value
    }

    func testBeginCommit() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        XCTAssertFalse(database.isInTransaction)
        try database.begin()
        XCTAssertTrue(database.isInTransaction)
        try database.exec(sql: "INSERT INTO t VALUES (1)")
        try database.commit()
        XCTAssertFalse(database.isInTransaction)
        XCTAssertEqual(try count(database), 1)
    }

    func testRollbackLeavesNothingBehind() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        try database.begin()
        for i in 0..<100 { try database.exec(sql: "INSERT INTO t VALUES (?)", values: [i]) }
        try database.exec(sql: "CREATE TABLE other(y)")
        try database.rollback()
        XCTAssertEqual(try count(database), 0)
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM sqlite_master WHERE name = 'other'")[row: 0, column: 0].int64Value, 0)
    }

    func testRunTransactionCommitsOrRollsBack() throws {
        struct Boom: Error {}
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        try database.run(transaction: { try database.exec(sql: "INSERT INTO t VALUES (1)") })
        XCTAssertThrowsError(try database.run(transaction: {
            try database.exec(sql: "INSERT INTO t VALUES (2)")
            throw Boom()
        }))
        XCTAssertEqual(try count(database), 1)
        XCTAssertFalse(database.isInTransaction)
    }

    func testNestedTransactionsAreSavepoints() throws {
        struct Boom: Error {}
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        try database.run(transaction: {
            try database.exec(sql: "INSERT INTO t VALUES (1)")
            try? database.run(transaction: {
                try database.exec(sql: "INSERT INTO t VALUES (2)")
                throw Boom()
            })
            try database.run(transaction: { try database.exec(sql: "INSERT INTO t VALUES (3)") })
        })
        XCTAssertEqual(try database.getRows(sql: "SELECT x FROM t ORDER BY x").map { $0[0].int64Value }, [1, 3])
    }

    func testCommitWithoutTransactionIsTypedError() throws {
        let database = makeDatabase()
        XCTAssertThrowsError(try database.commit()) { XCTAssertEqual(($0 as? SiftError)?.code, .misuse) }
        XCTAssertThrowsError(try database.rollback()) { XCTAssertEqual(($0 as? SiftError)?.code, .misuse) }
    }

    func testReaderIsNotBlockedByOpenWriteTransaction() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        try database.exec(sql: "INSERT INTO t VALUES (1)")
        try database.begin()
        try database.exec(sql: "INSERT INTO t VALUES (2)")
        XCTAssertEqual(try count(database), 2, "the transaction's thread sees its own writes")
        let seen = Collected<Int64>()
        let started = Date()
        spawn {
            seen.append((try? database.getRows(sql: "SELECT count(*) FROM t")[row: 0, column: 0].int64Value) ?? -1)
        }.wait()
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the reader did not wait for the writer")
        XCTAssertEqual(seen.all, [1], "another thread reads the last committed state")
        try database.commit()
    }

    func testOtherThreadsWriteWaitsForTransaction() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(x)")
        try database.begin()
        let order = Collected<String>()
        let writer = spawn {
            try? database.exec(sql: "INSERT INTO t VALUES (2)")
            order.append("writer")
        }
        Thread.sleep(forTimeInterval: 0.2)
        try database.exec(sql: "INSERT INTO t VALUES (1)")
        order.append("transaction")
        try database.commit()
        writer.wait()
        XCTAssertEqual(order.all, ["transaction", "writer"])
        XCTAssertEqual(try database.getRows(sql: "SELECT x FROM t ORDER BY rowid").map { $0[0].int64Value }, [1, 2])
    }

    func testEightThreadsMixingReadsAndWrites() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE t(thread INTEGER, i INTEGER)")
        let errors = Collected<String>()
        let deadline = Date().addingTimeInterval(2)
        let written = Collected<Int>()
        let groups = (0..<8).map { thread in
            spawn {
                var i = 0
                while Date() < deadline {
                    do {
                        if thread % 2 == 0 {
                            if i % 5 == 0 {
                                try database.run(transaction: {
                                    try database.exec(sql: "INSERT INTO t VALUES (?, ?)", values: [thread, i])
                                    try database.exec(sql: "INSERT INTO t VALUES (?, ?)", values: [thread, i + 1])
                                })
                                i += 2
                            } else {
                                try database.exec(sql: "INSERT INTO t VALUES (?, ?)", values: [thread, i])
                                i += 1
                            }
                        } else {
                            _ = try database.getRows(sql: "SELECT count(*), max(i) FROM t")
                        }
                    } catch {
                        errors.append("\(error)")
                    }
                }
                if thread % 2 == 0 { written.append(i) }
            }
        }
        groups.forEach { $0.wait() }
        XCTAssertEqual(errors.all, [])
        let expected = written.all.reduce(0, +)
        XCTAssertGreaterThan(expected, 0)
        XCTAssertEqual(try database.getRows(sql: "SELECT count(*) FROM t")[row: 0, column: 0].int64Value, Int64(expected))
    }
}
