import CSQLite

/// Keeps the term dictionaries this process holds in memory (`TermDictionary.of`) exact through the writes of one
/// connection's sync layer, so that a typo-tolerant search after a write reads nothing again.
///
/// The sync layer asks it at each row change of an index, before writing the index, whether the index is followed
/// (`follows`): it is when a dictionary of the index is kept and its label (the FTS5 structure record it is exact
/// at) is the index's structure record as the transaction first changes the index. Each statement's net change of
/// each term's row count (counted once for this and the stored dictionary, `TermDictionaryStore.Writer`) is then
/// summed for the transaction (`statementChanged`). When the transaction commits, the sum joins the kept entry and
/// the entry takes the structure record after the commit as its label, provided that `PRAGMA data_version` says no
/// other connection (of this process or another) committed since the transaction first changed the index; else,
/// and whenever the index was written another way in the transaction (a raw write to the FTS5 table, an FTS5
/// command such as a rebuild, a bulk load), the entry is dropped and the next search reads the dictionary again
/// (the stored one, or the vocabulary when it is stale). A rollback applies nothing; a `ROLLBACK TO` takes the sums
/// back to what they were when the savepoint began (each savepoint keeps them as they were then), so that only what
/// it undid is forgotten. Writes outside this connection's sync layer that commit on their own leave the label
/// behind, and the next search reads the dictionary again as well.
///
/// No kept dictionary, no cost: an index is looked up once per transaction.
final class TermDictionaryFollower {
    private struct Following {
        /// The label of the kept dictionary, the index's structure record when the transaction first changed it.
        let start: [UInt8]
        /// `PRAGMA data_version` then.
        let dataVersion: Int64
        /// Rows gained per term (negative: lost) in the transaction.
        var changes: TermChanges = [:]
    }

    private enum State {
        case following(Following)
        /// No dictionary kept, or a stale one: nothing to keep up to date in this transaction.
        case ignored
        /// Written another way: the kept dictionary goes at commit.
        case dropped
    }

    /// The transaction's indexes, by name.
    private var states: [String: State] = [:]
    /// The open savepoints, oldest first, each with `states` as they were when it began.
    private var savepoints: [(name: String, states: [String: State])] = []

    /// Whether the row changes of `index` in this transaction are followed (looked up at its first change): a
    /// dictionary of it is kept at the index's structure record.
    func follows(_ index: SyncedIndex, on handle: Handle) throws -> Bool {
        let state = try states[index.index] ?? start(index, on: handle)
        if case .following = state { return true }
        return false
    }

    /// Whether the row changes of `index` are followed in this transaction (as `follows` found them).
    func isFollowing(_ index: String) -> Bool {
        if case .following = states[index] { return true }
        return false
    }

    /// A statement's row changes of a followed `index` changed each term's row count by `changes` (counted by
    /// `TermDictionaryStore.Writer`, which tokenizes each changed row once for both dictionaries).
    func statementChanged(_ index: String, _ changes: TermChanges) {
        guard case .following(var following) = states[index] else { return }
        states[index] = .ignored  // not to copy the changes while adding to them
        TermDictionary.add(changes, to: &following.changes)
        states[index] = .following(following)
    }

    /// The first change of `index` in the transaction: followed when a dictionary of it is kept at the index's
    /// structure record now.
    private func start(_ index: SyncedIndex, on handle: Handle) throws -> State {
        // Unobserved: the sync layer is applying the statement's changes, which an observed step would apply again.
        let observed = handle.isObserved
        handle.isObserved = false
        defer { handle.isObserved = observed }
        let settings = handle.pool.attachment(FullTextSettings.init)
        var state = State.ignored
        if let label = settings.termDictionaries.withLock({ $0[index.index]?.structure }),
           let structure = try FTSTableInfo.structureRecord(of: index.index, on: handle), structure == label {
            state = .following(Following(start: structure, dataVersion: try Self.dataVersion(on: handle)))
        }
        states[index.index] = state
        return state
    }

