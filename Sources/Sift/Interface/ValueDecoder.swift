import Foundation

/// Decodes a model from column values held in memory (joins, where rows are split by table).
enum ValueDecoder {
    static func decode<Object: TableDecodable>(_ type: Object.Type, from values: [String: FundamentalValue]) throws -> Object {
        do {
            return try Object(from: Decoder(values: values))
        } catch let error as SiftError {
            throw error
        } catch {
            throw SiftError(code: .mismatch, message: "Cannot decode \(Object.self): \(RowDecoder.explain(error))",
                            operation: .decode)
        }
    }

    struct Decoder: Swift.Decoder {
        let values: [String: FundamentalValue]
        var codingPath: [CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Container<Key>(values: values))
        }
        func unkeyedContainer() throws -> UnkeyedDecodingContainer {
            throw SiftError(code: .misuse, message: "A table model must decode with a keyed container.", operation: .decode)
        }
        func singleValueContainer() throws -> SingleValueDecodingContainer {
            throw SiftError(code: .misuse, message: "A table model must decode with a keyed container.", operation: .decode)
        }
    }

    struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let values: [String: FundamentalValue]
        var codingPath: [CodingKey] { [] }
        var allKeys: [Key] { values.keys.compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }
        func decodeNil(forKey key: Key) throws -> Bool { values[key.stringValue]?.isNull ?? true }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let value = values[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "not selected"))
            }
            if value.isNull { throw DecodingError.valueNotFound(T.self, .init(codingPath: [key], debugDescription: "NULL")) }
            if let column = T.self as? ColumnDecodable.Type, let decoded = column.init(with: value) as? T { return decoded }
            do {
                return try JSONDecoder().decode(T.self, from: value.dataValue)
            } catch {
                throw DecodingError.typeMismatch(T.self, .init(codingPath: [key], debugDescription: "cannot convert \(value.type)"))
            }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw SiftError(code: .misuse, message: "Nested containers are not columns.", operation: .decode)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
            throw SiftError(code: .misuse, message: "Nested containers are not columns.", operation: .decode)
        }
        func superDecoder() throws -> Swift.Decoder { Decoder(values: values) }
        func superDecoder(forKey key: Key) throws -> Swift.Decoder { Decoder(values: values) }
    }
}
