/// Transactions belong to the thread that begins them: until it commits or rolls back, that thread
/// holds the database's single writer connection; other threads keep reading (WAL) and their writes wait.
extension Database {
    /// Begins a transaction on the calling thread, or a savepoint when one is already open.
    public func begin() throws {
        try pool.reporting {
            let handle = try pool.checkout(write: true)
            do {
                try handle.beginTransaction()
            } catch {
                pool.checkin(handle)
                throw error
            }
        }
    }

    /// Commits the innermost open transaction or savepoint of the calling thread.
    public func commit() throws {
        try pool.reporting {
            let handle = try currentTransactionHandle()
            try handle.commitTransaction()
            pool.checkin(handle)
        }
    }

    /// Rolls back the innermost open transaction or savepoint of the calling thread.
    public func rollback() throws {
        try pool.reporting {
            let handle = try currentTransactionHandle()
            defer { pool.checkin(handle) }
            try handle.rollbackTransaction()
        }
    }

    /// Whether the calling thread has a transaction open.
    public var isInTransaction: Bool { pool.isInTransaction }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    /// Nested calls become savepoints, so an inner failure undoes only the inner work.
    ///
    ///     try database.run(transaction: {
    ///         try database.insert(objects: a, intoTable: "t")
    ///         try database.delete(fromTable: "t", where: Sample.Properties.identifier == 1)
    ///     })
    public func run(transaction body: () throws -> Void) throws {
        try begin()
        do {
            try body()
        } catch {
            try? rollback()
            throw error
        }
        do {
            try commit()
        } catch {
            try? rollback()
            throw error
        }
    }

    private func currentTransactionHandle() throws -> Handle {
        guard let handle = pool.ownedWriter(), handle.transactionDepth > 0 else {
            throw pool.report(SiftError.misuse("No transaction is open on this thread.", operation: .transaction))
        }
        return handle
    }

    /// Runs `body` on the writer inside a transaction (a savepoint if one is open): Sift's batches.
    func write<R>(_ body: (Handle) throws -> R) throws -> R {
        try pool.withHandle(write: true) { handle in try handle.inTransaction { try body(handle) } }
    }

    /// Runs `body` on the writer without opening a transaction (a single statement is atomic anyway).
    func writeWithoutTransaction<R>(_ body: (Handle) throws -> R) throws -> R {
        try pool.withHandle(write: true, body)
    }

    /// Runs `body` on a reader, or on the writer when this thread holds a transaction.
    func read<R>(_ body: (Handle) throws -> R) throws -> R {
        try pool.withHandle(write: false, body)
    }
}
