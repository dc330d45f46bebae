/// A column by name, for tables without a binding or for `*`.
///
///     Column.all.count()          // count(*)
///     Column(named: "localID") > 0
public struct Column: ExpressionOperable, ColumnConvertible, Sendable, CustomStringConvertible {
    /// The column's name.
    public let name: String
    /// The table that qualifies it, if any.
    public let table: String?
    let isAll: Bool

    /// A column called `name`.
    public init(named name: String, table: String? = nil) {
        self.name = name
        self.table = table
        isAll = false
    }

    private init(allIn table: String?) {
        name = "*"
        self.table = table
        isAll = true
    }

    /// `*`.
    public static let all = Column(allIn: nil)

    /// The same column qualified by `table`.
    public func inTable(_ table: String) -> Column { isAll ? Column(allIn: table) : Column(named: name, table: table) }

    /// This value as an expression.
    public func asExpression() -> SQLExpression {
        isAll ? SQLExpression(.all(table: table)) : SQLExpression(.column(name: name, table: table))
    }

    /// This column.
    public func asColumn() -> Column { self }

    /// A readable rendering.
    public var description: String { asExpression().description }
}

/// Something that names a column: a ``Column``, or a bound model's property. Statements take these where they
/// need a column's name (the columns of an insert, the targets of an update).
public protocol ColumnConvertible: ExpressionConvertible {
    /// The column.
    func asColumn() -> Column
}
