/// The structures Sift derives from a synced index and its content table, beside FTS5's own: the score bounds
/// (``ScoreBounds``, for pruned searches), the facets (`FacetStore`, for facet counts) and the stored term dictionary
/// (`TermDictionaryStore`, for typo tolerance and suggestions). Row changes and bulk loads
/// reach each owner through the sync layer (`SyncTracker`'s per-index followers); the index-wide events reach them
/// here, the one place that lists them, so a new structure is told of every event by being added once.
enum DerivedStructures {
    /// FTS5 indexed every row of `index` anew from its content (`Handle.rebuildFullTextIndex`, the choke point of
    /// every rebuild: a synced index created over existing rows, `rebuild(index:)`, a migration step, a recovery).
    static func indexRebuilt(_ index: String, on handle: Handle) throws {
        try ScoreBounds.indexRebuilt(index, on: handle)
        try FacetStore.rebuild(index, on: handle)
        try TermDictionaryStore.build(index, on: handle)
    }

    /// FTS5 merged the segments of `index` (`optimize(index:)`): stale, loose or missing structures are built anew.
    static func indexOptimized(_ index: String, on handle: Handle) throws {
        try ScoreBounds.indexOptimized(index, on: handle)
        try FacetStore.optimize(index, on: handle)
        // Written anew every time: it also mends what a program writing the FTS5 table without Sift left behind.
        try TermDictionaryStore.build(index, on: handle)
    }

    /// What a statement not issued by the sync layer did to an FTS5 table it wrote (`sql`, its text with its values).
    enum DirectWrite {
        /// A `'rebuild'` command: every row indexed anew from the content.
        case rebuild
        /// FTS5's commands that leave its rows as they are (`'optimize'`, `'merge'`, `'integrity-check'`, settings).
        case neutral
        /// Any other write (`'delete-all'`, `'delete'`, rows inserted or removed directly): the rows changed.
        case rows
    }

    static func directWrite(_ sql: String) -> DirectWrite {
        let text = sql.lowercased()
        if text.contains("'rebuild'") { return .rebuild }
        let neutral = ["'optimize'", "'merge'", "'integrity-check'", "'automerge'", "'crisismerge'", "'usermerge'",
                       "'pgsz'", "'hashsize'", "'rank'", "'deletemerge'", "'secure-delete'"]
        if neutral.contains(where: text.contains), !text.contains("'delete'"), !text.contains("'delete-all'") { return .neutral }
        return .rows
    }

    /// A statement not issued by the sync layer wrote FTS5 table `index` itself (see `DirectWrite`).
    static func indexWrittenDirectly(_ index: String, sql: String, on handle: Handle) throws {
        try ScoreBounds.indexWrittenDirectly(index, sql: sql, on: handle)
        try TermDictionaryStore.indexWrittenDirectly(index, sql: sql, on: handle)
    }

    /// `index` is no longer kept by the sync layer (now synced by triggers, or not rebuilt by a recovery): its
    /// structures go. With `forgettingDeclarations`, `index` itself is gone, and so are what was declared for it:
    /// its facets and its synonym list (a later index of the name starts without them).
    static func indexDropped(_ index: String, forgettingDeclarations: Bool = false, on handle: Handle) throws {
        try ScoreBounds.indexDropped(index, on: handle)
        try FacetStore.drop(index, forgettingDeclarations: forgettingDeclarations, on: handle)
        try TermDictionaryStore.drop(index, on: handle)
        if forgettingDeclarations { try SynonymStore.removeEveryRule(from: index, on: handle) }
    }
}
