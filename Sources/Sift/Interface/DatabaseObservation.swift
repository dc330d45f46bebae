/// Fresh results of a query each time a committed transaction wrote one of the tables it reads: an `AsyncSequence`,
/// or callbacks with ``start(onError:onChange:)``. Made by ``Database/observe(tables:fetch:)`` (and, for a search,
/// `Database.observeSearch`).
///
/// Each subscription (each iteration of the sequence, each `start`) delivers the current value first, then one
/// value after each committed transaction that wrote a watched table, from any thread and any `Database` value on
/// the same file; nothing for writes to other tables, nothing for a transaction that rolled back. Values are
/// fetched on a reader after the commit; a slow consumer gets the newest value, not every one (commits that land
/// while a fetch runs give one more fetch; the sequence buffers only the newest value). A fetch that throws ends
/// the subscription with its error. Changes made by another process are not seen.
///
///     let observation = database.observe(tables: ["sampleTable"]) { db -> [Sample] in
///         try db.getObjects(fromTable: "sampleTable", orderBy: Sample.Properties.identifier.asOrder(by: .ascending))
///     }
///     for try await samples in observation { print(samples.count) }   // ends when the task is cancelled
public struct DatabaseObservation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    public typealias AsyncIterator = AsyncThrowingStream<Value, any Error>.Iterator

    let database: Database
    let region: @Sendable (Database) throws -> [String]
    let fetch: @Sendable (Database) throws -> Value

    /// Starts a subscription; it stops when the iteration ends or its task is cancelled.
    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Value.self, throwing: (any Error).self,
                                                                   bufferingPolicy: .bufferingNewest(1))
        let run = ObservationRun(database: database, region: region, fetch: fetch,
                                 onError: { continuation.finish(throwing: $0) },
                                 onChange: { continuation.yield($0) })
        continuation.onTermination = { _ in run.cancel() }
        run.start()
        return stream.makeAsyncIterator()
    }

    /// Starts a subscription that calls `onChange` with each value (first the current one), on a queue of its own,
    /// one call at a time, until the returned token is cancelled or released. `onError` is called once if a fetch
    /// fails, and the subscription ends.
    ///
    ///     let token = observation.start { samples in
    ///         Task { @MainActor in model.samples = samples }
    ///     }
    ///     token.cancel()
    public func start(onError: @escaping @Sendable (any Error) -> Void = { _ in },
                      onChange: @escaping @Sendable (Value) -> Void) -> ObservationCancellable {
        let run = ObservationRun(database: database, region: region, fetch: fetch, onError: onError, onChange: onChange)
        run.start()
        return ObservationCancellable { run.cancel() }
    }
}
