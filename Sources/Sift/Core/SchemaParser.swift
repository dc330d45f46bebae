import CSQLite

/// A `CREATE TABLE`, `CREATE VIRTUAL TABLE ... USING fts5(...)` or `CREATE INDEX` statement read from a damaged (or
/// crafted) file's schema, parsed and written again by Sift: recovery never runs the file's SQL itself.
///
/// What the statement declares is kept when it can be written back without running anything the file chose:
/// names (always double-quoted), declared types, PRIMARY KEY, NOT NULL, UNIQUE, COLLATE, REFERENCES, WITHOUT ROWID,
/// STRICT, defaults that are literals, and CHECK constraints, expression defaults, generated columns and index
/// expressions built only of columns, literals, operators and a fixed set of cheap functions whose result is no
/// longer than their arguments (``SchemaParser/functions``). A CHECK constraint or a default beyond that is left
/// out (the table keeps its rows) and named in ``notes``; a statement that cannot be written back is refused
/// whole (``SchemaParser/Refusal``): `CREATE TABLE ... AS SELECT`, a generated column or an index over such an
/// expression, a virtual table of another module than FTS5, an FTS5 argument FTS5 does not define, a statement
/// longer than ``SchemaParser/maximumLength`` or nested deeper than ``SchemaParser/maximumDepth``.
struct SchemaStatement: Equatable {
    enum Kind: Equatable { case table, virtualTable, index }

    let kind: Kind
    /// The object's name, as the statement gives it.
    let name: String
    /// The table an index is on; the table's own name otherwise.
    let tableName: String
    /// The statement as Sift writes it.
    let sql: String
    /// What was left out, one phrase each ("CHECK constraint left out: it calls zeroblob()").
    let notes: [String]
}

enum SchemaParser {
    /// Why a statement is not recreated, as a phrase for ``RecoveryReport/problems``.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// Statements longer than this (in UTF-8 bytes) are refused unread: SQLite's own default limit is 1 GB, but a
    /// schema row of a megabyte is already far beyond any real table's.
    static let maximumLength = 1 << 20
    /// Parentheses nested deeper than this are refused (SQLite's parser gives up near 100).
    static let maximumDepth = 64

    /// The functions an expression may call: deterministic, linear in the size of their arguments, and producing
    /// no more bytes than they are given (no `zeroblob`, `randomblob`, `printf`, `replace`, no `load_extension`).
    static let functions: Set<String> = [
        "abs", "coalesce", "glob", "ifnull", "iif", "instr", "length", "like", "likely", "lower", "ltrim", "max", "min",
        "nullif", "octet_length", "round", "rtrim", "sign", "substr", "substring", "trim", "typeof", "unicode", "unlikely",
        "upper", "json_valid", "date", "time", "datetime", "julianday", "unixepoch",
    ]

    /// The keywords an expression may use; any other keyword (SELECT, WITH, VALUES, EXISTS, RAISE, MATCH...) makes
    /// it unsafe.
    private static let expressionKeywords: Set<String> = [
        "AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN", "LIKE", "GLOB", "ESCAPE", "CASE", "WHEN", "THEN", "ELSE",
        "END", "COLLATE", "CAST", "AS", "ISNULL", "NOTNULL", "TRUE", "FALSE", "CURRENT_TIME", "CURRENT_DATE",
        "CURRENT_TIMESTAMP",
    ]

    /// The options `CREATE VIRTUAL TABLE ... USING fts5(...)` takes besides columns.
    static let fullTextOptions: Set<String> = [
        "tokenize", "prefix", "content", "content_rowid", "columnsize", "detail", "tokendata", "contentless_delete",
        "contentless_unindexed", "locale",
    ]

    /// Parses `sql` and writes it again; throws a ``Refusal`` saying why it cannot be.
    static func parse(_ sql: String) throws -> SchemaStatement {
        guard sql.utf8.count <= maximumLength else {
            throw Refusal(reason: "its statement is longer than \(maximumLength) bytes")
        }
        var parser = Parser(tokens: try Lexer.tokens(of: sql))
        return try parser.statement()
    }

