import CSQLite
import SiftRank

extension FacetStore {
    /// What the sync layer tells the facets of one index on one connection (`SyncTracker` keeps one per synced index,
    /// beside the score bounds' `IndexBoundsFollower`): the rows each statement removed and added, then that the
    /// statement is applied; and the rows a bulk load inserted. Removed rows get ordinal 0; added rows get the
    /// ordinals of their values as the content table holds them once the statement is done (removals first, so a
    /// REPLACE or an update that moves a rowid ends with the row's final values). Its statements are prepared once
    /// per schema version and stepped unobserved.
    final class Follower {
        private let index: SyncedIndex
        private var removed: [Int64] = []
        private var added: [Int64] = []
        private var prepared: Prepared?

        /// The statements of the facets built at `schemaVersion` (none built: `facets` is empty).
        private final class Prepared {
            let schemaVersion: Int64
            let facets: [Facet]
            let ordinals: [Ordinals]
            let read: OpaquePointer?
            let set, clear: [OpaquePointer]

            init(_ index: SyncedIndex, on handle: Handle) throws {
                schemaVersion = try handle.schemaVersion()
                let built = try FacetStore.builtFacets(index.index, on: handle)
                facets = try FacetStore.declared(index.index, on: handle).filter(built.contains)
                guard !facets.isEmpty else {
                    (ordinals, read, set, clear) = ([], nil, [], [])
                    return
                }
                let q = SQLBuilder.quote
                var statements: [OpaquePointer] = []
                do {
                    ordinals = try facets.map { try Ordinals(index.index, $0, on: handle) }
                    statements.append(try handle.prepareUnmanaged("SELECT " + facets.map { q($0.column) }.joined(separator: ", ")
                                                                  + " FROM \(q(index.readSource)) WHERE \(q(index.rowidColumn)) = ?"))
                    for facet in facets {
                        let chunks = q(FacetStore.chunksTable(index.index, facet.position))
                        statements.append(try handle.prepareUnmanaged(
                            "INSERT INTO \(chunks)(chunk, ordinals) VALUES(?1, sift_facet_set(NULL, ?2, ?3)) "
                                + "ON CONFLICT(chunk) DO UPDATE SET ordinals = sift_facet_set(ordinals, ?2, ?3)"))
                        statements.append(try handle.prepareUnmanaged("UPDATE \(chunks) SET ordinals = sift_facet_set(ordinals, ?2, 0) WHERE chunk = ?1"))
                    }
                } catch {
                    statements.forEach { sqlite3_finalize($0) }
                    throw error
                }
                read = statements[0]
                set = stride(from: 1, to: statements.count, by: 2).map { statements[$0] }
                clear = stride(from: 2, to: statements.count, by: 2).map { statements[$0] }
            }

            deinit { ([read].compactMap { $0 } + set + clear).forEach { sqlite3_finalize($0) } }
        }

        init(_ index: SyncedIndex) {
            self.index = index
        }

        /// A row changed: removed at `old` and/or added at `new`.
        func rowChanged(old: Int64?, new: Int64?) {
            if let old { removed.append(old) }
            if let new { added.append(new) }
        }

        /// The statement's changes are applied (in its transaction): the facets follow them.
        func statementApplied(on handle: Handle) throws {
            defer {
                removed.removeAll(keepingCapacity: true)
                added.removeAll(keepingCapacity: true)
            }
            guard !removed.isEmpty || !added.isEmpty else { return }
            try staleOnDamage(on: handle) { try apply(on: handle) }
        }

        /// Runs `body`; when it meets damaged facet tables (SQLite's corruption and SQL errors: a table or an entry
        /// gone), the facets are marked stale instead of failing the write (searches count them with `GROUP BY`
        /// until `optimize(index:)` or `rebuild(index:)` builds them anew).
        private func staleOnDamage(on handle: Handle, _ body: () throws -> Void) throws {
            do {
                try body()
            } catch where FacetStore.isDamage(error) {
                prepared = nil
                try FacetStore.markStale(index.index, on: handle)
            }
        }

        private func apply(on handle: Handle) throws {
            guard let state = try current(on: handle), let read = state.read else { return }
            defer { state.ordinals.forEach { $0.forget() } }
            // A row added again (a REPLACE, an update) takes its final ordinals below: no need to clear it first.
            let readded = Set(added)
            for rowid in removed where !readded.contains(rowid) {
                for stmt in state.clear { try write(stmt, rowid, 0, on: handle) }
            }
            for rowid in added {
                sqlite3_bind_int64(read, 1, rowid)
                defer { sqlite3_reset(read) }
                let exists = try handle.stepUnobserved(read)
                for f in state.facets.indices {
                    let ordinal = exists ? try state.ordinals[f].ordinal(of: read, column: Int32(f), on: handle) : 0
                    try write(exists ? state.set[f] : state.clear[f], rowid, ordinal, on: handle)
                }
            }
        }

        /// A bulk load inserted `rowids` (sorted) into the content table: their chunks are written anew from it.
        func bulkInserted(_ rowids: [Int64], on handle: Handle) throws {
            guard !rowids.isEmpty else { return }
            try staleOnDamage(on: handle) { try writeChunks(of: rowids, on: handle) }
        }

        private func writeChunks(of rowids: [Int64], on handle: Handle) throws {
            guard let state = try current(on: handle), !state.facets.isEmpty else { return }
            let writer = try ChunkWriter(index.index, index, state.facets, on: handle)
            defer { writer.close() }
            var run: ClosedRange<Int64>?
            for rowid in rowids {
                let chunk = rowid >> FacetStore.chunkShift
                if let current = run, chunk <= current.upperBound + 1 {
                    run = current.lowerBound...max(current.upperBound, chunk)
                } else {
                    if let current = run { try writer.write(range: current, on: handle) }
                    run = chunk...chunk
                }
            }
            if let run { try writer.write(range: run, on: handle) }
        }

        private func current(on handle: Handle) throws -> Prepared? {
            let version = try handle.schemaVersion()
            if prepared?.schemaVersion != version { prepared = try Prepared(index, on: handle) }
            return prepared
        }

        private func write(_ stmt: OpaquePointer, _ rowid: Int64, _ ordinal: UInt32, on handle: Handle) throws {
            defer { sqlite3_reset(stmt) }
            sqlite3_bind_int64(stmt, 1, rowid >> FacetStore.chunkShift)
            sqlite3_bind_int64(stmt, 2, rowid & (FacetStore.chunkRows - 1))
            sqlite3_bind_int64(stmt, 3, Int64(ordinal))
            while try handle.stepUnobserved(stmt) {}
        }
    }
}
