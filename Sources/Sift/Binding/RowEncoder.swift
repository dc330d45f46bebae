import CSQLite
import Foundation

/// Encodes models straight into a prepared statement's parameters.
///
/// One encoder serves a whole batch: the column-to-parameter map is computed once per statement,
/// and each property binds by its key's ordinal, with no per-row hashing or dictionaries.
final class RowEncoder<Key: CodingTableKey>: Encoder {
    let binding: TableBinding<Key>
    /// Parameter index per key ordinal; 0 when the column is not in the statement.
    let parameterIndex: [Int32]
    var stmt: OpaquePointer?
    var failure: Error?
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(binding: TableBinding<Key>, ordinals: [Int], firstParameter: Int32 = 1) {
        self.binding = binding
        var index = [Int32](repeating: 0, count: binding.keys.count)
        for (position, ordinal) in ordinals.enumerated() { index[ordinal] = firstParameter + Int32(position) }
        parameterIndex = index
    }

    /// Binds `object`'s properties; properties the model leaves out (nil optionals) are bound NULL.
    func bind<Object: TableEncodable>(_ object: Object, to stmt: OpaquePointer) throws {
        self.stmt = stmt
        failure = nil
        sqlite3_clear_bindings(stmt)
        try object.encode(to: self)
        if let failure { throw failure }
    }

    @inline(__always)
    func parameter<K: CodingKey>(for key: K) -> Int32 {
        guard let ordinal = binding.ordinal(of: key), ordinal < parameterIndex.count else { return 0 }
        return parameterIndex[ordinal]
    }

    @inline(__always)
    func check(_ rc: Int32) {
        if rc != SQLITE_OK && failure == nil {
            failure = SiftError(code: SiftError.Code(rawValue: rc), message: "Cannot bind a value.", operation: .bind)
        }
    }

    private var containers = ContainerCache()

    func container<K: CodingKey>(keyedBy type: K.Type) -> KeyedEncodingContainer<K> {
        containers.container(for: K.self) { KeyedEncodingContainer(RowEncodingContainer<K, Key>(encoder: self)) }
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        failure = SiftError(code: .misuse, message: "A table model must encode with a keyed container.", operation: .encode)
        return NoUnkeyedContainer()
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        failure = SiftError(code: .misuse, message: "A table model must encode with a keyed container.", operation: .encode)
        return NoSingleValueContainer()
    }
}

struct RowEncodingContainer<K: CodingKey, Key: CodingTableKey>: KeyedEncodingContainerProtocol {
    let encoder: RowEncoder<Key>
    let byTag: Bool
    var codingPath: [CodingKey] { [] }

    init(encoder: RowEncoder<Key>) {
        self.encoder = encoder
        byTag = encoder.binding.keysAreTagged(K.self)
    }

    @inline(__always)
    private func parameter(_ key: K) -> Int32 {
        if byTag { return encoder.parameterIndex[Int(unsafeBitCast(key, to: UInt8.self))] }
        return encoder.parameter(for: key)
    }

    @inline(__always)
    private func bind(_ key: K, _ body: (OpaquePointer, Int32) -> Int32) {
        let index = parameter(key)
        guard index > 0, let stmt = encoder.stmt else { return }
        encoder.check(body(stmt, index))
    }

