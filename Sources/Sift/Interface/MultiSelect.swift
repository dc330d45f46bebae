import CSQLite

/// A select over several tables whose rows decode into one object per table.
///
///     let select = try database.prepareMultiSelect(
///         on: Message.Properties.all.inTable("message") + Author.Properties.all.inTable("author"),
///         fromTables: ["message", "author"])
///         .where(Message.Properties.authorID.inTable("message") == Author.Properties.identifier.inTable("author"))
///     for row in try select.allMultiObjects() { let message = row["message"] as? Message }
public final class MultiSelect {
    let select: RowSelect
    let properties: [Property]

    init(database: Database, properties: [Property], tables: [String]) {
        self.properties = properties
        select = RowSelect(database: database, results: properties, tables: tables, distinct: false)
    }

    /// `WHERE`.
    @discardableResult public func `where`(_ condition: Condition?) -> MultiSelect { select.where(condition); return self }
    /// `ORDER BY`.
    @discardableResult public func order(by orderList: OrderByList?) -> MultiSelect { select.order(by: orderList); return self }
    /// `LIMIT`.
    @discardableResult public func limit(_ limit: Limit?) -> MultiSelect { select.limit(limit); return self }
    /// `OFFSET`.
    @discardableResult public func offset(_ offset: Offset?) -> MultiSelect { select.offset(offset); return self }

    /// The objects of the next row, keyed by table name.
    public func nextMultiObject() throws -> [String: any TableDecodable]? {
        if decoders == nil { decoders = makeDecoders() }
        let decoders = self.decoders ?? []
        return try select.nextRawRow { stmt in
            var objects: [String: any TableDecodable] = [:]
            for (table, decoder, decode) in decoders { objects[table] = try decode(decoder, stmt) }
            return objects
        }
    }

    /// One row decoder per table, reading that table's properties from their result columns: the same decoder
    /// and value rules as every other read.
    private var decoders: [(String, RowDecoder, (RowDecoder, OpaquePointer) throws -> any TableDecodable)]?

    private func makeDecoders() -> [(String, RowDecoder, (RowDecoder, OpaquePointer) throws -> any TableDecodable)] {
        var roots: [(table: String, type: any TableDecodable.Type)] = []
        for property in properties {
            guard let table = property.table, let root = property.root, !roots.contains(where: { $0.table == table }) else { continue }
            roots.append((table, root))
        }
        return roots.map { root in
            func make<Object: TableDecodable>(_ type: Object.Type) -> (RowDecoder, (RowDecoder, OpaquePointer) throws -> any TableDecodable) {
                let binding = Object.CodingKeys.objectRelationalMapping
                let ordinals = properties.map { $0.table == root.table ? binding.ordinal(ofColumn: $0.name) : nil }
                return (RowDecoder(binding: binding, ordinals: ordinals), { decoder, stmt in try decoder.decode(Object.self, from: stmt) })
            }
            let (decoder, decode) = make(root.type)
            return (root.table, decoder, decode)
        }
    }

    /// The objects of every remaining row, keyed by table name.
    public func allMultiObjects() throws -> [[String: any TableDecodable]] {
        var rows: [[String: any TableDecodable]] = []
        while let row = try nextMultiObject() { rows.append(row) }
        return rows
    }
}

extension PreparedStatement {
    func withRawStatement<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R { try body(rawStatement) }
}
