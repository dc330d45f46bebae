import CSQLite
import Foundation

/// Decodes models straight from the current row of a statement.
///
/// The key-to-column map is computed once per statement; each property reads its column by the
/// key's ordinal. Columns a partial select left out are "not present", so optional properties
/// stay nil and required ones fail with a typed error.
///
/// Not generic on purpose: the synthesized `init(from:)` reaches the decoder and its containers through
/// witness tables, unspecialized, and every generic class on that path cost runtime metadata and
/// witness-table lookups per property.
final class RowDecoder: Decoder {
    /// Result column per key ordinal; -1 when the statement does not select it.
    let columns: OrdinalTable
    private let columnNames: [String]
    /// The selected columns' names; only `allKeys` asks, so it is not built per statement.
    var presentNames: [String] { columnNames.indices.filter { columns.slots[$0] >= 0 }.map { columnNames[$0] } }
    /// The binding this decoder was made for, so a cursor can tell whether it fits a model.
    let bindingID: ObjectIdentifier
    var stmt: OpaquePointer?
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder for a statement whose result column `i` holds the key with ordinal `ordinals[i]` (nil: not a property).
    init<Key>(binding: TableBinding<Key>, ordinals: [Int?]) {
        columns = OrdinalTable(binding, absent: -1, slots: ordinals.enumerated().compactMap { column, ordinal in
            ordinal.map { ($0, Int32(column)) }
        })
        columnNames = binding.columnNames
        bindingID = ObjectIdentifier(binding)
    }

    deinit { columns.deallocate() }

    /// The result column of `key`; -1 when not selected.
    @inline(__always)
    func column<K: CodingKey>(of key: K) -> Int32 { columns.slot(of: key, byTag: columns.isTagged(K.self)) }

    /// The value of `key`'s column in the current row; nil when not selected.
    func value<K: CodingKey>(of key: K) -> FundamentalValue? {
        let column = column(of: key)
        guard column >= 0, let stmt else { return nil }
        return RawStatement.value(stmt, column)
    }

    func mismatch<K: CodingKey>(_ type: Any.Type, _ value: FundamentalValue, _ key: K) -> SiftError {
        SiftError(code: .mismatch, message: "Cannot decode \(type) from \(value.type) in column \(key.stringValue).", operation: .decode)
    }

    func decode<Object: TableDecodable>(_ type: Object.Type, from stmt: OpaquePointer) throws -> Object {
        self.stmt = stmt
        do {
            return try Object(row: TableRow(decoder: self))
        } catch let error as SiftError {
            throw error
        } catch {
            throw SiftError(code: .mismatch, message: "Cannot decode \(Object.self): \(RowDecoder.explain(error))", operation: .decode)
        }
    }

    /// Every remaining row of `stmt` as objects. Appending to an `[Object]` from unspecialized generic code
    /// looked up `Array<Object>`'s metadata for every row, so rows go into chunks that grow geometrically and
    /// are moved once, into an array of the exact size.
    func decodeRows<Object: TableDecodable>(_ type: Object.Type, from stmt: OpaquePointer,
                                             step: () throws -> Bool) throws -> [Object] {
        // Full chunks as raw pointers and counts: arrays of concrete types, whose metadata needs no lookup.
        var chunks: [UnsafeMutableRawPointer] = [], counts: [Int] = []
        var capacity = 16, count = 0, total = 0
        var current = UnsafeMutablePointer<Object>.allocate(capacity: capacity)
        defer {
            for (chunk, count) in zip(chunks, counts) {
                chunk.assumingMemoryBound(to: Object.self).deinitialize(count: count)
                chunk.deallocate()
            }
            current.deinitialize(count: count)
            current.deallocate()
        }
        while try step() {
            if count == capacity {
                chunks.append(UnsafeMutableRawPointer(current))
                counts.append(count)
                capacity *= 2
                current = .allocate(capacity: capacity)
                count = 0
            }
            (current + count).initialize(to: try decode(Object.self, from: stmt))
            count += 1
            total += 1
        }
        return [Object](unsafeUninitializedCapacity: total) { destination, initialized in
            guard var next = destination.baseAddress else { return }
            for index in chunks.indices {
                next.moveInitialize(from: chunks[index].assumingMemoryBound(to: Object.self), count: counts[index])
                next += counts[index]
                initialized += counts[index]
                counts[index] = 0  // moved out
            }
            next.moveInitialize(from: current, count: count)
            initialized += count
            count = 0
        }
    }

    // MARK: Column readers, shared by the Codable container and `TableRow`

