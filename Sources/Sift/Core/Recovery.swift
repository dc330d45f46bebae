import CSQLite
import Foundation

/// Rebuilds a damaged database into an empty one, table by table (see ``Database/recover(from:into:backup:)``).
///
/// When SQLite opens the damaged file and `quick_check` finds it sound, rows are copied through SQLite. Otherwise
/// every page is read by ``PageFile``: the schema from page 1's b-tree (or, when that is unreadable, from the
/// backup), each table's rows by walking its b-tree from its root page, and leaf pages that no tree reaches any
/// more (their parent was destroyed) by matching their records to the tables' column layouts.
///
/// The schema's SQL is never run as the file has it: ``SchemaParser`` writes each table, index and FTS5 table again
/// from what it declares, and views and triggers (SQL that would run later, on every read or write) are not
/// recreated; both are reported in ``RecoveryReport/problems``.
struct Recovery {
    typealias Entry = DatabaseBackup.SchemaEntry

    /// A row as stored: its rowid (nil for a WITHOUT ROWID table read through SQLite) and its columns in order;
    /// partial when part of it was on overflow pages that are lost.
    struct Row {
        let rowID: Int64?
        let values: [FundamentalValue]
        var isPartial = false
    }

    /// A table of the new database as recovery fills it.
    struct Layout {
        let name: String
        let columnNames: [String]
        let affinities: [Affinity]
        /// The INTEGER PRIMARY KEY column's position: the record stores NULL there, the rowid is the value.
        let rowidAlias: Int?
        let withoutRowid: Bool
        /// Whether recovered rows are written (false for the internal tables that are rebuilt instead).
        let copied: Bool
    }

    /// SQLite's column affinities (https://sqlite.org/datatype3.html#determination_of_column_affinity).
    enum Affinity {
        case integer, text, blob, real, numeric

        init(declaredType: String) {
            let type = declaredType.uppercased()
            if type.contains("INT") { self = .integer }
            else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { self = .text }
            else if type.contains("BLOB") || type.isEmpty { self = .blob }
            else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { self = .real }
            else { self = .numeric }
        }
    }

    let damagedPath: String
    let backup: DatabaseBackup?
    /// The damaged file's key when it is encrypted: SQLite reads it through the cipher VFS, and each page is
    /// authenticated and decrypted before it is parsed.
    var key: CipherKey? = nil

