/// Column definitions' namespace, as in WCDB Swift's API (`ColumnDef.DefaultType`).
public enum ColumnDef {
    /// A column's `DEFAULT`.
    public enum DefaultType: Sendable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
        ExpressibleByStringLiteral, ExpressibleByNilLiteral, ExpressibleByBooleanLiteral
    {
        case null, int64(Int64), float(Double), text(String), BLOB([UInt8])
        case currentTime, currentDate, currentTimestamp

        /// A value from a literal.
        public init(integerLiteral value: Int64) { self = .int64(value) }
        /// A value from a literal.
        public init(floatLiteral value: Double) { self = .float(value) }
        /// A value from a literal.
        public init(stringLiteral value: String) { self = .text(value) }
        /// A value from a literal.
        public init(nilLiteral: ()) { self = .null }
        /// A value from a literal.
        public init(booleanLiteral value: Bool) { self = .int64(value ? 1 : 0) }

        var sql: String {
            switch self {
            case .null: return "NULL"
            case .int64(let v): return String(v)
            case .float(let v): return SQLBuilder.literal(FundamentalValue(v))
            // DDL cannot take parameters: the default is written as an escaped literal.
            case .text(let s): return SQLBuilder.literal(FundamentalValue(s))
            case .BLOB(let b): return SQLBuilder.literal(FundamentalValue(.init(b)))
            case .currentTime: return "CURRENT_TIME"
            case .currentDate: return "CURRENT_DATE"
            case .currentTimestamp: return "CURRENT_TIMESTAMP"
            }
        }
    }
}

/// Constraints of one column.
public struct ColumnConstraintBinding: Sendable {
    let isPrimary: Bool
    let term: OrderTerm?
    let isAutoIncrement: Bool
    let conflict: Conflict?
    let isNotNull: Bool
    let isUnique: Bool
    let defaultValue: ColumnDef.DefaultType?
    let isUnindexed: Bool

    /// Declares a column's constraints; `orderBy`, `isAutoIncrement` and `onConflict` apply to a primary key.
    public init(isPrimary: Bool = false, orderBy term: OrderTerm? = nil, isAutoIncrement: Bool = false,
                onConflict conflict: Conflict? = nil, isNotNull: Bool = false, isUnique: Bool = false,
                defaultTo defaultValue: ColumnDef.DefaultType? = nil) {
        self.isPrimary = isPrimary
        self.term = term
        self.isAutoIncrement = isAutoIncrement
        self.conflict = conflict
        self.isNotNull = isNotNull
        self.isUnique = isUnique
        self.defaultValue = defaultValue
        isUnindexed = false
    }

    /// An FTS5 column that is stored but not indexed.
    public init(isUnindexed: Bool) {
        isPrimary = false; term = nil; isAutoIncrement = false; conflict = nil
        isNotNull = false; isUnique = false; defaultValue = nil
        self.isUnindexed = isUnindexed
    }

    var sql: String {
        var parts: [String] = []
        if isPrimary {
            parts.append("PRIMARY KEY" + (term.map { " " + $0.sql } ?? ""))
            if let conflict { parts.append("ON CONFLICT " + conflict.rawValue) }
            if isAutoIncrement { parts.append("AUTOINCREMENT") }
        }
        if isNotNull { parts.append("NOT NULL") }
        if isUnique { parts.append("UNIQUE") }
        if let defaultValue { parts.append("DEFAULT " + defaultValue.sql) }
        return parts.joined(separator: " ")
    }
}

/// An index on one or more columns.
public struct IndexBinding: Sendable {
    /// The suffix appended to the table name to name the index.
    public typealias Subfix = String
    let isUnique: Bool
    let columns: [IndexedColumn]

    /// An index over `columns`.
    public init(isUnique: Bool = false, indexesBy columns: IndexConvertible...) {
        self.init(isUnique: isUnique, indexesBy: columns)
    }

    /// An index over `columns`.
    public init(isUnique: Bool = false, indexesBy columns: [IndexConvertible]) {
        self.isUnique = isUnique
        self.columns = columns.map { $0.asIndexedColumn() }
    }
}

