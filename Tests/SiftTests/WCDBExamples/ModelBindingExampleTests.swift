import Foundation
import XCTest
import Sift

/// WCDB Swift's model-binding documentation: every sample, with the SQL the text says it generates.
final class ModelBindingExampleTests: SiftTestCase {
    private func capturingSQL(_ database: Database) -> Collected<String> {
        let sqls = Collected<String>()
        database.trace(ofSQL: { sqls.append($0) })
        return sqls
    }

    private func ddl(_ sqls: Collected<String>) -> [String] {
        sqls.all.filter { $0.hasPrefix("CREATE") || $0.hasPrefix("ALTER") }
    }

    func testFieldMapping() throws {
        let database = makeDatabase()
        let sqls = capturingSQL(database)
        // 以下代码等效于 SQL:CREATE TABLE IF NOT EXISTS sampleTable(id INTEGER, description TEXT, db_offset INTEGER)
        try database.create(table: "sampleTable", of: FieldMapping.Sample.self)
        XCTAssertEqual(ddl(sqls), ["CREATE TABLE IF NOT EXISTS sampleTable(id INTEGER, description TEXT, db_offset INTEGER)"])

        let object = FieldMapping.Sample()
        object.identifier = 1
        object.description = "d"
        object.offset = 7
        object.debugDescription = "not a column"
        try database.insert(objects: object, intoTable: "sampleTable")
        let read: FieldMapping.Sample? = try database.getObject(fromTable: "sampleTable")
        XCTAssertEqual(read?.identifier, 1)
        XCTAssertEqual(read?.description, "d")
        XCTAssertEqual(read?.offset, 7)
        XCTAssertNil(read?.debugDescription)
    }

    func testColumnConstraints() throws {
        let database = makeDatabase()
        let sqls = capturingSQL(database)
        try database.create(table: "sampleTable", of: ColumnConstraints.Sample.self)
        XCTAssertEqual(ddl(sqls), ["CREATE TABLE IF NOT EXISTS sampleTable(identifier INTEGER PRIMARY KEY, description TEXT NOT NULL DEFAULT 'defaultDescription')"])
        // The default applies when a partial insert leaves description out.
        let object = ColumnConstraints.Sample()
        object.identifier = 3
        try database.insert(objects: object, on: ColumnConstraints.Sample.Properties.identifier, intoTable: "sampleTable")
        XCTAssertEqual(try database.getValue(on: ColumnConstraints.Sample.Properties.description, fromTable: "sampleTable").stringValue,
                       "defaultDescription")
    }