    func run(into handle: Handle, virtualTables: any VirtualTableRecovering) throws -> RecoveryReport {
        guard try handle.count("SELECT count(*) FROM sqlite_master") == 0 else {
            throw handle.pool.report(SiftError.misuse("The database to recover into (\(handle.path)) is not empty.", operation: .file))
        }
        guard let data = FileManager.default.contents(atPath: damagedPath) else {
            throw handle.pool.report(SiftError(code: .cantOpen, message: "Cannot read \(damagedPath).", path: damagedPath, operation: .file))
        }
        let sound = SoundFile(path: damagedPath, key: key)
        var bytes = [UInt8](data), log = FileManager.default.contents(atPath: damagedPath + "-wal").map { [UInt8]($0) }
        if let key, sound == nil {
            (bytes, log) = try handle.pool.reporting { try PageFile.decrypting(bytes, wal: log, with: key, path: damagedPath) }
        }
        // Commits still in the write-ahead log are part of the database: SQLite applies them, so do the pages.
        let wal = log.map { PageFile.applyingWAL($0, to: bytes) }
        var pages = PageSource(file: PageFile(bytes: wal?.bytes ?? bytes, fallbackPageSize: key?.pageSize ?? backup?.pageSize ?? wal?.pageSize,
                                              fallbackEncoding: backup.flatMap { PageFile.TextEncoding(rawValue: $0.textEncoding) },
                                              fallbackReserved: key == nil ? 0 : CipherEngine.reserve))
        // Random bytes throughout: encrypted, most likely. With a backup (which encrypted databases do not write) it
        // is damage, and the backup's tables are recreated, empty.
        if key == nil, sound == nil, backup == nil, pages.file.looksEncrypted {
            throw handle.pool.report(CipherKey.error(.missingKey, code: .notADatabase, message: "\(damagedPath) may be encrypted (it has "
                + "no database header and no page of it reads as a database page), and no key was given.", path: damagedPath))
        }
        var report = RecoveryReport(method: sound == nil ? .pages : .sqlite, tables: [], pageCount: pages.file.declaredPageCount,
                                    lostPages: [], usedBackup: false, unassignedRows: 0, rebuiltIndexes: [], problems: [])
        var schema: [Entry]
        if let sound {
            schema = sound.schema
        } else {
            let read = pages.schema()
            schema = read.entries
            if !read.complete, let backup {
                let known = Set(schema.map { $0.name.lowercased() })
                schema += backup.schema.filter { !known.contains($0.name.lowercased()) }
                report.usedBackup = true
            }
        }

        // Foreign keys are not enforced while rows arrive in any order; violations are reported afterwards.
        try handle.execute("PRAGMA foreign_keys=OFF")
        defer { try? handle.execute("PRAGMA foreign_keys=ON") }
        try handle.inTransaction {
            // The file's CREATE statements are parsed and written again (never run as they are); a statement that
            // cannot be is reported and its object left out.
            let statements = Dictionary(schema.filter { ($0.type == "table" || $0.type == "index") && $0.sql != nil
                && !$0.name.lowercased().hasPrefix("sqlite_") }.map { ($0, Recovery.statement(for: $0)) }, uniquingKeysWith: { a, _ in a })
            let kind = { (entry: Entry) in try? statements[entry]?.get().kind }
            // Virtual tables first: they create their internal (shadow) tables, whatever names the damaged schema
            // gives those; tables then present that no entry created are shadows, and are not created again.
            let tables = schema.filter { $0.type == "table" && !$0.name.lowercased().hasPrefix("sqlite_") }
            for entry in tables where kind(entry) == .virtualTable { create(entry, statements[entry], on: handle, problems: &report.problems) }
            let virtualSQL = try Recovery.tableSQL(on: handle).filter { Recovery.isVirtual($0.sql) }
            let shadows = Set(try Recovery.tableSQL(on: handle).map { $0.name.lowercased() }).subtracting(virtualSQL.map { $0.name.lowercased() })
            let shadowOf = { (name: String) -> (name: String, sql: String)? in
                guard shadows.contains(name.lowercased()) else { return nil }
                return virtualSQL.first { name.lowercased().hasPrefix($0.name.lowercased() + "_") } ?? ("", "")
            }
            for entry in tables where kind(entry) != .virtualTable && shadowOf(entry.name) == nil {
                create(entry, statements[entry], on: handle, problems: &report.problems)
            }
            // A table derived from a virtual table's content is made anew by its rebuild: created (its pages are
            // read, not left as orphans), its rows not copied.
            let virtualNames = virtualSQL.map(\.name)
            let layouts = try Recovery.layouts(on: handle) { name in
                guard let virtual = shadowOf(name) else { return !virtualTables.isDerived(name, from: virtualNames) }
                return virtualTables.copiesRows(ofShadowTable: name, of: virtual.name, sql: virtual.sql)
            }
            var counts: [String: RecoveryReport.RecoveredTable] = [:]
            for layout in layouts where layout.copied { counts[layout.name] = RecoveryReport.RecoveredTable(name: layout.name, rowsRecovered: 0, rowsRejected: 0, rowsFromOrphanPages: 0, partialRows: 0) }
            func write(_ row: Row, to layout: Layout, orphan: Bool) throws {
                guard layout.copied else { return }
                if try Recovery.insert(row, into: layout, on: handle) {
                    counts[layout.name]?.rowsRecovered += 1
                    if orphan { counts[layout.name]?.rowsFromOrphanPages += 1 }
                    if row.isPartial { counts[layout.name]?.partialRows += 1 }
                } else {
                    counts[layout.name]?.rowsRejected += 1
                }
            }
            let roots = Dictionary(schema.filter { $0.type == "table" }.map { ($0.name.lowercased(), $0.rootPage) }, uniquingKeysWith: { a, _ in a })
            if let sound {
                for layout in layouts where layout.copied {
                    do {
                        try sound.rows(of: layout) { try write($0, to: layout, orphan: false) }
                    } catch {
                        report.problems.append("\(layout.name): reading stopped: \(error)")
                    }
                }
            } else {
                for layout in layouts {
                    guard let root = roots[layout.name.lowercased()], root > 0 else { continue }
                    for row in pages.rows(ofTableAt: root, withoutRowid: layout.withoutRowid) where Recovery.fits(row, layout) != nil {
                        try write(row, to: layout, orphan: false)
                    }
                }
                for entry in schema where entry.type == "index" && entry.rootPage > 0 { pages.claimIndex(at: entry.rootPage) }
                for leaf in pages.orphanLeaves() {
                    let rows = pages.rows(ofLeaf: leaf)
                    guard let layout = Recovery.bestLayout(for: rows, among: layouts.filter { !$0.withoutRowid }) else {
                        report.unassignedRows += rows.count
                        continue
                    }
                    for row in rows { try write(row, to: layout, orphan: true) }
                }
                report.lostPages = pages.lostPages()
            }
            report.tables = layouts.compactMap { counts[$0.name] }.filter { shadowOf($0.name) == nil }
            for entry in schema where entry.type == "index" && shadowOf((try? statements[entry]?.get())?.tableName ?? entry.tableName) == nil {
                create(entry, statements[entry], on: handle, problems: &report.problems)
            }
            let rebuilt = virtualTables.rebuild(virtualSQL.map(\.name), on: handle)
            report.rebuiltIndexes = rebuilt.rebuilt
            report.problems += rebuilt.problems
            // Views and triggers are SQL that would run later, on every read or write: a damaged (or crafted)
            // file's are not recreated. The full-text layer recreates the triggers of its synced indexes itself.
            let recreated = Set(try Recovery.names(of: ["trigger", "view"], on: handle))
            for entry in schema where (entry.type == "trigger" || entry.type == "view") && entry.sql != nil
                && shadowOf(entry.tableName) == nil && !entry.name.lowercased().hasPrefix("sqlite_")
                && !recreated.contains(entry.name.lowercased()) {
                create(entry, Recovery.statement(for: entry), on: handle, problems: &report.problems)
            }
        }
        let violations = try handle.count("SELECT count(*) FROM pragma_foreign_key_check")
        if violations > 0 {
            report.problems.append("\(violations) recovered rows refer to rows that were lost (PRAGMA foreign_key_check lists them).")
        }
        return report
    }