    /// What the open transaction changed in `index` so far, when a dictionary kept at structure record `label` plus
    /// those changes is the index as the transaction sees it (whose structure record is `structure` now): the
    /// transaction has not changed the index and the record is the label (none), or it changed it only through the
    /// sync layer while following that dictionary (FTS5 may have written its pending rows since, at a savepoint,
    /// which changes the record but not what it holds). Nil otherwise (written another way, or changed while no such
    /// dictionary was kept): the vocabulary must be read.
    func pendingChanges(of index: String, keptAt label: [UInt8], structure: [UInt8]) -> TermChanges? {
        switch states[index] {
        case nil: return structure == label ? [:] : nil
        case .following(let following): return following.start == label ? following.changes : nil
        case .ignored, .dropped: return nil
        }
    }

    /// `index` was written in the transaction other than row by row through the sync layer: its kept dictionary
    /// is dropped at commit.
    func indexWrittenDirectly(_ index: String) {
        states[index] = .dropped
    }

    /// The transaction's row changes may not all have reached the indexes (a statement failed while the sync layer
    /// applied them), or some were undone (a rollback to a savepoint): every index followed is dropped at commit.
    func changesUncertain() {
        for (index, state) in states { if case .following = state { states[index] = .dropped } }
    }

    /// The transaction rolled back: nothing it did is applied.
    func transactionDidRollBack() {
        states.removeAll()
        savepoints.removeAll()
    }

    /// A savepoint began: a `ROLLBACK TO` it finds the indexes' sums as they are now.
    func savepointDidBegin(_ name: String) {
        savepoints.append((name, states))
    }

    /// The latest savepoint named `name` was released, with those begun after it: their changes stay in the sums.
    func savepointDidRelease(_ name: String) {
        if let at = latestSavepoint(named: name) { savepoints.removeSubrange(at...) }
    }

    /// A `ROLLBACK TO` the latest savepoint named `name` undid the changes since: the sums go back to what they
    /// were when it began (an index first changed since is not followed any more, and one written another way
    /// since is followed again). A savepoint begun where this follower did not see it (its name unknown here) may
    /// hide changes: every index followed is then dropped at commit.
    func savepointDidRollBack(to name: String) {
        guard let at = latestSavepoint(named: name) else { return changesUncertain() }
        states = savepoints[at].states
        savepoints.removeSubrange((at + 1)...)
    }

    /// The position in `savepoints` of the latest one named `name`, compared as SQLite compares them
    /// (`sqlite3_stricmp`: ASCII case ignored).
    private func latestSavepoint(named name: String) -> Int? {
        savepoints.lastIndex { sqlite3_stricmp($0.name, name) == 0 }
    }

    /// The transaction committed: each followed index's kept dictionary takes the transaction's changes and the
    /// structure record now, or goes (see ``TermDictionaryFollower``).
    func transactionDidCommit(on handle: Handle) {
        savepoints.removeAll()  // a COMMIT ends the savepoints left open too
        guard !states.isEmpty else { return }
        let states = self.states
        self.states.removeAll()
        let cache = handle.pool.attachment(FullTextSettings.init).termDictionaries
        // Read first: nothing else runs on this connection before, and no other connection wrote since the
        // transaction first changed the index when the data version is the same.
        var labels: [String: [UInt8]] = [:]
        for case let (index, .following(following)) in states {
            if let version = try? Self.dataVersion(on: handle), version == following.dataVersion,
               let structure = try? FTSTableInfo.structureRecord(of: index, on: handle) {
                labels[index] = structure
            }
        }
        cache.withLock { entries in
            for (index, state) in states {
                switch state {
                case .ignored:
                    continue
                case .dropped:
                    entries[index] = nil
                case .following(let following):
                    // Taken out of the cache, so that its changes are added to in place: a commit costs what the
                    // transaction changed, not what the writes since the last search did. The next typo-tolerant
                    // search applies them (`TermDictionary.of`): at most one merge of the changes into the base,
                    // which writes alone never pay for.
                    guard let label = labels[index], var entry = entries.removeValue(forKey: index),
                          entry.structure == following.start else { continue }
                    TermDictionary.add(following.changes, to: &entry.changes)
                    entries[index] = TermDictionary.Entry(structure: label, dictionary: entry.dictionary,
                                                          changes: entry.changes)
                }
            }
        }
    }

    private static func dataVersion(on handle: Handle) throws -> Int64 {
        try handle.withStatement("PRAGMA data_version") { stmt in try handle.step(stmt) ? sqlite3_column_int64(stmt, 0) : -1 }
    }
}
