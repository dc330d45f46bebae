import Foundation

/// The least `Decodable` can cost: a model's compiler-synthesized `init(from:)` run on a decoder that does nothing
/// else. `items(from:)` hands each record's values to `Item.init(from:)` in the order it asks for them, without
/// looking at the keys, reusing one decoder and one container for every row (what Sift's own decoder does too).
///
/// The raw C API's fetch followed by this is the floor of any fetch through `Codable`: reading the columns, plus
/// the calls the synthesized initializer makes through the `Decoder` protocols (a container per object, a
/// `decode(_:forKey:)` per property, `Date` through the generic `decode`). `orm-fetch` times it beside Sift's
/// `getObjects`, so Sift's own share is the difference between the two.
enum CodableFloor {
    static func items(from records: [BenchRecord]) throws -> [Item] {
        let decoder = RecordDecoder()
        var items: [Item] = []
        items.reserveCapacity(records.count)
        for record in records {
            decoder.record = record
            decoder.position = 0
            items.append(try Item(from: decoder))
        }
        return items
    }
}

/// Hands out `record`'s values in declaration order (`id`, `number`, `score`, `name`, `note`, `created`).
private final class RecordDecoder: Decoder {
    var record = BenchRecord(id: 0, number: 0, score: 0, name: "", note: "", created: Date(timeIntervalSince1970: 0))
    /// The next value's place in declaration order.
    var position = 0
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The one container, made once (the standard library boxes a container when it is made).
    private lazy var itemContainer = KeyedDecodingContainer(RecordContainer<Item.CodingKeys>(decoder: self))

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard Key.self == Item.CodingKeys.self else { throw RecordDecoder.unsupported(Key.self) }
        // The same type, as the check above proved: no dynamic cast per row.
        return unsafeBitCast(itemContainer, to: KeyedDecodingContainer<Key>.self)
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer { throw RecordDecoder.unsupported(UnkeyedDecodingContainer.self) }
    func singleValueContainer() throws -> SingleValueDecodingContainer {
        throw RecordDecoder.unsupported(SingleValueDecodingContainer.self)
    }

    static func unsupported(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(codingPath: [], debugDescription: "only Item is decoded here"))
    }

    /// The next value, which must be of type `T`.
    func next<T>(_ type: T.Type) throws -> T {
        defer { position += 1 }
        let value: Any
        switch position {
        case 0: value = record.id
        case 1: value = record.number
        case 2: value = record.score
        case 3: value = record.name
        case 4: value = record.note
        default: value = record.created
        }
        guard let typed = value as? T else { throw RecordDecoder.unsupported(T.self) }
        return typed
    }
}

/// The container `Item.init(from:)` reads from: every value from the decoder, in order.
private struct RecordContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    // Not counted: the decoder keeps the boxed container (a strong reference would be a cycle) and outlives it, and
    // a checked unowned reference costs atomic operations on every access, more than the rest of a decode.
    unowned(unsafe) let decoder: RecordDecoder
    var codingPath: [CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        defer { decoder.position += 1 }
        return decoder.position == 0 ? decoder.record.id : decoder.record.number
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        decoder.position += 1
        return decoder.record.score
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        defer { decoder.position += 1 }
        return decoder.position == 3 ? decoder.record.name : decoder.record.note
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if T.self == Date.self {
            decoder.position += 1
            return unsafeBitCast(decoder.record.created, to: T.self)
        }
        return try decoder.next(T.self)
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.next(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.next(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.next(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.next(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.next(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.next(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.next(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.next(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.next(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.next(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.next(type) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> { throw RecordDecoder.unsupported(type) }
    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        throw RecordDecoder.unsupported(UnkeyedDecodingContainer.self)
    }
    func superDecoder() throws -> Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> Decoder { decoder }
}