    /// An identifier double-quoted, quotes doubled byte by byte, NUL bytes dropped.
    static func quote(_ name: String) -> String {
        enclose(name, in: UInt8(ascii: "\""))
    }

    /// A text as an SQL string literal.
    static func literal(_ text: String) -> String {
        enclose(text, in: UInt8(ascii: "'"))
    }

    private static func enclose(_ text: String, in mark: UInt8) -> String {
        var bytes: [UInt8] = [mark]
        bytes.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 where byte != 0 { bytes += byte == mark ? [mark, mark] : [byte] }
        return String(decoding: bytes + [mark], as: UTF8.self)
    }

    /// Whether `text` is a plain word (ASCII letters, digits and underscores, not starting with a digit), which
    /// can be written without quotes where SQLite expects a type or collation name.
    static func isPlainWord(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        return text.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isLetter($0) || isDigit($0) }
    }

    static func isKeyword(_ word: String) -> Bool {
        word.withCString { sqlite3_keyword_check($0, Int32(word.utf8.count)) != 0 }
    }

    fileprivate static func isLetter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }
    fileprivate static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
}

// MARK: - Tokens

extension SchemaParser {
    struct SQLToken: Equatable {
        enum Kind: Equatable {
            /// A bare word: a keyword or an unquoted name.
            case word
            /// A quoted name ("x", [x], `x`), unquoted.
            case quoted
            /// A string literal, unquoted.
            case string
            /// A blob literal (x'...', its hex digits checked), as written.
            case blob
            case number
            /// An operator or punctuation.
            case symbol
        }

        let kind: Kind
        let text: String

        func isWord(_ keyword: String) -> Bool { kind == .word && text.uppercased() == keyword }
        func isSymbol(_ symbol: String) -> Bool { kind == .symbol && text == symbol }
        /// Whether it can name something (SQLite takes a string literal for a name too).
        var isName: Bool { kind == .word || kind == .quoted || kind == .string }
    }

