import Foundation
import XCTest
import Sift

/// WCDB Swift's CRUD documentation: every sample, with the rows the text says are written, returned or deleted.
final class CRUDExampleTests: SiftTestCase {
    typealias Sample = CRUD.Sample

    private func fixture(_ rows: [(Int, String?)]) throws -> Database {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        let objects = rows.map { row -> Sample in
            let s = Sample()
            s.identifier = row.0
            s.description = row.1
            return s
        }
        try database.insert(objects: objects, intoTable: "sampleTable")
        return database
    }

    private func identifiers(_ database: Database) throws -> [Int64] {
        try database.getColumn(on: Sample.Properties.identifier, fromTable: "sampleTable",
                               orderBy: Sample.Properties.identifier.asOrder(by: .ascending)).map(\.int64Value)
    }

    func testInsertAndInsertOrReplace() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        let object = Sample()
        object.identifier = 1
        object.description = "insert"
        try database.insert(objects: object, intoTable: "sampleTable")
        XCTAssertThrowsError(try database.insert(objects: object, intoTable: "sampleTable")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .constraint, "primary key 1 already exists")
        }
        object.description = "insertOrReplace"
        try database.insertOrReplace(objects: object, intoTable: "sampleTable")
        let all: [Sample] = try database.getObjects(fromTable: "sampleTable")
        XCTAssertEqual(all.map(\.description), ["insertOrReplace"])
    }

    func testPartialInsert() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        let object = Sample()
        object.identifier = 1
        object.description = "insert"
        try database.insert(objects: object, on: Sample.Properties.identifier, intoTable: "sampleTable")
        let read: Sample? = try database.getObject(fromTable: "sampleTable")
        XCTAssertEqual(read?.identifier, 1)
        XCTAssertNil(read?.description, "description was not inserted and has no default")
    }

    func testBatchInsertIsAllOrNothing() throws {
        let database = try fixture([(3, "existing")])
        let batch = (1...5).map { i -> Sample in
            let s = Sample()
            s.identifier = i
            s.description = "new"
            return s
        }
        XCTAssertThrowsError(try database.insert(objects: batch, intoTable: "sampleTable"))
        XCTAssertEqual(try identifiers(database), [3], "the failing batch left nothing behind")
        try database.insert(objects: Array(batch.prefix(2)), intoTable: "sampleTable")
        XCTAssertEqual(try identifiers(database), [1, 2, 3])
    }

    func testDeleteSamples() throws {
        var database = try fixture((1...6).map { ($0, "d\($0)") })
        // 删除 sampleTable 中所有 identifier 大于 1 的行的数据
        try database.delete(fromTable: "sampleTable", where: Sample.Properties.identifier > 1)
        XCTAssertEqual(try identifiers(database), [1])

        try database.drop(table: "sampleTable")
        database = try fixture((1...6).map { ($0, "d\($0)") })
        // 删除 sampleTable 中 identifier 降序排列后的前 2 行数据
        try database.delete(fromTable: "sampleTable", orderBy: Sample.Properties.identifier.asOrder(by: .descending), limit: 2)
        XCTAssertEqual(try identifiers(database), [1, 2, 3, 4])

        try database.drop(table: "sampleTable")
        database = try fixture([(1, "a"), (2, nil), (3, "c"), (4, "d"), (5, "e"), (6, "f"), (7, nil), (8, "h")])
        // 删除 description 非空的数据,按 identifier 降序排列后的前 3 行的后 2 行数据
        // Non-null descending: 8, 6, 5, 4, 3, 1; skip 3 (8, 6, 5), delete the next 2 (4, 3).
        try database.delete(fromTable: "sampleTable",
                            where: Sample.Properties.description.isNotNull(),
                            orderBy: Sample.Properties.identifier.asOrder(by: .descending),
                            limit: 2,
                            offset: 3)
        XCTAssertEqual(try identifiers(database), [1, 2, 5, 6, 7, 8])

        // 删除 sampleTable 中的所有数据
        try database.delete(fromTable: "sampleTable")
        XCTAssertEqual(try identifiers(database), [])
        XCTAssertTrue(try database.isTableExists("sampleTable"), "delete does not drop the table")
    }

    func testUpdateWithObject() throws {
        let database = try fixture([(1, "a"), (2, nil), (3, "c"), (4, "d")])
        let object = Sample()
        object.description = "update"
        try database.update(table: "sampleTable",
                            on: Sample.Properties.description,
                            with: object,
                            where: Sample.Properties.identifier > 1 && Sample.Properties.description.isNotNull())
        XCTAssertEqual(try database.getColumn(on: Sample.Properties.description, fromTable: "sampleTable",
                                              orderBy: Sample.Properties.identifier.asOrder()).map(\.debugDescription),
                       ["\"a\"", "NULL", "\"update\"", "\"update\""])
        object.description = "first3"
        try database.update(table: "sampleTable", on: Sample.Properties.description, with: object,
                            orderBy: Sample.Properties.identifier.asOrder(), limit: 3)
        XCTAssertEqual(try database.getColumn(on: Sample.Properties.description, fromTable: "sampleTable",
                                              orderBy: Sample.Properties.identifier.asOrder()).map(\.stringValue),
                       ["first3", "first3", "first3", "update"])
    }

    func testUpdateWithRow() throws {
        let database = try fixture([(1, "a"), (2, nil), (3, "c"), (4, "d")])
        let row: [ColumnEncodable] = ["update"]
        try database.update(table: "sampleTable",
                            on: Sample.Properties.description,
                            with: row,
                            where: Sample.Properties.identifier > 1 && Sample.Properties.description.isNotNull())
        XCTAssertEqual(try database.getColumn(on: Sample.Properties.description, fromTable: "sampleTable",
                                              orderBy: Sample.Properties.identifier.asOrder()).map(\.debugDescription),
                       ["\"a\"", "NULL", "\"update\"", "\"update\""])
        try database.update(table: "sampleTable", on: Sample.Properties.description, with: row, limit: 3)
        let updated = try database.getValue(on: Sample.Properties.description.count(), fromTable: "sampleTable",
                                            where: Sample.Properties.description == "update")
        XCTAssertEqual(updated.int64Value, 4)
    }

    func testObjectQueries() throws {
        let database = try fixture((1...12).map { ($0, "d\($0)") })
        let allObjects: [Sample] = try database.getObjects(fromTable: "sampleTable")
        XCTAssertEqual(allObjects.count, 12)
        let objects: [Sample] = try database.getObjects(fromTable: "sampleTable",
            where: Sample.Properties.identifier < 5 || Sample.Properties.identifier > 10)
        XCTAssertEqual(objects.compactMap(\.identifier), [1, 2, 3, 4, 11, 12])
        let object: Sample? = try database.getObject(fromTable: "sampleTable",
            orderBy: Sample.Properties.identifier.asOrder(by: .descending))
        XCTAssertEqual(object?.identifier, 12)
    }

    func testPartialObjectQuery() throws {
        let database = try fixture([(1, "a"), (2, "b")])
        let objects: [Sample] = try database.getObjects(fromTable: "sampleTable", on: Sample.Properties.identifier)
        XCTAssertEqual(objects.compactMap(\.identifier), [1, 2])
        XCTAssertTrue(objects.allSatisfy { $0.description == nil }, "description was not selected")
        let same: [Sample] = try database.getObjects(on: Sample.Properties.identifier, fromTable: "sampleTable")
        XCTAssertEqual(same.count, 2)
        // description is a non-optional String in PartialSample: a partial select cannot fill it.
        XCTAssertThrowsError(try {
            let _: [CRUD.PartialSample] = try database.getObjects(fromTable: "sampleTable", on: Sample.Properties.identifier)
        }()) { error in
            XCTAssertEqual((error as? SiftError)?.operation, .decode)
            XCTAssertEqual((error as? SiftError)?.code, .mismatch)
        }
    }

    func testValueQueries() throws {
        let database = try fixture([(1, "sample1"), (2, "sample1"), (3, "sample2"), (4, "sample2"), (5, "sample2")])
        let allRows = try database.getRows(fromTable: "sampleTable")
        XCTAssertEqual(allRows[row: 2, column: 0].int32Value, 3)
        let secondRow = try database.getRow(fromTable: "sampleTable", offset: 1)
        XCTAssertEqual(secondRow[0].int32Value, 2)
        let descriptionColumn = try database.getColumn(on: Sample.Properties.description, fromTable: "sampleTable")
        XCTAssertEqual(descriptionColumn.map(\.stringValue), ["sample1", "sample1", "sample2", "sample2", "sample2"])
        let distinctDescriptionColumn = try database.getDistinctColumn(on: Sample.Properties.description, fromTable: "sampleTable")
        XCTAssertEqual(distinctDescriptionColumn.map(\.stringValue), ["sample1", "sample2"])
        // WCDB's text leaves out fromTable here; its evident intent is the same table.
        let value = try database.getValue(on: Sample.Properties.description, fromTable: "sampleTable", offset: 1)
        XCTAssertEqual(value.stringValue, "sample1")
        let maxIdentifier = try database.getValue(on: Sample.Properties.identifier.max(), fromTable: "sampleTable")
        XCTAssertEqual(maxIdentifier.int64Value, 5)
        let distinctDescription = try database.getDistinctValue(on: Sample.Properties.description, fromTable: "sampleTable")
        XCTAssertEqual(distinctDescription.stringValue, "sample1")
    }
}
