/// How vector indexes follow a migration step, and recovery, of their content table.
extension VectorIndex {
    /// Brings every vector index over `table` up to date after a migration step, inside its transaction: a column the
    /// step renamed is renamed in the record, an index whose column the step dropped is dropped, a changed rowid
    /// column is followed, and the index is rebuilt from the migrated rows (a vector it refuses fails the step).
    static func follow(migrationOf table: String, renamedColumns: [String: String], on handle: Handle) throws {
        let indexes = try load(on: handle).filter { $0.content == table }
        guard !indexes.isEmpty else { return }
        let present = Set(try handle.columnNames(of: table))
        let rowid = try handle.integerPrimaryKey(of: table) ?? "rowid"
        for index in indexes {
            let column = renamedColumns[index.column] ?? index.column
            guard present.contains(column) else {
                try VectorStore.drop(index.name, on: handle)
                continue
            }
            let current = VectorIndex(name: index.name, content: table, rowidColumn: rowid, column: column,
                                      dimension: index.dimension, metric: index.metric, quantization: index.quantization,
                                      blockRows: index.blockRows)
            let store = VectorStore(current, on: handle)
            if current != index {
                try store.run("UPDATE sift_vector_sync SET column_name = ?, content_rowid = ? WHERE index_name = ?",
                              [FundamentalValue(column), FundamentalValue(rowid), FundamentalValue(index.name)])
            }
            try store.rebuild(strict: true)
        }
    }

    /// Rebuilds every recorded vector index from the recovered rows (their derived tables, copied from the damaged
    /// file, are not trusted); a vector the index refuses is left out and counted in the problems.
    static func rebuildAfterRecovery(on handle: Handle) -> [String] {
        var problems: [String] = []
        for index in (try? load(on: handle)) ?? [] {
            do {
                let store = VectorStore(index, on: handle)
                try store.create()
                let skipped = try store.rebuild(strict: false)
                if skipped > 0 { problems.append("vector index \(index.name): \(skipped) rows hold no valid vector and are left out") }
            } catch {
                problems.append("vector index \(index.name) could not be rebuilt: \((error as? SiftError)?.message ?? "\(error)")")
            }
        }
        return problems
    }
}
