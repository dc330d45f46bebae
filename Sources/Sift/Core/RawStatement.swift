import CSQLite
import Foundation

/// Low-level binding and reading on a raw `sqlite3_stmt`, shared by every statement path.
enum RawStatement {
    /// SQLITE_TRANSIENT (SQLite copies the value). A computed property: a stored global pays a lazy-init check per use.
    static var transient: sqlite3_destructor_type { sift_sqlite_transient() }

    @inline(__always)
    static func bind(_ value: FundamentalValue, at index: Int32, in stmt: OpaquePointer) -> Int32 {
        switch value.storage {
        case .null: return sqlite3_bind_null(stmt, index)
        case .integer(let v): return sqlite3_bind_int64(stmt, index, v)
        case .float(let v): return sqlite3_bind_double(stmt, index, v)
        case .text(let s): return bindText(s, at: index, in: stmt)
        case .blob(let d): return bindBlob(d, at: index, in: stmt)
        }
    }

    @inline(__always)
    static func bindText(_ s: String, at index: Int32, in stmt: OpaquePointer) -> Int32 {
        // Passing the byte count keeps embedded NULs and skips a strlen.
        if let rc = s.utf8.withContiguousStorageIfAvailable({ buf -> Int32 in
            // An empty string still needs a non-null pointer, or SQLite binds NULL.
            guard let base = buf.baseAddress else { return sqlite3_bind_text(stmt, index, "", 0, transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: buf.count) {
                sqlite3_bind_text(stmt, index, $0, Int32(buf.count), transient)
            }
        }) {
            return rc
        }
        var copy = s
        copy.makeContiguousUTF8()
        return bindText(copy, at: index, in: stmt)
    }

    @inline(__always)
    static func bindBlob(_ d: Data, at index: Int32, in stmt: OpaquePointer) -> Int32 {
        d.withUnsafeBytes { buf in
            // A zero-length blob must stay a blob, not become NULL.
            guard let base = buf.baseAddress, buf.count > 0 else { return sqlite3_bind_zeroblob(stmt, index, 0) }
            return sqlite3_bind_blob(stmt, index, base, Int32(buf.count), transient)
        }
    }

    @inline(__always)
    static func text(_ stmt: OpaquePointer, _ index: Int32) -> String {
        guard let p = sqlite3_column_text(stmt, index) else { return "" }
        return string(p, count: sqlite3_column_bytes(stmt, index))
    }

    /// A column's text; invalid UTF-8 written by other programs is repaired, never a crash.
    @inline(__always)
    static func string(_ text: UnsafePointer<UInt8>, count: Int32) -> String {
        String(decoding: UnsafeBufferPointer(start: text, count: Int(count)), as: UTF8.self)
    }

    @inline(__always)
    static func blob(_ stmt: OpaquePointer, _ index: Int32) -> Data {
        let n = Int(sqlite3_column_bytes(stmt, index))
        guard n > 0, let p = sqlite3_column_blob(stmt, index) else { return Data() }
        return Data(bytes: p, count: n)
    }

    /// The column's blob as bytes, copied once (`[UInt8](blob(...))` copies it twice).
    static func bytes(_ stmt: OpaquePointer, _ index: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(stmt, index))
        guard n > 0, let p = sqlite3_column_blob(stmt, index) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: p, count: n))
    }

    static func value(_ stmt: OpaquePointer, _ index: Int32) -> FundamentalValue {
        switch sqlite3_column_type(stmt, index) {
        case SQLITE_INTEGER: return FundamentalValue(sqlite3_column_int64(stmt, index))
        case SQLITE_FLOAT: return FundamentalValue(sqlite3_column_double(stmt, index))
        case SQLITE_TEXT: return FundamentalValue(text(stmt, index))
        case SQLITE_BLOB: return FundamentalValue(blob(stmt, index))
        default: return .null
        }
    }
}