    /// SQLite's tokenizer (https://sqlite.org/lang_keywords.html, tokenize.c), without parameters: a schema
    /// statement has none.
    enum Lexer {
        static func tokens(of sql: String) throws -> [SQLToken] {
            let b = Array(sql.utf8)
            var tokens: [SQLToken] = []
            var i = 0
            func text(_ range: Range<Int>) -> String { String(decoding: b[range], as: UTF8.self) }
            func isWordByte(_ c: UInt8) -> Bool { isLetter(c) || isDigit(c) || c == 95 || c == 36 || c >= 0x80 }
            while i < b.count {
                let c = b[i]
                let next: UInt8 = i + 1 < b.count ? b[i + 1] : 0
                switch c {
                case 32, 9, 10, 12, 13:
                    i += 1
                case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                    while i < b.count && b[i] != 10 { i += 1 }
                case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                    i += 2
                    while i < b.count && !(b[i] == UInt8(ascii: "*") && i + 1 < b.count && b[i + 1] == UInt8(ascii: "/")) { i += 1 }
                    i = min(i + 2, b.count)
                case _ where c | 0x20 == UInt8(ascii: "x") && next == UInt8(ascii: "'"):
                    var j = i + 2
                    while j < b.count && b[j] != UInt8(ascii: "'") { j += 1 }
                    guard j < b.count else { throw Refusal(reason: "its statement has an unterminated blob literal") }
                    let hex = b[(i + 2)..<j]
                    guard hex.count % 2 == 0, hex.allSatisfy({ isDigit($0) || (65...70).contains($0 & ~0x20) }) else {
                        throw Refusal(reason: "its statement has a malformed blob literal")
                    }
                    tokens.append(SQLToken(kind: .blob, text: text(i..<j + 1)))
                    i = j + 1
                case _ where isLetter(c) || c == 95 || c >= 0x80:
                    var j = i
                    while j < b.count && isWordByte(b[j]) { j += 1 }
                    tokens.append(SQLToken(kind: .word, text: text(i..<j)))
                    i = j
                case _ where isDigit(c) || (c == UInt8(ascii: ".") && isDigit(next)):
                    var j = i
                    if c == UInt8(ascii: "0"), next | 0x20 == UInt8(ascii: "x") {
                        j += 2
                        while j < b.count && (isDigit(b[j]) || (65...70).contains(b[j] & ~0x20)) { j += 1 }
                        guard j > i + 2 else { throw Refusal(reason: "its statement has a malformed number") }
                    } else {
                        while j < b.count && isDigit(b[j]) { j += 1 }
                        if j < b.count && b[j] == UInt8(ascii: ".") {
                            j += 1
                            while j < b.count && isDigit(b[j]) { j += 1 }
                        }
                        if j < b.count && b[j] | 0x20 == UInt8(ascii: "e") {
                            j += 1
                            if j < b.count && (b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-")) { j += 1 }
                            let digits = j
                            while j < b.count && isDigit(b[j]) { j += 1 }
                            guard j > digits else { throw Refusal(reason: "its statement has a malformed number") }
                        }
                    }
                    guard j == b.count || !isWordByte(b[j]) else { throw Refusal(reason: "its statement has a malformed number") }
                    tokens.append(SQLToken(kind: .number, text: text(i..<j)))
                    i = j
                case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                    var value: [UInt8] = []
                    var j = i + 1
                    var closed = false
                    while j < b.count {
                        if b[j] == c {
                            if j + 1 < b.count && b[j + 1] == c {
                                value.append(c)
                                j += 2
                                continue
                            }
                            closed = true
                            break
                        }
                        value.append(b[j])
                        j += 1
                    }
                    guard closed else { throw Refusal(reason: "its statement has an unterminated quote") }
                    tokens.append(SQLToken(kind: c == UInt8(ascii: "'") ? .string : .quoted, text: String(decoding: value, as: UTF8.self)))
                    i = j + 1
                case UInt8(ascii: "["):
                    var j = i + 1
                    while j < b.count && b[j] != UInt8(ascii: "]") { j += 1 }
                    guard j < b.count else { throw Refusal(reason: "its statement has an unterminated quote") }
                    tokens.append(SQLToken(kind: .quoted, text: text((i + 1)..<j)))
                    i = j + 1
                default:
                    let three = i + 3 <= b.count ? text(i..<i + 3) : ""
                    let two = i + 2 <= b.count ? text(i..<i + 2) : ""
                    if three == "->>" {
                        tokens.append(SQLToken(kind: .symbol, text: three))
                        i += 3
                    } else if ["||", "<=", ">=", "==", "!=", "<>", "<<", ">>", "->"].contains(two) {
                        tokens.append(SQLToken(kind: .symbol, text: two))
                        i += 2
                    } else if "(),;+-*/%=<>&|~.".utf8.contains(c) {
                        tokens.append(SQLToken(kind: .symbol, text: text(i..<i + 1)))
                        i += 1
                    } else {
                        throw Refusal(reason: "its statement has a character SQL does not allow there (\(text(i..<i + 1)))")
                    }
                }
            }
            return tokens
        }
    }
}

// MARK: - Statements

extension SchemaParser {
    fileprivate struct Parser {
        let tokens: [SQLToken]
        var p = 0
        var notes: [String] = []

        init(tokens: [SQLToken]) { self.tokens = tokens }

        func peek(_ offset: Int = 0) -> SQLToken? { p + offset < tokens.count ? tokens[p + offset] : nil }
        func isWord(_ keyword: String, at offset: Int = 0) -> Bool { peek(offset)?.isWord(keyword) == true }
        func isSymbol(_ symbol: String, at offset: Int = 0) -> Bool { peek(offset)?.isSymbol(symbol) == true }

        mutating func take(_ keyword: String) -> Bool {
            guard isWord(keyword) else { return false }
            p += 1
            return true
        }

        mutating func take(symbol: String) -> Bool {
            guard isSymbol(symbol) else { return false }
            p += 1
            return true
        }

        mutating func expect(_ keywords: String...) throws {
            for keyword in keywords where !take(keyword) { throw unexpected(expecting: keyword) }
        }

        mutating func expect(symbol: String) throws {
            guard take(symbol: symbol) else { throw unexpected(expecting: symbol) }
        }

        func unexpected(expecting: String) -> Refusal {
            let found = peek().map { "\($0.text.prefix(40))" } ?? "the end"
            return Refusal(reason: "its statement does not parse (\(expecting) expected, \(found) found)")
        }

        mutating func name() throws -> String {
            guard let token = peek(), token.isName else { throw unexpected(expecting: "a name") }
            p += 1
            return token.text
        }

        /// `[schema.]name`, the schema `main` or none.
        mutating func qualifiedName() throws -> String {
            let first = try name()
            guard take(symbol: ".") else { return first }
            guard first.lowercased() == "main" else { throw Refusal(reason: "it creates an object in another schema (\(first.prefix(40)))") }
            return try name()
        }

        mutating func ifNotExists() throws {
            if take("IF") { try expect("NOT", "EXISTS") }
        }

        /// The end of the statement: nothing after it but a semicolon.
        mutating func end() throws {
            _ = take(symbol: ";")
            guard p == tokens.count else { throw Refusal(reason: "its statement goes on after its end (\(tokens[p].text.prefix(40)))") }
        }

        /// The tokens up to the parenthesis that closes the one just taken, which is taken too.
        mutating func enclosed() throws -> ArraySlice<SQLToken> {
            let start = p
            var depth = 1
            while let token = peek() {
                if token.isSymbol("(") {
                    depth += 1
                    guard depth <= maximumDepth else { throw Refusal(reason: "its statement nests parentheses deeper than \(maximumDepth)") }
                } else if token.isSymbol(")") {
                    depth -= 1
                    if depth == 0 {
                        p += 1
                        return tokens[start..<p - 1]
                    }
                }
                p += 1
            }
            throw Refusal(reason: "its statement has an unclosed parenthesis")
        }

        /// The parts of `tokens` between top-level commas.
        static func split(_ tokens: ArraySlice<SQLToken>) -> [ArraySlice<SQLToken>] {
            var parts: [ArraySlice<SQLToken>] = []
            var depth = 0
            var start = tokens.startIndex
            for i in tokens.indices {
                if tokens[i].isSymbol("(") { depth += 1 }
                if tokens[i].isSymbol(")") { depth -= 1 }
                if depth == 0 && tokens[i].isSymbol(",") {
                    parts.append(tokens[start..<i])
                    start = i + 1
                }
            }
            parts.append(tokens[start..<tokens.endIndex])
            return parts
        }

        mutating func statement() throws -> SchemaStatement {
            try expect("CREATE")
            if take("TEMP") || take("TEMPORARY") { throw Refusal(reason: "it creates a temporary object") }
            if take("UNIQUE") {
                try expect("INDEX")
                return try index(unique: true)
            }
            if take("INDEX") { return try index(unique: false) }
            if take("VIRTUAL") {
                try expect("TABLE")
                return try virtualTable()
            }
            if take("TABLE") { return try table() }
            throw Refusal(reason: "it is not a CREATE TABLE, CREATE VIRTUAL TABLE or CREATE INDEX statement")
        }

        // MARK: CREATE TABLE

        mutating func table() throws -> SchemaStatement {
            try ifNotExists()
            let name = try qualifiedName()
            if isWord("AS") { throw Refusal(reason: "CREATE TABLE ... AS runs a query; recovery does not run one from the file") }
            try expect(symbol: "(")
            var definitions: [String] = []
            var columns = 0
            repeat {
                if columns > 0, ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(where: { isWord($0) }) {
                    // Table constraints; SQLite lets them go without commas between them.
                    while ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(where: { isWord($0) }) {
                        if let constraint = try tableConstraint(of: name) { definitions.append(constraint) }
                        if isSymbol(",") && ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(where: { isWord($0, at: 1) }) {
                            p += 1
                        }
                    }
                } else {
                    definitions.append(try column(of: name))
                    columns += 1
                }
            } while take(symbol: ",")
            try expect(symbol: ")")
            var options: [String] = []
            repeat {
                if take("WITHOUT") {
                    try expect("ROWID")
                    options.append("WITHOUT ROWID")
                } else if take("STRICT") {
                    options.append("STRICT")
                } else if !options.isEmpty {
                    throw unexpected(expecting: "WITHOUT ROWID or STRICT")
                }
            } while !options.isEmpty && take(symbol: ",")
            try end()
            let sql = "CREATE TABLE \(quote(name))(\(definitions.joined(separator: ", ")))"
                + (options.isEmpty ? "" : " " + options.joined(separator: ", "))
            return SchemaStatement(kind: .table, name: name, tableName: name, sql: sql, notes: notes)
        }

        static let columnConstraintStarts: Set<String> = [
            "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS",
        ]

        mutating func column(of table: String) throws -> String {
            let name = try self.name()
            var words: [String] = []
            while let token = peek(), token.isName, !(token.kind == .word && Parser.columnConstraintStarts.contains(token.text.uppercased())) {
                guard isPlainWord(token.text) else { throw Refusal(reason: "column \(name.prefix(40)) has an unusual type name") }
                words.append(token.text)
                p += 1
            }
            var type = words.joined(separator: " ")
            if !words.isEmpty, take(symbol: "(") {
                var sizes = [try signedNumber()]
                if take(symbol: ",") { sizes.append(try signedNumber()) }
                try expect(symbol: ")")
                type += "(" + sizes.joined(separator: ", ") + ")"
            }
            var parts = [quote(name)] + (type.isEmpty ? [] : [type])
            while let token = peek(), !token.isSymbol(","), !token.isSymbol(")") {
                var label = ""
                if take("CONSTRAINT") { label = "CONSTRAINT \(quote(try self.name())) " }
                if let constraint = try columnConstraint(table: table, column: name) { parts.append(label + constraint) }
            }
            return parts.joined(separator: " ")
        }

        mutating func signedNumber() throws -> String {
            let sign = take(symbol: "-") ? "-" : take(symbol: "+") ? "+" : ""
            guard let token = peek(), token.kind == .number else { throw unexpected(expecting: "a number") }
            p += 1
            return sign + token.text
        }

        mutating func conflict() throws -> String {
            guard take("ON") else { return "" }
            try expect("CONFLICT")
            for action in ["ROLLBACK", "ABORT", "FAIL", "IGNORE", "REPLACE"] where take(action) { return " ON CONFLICT " + action }
            throw unexpected(expecting: "a conflict resolution")
        }

        /// One column constraint written again, or nil when it is left out (and noted).
        mutating func columnConstraint(table: String, column: String) throws -> String? {
            let what = "column \(column.prefix(40))"
            if take("PRIMARY") {
                try expect("KEY")
                let order = take("ASC") ? " ASC" : take("DESC") ? " DESC" : ""
                let conflict = try self.conflict()
                return "PRIMARY KEY" + order + conflict + (take("AUTOINCREMENT") ? " AUTOINCREMENT" : "")
            }
            if take("NOT") {
                try expect("NULL")
                return "NOT NULL" + (try conflict())
            }
            if take("NULL") { return "NULL" + (try conflict()) }
            if take("UNIQUE") { return "UNIQUE" + (try conflict()) }
            if take("CHECK") {
                try expect(symbol: "(")
                switch Expression.render(try enclosed()) {
                case .success(let sql): return "CHECK(\(sql))"
                case .failure(let refusal):
                    notes.append("\(what): CHECK constraint left out: \(refusal.reason)")
                    return nil
                }
            }
            if take("DEFAULT") { return try defaultValue(what) }
            if take("COLLATE") { return "COLLATE " + Expression.collation(try name()) }
            if take("REFERENCES") { return try references() }
            if take("GENERATED") { try expect("ALWAYS") }
            if take("AS") {
                try expect(symbol: "(")
                let sql: String
                switch Expression.render(try enclosed()) {
                case .success(let rendered): sql = rendered
                case .failure(let refusal): throw Refusal(reason: "\(what) is generated by an expression that \(refusal.reason)")
                }
                let storage = take("STORED") ? " STORED" : take("VIRTUAL") ? " VIRTUAL" : ""
                return "GENERATED ALWAYS AS (\(sql))" + storage
            }
            throw unexpected(expecting: "a column constraint")
        }

        mutating func defaultValue(_ what: String) throws -> String? {
            guard let token = peek() else { throw unexpected(expecting: "a default value") }
            if token.isSymbol("(") {
                p += 1
                switch Expression.render(try enclosed()) {
                case .success(let sql): return "DEFAULT (\(sql))"
                case .failure(let refusal):
                    notes.append("\(what): DEFAULT left out: \(refusal.reason)")
                    return nil
                }
            }
            if token.isSymbol("-") || token.isSymbol("+") || token.kind == .number { return "DEFAULT " + (try signedNumber()) }
            p += 1
            switch token.kind {
            case .string: return "DEFAULT " + literal(token.text)
            case .blob: return "DEFAULT " + token.text
            case .word where ["NULL", "TRUE", "FALSE", "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP"].contains(token.text.uppercased()):
                return "DEFAULT " + token.text.uppercased()
            // SQLite takes a bare or quoted name as a default for the text it spells.
            case .word, .quoted: return "DEFAULT " + literal(token.text)
            default: throw unexpected(expecting: "a default value")
            }
        }

        mutating func references() throws -> String {
            var sql = "REFERENCES " + quote(try name())
            if take(symbol: "(") { sql += "(" + (try names()).map(quote).joined(separator: ", ") + ")" }
            while true {
                if take("ON") {
                    let event = take("DELETE") ? "DELETE" : take("UPDATE") ? "UPDATE" : ""
                    guard !event.isEmpty else { throw unexpected(expecting: "DELETE or UPDATE") }
                    let action: String
                    if take("SET") {
                        action = take("NULL") ? "SET NULL" : take("DEFAULT") ? "SET DEFAULT" : ""
                    } else if take("NO") {
                        try expect("ACTION")
                        action = "NO ACTION"
                    } else {
                        action = take("CASCADE") ? "CASCADE" : take("RESTRICT") ? "RESTRICT" : ""
                    }
                    guard !action.isEmpty else { throw unexpected(expecting: "a foreign key action") }
                    sql += " ON \(event) \(action)"
                } else if take("MATCH") {
                    sql += " MATCH " + quote(try name())
                } else if isWord("DEFERRABLE") || (isWord("NOT") && isWord("DEFERRABLE", at: 1)) {
                    if take("NOT") { sql += " NOT" }
                    try expect("DEFERRABLE")
                    sql += " DEFERRABLE"
                    if take("INITIALLY") {
                        if take("DEFERRED") {
                            sql += " INITIALLY DEFERRED"
                        } else {
                            try expect("IMMEDIATE")
                            sql += " INITIALLY IMMEDIATE"
                        }
                    }
                } else {
                    return sql
                }
            }
        }

        /// Names up to the closing parenthesis (the opening one taken).
        mutating func names() throws -> [String] {
            var names = [try name()]
            while take(symbol: ",") { names.append(try name()) }
            try expect(symbol: ")")
            return names
        }

        /// `name [COLLATE c] [ASC|DESC]`, up to the closing parenthesis, as PRIMARY KEY and UNIQUE take them.
        mutating func indexedNames() throws -> String {
            var columns: [String] = []
            repeat {
                var column = quote(try name())
                if take("COLLATE") { column += " COLLATE " + Expression.collation(try name()) }
                if take("ASC") { column += " ASC" } else if take("DESC") { column += " DESC" }
                columns.append(column)
            } while take(symbol: ",")
            let autoincrement = take("AUTOINCREMENT") ? " AUTOINCREMENT" : ""
            try expect(symbol: ")")
            return "(" + columns.joined(separator: ", ") + autoincrement + ")"
        }

        mutating func tableConstraint(of table: String) throws -> String? {
            var label = ""
            if take("CONSTRAINT") { label = "CONSTRAINT \(quote(try name())) " }
            if take("PRIMARY") {
                try expect("KEY")
                try expect(symbol: "(")
                return label + "PRIMARY KEY" + (try indexedNames()) + (try conflict())
            }
            if take("UNIQUE") {
                try expect(symbol: "(")
                return label + "UNIQUE" + (try indexedNames()) + (try conflict())
            }
            if take("CHECK") {
                try expect(symbol: "(")
                switch Expression.render(try enclosed()) {
                case .success(let sql): return label + "CHECK(\(sql))"
                case .failure(let refusal):
                    notes.append("CHECK constraint left out: \(refusal.reason)")
                    return nil
                }
            }
            if take("FOREIGN") {
                try expect("KEY")
                try expect(symbol: "(")
                let columns = try names().map(quote).joined(separator: ", ")
                try expect("REFERENCES")
                return label + "FOREIGN KEY(\(columns)) " + (try references())
            }
            throw unexpected(expecting: "a table constraint")
        }

        // MARK: CREATE INDEX

        mutating func index(unique: Bool) throws -> SchemaStatement {
            try ifNotExists()
            let name = try qualifiedName()
            try expect("ON")
            let table = try self.name()
            try expect(symbol: "(")
            var terms: [String] = []
            for var term in Parser.split(try enclosed()) {
                var suffix = ""
                if let last = term.last, last.isWord("ASC") || last.isWord("DESC") {
                    suffix = " " + last.text.uppercased()
                    term = term.dropLast()
                }
                if term.count >= 2, term[term.endIndex - 2].isWord("COLLATE"), term[term.endIndex - 1].isName {
                    suffix = " COLLATE " + Expression.collation(term[term.endIndex - 1].text) + suffix
                    term = term.dropLast(2)
                }
                if term.count == 1, let column = term.first, column.isName {
                    terms.append(quote(column.text) + suffix)
                    continue
                }
                guard !term.isEmpty else { throw unexpected(expecting: "an indexed column") }
                switch Expression.render(term) {
                case .success(let sql): terms.append(sql + suffix)
                case .failure(let refusal): throw Refusal(reason: "it indexes an expression that \(refusal.reason)")
                }
            }
            var condition = ""
            if take("WHERE") {
                let rest = tokens[p...].prefix { !$0.isSymbol(";") }
                p += rest.count
                switch Expression.render(rest) {
                case .success(let sql): condition = " WHERE " + sql
                case .failure(let refusal): throw Refusal(reason: "its WHERE clause \(refusal.reason)")
                }
            }
            try end()
            let sql = "CREATE \(unique ? "UNIQUE " : "")INDEX \(quote(name)) ON \(quote(table))(\(terms.joined(separator: ", ")))" + condition
            return SchemaStatement(kind: .index, name: name, tableName: table, sql: sql, notes: notes)
        }

        // MARK: CREATE VIRTUAL TABLE

        mutating func virtualTable() throws -> SchemaStatement {
            try ifNotExists()
            let name = try qualifiedName()
            try expect("USING")
            let module = try self.name()
            guard module.lowercased() == "fts5" else {
                throw Refusal(reason: "its module \(module.prefix(40)) is not FTS5, the only virtual table recovery recreates")
            }
            var arguments: [String] = []
            if take(symbol: "(") {
                for argument in Parser.split(try enclosed()) {
                    let tokens = Array(argument)
                    if tokens.count == 3, tokens[0].isName, tokens[1].isSymbol("="),
                       [.word, .quoted, .string, .number].contains(tokens[2].kind) {
                        let key = tokens[0].text.lowercased()
                        guard fullTextOptions.contains(key) else { throw Refusal(reason: "FTS5 has no option \(key.prefix(40))") }
                        arguments.append(key + "=" + literal(tokens[2].text))
                    } else if tokens.count == 1, tokens[0].isName {
                        arguments.append(quote(tokens[0].text))
                    } else if tokens.count == 2, tokens[0].isName, tokens[1].isWord("UNINDEXED") {
                        arguments.append(quote(tokens[0].text) + " UNINDEXED")
                    } else {
                        throw Refusal(reason: "an FTS5 argument is neither a column nor an option")
                    }
                }
            }
            try end()
            let sql = "CREATE VIRTUAL TABLE \(quote(name)) USING fts5(\(arguments.joined(separator: ", ")))"
            return SchemaStatement(kind: .virtualTable, name: name, tableName: name, sql: sql, notes: notes)
        }
    }
}

// MARK: - Expressions

extension SchemaParser {
    /// An expression of a CHECK constraint, a default, a generated column or an index, written again when it is
    /// built only of columns, literals, operators, CASE and CAST, and ``SchemaParser/functions``.
    enum Expression {
        private static let symbols: Set<String> = [
            "(", ")", ",", ".", "+", "-", "*", "/", "%", "||", "=", "==", "!=", "<>", "<", "<=", ">", ">=", "&", "|", "<<", ">>", "~",
        ]

