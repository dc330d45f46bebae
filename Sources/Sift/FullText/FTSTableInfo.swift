import CSQLite
import Foundation

/// What the search API needs to know about an FTS5 table, read from its schema once per schema version.
struct FTSTableInfo: Sendable {
    let name: String
    let columns: [String]
    /// The tokenizer and its arguments, as FTS5 parses `tokenize=` (default `unicode61`).
    let tokenizer: [String]
    /// The external content table and its rowid column, when there is one.
    let content: (table: String, rowid: String)?
    /// Whether FTS5 keeps each row's column sizes (`columnsize`, default 1): its `_docsize` table.
    var columnSize = true
    /// FTS5's `detail` option: `full` (the default), `column` or `none`.
    var detail = "full"
    /// The columns declared `UNINDEXED`: stored, never tokenized.
    var unindexedColumns: Set<String> = []

    /// Whether the tokenizer may give a word a token other than its folded form (a stem): FTS5's `porter`
    /// wrapper, `sift_icu` with a `stem` option other than `none` (the last one counts), and any tokenizer Sift does
    /// not know; never FTS5's `unicode61`, `ascii` and `trigram`, nor `sift_icu` without a stemmer.
    var tokenizerMayStem: Bool { FTSTableInfo.mayStem(tokenizer) }

    /// See ``tokenizerMayStem``: `arguments` as FTS5 parses `tokenize=` (`["sift_icu", "stem", "en"]`).
    static func mayStem(_ arguments: [String]) -> Bool {
        switch arguments.first ?? "unicode61" {
        case "unicode61", "ascii", "trigram": return false
        case "sift_icu":
            // Options come in name-value pairs after the name.
            let options = arguments.dropFirst()
            let stem = stride(from: options.startIndex, to: options.endIndex - 1, by: 2)
                .filter { options[$0] == "stem" }.last.map { options[$0 + 1] }
            return stem.map { $0 != "none" } ?? false
        default: return true
        }
    }

    /// Why the index cannot have score bounds, or nil when it can: bounds need each row's per-column counts and
    /// sizes (`detail=full`, `columnsize=1`) and an external content table to read rows from.
    var boundsUnsupportedReason: String? {
        if content == nil { return "it has no external content table" }
        if !columnSize { return "it keeps no column sizes (columnsize=0)" }
        if detail != "full" { return "it keeps no per-column positions (detail=\(detail))" }
        return nil
    }

    /// The rows FTS5 has indexed in `name`, from its averages record (row 1 of `<name>_data`: the row count first,
    /// as an SQLite varint), for an index that keeps no `_docsize` table; 0 when the record is missing.
    static func indexedRows(_ name: String, on handle: Handle) throws -> Int {
        Int(clamping: try averagesRecord(of: name, on: handle).first ?? 0)
    }

    /// The tokens of an average row of `name` (all columns), from its averages record (the row count, then each
    /// column's total tokens); 0 when the index is empty or the record missing.
    static func averageRowTokens(_ name: String, on handle: Handle) throws -> Double {
        let record = try averagesRecord(of: name, on: handle)
        guard let rows = record.first, rows > 0 else { return 0 }
        return Double(record.dropFirst().reduce(0) { $0 &+ $1 }) / Double(rows)
    }

    /// The varints of FTS5's averages record of `name` (row 1 of `<name>_data`), empty when it is missing.
    private static func averagesRecord(of name: String, on handle: Handle) throws -> [UInt64] {
        try handle.withStatement("SELECT block FROM \(SQLBuilder.quote(name + "_data")) WHERE id = 1") { stmt in
            guard try handle.step(stmt) else { return [] }
            var values: [UInt64] = []
            var bytes = RawStatement.bytes(stmt, 0)[...]
            while !bytes.isEmpty {
                // An SQLite varint: 7 bits a byte while the high bit is set, the ninth byte whole.
                var value: UInt64 = 0
                for i in 0..<9 {
                    guard let byte = bytes.popFirst() else { break }
                    if i == 8 { value = value << 8 | UInt64(byte); break }
                    value = value << 7 | UInt64(byte & 0x7F)
                    if byte & 0x80 == 0 { break }
                }
                values.append(value)
            }
            return values
        }
    }

    /// FTS5's structure record of `name` (row 10 of `<name>_data`): it changes with every write of the index, so
    /// caches of what the index holds key on it (`PhraseStatistics`, `TermDictionary`); nil when it is missing.
    static func structureRecord(of name: String, on handle: Handle) throws -> [UInt8]? {
        try handle.withStatement("SELECT block FROM \(SQLBuilder.quote(name + "_data")) WHERE id = 10") { stmt in
            try handle.step(stmt) ? RawStatement.bytes(stmt, 0) : nil
        }
    }

    /// The terms of `name` in at least `minimumRows` rows, with how many rows hold each, in term order: FTS5's own
    /// vocabulary (`fts5vocab`, row form), one pass over the index.
    static func vocabulary(of name: String, minimumRows: Int64 = 0, on handle: Handle) throws -> [(term: String, rows: Int64)] {
        let vocabulary = "sift_vocabulary"
        try handle.execute("DROP TABLE IF EXISTS temp.\(vocabulary)")
        try handle.execute("CREATE VIRTUAL TABLE temp.\(vocabulary) USING fts5vocab(main, \(SQLBuilder.quote(name)), row)")
        defer { try? handle.execute("DROP TABLE IF EXISTS temp.\(vocabulary)") }
        return try handle.withStatement("SELECT term, doc FROM temp.\(vocabulary) WHERE doc >= ?") { stmt in
            try handle.bind([FundamentalValue(minimumRows)], to: stmt, sql: "")
            var terms: [(term: String, rows: Int64)] = []
            while try handle.step(stmt) { terms.append((RawStatement.text(stmt, 0), sqlite3_column_int64(stmt, 1))) }
            return terms
        }
    }

