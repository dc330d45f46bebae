/// A model that can be written to a table: its `CodingKeys` enumerate the columns.
public protocol TableEncodable: Encodable {
    /// The keys that name the model's columns.
    associatedtype CodingKeys: CodingTableKey
    /// When true, the integer primary key is left to the database (max + 1) on insert.
    var isAutoIncrement: Bool { get }
    /// The rowid the database gave the object on its last auto-increment insert.
    var lastInsertedRowID: Int64 { get set }
    /// Binds the model's columns for an insert or update; by default through `Encodable` (see `TableRowWriter`).
    func encode(to row: borrowing TableRowWriter) throws
}

extension TableEncodable {
    /// False: models insert their own keys unless they say otherwise.
    public var isAutoIncrement: Bool { false }
    /// Ignored unless the model stores it.
    public var lastInsertedRowID: Int64 {
        get { 0 }
        set {}
    }
}

/// A model that can be read from a table.
public protocol TableDecodable: Decodable {
    /// The keys that name the model's columns.
    associatedtype CodingKeys: CodingTableKey
    /// Reads a model from a selected row; by default through `Decodable` (see `TableRow`).
    init(row: borrowing TableRow) throws
}

/// A model that can be written to and read from a table.
///
///     class Sample: TableCodable {
///         var identifier: Int? = nil
///         var description: String? = nil
///         enum CodingKeys: String, CodingTableKey {
///             typealias Root = Sample
///             static let objectRelationalMapping = TableBinding(CodingKeys.self)
///             case identifier = "id"
///             case description
///         }
///     }
public protocol TableCodable: TableEncodable, TableDecodable {}

extension TableEncodable {
    /// The model's columns, for queries: `Sample.Properties.identifier > 1`.
    public typealias Properties = CodingKeys
}

extension TableDecodable {
    /// The model's columns, for queries: `Sample.Properties.identifier > 1`.
    public typealias Properties = CodingKeys
}
