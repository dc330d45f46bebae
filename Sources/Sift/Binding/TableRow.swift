import CSQLite
import Foundation

/// The current row of a select, as a model's `init(row:)` reads it.
///
/// Models decode through Codable by default. Codable reaches every property through the standard
/// library's type-erased containers, which costs more than reading the row itself; a model that
/// implements `init(row:)` reads its columns directly, with the same rules (the same columns, NULL only
/// into optionals, typed errors):
///
///     init(row: TableRow) throws {
///         identifier = try row.value(forKey: CodingKeys.identifier)
///         description = try row.value(forKey: CodingKeys.description)
///     }
public struct TableRow {
    let decoder: RowDecoder

    @usableFromInline
    func fundamentalValue<Key: CodingKey>(of key: Key) -> FundamentalValue? { decoder.value(of: key) }

    @usableFromInline
    func text<Key: CodingKey>(forKey key: Key) throws -> String { try decoder.text(key, byTag: decoder.columns.isTagged(Key.self)) }

    @usableFromInline
    func integer<Key: CodingKey>(forKey key: Key) throws -> Int64 {
        try decoder.integer(key, Int64.self, byTag: decoder.columns.isTagged(Key.self))
    }

    @usableFromInline
    func real<Key: CodingKey>(forKey key: Key) throws -> Double { try decoder.real(key, byTag: decoder.columns.isTagged(Key.self)) }

    @usableFromInline
    func date<Key: CodingKey>(forKey key: Key) throws -> Date { try decoder.date(key, byTag: decoder.columns.isTagged(Key.self)) }

    @usableFromInline
    func mismatch<Key: CodingKey>(_ type: Any.Type, _ value: FundamentalValue, _ key: Key) -> SiftError {
        decoder.mismatch(type, value, key)
    }

    /// The value of `key`'s column, converted the way `ColumnDecodable` says.
    ///
    /// A NULL or a column the select left out is nil for an optional and an error otherwise.
    // Inlinable so it is specialized in the model's own module: unspecialized, `Value?` alone cost a
    // runtime metadata lookup per column.
    @inlinable
    public func value<Key: CodingKey, Value: ColumnDecodable>(forKey key: Key, as type: Value.Type = Value.self) throws -> Value {
        // The commonest column types read SQLite directly (the checks fold away once specialized).
        if Value.self == String.self { return unsafeBitCast(try text(forKey: key), to: Value.self) }
        if Value.self == Int64.self { return unsafeBitCast(try integer(forKey: key), to: Value.self) }
        if Value.self == Int.self { return unsafeBitCast(Int(truncatingIfNeeded: try integer(forKey: key)), to: Value.self) }
        if Value.self == Double.self { return unsafeBitCast(try real(forKey: key), to: Value.self) }
        if Value.self == Date.self { return unsafeBitCast(try date(forKey: key), to: Value.self) }
        guard let value = fundamentalValue(of: key), !value.isNull else { return try absent(key) }
        guard let decoded = Value(with: value) else { throw mismatch(Value.self, value, key) }
        return decoded
    }

    /// A value of another Codable type, kept as JSON. The type is spelled out (`as:`): Swift ranks the two
    /// `value` methods by an argument, never by the return type alone.
    public func value<Key: CodingKey, Value: Decodable>(forKey key: Key, as type: Value.Type) throws -> Value {
        guard let value = decoder.value(of: key), !value.isNull else { return try absent(key) }
        do {
            return try JSONDecoder().decode(Value.self, from: value.dataValue)
        } catch {
            throw SiftError(code: .mismatch, message: "Invalid JSON for \(Value.self) in column \(key.stringValue): \(error)",
                            operation: .decode)
        }
    }

    /// nil for optionals; the same error as the Codable path otherwise. Only NULLs and unselected columns get here.
    @usableFromInline
    func absent<Key: CodingKey, Value>(_ key: Key) throws -> Value {
        if let optional = Value.self as? any ExpressibleByNilLiteral.Type, let none = optional.init(nilLiteral: ()) as? Value {
            return none
        }
        throw decoder.missing(key, Value.self)
    }
}

/// The parameters of the row being written, as a model's `encode(to:)` binds them.
///
/// The counterpart of `TableRow` for inserts and updates:
///
///     func encode(to row: TableRowWriter) throws {
///         try row.bind(identifier, forKey: CodingKeys.identifier)
///         try row.bind(description, forKey: CodingKeys.description)
///     }
public struct TableRowWriter {
    let encoder: RowEncoder

    @usableFromInline
    func bind<Key: CodingKey>(fundamental value: FundamentalValue, forKey key: Key) throws { try encoder.bind(value, forKey: key) }

    /// Binds `value` to `key`'s column (ignored when the statement does not write that column).
    // Inlinable for the same reason as `TableRow.value(forKey:)`.
    @inlinable
    public func bind<Key: CodingKey, Value: ColumnEncodable>(_ value: Value, forKey key: Key) throws {
        try bind(fundamental: value.archivedValue(), forKey: key)
    }

    /// Binds text, without a copy when it is long enough to have stable storage.
    public func bind<Key: CodingKey>(_ value: String, forKey key: Key) throws {
        guard let (stmt, index) = encoder.target(key) else { return }
        try encoder.check(encoder.bindText(value, at: index, in: stmt))
    }

    /// Binds a value of another Codable type as JSON.
    public func bind<Key: CodingKey, Value: Encodable>(_ value: Value, forKey key: Key) throws {
        guard let (stmt, index) = encoder.target(key) else { return }
        let json: FundamentalValue
        do {
            json = FundamentalValue(try JSONEncoder().encode(value))
        } catch {
            throw SiftError(code: .mismatch, message: "Cannot encode \(key.stringValue): \(error)", operation: .encode)
        }
        try encoder.check(RawStatement.bind(json, at: index, in: stmt))
    }
}

extension TableDecodable {
    /// Decodes through Codable; models may implement it to read their columns directly (see `TableRow`).
    public init(row: borrowing TableRow) throws {
        try self.init(from: row.decoder)
    }
}

extension TableEncodable {
    /// Encodes through Codable; models may implement it to bind their columns directly (see `TableRowWriter`).
    public func encode(to row: borrowing TableRowWriter) throws {
        try encode(to: row.encoder)
    }
}
