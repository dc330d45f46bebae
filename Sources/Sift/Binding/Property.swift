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
public protocol PropertyConvertible: ColumnConvertible {
    /// The property.
    func asProperty() -> Property
}

extension PropertyConvertible {
    /// The property's column.
    public func asColumn() -> Column { Column(named: asProperty().name, table: asProperty().table) }
}

extension Column: PropertyConvertible {
    /// This column as a property (of no model).
    public func asProperty() -> Property { Property(name: name, table: table, expression: asExpression()) }
}

extension Array where Element == Property {
    /// Every property qualified by `table`, for joins.
    public func inTable(_ table: String) -> [Property] { map { $0.inTable(table) } }
}
