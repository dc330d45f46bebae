import Foundation
import XCTest
import Sift

/// Hostile strings through every path that takes user data: values, conditions, LIKE patterns, table names.
final class InjectionTests: SiftTestCase {
    typealias Sample = CRUD.Sample
    let hostile = [
        "'; DROP TABLE sampleTable; --", "\" OR \"\"=\"", "1 OR 1=1", "%", "_", "\\", "\u{0}", "'); DELETE FROM sampleTable; --",
        "a' || (SELECT sql FROM sqlite_master) || '", "🙂'\"`;", String(repeating: "x'", count: 1000),
    ]

    func testHostileValuesRoundTripAndNeverChangeStatements() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        let objects = hostile.enumerated().map { i, text -> Sample in
            let s = Sample()
            s.identifier = i
            s.description = text
            return s
        }
        try database.insert(objects: objects, intoTable: "sampleTable")
        for (i, text) in hostile.enumerated() {
            let found: [Sample] = try database.getObjects(fromTable: "sampleTable", where: Sample.Properties.description == text)
            XCTAssertEqual(found.map(\.identifier), [i], text)
            try database.update(table: "sampleTable", on: Sample.Properties.description, with: [text + "!"],
                                where: Sample.Properties.description == text)
            XCTAssertEqual(try database.getValue(on: Sample.Properties.description, fromTable: "sampleTable",
                                                 where: Sample.Properties.identifier == i).stringValue, text + "!")
        }
        try database.delete(fromTable: "sampleTable", where: Sample.Properties.description == hostile[0])
        XCTAssertEqual(try database.getValue(on: Column.all.count(), fromTable: "sampleTable").int64Value, Int64(hostile.count))
        XCTAssertTrue(try database.isTableExists("sampleTable"))
    }

    func testLikePatternsAreBoundAndOnlyActAsWildcards() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: Sample.self)
        for (i, text) in ["100%", "100 percent", "a_b", "axb"].enumerated() {
            let s = Sample(); s.identifier = i; s.description = text
            try database.insert(objects: s, intoTable: "sampleTable")
        }
        let wild: [Sample] = try database.getObjects(fromTable: "sampleTable", where: Sample.Properties.description.like("100%"))
        XCTAssertEqual(wild.count, 2)
        let escaped: [Sample] = try database.getObjects(fromTable: "sampleTable",
                                                       where: Sample.Properties.description.like("100\\%", escape: "\\"))
        XCTAssertEqual(escaped.map(\.description), ["100%"])
        let injected: [Sample] = try database.getObjects(fromTable: "sampleTable",
                                                        where: Sample.Properties.description.like("' OR 1=1 --"))
        XCTAssertEqual(injected.count, 0)
    }

    func testHostileTableNamesAreQuoted() throws {
        let database = makeDatabase()
        let name = "evil\"; DROP TABLE other; --"
        try database.exec(sql: "CREATE TABLE other(x)")
        try database.create(table: name, of: Sample.self)
        let s = Sample(); s.identifier = 1; s.description = "ok"
        try database.insert(objects: s, intoTable: name)
        let read: [Sample] = try database.getObjects(fromTable: name)
        XCTAssertEqual(read.map(\.description), ["ok"])
        XCTAssertTrue(try database.isTableExists("other"))
        XCTAssertTrue(try database.isTableExists(name))
    }
}
