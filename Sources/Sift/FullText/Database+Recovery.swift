import Foundation

extension Database {
    /// Rebuilds a damaged database into `destination` (an empty database), table by table, and says what it
    /// salvaged. Call it when an operation fails with ``SiftError/isCorruption`` (SQLite's codes 11 and 26).
    ///
    /// When SQLite still opens the file and finds it sound, the rows are copied through SQLite. Otherwise Sift
    /// reads the file's pages itself: every table b-tree from its root page, and the leaf pages cut off from their
    /// tree (matched to a table by the shape of their records). Where the file's own schema is unreadable (a
    /// damaged first page, a zeroed header) the backup written by ``backup()`` supplies the tables, their root
    /// pages and the page size: keep one. Full-text indexes are rebuilt from the recovered content, and synced
    /// indexes stay synced. Foreign keys are not enforced while rows arrive; rows whose parent was lost are kept and
    /// reported in ``RecoveryReport/problems``.
    ///
    /// The schema read from the file (or the backup) is never run as it stands: each `CREATE TABLE`,
    /// `CREATE INDEX` and `CREATE VIRTUAL TABLE ... USING fts5(...)` is parsed and written again by Sift, names
    /// quoted. A CHECK constraint or a default that calls a function outside a small set of cheap ones is left out;
    /// a statement that would run a query (`CREATE TABLE ... AS SELECT`), a generated column or an index over such
    /// a function, another kind of virtual table, and every view and trigger are not recreated (their SQL would run
    /// later, on reads and writes): each is named in ``RecoveryReport/problems``. The triggers of a synced index in
    /// trigger mode are written again by Sift from its sync record.
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
    ///   empty or cannot be written, and with ``CipherFailure/missingKey`` when the file looks encrypted (no header,
    ///   no page that reads as a database page, no backup): recover it with its key, ``recover(from:into:key:backup:)``.
    ///   Damage itself is never an error: what cannot be read is reported.
    public static func recover(from damagedPath: String, into destination: Database, backup backupPath: String? = nil) throws -> RecoveryReport {
        try recover(from: damagedPath, into: destination, cipher: nil, backup: backupPath)
    }

    /// Rebuilds a damaged encrypted database, read with `key`, into `destination`; see
    /// ``recover(from:into:backup:)``.
    ///
    /// When SQLite still reads the file soundly with the key, rows are copied through SQLite; otherwise each page is
    /// authenticated (its HMAC) and decrypted before it is read, and a page that fails authentication is a lost
    /// page. The key is what ``setCipherKey(_:pageSize:)`` or ``setCipherKey(rawKey:salt:pageSize:)`` was given,
    /// page size included. `destination` is written as it is configured: set its key first to keep the recovered
    /// rows encrypted (with the same key or another). An encrypted database has no schema backup (``backup()``
    /// refuses one), so a destroyed first page loses the schema; the rows of the other pages are then counted in
    /// ``RecoveryReport/unassignedRows`` unless `backupPath` names a backup of the same schema.
    ///
    /// The keys are derived from the salt in the file's first 16 bytes. When those are destroyed, a passphrase
    /// (or a raw key without its salt) reads nothing, and recovery throws a ``CipherFailure/wrongKey`` error, as it
    /// does for a wrong key; a raw key given with the file's salt (`.rawKey(key, salt: salt)`) still reads every
    /// intact page.
    ///
    ///     let recovered = Database(withPath: recoveredPath)
    ///     try recovered.setCipherKey(passphrase)
    ///     let report = try Database.recover(from: damagedPath, into: recovered, key: .passphrase(passphrase))
    ///     print(report.rowsRecovered, "rows;", report.lostPages.count, "pages lost")
    ///
    /// - Throws: as ``recover(from:into:backup:)``, and a ``SiftError`` with a ``SiftError/cipherFailure``:
    ///   ``CipherFailure/wrongKey`` when no page authenticates, ``CipherFailure/notEncrypted`` for a plain file.
    ///   Without a key, recovering a file that looks encrypted (no header, no readable page, no backup) throws
    ///   ``CipherFailure/missingKey``.
    public static func recover(from damagedPath: String, into destination: Database, key: CipherKeyMaterial,
                               backup backupPath: String? = nil) throws -> RecoveryReport {
        let cipher = try destination.pool.reporting { try CipherKey.make(key) }
        return try recover(from: damagedPath, into: destination, cipher: cipher, backup: backupPath)
    }

    private static func recover(from damagedPath: String, into destination: Database, cipher: CipherKey?,
                                backup backupPath: String?) throws -> RecoveryReport {
        let path = URL(fileURLWithPath: (damagedPath as NSString).expandingTildeInPath).standardizedFileURL.path
        guard path != destination.path else {
            throw destination.pool.report(SiftError.misuse("Recover into another file than the damaged \(path).", operation: .file))
        }
        let backup = try DatabaseBackup.load(from: backupPath ?? path + "-sift-backup")
        return try destination.writeWithoutTransaction { handle in
            try Recovery(damagedPath: path, backup: backup, key: cipher).run(into: handle, virtualTables: FullTextRecovery())
        }
    }
}

/// The full-text layer's part in a recovery: a full-text table's own content (`<name>_content`, for tables that
/// store their text) is copied, its index structures are not; every index is rebuilt from its content.
struct FullTextRecovery: VirtualTableRecovering {
    func copiesRows(ofShadowTable shadowTable: String, of virtualTable: String, sql: String) -> Bool {
        shadowTable.lowercased() == virtualTable.lowercased() + "_content"
    }

    /// A synced index's stored term dictionary (`TermDictionaryStore`): built anew with the index.
    func isDerived(_ table: String, from virtualTables: [String]) -> Bool {
        virtualTables.contains { TermDictionaryStore.table($0).lowercased() == table.lowercased() }
    }

    func rebuild(_ virtualTables: [String], on handle: Handle) -> (rebuilt: [String], problems: [String]) {
        var rebuilt: [String] = []
        var problems: [String] = []
        for name in virtualTables {
            // Only FTS5 tables; a contentless one (content='') cannot be rebuilt, and says so.
            guard (try? FTSTableInfo.load(name, on: handle)) != nil else { continue }
            do {
                try handle.rebuildFullTextIndex(name)
                rebuilt.append(name)
            } catch {
                // Score bounds copied from the damaged file describe rows that are not there.
                try? DerivedStructures.indexDropped(name, on: handle)
                problems.append("full-text index \(name) could not be rebuilt: \((error as? SiftError)?.message ?? "\(error)")")
            }
        }
        // A synced index in trigger mode gets its triggers from Sift, written from the recovered sync record (the
        // damaged file's triggers are not run).
        let names = Set(rebuilt.map { $0.lowercased() })
        for index in (try? SyncedIndex.load(on: handle)) ?? [] where index.mode == .trigger && names.contains(index.index.lowercased()) {
            do {
                for sql in index.triggerSQL { try handle.execute(sql) }
            } catch {
                problems.append("the triggers of full-text index \(index.index) could not be recreated: \((error as? SiftError)?.message ?? "\(error)")")
            }
        }
        // Vector indexes are derived from their content rows too: rebuilt, never copied.
        problems += VectorIndex.rebuildAfterRecovery(on: handle)
        return (rebuilt, problems)
    }
}
