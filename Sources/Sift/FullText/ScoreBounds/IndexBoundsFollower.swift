import CSQLite

/// What the sync layer tells the score bounds of one index on one connection (`SyncTracker` keeps one per synced
/// index): the rows each statement changed, then that the statement's index writes are done. It alone decides
/// what that means for the bounds: changes of rows from rowid 1 up to the watermark are followed
/// (`TopKImpacts.RowFollower`), rows inserted one by one above it join the bounds once their tail is long enough
/// (`TopKImpacts.extend`), and an index without valid bounds is left alone. Its statements are prepared on first
/// use and kept for the connection's lifetime; it steps them unobserved.
final class IndexBoundsFollower {
    private let index: SyncedIndex
    /// Reads the bounds' metadata (`TopKImpacts.metaReader`); nil when the index has none (`looked`: whether that
    /// was looked up).
    private var readMeta: OpaquePointer?
    private var looked = false
    /// Keeps the bounds exact through row changes at or below their watermark, made on first use.
    private var follower: TopKImpacts.RowFollower?
    /// The statement's changes so far: the metadata read for them (once per statement: another connection may
    /// have moved the watermark since the last), the rows to follow, and whether the tail is long enough to extend.
    private var meta: TopKImpacts.Meta??
    private var changes = TopKImpacts.RowChanges()
    private var extending = false

    init(_ index: SyncedIndex) {
        self.index = index
    }

    deinit { sqlite3_finalize(readMeta) }

    /// A row changed: removed at `old` and/or added at `new`, with `columns` indexed values each, read through
    /// `text(side, column)` (side 0 the old values, 1 the new ones; nil for NULL), which the follower copies now.
    func rowChanged(old: Int64?, new: Int64?, columns: Int, text: (Int, Int) -> UnsafeBufferPointer<UInt8>?,
                    on handle: Handle) throws {
        if !looked {
            looked = true
            // Unobserved: an observed step here would flush the changes being applied again.
            readMeta = try TopKImpacts.metaReader(index.index, on: handle)
        }
        guard let reader = readMeta else { return }
        if meta == nil { meta = .some(try TopKImpacts.readMeta(reader, on: handle)) }
        guard let watermark = (meta ?? nil)?.watermark else { return }
        // Rows at rowid 0 or below, like those above the watermark, are the bounds' tail.
        if let old, old >= 1, old <= watermark { follow(old, added: false, columns: columns) { text(0, $0) } }
        if let new, new <= watermark {
            if new >= 1 { follow(new, added: true, columns: columns) { text(1, $0) } }
        } else if let new, new - watermark > TopKImpacts.tailRows(watermark: watermark, on: handle) {
            extending = true
        }
    }

    private func follow(_ rowid: Int64, added: Bool, columns: Int, text: (Int) -> UnsafeBufferPointer<UInt8>?) {
        changes.added.append(added)
        changes.rows.append(rowid, columns: columns, text)
    }

    /// The statement's index writes are applied (in its transaction): the bounds follow its changes, and extend
    /// over the tail when it is long enough (making a follower and extending step observed statements).
    func statementApplied(on handle: Handle) throws {
        defer {
            meta = nil
            changes = TopKImpacts.RowChanges()
            extending = false
        }
        if !changes.added.isEmpty, let meta = meta ?? nil {
            // Made again when the bounds may have been built anew since (their listed terms change then).
            if try follower?.schemaVersion != handle.schemaVersion() {
                do {
                    follower = try TopKImpacts.RowFollower(index, on: handle)
                } catch let error as SiftError where error.code == .error {
                    // Its statements do not prepare: a table of the bounds is missing or not as built (a damaged
                    // file). The write goes on; searches take FTS5's plan until optimize(index:) rebuilds them.
                    follower = nil
                    try ScoreBounds.markStale(index.index, on: handle)
                }
            }
            try follower?.follow(changes, meta, on: handle)
        }
        if extending { try TopKImpacts.extend(index, on: handle) }
    }

    /// A bulk load wrote the bounds (it may have created them): look again at the next change.
    func bulkLoaded() {
        sqlite3_finalize(readMeta)
        readMeta = nil
        looked = false
        follower = nil
    }
}
