import CSQLite

/// What a connection can tell about the schema: the questions every layer asks of `sqlite_master` and
/// `pragma_table_info`, in one place.
extension Handle {
    /// "table" or "view" when `name` is one, else nil.
    func schemaType(of name: String) throws -> String? {
        try withStatement("SELECT type FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')") { stmt in
            try bind([FundamentalValue(name)], to: stmt, sql: "")
            return try step(stmt) ? RawStatement.text(stmt, 0) : nil
        }
    }

    /// The columns of `table`, in order.
    func columnNames(of table: String) throws -> [String] {
        try withStatement("SELECT name FROM pragma_table_info(?)") { stmt in
            try bind([FundamentalValue(table)], to: stmt, sql: "")
            var names: [String] = []
            while try step(stmt) { names.append(RawStatement.text(stmt, 0)) }
            return names
        }
    }

    /// The INTEGER PRIMARY KEY column of a table (its rowid alias), if it has one.
    func integerPrimaryKey(of table: String) throws -> String? {
        try withStatement("SELECT name, upper(type), (SELECT count(*) FROM pragma_table_info(?1) WHERE pk > 0) FROM pragma_table_info(?1) WHERE pk = 1") { stmt in
            try bind([FundamentalValue(table)], to: stmt, sql: "")
            guard try step(stmt), RawStatement.text(stmt, 1) == "INTEGER", sqlite3_column_int64(stmt, 2) == 1 else { return nil }
            return RawStatement.text(stmt, 0)
        }
    }

    /// The single integer an aggregate query such as `SELECT count(*) ...` returns (0 when it returns no row).
    func count(_ sql: String) throws -> Int {
        try withStatement(sql) { stmt in try step(stmt) ? Int(sqlite3_column_int64(stmt, 0)) : 0 }
    }
}
