/// A statement's SQL text (with `?` parameters) and the values bound to them.
public struct StatementSQL: Sendable, Equatable {
    /// The SQL text.
    public let sql: String
    /// The values for its parameters, in order.
    public let values: [FundamentalValue]
}

/// A typed SQL statement. `description` shows the SQL with values inline, for people;
/// running it binds every value as a parameter, so input never changes the statement's structure.
public protocol Statement: CustomStringConvertible {
    /// The SQL to run and its bound values.
    var statementSQL: StatementSQL { get }
}

/// Statements built from renderable clauses share their description and SQL.
protocol RenderedStatement: Statement, SQLRenderable {}

extension RenderedStatement {
    /// The SQL to run and its bound values.
    public var statementSQL: StatementSQL {
        let (sql, values) = renderForExecution()
        return StatementSQL(sql: sql, values: values)
    }
    /// A readable rendering.
    public var description: String { renderForReading() }
}

/// Shared tail of SELECT, UPDATE and DELETE: `WHERE`, `ORDER BY`, `LIMIT`, `OFFSET`.
struct FilterClauses {
    var condition: SQLExpression?
    var orderBy: [OrderBy] = []
    var limit: SQLExpression?
    var offset: SQLExpression?

    func render(into builder: inout SQLBuilder) {
        if let condition {
            builder.append(" WHERE ")
            condition.render(into: &builder)
        }
        if !orderBy.isEmpty {
            builder.append(" ORDER BY ")
            orderBy.render(into: &builder)
        }
        if let limit {
            builder.append(" LIMIT ")
            limit.render(into: &builder)
        } else if offset != nil {
            builder.append(" LIMIT -1")
        }
        if let offset {
            builder.append(" OFFSET ")
            offset.render(into: &builder)
        }
    }
}

/// `SELECT`.
///
///     StatementSelect().select(Sample.Properties.identifier.max()).from("sampleTable").where(Sample.Properties.identifier > 0)
public final class StatementSelect: RenderedStatement {
    var isDistinct = false
    var columns: [SQLExpression] = []
    var tables: [String] = []
    var filter = FilterClauses()
    var groups: [SQLExpression] = []
    var havingCondition: SQLExpression?

    /// An empty select.
    public init() {}

    /// The result columns.
    @discardableResult
    public func select(distinct: Bool = false, _ columns: [ColumnResultConvertible]) -> StatementSelect {
        isDistinct = distinct
        self.columns = columns.map { $0.asExpression() }
        return self
    }
    /// The result columns.
    @discardableResult
    public func select(distinct: Bool = false, _ columns: ColumnResultConvertible...) -> StatementSelect { select(distinct: distinct, columns) }
    /// The tables to read (several make a join; relate them in `where`).
    @discardableResult
    public func from(_ tables: String...) -> StatementSelect { from(tables) }
    /// The tables to read.
    @discardableResult
    public func from(_ tables: [String]) -> StatementSelect { self.tables = tables; return self }
    /// `WHERE`.
    @discardableResult
    public func `where`(_ condition: Condition?) -> StatementSelect { filter.condition = condition; return self }
    /// `GROUP BY`.
    @discardableResult
    public func group(by expressions: ExpressionConvertible...) -> StatementSelect { groups = expressions.map { $0.asExpression() }; return self }
    /// `HAVING`.
    @discardableResult
    public func having(_ condition: Condition?) -> StatementSelect { havingCondition = condition; return self }
    /// `ORDER BY`.
    @discardableResult
    public func order(by orderList: OrderByList?) -> StatementSelect { filter.orderBy = orderList?.orderTerms ?? []; return self }
    /// `LIMIT`.
    @discardableResult
    public func limit(_ limit: Limit?) -> StatementSelect { filter.limit = limit?.asExpression(); return self }
    /// `OFFSET`.
    @discardableResult
    public func offset(_ offset: Offset?) -> StatementSelect { filter.offset = offset?.asExpression(); return self }

    func render(into builder: inout SQLBuilder) {
        builder.append(isDistinct ? "SELECT DISTINCT " : "SELECT ")
        if columns.isEmpty { builder.append("*") } else { columns.render(into: &builder) }
        if !tables.isEmpty { builder.append(" FROM " + tables.map(SQLBuilder.quote).joined(separator: ", ")) }
        var whereOnly = filter
        whereOnly.orderBy = []; whereOnly.limit = nil; whereOnly.offset = nil
        whereOnly.render(into: &builder)
        if !groups.isEmpty {
            builder.append(" GROUP BY ")
            groups.render(into: &builder)
        }
        if let havingCondition {
            builder.append(" HAVING ")
            havingCondition.render(into: &builder)
        }
        var rest = filter
        rest.condition = nil
        rest.render(into: &builder)
    }
}

