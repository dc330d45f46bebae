import Foundation
import SiftMacros
import XCTest

struct Spot: ColumnCodable, Equatable {
    var x: Int32
    static var columnType: ColumnType { .integer64 }
    func archivedValue() -> FundamentalValue { FundamentalValue(Int64(x)) }
    init(x: Int32) { self.x = x }
    init?(with value: FundamentalValue) { x = Int32(truncatingIfNeeded: value.int64Value) }
}

struct Detail: Codable, Equatable { var name: String; var tags: [String] }

/// Every column type, and properties that are not columns.
@TableRowCoding
struct Generated: TableCodable, Equatable {
    var id: Int64
    var flag: Bool
    var small: Int8, count: Int, unsigned: UInt64
    var ratio: Float, score: Double
    var name: String
    var note: String?
    var created: Date
    var link: URL
    var payload: Data
    var numbers: [Int]
    var spot: Spot
    var detail: Detail
    var maybe: Int?
    var transient = "not a column"
    var derived: String { "#\(id)" }
    static let shared = 1

    enum CodingKeys: String, CodingTableKey {
        typealias Root = Generated
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, flag, small, count, unsigned, ratio, score, name, note, created, link, payload, numbers, spot, detail, maybe
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// Counts its trips through Codable, to show the generated code replaces them.
@TableRowCoding
struct Counted: TableCodable {
    nonisolated(unsafe) static var codableCalls = 0
    var id: Int64
    var text: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Counted
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, text
    }
}

// In an extension, so the memberwise initializer stays.
extension Counted {
    init(from decoder: Decoder) throws {
        Counted.codableCalls += 1
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        text = try container.decode(String.self, forKey: .text)
    }
    func encode(to encoder: Encoder) throws {
        Counted.codableCalls += 1
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(text, forKey: .text)
    }
}

/// WCDB Swift's model shape, the README's first model: a class with optional properties, the implicit `init()`
/// and a primary key among its column constraints.
@TableRowCoding
final class Sample: TableCodable {
    var identifier: Int? = nil
    var description: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Sample
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case identifier = "id"
        case description
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
            [identifier: ColumnConstraintBinding(isPrimary: true)]
        }
    }
}

/// A class that can be subclassed: its initializer must be `required`.
@TableRowCoding
class Base: TableCodable {
    var id: Int64 = 0
    let kind = "base"
    var title: String! = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Base
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, kind, title
    }
}

