import Foundation

/// An SQL expression: a column, a value, or operators and functions over them.
///
/// Expressions come from properties and literals: `Sample.Properties.identifier > 1`,
/// `Sample.Properties.description.isNotNull()`, `Sample.Properties.identifier.max()`.
/// Values inside an expression are always bound as parameters when it runs.
public struct SQLExpression: ExpressionOperable, CustomStringConvertible, @unchecked Sendable {
    indirect enum Node {
        case column(name: String, table: String?)
        case all(table: String?)
        case value(FundamentalValue)
        case raw(String)
        case prefix(String, Node)
        case postfix(Node, String)
        case binary(String, Node, Node)
        case function(String, [Node], distinct: Bool)
        case between(Node, Node, Node, not: Bool)
        case likeEscape(Node, Node, Node)
        case list(Node, String, [Node])
        case collate(Node, String)
        case cast(Node, String)
        case subquery(StatementSelect)
    }
    let node: Node

    init(_ node: Node) { self.node = node }

    /// A column by name, optionally qualified by its table.
    public init(column name: String, table: String? = nil) { node = .column(name: name, table: table) }

    /// A value, bound as a parameter when the statement runs.
    public init(value: ColumnEncodable) { node = .value(value.archivedValue()) }

    /// A function call such as `length(name)`; the name is validated as an identifier.
    public init(function name: String, _ arguments: [ExpressionConvertible], isDistinct: Bool = false) {
        node = .function(SQLBuilder.quote(name), arguments.map { $0.asExpression().node }, distinct: isDistinct)
    }

    /// This value as an expression.
    public func asExpression() -> SQLExpression { self }

    /// A readable rendering.
    public var description: String { renderForReading() }
}

extension SQLExpression: SQLRenderable {
    func render(into builder: inout SQLBuilder) { SQLExpression.render(node, into: &builder, nested: false) }

    private static func render(_ node: Node, into builder: inout SQLBuilder, nested: Bool) {
        switch node {
        case .column(let name, let table):
            if let table = table ?? builder.defaultTable { builder.appendIdentifier(table); builder.append(".") }
            builder.appendIdentifier(name)
        case .all(let table):
            if let table { builder.appendIdentifier(table); builder.append(".") }
            builder.append("*")
        case .value(let value):
            builder.appendValue(value)
        case .raw(let text):
            builder.append(text)
        case .prefix(let op, let operand):
            builder.append(op)
            render(operand, into: &builder, nested: true)
        case .postfix(let operand, let op):
            if nested { builder.append("(") }
            render(operand, into: &builder, nested: true)
            builder.append(" " + op)
            if nested { builder.append(")") }
        case .binary(let op, let lhs, let rhs) where op == "AND" || op == "OR":
            // `a AND b AND c`, not `((a AND b) AND c)`: a chain built in a loop would otherwise nest once per
            // operand and overflow SQLite's parser stack at about a hundred.
            if nested { builder.append("(") }
            for (i, operand) in chain(op, lhs, rhs).enumerated() {
                if i > 0 { builder.append(" \(op) ") }
                render(operand, into: &builder, nested: true)
            }
            if nested { builder.append(")") }
        case .binary(let op, let lhs, let rhs):
            if nested { builder.append("(") }
            render(lhs, into: &builder, nested: true)
            builder.append(" \(op) ")
            render(rhs, into: &builder, nested: true)
            if nested { builder.append(")") }
        case .function(let name, let arguments, let distinct):
            builder.append(name + "(" + (distinct ? "DISTINCT " : ""))
            for (i, argument) in arguments.enumerated() {
                if i > 0 { builder.append(", ") }
                render(argument, into: &builder, nested: false)
            }
            builder.append(")")
        case .between(let operand, let low, let high, let not):
            if nested { builder.append("(") }
            render(operand, into: &builder, nested: true)
            builder.append(not ? " NOT BETWEEN " : " BETWEEN ")
            render(low, into: &builder, nested: true)
            builder.append(" AND ")
            render(high, into: &builder, nested: true)
            if nested { builder.append(")") }
        case .likeEscape(let operand, let pattern, let escape):
            if nested { builder.append("(") }
            render(operand, into: &builder, nested: true)
            builder.append(" LIKE ")
            render(pattern, into: &builder, nested: true)
            builder.append(" ESCAPE ")
            render(escape, into: &builder, nested: true)
            if nested { builder.append(")") }
        case .list(let operand, let op, let elements):
            if nested { builder.append("(") }
            render(operand, into: &builder, nested: true)
            builder.append(" \(op)(")
            for (i, element) in elements.enumerated() {
                if i > 0 { builder.append(", ") }
                render(element, into: &builder, nested: false)
            }
            builder.append(")")
            if nested { builder.append(")") }
        case .collate(let operand, let collation):
            render(operand, into: &builder, nested: true)
            builder.append(" COLLATE ")
            builder.appendIdentifier(collation)
        case .cast(let operand, let type):
            builder.append("CAST(")
            render(operand, into: &builder, nested: false)
            builder.append(" AS \(type))")
        case .subquery(let select):
            builder.append("(")
            select.render(into: &builder)
            builder.append(")")
        }
    }
}

extension SQLExpression {
    /// The operands of an associative chain of `op` (AND or OR), left to right, found without recursion so that
    /// chains of any length render.
    fileprivate static func chain(_ op: String, _ lhs: Node, _ rhs: Node) -> [Node] {
        var operands: [Node] = []
        var pending: [Node] = [rhs, lhs]
        while let node = pending.popLast() {
            if case .binary(let inner, let l, let r) = node, inner == op {
                pending.append(r)
                pending.append(l)
            } else {
                operands.append(node)
            }
        }
        return operands
    }
}

/// A `WHERE` or `HAVING` condition.
public typealias Condition = SQLExpression
/// A `LIMIT` count.
public typealias Limit = ExpressionConvertible
/// An `OFFSET` count.
public typealias Offset = ExpressionConvertible

/// Anything that can stand in an expression: properties, columns, expressions and plain values.
public protocol ExpressionConvertible {
    /// This value as an expression.
    func asExpression() -> SQLExpression
}

/// A value usable as a result column of a select (properties, expressions, aggregates).
public typealias ColumnResultConvertible = ExpressionConvertible

// Plain values become bound parameters.
extension ExpressionConvertible where Self: ColumnEncodable {
    /// This value as an expression.
    public func asExpression() -> SQLExpression { SQLExpression(.value(archivedValue())) }
}
extension Int: ExpressionConvertible {}
extension Int8: ExpressionConvertible {}
extension Int16: ExpressionConvertible {}
extension Int32: ExpressionConvertible {}
extension Int64: ExpressionConvertible {}
extension UInt: ExpressionConvertible {}
extension UInt8: ExpressionConvertible {}
extension UInt16: ExpressionConvertible {}
extension UInt32: ExpressionConvertible {}
extension UInt64: ExpressionConvertible {}
extension Bool: ExpressionConvertible {}
extension Float: ExpressionConvertible {}
extension Double: ExpressionConvertible {}
extension String: ExpressionConvertible {}
extension Data: ExpressionConvertible {}
extension Date: ExpressionConvertible {}
extension URL: ExpressionConvertible {}
extension FundamentalValue: ExpressionConvertible {}
extension Optional: ExpressionConvertible where Wrapped: ColumnEncodable & ExpressionConvertible {}
