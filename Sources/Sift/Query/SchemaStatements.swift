/// `CREATE INDEX`.
public final class StatementCreateIndex: RenderedStatement {
    var name = ""
    var isUnique = false
    var ifNotExists = true
    var table = ""
    var columns: [IndexedColumn] = []

    /// An empty create-index.
    public init() {}
    /// The index.
    @discardableResult
    public func create(index name: String, isUnique: Bool = false, ifNotExists: Bool = true) -> StatementCreateIndex {
        self.name = name
        self.isUnique = isUnique
        self.ifNotExists = ifNotExists
        return self
    }
    /// The table and the indexed columns.
    @discardableResult
    public func on(_ table: String, indexesBy columns: [IndexConvertible]) -> StatementCreateIndex {
        self.table = table
        self.columns = columns.map { $0.asIndexedColumn() }
        return self
    }

    func render(into builder: inout SQLBuilder) {
        builder.append("CREATE " + (isUnique ? "UNIQUE " : "") + "INDEX " + (ifNotExists ? "IF NOT EXISTS " : ""))
        builder.append(SQLBuilder.quote(name) + " ON " + SQLBuilder.quote(table) + "(" + columns.map(\.sql).joined(separator: ", ") + ")")
    }
}

/// `DROP TABLE` or `DROP INDEX`.
public final class StatementDrop: RenderedStatement {
    let kind: String
    let name: String
    let ifExists: Bool
    /// `DROP TABLE name`.
    public init(table name: String, ifExists: Bool = true) { kind = "TABLE"; self.name = name; self.ifExists = ifExists }
    /// `DROP INDEX name`.
    public init(index name: String, ifExists: Bool = true) { kind = "INDEX"; self.name = name; self.ifExists = ifExists }
    func render(into builder: inout SQLBuilder) {
        builder.append("DROP \(kind) " + (ifExists ? "IF EXISTS " : "") + SQLBuilder.quote(name))
    }
}

/// A pragma name.
public struct Pragma: RawRepresentable, Hashable, Sendable {
    /// The raw value.
    public let rawValue: String
    /// A value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `PRAGMA cache_size`.
    public static let cacheSize = Pragma(rawValue: "cache_size")
    /// `PRAGMA journal_mode`.
    public static let journalMode = Pragma(rawValue: "journal_mode")
    /// `PRAGMA synchronous`.
    public static let synchronous = Pragma(rawValue: "synchronous")
    /// `PRAGMA foreign_keys`.
    public static let foreignKeys = Pragma(rawValue: "foreign_keys")
    /// `PRAGMA user_version`.
    public static let userVersion = Pragma(rawValue: "user_version")
    /// `PRAGMA secure_delete`.
    public static let secureDelete = Pragma(rawValue: "secure_delete")
    /// `PRAGMA table_info`.
    public static let tableInfo = Pragma(rawValue: "table_info")
    /// `PRAGMA integrity_check`.
    public static let integrityCheck = Pragma(rawValue: "integrity_check")
    /// `PRAGMA page_count`.
    public static let pageCount = Pragma(rawValue: "page_count")
    /// `PRAGMA page_size`.
    public static let pageSize = Pragma(rawValue: "page_size")
}

/// `PRAGMA name`, `PRAGMA name = value` or `PRAGMA name(value)`. Pragmas take no parameters, so the
/// value is written as an escaped literal (numbers, or a quoted string).
public final class StatementPragma: RenderedStatement {
    var pragma = Pragma.userVersion
    var value: FundamentalValue?
    var isCall = false

    /// An empty pragma.
    public init() {}
    /// Reads a pragma.
    @discardableResult
    public func pragma(_ pragma: Pragma) -> StatementPragma { self.pragma = pragma; value = nil; return self }
    /// Sets a pragma.
    @discardableResult
    public func pragma(_ pragma: Pragma, to value: ColumnEncodable) -> StatementPragma {
        self.pragma = pragma
        self.value = value.archivedValue()
        isCall = false
        return self
    }
    /// Calls a pragma with an argument, e.g. `table_info(name)`.
    @discardableResult
    public func pragma(_ pragma: Pragma, with argument: ColumnEncodable) -> StatementPragma {
        self.pragma = pragma
        value = argument.archivedValue()
        isCall = true
        return self
    }

    func render(into builder: inout SQLBuilder) {
        builder.append("PRAGMA " + SQLBuilder.quote(pragma.rawValue))
        guard let value else { return }
        let literal = SQLBuilder.literal(value)
        builder.append(isCall ? "(" + literal + ")" : " = " + literal)
    }
}

/// `EXPLAIN` or `EXPLAIN QUERY PLAN` of another statement.
public final class StatementExplain: Statement {
    var inner: Statement?
    var queryPlan = false

    /// An empty explain.
    public init() {}
    /// `EXPLAIN statement`.
    @discardableResult
    public func explain(_ statement: Statement) -> StatementExplain { inner = statement; queryPlan = false; return self }
    /// `EXPLAIN QUERY PLAN statement`.
    @discardableResult
    public func explainQueryPlan(_ statement: Statement) -> StatementExplain { inner = statement; queryPlan = true; return self }

    private var prefix: String { queryPlan ? "EXPLAIN QUERY PLAN " : "EXPLAIN " }
    /// The SQL to run and its bound values.
    public var statementSQL: StatementSQL {
        let innerSQL = inner?.statementSQL ?? StatementSQL(sql: "SELECT 1", values: [])
        return StatementSQL(sql: prefix + innerSQL.sql, values: innerSQL.values)
    }
    /// A readable rendering.
    public var description: String { prefix + (inner?.description ?? "SELECT 1") }
}