/// A select inside an expression is a scalar subquery, `(SELECT ...)`: its first row's first column, or NULL.
///
///     let messages = StatementSelect().select(Column.all.count()).from("chat")
///         .where(Column(named: "userId", table: "chat") == Column(named: "id", table: "user"))
///     StatementUpdate().update(table: "user").set(Column(named: "msgCount"), to: messages)
extension StatementSelect: ExpressionConvertible {
    /// This select as a scalar subquery.
    public func asExpression() -> SQLExpression { SQLExpression(.subquery(self)) }
}

/// `INSERT`.
public final class StatementInsert: RenderedStatement {
    var table = ""
    var columns: [String] = []
    var conflict: Conflict?
    var rows: [[SQLExpression]] = []

    /// An empty insert.
    public init() {}
    /// The table, the columns, and what to do on conflict (`.replace` for insert-or-replace).
    @discardableResult
    public func insert(intoTable table: String, with columns: [ColumnConvertible] = [], onConflict conflict: Conflict? = nil) -> StatementInsert {
        self.table = table
        self.columns = columns.map { $0.asColumn().name }
        self.conflict = conflict
        return self
    }
    /// One row of values (bound as parameters).
    @discardableResult
    public func values(_ values: ExpressionConvertible...) -> StatementInsert { self.values(values) }
    /// One row of values (bound as parameters).
    @discardableResult
    public func values(_ values: [ExpressionConvertible]) -> StatementInsert {
        rows.append(values.map { $0.asExpression() })
        return self
    }

    func render(into builder: inout SQLBuilder) {
        builder.append("INSERT")
        if let conflict { builder.append(" OR " + conflict.rawValue) }
        builder.append(" INTO " + SQLBuilder.quote(table))
        if !columns.isEmpty { builder.append("(" + columns.map(SQLBuilder.quote).joined(separator: ", ") + ")") }
        builder.append(" VALUES")
        for (i, row) in rows.enumerated() {
            builder.append(i == 0 ? "(" : ", (")
            row.render(into: &builder)
            builder.append(")")
        }
    }
}

/// `UPDATE`.
public final class StatementUpdate: RenderedStatement {
    var table = ""
    var conflict: Conflict?
    var assignments: [(String, SQLExpression)] = []
    var filter = FilterClauses()

    /// An empty update.
    public init() {}
    /// The table.
    @discardableResult
    public func update(table: String, onConflict conflict: Conflict? = nil) -> StatementUpdate {
        self.table = table
        self.conflict = conflict
        return self
    }
    /// `SET column = value`; values are bound.
    @discardableResult
    public func set(_ column: ColumnConvertible, to value: ExpressionConvertible) -> StatementUpdate {
        assignments.append((column.asColumn().name, value.asExpression()))
        return self
    }
    /// `WHERE`.
    @discardableResult
    public func `where`(_ condition: Condition?) -> StatementUpdate { filter.condition = condition; return self }
    /// `ORDER BY` (with `LIMIT`).
    @discardableResult
    public func order(by orderList: OrderByList?) -> StatementUpdate { filter.orderBy = orderList?.orderTerms ?? []; return self }
    /// `LIMIT`.
    @discardableResult
    public func limit(_ limit: Limit?) -> StatementUpdate { filter.limit = limit?.asExpression(); return self }
    /// `OFFSET`.
    @discardableResult
    public func offset(_ offset: Offset?) -> StatementUpdate { filter.offset = offset?.asExpression(); return self }

    func render(into builder: inout SQLBuilder) {
        builder.append("UPDATE")
        if let conflict { builder.append(" OR " + conflict.rawValue) }
        builder.append(" " + SQLBuilder.quote(table) + " SET ")
        for (i, (column, value)) in assignments.enumerated() {
            if i > 0 { builder.append(", ") }
            builder.append(SQLBuilder.quote(column) + " = ")
            value.render(into: &builder)
        }
        filter.render(into: &builder)
    }
}

/// `DELETE`.
public final class StatementDelete: RenderedStatement {
    var table = ""
    var filter = FilterClauses()

    /// An empty delete.
    public init() {}
    /// The table.
    @discardableResult
    public func delete(fromTable table: String) -> StatementDelete { self.table = table; return self }
    /// `WHERE`.
    @discardableResult
    public func `where`(_ condition: Condition?) -> StatementDelete { filter.condition = condition; return self }
    /// `ORDER BY` (with `LIMIT`).
    @discardableResult
    public func order(by orderList: OrderByList?) -> StatementDelete { filter.orderBy = orderList?.orderTerms ?? []; return self }
    /// `LIMIT`.
    @discardableResult
    public func limit(_ limit: Limit?) -> StatementDelete { filter.limit = limit?.asExpression(); return self }
    /// `OFFSET`.
    @discardableResult
    public func offset(_ offset: Offset?) -> StatementDelete { filter.offset = offset?.asExpression(); return self }

    func render(into builder: inout SQLBuilder) {
        builder.append("DELETE FROM " + SQLBuilder.quote(table))
        filter.render(into: &builder)
    }
}
