import Foundation

/// What ``Database/backup()`` saves beside a database so that ``Database/recover(from:into:backup:)`` can rebuild
/// it when the file's own schema is gone: the rows of `sqlite_schema` (each table's and index's root page, and the
/// `CREATE` statement that defines its columns, types and constraints) and the header facts needed to read pages
/// without a header (page size, text encoding). No row data: it stays small (a few kB) and quick to write.
public struct DatabaseBackup: Codable, Sendable, Equatable {
    /// One row of `sqlite_schema`.
    public struct SchemaEntry: Codable, Sendable, Hashable {
        /// `table`, `index`, `view` or `trigger`.
        public var type: String
        /// The object's name.
        public var name: String
        /// The table an index or trigger belongs to (the table's own name for a table).
        public var tableName: String
        /// The first page of the object's b-tree (0 for views, triggers and virtual tables).
        public var rootPage: Int
        /// The `CREATE` statement (nil for the indexes SQLite makes for UNIQUE and PRIMARY KEY constraints).
        public var sql: String?

        /// An entry from its fields.
        public init(type: String, name: String, tableName: String, rootPage: Int, sql: String?) {
            self.type = type
            self.name = name
            self.tableName = tableName
            self.rootPage = rootPage
            self.sql = sql
        }
    }

    /// The format of this file (1).
    public var formatVersion = 1
    /// The database's page size in bytes.
    public var pageSize: Int
    /// The text encoding: 1 UTF-8, 2 UTF-16le, 3 UTF-16be (the header's values).
    public var textEncoding: Int
    /// The schema cookie when the backup was taken: it changes with every schema change.
    public var schemaVersion: Int64
    /// The rows of `sqlite_schema`, in rowid order.
    public var schema: [SchemaEntry]
    /// When the backup was taken.
    public var date: Date

    /// Reads the backup file at `path`; nil when there is none, a typed error when it is not a backup.
    public static func load(from path: String) throws -> DatabaseBackup? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(DatabaseBackup.self, from: data)
        } catch {
            throw SiftError(code: .error, message: "\(path) is not a Sift backup: \(error.localizedDescription)",
                            path: path, operation: .file)
        }
    }
}

extension Database {
    /// Where ``backup()`` writes: beside the database, its path followed by `-sift-backup` (`notes.db` ->
    /// `notes.db-sift-backup`), where ``recover(from:into:backup:)`` looks by default.
    public var backupPath: String { path + "-sift-backup" }

    /// Saves what repair needs (the schema with each table's root page, the page size and text encoding) to
    /// ``backupPath``, replacing the previous backup atomically, and returns it.
    ///
    /// Call it after every schema change (creating a table or index, a migration) and, since `VACUUM` and
    /// autovacuum move root pages, from time to time (at launch, say); it reads only `sqlite_schema` and writes
    /// a few kB, so it is cheap. Without a backup, recovery still reads every page it can, but a file whose
    /// schema page is damaged cannot tell which table its rows belong to.
    ///
    ///     try database.create(table: "messages", of: Message.self)
    ///     try database.backup()
    ///     // ... later, after an operation failed with error.isCorruption:
    ///     let report = try Database.recover(from: database.path, into: Database(withPath: recoveredPath))
    ///
    /// An encrypted database (``setCipherKey(_:pageSize:)``) has no backup: the file would hold its schema in
    /// plaintext beside the encrypted pages, so `backup()` throws a ``SiftError`` (`.misuse`) instead.
    @discardableResult
    public func backup() throws -> DatabaseBackup {
        guard !isEncrypted else {
            var error = SiftError.misuse("An encrypted database has no backup: the backup file would hold its schema "
                                         + "in plaintext.", operation: .file)
            error.path = path
            throw error
        }
        let backup = try read { handle -> DatabaseBackup in
            let pageSize = try handle.count("PRAGMA page_size")
            let encoding = try handle.withStatement("PRAGMA encoding") { stmt -> Int in
                guard try handle.step(stmt) else { return 1 }
                switch RawStatement.text(stmt, 0).lowercased() {
                case "utf-16le": return 2
                case "utf-16be": return 3
                default: return 1
                }
            }
            let schema = try handle.withStatement("SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY rowid") { stmt in
                var entries: [DatabaseBackup.SchemaEntry] = []
                while try handle.step(stmt) {
                    entries.append(DatabaseBackup.SchemaEntry(
                        type: RawStatement.text(stmt, 0), name: RawStatement.text(stmt, 1), tableName: RawStatement.text(stmt, 2),
                        rootPage: Int(RawStatement.value(stmt, 3).int64Value),
                        sql: RawStatement.value(stmt, 4).isNull ? nil : RawStatement.text(stmt, 4)))
                }
                return entries
            }
            return DatabaseBackup(pageSize: pageSize, textEncoding: encoding, schemaVersion: try handle.schemaVersion(),
                                  schema: schema, date: Date())
        }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(backup).write(to: URL(fileURLWithPath: backupPath), options: .atomic)
        } catch {
            throw pool.report(SiftError(code: .ioError, message: "Cannot write the backup \(backupPath): \(error.localizedDescription)",
                                        path: path, tag: tag, operation: .file))
        }
        return backup
    }
}
