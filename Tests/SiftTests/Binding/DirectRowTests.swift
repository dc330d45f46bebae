import Foundation
import XCTest
import Sift

/// `AllTypes` with its rows read and written directly (`init(row:)`, `encode(to: TableRowWriter)`).
struct DirectAllTypes: TableCodable, Equatable {
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
        typealias Root = DirectAllTypes
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case bool, int, int8, int16, int32, uint, uint8, uint16, uint32, int64, uint64, date, float, double
        case string, url, data, array, dictionary, set, optional, optionalInt, point, nested
    }

    init() {}

    init(row: TableRow) throws {
        bool = try row.value(forKey: CodingKeys.bool)
        int = try row.value(forKey: CodingKeys.int)
        int8 = try row.value(forKey: CodingKeys.int8)
        int16 = try row.value(forKey: CodingKeys.int16)
        int32 = try row.value(forKey: CodingKeys.int32)
        uint = try row.value(forKey: CodingKeys.uint)
        uint8 = try row.value(forKey: CodingKeys.uint8)
        uint16 = try row.value(forKey: CodingKeys.uint16)
        uint32 = try row.value(forKey: CodingKeys.uint32)
        int64 = try row.value(forKey: CodingKeys.int64)
        uint64 = try row.value(forKey: CodingKeys.uint64)
        date = try row.value(forKey: CodingKeys.date)
        float = try row.value(forKey: CodingKeys.float)
        double = try row.value(forKey: CodingKeys.double)
        string = try row.value(forKey: CodingKeys.string)
        url = try row.value(forKey: CodingKeys.url)
        data = try row.value(forKey: CodingKeys.data)
        array = try row.value(forKey: CodingKeys.array)
        dictionary = try row.value(forKey: CodingKeys.dictionary)
        set = try row.value(forKey: CodingKeys.set)
        optional = try row.value(forKey: CodingKeys.optional)
        optionalInt = try row.value(forKey: CodingKeys.optionalInt)
        point = try row.value(forKey: CodingKeys.point)
        nested = try row.value(forKey: CodingKeys.nested, as: Nested.self)
    }

    func encode(to row: TableRowWriter) throws {
        try row.bind(bool, forKey: CodingKeys.bool)
        try row.bind(int, forKey: CodingKeys.int)
        try row.bind(int8, forKey: CodingKeys.int8)
        try row.bind(int16, forKey: CodingKeys.int16)
        try row.bind(int32, forKey: CodingKeys.int32)
        try row.bind(uint, forKey: CodingKeys.uint)
        try row.bind(uint8, forKey: CodingKeys.uint8)
        try row.bind(uint16, forKey: CodingKeys.uint16)
        try row.bind(uint32, forKey: CodingKeys.uint32)
        try row.bind(int64, forKey: CodingKeys.int64)
        try row.bind(uint64, forKey: CodingKeys.uint64)
        try row.bind(date, forKey: CodingKeys.date)
        try row.bind(float, forKey: CodingKeys.float)
        try row.bind(double, forKey: CodingKeys.double)
        try row.bind(string, forKey: CodingKeys.string)
        try row.bind(url, forKey: CodingKeys.url)
        try row.bind(data, forKey: CodingKeys.data)
        try row.bind(array, forKey: CodingKeys.array)
        try row.bind(dictionary, forKey: CodingKeys.dictionary)
        try row.bind(set, forKey: CodingKeys.set)
        try row.bind(optional, forKey: CodingKeys.optional)
        try row.bind(optionalInt, forKey: CodingKeys.optionalInt)
        try row.bind(point, forKey: CodingKeys.point)
        try row.bind(nested, forKey: CodingKeys.nested)
    }
}

/// Binds text it builds on the spot, so nothing but Sift keeps those strings alive until the row is written.
struct Computed: TableCodable {
    var id: Int64
    var label: String
    var note: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Computed
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, label, note
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init(id: Int64, label: String, note: String? = nil) { self.id = id; self.label = label; self.note = note }
    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        label = try container.decode(String.self, forKey: .label)
        note = try container.decodeIfPresent(String.self, forKey: .note)
    }
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        // Bound twice: the second, temporary value is the one written.
        try container.encode(String(repeating: "x", count: 40), forKey: .label)
        let text = "\(label) is a label long enough to live on the heap #\(id)"
        try container.encode(text.uppercased(), forKey: .label)
        // The same size as the label's text, so the allocator would hand it the label's memory were that freed.
        try container.encodeIfPresent(note.map { _ in String(text.reversed()) }, forKey: .note)
    }
}

