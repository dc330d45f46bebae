/// A column by name, for tables without a binding or for `*`.
///
///     Column.all.count()          // count(*)
///     Column(named: "localID") > 0
public struct Column: ExpressionOperable, PropertyConvertible, Sendable, CustomStringConvertible {
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

    /// This column as a property.
    public func asProperty() -> Property { Property(name: name, table: table, expression: asExpression()) }

    /// A readable rendering.
    public var description: String { asExpression().description }
}

/// A column of a bound model, as used in `on:` lists (which columns to insert, update or select).
public struct Property: ExpressionOperable, PropertyConvertible, @unchecked Sendable, CustomStringConvertible {
    /// The column name.
    public let name: String
    /// The qualifying table, if any.
    public let table: String?
    let expression: SQLExpression
    /// The model this property belongs to, when it comes from a binding (used to decode joins).
    let root: (any TableDecodable.Type)?

    init(name: String, table: String?, expression: SQLExpression, root: (any TableDecodable.Type)? = nil) {
        self.name = name
        self.table = table
        self.expression = expression
        self.root = root
    }

    /// This value as an expression.
    public func asExpression() -> SQLExpression { expression }
    /// This column as a property.
    public func asProperty() -> Property { self }

    /// The same property qualified by `table`, for joins.
    public func inTable(_ table: String) -> Property {
        Property(name: name, table: table, expression: SQLExpression(.column(name: name, table: table)), root: root)
    }

    /// A readable rendering.
    public var description: String { expression.description }
}

/// Something that names a column of a bound model.
public protocol PropertyConvertible: ExpressionConvertible {
    /// The property.
    func asProperty() -> Property
}

extension Array where Element == Property {
    /// Every property qualified by `table`, for joins.
    public func inTable(_ table: String) -> [Property] { map { $0.inTable(table) } }
}
