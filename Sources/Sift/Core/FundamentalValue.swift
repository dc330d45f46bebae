import Foundation

/// The storage classes SQLite knows, as Sift names them.
public enum ColumnType: Sendable, Hashable {
    case integer32, integer64, float, text, BLOB, null

    /// The type name used in a column definition.
    public var sqlTypeName: String {
        switch self {
        case .integer32, .integer64: return "INTEGER"
        case .float: return "REAL"
        case .text: return "TEXT"
        case .BLOB: return "BLOB"
        case .null: return ""
        }
    }
}

/// One value as SQLite stores it: the common currency between Swift types and the database.
public struct FundamentalValue: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    enum Storage: Sendable, Hashable {
        case null, integer(Int64), float(Double), text(String), blob(Data)
    }
    let storage: Storage

    init(storage: Storage) { self.storage = storage }
    /// SQL NULL.
    public static let null = FundamentalValue(storage: .null)
    /// An integer value.
    public init(_ value: Int64) { storage = .integer(value) }
    /// An integer value.
    public init(_ value: Int) { storage = .integer(Int64(value)) }
    /// A floating-point value.
    public init(_ value: Double) { storage = .float(value) }
    /// A text value.
    public init(_ value: String) { storage = .text(value) }
    /// A binary value.
    public init(_ value: Data) { storage = .blob(value) }
    /// NULL when `value` is nil.
    public init(_ value: String?) { self = value.map { FundamentalValue(storage: .text($0)) } ?? .null }

    /// The storage class of this value.
    public var type: ColumnType {
        switch storage {
        case .null: return .null
        case .integer: return .integer64
        case .float: return .float
        case .text: return .text
        case .blob: return .BLOB
        }
    }

    /// Whether this is SQL NULL.
    public var isNull: Bool { if case .null = storage { return true } else { return false } }

    /// The value as a 32-bit integer, converted the way SQLite converts (truncating).
    public var int32Value: Int32 { Int32(truncatingIfNeeded: int64Value) }

    /// The value as a 64-bit integer, converted the way SQLite converts.
    public var int64Value: Int64 {
        switch storage {
        case .null: return 0
        case .integer(let v): return v
        case .float(let v): return v.isFinite ? Int64(exactly: v.rounded(.towardZero)) ?? (v < 0 ? .min : .max) : 0
        case .text(let s): return Int64(s.trimmingCharacters(in: .whitespaces)) ?? Int64(Double(s) ?? 0)
        case .blob(let d): return Int64(String(decoding: d, as: UTF8.self)) ?? 0
        }
    }

    /// The value as a double, converted the way SQLite converts.
    public var doubleValue: Double {
        switch storage {
        case .null: return 0
        case .integer(let v): return Double(v)
        case .float(let v): return v
        case .text(let s): return Double(s.trimmingCharacters(in: .whitespaces)) ?? 0
        case .blob(let d): return Double(String(decoding: d, as: UTF8.self)) ?? 0
        }
    }

    /// The value as text; NULL is the empty string.
    public var stringValue: String {
        switch storage {
        case .null: return ""
        case .integer(let v): return String(v)
        case .float(let v): return String(v)
        case .text(let s): return s
        case .blob(let d): return String(decoding: d, as: UTF8.self)
        }
    }

    /// The value as bytes; NULL is empty data.
    public var dataValue: Data {
        switch storage {
        case .null: return Data()
        case .blob(let d): return d
        default: return Data(stringValue.utf8)
        }
    }

    /// A readable rendering.
    public var description: String { isNull ? "NULL" : stringValue }

    /// A rendering for debugging: text quoted, blobs by size.
    public var debugDescription: String {
        switch storage {
        case .text(let s): return "\"\(s)\""
        case .blob(let d): return "<\(d.count) bytes>"
        default: return description
        }
    }
}

extension FundamentalValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByNilLiteral
{
    /// A value from a literal.
    public init(integerLiteral value: Int64) { self.init(value) }
    /// A value from a literal.
    public init(floatLiteral value: Double) { self.init(value) }
    /// A value from a literal.
    public init(stringLiteral value: String) { self.init(value) }
    /// A value from a literal.
    public init(nilLiteral: ()) { self = .null }
}

/// One row of values.
public typealias FundamentalRow = [FundamentalValue]
/// One column of values.
public typealias FundamentalColumn = [FundamentalValue]
/// A matrix of values, rows first.
public typealias FundamentalRowXColumn = [FundamentalRow]

extension Array where Element == FundamentalRow {
    /// The value at `row`, `column`; NULL when out of range.
    public subscript(row row: Int, column column: Int) -> FundamentalValue {
        guard indices.contains(row), self[row].indices.contains(column) else { return .null }
        return self[row][column]
    }
}
