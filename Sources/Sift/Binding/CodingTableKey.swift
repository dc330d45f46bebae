/// The `CodingKeys` of a bound model: each case is a column, its raw value the column name.
///
/// Declare it inside the model with `typealias Root` and the binding:
///
///     enum CodingKeys: String, CodingTableKey {
///         typealias Root = Sample
///         static let objectRelationalMapping = TableBinding(CodingKeys.self)
///         case identifier = "id"
///     }
///
/// Optional static members add constraints, indexes, table constraints and a virtual-table binding.
public protocol CodingTableKey: CodingKey, RawRepresentable, Hashable, CaseIterable, ExpressionOperable,
    PropertyConvertible, IndexConvertible where RawValue == String
{
    /// The model these keys belong to.
    associatedtype Root
    /// The binding computed once from these keys.
    static var objectRelationalMapping: TableBinding<Self> { get }
    /// Per-column constraints.
    static var columnConstraintBindings: [Self: ColumnConstraintBinding]? { get }
    /// Indexes by name suffix; the index name is the table name followed by the suffix.
    static var indexBindings: [IndexBinding.Subfix: IndexBinding]? { get }
    /// Table constraints by name.
    static var tableConstraintBindings: [TableConstraintBinding.Name: TableConstraintBinding]? { get }
    /// The virtual-table module and arguments, for full-text search tables.
    static var virtualTableBinding: VirtualTableBinding? { get }
    /// Text and BLOB columns stored compressed (see ``ColumnCompression``).
    static var columnCompressionBindings: [Self: ColumnCompression]? { get }
}

extension CodingTableKey {
    /// None unless the model declares some.
    public static var columnConstraintBindings: [Self: ColumnConstraintBinding]? { nil }
    /// None unless the model declares some.
    public static var indexBindings: [IndexBinding.Subfix: IndexBinding]? { nil }
    /// None unless the model declares some.
    public static var tableConstraintBindings: [TableConstraintBinding.Name: TableConstraintBinding]? { nil }
    /// None unless the model declares some.
    public static var virtualTableBinding: VirtualTableBinding? { nil }
    /// None unless the model declares some.
    public static var columnCompressionBindings: [Self: ColumnCompression]? { nil }

    /// This value as an expression.
    public func asExpression() -> SQLExpression { SQLExpression(.column(name: stringValue, table: nil)) }

    /// This column as a property.
    public func asProperty() -> Property {
        Property(name: stringValue, table: nil, expression: asExpression(), root: Root.self as? any TableDecodable.Type)
    }

    /// This column qualified by `table`, for joins.
    public func inTable(_ table: String) -> Property { asProperty().inTable(table) }

    /// Every column of the model, in declaration order.
    public static var all: [Property] { allCases.map { $0.asProperty() } }

    /// This column in an index, with an order.
    public func asIndex(orderBy term: OrderTerm? = nil) -> IndexedColumn { IndexedColumn(name: stringValue, term: term) }

    /// This column as an index column.
    public func asIndexedColumn() -> IndexedColumn { IndexedColumn(name: stringValue, term: nil) }
}
