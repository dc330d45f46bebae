import Foundation
import XCTest
import Sift

struct Point: ColumnCodable, Equatable {
    var x: Int32, y: Int32
    static var columnType: ColumnType { .integer64 }
    func archivedValue() -> FundamentalValue { FundamentalValue(Int64(x) << 32 | Int64(UInt32(bitPattern: y))) }
    init(x: Int32, y: Int32) { self.x = x; self.y = y }
    init?(with value: FundamentalValue) {
        guard value.type == .integer64 else { return nil }
        x = Int32(truncatingIfNeeded: value.int64Value >> 32)
        y = Int32(truncatingIfNeeded: value.int64Value)
    }
}

struct Nested: Codable, Equatable { var name: String; var tags: [String] }

struct AllTypes: TableCodable, Equatable {
    var bool = true
    var int = Int.min
    var int8 = Int8.min, int16 = Int16.max, int32 = Int32.min
    var uint = UInt.max, uint8 = UInt8.max, uint16 = UInt16.max, uint32 = UInt32.max
    var int64 = Int64.max, uint64 = UInt64.max
    var date = Date(timeIntervalSince1970: 1_700_000_000)
    var float: Float = 1.5, double = 2.25
    var string = "héllo 世界 🙂", url = URL(string: "https://example.com/a?b=c")!
    var data = Data([0, 1, 2, 255])
    var array = [1, 2, 3], dictionary = ["a": 1], set: Set<String> = ["x"]
    var optional: String? = nil, optionalInt: Int? = 5
    var point = Point(x: -3, y: 7)
    var nested = Nested(name: "n", tags: ["t"])

    enum CodingKeys: String, CodingTableKey {
        typealias Root = AllTypes
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case bool, int, int8, int16, int32, uint, uint8, uint16, uint32, int64, uint64, date, float, double
        case string, url, data, array, dictionary, set, optional, optionalInt, point, nested
    }
}

final class ColumnTypeTests: SiftTestCase {
    func testEveryBuiltInTypeRoundTripsWithItsColumnType() throws {
        let database = makeDatabase()
        let sqls = Collected<String>()
        database.trace(ofSQL: { sqls.append($0) })
        try database.create(table: "all", of: AllTypes.self)
        XCTAssertEqual(sqls.all.first { $0.hasPrefix("CREATE TABLE") },
                       "CREATE TABLE IF NOT EXISTS \"all\"(bool INTEGER, int INTEGER, int8 INTEGER, int16 INTEGER, int32 INTEGER, "
                       + "uint INTEGER, uint8 INTEGER, uint16 INTEGER, uint32 INTEGER, int64 INTEGER, uint64 INTEGER, date INTEGER, "
                       + "float REAL, double REAL, string TEXT, url TEXT, data BLOB, array BLOB, dictionary BLOB, \"set\" BLOB, "
                       + "optional TEXT, optionalInt INTEGER, point INTEGER, nested BLOB)")
        let value = AllTypes()
        try database.insert(objects: value, intoTable: "all")
        let read: AllTypes? = try database.getObject(fromTable: "all")
        XCTAssertEqual(read, value)
        XCTAssertEqual(try database.getValue(on: AllTypes.Properties.uint64, fromTable: "all").int64Value, -1,
                       "UInt64.max is stored as its bit pattern")
        XCTAssertEqual(try database.getValue(on: AllTypes.Properties.date, fromTable: "all").type, .integer64)
        XCTAssertEqual(try database.getValue(on: AllTypes.Properties.optional, fromTable: "all").type, .null)
        XCTAssertEqual(try database.getValue(on: AllTypes.Properties.array, fromTable: "all").dataValue, Data("[1,2,3]".utf8))
    }

    func testNullInNonOptionalColumnIsTypedDecodeError() throws {
        let database = makeDatabase()
        try database.create(table: "all", of: AllTypes.self)
        try database.insert(objects: AllTypes(), intoTable: "all")
        try database.exec(sql: "UPDATE \"all\" SET string = NULL")
        XCTAssertThrowsError(try { let _: [AllTypes] = try database.getObjects(fromTable: "all") }()) { error in
            XCTAssertEqual((error as? SiftError)?.operation, .decode)
            XCTAssertTrue((error as? SiftError)?.message.contains("string") ?? false)
        }
    }

    func testInvalidUTF8InTheDatabaseIsRepairedNotACrash() throws {
        let database = makeDatabase()
        try database.create(table: "sampleTable", of: CRUD.Sample.self)
        try database.exec(sql: "INSERT INTO sampleTable VALUES (1, CAST(X'61FF62' AS TEXT))")
        let read: CRUD.Sample? = try database.getObject(fromTable: "sampleTable")
        XCTAssertEqual(read?.description, "a\u{FFFD}b")
    }
}
