import CSQLite
import SiftRank

/// The one owner of the facet structures Sift keeps beside a synced index: the only code that reads and writes
/// their tables, checking every number it reads before trusting it.
///
/// A facet is a column of the index's content table whose values a search counts over all of its matching rows
/// (``SearchOptions/facets``). Declared facets are recorded in `sift_facets` (index, position, column); for each,
/// derived tables hold, per chunk of 1,024 consecutive rowids, one 32-bit value ordinal per rowid
/// (`<index>_sift_facet_<position>`, see sift_facet.h: 0 no row, 1 NULL, 2 and up an entry of the value dictionary
/// `<index>_sift_facet_values`), so counting a search's matches is one pass over their sorted rowids in C, without
/// touching the content rows. `<index>_sift_facet_meta` says which facets are built (`valid` 1) and the generation of
/// each one's dictionary, which changes with it (searches keep the dictionaries they read while it holds).
///
/// It is told of every change through the seams the score bounds use: the sync layer's row changes and bulk loads
/// (`SyncTracker` hands them to ``Follower``), and the rebuilds, optimizations and drops of the index
/// (`DerivedStructures`). What it reads back is checked (a chunk of the wrong size, an ordinal 0 for a matching row
/// or past the dictionary, a dictionary larger than its entries allow): anything implausible reads as stale, and the
/// search counts with a plain `GROUP BY` over its matches instead. ``problems(_:on:)`` compares every built facet
/// with a `GROUP BY` over the content table for `verify(index:)`; `optimize(index:)` rebuilds stale facets.
enum FacetStore {
    /// One declared facet: its position in the declaration (naming its tables) and its content column.
    struct Facet: Hashable, Sendable {
        let position: Int
        let column: String
    }

    static let declarationTable = "sift_facets"
    static let createDeclarationSQL = """
        CREATE TABLE IF NOT EXISTS sift_facets(index_table TEXT NOT NULL, position INTEGER NOT NULL, \
        column_name TEXT NOT NULL, PRIMARY KEY(index_table, position))
        """
    /// The largest dictionary a facet may have (ordinals past it read as damage before they size any memory).
    static let maxOrdinals = 1 << 26
    static let chunkShift = Int64(SIFT_FACET_CHUNK_SHIFT)
    static let chunkRows = Int64(SIFT_FACET_CHUNK_ROWS)

    static func metaTable(_ index: String) -> String { index + "_sift_facet_meta" }
    static func valuesTable(_ index: String) -> String { index + "_sift_facet_values" }
    static func chunksTable(_ index: String, _ position: Int) -> String { index + "_sift_facet_\(position)" }

    // MARK: - Declaration

    /// The facets declared for `index`, in their order.
    static func declared(_ index: String, on handle: Handle) throws -> [Facet] {
        guard try handle.schemaType(of: declarationTable) == "table" else { return [] }
        return try handle.withStatement("SELECT position, column_name FROM sift_facets WHERE index_table = ? ORDER BY position") { stmt in
            try handle.bind([FundamentalValue(index)], to: stmt, sql: "")
            var facets: [Facet] = []
            while try handle.step(stmt) {
                facets.append(Facet(position: Int(sqlite3_column_int64(stmt, 0)), column: RawStatement.text(stmt, 1)))
            }
            return facets
        }
    }

    /// Records `columns` as the facets of `index` (replacing what was declared); true when that changed them.
    static func declare(_ index: String, columns: [String], on handle: Handle) throws -> Bool {
        let before = try declared(index, on: handle).map(\.column)
        guard before != columns else { return false }
        try handle.execute(createDeclarationSQL)
        try handle.execute("DELETE FROM sift_facets WHERE index_table = ?", [FundamentalValue(index)])
        for (position, column) in columns.enumerated() {
            try handle.execute("INSERT INTO sift_facets VALUES(?, ?, ?)",
                               [FundamentalValue(index), FundamentalValue(position), FundamentalValue(column)])
        }
        return true
    }

    // MARK: - Maintenance (told by `DerivedStructures`)

