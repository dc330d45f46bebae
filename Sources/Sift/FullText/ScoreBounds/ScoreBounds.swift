import CSQLite

/// The one maintainer of the score bounds Sift keeps beside a large synced index (`TopKImpacts`: per-term block
/// maxima, postings and their deltas, in `<index>_sift_*` tables): every path that writes an index's source tells
/// it here, and it alone decides what the bounds become.
///
/// - Rows changed through the sync layer: `SyncTracker` hands them to `TopKImpacts.RowFollower` (rows at or below
///   the watermark) and `TopKImpacts.Follower` (a bulk load), which write the bounds in the same transaction.
/// - FTS5 rebuilt the index from its content (a synced index created over existing rows, `rebuild(index:)`, a
///   migration step, a recovery, a raw `'rebuild'` command): ``indexRebuilt(_:on:)`` builds them anew (or drops
///   them where the index does not get bounds). `Handle.rebuildFullTextIndex` is the choke point every such
///   rebuild goes through.
/// - The index written directly, not through the sync layer (a raw `'delete-all'` or `'delete'` command, rows
///   inserted into the index itself): ``indexWrittenDirectly(_:sql:on:)`` marks them stale, and searches take
///   FTS5's exhaustive plan until `optimize(index:)` or `rebuild(index:)`.
///
/// Where things live (this folder): `TopKImpacts.swift`, the store (the only code that reads and writes the
/// bounds' tables, and FTS5's private tables for them, checking what it reads); `RowFollower.swift` and
/// `BulkFollower.swift` with `ImpactsCollector.swift`, the writers that follow row changes and bulk loads;
/// `ImpactBlock.swift`, `ImpactPostings.swift`, the stored formats; `ImpactBound.swift`, the bound (computed in C
/// with the arithmetic that scores rows); `TopKImpacts+Verification.swift`, what `verify(index:)` checks.
/// `Search/`: the planner (`TopKSearch.swift`), one file per plan (`PostingsPlan.swift`, `BlockPlan.swift`; the
/// third plan is FTS5's own, one statement), the per-search state (`TopKRun.swift`) and the collector of the best
/// rows (`TopKCollector.swift`). Every plan is exact: the same hits, order and totals as FTS5's exhaustive plan,
/// which `ScoreBoundsPathTests` and `TopKSearchTests` check after every kind of write.
///
/// Bounds exist only where the index supports them (``unsupportedReason(_:on:)``); what the store reads back is
/// checked before it is trusted (`TopKImpacts.Meta.plausible`): anything implausible reads as stale.
enum ScoreBounds {
    /// Why `index` cannot have bounds (and gets FTS5's exhaustive plan), or nil when it can: an index synced by
    /// Sift's explicit writes, with each row's column sizes and per-column positions, and a tokenizer this
    /// connection can run.
    static func unsupportedReason(_ index: String, on handle: Handle) throws -> String? {
        guard let synced = try SyncedIndex.load(on: handle).first(where: { $0.index == index }) else {
            return "it is not a synced index"
        }
        guard synced.mode == .explicit else { return "it is synced by triggers, which do not keep score bounds" }
        let info = try FTSTableInfo.load(index, on: handle)
        if let reason = info.boundsUnsupportedReason { return reason }
        if (try? handle.tokenizer(info.tokenizer)) == nil { return "its tokenizer is not available to Sift" }
        return nil
    }

    /// FTS5 indexed every row of `index` anew from its content: the bounds are built anew from it (when the index
    /// supports them and holds enough rows), else dropped.
    static func indexRebuilt(_ index: String, on handle: Handle) throws {
        try TopKImpacts.rebuild(index, on: handle)
    }

    /// FTS5 merged the segments of `index` (`optimize(index:)`): bounds that are stale, loose (rows changed since
    /// they were written) or missing are built anew.
    static func indexOptimized(_ index: String, on handle: Handle) throws {
        if let meta = try TopKImpacts.meta(index, on: handle), meta.valid, !meta.loose { return }
        try TopKImpacts.rebuild(index, on: handle)
    }

    /// `index` (or its synced record) is gone or no longer kept by the sync layer: its bounds go too.
    static func indexDropped(_ index: String, on handle: Handle) throws {
        try TopKImpacts.drop(index, on: handle)
    }

    /// A statement not issued by the sync layer wrote FTS5 table `index` itself (`sql`, its text with its values):
    /// a `'rebuild'` command rebuilt it from its content, and the bounds are built anew; FTS5's commands that leave
    /// its rows as they are (`'optimize'`, `'merge'`, `'integrity-check'` and the settings) change nothing; any
    /// other write (`'delete-all'`, `'delete'`, rows inserted or removed directly) leaves the bounds stale.
    static func indexWrittenDirectly(_ index: String, sql: String, on handle: Handle) throws {
        guard try TopKImpacts.meta(index, on: handle) != nil else { return }
        switch DerivedStructures.directWrite(sql) {
        case .rebuild: try indexRebuilt(index, on: handle)
        case .neutral: break
        case .rows: try markStale(index, on: handle)
        }
    }

    /// Which plan the ranked searches of `index` get and why (`IndexVerification.searchPlan`).
    static func plan(of index: String, on handle: Handle) throws -> String {
        if let reason = try unsupportedReason(index, on: handle) { return "exhaustive: \(reason)" }
        guard let meta = try TopKImpacts.meta(index, on: handle) else {
            return "exhaustive: no score bounds yet (they are built from \(TopKImpacts.automaticRows(on: handle)) rows)"
        }
        guard meta.valid else { return "exhaustive: the score bounds are stale; optimize(index:) rebuilds them" }
        return "pruned: score bounds over rowids 1-\(meta.watermark), " + (meta.loose ? "loose (optimize(index:) tightens them)" : "exact")
    }

    /// Marks the bounds of `index` stale: searches take FTS5's exhaustive plan until they are rebuilt.
    static func markStale(_ index: String, on handle: Handle) throws {
        try handle.execute(TopKImpacts.invalidateSQL(index), [FundamentalValue(Int64.min)])
    }
}
