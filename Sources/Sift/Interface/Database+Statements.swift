extension Database {
    /// Runs a typed statement; its values are bound, never spliced.
    public func exec(_ statement: Statement) throws {
        let sql = statement.statementSQL
        try exec(sql: sql.sql, values: sql.values)
    }

    /// Prepares a typed statement for stepping through its rows.
    public func prepare(_ statement: Statement) throws -> PreparedStatement {
        let sql = statement.statementSQL
        let prepared = try prepare(sql: sql.sql)
        do {
            try prepared.bind(sql.values)
        } catch {
            prepared.finalize()
            throw error
        }
        return prepared
    }
}