    static func load(_ name: String, on handle: Handle) throws -> FTSTableInfo {
        let sql = try handle.withStatement("SELECT sql FROM sqlite_master WHERE name = ? AND type = 'table'") { stmt -> String? in
            try handle.bind([FundamentalValue(name)], to: stmt, sql: "")
            return try handle.step(stmt) ? RawStatement.text(stmt, 0) : nil
        }
        guard let sql, sql.range(of: "USING fts5", options: .caseInsensitive) != nil else {
            throw handle.pool.report(SiftError(code: .error, message: "\(name) is not an FTS5 table.", path: handle.path,
                                               tag: handle.pool.tag, operation: .query))
        }
        var columns: [String] = [], unindexed: Set<String> = []
        var options: [String: String] = [:]
        for argument in ModuleArguments.split(ModuleArguments.body(of: sql)) {
            if let eq = ModuleArguments.topLevelEquals(argument) {
                let key = argument[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
                options[key] = ModuleArguments.unquote(argument[argument.unicodeScalars.index(after: eq)...].trimmingCharacters(in: .whitespaces))
            } else {
                let words = ModuleArguments.words(argument)
                if let first = words.first { columns.append(first) }
                if words.count > 1, let first = words.first, words[1].uppercased() == "UNINDEXED" { unindexed.insert(first) }
            }
        }
        let tokenizer = ModuleArguments.words(options["tokenize"] ?? "unicode61")
        var content: (String, String)?
        if let table = options["content"], !table.isEmpty { content = (table, options["content_rowid"] ?? "rowid") }
        var info = FTSTableInfo(name: name, columns: columns, tokenizer: tokenizer.isEmpty ? ["unicode61"] : tokenizer, content: content)
        info.columnSize = options["columnsize"].map { $0.trimmingCharacters(in: .whitespaces) != "0" } ?? true
        info.detail = options["detail"]?.trimmingCharacters(in: .whitespaces).lowercased() ?? "full"
        info.unindexedColumns = unindexed
        return info
    }
}

/// Parsing of `CREATE VIRTUAL TABLE ... USING fts5(...)` arguments, following FTS5's own quoting rules.
/// It scans Unicode scalars, not `Character`s: a quote followed by a combining mark is one `Character`.
enum ModuleArguments {
    /// The module arguments: from the first parenthesis outside quotes (a quoted table name may hold one) to the last.
    static func body(of sql: String) -> Substring {
        let scalars = sql.unicodeScalars
        guard let open = topLevel("(", in: sql[...]).first, let close = scalars.lastIndex(of: ")"), open < close else { return "" }
        return sql[scalars.index(after: open)..<close]
    }

    /// Where `target` occurs in `text` outside quotes, in order.
    private static func topLevel(_ target: Unicode.Scalar, in text: Substring) -> [String.Index] {
        var found: [String.Index] = []
        var quote: Unicode.Scalar?
        let scalars = text.unicodeScalars
        for i in scalars.indices {
            let c = scalars[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if let q = closing(c) {
                quote = q
            } else if c == target {
                found.append(i)
            }
        }
        return found
    }

    private static func closing(_ c: Unicode.Scalar) -> Unicode.Scalar? {
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
        var start = text.startIndex
        for comma in topLevel(",", in: text) {
            parts.append(text[start..<comma])
            start = text.unicodeScalars.index(after: comma)
        }
        parts.append(text[start..<text.endIndex])
        return parts.map { $0.trimmingCharacters(in: .whitespacesAndNewlines)[...] }.filter { !$0.isEmpty }
    }

    static func topLevelEquals(_ text: Substring) -> String.Index? {
        topLevel("=", in: text).first
    }

    /// Removes one level of SQL quoting ('', "", ``, []), undoubling inner quotes.
    static func unquote(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.first, let q = closing(first), scalars.count >= 2, scalars.last == q else { return text }
        var inner = String.UnicodeScalarView()
        var i = 1
        while i < scalars.count - 1 {
            inner.append(scalars[i])
            if scalars[i] == q && q != "]" && i + 1 < scalars.count - 1 && scalars[i + 1] == q { i += 1 }
            i += 1
        }
        return String(inner)
    }

    /// Splits an option value into barewords and quoted strings, as FTS5 does for `tokenize=`.
    static func words<S: StringProtocol>(_ text: S) -> [String] {
        var words: [String] = []
        let scalars = Array(text.unicodeScalars)
        var current = String.UnicodeScalarView(), quote: Unicode.Scalar?, i = 0
        while i < scalars.count {
            let c = scalars[i]
            if let q = quote {
                if c == q {
                    if i + 1 < scalars.count && scalars[i + 1] == q && q != "]" { current.append(c); i += 1 } else { quote = nil }
                } else {
                    current.append(c)
                }
            } else if let q = closing(c) {
                quote = q
            } else if c == " " || c == "\t" || c == "\n" {
                if !current.isEmpty { words.append(String(current)); current = String.UnicodeScalarView() }
            } else {
                current.append(c)
            }
            i += 1
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }
}
