import CSQLite

extension FacetStore {
    /// The value dictionaries read by searches, per index and facet, each with the generation it was read at; shared
    /// by the connections of one database (`FullTextSettings`).
    typealias DictionaryCache = Locked<[String: (generation: Int64, values: [FundamentalValue])]>

    /// Dictionaries larger than this are read for each search instead of kept in memory.
    static let largestCachedDictionary = 1 << 20

    /// A new generation for a facet's dictionary, stored in its meta row whenever the dictionary changes (a rebuild,
    /// a statement that adds values): a random number, so that no generation comes back after a rollback or a
    /// rebuild, and a dictionary kept in memory is used only while its generation is the one a snapshot holds.
    static func newGeneration() -> Int64 { Int64.random(in: 1...Int64.max) }

    /// The generation of the dictionary of `facet` when its structures are built, valid and for its declared column;
    /// nil otherwise.
    static func builtGeneration(_ index: String, _ facet: Facet, on handle: Handle) throws -> Int64? {
        guard try handle.schemaType(of: metaTable(index)) == "table" else { return nil }
        let sql = "SELECT column_name, valid, generation FROM \(SQLBuilder.quote(metaTable(index))) WHERE position = ?"
        return try handle.withStatement(sql) { stmt in
            sqlite3_bind_int64(stmt, 1, Int64(facet.position))
            guard try handle.step(stmt), RawStatement.text(stmt, 0) == facet.column, sqlite3_column_int64(stmt, 1) == 1,
                  sqlite3_column_type(stmt, 2) == SQLITE_INTEGER else { return nil }
            return sqlite3_column_int64(stmt, 2)
        }
    }

    /// The values of `facet` by ordinal (ordinal `o` at `o - 2`) at `generation`: from `cache` when it holds that
    /// generation, else read (and kept in `cache`). Nil when implausible: the ordinals are not 2, 3, ... without a
    /// gap (rebuilds number them so, writes add the next one, rollbacks take the last ones), or a value is listed
    /// twice, or there are more than `maxOrdinals`.
    static func dictionary(_ index: String, _ facet: Facet, generation: Int64, cache: DictionaryCache?,
                           on handle: Handle) throws -> [FundamentalValue]? {
        let key = index + "\u{0}" + String(facet.position)
        if let kept = cache?.withLock({ $0[key] }), kept.generation == generation { return kept.values }
        let sql = "SELECT ordinal, facet_value FROM \(SQLBuilder.quote(valuesTable(index))) WHERE position = ? ORDER BY ordinal"
        let read = try handle.withStatement(sql) { stmt -> [FundamentalValue]? in
            sqlite3_bind_int64(stmt, 1, Int64(facet.position))
            var values: [FundamentalValue] = []
            while try handle.step(stmt) {
                guard sqlite3_column_int64(stmt, 0) == Int64(values.count) + 2, values.count + 2 < maxOrdinals,
                      sqlite3_column_type(stmt, 1) != SQLITE_NULL else { return nil }
                values.append(RawStatement.value(stmt, 1))
            }
            return values
        }
        guard let values = read, Set(values).count == values.count else { return nil }
        if values.count <= largestCachedDictionary { cache?.withLock { $0[key] = (generation, values) } }
        return values
    }
}