    /// The statement and column of `key`, which must be selected.
    @inline(__always)
    func selected<K: CodingKey>(_ key: K, _ type: Any.Type, byTag: Bool) throws -> (OpaquePointer, Int32) {
        let column = columns.slot(of: key, byTag: byTag)
        guard column >= 0, let stmt else { throw missing(key, type) }
        return (stmt, column)
    }

    /// The statement and column of `key`, which must be selected and not NULL.
    @inline(__always)
    func present<K: CodingKey>(_ key: K, _ type: Any.Type, byTag: Bool) throws -> (OpaquePointer, Int32) {
        let (stmt, column) = try selected(key, type, byTag: byTag)
        if sqlite3_column_type(stmt, column) == SQLITE_NULL { throw missing(key, type) }
        return (stmt, column)
    }

    /// Why a non-optional property of `type` has no value: its column is NULL or was not selected.
    @inline(never)
    func missing<K: CodingKey>(_ key: K, _ type: Any.Type) -> SiftError {
        let reason = column(of: key) >= 0 ? "column \(key.stringValue) is NULL but the property is not optional"
            : "column \(key.stringValue) was not selected; make the property optional to allow partial selects"
        return SiftError(code: .mismatch, message: "Cannot decode \(type): \(reason)", operation: .decode)
    }

    @inline(__always)
    func text<K: CodingKey>(_ key: K, byTag: Bool) throws -> String {
        let (stmt, column) = try selected(key, String.self, byTag: byTag)
        // NULL is the only value without text (empty text is a valid pointer).
        guard let text = sqlite3_column_text(stmt, column) else {
            if sqlite3_column_type(stmt, column) == SQLITE_NULL { throw missing(key, String.self) }
            return ""
        }
        return RawStatement.string(text, count: sqlite3_column_bytes(stmt, column))
    }

    /// NULL reads as 0, so only a 0 needs the type check (one SQLite call per value, as raw code makes).
    @inline(__always)
    func integer<K: CodingKey>(_ key: K, _ type: Any.Type, byTag: Bool) throws -> Int64 {
        let (stmt, column) = try selected(key, type, byTag: byTag)
        let value = sqlite3_column_int64(stmt, column)
        if value == 0 && sqlite3_column_type(stmt, column) == SQLITE_NULL { throw missing(key, type) }
        return value
    }

    @inline(__always)
    func real<K: CodingKey>(_ key: K, byTag: Bool) throws -> Double {
        let (stmt, column) = try selected(key, Double.self, byTag: byTag)
        let value = sqlite3_column_double(stmt, column)
        if value == 0 && sqlite3_column_type(stmt, column) == SQLITE_NULL { throw missing(key, Double.self) }
        return value
    }

