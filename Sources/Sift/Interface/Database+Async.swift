import Foundation

/// Swift concurrency: the same work as the blocking API, on Sift's own threads, so that an actor or the main actor
/// never blocks on SQLite. Every call runs its whole closure on one thread of Sift's queue (transactions belong to
/// a thread) and resumes the caller when it is done.
///
/// Cancellation: a call whose task is already cancelled throws `CancellationError` without touching the database.
/// Once its closure has started, it runs to the end (a write commits or rolls back as it would have), and the
/// caller gets its result.
extension Database {
    /// The threads async calls run on: blocking SQLite work, never the cooperative pool's.
    static let asyncQueue = DispatchQueue(label: "sift.database.async", qos: .userInitiated, attributes: .concurrent)

    /// Runs `work` on Sift's queue and returns its result.
    func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            Database.asyncQueue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `body` with this database on one of Sift's threads, without blocking the caller, and returns its result.
    /// Each statement in `body` reads the latest committed data on a reader (no transaction spans them: use
    /// ``write(_:)`` when several reads must see one state). `body` is meant to read: nothing stops it from
    /// writing, but each such write then commits on its own.
    ///
    ///     let objects: [Sample] = try await database.read { db in
    ///         try db.getObjects(fromTable: "sampleTable", where: Sample.Properties.identifier < 5)
    ///     }
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await perform { try body(self) }
    }

    /// Runs `body` in a transaction on one of Sift's threads, without blocking the caller: it commits when `body`
    /// returns and rolls back when it throws. The transaction is the thread's (see ``run(transaction:)``), so
    /// every call `body` makes on `db` is part of it.
    ///
    ///     let count = try await database.write { db in
    ///         try db.insert(objects: samples, intoTable: "sampleTable")
    ///         return try db.getValue(on: Sample.Properties.identifier.count(), fromTable: "sampleTable").int64Value
    ///     }
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await perform {
            var result: [T] = []  // not `T?`: T may itself be optional
            try self.run(transaction: { result = [try body(self)] })
            return result[0]
        }
    }
}