    /// The `CREATE` statement each kind of schema row holds.
    static let createStatements = [
        "table": #"^CREATE\s+(VIRTUAL\s+)?TABLE\s"#, "index": #"^CREATE\s+(UNIQUE\s+)?INDEX\s"#,
        "view": #"^CREATE\s+VIEW\s"#, "trigger": #"^CREATE\s+TRIGGER\s"#,
    ]

    /// What the new database gets for a schema row of the damaged file (or of the backup): its `CREATE`
    /// statement parsed and written again by ``SchemaParser``, never run as the file has it, or why not (a
    /// statement of another kind than its row, a view or trigger, anything ``SchemaParser`` refuses).
    static func statement(for entry: Entry) -> Result<SchemaStatement, SchemaParser.Refusal> {
        guard let sql = entry.sql, let pattern = createStatements[entry.type],
              sql.range(of: pattern, options: [.regularExpression, .caseInsensitive]) != nil else {
            return .failure(SchemaParser.Refusal(reason: "its schema row holds no CREATE \(entry.type.uppercased()) statement"))
        }
        guard entry.type == "table" || entry.type == "index" else {
            return .failure(SchemaParser.Refusal(reason: "recovery does not run the SQL of a damaged file's views and triggers "
                                                 + "(create it again from its definition if you trust it)"))
        }
        do {
            let statement = try SchemaParser.parse(sql)
            guard (statement.kind == .index) == (entry.type == "index") else {
                return .failure(SchemaParser.Refusal(reason: "its schema row holds no CREATE \(entry.type.uppercased()) statement"))
            }
            return .success(statement)
        } catch let refusal as SchemaParser.Refusal {
            return .failure(refusal)
        } catch {
            return .failure(SchemaParser.Refusal(reason: "\(error)"))
        }
    }

