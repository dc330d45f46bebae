import CSQLite
import Foundation

/// Encodes models straight into a prepared statement's parameters.
///
/// One encoder serves a whole batch: the column-to-parameter map is computed once per statement,
/// and each property binds by its key's ordinal, with no per-row hashing or dictionaries. Not generic,
/// for the same reason as `RowDecoder`: its containers run unspecialized.
final class RowEncoder: Encoder {
    /// Parameter index per key ordinal; 0 when the column is not in the statement.
    let parameters: OrdinalTable
    var stmt: OpaquePointer?
    var failure: Error?
    /// Strings bound without a copy (SQLITE_STATIC), kept alive until the next object or `finish()`;
    /// at most one per parameter.
    let retained: UnsafeMutablePointer<String>
    let retainedCapacity: Int
    @exclusivity(unchecked) var retainedCount = 0
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init<Key>(binding: TableBinding<Key>, ordinals: [Int], firstParameter: Int32 = 1) {
        parameters = OrdinalTable(binding, absent: 0, slots: ordinals.enumerated().map { position, ordinal in
            (ordinal, firstParameter + Int32(position))
        })
        self.firstParameter = firstParameter
        allBound = ordinals.count < 64 ? (1 << UInt64(ordinals.count)) - 1 : (ordinals.count == 64 ? ~0 : nil)
        retainedCapacity = ordinals.count
        retained = .allocate(capacity: max(1, ordinals.count))
    }

    deinit {
        releaseStrings()
        retained.deallocate()
        parameters.deallocate()
    }

    /// Parameters bound for the current object, a bit each from the first; with at most 64 parameters the
    /// ones left unbound are set NULL afterwards, cheaper than clearing every binding first.
    @exclusivity(unchecked) var bound: UInt64 = 0
    let firstParameter: Int32
    /// All parameters' bits, or nil when there are more than 64.
    private let allBound: UInt64?

    /// Whether another string can be kept alive for this row (a custom `encode(to:)` may bind a key twice).
    var canRetain: Bool { retainedCount < retainedCapacity }

    /// Keeps `string` alive until the row is written; needs `canRetain`.
    @inline(__always)
    func retain(_ string: String) {
        (retained + retainedCount).initialize(to: string)
        retainedCount += 1
    }

    private func releaseStrings() {
        // One at a time: a counted deinitialize goes through the runtime's generic array destroy.
        for index in 0..<retainedCount { (retained + index).deinitialize(count: 1) }
        retainedCount = 0
    }


    /// Binds `object`'s properties; properties the model leaves out (nil optionals) are bound NULL.
    func bind<Object: TableEncodable>(_ object: Object, to stmt: OpaquePointer) throws {
        var object = object
        _ = try bind(inPlace: &object, to: stmt)
    }

    /// Unbinds the strings bound without a copy, so the cached statement keeps no pointer into them.
    func finish() {
        if let stmt { sqlite3_clear_bindings(stmt) }
        releaseStrings()
        stmt = nil
    }

    /// Binds `object` in place (never modified), and returns whether it asks for an auto-incremented key.
    /// `inout` because it is the one way unspecialized code reads a generic value without copying it, and
    /// copying a model retains and releases each of its strings.
    func bind<Object: TableEncodable>(inPlace object: inout Object, to stmt: OpaquePointer) throws -> Bool {
        self.stmt = stmt
        failure = nil
        releaseStrings()
        bound = 0
        if allBound == nil { sqlite3_clear_bindings(stmt) }
        try object.encode(to: TableRowWriter(encoder: self))
        if let failure { throw failure }
        if let allBound {
            var unbound = allBound & ~bound
            while unbound != 0 {
                sqlite3_bind_null(stmt, firstParameter + Int32(unbound.trailingZeroBitCount))
                unbound &= unbound - 1
            }
        }
        return object.isAutoIncrement
    }

    /// The statement and parameter of `key`, marked bound; nil when the statement does not write it.
    @inline(__always)
    func target<K: CodingKey>(_ key: K, byTag: Bool) -> (OpaquePointer, Int32)? {
        let index = parameters.slot(of: key, byTag: byTag)
        guard index > 0, let stmt else { return nil }
        bound |= 1 &<< UInt64(truncatingIfNeeded: index - firstParameter)
        return (stmt, index)
    }

    func target<K: CodingKey>(_ key: K) -> (OpaquePointer, Int32)? { target(key, byTag: parameters.isTagged(K.self)) }

    /// Binds `value` to `key`'s parameter, if the statement writes it.
    func bind<K: CodingKey>(_ value: FundamentalValue, forKey key: K) throws {
        guard let (stmt, index) = target(key) else { return }
        try check(RawStatement.bind(value, at: index, in: stmt))
    }

    @inline(__always)
    func check(_ rc: Int32) throws {
        if rc != SQLITE_OK { throw bindError(rc) }
    }

    @inline(never)
    private func bindError(_ rc: Int32) -> SiftError {
        SiftError(code: SiftError.Code(rawValue: rc), message: "Cannot bind a value.", operation: .bind)
    }