    @inline(__always)
    func date<K: CodingKey>(_ key: K, byTag: Bool) throws -> Date {
        let (stmt, column) = try selected(key, Date.self, byTag: byTag)
        switch sqlite3_column_type(stmt, column) {
        case SQLITE_NULL: throw missing(key, Date.self)
        // A REAL written by other programs keeps its fraction.
        case SQLITE_FLOAT: return Date(timeIntervalSince1970: sqlite3_column_double(stmt, column))
        default: return Date(timeIntervalSince1970: Double(sqlite3_column_int64(stmt, column)))
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

    // Only the thread decoding this statement touches it; a dynamic exclusivity check per row is pure cost.
    @exclusivity(unchecked) private var containers = ContainerCache()

    func container<K: CodingKey>(keyedBy type: K.Type) throws -> KeyedDecodingContainer<K> {
        containers.container(for: K.self) { KeyedDecodingContainer(RowDecodingContainer<K>(decoder: self)) }
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        throw SiftError(code: .misuse, message: "A table model must decode with a keyed container.", operation: .decode)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        throw SiftError(code: .misuse, message: "A table model must decode with a keyed container.", operation: .decode)
    }
}

/// The standard library's box copies the container for every property it decodes, so it holds no counted
/// reference: the decoder caches this container and outlives it (a strong reference would also be a cycle).
struct RowDecodingContainer<K: CodingKey>: KeyedDecodingContainerProtocol {
    private let reference: Unmanaged<RowDecoder>
    private var decoder: RowDecoder { reference.takeUnretainedValue() }
    /// Whether keys are the binding's own enum, whose tag is the column ordinal.
    let byTag: Bool
    var codingPath: [CodingKey] { [] }
    private var stmt: OpaquePointer? { decoder.stmt }

    init(decoder: RowDecoder) {
        reference = .passUnretained(decoder)
        byTag = decoder.columns.isTagged(K.self)
    }

    /// Calls the decoder without the retain and release that a method call through `decoder` costs.
    @inline(__always)
    private func reading<T>(_ body: (RowDecoder) throws -> T) rethrows -> T {
        try reference._withUnsafeGuaranteedRef(body)
    }

    @inline(__always)
    private func column(_ key: K) -> Int32 {
        decoder.columns.slot(of: key, byTag: byTag)
    }
    var allKeys: [K] { decoder.presentNames.compactMap { K(stringValue: $0) } }

    func contains(_ key: K) -> Bool { column(key) >= 0 }

    func decodeNil(forKey key: K) throws -> Bool {
        let column = column(key)
        guard column >= 0, let stmt = decoder.stmt else { return true }
        return sqlite3_column_type(stmt, column) == SQLITE_NULL
    }

    /// The column of `key` when it is selected and not NULL, for `decodeIfPresent` (one lookup, not three).
    @inline(__always)
    private func optional(_ key: K) -> (OpaquePointer, Int32)? {
        let column = column(key)
        guard column >= 0, let stmt, sqlite3_column_type(stmt, column) != SQLITE_NULL else { return nil }
        return (stmt, column)
    }

    @inline(__always)
    private func integer(_ key: K, _ type: Any.Type) throws -> Int64 { try reading { try $0.integer(key, type, byTag: byTag) } }

    // Concrete, non-generic readers: the synthesized init reaches them through witness tables, so any
    // generic helper here would run unspecialized.
    func decode(_ type: Bool.Type, forKey key: K) throws -> Bool { try integer(key, type) != 0 }
    func decode(_ type: String.Type, forKey key: K) throws -> String { try reading { try $0.text(key, byTag: byTag) } }
    func decode(_ type: Double.Type, forKey key: K) throws -> Double { try reading { try $0.real(key, byTag: byTag) } }
    func decode(_ type: Float.Type, forKey key: K) throws -> Float { Float(try decode(Double.self, forKey: key)) }
    func decode(_ type: Int.Type, forKey key: K) throws -> Int { Int(truncatingIfNeeded: try integer(key, type)) }
    func decode(_ type: Int8.Type, forKey key: K) throws -> Int8 { Int8(truncatingIfNeeded: try integer(key, type)) }
    func decode(_ type: Int16.Type, forKey key: K) throws -> Int16 { Int16(truncatingIfNeeded: try integer(key, type)) }
    func decode(_ type: Int32.Type, forKey key: K) throws -> Int32 { Int32(truncatingIfNeeded: try integer(key, type)) }
    func decode(_ type: Int64.Type, forKey key: K) throws -> Int64 { try integer(key, type) }
    func decode(_ type: UInt.Type, forKey key: K) throws -> UInt { UInt(truncatingIfNeeded: try integer(key, type)) }
    func decode(_ type: UInt8.Type, forKey key: K) throws -> UInt8 { UInt8(truncatingIfNeeded: try integer(key, type)) }
    func decode(_ type: UInt16.Type, forKey key: K) throws -> UInt16 { UInt16(truncatingIfNeeded: try integer(key, type)) }
    func decode(_ type: UInt32.Type, forKey key: K) throws -> UInt32 { UInt32(truncatingIfNeeded: try integer(key, type)) }
    func decode(_ type: UInt64.Type, forKey key: K) throws -> UInt64 { UInt64(bitPattern: try integer(key, type)) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: K) throws -> Bool? { optional(key).map { sqlite3_column_int64($0.0, $0.1) != 0 } }
    func decodeIfPresent(_ type: String.Type, forKey key: K) throws -> String? { optional(key).map { RawStatement.text($0.0, $0.1) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: K) throws -> Double? { optional(key).map { sqlite3_column_double($0.0, $0.1) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: K) throws -> Int? { optional(key).map { Int(truncatingIfNeeded: sqlite3_column_int64($0.0, $0.1)) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: K) throws -> Int32? { optional(key).map { Int32(truncatingIfNeeded: sqlite3_column_int64($0.0, $0.1)) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: K) throws -> Int64? { optional(key).map { sqlite3_column_int64($0.0, $0.1) } }

    func decode<T: Decodable>(_ type: T.Type, forKey key: K) throws -> T {
        // Common Foundation types without a dynamic cast to a protocol existential.
        if T.self == Date.self { return unsafeBitCast(try reading { try $0.date(key, byTag: byTag) }, to: T.self) }
        if T.self == Data.self {
            let (stmt, column) = try decoder.present(key, type, byTag: byTag)
            return unsafeBitCast(RawStatement.blob(stmt, column), to: T.self)
        }
        return try decodeValue(type, forKey: key)
    }

    /// Other types: kept out of `decode(_:forKey:)` so the fast paths above need no runtime metadata (`T?`) on entry.
    @inline(never)
    private func decodeValue<T: Decodable>(_ type: T.Type, forKey key: K) throws -> T {
        let (stmt, column) = try decoder.present(key, type, byTag: byTag)
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
