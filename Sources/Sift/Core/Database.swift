import Foundation

/// A database file, and the entry point to everything Sift does with it.
///
/// Creating a `Database` touches nothing on disk: the file (and any missing directories) is created
/// and opened on first use. Every method is safe to call from any thread; two `Database` values for
/// the same path share one pool of connections, configs and tracers.
///
///     let database = Database(withPath: "/tmp/sift/sample.db")
///     try database.create(table: "sampleTable", of: Sample.self)
public final class Database: Sendable {
    let pool: HandlePool

    /// A database at `path`; relative paths are resolved against the current directory.
    public init(withPath path: String) {
        let standardized = URL(fileURLWithPath: (path as NSString).expandingTildeInPath).standardizedFileURL.path
        pool = PoolRegistry.pool(for: standardized)
    }

    /// A database at a file URL.
    public convenience init(withFileURL url: URL) {
        self.init(withPath: url.path)
    }

    /// The database file's path.
    public var path: String { pool.path }

    /// The database file and the files SQLite keeps beside it (WAL, shared memory, rollback journal).
    public var paths: [String] { [path, path + "-wal", path + "-shm", path + "-journal"] }

    /// A number that identifies this database in errors and traces.
    public var tag: Tag? {
        get { pool.tag }
        set { pool.tag = newValue }
    }

    /// Whether the database can be opened (and is a database): opens a connection to find out.
    public var canOpen: Bool {
        (try? pool.withHandle(write: false) { _ in }) != nil
    }

    /// Whether any connection is open.
    public var isOpened: Bool { pool.isOpened }

    /// Closes every connection once the other threads' work is done, runs `body` while every other
    /// thread's use of this database waits, then lets them go on. Use it to move, copy or delete the files.
    ///
    ///     try database.close(onClosed: { try database.removeFiles() })
    public func close(onClosed body: () throws -> Void) throws {
        try pool.close(onClosed: body)
    }

    /// Closes every connection once the other threads' work is done; the next use reopens.
    /// Inside a transaction of the calling thread it does nothing (the error goes to the error tracer).
    public func close() {
        try? pool.close(onClosed: {})
    }

    /// Closes idle connections to release their memory.
    public func purgeFreeHandles() {
        pool.purgeFreeHandles()
    }

    /// Closes idle connections of every open database.
    public static func purgeFreeHandlesInAllDatabases() {
        PoolRegistry.forEachPool { $0.purgeFreeHandles() }
    }

    /// Deletes the database file and its companions (its ``backupPath`` too), closing the database first.
    public func removeFiles() throws {
        try close(onClosed: {
            for file in paths + [backupPath] where FileManager.default.fileExists(atPath: file) {
                do {
                    try FileManager.default.removeItem(atPath: file)
                } catch {
                    throw pool.report(SiftError(code: .ioError, message: "Cannot remove \(file): \(error.localizedDescription)",
                                                path: path, tag: tag, operation: .file))
                }
            }
        })
    }
}