final class DirectRowTests: SiftTestCase {
    func testDirectModelRoundTripsEveryColumnType() throws {
        let database = makeDatabase()
        try database.create(table: "direct", of: DirectAllTypes.self)
        var second = DirectAllTypes()
        second.optional = "set"
        second.optionalInt = nil
        second.string = String(repeating: "long text ", count: 10)
        try database.insert(objects: [DirectAllTypes(), second], intoTable: "direct")
        let objects: [DirectAllTypes] = try database.getObjects(fromTable: "direct")
        XCTAssertEqual(objects, [DirectAllTypes(), second])
    }

    func testDirectAndCodableModelsReadEachOthersRows() throws {
        let database = makeDatabase()
        try database.create(table: "codable", of: AllTypes.self)
        try database.insert(objects: AllTypes(), intoTable: "codable")
        let direct: DirectAllTypes? = try database.getObject(fromTable: "codable")
        XCTAssertEqual(direct, DirectAllTypes())

        try database.create(table: "direct", of: DirectAllTypes.self)
        try database.insert(objects: DirectAllTypes(), intoTable: "direct")
        let codable: AllTypes? = try database.getObject(fromTable: "direct")
        XCTAssertEqual(codable, AllTypes())
    }

    func testNullReadsAsNilOnlyIntoOptionals() throws {
        let database = makeDatabase()
        try database.create(table: "direct", of: DirectAllTypes.self)
        try database.insert(objects: DirectAllTypes(), intoTable: "direct")
        try database.exec(sql: "UPDATE direct SET optionalInt = NULL")
        let object: DirectAllTypes? = try database.getObject(fromTable: "direct")
        XCTAssertNil(object?.optionalInt)

        for column in ["int64", "string", "double", "date", "point"] {
            try database.exec(sql: "UPDATE direct SET \(column) = NULL")
            XCTAssertThrowsError(try database.getObject(fromTable: "direct") as DirectAllTypes?, column) { error in
                XCTAssertEqual((error as? SiftError)?.code, .mismatch)
                XCTAssertTrue("\(error)".contains("column \(column) is NULL"), "\(error)")
            }
            try database.delete(fromTable: "direct")
            try database.insert(objects: DirectAllTypes(), intoTable: "direct")
        }
    }

    func testPartialSelectLeavesOptionalsNilAndRejectsMissingRequiredColumns() throws {
        let database = makeDatabase()
        try database.create(table: "direct", of: DirectAllTypes.self)
        try database.insert(objects: DirectAllTypes(), intoTable: "direct")
        XCTAssertThrowsError(try database.getObjects(on: DirectAllTypes.Properties.int64, fromTable: "direct") as [DirectAllTypes]) { error in
            XCTAssertEqual((error as? SiftError)?.code, .mismatch)
            XCTAssertTrue("\(error)".contains("was not selected"), "\(error)")
        }
    }

    func testStringsBuiltWhileEncodingSurviveUntilTheRowIsWritten() throws {
        let database = makeDatabase()
        try database.create(table: "computed", of: Computed.self)
        let objects = (1...500).map { Computed(id: $0, label: "label\($0)", note: $0 % 2 == 0 ? "note\($0)" : nil) }
        try database.insert(objects: objects, intoTable: "computed")
        let rows = try database.getRows(sql: "SELECT id, label, note FROM computed ORDER BY id")
        XCTAssertEqual(rows.count, 500)
        for row in rows {
            let id = row[0].int64Value
            let text = "label\(id) is a label long enough to live on the heap #\(id)"
            XCTAssertEqual(row[1].stringValue, text.uppercased())
            // Odd objects leave the note out: NULL, not the previous object's value.
            XCTAssertEqual(row[2].isNull, id % 2 == 1, "row \(id)")
            if id % 2 == 0 { XCTAssertEqual(row[2].stringValue, String(text.reversed())) }
        }
        // The cached insert statement keeps no binding into those strings: a later insert binds afresh.
        try database.insert(objects: Computed(id: 1000, label: "last"), intoTable: "computed")
        let last = try database.getRows(sql: "SELECT note FROM computed WHERE id = 1000")
        XCTAssertEqual(last.first?.first?.isNull, true)
    }
}
