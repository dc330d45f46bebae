/// Expressions that take operators and SQL functions: properties, columns and expressions.
///
///     Sample.Properties.identifier > 1 && Sample.Properties.description.isNotNull()
///     Sample.Properties.identifier.between(10, 20) || Sample.Properties.description.like("Hello%")
public protocol ExpressionOperable: ExpressionConvertible {}

extension ExpressionOperable {
    private static func binary<T: ExpressionConvertible>(_ op: String, _ lhs: Self, _ rhs: T) -> SQLExpression {
        SQLExpression(.binary(op, lhs.asExpression().node, rhs.asExpression().node))
    }

    // MARK: Unary

    /// Arithmetic negation.
    public static prefix func - (operand: Self) -> SQLExpression { SQLExpression(.prefix("-", operand.asExpression().node)) }
    /// Logical NOT.
    public static prefix func ! (operand: Self) -> SQLExpression { SQLExpression(.prefix("NOT ", operand.asExpression().node)) }
    /// Bitwise NOT.
    public static prefix func ~ (operand: Self) -> SQLExpression { SQLExpression(.prefix("~", operand.asExpression().node)) }

    // MARK: Logical

    /// SQL `OR`.
    public static func || <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("OR", lhs, rhs) }
    /// SQL `AND`.
    public static func && <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("AND", lhs, rhs) }

    // MARK: Arithmetic and bitwise

    /// Multiplication.
    public static func * <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("*", lhs, rhs) }
    /// Division.
    public static func / <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("/", lhs, rhs) }
    /// Remainder.
    public static func % <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("%", lhs, rhs) }
    /// Addition.
    public static func + <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("+", lhs, rhs) }
    /// Subtraction.
    public static func - <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("-", lhs, rhs) }
    /// Left shift.
    public static func << <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("<<", lhs, rhs) }
    /// Right shift.
    public static func >> <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary(">>", lhs, rhs) }
    /// Bitwise AND.
    public static func & <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("&", lhs, rhs) }
    /// Bitwise OR.
    public static func | <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("|", lhs, rhs) }

    // MARK: Comparison

    /// Less than.
    public static func < <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("<", lhs, rhs) }
    /// Less than or equal.
    public static func <= <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("<=", lhs, rhs) }
    /// Greater than.
    public static func > <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary(">", lhs, rhs) }
    /// Greater than or equal.
    public static func >= <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary(">=", lhs, rhs) }
    /// Equal.
    public static func == <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("=", lhs, rhs) }
    /// Not equal.
    public static func != <T: ExpressionConvertible>(lhs: Self, rhs: T) -> SQLExpression { binary("!=", lhs, rhs) }

    // MARK: Predicates

    /// `IS NULL`.
    public func isNull() -> SQLExpression { SQLExpression(.postfix(asExpression().node, "IS NULL")) }
    /// `IS NOT NULL`.
    public func isNotNull() -> SQLExpression { SQLExpression(.postfix(asExpression().node, "IS NOT NULL")) }
    /// `BETWEEN low AND high`.
    public func between<L: ExpressionConvertible, H: ExpressionConvertible>(_ low: L, _ high: H) -> SQLExpression {
        SQLExpression(.between(asExpression().node, low.asExpression().node, high.asExpression().node, not: false))
    }
    /// `NOT BETWEEN low AND high`.
    public func notBetween<L: ExpressionConvertible, H: ExpressionConvertible>(_ low: L, _ high: H) -> SQLExpression {
        SQLExpression(.between(asExpression().node, low.asExpression().node, high.asExpression().node, not: true))
    }
    /// `IN (...)`.
    public func `in`(_ values: ExpressionConvertible...) -> SQLExpression { self.in(values) }
    /// `IN (...)`.
    public func `in`(_ values: [ExpressionConvertible]) -> SQLExpression {
        SQLExpression(.list(asExpression().node, "IN", values.map { $0.asExpression().node }))
    }
    /// `NOT IN (...)`.
    public func notIn(_ values: ExpressionConvertible...) -> SQLExpression { notIn(values) }
    /// `NOT IN (...)`.
    public func notIn(_ values: [ExpressionConvertible]) -> SQLExpression {
        SQLExpression(.list(asExpression().node, "NOT IN", values.map { $0.asExpression().node }))
    }
    /// `LIKE pattern`; the pattern is bound, so `%` and `_` in user input only act as wildcards.
    public func like<T: ExpressionConvertible>(_ pattern: T) -> SQLExpression { Self.binary("LIKE", self, pattern) }
    /// `LIKE pattern ESCAPE escape`.
    public func like<T: ExpressionConvertible>(_ pattern: T, escape: String) -> SQLExpression {
        SQLExpression(.likeEscape(asExpression().node, pattern.asExpression().node, .value(FundamentalValue(escape))))
    }
    /// `NOT LIKE pattern`.
    public func notLike<T: ExpressionConvertible>(_ pattern: T) -> SQLExpression { Self.binary("NOT LIKE", self, pattern) }
    /// `GLOB pattern`.
    public func glob<T: ExpressionConvertible>(_ pattern: T) -> SQLExpression { Self.binary("GLOB", self, pattern) }
    /// `MATCH pattern` (full-text search; prefer Sift's search API for user text).
    public func match<T: ExpressionConvertible>(_ pattern: T) -> SQLExpression { Self.binary("MATCH", self, pattern) }
    /// `REGEXP pattern` (needs a `regexp` function registered on the connection).
    public func regexp<T: ExpressionConvertible>(_ pattern: T) -> SQLExpression { Self.binary("REGEXP", self, pattern) }
    /// `IS value`.
    public func `is`<T: ExpressionConvertible>(_ value: T) -> SQLExpression { Self.binary("IS", self, value) }
    /// `IS NOT value`.
    public func isNot<T: ExpressionConvertible>(_ value: T) -> SQLExpression { Self.binary("IS NOT", self, value) }
    /// String concatenation (`||` in SQL; Swift's `||` means OR here).
    public func concat<T: ExpressionConvertible>(_ other: T) -> SQLExpression { Self.binary("||", self, other) }
    /// `COLLATE name`.
    public func collate(_ name: String) -> SQLExpression { SQLExpression(.collate(asExpression().node, name)) }
    /// `CAST(expr AS type)`.
    public func cast(as type: ColumnType) -> SQLExpression { SQLExpression(.cast(asExpression().node, type == .null ? "BLOB" : type.sqlTypeName)) }

    // MARK: Aggregates

    private func function(_ name: String, distinct: Bool = false) -> SQLExpression {
        SQLExpression(.function(name, [asExpression().node], distinct: distinct))
    }
    /// `avg(x)`.
    public func avg(isDistinct: Bool = false) -> SQLExpression { function("avg", distinct: isDistinct) }
    /// `count(x)`.
    public func count(isDistinct: Bool = false) -> SQLExpression { function("count", distinct: isDistinct) }
    /// `max(x)`.
    public func max(isDistinct: Bool = false) -> SQLExpression { function("max", distinct: isDistinct) }
    /// `min(x)`.
    public func min(isDistinct: Bool = false) -> SQLExpression { function("min", distinct: isDistinct) }
    /// `sum(x)`.
    public func sum(isDistinct: Bool = false) -> SQLExpression { function("sum", distinct: isDistinct) }
    /// `total(x)`.
    public func total(isDistinct: Bool = false) -> SQLExpression { function("total", distinct: isDistinct) }
    /// `group_concat(x)` or `group_concat(x, separator)`.
    public func groupConcat(isDistinct: Bool = false, separateBy separator: String? = nil) -> SQLExpression {
        var arguments = [asExpression().node]
        if let separator { arguments.append(.value(FundamentalValue(separator))) }
        return SQLExpression(.function("group_concat", arguments, distinct: isDistinct))
    }
    /// `length(x)`.
    public func length() -> SQLExpression { function("length") }
    /// `abs(x)`.
    public func abs() -> SQLExpression { function("abs") }
    /// `lower(x)`.
    public func lower() -> SQLExpression { function("lower") }
    /// `upper(x)`.
    public func upper() -> SQLExpression { function("upper") }

    // MARK: Ordering

    /// This expression as an `ORDER BY` term.
    public func asOrder(by term: OrderTerm? = nil) -> OrderBy { OrderBy(asExpression(), term) }
}

/// Ascending or descending.
public enum OrderTerm: Sendable {
    case ascending, descending
    var sql: String { self == .ascending ? "ASC" : "DESC" }
}

/// One `ORDER BY` term.
public struct OrderBy: @unchecked Sendable, SQLRenderable, CustomStringConvertible {
    let expression: SQLExpression
    let term: OrderTerm?
    init(_ expression: SQLExpression, _ term: OrderTerm?) {
        self.expression = expression
        self.term = term
    }
    func render(into builder: inout SQLBuilder) {
        expression.render(into: &builder)
        if let term { builder.append(" " + term.sql) }
    }
    /// A readable rendering.
    public var description: String { renderForReading() }
}

/// One or several `ORDER BY` terms: a single term or an array of them.
public protocol OrderByList {
    /// The terms in order.
    var orderTerms: [OrderBy] { get }
}
extension OrderBy: OrderByList { public var orderTerms: [OrderBy] { [self] } }
extension Array: OrderByList where Element == OrderBy { public var orderTerms: [OrderBy] { self } }

extension SQLExpression.Node: @unchecked Sendable {}
