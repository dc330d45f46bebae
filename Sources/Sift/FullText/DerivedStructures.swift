/// The structures Sift derives from a synced index and its content table, beside FTS5's own: the score bounds
/// (``ScoreBounds``, for pruned searches) and the facets (`FacetStore`, for facet counts). Row changes and bulk loads
/// reach each owner through the sync layer (`SyncTracker`'s per-index followers); the index-wide events reach them
/// here, the one place that lists them, so a new structure is told of every event by being added once.
enum DerivedStructures {
    /// FTS5 indexed every row of `index` anew from its content (`Handle.rebuildFullTextIndex`, the choke point of
    /// every rebuild: a synced index created over existing rows, `rebuild(index:)`, a migration step, a recovery).
    static func indexRebuilt(_ index: String, on handle: Handle) throws {
        try ScoreBounds.indexRebuilt(index, on: handle)
        try FacetStore.rebuild(index, on: handle)
    }

    /// FTS5 merged the segments of `index` (`optimize(index:)`): stale, loose or missing structures are built anew.
    static func indexOptimized(_ index: String, on handle: Handle) throws {
        try ScoreBounds.indexOptimized(index, on: handle)
        try FacetStore.optimize(index, on: handle)
    }

    /// `index` is no longer kept by the sync layer (now synced by triggers, or not rebuilt by a recovery): its
    /// structures go. With `forgettingDeclarations`, `index` itself is gone, and so are what was declared for it:
    /// its facets and its synonym list (a later index of the name starts without them).
    static func indexDropped(_ index: String, forgettingDeclarations: Bool = false, on handle: Handle) throws {
        try ScoreBounds.indexDropped(index, on: handle)
        try FacetStore.drop(index, forgettingDeclarations: forgettingDeclarations, on: handle)
        if forgettingDeclarations { try SynonymStore.removeEveryRule(from: index, on: handle) }
    }
}
