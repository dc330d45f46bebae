import Foundation

/// Learns each column's storage class by decoding one placeholder model: the keyed container
/// sees which Swift type each key is decoded as. Runs once per binding.
enum ColumnTypeRecorder {
    static func record(_ type: Decodable.Type, columns: [String]) -> [ColumnType?] {
        let recorder = Recorder(columns: columns)
        _ = try? type.init(from: recorder)
        return recorder.types
    }

    final class Recorder: Decoder {
        var types: [ColumnType?]
        let index: [String: Int]
        var codingPath: [CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] = [:]

        init(columns: [String]) {
            types = Array(repeating: nil, count: columns.count)
            var index: [String: Int] = [:]
            for (i, c) in columns.enumerated() { index[c] = i }
            self.index = index
        }

        func note(_ key: CodingKey, _ type: ColumnType) {
            if let i = index[key.stringValue], types[i] == nil { types[i] = type }
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Container<Key>(recorder: self))
        }
        func unkeyedContainer() throws -> UnkeyedDecodingContainer { throw Stop() }
        func singleValueContainer() throws -> SingleValueDecodingContainer { throw Stop() }
    }

    struct Stop: Error {}

    /// Placeholder values that decode successfully into common column types.
    static let placeholders: [FundamentalValue] = [
        FundamentalValue(Int64(0)), FundamentalValue("x"), .null, FundamentalValue(Data("[]".utf8)),
        FundamentalValue(Data("{}".utf8)), FundamentalValue(Data()), FundamentalValue(0.0),
    ]

    struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: Recorder
        var codingPath: [CodingKey] { [] }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { recorder.note(key, .integer32); return false }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { recorder.note(key, .text); return "" }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { recorder.note(key, .float); return 0 }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { recorder.note(key, .float); return 0 }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { recorder.note(key, .integer64); return 0 }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { recorder.note(key, .integer32); return 0 }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { recorder.note(key, .integer32); return 0 }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { recorder.note(key, .integer32); return 0 }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { recorder.note(key, .integer64); return 0 }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { recorder.note(key, .integer64); return 0 }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { recorder.note(key, .integer32); return 0 }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { recorder.note(key, .integer32); return 0 }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { recorder.note(key, .integer32); return 0 }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { recorder.note(key, .integer64); return 0 }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if let column = T.self as? ColumnDecodable.Type {
                recorder.note(key, column.columnType)
                for value in ColumnTypeRecorder.placeholders {
                    if let placeholder = column.init(with: value) as? T { return placeholder }
                }
                throw Stop()
            }
            // Other Codable values are stored as JSON.
            recorder.note(key, .BLOB)
            throw Stop()
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if let column = T.self as? ColumnTyped.Type { recorder.note(key, column.columnType) } else { recorder.note(key, .BLOB) }
            return nil
        }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { recorder.note(key, .integer32); return nil }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { recorder.note(key, .text); return nil }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { recorder.note(key, .float); return nil }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { recorder.note(key, .float); return nil }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { recorder.note(key, .integer64); return nil }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { recorder.note(key, .integer32); return nil }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { recorder.note(key, .integer32); return nil }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { recorder.note(key, .integer32); return nil }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { recorder.note(key, .integer64); return nil }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { recorder.note(key, .integer64); return nil }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { recorder.note(key, .integer32); return nil }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { recorder.note(key, .integer32); return nil }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { recorder.note(key, .integer32); return nil }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { recorder.note(key, .integer64); return nil }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> { throw Stop() }
        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer { throw Stop() }
        func superDecoder() throws -> Decoder { throw Stop() }
        func superDecoder(forKey key: Key) throws -> Decoder { throw Stop() }
    }
}
