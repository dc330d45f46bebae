import Foundation

/// One subscription of a ``DatabaseObservation``: it listens to the commits of its database file (Core's
/// `CommitObservers`), and fetches and delivers on its own serial queue.
///
/// - The commit observer is registered before the first fetch, so no commit between the two is missed.
/// - A commit that wrote one of the region's tables asks for a fetch; one asked for while a fetch runs makes one
///   more fetch after it (coalesced: any number of commits meanwhile give one).
/// - Fetches run on a reader after the commit returned, so they see it.
final class ObservationRun<Value: Sendable>: Sendable {
    private struct State {
        /// The tables watched, lowercased; nil until resolved (every commit counts until then).
        var region: Set<String>?
        var fetching = false
        var dirty = false
        var cancelled = false
        var observerID: Int?
    }

    private let state = Locked(State())
    private let database: Database
    private let resolveRegion: @Sendable (Database) throws -> [String]
    private let fetch: @Sendable (Database) throws -> Value
    private let onChange: @Sendable (Value) -> Void
    private let onError: @Sendable (any Error) -> Void
    private let queue = DispatchQueue(label: "sift.observation", qos: .userInitiated)

    init(database: Database, region: @escaping @Sendable (Database) throws -> [String],
         fetch: @escaping @Sendable (Database) throws -> Value,
         onError: @escaping @Sendable (any Error) -> Void, onChange: @escaping @Sendable (Value) -> Void) {
        self.database = database
        self.resolveRegion = region
        self.fetch = fetch
        self.onError = onError
        self.onChange = onChange
    }

    /// Starts listening, then fetches the initial value.
    func start() {
        // Weak: the pool must not keep a subscription alive; its token or stream does.
        let id = database.pool.commitObservers.add { [weak self] tables in self?.committed(tables) }
        let cancelled = state.withLock { state -> Bool in
            state.observerID = id
            return state.cancelled
        }
        if cancelled {
            database.pool.commitObservers.remove(id)
            return
        }
        schedule()
    }

    /// Stops listening; no fetch starts after this returns, and at most a value already fetched is delivered.
    func cancel() {
        let id = state.withLock { state -> Int? in
            state.cancelled = true
            defer { state.observerID = nil }
            return state.observerID
        }
        if let id { database.pool.commitObservers.remove(id) }
    }

    private func committed(_ tables: Set<String>) {
        let relevant = state.withLock { state -> Bool in
            guard let region = state.region else { return true }
            return tables.contains { region.contains($0.lowercased()) }
        }
        if relevant { schedule() }
    }

    private func schedule() {
        let starts = state.withLock { state -> Bool in
            if state.cancelled { return false }
            if state.fetching {
                state.dirty = true
                return false
            }
            state.fetching = true
            return true
        }
        if starts { queue.async { self.fetchAndDeliver() } }
    }

    /// Fetches and delivers until no commit asked for more (on `queue`, one run at a time).
    private func fetchAndDeliver() {
        while true {
            // Cancelled while this run waited in the queue: no fetch (the files may be on their way out).
            if state.withLock({ $0.cancelled }) { return }
            let result = Result { () throws -> Value in
                if state.withLock({ $0.region == nil }) {
                    let region = Set(try resolveRegion(database).map { $0.lowercased() })
                    state.withLock { $0.region = region }
                }
                return try fetch(database)
            }
            let (deliver, again) = state.withLock { state -> (Bool, Bool) in
                if state.cancelled { return (false, false) }
                if state.dirty {
                    state.dirty = false
                    return (true, true)
                }
                state.fetching = false
                return (true, false)
            }
            guard deliver else { return }
            switch result {
            case .success(let value):
                onChange(value)
            case .failure(let error):
                cancel()
                onError(error)
                return
            }
            if !again { return }
        }
    }
}
