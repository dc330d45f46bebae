import CSQLite
import Foundation

extension VectorIndex {
    /// The vector a stored blob holds, as the index keeps it (normalized under cosine), or why it cannot be indexed.
    func vector(_ bytes: UnsafeRawBufferPointer) -> Result<[Float], VectorFailure> {
        guard bytes.count == vectorBytes else {
            return .failure(.wrongDimension(expected: dimension, actual: bytes.count % 4 == 0 ? bytes.count / 4 : bytes.count))
        }
        var values = [Float](repeating: 0, count: dimension)
        for i in 0..<dimension {
            let value = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
            guard value.isFinite else { return .failure(.notFinite(position: i)) }
            values[i] = value
        }
        return prepared(values)
    }

    /// The vector held by a column value (nil for NULL: the row has no vector), or why it cannot be indexed.
    func vector(of value: OpaquePointer?) -> Result<[Float], VectorFailure>? {
        guard let value, sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        guard sqlite3_value_type(value) == SQLITE_BLOB else { return .failure(.notABlob) }
        let count = Int(sqlite3_value_bytes(value))
        return vector(UnsafeRawBufferPointer(start: sqlite3_value_blob(value), count: count))
    }

    /// The vector of column `column` of `stmt`'s current row (nil for NULL), or why it cannot be indexed.
    func vector(column: Int32, of stmt: OpaquePointer) -> Result<[Float], VectorFailure>? {
        switch sqlite3_column_type(stmt, column) {
        case SQLITE_NULL: return nil
        case SQLITE_BLOB:
            let pointer = sqlite3_column_blob(stmt, column)
            return vector(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(stmt, column))))
        default: return .failure(.notABlob)
        }
    }

    /// `values` checked (dimension, finite) and, under cosine, normalized: how the index stores a vector and how a
    /// search's query is compared.
    func prepared(_ values: [Float]) -> Result<[Float], VectorFailure> {
        guard values.count == dimension else { return .failure(.wrongDimension(expected: dimension, actual: values.count)) }
        if let bad = values.firstIndex(where: { !$0.isFinite }) { return .failure(.notFinite(position: bad)) }
        guard metric == .cosine else { return .success(values) }
        let norm = values.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        guard norm > 0, norm.isFinite else { return .failure(norm > 0 ? .notFinite(position: 0) : .zeroVector) }
        return .success(values.map { Float(Double($0) / norm) })
    }

    /// The error for a vector the index refuses, during `operation`.
    func error(_ failure: VectorFailure, rowid: Int64?, operation: SiftError.Operation) -> SiftError {
        let what: String
        switch failure {
        case .wrongDimension(let expected, let actual): what = "has \(actual) values (or bytes) where \(expected) are declared"
        case .notFinite(let position): what = "holds NaN or an infinity at position \(position)"
        case .zeroVector: what = "is all zeros, which has no cosine"
        case .notABlob: what = "is not a blob of float32 values"
        }
        let row = rowid.map { " of row \($0)" } ?? ""
        var error = SiftError(code: .constraint, message: "The vector\(row) for \(name) (\(content).\(column)) \(what).",
                              operation: operation)
        error.vectorFailure = failure
        return error
    }
}