    /// Binds text. Text longer than a small (inline) string has stable heap storage: it is bound in place and
    /// kept alive until the row is written, instead of SQLite copying it.
    @inline(__always)
    func bindText(_ value: String, at index: Int32, in stmt: OpaquePointer) -> Int32 {
        if value.utf8.count > 15, canRetain, let rc = value.utf8.withContiguousStorageIfAvailable({ buffer in
            buffer.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(stmt, index, $0.baseAddress, Int32(buffer.count), sift_sqlite_static()) }
        }) {
            retain(value)
            return rc
        }
        return RawStatement.bindText(value, at: index, in: stmt)
    }

    // Only the thread encoding this batch touches it; a dynamic exclusivity check per row is pure cost.
    @exclusivity(unchecked) private var containers = ContainerCache()

    func container<K: CodingKey>(keyedBy type: K.Type) -> KeyedEncodingContainer<K> {
        containers.container(for: K.self) { KeyedEncodingContainer(RowEncodingContainer<K>(encoder: self)) }
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

/// Holds no counted reference, like `RowDecodingContainer`: the encoder caches it and outlives it.
struct RowEncodingContainer<K: CodingKey>: KeyedEncodingContainerProtocol {
    private let reference: Unmanaged<RowEncoder>
    private var encoder: RowEncoder { reference.takeUnretainedValue() }
    let byTag: Bool
    var codingPath: [CodingKey] { [] }

    init(encoder: RowEncoder) {
        reference = .passUnretained(encoder)
        byTag = encoder.parameters.isTagged(K.self)
    }

    /// Binds `key`'s parameter with `body`, if the statement writes it; calls the encoder without the retain
    /// and release that a method call through an unowned reference costs.
    @inline(__always)
    private func bind(_ key: K, _ body: (RowEncoder, OpaquePointer, Int32) -> Int32) throws {
        try reference._withUnsafeGuaranteedRef { encoder in
            if let (stmt, index) = encoder.target(key, byTag: byTag) { try encoder.check(body(encoder, stmt, index)) }
        }
    }

    @inline(__always)
    private func bindInteger(_ value: Int64, _ key: K) throws {
        try bind(key) { _, stmt, index in sqlite3_bind_int64(stmt, index, value) }
    }

    mutating func encodeNil(forKey key: K) throws { try bind(key) { _, stmt, index in sqlite3_bind_null(stmt, index) } }
    mutating func encode(_ value: String, forKey key: K) throws {
        try bind(key) { encoder, stmt, index in encoder.bindText(value, at: index, in: stmt) }
    }
    mutating func encode(_ value: Double, forKey key: K) throws {
        try bind(key) { _, stmt, index in sqlite3_bind_double(stmt, index, value) }
    }
    mutating func encode(_ value: Float, forKey key: K) throws { try encode(Double(value), forKey: key) }
    mutating func encode(_ value: Bool, forKey key: K) throws { try bindInteger(value ? 1 : 0, key) }
    mutating func encode(_ value: Int, forKey key: K) throws { try bindInteger(Int64(value), key) }
    mutating func encode(_ value: Int8, forKey key: K) throws { try bindInteger(Int64(value), key) }
    mutating func encode(_ value: Int16, forKey key: K) throws { try bindInteger(Int64(value), key) }
    mutating func encode(_ value: Int32, forKey key: K) throws { try bindInteger(Int64(value), key) }
    mutating func encode(_ value: Int64, forKey key: K) throws { try bindInteger(value, key) }
    mutating func encode(_ value: UInt, forKey key: K) throws { try bindInteger(Int64(bitPattern: UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: K) throws { try bindInteger(Int64(value), key) }
    mutating func encode(_ value: UInt16, forKey key: K) throws { try bindInteger(Int64(value), key) }
    mutating func encode(_ value: UInt32, forKey key: K) throws { try bindInteger(Int64(value), key) }
    mutating func encode(_ value: UInt64, forKey key: K) throws { try bindInteger(Int64(bitPattern: value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: K) throws {
        // Common Foundation types without a dynamic cast to a protocol existential.
        if T.self == Date.self {
            let seconds = Int64(unsafeBitCast(value, to: Date.self).timeIntervalSince1970.rounded(.down))
            return try bindInteger(seconds, key)
        }
        if T.self == Data.self {
            let data = unsafeBitCast(value, to: Data.self)
            return try bind(key) { _, stmt, index in RawStatement.bindBlob(data, at: index, in: stmt) }
        }
        guard let (stmt, index) = encoder.target(key, byTag: byTag) else { return }
        try encodeValue(value, forKey: key, at: index, in: stmt)
    }

    /// Other types, kept out of `encode(_:forKey:)` so its fast paths set up nothing they do not use.
    @inline(never)
    private func encodeValue<T: Encodable>(_ value: T, forKey key: K, at index: Int32, in stmt: OpaquePointer) throws {
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
        try encoder.check(RawStatement.bind(archived, at: index, in: stmt))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: K) -> KeyedEncodingContainer<NestedKey> {
        encoder.failure = SiftError(code: .misuse, message: "Nested containers are not columns; make \(key.stringValue) ColumnCodable.", operation: .encode)
        return KeyedEncodingContainer(RowEncodingContainer<NestedKey>(encoder: encoder))
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
