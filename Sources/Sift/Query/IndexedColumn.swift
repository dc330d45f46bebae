/// A column in an index or a multi-column constraint, with its order.
public struct IndexedColumn: Sendable, IndexConvertible {
    let name: String
    let term: OrderTerm?
    /// This column as an index column.
    public func asIndexedColumn() -> IndexedColumn { self }
    var sql: String { SQLBuilder.quote(name) + (term.map { " " + $0.sql } ?? "") }
}

/// Something that can be a column of an index: a property or `property.asIndex(orderBy:)`.
public protocol IndexConvertible {
    /// The column with its order.
    func asIndexedColumn() -> IndexedColumn
}