    mutating func encodeNil(forKey key: K) throws { bind(key) { sqlite3_bind_null($0, $1) } }
    mutating func encode(_ value: Bool, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, value ? 1 : 0) } }
    mutating func encode(_ value: String, forKey key: K) throws { bind(key) { RawStatement.bindText(value, at: $1, in: $0) } }
    mutating func encode(_ value: Double, forKey key: K) throws { bind(key) { sqlite3_bind_double($0, $1, value) } }
    mutating func encode(_ value: Float, forKey key: K) throws { bind(key) { sqlite3_bind_double($0, $1, Double(value)) } }
    mutating func encode(_ value: Int, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, Int64(value)) } }
    mutating func encode(_ value: Int8, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, Int64(value)) } }
    mutating func encode(_ value: Int16, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, Int64(value)) } }
    mutating func encode(_ value: Int32, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, Int64(value)) } }
    mutating func encode(_ value: Int64, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, value) } }
    mutating func encode(_ value: UInt, forKey key: K) throws {
        bind(key) { sqlite3_bind_int64($0, $1, Int64(bitPattern: UInt64(value))) }
    }
    mutating func encode(_ value: UInt8, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, Int64(value)) } }
    mutating func encode(_ value: UInt16, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, Int64(value)) } }
    mutating func encode(_ value: UInt32, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, Int64(value)) } }
    mutating func encode(_ value: UInt64, forKey key: K) throws { bind(key) { sqlite3_bind_int64($0, $1, Int64(bitPattern: value)) } }

    mutating func encode<T: Encodable>(_ value: T, forKey key: K) throws {
        let index = parameter(key)
        guard index > 0, let stmt = encoder.stmt else { return }
        // Common Foundation types without a dynamic cast to a protocol existential.
        if T.self == Date.self {
            let date = unsafeBitCast(value, to: Date.self)
            encoder.check(sqlite3_bind_int64(stmt, index, Int64(date.timeIntervalSince1970.rounded(.down))))
            return
        }
        if T.self == Data.self {
            encoder.check(RawStatement.bindBlob(unsafeBitCast(value, to: Data.self), at: index, in: stmt))
            return
        }
        let archived: FundamentalValue
        if let column = value as? ColumnEncodable {
            archived = column.archivedValue()
        } else {
            // Nested Codable values that are not columns themselves are kept as JSON.
            do {
                archived = FundamentalValue(try JSONEncoder().encode(value))
            } catch {
                throw SiftError(code: .mismatch, message: "Cannot encode \(key.stringValue): \(error)", operation: .encode)
            }
        }
        encoder.check(RawStatement.bind(archived, at: index, in: stmt))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: K) -> KeyedEncodingContainer<NestedKey> {
        encoder.failure = SiftError(code: .misuse, message: "Nested containers are not columns; make \(key.stringValue) ColumnCodable.", operation: .encode)
        return KeyedEncodingContainer(RowEncodingContainer<NestedKey, Key>(encoder: encoder))
    }
    mutating func nestedUnkeyedContainer(forKey key: K) -> UnkeyedEncodingContainer {
        encoder.failure = SiftError(code: .misuse, message: "Nested containers are not columns; make \(key.stringValue) ColumnCodable.", operation: .encode)
        return NoUnkeyedContainer()
    }
    mutating func superEncoder() -> Encoder { encoder }
    mutating func superEncoder(forKey key: K) -> Encoder { encoder }
}

/// Stand-ins returned where Codable demands a container Sift cannot honour; the encoder records the error.
struct NoUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(NoKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> Encoder { NoEncoder() }
}

struct NoSingleValueContainer: SingleValueEncodingContainer {
    var codingPath: [CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}

struct NoKeyedContainer<K: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [CodingKey] { [] }
    mutating func encodeNil(forKey key: K) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: K) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: K) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(NoKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: K) -> UnkeyedEncodingContainer { NoUnkeyedContainer() }
    mutating func superEncoder() -> Encoder { NoEncoder() }
    mutating func superEncoder(forKey key: K) -> Encoder { NoEncoder() }
}

struct NoEncoder: Encoder {
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(NoKeyedContainer<Key>()) }
    func unkeyedContainer() -> UnkeyedEncodingContainer { NoUnkeyedContainer() }
    func singleValueContainer() -> SingleValueEncodingContainer { NoSingleValueContainer() }
}

/// The keyed container of the previous row. Every row of a statement asks for the same key type, and
/// building the container (a boxed generic, with its runtime metadata) per row cost more than the row's columns.
struct ContainerCache {
    private var box: AnyObject?
    private var keyType: ObjectIdentifier?

    mutating func container<K, Container>(for key: K.Type, _ make: () -> Container) -> Container {
        if keyType == ObjectIdentifier(K.self), let box {
            // Made for this key type: an unchecked downcast avoids a dynamic cast per row.
            return unsafeDowncast(box, to: ContainerBox<Container>.self).container
        }
        let container = make()
        box = ContainerBox(container)
        keyType = ObjectIdentifier(K.self)
        return container
    }
}

/// Holds a coding container between rows.
final class ContainerBox<Container> {
    let container: Container
    init(_ container: Container) { self.container = container }
}
