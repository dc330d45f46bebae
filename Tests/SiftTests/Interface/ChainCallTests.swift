import Foundation
import XCTest
import Sift

final class ChainCallTests: SiftTestCase {
    typealias Sample = CRUD.Sample

    private func fixture() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        let objects = (1...10).map { i -> Sample in
            let s = Sample()
            s.identifier = i
            s.description = i % 2 == 0 ? "even" : "odd"
            return s
        }
        try database.insert(objects: objects, intoTable: "sampleTable")
        return database
    }

    func testSelectChainAndCursor() throws {
        let database = try fixture()
        let select = try database.prepareSelect(of: Sample.self, fromTable: "sampleTable")
            .where(Sample.Properties.identifier > 2).order(by: Sample.Properties.identifier.asOrder(by: .descending)).limit(3).offset(1)
        XCTAssertEqual(select.description,
                       "SELECT identifier, description FROM sampleTable WHERE identifier > 2 ORDER BY identifier DESC LIMIT 3 OFFSET 1")
        let first: Sample? = try select.nextObject()
        XCTAssertEqual(first?.identifier, 9)
        let rest: [Sample] = try select.allObjects()
        XCTAssertEqual(rest.compactMap(\.identifier), [8, 7])
        let none: Sample? = try select.nextObject()
        XCTAssertNil(none, "an exhausted select stays exhausted")
        select.limit(1)
        XCTAssertEqual(try select.allObjects(of: Sample.self).compactMap(\.identifier), [9], "changing a clause starts over")
    }

    func testRowSelectGroupHaving() throws {
        let database = try fixture()
        let rows = try database.prepareRowSelect(on: Sample.Properties.description, Sample.Properties.identifier.count(),
                                                 fromTable: "sampleTable")
            .group(by: Sample.Properties.description).having(Sample.Properties.identifier.count() > 1)
            .order(by: Sample.Properties.description.asOrder()).allRows()
        XCTAssertEqual(rows.map { $0[0].stringValue }, ["even", "odd"])
        XCTAssertEqual(rows.map { $0[1].int64Value }, [5, 5])
        let values = try database.prepareRowSelect(on: Sample.Properties.identifier, fromTable: "sampleTable")
            .where(Sample.Properties.identifier.between(3, 5)).allValues()
        XCTAssertEqual(values.map(\.int64Value), [3, 4, 5])
    }

    func testPreparedInsertUpdateDelete() throws {
        let database = try fixture()
        let insert = try database.prepareInsert(of: Sample.self, intoTable: "sampleTable")
        let s = Sample()
        s.identifier = 11
        s.description = "new"
        try insert.execute(with: s)
        let update = try database.prepareUpdate(table: "sampleTable", on: Sample.Properties.description)
            .where(Sample.Properties.identifier >= 10)
        try update.execute(with: ["ten+"])
        XCTAssertEqual(try database.getColumn(on: Sample.Properties.description, fromTable: "sampleTable",
                                              where: Sample.Properties.identifier >= 10).map(\.stringValue), ["ten+", "ten+"])
        let replace = try database.prepareInsertOrReplace(of: Sample.self, intoTable: "sampleTable")
        let replacement = Sample()
        replacement.identifier = 11
        replacement.description = "replaced"
        try replace.execute(with: replacement)
        let values = try database.prepareRowSelect(on: Sample.Properties.description, fromTable: "sampleTable")
            .where(Sample.Properties.identifier == 11)
        XCTAssertEqual(try values.nextValue()?.stringValue, "replaced")
        XCTAssertNil(try values.nextValue())
        try database.prepareDelete(fromTable: "sampleTable").where(Sample.Properties.description == "odd").execute()
        XCTAssertEqual(try database.getValue(on: Column.all.count(), fromTable: "sampleTable").int64Value, 6)
    }

    func testTableInterface() throws {
        let database = try fixture()
        XCTAssertNil(try database.getTable(named: "missing", of: Sample.self))
        let table = try XCTUnwrap(try database.getTable(named: "sampleTable", of: Sample.self))
        let objects = try table.getObjects(where: Sample.Properties.identifier < 3)
        XCTAssertEqual(objects.compactMap(\.identifier), [1, 2])
        let s = Sample()
        s.identifier = 1
        s.description = "replaced"
        try table.insertOrReplace(objects: s)
        XCTAssertEqual(try table.getObject(where: Sample.Properties.identifier == 1)?.description, "replaced")
        try table.update(on: Sample.Properties.description, with: ["x"], where: Sample.Properties.identifier == 2)
        XCTAssertEqual(try table.getValue(on: Sample.Properties.description, where: Sample.Properties.identifier == 2).stringValue, "x")
        try table.delete(where: Sample.Properties.identifier > 1)
        XCTAssertEqual(try table.getRows().count, 1)
    }
}

// A join decoding two bound types.
final class Author: TableCodable {
    var identifier: Int = 0
    var name: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Author
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case identifier, name
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [identifier: ColumnConstraintBinding(isPrimary: true)] }
    }
}

final class Message: TableCodable {
    var identifier: Int = 0
    var authorID: Int = 0
    var content: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Message
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case identifier, authorID, content
        static var tableConstraintBindings: [TableConstraintBinding.Name: TableConstraintBinding]? {
            ["authorFK": ForeignKeyBinding(authorID, foreignTable: "author", foreignColumns: Author.CodingKeys.identifier, onDelete: .cascade)]
        }
    }
}

final class MultiSelectTests: SiftTestCase {
    func testJoinDecodesBothTypesAndForeignKeysAreEnforced() throws {
        let database = makeDatabase()
        try database.create(table: "author", of: Author.self)
        try database.create(table: "message", of: Message.self)
        let ada = Author(); ada.identifier = 1; ada.name = "Ada"
        let alan = Author(); alan.identifier = 2; alan.name = "Alan"
        try database.insert(objects: ada, alan, intoTable: "author")
        let m1 = Message(); m1.identifier = 1; m1.authorID = 1; m1.content = "hello"
        let m2 = Message(); m2.identifier = 2; m2.authorID = 2; m2.content = "world"
        try database.insert(objects: [m1, m2], intoTable: "message")
        let rows = try database.prepareMultiSelect(on: Message.Properties.all.inTable("message") + Author.Properties.all.inTable("author"),
                                                   fromTables: ["message", "author"])
            .where(Message.Properties.authorID.inTable("message") == Author.Properties.identifier.inTable("author"))
            .order(by: Message.Properties.identifier.inTable("message").asOrder()).allMultiObjects()
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual((rows[0]["message"] as? Message)?.content, "hello")
        XCTAssertEqual((rows[0]["author"] as? Author)?.name, "Ada")
        XCTAssertEqual((rows[1]["author"] as? Author)?.name, "Alan")

        let orphan = Message(); orphan.identifier = 3; orphan.authorID = 99
        XCTAssertThrowsError(try database.insert(objects: orphan, intoTable: "message")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .constraint)
        }
        try database.delete(fromTable: "author", where: Author.Properties.identifier == 1)
        XCTAssertEqual(try database.getValue(on: Column.all.count(), fromTable: "message").int64Value, 1, "cascade")
    }
}
