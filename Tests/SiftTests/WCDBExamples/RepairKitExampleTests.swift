import Foundation
import XCTest
import Sift

// WCDB's repair kit, as its documentation describes it: back up the metadata while the database is sound; when an
// error is SQLite's code 11 or 26 (SQLITE_CORRUPT, SQLITE_NOTADB), recover into a new database, off the main thread,
// with the damaged one closed. The model is that documentation's Message (localID, content, createTime, modifiedTime).

final class RepairMessage: TableCodable {
    var localID: Int = 0
    var content: String? = nil
    var createTime: Date = Date(timeIntervalSince1970: 0)
    var modifiedTime: Date = Date(timeIntervalSince1970: 0)
    enum CodingKeys: String, CodingTableKey {
        typealias Root = RepairMessage
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case localID, content, createTime, modifiedTime
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [localID: ColumnConstraintBinding(isPrimary: true)] }
        static var indexBindings: [IndexBinding.Subfix: IndexBinding]? { ["_index": IndexBinding(indexesBy: createTime)] }
    }
    init() {}
    init(_ id: Int) {
        localID = id
        content = "Hello, WCDB! \(id) " + String(repeating: "x", count: id % 300)
        createTime = Date(timeIntervalSince1970: 1_496_396_165 + Double(id))
        modifiedTime = createTime
    }
}

final class RepairKitExampleTests: SiftTestCase {
    func testBackupDetectAndRecover() throws {
        let database = makeDatabase("message.db")
        try database.create(table: "message", of: RepairMessage.self)
        try database.insert(objects: (1...3_000).map(RepairMessage.init), intoTable: "message")
        try database.backup()                                   // [database backupWithCipher:backupPassword]
        database.close()

        // The first page (header and schema) is destroyed on disk.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: database.path))
        bytes.replaceSubrange(0..<4096, with: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        try bytes.write(to: URL(fileURLWithPath: database.path))

        var detected: SiftError?
        do {
            let _: [RepairMessage] = try database.getObjects(fromTable: "message")
        } catch let error as SiftError where error.code.rawValue == 11 || error.code.rawValue == 26 {
            detected = error
        }
        XCTAssertEqual(detected?.isCorruption, true)

        // Since recovering is a long operation, run it in the background.
        let recover = makeDatabase("recover.db")
        let outcome = Collected<Result<RecoveryReport, Error>>()
        let done = spawn {
            outcome.append(Result {
                var report: RecoveryReport?
                try database.close(onClosed: { report = try Database.recover(from: database.path, into: recover) })
                return try XCTUnwrap(report)
            })
        }
        done.wait()
        let report = try XCTUnwrap(outcome.all.first).get()
        XCTAssertTrue(report.usedBackup)
        XCTAssertEqual(report.tables.map(\.rowsRecovered), [3_000])
        let messages: [RepairMessage] = try recover.getObjects(fromTable: "message", orderBy: [RepairMessage.Properties.localID.asOrder(by: .ascending)])
        XCTAssertEqual(messages.map(\.localID), Array(1...3_000))
        XCTAssertEqual(messages.map(\.content), (1...3_000).map { RepairMessage($0).content })
        XCTAssertEqual(messages.last?.createTime, RepairMessage(3_000).createTime)
        XCTAssertEqual(try recover.getRows(sql: "SELECT name FROM sqlite_master WHERE type = 'index'").map { $0[0].stringValue }, ["message_index"],
                       "the model's index is recreated")
    }
}