    /// Runs the statement Sift wrote for `entry`; why there is none, what it left out and a failure go to `problems`.
    private func create(_ entry: Entry, _ parsed: Result<SchemaStatement, SchemaParser.Refusal>?, on handle: Handle,
                        problems: inout [String]) {
        let statement: SchemaStatement
        switch parsed {
        case nil: return
        case .failure(let refusal)?:
            problems.append("\(entry.type) \(entry.name) was not recreated: \(refusal.reason)")
            return
        case .success(let parsed)?: statement = parsed
        }
        problems += statement.notes.map { "\(entry.type) \(statement.name): \($0)" }
        do {
            try handle.execute(statement.sql)
        } catch {
            problems.append("\(entry.type) \(entry.name) could not be recreated: \((error as? SiftError)?.message ?? "\(error)")")
        }
    }

    /// An identifier double-quoted, quotes doubled byte by byte (Core sits below the query builder's quoting).
    static func quote(_ name: String) -> String { SchemaParser.quote(name) }

    /// The names (lowercased) of the new database's schema objects of `types`.
    static func names(of types: [String], on handle: Handle) throws -> [String] {
        try handle.withStatement("SELECT lower(name) FROM sqlite_master WHERE type IN (\(types.map(SchemaParser.literal).joined(separator: ", ")))") { stmt in
            var names: [String] = []
            while try handle.step(stmt) { names.append(RawStatement.text(stmt, 0)) }
            return names
        }
    }

    static func isVirtual(_ sql: String?) -> Bool {
        guard let sql else { return false }
        return sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE")
    }

    /// The new database's tables (SQLite's own aside), with their `CREATE` statements, in schema order.
    static func tableSQL(on handle: Handle) throws -> [(name: String, sql: String)] {
        try handle.withStatement("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid") { stmt in
            var tables: [(name: String, sql: String)] = []
            while try handle.step(stmt) { tables.append((RawStatement.text(stmt, 0), RawStatement.text(stmt, 1))) }
            return tables
        }
    }