    func testAutoIncrement() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: ColumnConstraints.Sample.self)
        let autoIncrementObject = ColumnConstraints.Sample()
        autoIncrementObject.isAutoIncrement = true
        autoIncrementObject.description = "x"
        try database.insert(objects: autoIncrementObject, intoTable: "sampleTable")
        XCTAssertEqual(autoIncrementObject.lastInsertedRowID, 1)
        try database.insert(objects: autoIncrementObject, intoTable: "sampleTable")
        XCTAssertEqual(autoIncrementObject.lastInsertedRowID, 2)
        let specificObject = ColumnConstraints.Sample()
        specificObject.identifier = 10
        specificObject.description = "y"
        try database.insert(objects: specificObject, intoTable: "sampleTable")
        XCTAssertEqual(try database.getColumn(on: ColumnConstraints.Sample.Properties.identifier, fromTable: "sampleTable",
                                              orderBy: ColumnConstraints.Sample.Properties.identifier.asOrder()).map(\.int64Value),
                       [1, 2, 10])
        // An auto-increment insert with a key already set still lets the database choose: max + 1.
        autoIncrementObject.identifier = 1
        try database.insert(objects: autoIncrementObject, intoTable: "sampleTable")
        XCTAssertEqual(autoIncrementObject.lastInsertedRowID, 11)
    }

    func testIndexes() throws {
        let database = makeDatabase()
        let sqls = capturingSQL(database)
        try database.create(table: "sampleTable", of: Indexes.Sample.self)
        XCTAssertEqual(ddl(sqls), [
            "CREATE TABLE IF NOT EXISTS sampleTable(identifier INTEGER, description TEXT, multiIndexPart1 INTEGER, multiIndexPart2 INTEGER)",
            "CREATE INDEX IF NOT EXISTS sampleTable_descendingIndex ON sampleTable(description DESC)",
            "CREATE INDEX IF NOT EXISTS sampleTable_multiIndex ON sampleTable(multiIndexPart1, multiIndexPart2 ASC)",
            "CREATE UNIQUE INDEX IF NOT EXISTS sampleTable_uniqueIndex ON sampleTable(identifier)",
        ])
        let names = try database.getColumn(on: Column(named: "name"), fromTable: "sqlite_master",
                                           where: Column(named: "type") == "index").map(\.stringValue)
        XCTAssertEqual(Set(names), ["sampleTable_uniqueIndex", "sampleTable_descendingIndex", "sampleTable_multiIndex"])
    }

    func testTableConstraints() throws {
        let database = makeDatabase()
        let sqls = capturingSQL(database)
        try database.create(table: "sampleTable", of: TableConstraints.Sample.self)
        XCTAssertEqual(ddl(sqls), ["CREATE TABLE IF NOT EXISTS sampleTable(identifier INTEGER, multiPrimaryKeyPart1 INTEGER, "
            + "multiPrimaryKeyPart2 INTEGER, multiUniquePart1 INTEGER, multiUniquePart2 INTEGER, "
            + "CONSTRAINT MultiPrimaryConstraint PRIMARY KEY(multiPrimaryKeyPart1 DESC, multiPrimaryKeyPart2), "
            + "CONSTRAINT MultiUniqueConstraint UNIQUE(multiUniquePart1, multiUniquePart2 ASC))"])
        let a = TableConstraints.Sample()
        a.multiPrimaryKeyPart1 = 1
        a.multiUniquePart1 = 1
        try database.insert(objects: a, intoTable: "sampleTable")
        XCTAssertThrowsError(try database.insert(objects: a, intoTable: "sampleTable")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .constraint)
        }
    }

    func testUpgrade() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: UpgradeV1.Sample.self)
        let old = UpgradeV1.Sample()
        old.identifier = 1
        old.description = "kept"
        old.createDate = Date(timeIntervalSince1970: 1_000)
        try database.insert(objects: old, intoTable: "sampleTable")

        let sqls = capturingSQL(database)
        try database.create(table: "sampleTable", of: UpgradeV2.Sample.self)
        XCTAssertEqual(ddl(sqls), [
            "ALTER TABLE sampleTable ADD COLUMN title TEXT",
            "CREATE INDEX IF NOT EXISTS sampleTable_index ON sampleTable(title)",
        ])
        let upgraded: [UpgradeV2.Sample] = try database.getObjects(fromTable: "sampleTable")
        XCTAssertEqual(upgraded.count, 1)
        XCTAssertEqual(upgraded.first?.content, "kept", "description renamed to content through its alias")
        XCTAssertNil(upgraded.first?.title)
        // The dropped createDate column is ignored, not deleted: its data stays.
        XCTAssertEqual(try database.getValue(on: Column(named: "createDate"), fromTable: "sampleTable").int64Value, 1_000)
        // Running create again changes nothing.
        let again = capturingSQL(database)
        try database.create(table: "sampleTable", of: UpgradeV2.Sample.self)
        XCTAssertEqual(ddl(again), ["CREATE INDEX IF NOT EXISTS sampleTable_index ON sampleTable(title)"])
        XCTAssertTrue(try database.isTableExists("sampleTable"))
        try database.drop(index: "sampleTable_index")
        try database.drop(table: "sampleTable")
        XCTAssertFalse(try database.isTableExists("sampleTable"))
    }

    func testCreateOnAViewIsTypedSchemaError() throws {
        let database = makeDatabase()
        try database.exec(sql: "CREATE VIEW sampleTable AS SELECT 1 AS x")
        XCTAssertThrowsError(try database.create(table: "sampleTable", of: FieldMapping.Sample.self)) { error in
            XCTAssertEqual((error as? SiftError)?.operation, .schema)
        }
    }
}