        static func collation(_ name: String) -> String {
            isPlainWord(name) ? name : quote(name)
        }

        static func render(_ tokens: ArraySlice<SQLToken>) -> Result<String, Refusal> {
            let tokens = Array(tokens)
            guard !tokens.isEmpty else { return .failure(Refusal(reason: "is empty")) }
            var out: [String] = []
            var depth = 0
            /// The depths of the parentheses that CAST opened: AS is its type's keyword there, nowhere else.
            var casts: [Int] = []
            var i = 0
            while i < tokens.count {
                let token = tokens[i]
                let opens = i + 1 < tokens.count && tokens[i + 1].isSymbol("(")
                switch token.kind {
                case .number: out.append(token.text)
                case .string: out.append(literal(token.text))
                case .blob: out.append(token.text)
                case .symbol:
                    guard symbols.contains(token.text) else { return .failure(Refusal(reason: "uses the operator \(token.text)")) }
                    if token.text == "(" {
                        depth += 1
                        guard depth <= maximumDepth else { return .failure(Refusal(reason: "nests parentheses deeper than \(maximumDepth)")) }
                    } else if token.text == ")" {
                        if casts.last == depth { casts.removeLast() }
                        depth -= 1
                        guard depth >= 0 else { return .failure(Refusal(reason: "closes a parenthesis it did not open")) }
                    }
                    out.append(token.text)
                case .quoted:
                    guard !opens else { return .failure(Refusal(reason: "calls a function by a quoted name")) }
                    out.append(quote(token.text))
                case .word:
                    let upper = token.text.uppercased(), lower = token.text.lowercased()
                    if opens && functions.contains(lower) {
                        out.append(lower)
                    } else if expressionKeywords.contains(upper) {
                        switch upper {
                        case "CAST":
                            guard opens else { return .failure(Refusal(reason: "uses CAST without a parenthesis")) }
                            casts.append(depth + 1)
                            out.append(upper)
                        case "AS":
                            guard casts.last == depth else { return .failure(Refusal(reason: "uses AS outside CAST")) }
                            out.append(upper)
                            // The type: plain words, written bare.
                            while i + 1 < tokens.count, tokens[i + 1].isName {
                                guard isPlainWord(tokens[i + 1].text) else { return .failure(Refusal(reason: "casts to an unusual type name")) }
                                out.append(tokens[i + 1].text)
                                i += 1
                            }
                        case "COLLATE":
                            guard i + 1 < tokens.count, tokens[i + 1].isName else { return .failure(Refusal(reason: "names no collation")) }
                            out.append(upper + " " + collation(tokens[i + 1].text))
                            i += 1
                        case "IN":
                            // A list only: `IN table` and `IN (SELECT ...)` read other tables.
                            guard opens else { return .failure(Refusal(reason: "reads a table (IN without a list)")) }
                            out.append(upper)
                        default:
                            out.append(upper)
                        }
                    } else if isKeyword(upper) {
                        return .failure(Refusal(reason: "uses \(upper.prefix(40))"))
                    } else if opens {
                        return .failure(Refusal(reason: "calls \(lower.prefix(40))()"))
                    } else {
                        out.append(quote(token.text))
                    }
                }
                i += 1
            }
            guard depth == 0 else { return .failure(Refusal(reason: "leaves a parenthesis open")) }
            return .success(out.joined(separator: " "))
        }
    }
}