    /// Builds every declared facet of `index` anew from its content table (or drops the structures when the index is
    /// not synced by Sift's explicit writes, which alone keep them).
    static func rebuild(_ index: String, on handle: Handle) throws {
        try dropStructures(index, on: handle)
        let facets = try declared(index, on: handle)
        guard !facets.isEmpty, let synced = try SyncedIndex.load(on: handle).first(where: { $0.index == index }),
              synced.mode == .explicit else { return }
        let present = Set(try handle.columnNames(of: synced.content))
        let built = facets.filter { present.contains($0.column) }
        guard !built.isEmpty else { return }
        let q = SQLBuilder.quote
        try handle.execute("CREATE TABLE \(q(metaTable(index)))(position INTEGER PRIMARY KEY, column_name TEXT NOT NULL, valid INTEGER NOT NULL, "
                           + "generation INTEGER NOT NULL)")
        try handle.execute("CREATE TABLE \(q(valuesTable(index)))(position INTEGER NOT NULL, ordinal INTEGER NOT NULL, "
                           + "facet_value, PRIMARY KEY(position, ordinal)) WITHOUT ROWID")
        try handle.execute("CREATE UNIQUE INDEX \(q(valuesTable(index) + "_by_value")) ON \(q(valuesTable(index)))(position, facet_value)")
        for facet in built {
            try handle.execute("CREATE TABLE \(q(chunksTable(index, facet.position)))(chunk INTEGER PRIMARY KEY, ordinals BLOB NOT NULL)")
        }
        let writer = try ChunkWriter(index, synced, built, on: handle)
        defer { writer.close() }
        try writer.write(range: nil, on: handle)
        for facet in built {
            try handle.execute("INSERT INTO \(q(metaTable(index))) VALUES(?, ?, 1, ?)",
                               [FundamentalValue(facet.position), FundamentalValue(facet.column), FundamentalValue(newGeneration())])
        }
    }

    /// `optimize(index:)`: facets that are declared but not built, or read as stale, are built anew.
    static func optimize(_ index: String, on handle: Handle) throws {
        let facets = try declared(index, on: handle)
        guard !facets.isEmpty else { return }
        let built = try builtFacets(index, on: handle)
        if facets.allSatisfy(built.contains), try problems(index, on: handle).isEmpty { return }
        try rebuild(index, on: handle)
    }

    /// `index` is no longer synced by Sift's writes: its facets' structures go (searches count them with
    /// `GROUP BY`); with `forgettingDeclarations` (the index is gone) their declarations too.
    static func drop(_ index: String, forgettingDeclarations: Bool, on handle: Handle) throws {
        try dropStructures(index, on: handle)
        if forgettingDeclarations, try handle.schemaType(of: declarationTable) == "table" {
            try handle.execute("DELETE FROM sift_facets WHERE index_table = ?", [FundamentalValue(index)])
        }
    }

    /// A migration step renamed or dropped columns of the content table of `index`: the declarations follow (a
    /// dropped column's facet goes); the index's rebuild then builds them anew.
    static func followMigration(of index: String, renamedColumns: [String: String], present: Set<String>,
                                on handle: Handle) throws {
        let facets = try declared(index, on: handle)
        guard !facets.isEmpty else { return }
        _ = try declare(index, columns: facets.map { renamedColumns[$0.column] ?? $0.column }.filter(present.contains), on: handle)
    }

    /// Marks every facet of `index` stale (searches count them with `GROUP BY` until they are rebuilt); drops their
    /// structures when even that fails (their metadata is damaged).
    static func markStale(_ index: String, on handle: Handle) throws {
        do {
            guard try handle.schemaType(of: metaTable(index)) == "table" else { return }
            try handle.execute("UPDATE \(SQLBuilder.quote(metaTable(index))) SET valid = 0")
        } catch where isDamage(error) {
            try dropStructures(index, on: handle)
        }
    }

    /// Whether `error` says a facet table is damaged or gone (SQLite's corruption and SQL errors), which reads as
    /// stale facets; any other error (I/O, a lock, an interrupt) is the caller's.
    static func isDamage(_ error: Error) -> Bool {
        guard let error = error as? SiftError else { return false }
        return error.code == .corrupt || error.code == .error
    }