    /// The new database's tables with their columns (virtual tables left out); `copied` says which get rows.
    static func layouts(on handle: Handle, copied: (String) -> Bool) throws -> [Layout] {
        try tableSQL(on: handle).filter { !isVirtual($0.sql) }.map { name, sql in
            var columns = try handle.withStatement("SELECT name, type FROM pragma_table_info(?)") { stmt in
                try handle.bind([FundamentalValue(name)], to: stmt, sql: "")
                var columns: [(String, String)] = []
                while try handle.step(stmt) { columns.append((RawStatement.text(stmt, 0), RawStatement.text(stmt, 1))) }
                return columns
            }
            let withoutRowid = sql.uppercased().range(of: #"\)\s*WITHOUT\s+ROWID"#, options: .regularExpression) != nil
            if withoutRowid {
                // Stored in the primary key's index b-tree: key columns first, then the others (its xinfo's order).
                let stored = try handle.withStatement("SELECT name FROM pragma_index_xinfo((SELECT name FROM pragma_index_list(?1) WHERE origin = 'pk')) WHERE cid >= 0 ORDER BY seqno") { stmt in
                    try handle.bind([FundamentalValue(name)], to: stmt, sql: "")
                    var names: [String] = []
                    while try handle.step(stmt) { names.append(RawStatement.text(stmt, 0)) }
                    return names
                }
                let types = Dictionary(columns.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
                columns = stored.map { ($0, types[$0] ?? "") }
            }
            let alias = withoutRowid ? nil : try handle.integerPrimaryKey(of: name).flatMap { key in columns.firstIndex { $0.0 == key } }
            return Layout(name: name, columnNames: columns.map(\.0), affinities: columns.map { Affinity(declaredType: $0.1) },
                          rowidAlias: alias, withoutRowid: withoutRowid, copied: copied(name))
        }
    }

    /// Writes `row` (its first columns when it has fewer than the table: columns added since take their defaults);
    /// false when the table refused it (a duplicate rowid or a constraint).
    static func insert(_ row: Row, into layout: Layout, on handle: Handle) throws -> Bool {
        let count = min(row.values.count, layout.columnNames.count)
        var names: [String] = []
        var values: [FundamentalValue] = []
        if let rowid = row.rowID, !layout.withoutRowid {
            names.append("rowid")
            values.append(FundamentalValue(rowid))
        }
        for i in 0..<count where i != layout.rowidAlias {
            names.append(Recovery.quote(layout.columnNames[i]))
            values.append(row.values[i])
        }
        let sql = "INSERT OR IGNORE INTO \(Recovery.quote(layout.name))(\(names.joined(separator: ", "))) VALUES(?"
            + String(repeating: ", ?", count: max(0, values.count - 1)) + ")"
        try handle.execute(sql, values)
        return handle.changes > 0
    }

    /// How well `row` fits `layout` (higher is more specific), or nil when a table of that layout cannot have
    /// stored it: more values than columns, a value in the rowid alias, or a number in a TEXT column.
    static func fits(_ row: Row, _ layout: Layout) -> Int? {
        guard row.values.count <= layout.columnNames.count, !row.values.isEmpty else { return nil }
        var score = row.values.count == layout.columnNames.count ? 1 : -1
        for (i, value) in row.values.enumerated() {
            if i == layout.rowidAlias {
                guard value.isNull else { return nil }
                score += 3
                continue
            }
            let affinity = layout.affinities[i]
            switch value.type {
            case .null: break
            case .integer32, .integer64:
                switch affinity {
                case .integer, .numeric: score += 2
                case .real, .blob: score += 1
                case .text: return nil
                }
            case .float:
                switch affinity {
                case .real, .numeric: score += 2
                case .integer, .blob: score += 1
                case .text: return nil
                }
            case .text: score += affinity == .text ? 2 : affinity == .blob ? 1 : 0
            case .BLOB: score += affinity == .blob ? 2 : 1
            }
        }
        return score
    }

    /// The one table whose layout fits nine in ten of `rows` or more with the best score; nil when none does or
    /// two tables of the same shape tie.
    static func bestLayout(for rows: [Row], among layouts: [Layout]) -> Layout? {
        guard !rows.isEmpty else { return nil }
        var best: (layout: Layout, points: Int)?
        var tied = false
        for layout in layouts {
            var score = 0
            var fitting = 0
            for row in rows {
                if let s = fits(row, layout) {
                    score += s
                    fitting += 1
                }
            }
            guard fitting * 10 >= rows.count * 9 else { continue }
            if let current = best, score <= current.points {
                if score == current.points { tied = true }
                continue
            }
            best = (layout, score)
            tied = false
        }
        return tied ? nil : best?.layout
    }
}

/// The damaged file opened read-only through SQLite, when SQLite finds it sound (`quick_check` says ok).
final class SoundFile {
    private let db: OpaquePointer
    let schema: [DatabaseBackup.SchemaEntry]

    /// Opens `path` read-only, through the cipher VFS with `key`; nil when SQLite cannot read it soundly.
    init?(path: String, key: CipherKey? = nil) {
        var db: OpaquePointer?
        let vfs = key == nil ? nil : try? CipherKey.vfsName()
        defer { if key != nil { CipherKey.clearFailure() } }
        guard key == nil || vfs != nil,
              sqlite3_open_v2(key?.uri(for: path) ?? path, &db, SQLITE_OPEN_READONLY | (key == nil ? 0 : SQLITE_OPEN_URI), vfs) == SQLITE_OK,
              let db, key.map({ CipherKey.prepare(db, pageSize: $0.pageSize) }) ?? SQLITE_OK == SQLITE_OK else {
            sqlite3_close_v2(db)
            return nil
        }
        self.db = db
        guard let check = SoundFile.query(db, "PRAGMA quick_check", { RawStatement.text($0, 0) }), check == ["ok"],
              let schema = SoundFile.query(db, "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY rowid", {
                  DatabaseBackup.SchemaEntry(type: RawStatement.text($0, 0), name: RawStatement.text($0, 1), tableName: RawStatement.text($0, 2),
                                             rootPage: Int(sqlite3_column_int64($0, 3)),
                                             sql: sqlite3_column_type($0, 4) == SQLITE_NULL ? nil : RawStatement.text($0, 4))
              }) else {
            sqlite3_close_v2(db)
            return nil
        }
        self.schema = schema
    }

    deinit { sqlite3_close_v2(db) }

    /// Every row of `query`'s result, or nil when it fails.
    private static func query<T>(_ db: OpaquePointer, _ sql: String, _ row: (OpaquePointer) -> T) -> [T]? {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { return nil }
        defer { sqlite3_finalize(stmt) }
        var rows: [T] = []
        while true {
            switch sqlite3_step(stmt) {
            case SQLITE_ROW: rows.append(row(stmt))
            case SQLITE_DONE: return rows
            default: return nil
            }
        }
    }

    /// Calls `body` with each row of the table `layout` describes.
    func rows(of layout: Recovery.Layout, _ body: (Recovery.Row) throws -> Void) throws {
        let columns = layout.columnNames.map(Recovery.quote).joined(separator: ", ")
        let sql = "SELECT \(layout.withoutRowid ? "NULL" : "rowid"), \(columns) FROM \(Recovery.quote(layout.name))"
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw SiftError(code: .error, message: String(cString: sqlite3_errmsg(db)), sql: sql, operation: .prepare)
        }
        defer { sqlite3_finalize(stmt) }
        let count = sqlite3_column_count(stmt)
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else {
                throw SiftError(code: SiftError.Code(rawValue: rc), message: String(cString: sqlite3_errmsg(db)), sql: sql, operation: .step)
            }
            let rowid = layout.withoutRowid ? nil : sqlite3_column_int64(stmt, 0)
            try body(Recovery.Row(rowID: rowid, values: (1..<count).map { RawStatement.value(stmt, $0) }))
        }
    }
}

