import CSQLite
import Foundation

/// Accumulates SQL text and the values bound to its `?` parameters.
///
/// Statements render twice: for execution every value becomes a parameter, and for `description`
/// values are written inline (escaped) so a person can read the SQL.
struct SQLBuilder {
    var sql = ""
    var values: [FundamentalValue] = []
    let inlineValues: Bool
    /// The table that qualifies unqualified columns (joins where both sides have a column of that name).
    let defaultTable: String?

    init(inlineValues: Bool = false, defaultTable: String? = nil) {
        self.inlineValues = inlineValues
        self.defaultTable = defaultTable
    }

    mutating func append(_ text: String) { sql += text }

    mutating func appendIdentifier(_ name: String) { sql += SQLBuilder.quote(name) }

    mutating func appendValue(_ value: FundamentalValue) {
        if inlineValues {
            sql += SQLBuilder.literal(value)
        } else {
            sql += "?"
            values.append(value)
        }
    }

    /// An identifier as SQL: bare when it is a plain word that is not a keyword, else double-quoted.
    static func quote(_ name: String) -> String {
        if isPlainIdentifier(name) { return name }
        return enclose(name, in: UInt8(ascii: "\""))
    }

    /// `text` between two `mark`s, with every `mark` inside doubled: SQL's quoting of identifiers and strings,
    /// and FTS5's quoting of its strings. It works on UTF-8 bytes, never on `Character`s: a quote followed by a
    /// combining mark is one `Character` that compares unequal to a quote, so character-level replacement leaves
    /// that quote undoubled and lets the text end the quoted span. NUL bytes are dropped (SQLite's and FTS5's
    /// parsers read C strings: a NUL would end the text early).
    static func enclose(_ text: String, in mark: UInt8) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        bytes.append(mark)
        for byte in text.utf8 where byte != 0 {
            bytes.append(byte)
            if byte == mark { bytes.append(mark) }
        }
        bytes.append(mark)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        guard name.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || isLetter($0) || ($0 >= 48 && $0 <= 57) }) else { return false }
        return name.withCString { sqlite3_keyword_check($0, Int32(name.utf8.count)) == 0 }
    }

    private static func isLetter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }

    /// A value written as an SQL literal (for DDL defaults and readable descriptions).
    static func literal(_ value: FundamentalValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .float(let v):
            if v.isNaN { return "NULL" }
            if v.isInfinite { return v > 0 ? "1e999" : "-1e999" }
            return String(v)
        case .text(let s): return enclose(s, in: UInt8(ascii: "'"))
        case .blob(let d): return "X'" + d.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}

/// A piece of SQL that can be rendered.
protocol SQLRenderable {
    func render(into builder: inout SQLBuilder)
}

extension SQLRenderable {
    /// The SQL text with `?` parameters and the values to bind.
    func renderForExecution() -> (sql: String, values: [FundamentalValue]) {
        var builder = SQLBuilder()
        render(into: &builder)
        return (builder.sql, builder.values)
    }

    /// The SQL text with values written inline, for people.
    func renderForReading() -> String {
        var builder = SQLBuilder(inlineValues: true)
        render(into: &builder)
        return builder.sql
    }
}

extension Array where Element: SQLRenderable {
    func render(into builder: inout SQLBuilder, separator: String = ", ") {
        for (i, element) in enumerated() {
            if i > 0 { builder.append(separator) }
            element.render(into: &builder)
        }
    }
}