    private static func dropStructures(_ index: String, on handle: Handle) throws {
        let q = SQLBuilder.quote
        let prefix = index + "_sift_facet_"
        let tables = try handle.withStatement("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?") { stmt in
            try handle.bind([FundamentalValue(prefix.utf8.count), FundamentalValue(prefix)], to: stmt, sql: "")
            var names: [String] = []
            while try handle.step(stmt) { names.append(RawStatement.text(stmt, 0)) }
            return names
        }
        for table in tables { try handle.execute("DROP TABLE IF EXISTS \(q(table))") }
    }

    /// The facets of `index` whose structures are built and valid (their meta row says so and names the declared
    /// column).
    static func builtFacets(_ index: String, on handle: Handle) throws -> Set<Facet> {
        guard try handle.schemaType(of: metaTable(index)) == "table" else { return [] }
        let declared = Set(try declared(index, on: handle))
        return try handle.withStatement("SELECT position, column_name, valid FROM \(SQLBuilder.quote(metaTable(index)))") { stmt in
            var built: Set<Facet> = []
            while try handle.step(stmt) {
                guard sqlite3_column_type(stmt, 0) == SQLITE_INTEGER, sqlite3_column_int64(stmt, 2) == 1 else { continue }
                let facet = Facet(position: Int(clamping: sqlite3_column_int64(stmt, 0)), column: RawStatement.text(stmt, 1))
                if declared.contains(facet) { built.insert(facet) }
            }
            return built
        }
    }

    // MARK: - Reading

    /// The count of every value of `facet` over the rows `rowids` (sorted ascending), read from its structures; nil
    /// when they are not built or anything read is implausible (the caller then counts with a `GROUP BY`). The
    /// facet's value dictionary comes from `cache` when it holds the generation this snapshot has.
    static func counts(_ index: String, _ facet: Facet, rowids: UnsafeBufferPointer<Int64>, cache: DictionaryCache?,
                       on handle: Handle) throws -> [FundamentalValue: Int]? {
        guard let generation = try builtGeneration(index, facet, on: handle),
              let dictionary = try dictionary(index, facet, generation: generation, cache: cache, on: handle)
        else { return nil }
        let ordinals = dictionary.count + 2
        var counts = [UInt32](repeating: 0, count: ordinals)
        guard let base = rowids.baseAddress else { return [:] }
        let plausible = try handle.withStatement("SELECT ordinals FROM \(SQLBuilder.quote(chunksTable(index, facet.position))) WHERE chunk = ?") { stmt -> Bool in
            var at = 0
            while at < rowids.count {
                let chunk = rowids[at] >> chunkShift
                sqlite3_bind_int64(stmt, 1, chunk)
                defer { sqlite3_reset(stmt) }
                guard try handle.step(stmt) else { return false }  // a matching row without its chunk
                var consumed: Int64 = 0
                let damaged = counts.withUnsafeMutableBufferPointer { buffer in
                    sift_facet_tally(sqlite3_column_blob(stmt, 0), sqlite3_column_bytes(stmt, 0), chunk, base + at,
                                     Int64(rowids.count - at), buffer.baseAddress, UInt32(ordinals), &consumed)
                }
                guard damaged == 0, consumed > 0 else { return false }
                at += Int(consumed)
            }
            return true
        }
        return plausible ? values(of: counts, dictionary) : nil
    }

