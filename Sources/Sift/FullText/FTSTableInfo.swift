import CSQLite

/// What the search API needs to know about an FTS5 table, read from its schema once per schema version.
struct FTSTableInfo: Sendable {
    let name: String
    let columns: [String]
    /// The tokenizer and its arguments, as FTS5 parses `tokenize=` (default `unicode61`).
    let tokenizer: [String]
    /// The external content table and its rowid column, when there is one.
    let content: (table: String, rowid: String)?

    static func load(_ name: String, on handle: Handle) throws -> FTSTableInfo {
        let sql = try handle.withStatement("SELECT sql FROM sqlite_master WHERE name = ? AND type = 'table'") { stmt -> String? in
            try handle.bind([FundamentalValue(name)], to: stmt, sql: "")
            return try handle.step(stmt) ? RawStatement.text(stmt, 0) : nil
        }
        guard let sql, sql.range(of: "USING fts5", options: .caseInsensitive) != nil else {
            throw handle.pool.report(SiftError(code: .error, message: "\(name) is not an FTS5 table.", path: handle.path,
                                               tag: handle.pool.tag, operation: .query))
        }
        var columns: [String] = []
        var options: [String: String] = [:]
        for argument in ModuleArguments.split(ModuleArguments.body(of: sql)) {
            if let eq = ModuleArguments.topLevelEquals(argument) {
                let key = argument[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
                options[key] = ModuleArguments.unquote(argument[argument.index(after: eq)...].trimmingCharacters(in: .whitespaces))
            } else {
                let words = ModuleArguments.words(argument)
                if let first = words.first { columns.append(first) }
            }
        }
        let tokenizer = ModuleArguments.words(options["tokenize"] ?? "unicode61")
        var content: (String, String)?
        if let table = options["content"], !table.isEmpty { content = (table, options["content_rowid"] ?? "rowid") }
        return FTSTableInfo(name: name, columns: columns, tokenizer: tokenizer.isEmpty ? ["unicode61"] : tokenizer, content: content)
    }
}

/// Parsing of `CREATE VIRTUAL TABLE ... USING fts5(...)` arguments, following FTS5's own quoting rules.
enum ModuleArguments {
    static func body(of sql: String) -> Substring {
        guard let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")"), open < close else { return "" }
        return sql[sql.index(after: open)..<close]
    }

    private static func closing(_ c: Character) -> Character? {
        switch c {
        case "'": return "'"
        case "\"": return "\""
        case "`": return "`"
        case "[": return "]"
        default: return nil
        }
    }

    /// Splits on top-level commas.
    static func split(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex, i = text.startIndex, quote: Character?
        while i < text.endIndex {
            let c = text[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if let q = closing(c) {
                quote = q
            } else if c == "," {
                parts.append(text[start..<i])
                start = text.index(after: i)
            }
            i = text.index(after: i)
        }
        parts.append(text[start..<text.endIndex])
        return parts.map { $0.trimmingCharacters(in: .whitespacesAndNewlines)[...] }.filter { !$0.isEmpty }
    }

    static func topLevelEquals(_ text: Substring) -> String.Index? {
        var quote: Character?
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if let q = quote { if c == q { quote = nil } } else if let q = closing(c) { quote = q } else if c == "=" { return i }
            i = text.index(after: i)
        }
        return nil
    }

    /// Removes one level of SQL quoting ('', "", ``, []), undoubling inner quotes.
    static func unquote(_ text: String) -> String {
        guard let first = text.first, let q = closing(first), text.count >= 2, text.last == q else { return text }
        let inner = String(text.dropFirst().dropLast())
        return q == "]" ? inner : inner.replacingOccurrences(of: String(q) + String(q), with: String(q))
    }

    /// Splits an option value into barewords and quoted strings, as FTS5 does for `tokenize=`.
    static func words<S: StringProtocol>(_ text: S) -> [String] {
        var words: [String] = []
        var current = "", quote: Character?, i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if let q = quote {
                let next = text.index(after: i)
                if c == q {
                    if next < text.endIndex && text[next] == q && q != "]" { current.append(c); i = next } else { quote = nil }
                } else {
                    current.append(c)
                }
            } else if let q = closing(c) {
                quote = q
            } else if c == " " || c == "\t" || c == "\n" {
                if !current.isEmpty { words.append(current); current = "" }
            } else {
                current.append(c)
            }
            i = text.index(after: i)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

import Foundation
