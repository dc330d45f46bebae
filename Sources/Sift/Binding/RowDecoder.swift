import CSQLite
import Foundation

/// Decodes models straight from the current row of a statement.
///
/// The key-to-column map is computed once per statement; each property reads its column by the
/// key's ordinal. Columns a partial select left out are "not present", so optional properties
/// stay nil and required ones fail with a typed error.
final class RowDecoder<Key: CodingTableKey>: Decoder {
    let binding: TableBinding<Key>
    /// Result column per key ordinal; -1 when the statement does not select it.
    let resultColumn: [Int32]
    let presentKeys: [Key]
    var stmt: OpaquePointer?
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder for a statement whose result column `i` holds the key with ordinal `ordinals[i]` (nil: not a property).
    init(binding: TableBinding<Key>, ordinals: [Int?]) {
        self.binding = binding
        var columns = [Int32](repeating: -1, count: binding.keys.count)
        for (column, ordinal) in ordinals.enumerated() {
            if let ordinal, columns[ordinal] < 0 { columns[ordinal] = Int32(column) }
        }
        resultColumn = columns
        presentKeys = binding.keys.indices.filter { columns[$0] >= 0 }.map { binding.keys[$0] }
    }

    func decode<Object: TableDecodable>(_ type: Object.Type, from stmt: OpaquePointer) throws -> Object {
        self.stmt = stmt
        do {
            return try Object(from: self)
        } catch let error as SiftError {
            throw error
        } catch {
            throw SiftError(code: .mismatch, message: "Cannot decode \(Object.self): \(RowDecoder.explain(error))", operation: .decode)
        }
    }

    static func explain(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?:
            return "column \(key.stringValue) was not selected; make the property optional to allow partial selects"
        case .valueNotFound(_, let context)?:
            return "column \(context.codingPath.last?.stringValue ?? "?") is NULL but the property is not optional"
        case .typeMismatch(_, let context)?, .dataCorrupted(let context)?:
            return "column \(context.codingPath.last?.stringValue ?? "?"): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    @inline(__always)
    func column<K: CodingKey>(for key: K) -> Int32 {
        guard let ordinal = binding.ordinal(of: key), ordinal < resultColumn.count else { return -1 }
        return resultColumn[ordinal]
    }

    private var containers = ContainerCache()

    func container<K: CodingKey>(keyedBy type: K.Type) throws -> KeyedDecodingContainer<K> {
        containers.container(for: K.self) { KeyedDecodingContainer(RowDecodingContainer<K, Key>(decoder: self)) }
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        throw SiftError(code: .misuse, message: "A table model must decode with a keyed container.", operation: .decode)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        throw SiftError(code: .misuse, message: "A table model must decode with a keyed container.", operation: .decode)
    }
}

struct RowDecodingContainer<K: CodingKey, Key: CodingTableKey>: KeyedDecodingContainerProtocol {
    let decoder: RowDecoder<Key>
    /// Whether keys are this binding's own enum, whose tag is the column ordinal.
    let byTag: Bool
    var codingPath: [CodingKey] { [] }
    private var stmt: OpaquePointer? { decoder.stmt }

    init(decoder: RowDecoder<Key>) {
        self.decoder = decoder
        byTag = decoder.binding.keysAreTagged(K.self)
    }

    @inline(__always)
    private func column(_ key: K) -> Int32 {
        if byTag { return decoder.resultColumn[Int(unsafeBitCast(key, to: UInt8.self))] }
        return decoder.column(for: key)
    }
    var allKeys: [K] { decoder.presentKeys.compactMap { K(stringValue: $0.stringValue) } }

    func contains(_ key: K) -> Bool { column(key) >= 0 }

    func decodeNil(forKey key: K) throws -> Bool {
        let column = column(key)
        guard column >= 0, let stmt = decoder.stmt else { return true }
        return sqlite3_column_type(stmt, column) == SQLITE_NULL
    }