/// A table constraint (`CONSTRAINT name ...`).
public protocol TableConstraintBinding: Sendable {
    /// The constraint's name.
    typealias Name = String
    /// The constraint's SQL after `CONSTRAINT name`.
    var constraintSQL: String { get }
}

/// `PRIMARY KEY(a, b)` over several columns.
public struct MultiPrimaryBinding: TableConstraintBinding {
    let columns: ColumnListConstraint
    /// A primary key over `columns`.
    public init(indexesBy columns: IndexConvertible..., onConflict conflict: Conflict? = nil) {
        self.columns = ColumnListConstraint(keyword: "PRIMARY KEY", columns: columns, conflict: conflict)
    }
    /// The constraint's SQL after `CONSTRAINT name`.
    public var constraintSQL: String { columns.sql }
}

/// `UNIQUE(a, b)` over several columns.
public struct MultiUniqueBinding: TableConstraintBinding {
    let columns: ColumnListConstraint
    /// A uniqueness constraint over `columns`.
    public init(indexesBy columns: IndexConvertible..., onConflict conflict: Conflict? = nil) {
        self.columns = ColumnListConstraint(keyword: "UNIQUE", columns: columns, conflict: conflict)
    }
    /// The constraint's SQL after `CONSTRAINT name`.
    public var constraintSQL: String { columns.sql }
}

/// `KEYWORD(a, b DESC) ON CONFLICT ...`: the shape primary-key and unique constraints share.
struct ColumnListConstraint: Sendable {
    let keyword: String
    let columns: [IndexedColumn]
    let conflict: Conflict?

    init(keyword: String, columns: [IndexConvertible], conflict: Conflict?) {
        self.keyword = keyword
        self.columns = columns.map { $0.asIndexedColumn() }
        self.conflict = conflict
    }

    var sql: String {
        keyword + "(" + columns.map(\.sql).joined(separator: ", ") + ")" + (conflict.map { " ON CONFLICT " + $0.rawValue } ?? "")
    }
}

/// `CHECK(condition)`; the condition's values are written as literals because DDL takes no parameters.
public struct CheckBinding: TableConstraintBinding {
    let condition: String
    /// A check constraint.
    public init(check condition: SQLExpression) { self.condition = condition.renderForReading() }
    /// The constraint's SQL after `CONSTRAINT name`.
    public var constraintSQL: String { "CHECK(" + condition + ")" }
}

/// `FOREIGN KEY(a) REFERENCES table(b)` with its actions.
public struct ForeignKeyBinding: TableConstraintBinding {
    /// What happens to the referencing rows when the referenced row changes.
    public enum Action: String, Sendable {
        case setNull = "SET NULL", setDefault = "SET DEFAULT", cascade = "CASCADE", restrict = "RESTRICT", noAction = "NO ACTION"
    }
    let columns: [String]
    let foreignTable: String
    let foreignColumns: [String]
    let onDelete: Action?
    let onUpdate: Action?

    /// A foreign key from `columns` to `foreignColumns` of `foreignTable`.
    public init(_ columns: PropertyConvertible..., foreignTable: String, foreignColumns: PropertyConvertible...,
                onDelete: Action? = nil, onUpdate: Action? = nil) {
        self.columns = columns.map { $0.asProperty().name }
        self.foreignTable = foreignTable
        self.foreignColumns = foreignColumns.map { $0.asProperty().name }
        self.onDelete = onDelete
        self.onUpdate = onUpdate
    }
    /// The constraint's SQL after `CONSTRAINT name`.
    public var constraintSQL: String {
        var sql = "FOREIGN KEY(" + columns.map(SQLBuilder.quote).joined(separator: ", ") + ") REFERENCES "
            + SQLBuilder.quote(foreignTable) + "(" + foreignColumns.map(SQLBuilder.quote).joined(separator: ", ") + ")"
        if let onDelete { sql += " ON DELETE " + onDelete.rawValue }
        if let onUpdate { sql += " ON UPDATE " + onUpdate.rawValue }
        return sql
    }
}
