import Foundation

/// A type that can be stored in one column.
///
/// Conform custom types to ``ColumnCodable`` to use them as properties of bound models.
/// A type with a known storage class; the shared root of ``ColumnEncodable`` and ``ColumnDecodable``.
public protocol ColumnTyped {
    /// The storage class of the column.
    static var columnType: ColumnType { get }
}

/// A type that can be stored in one column.
public protocol ColumnEncodable: Encodable, ColumnTyped {
    /// The value as SQLite stores it.
    func archivedValue() -> FundamentalValue
}

/// A type that can be read back from one column.
public protocol ColumnDecodable: Decodable, ColumnTyped {
    /// Rebuilds a value from what the database holds; nil when it cannot.
    init?(with value: FundamentalValue)
}

/// A type that can be both stored in and read from one column.
public typealias ColumnCodable = ColumnEncodable & ColumnDecodable

// MARK: - Integers (INTEGER)

extension Int: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer64 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension Int8: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer32 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension Int16: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer32 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension Int32: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer32 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension Int64: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer64 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(self) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self = value.int64Value }
}
extension UInt: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer64 }
    // The bit pattern survives values above Int64.max.
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(bitPattern: UInt64(self))) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: UInt64(bitPattern: value.int64Value)) }
}
extension UInt8: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer32 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension UInt16: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer32 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension UInt32: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer32 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension UInt64: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer64 }
    // SQLite integers are signed: store the bit pattern so values above Int64.max round-trip.
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(bitPattern: self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(bitPattern: value.int64Value) }
}
extension Bool: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer32 }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self ? 1 : 0)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self = value.int64Value != 0 }
}

// MARK: - Floating point (REAL)

extension Double: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .float }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(self) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self = value.doubleValue }
}
extension Float: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .float }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Double(self)) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(value.doubleValue) }
}

// MARK: - Text and binary

extension String: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .text }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(self) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self = value.stringValue }
}
extension URL: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .text }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(absoluteString) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self.init(string: value.stringValue) }
}
extension Data: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .BLOB }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { FundamentalValue(self) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self = value.dataValue }
}
extension Date: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .integer64 }
    /// Stored as whole seconds since 1970, the timestamp format of the seed documents (sub-second parts are dropped).
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(timeIntervalSince1970.rounded(.down))) }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) {
        // A REAL written by other programs keeps its fraction.
        self.init(timeIntervalSince1970: value.type == .float ? value.doubleValue : Double(value.int64Value))
    }
}

// MARK: - Collections (JSON in a BLOB)

/// JSON coding for collection columns; failures surface as typed errors at the call site.
enum JSONColumn {
    static func archive<T: Encodable>(_ value: T) -> FundamentalValue {
        // Encoding plain Codable collections only fails for non-finite floats; store NULL rather than trap.
        (try? JSONEncoder().encode(value)).map(FundamentalValue.init) ?? .null
    }
    static func unarchive<T: Decodable>(_ type: T.Type, from value: FundamentalValue) -> T? {
        guard !value.isNull else { return nil }
        return try? JSONDecoder().decode(T.self, from: value.dataValue)
    }
}

extension Array: ColumnTyped {
    /// The storage class of the column.
    public static var columnType: ColumnType { .BLOB }
}
extension Array: ColumnEncodable where Element: Encodable {
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { JSONColumn.archive(self) }
}
extension Array: ColumnDecodable where Element: Decodable {
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) {
        guard let v = JSONColumn.unarchive(Self.self, from: value) else { return nil }
        self = v
    }
}
extension Dictionary: ColumnTyped {
    /// The storage class of the column.
    public static var columnType: ColumnType { .BLOB }
}
extension Dictionary: ColumnEncodable where Key: Encodable, Value: Encodable {
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { JSONColumn.archive(self) }
}
extension Dictionary: ColumnDecodable where Key: Decodable, Value: Decodable {
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) {
        guard let v = JSONColumn.unarchive(Self.self, from: value) else { return nil }
        self = v
    }
}
extension Set: ColumnTyped {
    /// The storage class of the column.
    public static var columnType: ColumnType { .BLOB }
}
extension Set: ColumnEncodable where Element: Encodable {
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { JSONColumn.archive(self) }
}
extension Set: ColumnDecodable where Element: Decodable {
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) {
        guard let v = JSONColumn.unarchive(Self.self, from: value) else { return nil }
        self = v
    }
}

// MARK: - Optional (NULL)

extension Optional: ColumnTyped where Wrapped: ColumnTyped {
    /// The storage class of the column.
    public static var columnType: ColumnType { Wrapped.columnType }
}
extension Optional: ColumnEncodable where Wrapped: ColumnEncodable {
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { self?.archivedValue() ?? .null }
}
extension Optional: ColumnDecodable where Wrapped: ColumnDecodable {
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) {
        if value.isNull { self = .none; return }
        guard let wrapped = Wrapped(with: value) else { return nil }
        self = .some(wrapped)
    }
}

extension FundamentalValue: ColumnCodable {
    /// The storage class of the column.
    public static var columnType: ColumnType { .null }
    /// The value as SQLite stores it.
    public func archivedValue() -> FundamentalValue { self }
    /// Rebuilds a value from what the database holds.
    public init?(with value: FundamentalValue) { self = value }
    /// Encodes the value as the plain value it holds.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch storage {
        case .null: try container.encodeNil()
        case .integer(let v): try container.encode(v)
        case .float(let v): try container.encode(v)
        case .text(let v): try container.encode(v)
        case .blob(let v): try container.encode(v)
        }
    }
    /// Decodes a plain value.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let v = try? container.decode(Int64.self) { self.init(v) }
        else if let v = try? container.decode(Double.self) { self.init(v) }
        else if let v = try? container.decode(String.self) { self.init(v) }
        else { self.init(try container.decode(Data.self)) }
    }
}
