import Foundation

extension Database {
    /// Rebuilds a damaged database into `destination` (an empty database), table by table, and says what it
    /// salvaged. Call it when an operation fails with ``SiftError/isCorruption`` (SQLite's codes 11 and 26).
    ///
    /// When SQLite still opens the file and finds it sound, the rows are copied through SQLite. Otherwise Sift
    /// reads the file's pages itself: every table b-tree from its root page, and the leaf pages cut off from their
    /// tree (matched to a table by the shape of their records). Where the file's own schema is unreadable (a
    /// damaged first page, a zeroed header) the backup written by ``backup()`` supplies the tables, their root
    /// pages and the page size: keep one. Indexes, triggers and views are recreated; full-text indexes are rebuilt
    /// from the recovered content, and synced indexes stay synced. Foreign keys are not enforced while rows arrive;
    /// rows whose parent was lost are kept and reported in ``RecoveryReport/problems``.
    ///
    /// Close the damaged database first (``close(onClosed:)``), and configure `destination` as the damaged one was
    /// (an ICU tokenizer, for instance) so its full-text tables can be recreated. Recovery takes seconds per
    /// hundred megabytes: run it off the main thread.
    ///
    ///     let report = try Database.recover(from: database.path, into: Database(withPath: recoveredPath))
    ///     print(report.rowsRecovered, "rows;", report.lostPages.count, "pages lost")
    ///
    /// - Parameters:
    ///   - damagedPath: the damaged database file (read, never changed).
    ///   - destination: the database to fill; it must be empty.
    ///   - backupPath: the backup to use; by default the one ``backup()`` writes beside `damagedPath`.
    /// - Throws: ``SiftError`` when the damaged file cannot be read, the backup is not one, or `destination` is not
    ///   empty or cannot be written. Damage itself is never an error: what cannot be read is reported.
    public static func recover(from damagedPath: String, into destination: Database, backup backupPath: String? = nil) throws -> RecoveryReport {
        let path = URL(fileURLWithPath: (damagedPath as NSString).expandingTildeInPath).standardizedFileURL.path
        guard path != destination.path else {
            throw destination.pool.report(SiftError.misuse("Recover into another file than the damaged \(path).", operation: .file))
        }
        let backup = try DatabaseBackup.load(from: backupPath ?? path + "-sift-backup")
        return try destination.writeWithoutTransaction { handle in
            try Recovery(damagedPath: path, backup: backup).run(into: handle, virtualTables: FullTextRecovery())
        }
    }
}

/// The full-text layer's part in a recovery: a full-text table's own content (`<name>_content`, for tables that
/// store their text) is copied, its index structures are not; every index is rebuilt from its content.
struct FullTextRecovery: VirtualTableRecovering {
    func copiesRows(ofShadowTable shadowTable: String, of virtualTable: String, sql: String) -> Bool {
        shadowTable.lowercased() == virtualTable.lowercased() + "_content"
    }

    func rebuild(_ virtualTables: [String], on handle: Handle) -> (rebuilt: [String], problems: [String]) {
        var rebuilt: [String] = []
        var problems: [String] = []
        for name in virtualTables {
            // Only FTS5 tables; a contentless one (content='') cannot be rebuilt, and says so.
            guard (try? FTSTableInfo.load(name, on: handle)) != nil else { continue }
            let q = SQLBuilder.quote(name)
            do {
                try handle.execute("INSERT INTO \(q)(\(q)) VALUES('rebuild')")
                rebuilt.append(name)
            } catch {
                problems.append("full-text index \(name) could not be rebuilt: \((error as? SiftError)?.message ?? "\(error)")")
            }
        }
        return (rebuilt, problems)
    }
}
