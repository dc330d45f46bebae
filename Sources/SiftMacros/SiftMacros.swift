@_exported import Sift

/// Gives a table model direct row coding: `init(row:)` and `encode(to: TableRowWriter)`, generated from its
/// `CodingKeys`, so Sift reads and writes its columns without going through Codable's containers.
///
///     @TableRowCoding
///     struct Item: TableCodable {
///         var id: Int64
///         var name: String
///         enum CodingKeys: String, CodingTableKey { ... }
///     }
///
/// The model keeps its Codable conformance and behaves the same (same columns, NULL only into optionals,
/// nested Codable values as JSON); only faster. Requirements: the `CodingKeys` enum is declared in the type's
/// body, and a class is a root class. Structs get the members in an extension, so their memberwise
/// initializer stays; classes get them in the body, plus `init()` when the class had the implicit one.
@attached(member, names: named(init(row:)), named(encode(to:)), named(init))
@attached(extension, names: named(init(row:)), named(encode(to:)))
public macro TableRowCoding() = #externalMacro(module: "SiftMacrosPlugin", type: "TableRowCodingMacro")