/// Reading a damaged file's pages: which pages the b-trees claim, and what is left.
struct PageSource {
    let file: PageFile
    /// Pages already read as part of a b-tree (or as an overflow page of one of its cells).
    private(set) var claimed: Set<Int> = []
    /// Overflow pages already followed for a cell, readable or not: none is read twice.
    private var chained: Set<Int> = []

    init(file: PageFile) { self.file = file }

    /// The rows of `sqlite_schema` (page 1's b-tree), and whether every page of that tree could be read.
    mutating func schema() -> (entries: [DatabaseBackup.SchemaEntry], complete: Bool) {
        var complete = file.kind(of: 1) != nil
        var entries: [DatabaseBackup.SchemaEntry] = []
        for row in rows(ofTableAt: 1, withoutRowid: false, complete: &complete) {
            let v = row.values
            guard v.count == 5, v[0].type == .text, v[1].type == .text, v[2].type == .text, v[3].type == .integer64 || v[3].isNull,
                  v[4].type == .text || v[4].isNull else {
                complete = false
                continue
            }
            entries.append(DatabaseBackup.SchemaEntry(type: v[0].stringValue, name: v[1].stringValue, tableName: v[2].stringValue,
                                                      rootPage: Int(v[3].int64Value), sql: v[4].isNull ? nil : v[4].stringValue))
        }
        return (entries, complete)
    }

