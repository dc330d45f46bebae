/// Core's second seam, beside ``ConnectionObserver``: the layers that react to committed data (observation) register
/// here, per database file, and hear of every transaction that commits on the writer, with the tables it wrote.
///
/// How the tables are known: while SQLite compiles a statement, Sift's authorizer lists the tables whose rows it
/// changes (its triggers' too, and whatever the SQL looks like); each statement that starts stepping on a
/// connection adds its tables to the transaction's; SQLite's commit hook keeps them, its rollback hook drops them.
/// The observers are called on the writer's thread once it gives the writer back (`HandlePool.checkin`), after
/// the COMMIT returned, outside every lock: what they do must be quick (schedule work elsewhere), never block on
/// the database.
///
/// What may be reported although no row changed (a redundant notification, never a missed one): a write statement
/// that changed no row, or whose work a `ROLLBACK TO` savepoint undid inside a transaction that then committed.
/// Writes by another process are not seen.
final class CommitObservers: Sendable {
    private struct State {
        var next = 0
        var observers: [Int: @Sendable (Set<String>) -> Void] = [:]
    }
    private let state = Locked(State())

    /// Registers `body`, called with the tables (as the schema names them) of each committed transaction that
    /// wrote rows. Returns the id that `remove` takes.
    func add(_ body: @escaping @Sendable (Set<String>) -> Void) -> Int {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = body
            return state.next
        }
    }

    func remove(_ id: Int) {
        state.withLock { _ = $0.observers.removeValue(forKey: id) }
    }

    /// How many observers are registered (for tests).
    var count: Int { state.withLock { $0.observers.count } }

    func notify(_ tables: Set<String>) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer(tables) }
    }
}