final class TableRowCodingTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-macro-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func database() -> Database { Database(withPath: directory.appendingPathComponent("test.db").path) }

    private func generated(_ id: Int64, note: String?) -> Generated {
        let number = Int(id)
        let name = "name \(id) is long enough to live on the heap"
        let created = Date(timeIntervalSince1970: 1_700_000_000 + Double(id))
        let link = URL(string: "https://example.com/\(id)") ?? URL(fileURLWithPath: "/")
        let payload = Data([0, 1, UInt8(id)])
        let detail = Detail(name: "d\(id)", tags: ["a", "b"])
        let maybe: Int? = id % 3 == 0 ? nil : number
        let flag: Bool = id % 2 == 0, small: Int8 = -8, count: Int = number * 1000, unsigned: UInt64 = .max
        let ratio: Float = 0.5, score: Double = 2.25, numbers: [Int] = [1, 2, number], spot = Spot(x: Int32(id))
        // The memberwise initializer is still there: the macro adds its members in an extension.
        return Generated(id: id, flag: flag, small: small, count: count, unsigned: unsigned, ratio: ratio, score: score,
                         name: name, note: note, created: created, link: link, payload: payload, numbers: numbers,
                         spot: spot, detail: detail, maybe: maybe)
    }

    func testGeneratedCodingWritesAndReadsEveryColumn() throws {
        let database = database()
        try database.create(table: "generated", of: Generated.self)
        let objects = (1...50).map { generated($0, note: $0 % 2 == 0 ? "note \($0)" : nil) }
        try database.insert(objects: objects, intoTable: "generated")
        let read: [Generated] = try database.getObjects(fromTable: "generated", orderBy: Generated.Properties.id.asOrder())
        XCTAssertEqual(read, objects)
        // Columns as the Codable path writes them: the custom type by its archive, the nested struct as JSON.
        let row = try database.getRows(sql: "SELECT spot, detail, created FROM generated WHERE id = 7")
        XCTAssertEqual(row.first?[0].int64Value, 7)
        XCTAssertEqual(try JSONDecoder().decode(Detail.self, from: row.first?[1].dataValue ?? Data()), Detail(name: "d7", tags: ["a", "b"]))
        XCTAssertEqual(row.first?[2].int64Value, 1_700_000_007)
    }

    func testGeneratedCodingReplacesCodable() throws {
        let database = database()
        try database.create(table: "counted", of: Counted.self)
        let before = Counted.codableCalls  // the binding decoded one placeholder to learn the column types
        try database.insert(objects: (1...10).map { Counted(id: $0, text: "t\($0)") }, intoTable: "counted")
        let read: [Counted] = try database.getObjects(fromTable: "counted")
        XCTAssertEqual(read.map(\.text), (1...10).map { "t\($0)" })
        XCTAssertEqual(Counted.codableCalls, before)
        let types = try database.getRows(sql: "SELECT type FROM pragma_table_info('counted') ORDER BY cid").map(\.[0].stringValue)
        XCTAssertEqual(types, ["INTEGER", "TEXT"])
    }

    func testGeneratedCodingKeepsTheNullAndPartialSelectRules() throws {
        let database = database()
        try database.create(table: "generated", of: Generated.self)
        try database.insert(objects: generated(1, note: nil), intoTable: "generated")
        try database.exec(sql: "UPDATE generated SET name = NULL")
        XCTAssertThrowsError(try database.getObjects(fromTable: "generated") as [Generated]) { error in
            XCTAssertTrue("\(error)".contains("column name is NULL"), "\(error)")
        }
        let samples = database
        try samples.create(table: "samples", of: Sample.self)
        let sample = Sample()
        sample.identifier = 1
        sample.description = "one"
        try samples.insert(objects: sample, intoTable: "samples")
        let partial: [Sample] = try samples.getObjects(on: Sample.Properties.identifier, fromTable: "samples")
        XCTAssertEqual(partial.map(\.identifier), [1])
        XCTAssertEqual(partial.map(\.description), [nil])
    }

    /// The README's tour, with its model's rows read and written by the generated methods.
    func testTheReadmeTourRunsWithGeneratedCoding() throws {
        let database = database()
        try database.create(table: "sampleTable", of: Sample.self)
        for (identifier, description) in [(1, "insert"), (7, "middle"), (12, "high")] {
            let object = Sample()
            object.identifier = identifier
            object.description = description
            try database.insert(objects: object, intoTable: "sampleTable")
        }
        XCTAssertThrowsError(try database.insert(objects: { let o = Sample(); o.identifier = 1; return o }(),
                                                 intoTable: "sampleTable"), "identifier is the primary key")
        let objects: [Sample] = try database.getObjects(
            fromTable: "sampleTable", where: Sample.Properties.identifier < 5 || Sample.Properties.identifier > 10)
        XCTAssertEqual(objects.map(\.identifier), [1, 12])
        XCTAssertEqual(objects.map(\.description), ["insert", "high"])
        try database.run(transaction: {
            try database.update(table: "sampleTable", on: Sample.Properties.description, with: ["update"],
                                where: Sample.Properties.identifier == 1)
            try database.delete(fromTable: "sampleTable", where: Sample.Properties.identifier == 7)
        })
        let after: [Sample] = try database.getObjects(fromTable: "sampleTable")
        XCTAssertEqual(after.map(\.description), ["update", "high"])
    }

    func testClassesKeepTheirImplicitInitializerAndConstants() throws {
        let database = database()
        try database.create(table: "bases", of: Base.self)
        let base = Base()
        base.id = 3
        base.title = "three"
        try database.insert(objects: base, intoTable: "bases")
        let read: Base? = try database.getObject(fromTable: "bases")
        XCTAssertEqual(read?.id, 3)
        XCTAssertEqual(read?.title, "three")
        XCTAssertEqual(read?.kind, "base")
        XCTAssertEqual(try database.getValue(on: Column(named: "kind"), fromTable: "bases").stringValue, "base")
    }
}