    /// The rows of the table b-tree rooted at `root` that can be read (a WITHOUT ROWID table's is an index b-tree,
    /// whose interior pages hold rows too; they have no rowid).
    mutating func rows(ofTableAt root: Int, withoutRowid: Bool) -> [Recovery.Row] {
        var complete = true
        return rows(ofTableAt: root, withoutRowid: withoutRowid, complete: &complete)
    }

    private mutating func rows(ofTableAt root: Int, withoutRowid: Bool, complete: inout Bool) -> [Recovery.Row] {
        guard withoutRowid else {
            return walk(from: root, interior: .tableInterior, leaf: .tableLeaf, complete: &complete).flatMap { rows(ofLeaf: $0) }
        }
        var pages: [Int] = []
        _ = walk(from: root, interior: .indexInterior, leaf: .indexLeaf, complete: &complete, visited: &pages)
        return pages.flatMap { rows(ofLeaf: $0).map { Recovery.Row(rowID: nil, values: $0.values, isPartial: $0.isPartial) } }
    }

    /// Marks the pages of the index b-tree rooted at `root` as read (indexes are rebuilt, not copied).
    mutating func claimIndex(at root: Int) {
        var complete = true
        _ = walk(from: root, interior: .indexInterior, leaf: .indexLeaf, complete: &complete)
    }

    /// The leaf pages of the b-tree rooted at `root`, in key order; its pages become claimed.
    private mutating func walk(from root: Int, interior: PageFile.PageKind, leaf: PageFile.PageKind, complete: inout Bool) -> [Int] {
        var all: [Int] = []
        return walk(from: root, interior: interior, leaf: leaf, complete: &complete, visited: &all)
    }

    /// As above; `visited` also gets the interior pages.
    private mutating func walk(from root: Int, interior: PageFile.PageKind, leaf: PageFile.PageKind, complete: inout Bool,
                               visited: inout [Int]) -> [Int] {
        var leaves: [Int] = []
        var stack = [root]
        while let page = stack.popLast() {
            guard !claimed.contains(page), let kind = file.kind(of: page) else {
                complete = false
                continue
            }
            if kind == interior, let children = file.children(of: page) {
                claimed.insert(page)
                visited.append(page)
                stack += children.reversed()
            } else if kind == leaf {
                claimed.insert(page)
                visited.append(page)
                leaves.append(page)
            } else {
                complete = false
            }
        }
        return leaves
    }

    /// The rows of one table leaf page (or index page) whose records can be read; their overflow pages become claimed.
    mutating func rows(ofLeaf page: Int) -> [Recovery.Row] {
        guard let leaf = file.cells(of: page, chained: &chained) else { return [] }
        claimed.insert(page)
        return leaf.cells.compactMap { cell in
            guard let record = file.values(ofRecord: cell.payload, size: cell.payloadSize) else { return nil }
            claimed.formUnion(cell.overflowPages)
            return Recovery.Row(rowID: cell.rowID, values: record.values, isPartial: record.isPartial)
        }
    }

    /// Table leaf pages that no b-tree walked so far reached, freed pages aside: a page freed without
    /// `secure_delete` keeps the rows it held, and they were deleted.
    func orphanLeaves() -> [Int] {
        let free = file.freelistPages()
        return file.pageCount < 1 ? [] : (1...file.pageCount).filter { !claimed.contains($0) && !free.contains($0) && file.kind(of: $0) == .tableLeaf }
    }

    /// Pages whose content could not be read: neither claimed by a b-tree, nor a b-tree page, nor on the freelist,
    /// and every page past the end of a truncated file.
    func lostPages() -> [Int] {
        guard file.declaredPageCount >= 1 else { return [] }
        let free = file.freelistPages()
        return (1...file.declaredPageCount).filter { page in
            page > file.pageCount || (!claimed.contains(page) && !free.contains(page) && file.kind(of: page) == nil)
        }
    }
}
