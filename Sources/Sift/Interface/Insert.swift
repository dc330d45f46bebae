import CSQLite

/// An insert of one model type, reusable for many batches.
public final class Insert<Object: TableEncodable> {
    let database: Database
    let table: String
    let properties: [PropertyConvertible]?
    let conflict: Conflict?

    init(database: Database, table: String, properties: [PropertyConvertible]?, conflict: Conflict?) {
        self.database = database
        self.table = table
        self.properties = properties
        self.conflict = conflict
    }

    /// Inserts `objects` (one transaction when there are several).
    public func execute(with objects: [Object]) throws {
        try database.insertObjects(objects, on: properties, into: table, conflict: conflict)
    }

    /// Inserts `objects`.
    public func execute(with objects: Object...) throws { try execute(with: objects) }
}
