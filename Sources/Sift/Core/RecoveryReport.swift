/// What ``Database/recover(from:into:backup:)`` salvaged from a damaged file.
///
///     let report = try Database.recover(from: damagedPath, into: Database(withPath: newPath))
///     for table in report.tables { print(table.name, table.rowsRecovered) }
///     print("pages lost:", report.lostPages.count, "of", report.pageCount)
public struct RecoveryReport: Sendable {
    /// How the rows were read.
    public enum Method: String, Sendable {
        /// SQLite opened the file and found it sound: rows were copied through SQLite.
        case sqlite
        /// SQLite could not open or read the file soundly: rows were read from its b-tree pages.
        case pages
    }

    /// One table of the recovered database.
    public struct RecoveredTable: Sendable, Equatable {
        /// The table's name.
        public var name: String
        /// Rows written to the new database.
        public var rowsRecovered: Int
        /// Rows read but refused by the new table (a constraint such as UNIQUE or NOT NULL, or a duplicate rowid).
        public var rowsRejected: Int
        /// Rows that came from leaf pages no longer linked into the table's b-tree, matched to the table by the
        /// shape of their records (counted in `rowsRecovered` too).
        public var rowsFromOrphanPages: Int
        /// Rows part of whose content was on overflow pages that are lost (counted in `rowsRecovered` too): the
        /// column the loss cuts keeps the part that was read (a number becomes NULL), the columns after it are NULL.
        public var partialRows: Int
    }

    /// How the rows were read.
    public var method: Method
    /// The recovered tables (full-text indexes' internal tables excepted), in schema order.
    public var tables: [RecoveredTable]
    /// The pages the damaged file has (or its header says it had).
    public var pageCount: Int
    /// Pages whose content could not be read: garbage where a b-tree page should be, or missing from a
    /// truncated file. Their rows are lost.
    public var lostPages: [Int]
    /// Whether the schema came (at least in part) from the backup because the file's own was unreadable.
    public var usedBackup: Bool
    /// Rows read from orphan pages that matched no table's layout (not written anywhere).
    public var unassignedRows: Int
    /// Full-text indexes rebuilt from the recovered content.
    public var rebuiltIndexes: [String]
    /// Schema objects that could not be recreated, and other things that went wrong, one sentence each.
    public var problems: [String]

    /// All rows written to the new database.
    public var rowsRecovered: Int { tables.reduce(0) { $0 + $1.rowsRecovered } }
}

/// How the layer that owns virtual tables (full text) takes part in a recovery: which of their internal tables'
/// rows are worth copying, and rebuilding them once the content is back. Core recreates virtual tables from their
/// `CREATE` statements and copies what this says; it knows nothing of what the tables are.
protocol VirtualTableRecovering {
    /// Whether the rows of `shadowTable` (an internal table of the virtual table `virtualTable`, whose `CREATE`
    /// statement is `sql`) are copied into the new database (the rest is rebuilt).
    func copiesRows(ofShadowTable shadowTable: String, of virtualTable: String, sql: String) -> Bool
    /// Whether `table` (not a shadow table) holds only what is derived from one of `virtualTables` and is made
    /// anew by `rebuild`: it is created, its rows are not copied.
    func isDerived(_ table: String, from virtualTables: [String]) -> Bool
    /// Called last, inside the recovery's transaction: rebuilds the virtual tables from the recovered rows and
    /// returns the ones it rebuilt, with a sentence for each one it could not.
    func rebuild(_ virtualTables: [String], on handle: Handle) -> (rebuilt: [String], problems: [String])
}
