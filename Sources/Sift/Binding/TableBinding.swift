import Foundation

/// Everything Sift derives once from a model's `CodingKeys`: column names and types, constraints,
/// indexes, and the fast key-to-column lookup the row coders use.
///
/// Create it as `static let objectRelationalMapping = TableBinding(CodingKeys.self)`.
public final class TableBinding<CodingTableKeyType: CodingTableKey>: @unchecked Sendable {
    typealias Key = CodingTableKeyType

    let keys: [Key]
    let columnNames: [String]
    /// Storage class per key ordinal, learned by decoding a model once; nil when it could not be learned.
    let columnTypes: [ColumnType?]
    let columnConstraints: [ColumnConstraintBinding?]
    let indexes: [(suffix: String, binding: IndexBinding)]
    let tableConstraints: [(name: String, binding: TableConstraintBinding)]
    let virtualTable: VirtualTableBinding?
    /// The compressed columns, by name, in declaration order.
    let compressions: [(column: String, compression: ColumnCompression)]
    /// The integer primary key column that auto-increment inserts leave to the database.
    let integerPrimaryKeyOrdinal: Int?
    /// Whether enum tags equal case positions, so a key's ordinal is one memory load.
    private let tagIsOrdinal: Bool
    let ordinalByName: [String: Int]

    /// The binding of `type`'s cases, computed once.
    public init(_ type: CodingTableKeyType.Type) {
        keys = Array(Key.allCases)
        columnNames = keys.map(\.stringValue)
        var byName: [String: Int] = [:]
        for (i, name) in columnNames.enumerated() where byName[name] == nil { byName[name] = i }
        ordinalByName = byName
        tagIsOrdinal = keys.enumerated().allSatisfy { TableBinding.tag(of: $0.element) == $0.offset }

        let types: [ColumnType?]
        if let decodable = Key.Root.self as? Decodable.Type {
            types = ColumnTypeRecorder.record(decodable, columns: columnNames)
        } else {
            types = Array(repeating: nil, count: keys.count)
        }
        columnTypes = types
        let constraintsByKey = Key.columnConstraintBindings ?? [:]
        let constraints = keys.map { constraintsByKey[$0] }
        columnConstraints = constraints
        indexes = (Key.indexBindings ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        tableConstraints = (Key.tableConstraintBindings ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        virtualTable = Key.virtualTableBinding
        let compressionsByKey = Key.columnCompressionBindings ?? [:]
        compressions = keys.compactMap { key in compressionsByKey[key].map { (key.stringValue, $0) } }
        integerPrimaryKeyOrdinal = keys.indices.first { i in
            constraints[i]?.isPrimary == true && (types[i] == .integer32 || types[i] == .integer64)
        }
    }

    /// The tag of a payload-free enum value, or nil for other layouts.
    private static func tag<K>(of key: K) -> Int? {
        switch MemoryLayout<K>.size {
        case 0: return 0
        case 1: return withUnsafeBytes(of: key) { Int($0[0]) }
        case 2: return withUnsafeBytes(of: key) { Int($0.load(as: UInt16.self)) }
        default: return nil
        }
    }

    func ordinal(ofColumn name: String) -> Int? { ordinalByName[name] }

    /// Whether `K` is this binding's key enum stored in one byte whose value is the ordinal, so a key
    /// can be turned into a column with a single load.
    func keysAreTagged<K>(_ type: K.Type) -> Bool {
        tagIsOrdinal && K.self == Key.self && MemoryLayout<K>.size == 1
    }

    /// `name TYPE constraints` for each column.
    func columnDefinition(at ordinal: Int, forVirtualTable: Bool = false) -> String {
        var sql = SQLBuilder.quote(columnNames[ordinal])
        if forVirtualTable {
            if columnConstraints[ordinal]?.isUnindexed == true { sql += " UNINDEXED" }
            return sql
        }
        if let type = columnTypes[ordinal], type != .null { sql += " " + type.sqlTypeName }
        if let constraint = columnConstraints[ordinal]?.sql, !constraint.isEmpty { sql += " " + constraint }
        return sql
    }

    func indexName(_ suffix: String, table: String) -> String { table + suffix }
}
