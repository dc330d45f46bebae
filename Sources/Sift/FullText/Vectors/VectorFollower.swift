import CSQLite

/// What the sync layer tells one vector index on one connection (`SyncTracker` keeps one per recorded index, as it
/// keeps an `IndexBoundsFollower` per full-text index): each row change, in the change's transaction, then that the
/// statement's changes are applied, and each bulk load. It hands them to the index's owner, ``VectorStore``, with
/// the SQL of its writes made once; a vector the index refuses leaves the row out of the index and is kept as the
/// statement's error, thrown once every change of the statement is applied.
final class VectorFollower {
    let index: VectorIndex
    private let statements: VectorStore.Statements
    private var failure: SiftError?
    /// Whether the index is valid, read at the statement's first change (another connection may have marked it
    /// stale or rebuilt it since the last statement) and kept until `statementApplied`.
    private var valid: Bool?

    init(_ index: VectorIndex) {
        self.index = index
        statements = VectorStore.Statements(index)
    }

    private func store(on handle: Handle) -> VectorStore { VectorStore(index, statements: statements, on: handle) }

    /// A row changed: removed at `old` and/or added at `new` with the column's new `value` (nil or NULL: no vector).
    func rowChanged(old: Int64?, new: Int64?, value: OpaquePointer?, on handle: Handle) throws {
        let store = store(on: handle)
        if valid == nil { valid = try store.state()?.valid == true }
        guard valid == true else { return }  // stale: searches read the rows until a rebuild
        do {
            if let old { try store.remove(old) }
            guard let new, let result = index.vector(of: value) else { return }
            switch result {
            case .success(let vector): try store.append([(new, vector)])
            case .failure(let refused): if failure == nil { failure = index.error(refused, rowid: new, operation: .step) }
            }
        } catch is VectorStore.Stale {
            try store.markStale()
            valid = false
        }
    }

    /// The statement's changes are applied (or abandoned): the next change reads the index's state again.
    func statementApplied() {
        valid = nil
    }

    /// The first vector refused since the last call, if any (the statement then fails with it).
    func takeFailure() -> SiftError? {
        defer { failure = nil }
        return failure
    }

    /// A bulk insert put the rows `rowids` (sorted) into the content table: their vectors are added, a block at a
    /// time. A vector the index refuses fails the insert.
    func bulkInserted(_ rowids: [Int64], on handle: Handle) throws {
        let store = store(on: handle)
        guard !rowids.isEmpty, try store.state()?.valid == true else { return }
        let q = SQLBuilder.quote
        let sql = "SELECT \(q(index.rowidColumn)), \(q(index.column)) FROM \(q(index.content)) "
            + "WHERE \(q(index.rowidColumn)) BETWEEN ? AND ? ORDER BY 1"
        var batch: [(rowid: Int64, vector: [Float])] = []
        do {
            var start = 0
            while start < rowids.count {
                var end = start
                while end + 1 < rowids.count && rowids[end + 1] <= rowids[end] + 1 { end += 1 }
                try handle.withStatement(sql) { stmt in
                    sqlite3_bind_int64(stmt, 1, rowids[start])
                    sqlite3_bind_int64(stmt, 2, rowids[end])
                    while try handle.stepUnobserved(stmt) {
                        let rowid = sqlite3_column_int64(stmt, 0)
                        switch index.vector(column: 1, of: stmt) {
                        case nil: continue
                        case .success(let vector)?: batch.append((rowid, vector))
                        case .failure(let refused)?: throw index.error(refused, rowid: rowid, operation: .step)
                        }
                    }
                }
                if batch.count >= 8 * index.blockRows {
                    try store.append(batch)
                    batch.removeAll(keepingCapacity: true)
                }
                start = end + 1
            }
            try store.append(batch)
        } catch is VectorStore.Stale {
            try store.markStale()
        }
    }
}
