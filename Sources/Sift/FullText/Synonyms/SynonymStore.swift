import CSQLite
import Foundation

/// The owner of the `sift_synonyms` table: every full-text index's synonym list, read and written only here.
///
/// One row per rule, keyed by the index and the rule's canonical line (``SynonymRule/description``); the row of an
/// index whose rule is empty holds the list's generation, which every write to the list raises in its
/// transaction. Searches keep the list's normalized form (`SynonymSet`) per index and generation, so a change
/// applies to the next search without reindexing, and reading the generation is one primary-key lookup.
enum SynonymStore {
    static let table = "sift_synonyms"

    /// At most this many rules per index.
    static let maxRules = 100_000

    /// The list's generation (0 when the index has none, or the table does not exist).
    static func generation(of index: String, on handle: Handle) throws -> Int64 {
        guard try handle.schemaType(of: table) == "table" else { return 0 }
        return try handle.withStatement("SELECT generation FROM sift_synonyms WHERE index_name = ? AND rule = ''") { stmt in
            try handle.bind([FundamentalValue(index)], to: stmt, sql: "")
            return try handle.step(stmt) ? sqlite3_column_int64(stmt, 0) : 0
        }
    }

    /// The index's rules, sorted by their lines. A row whose line no longer reads as a rule is a corrupt list: an error.
    static func rules(of index: String, on handle: Handle) throws -> [SynonymRule] {
        guard try handle.schemaType(of: table) == "table" else { return [] }
        let sql = "SELECT rule FROM sift_synonyms WHERE index_name = ? AND rule <> '' ORDER BY rule"
        return try handle.withStatement(sql) { stmt in
            try handle.bind([FundamentalValue(index)], to: stmt, sql: sql)
            var rules: [SynonymRule] = []
            while try handle.step(stmt) {
                let line = RawStatement.text(stmt, 0)
                guard let rule = try? SynonymRule.solrRules(line), rule.count == 1 else {
                    throw SiftError(code: .corrupt, message: "\(table) holds a row that is not a synonym rule: \(line.prefix(80))",
                                    sql: sql, operation: .query)
                }
                rules.append(rule[0])
            }
            return rules
        }
    }

    /// Adds `rules` (canonical) to the index's list, in the caller's write transaction; rules already there stay once.
    static func add(_ rules: [SynonymRule], to index: String, on handle: Handle) throws {
        try create(on: handle)
        let generation = try bump(index, on: handle)
        for rule in rules {
            try handle.execute("INSERT OR IGNORE INTO sift_synonyms(index_name, rule, generation) VALUES(?, ?, ?)",
                               [FundamentalValue(index), FundamentalValue(rule.description), FundamentalValue(generation)])
        }
        let count = try handle.withStatement("SELECT count(*) FROM sift_synonyms WHERE index_name = ? AND rule <> ''") { stmt in
            try handle.bind([FundamentalValue(index)], to: stmt, sql: "")
            return try handle.step(stmt) ? Int(sqlite3_column_int64(stmt, 0)) : 0
        }
        guard count <= maxRules else { throw SynonymRule.invalid("An index holds at most \(maxRules) synonym rules.") }
    }

    /// Removes `rules` (canonical) from the index's list; returns how many were there.
    static func remove(_ rules: [SynonymRule], from index: String, on handle: Handle) throws -> Int {
        guard try handle.schemaType(of: table) == "table" else { return 0 }
        _ = try bump(index, on: handle)
        var removed = 0
        for rule in rules {
            try handle.execute("DELETE FROM sift_synonyms WHERE index_name = ? AND rule = ?",
                               [FundamentalValue(index), FundamentalValue(rule.description)])
            removed += Int(sqlite3_changes(handle.raw))
        }
        return removed
    }

    /// Removes every rule of the index (the generation row stays, raised).
    static func removeEveryRule(from index: String, on handle: Handle) throws {
        guard try handle.schemaType(of: table) == "table" else { return }
        _ = try bump(index, on: handle)
        try handle.execute("DELETE FROM sift_synonyms WHERE index_name = ? AND rule <> ''", [FundamentalValue(index)])
    }

    private static func create(on handle: Handle) throws {
        try handle.execute("""
            CREATE TABLE IF NOT EXISTS sift_synonyms(index_name TEXT NOT NULL, rule TEXT NOT NULL, \
            generation INTEGER NOT NULL, PRIMARY KEY(index_name, rule)) WITHOUT ROWID
            """)
    }

    /// Raises the index's generation; returns the new one: above the last, and at least the time in microseconds,
    /// so a list dropped and made again (the table deleted by hand, say) does not reuse a generation a search kept.
    private static func bump(_ index: String, on handle: Handle) throws -> Int64 {
        try create(on: handle)
        let next = max(try generation(of: index, on: handle) + 1, Int64(Date().timeIntervalSince1970 * 1_000_000))
        try handle.execute("INSERT OR REPLACE INTO sift_synonyms(index_name, rule, generation) VALUES(?, '', ?)",
                           [FundamentalValue(index), FundamentalValue(next)])
        return next
    }
}
