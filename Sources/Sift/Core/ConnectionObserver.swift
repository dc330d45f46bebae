/// The one seam between the connection layer and the layers that watch what connections do (the full-text
/// sync): Core calls its observer around statement steps, at checkout, around batches of inserts and at close,
/// and knows nothing of what the observer does with it.
///
/// Each connection gets its own observer when it opens, from ``ConnectionObserverProviding``. Core guarantees:
/// - a statement that SQLite says changes rows and runs outside any transaction gets one of its own
///   (`BEGIN IMMEDIATE` ... `COMMIT`) when the observer asks for it, so what the observer writes in
///   `statementDidStep` commits or rolls back with the statement;
/// - `statementDidStep` follows every successful step of an observed connection, inside that transaction, and
///   `statementDidFail` every failed one (SQLite has then undone the statement's changes);
/// - steps of a connection whose ``Handle/isObserved`` is false skip the observer entirely (the fast path).
protocol ConnectionObserver: AnyObject {
    /// Whether `statement` (about to take its first step outside any transaction) needs a transaction of its
    /// own; `writesRows` tells whether SQLite reported, while compiling it, that it changes rows of a table.
    func statementNeedsTransaction(writesRows: Bool) -> Bool
    /// `statement` stepped successfully on `handle` (a row, or its end); `tables` are the tables SQLite reported,
    /// while compiling it, that it changes rows of (nil when none).
    func statementDidStep(_ statement: OpaquePointer, writing tables: [String]?, on handle: Handle) throws
    /// A statement failed on `handle`, and SQLite undid its changes.
    func statementDidFail(on handle: Handle)
    /// `handle` was checked out, as the writer when `forWriting`: the moment to catch up with schema changes.
    func connectionWillBeUsed(_ handle: Handle, forWriting: Bool) throws
    /// `count` rows are about to be inserted into `table` by one statement stepped once per row, inside a
    /// transaction: the observer may collect them and handle them all in `batchDidEnd`.
    func batchWillBegin(inserting count: Int, into table: String, on handle: Handle)
    /// The batch announced by `batchWillBegin` ended: `completed` when every row was inserted (the transaction
    /// is still open), else it failed and its rows are being rolled back.
    func batchDidEnd(completed: Bool, on handle: Handle) throws
    /// `handle` is closing.
    func connectionWillClose(_ handle: Handle)
    /// The transaction open on `handle` committed: called right after the step that committed it (a `COMMIT`, or a
    /// write outside any transaction), before any other statement runs on `handle`; the observer may run SQL.
    func transactionDidCommit(on handle: Handle)
    /// The transaction open on `handle` rolled back (called inside the rollback: no SQL).
    func transactionDidRollBack()
    /// A savepoint named `name` (as written; SQLite matches names without regard to ASCII case) began: Sift's own
    /// nested transactions or any SQL. When no transaction was open, it began one.
    func savepointDidBegin(_ name: String)
    /// The latest savepoint named `name` was released, with the savepoints begun after it (releasing the outermost
    /// one commits the transaction: ``transactionDidCommit(on:)`` follows).
    func savepointDidRelease(_ name: String)
    /// A `ROLLBACK TO` undid what the transaction did since the latest savepoint named `name`; that savepoint
    /// stays, the ones begun after it go, and the transaction stays open. (A name no savepoint has fails the
    /// statement, which undoes nothing and is not told.)
    func savepointDidRollBack(to name: String)
    /// A migration step is about to change `table`'s schema and rows on `handle`, inside a transaction that is
    /// already open: until ``tableMigrationDidEnd(_:on:)`` the observer must not follow the table row by row
    /// (its columns may move under it).
    func tableMigrationWillBegin(_ table: String, on handle: Handle) throws
    /// The step's changes to `table` are done and the transaction is still open: the observer brings whatever
    /// depends on the table up to date. `renamedColumns` maps each column renamed by the step (old name) to its
    /// new name. Throwing fails the step, and its transaction rolls back.
    func tableMigrationWillCommit(_ table: String, renamedColumns: [String: String], on handle: Handle) throws
    /// The step on `table` committed or rolled back: the observer follows the table again.
    func tableMigrationDidEnd(_ table: String, on handle: Handle)
}

/// How a layer above Core provides the observer of each new connection: it makes ``Database`` conform, and the
/// connection finds the conformance at run time, so that Core never names the layer.
protocol ConnectionObserverProviding {
    /// The observer of a connection that just opened.
    static func makeObserver(for handle: Handle) -> any ConnectionObserver
}

extension Handle {
    /// The provider of observers, found once: `Database`'s conformance, declared by the layer that observes.
    /// (A metatype, set once and never written: safe to share, though Swift 6.2+ cannot tell without
    /// `SendableMetatype`, which Swift 6.0 lacks.)
    nonisolated(unsafe) static let observerProvider = (Database.self as Any.Type) as? ConnectionObserverProviding.Type
}
