import Foundation
import XCTest
import Sift

final class StatementExecutionTests: SiftTestCase {
    func testExecAndPrepareTypedStatements() throws {
        let database = makeDatabase()
        try database.exec(StatementCreateTable().create(table: "t", with: [ColumnDefinition(name: "a", type: .integer64),
                                                                           ColumnDefinition(name: "b", type: .text)]))
        try database.exec(StatementInsert().insert(intoTable: "t", with: [Column(named: "a"), Column(named: "b")]).values(1, "one"))
        try database.exec(StatementPragma().pragma(.userVersion, to: 7))
        let statement = try database.prepare(StatementSelect().select(Column(named: "b")).from("t").where(Column(named: "a") == 1))
        XCTAssertTrue(try statement.step())
        XCTAssertEqual(statement.value(atIndex: 0).stringValue, "one")
        statement.finalize()
        XCTAssertEqual(try database.getRows(sql: "PRAGMA user_version")[row: 0, column: 0].int64Value, 7)
        let plan = try database.prepare(StatementExplain().explainQueryPlan(StatementSelect().select(Column.all).from("t")))
        XCTAssertTrue(try plan.step())
        XCTAssertTrue(plan.row().map(\.stringValue).joined(separator: " ").contains("SCAN"))
    }
}
