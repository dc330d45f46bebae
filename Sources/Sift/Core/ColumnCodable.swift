import Foundation

/// A type with a known storage class; the shared root of ``ColumnEncodable`` and ``ColumnDecodable``.
public protocol ColumnTyped {
    /// The column type `create(table:of:)` declares for properties of this type.
    static var columnType: ColumnType { get }
}

/// A type stored in one column. Integers, floating point, `Bool`, `String`, `Data`, `Date`, `URL` and their
/// optionals conform; conform your own types to ``ColumnCodable`` to use them as properties of bound models:
///
///     struct Celsius: ColumnCodable {
///         var degrees: Double
///         static var columnType: ColumnType { .float }
///         func archivedValue() -> FundamentalValue { FundamentalValue(degrees) }
///         init?(with value: FundamentalValue) { degrees = value.doubleValue }
///     }
public protocol ColumnEncodable: Encodable, ColumnTyped {
    /// The value to store (integers as INTEGER, `UInt64` and `UInt` by bit pattern, `Bool` as 0 or 1).
    func archivedValue() -> FundamentalValue
}

/// A type read back from one column.
public protocol ColumnDecodable: Decodable, ColumnTyped {
    /// The value of what a column holds, converted by SQLite's rules (text to numbers and so on); nil when it
    /// cannot be one.
    init?(with value: FundamentalValue)
}

/// A type stored in and read from one column.
public typealias ColumnCodable = ColumnEncodable & ColumnDecodable

// MARK: - Integers (INTEGER)

extension Int: ColumnCodable {
    public static var columnType: ColumnType { .integer64 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension Int8: ColumnCodable {
    public static var columnType: ColumnType { .integer32 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension Int16: ColumnCodable {
    public static var columnType: ColumnType { .integer32 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension Int32: ColumnCodable {
    public static var columnType: ColumnType { .integer32 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension Int64: ColumnCodable {
    public static var columnType: ColumnType { .integer64 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(self) }
    public init?(with value: FundamentalValue) { self = value.int64Value }
}
extension UInt: ColumnCodable {
    public static var columnType: ColumnType { .integer64 }
    // The bit pattern survives values above Int64.max.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(bitPattern: UInt64(self))) }
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: UInt64(bitPattern: value.int64Value)) }
}
extension UInt8: ColumnCodable {
    public static var columnType: ColumnType { .integer32 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension UInt16: ColumnCodable {
    public static var columnType: ColumnType { .integer32 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension UInt32: ColumnCodable {
    public static var columnType: ColumnType { .integer32 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self)) }
    public init?(with value: FundamentalValue) { self.init(truncatingIfNeeded: value.int64Value) }
}
extension UInt64: ColumnCodable {
    public static var columnType: ColumnType { .integer64 }
    // SQLite integers are signed: store the bit pattern so values above Int64.max round-trip.
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(bitPattern: self)) }
    public init?(with value: FundamentalValue) { self.init(bitPattern: value.int64Value) }
}
extension Bool: ColumnCodable {
    public static var columnType: ColumnType { .integer32 }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(self ? 1 : 0)) }
    public init?(with value: FundamentalValue) { self = value.int64Value != 0 }
}

// MARK: - Floating point (REAL)

extension Double: ColumnCodable {
    public static var columnType: ColumnType { .float }
    public func archivedValue() -> FundamentalValue { FundamentalValue(self) }
    public init?(with value: FundamentalValue) { self = value.doubleValue }
}
extension Float: ColumnCodable {
    public static var columnType: ColumnType { .float }
    public func archivedValue() -> FundamentalValue { FundamentalValue(Double(self)) }
    public init?(with value: FundamentalValue) { self.init(value.doubleValue) }
}

// MARK: - Text and binary

extension String: ColumnCodable {
    public static var columnType: ColumnType { .text }
    public func archivedValue() -> FundamentalValue { FundamentalValue(self) }
    public init?(with value: FundamentalValue) { self = value.stringValue }
}
extension URL: ColumnCodable {
    public static var columnType: ColumnType { .text }
    public func archivedValue() -> FundamentalValue { FundamentalValue(absoluteString) }
    public init?(with value: FundamentalValue) { self.init(string: value.stringValue) }
}
extension Data: ColumnCodable {
    public static var columnType: ColumnType { .BLOB }
    public func archivedValue() -> FundamentalValue { FundamentalValue(self) }
    public init?(with value: FundamentalValue) { self = value.dataValue }
}
extension Date: ColumnCodable {
    public static var columnType: ColumnType { .integer64 }
    /// Stored as whole seconds since 1970 in an INTEGER column (sub-second parts are dropped).
    public func archivedValue() -> FundamentalValue { FundamentalValue(Int64(timeIntervalSince1970.rounded(.down))) }
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
    public static var columnType: ColumnType { .BLOB }
}
extension Array: ColumnEncodable where Element: Encodable {
    public func archivedValue() -> FundamentalValue { JSONColumn.archive(self) }
}
extension Array: ColumnDecodable where Element: Decodable {
    public init?(with value: FundamentalValue) {
        guard let v = JSONColumn.unarchive(Self.self, from: value) else { return nil }
        self = v
    }
}
extension Dictionary: ColumnTyped {
    public static var columnType: ColumnType { .BLOB }
}
extension Dictionary: ColumnEncodable where Key: Encodable, Value: Encodable {
    public func archivedValue() -> FundamentalValue { JSONColumn.archive(self) }
}
extension Dictionary: ColumnDecodable where Key: Decodable, Value: Decodable {
    public init?(with value: FundamentalValue) {
        guard let v = JSONColumn.unarchive(Self.self, from: value) else { return nil }
        self = v
    }
}
extension Set: ColumnTyped {
    public static var columnType: ColumnType { .BLOB }
}
extension Set: ColumnEncodable where Element: Encodable {
    public func archivedValue() -> FundamentalValue { JSONColumn.archive(self) }
}
extension Set: ColumnDecodable where Element: Decodable {
    public init?(with value: FundamentalValue) {
        guard let v = JSONColumn.unarchive(Self.self, from: value) else { return nil }
        self = v
    }
}

// MARK: - Optional (NULL)

extension Optional: ColumnTyped where Wrapped: ColumnTyped {
    public static var columnType: ColumnType { Wrapped.columnType }
}
extension Optional: ColumnEncodable where Wrapped: ColumnEncodable {
    public func archivedValue() -> FundamentalValue { self?.archivedValue() ?? .null }
}
extension Optional: ColumnDecodable where Wrapped: ColumnDecodable {
    public init?(with value: FundamentalValue) {
        if value.isNull { self = .none; return }
        guard let wrapped = Wrapped(with: value) else { return nil }
        self = .some(wrapped)
    }
}

extension FundamentalValue: ColumnCodable {
    public static var columnType: ColumnType { .null }
    public func archivedValue() -> FundamentalValue { self }
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