    /// The column of `key` in the current row, which must be selected and not NULL.
    @inline(__always)
    private func present(_ key: K, _ type: Any.Type) throws -> (OpaquePointer, Int32) {
        let column = column(key)
        guard column >= 0, let stmt else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "not selected"))
        }
        if sqlite3_column_type(stmt, column) == SQLITE_NULL {
            throw DecodingError.valueNotFound(type, .init(codingPath: [key], debugDescription: "NULL"))
        }
        return (stmt, column)
    }

    /// The column of `key` when it is selected and not NULL, for `decodeIfPresent` (one lookup, not three).
    @inline(__always)
    private func optional(_ key: K) -> (OpaquePointer, Int32)? {
        let column = column(key)
        guard column >= 0, let stmt, sqlite3_column_type(stmt, column) != SQLITE_NULL else { return nil }
        return (stmt, column)
    }

    // Concrete, non-generic readers: the synthesized init reaches them through witness tables, so any
    // generic helper here would run unspecialized.
    func decode(_ type: Bool.Type, forKey key: K) throws -> Bool { let (s, c) = try present(key, type); return sqlite3_column_int64(s, c) != 0 }
    func decode(_ type: String.Type, forKey key: K) throws -> String { let (s, c) = try present(key, type); return RawStatement.text(s, c) }
    func decode(_ type: Double.Type, forKey key: K) throws -> Double { let (s, c) = try present(key, type); return sqlite3_column_double(s, c) }
    func decode(_ type: Float.Type, forKey key: K) throws -> Float { let (s, c) = try present(key, type); return Float(sqlite3_column_double(s, c)) }
    func decode(_ type: Int.Type, forKey key: K) throws -> Int { let (s, c) = try present(key, type); return Int(truncatingIfNeeded: sqlite3_column_int64(s, c)) }
    func decode(_ type: Int8.Type, forKey key: K) throws -> Int8 { let (s, c) = try present(key, type); return Int8(truncatingIfNeeded: sqlite3_column_int64(s, c)) }
    func decode(_ type: Int16.Type, forKey key: K) throws -> Int16 { let (s, c) = try present(key, type); return Int16(truncatingIfNeeded: sqlite3_column_int64(s, c)) }
    func decode(_ type: Int32.Type, forKey key: K) throws -> Int32 { let (s, c) = try present(key, type); return Int32(truncatingIfNeeded: sqlite3_column_int64(s, c)) }
    func decode(_ type: Int64.Type, forKey key: K) throws -> Int64 { let (s, c) = try present(key, type); return sqlite3_column_int64(s, c) }
    func decode(_ type: UInt.Type, forKey key: K) throws -> UInt { let (s, c) = try present(key, type); return UInt(truncatingIfNeeded: sqlite3_column_int64(s, c)) }
    func decode(_ type: UInt8.Type, forKey key: K) throws -> UInt8 { let (s, c) = try present(key, type); return UInt8(truncatingIfNeeded: sqlite3_column_int64(s, c)) }
    func decode(_ type: UInt16.Type, forKey key: K) throws -> UInt16 { let (s, c) = try present(key, type); return UInt16(truncatingIfNeeded: sqlite3_column_int64(s, c)) }
    func decode(_ type: UInt32.Type, forKey key: K) throws -> UInt32 { let (s, c) = try present(key, type); return UInt32(truncatingIfNeeded: sqlite3_column_int64(s, c)) }
    func decode(_ type: UInt64.Type, forKey key: K) throws -> UInt64 { let (s, c) = try present(key, type); return UInt64(bitPattern: sqlite3_column_int64(s, c)) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: K) throws -> Bool? { optional(key).map { sqlite3_column_int64($0.0, $0.1) != 0 } }
    func decodeIfPresent(_ type: String.Type, forKey key: K) throws -> String? { optional(key).map { RawStatement.text($0.0, $0.1) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: K) throws -> Double? { optional(key).map { sqlite3_column_double($0.0, $0.1) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: K) throws -> Int? { optional(key).map { Int(truncatingIfNeeded: sqlite3_column_int64($0.0, $0.1)) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: K) throws -> Int32? { optional(key).map { Int32(truncatingIfNeeded: sqlite3_column_int64($0.0, $0.1)) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: K) throws -> Int64? { optional(key).map { sqlite3_column_int64($0.0, $0.1) } }

    func decode<T: Decodable>(_ type: T.Type, forKey key: K) throws -> T {
        let (stmt, column) = try present(key, type)
        // Common Foundation types without a dynamic cast to a protocol existential.
        if T.self == Date.self {
            let seconds = sqlite3_column_type(stmt, column) == SQLITE_FLOAT
                ? sqlite3_column_double(stmt, column) : Double(sqlite3_column_int64(stmt, column))
            return unsafeBitCast(Date(timeIntervalSince1970: seconds), to: T.self)
        }
        if T.self == Data.self { return unsafeBitCast(RawStatement.blob(stmt, column), to: T.self) }
        let value = RawStatement.value(stmt, column)
        if let columnType = T.self as? ColumnDecodable.Type {
            guard let decoded = columnType.init(with: value) as? T else {
                throw DecodingError.typeMismatch(T.self, .init(codingPath: [key], debugDescription: "cannot convert \(value.type) to \(T.self)"))
            }
            return decoded
        }
        do {
            return try JSONDecoder().decode(T.self, from: value.dataValue)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "invalid JSON for \(T.self)", underlyingError: error))
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: K) throws -> KeyedDecodingContainer<NestedKey> {
        throw SiftError(code: .misuse, message: "Nested containers are not columns; make \(key.stringValue) ColumnCodable.", operation: .decode)
    }
    func nestedUnkeyedContainer(forKey key: K) throws -> UnkeyedDecodingContainer {
        throw SiftError(code: .misuse, message: "Nested containers are not columns; make \(key.stringValue) ColumnCodable.", operation: .decode)
    }
    func superDecoder() throws -> Decoder { decoder }
    func superDecoder(forKey key: K) throws -> Decoder { decoder }
}