    /// The count of every value of `facet` over every row its structures hold (what `verify(index:)` compares with
    /// the content table), its dictionary read anew; nil when implausible.
    static func allCounts(_ index: String, _ facet: Facet, on handle: Handle) throws -> [FundamentalValue: Int]? {
        guard let generation = try builtGeneration(index, facet, on: handle),
              let dictionary = try dictionary(index, facet, generation: generation, cache: nil, on: handle)
        else { return nil }
        let ordinals = dictionary.count + 2
        var counts = [UInt32](repeating: 0, count: ordinals)
        let plausible = try handle.withStatement("SELECT ordinals FROM \(SQLBuilder.quote(chunksTable(index, facet.position)))") { stmt -> Bool in
            while try handle.step(stmt) {
                let rows = counts.withUnsafeMutableBufferPointer { buffer in
                    sift_facet_tally_all(sqlite3_column_blob(stmt, 0), sqlite3_column_bytes(stmt, 0), buffer.baseAddress, UInt32(ordinals))
                }
                if rows < 0 { return false }
            }
            return true
        }
        return plausible ? values(of: counts, dictionary) : nil
    }

    /// `counts` by ordinal turned into counts by value (ordinal 1 is NULL, ordinal `o` from 2 is `dictionary[o - 2]`).
    private static func values(of counts: [UInt32], _ dictionary: [FundamentalValue]) -> [FundamentalValue: Int] {
        var result: [FundamentalValue: Int] = [:]
        if counts.count > 1, counts[1] > 0 { result[.null] = Int(counts[1]) }
        for ordinal in counts.indices.dropFirst(2) where counts[ordinal] > 0 {
            result[dictionary[ordinal - 2]] = Int(counts[ordinal])
        }
        return result
    }

    // MARK: - Verification

    /// What is wrong with the facets of `index`: a built facet whose counts over all its rows differ from a
    /// `GROUP BY` over the content table, or whose structures read as damaged.
    static func problems(_ index: String, on handle: Handle) throws -> [String] {
        let declared = try declared(index, on: handle)
        guard !declared.isEmpty, let synced = try SyncedIndex.load(on: handle).first(where: { $0.index == index }),
              synced.mode == .explicit else { return [] }
        let built = try builtFacets(index, on: handle)
        var problems: [String] = []
        for facet in declared {
            guard built.contains(facet) else {
                problems.append("facet \(facet.column): not built (optimize(index:) builds it; searches count it with GROUP BY)")
                continue
            }
            // Counted over the content table's rowids (every row must have its value) and over every stored
            // ordinal (no row may have one without a content row).
            let q = SQLBuilder.quote
            let read: (rows: [FundamentalValue: Int]?, stored: [FundamentalValue: Int]?)
            do {
                var rowids = sift_facet_rowids(rowids: nil, count: 0, capacity: 0)
                defer { sift_facet_rowids_free(&rowids) }
                let sql = "SELECT \(q(synced.rowidColumn)) FROM \(q(synced.content))"
                try handle.withStatement(sql) { stmt in
                    let rc = sift_facet_collect(stmt, 0, &rowids)
                    if rc != SQLITE_DONE { throw handle.error(rc, sql: sql, operation: .step) }
                }
                read = (try counts(index, facet, rowids: UnsafeBufferPointer(start: rowids.rowids, count: Int(rowids.count)),
                                    cache: nil, on: handle),
                        try allCounts(index, facet, on: handle))
            } catch where isDamage(error) {
                read = (nil, nil)
            }
            guard let stored = read.rows, read.stored == stored else {
                problems.append("facet \(facet.column): its structures are damaged (optimize(index:) rebuilds them)")
                continue
            }
            let content = try groupedCounts("SELECT \(q(facet.column)), count(*) FROM \(q(synced.content)) GROUP BY 1", [], on: handle)
            if stored != content {
                problems.append("facet \(facet.column): \(stored.count) values counted, \(content.count) in \(synced.content), "
                                + "counts differ (optimize(index:) rebuilds them)")
            }
        }
        return problems
    }

    /// The rows of a `SELECT value, count(*) ... GROUP BY` as counts by value.
    static func groupedCounts(_ sql: String, _ values: [FundamentalValue], on handle: Handle) throws -> [FundamentalValue: Int] {
        try handle.withStatement(sql) { stmt in
            try handle.bind(values, to: stmt, sql: sql)
            var counts: [FundamentalValue: Int] = [:]
            while try handle.step(stmt) { counts[RawStatement.value(stmt, 0), default: 0] += Int(sqlite3_column_int64(stmt, 1)) }
            return counts
        }
    }
}
