import CSQLite
import Foundation

/// One hit of the raw search baseline, materialized into a struct: what a search API returns (the row, a
/// highlighted field, the score). Not Sift's `SearchHit<Object>`, which the Sift candidate gets.
struct RawSearchHit: Sendable {
    var id: Int64
    var title: String
    var body: String
    var highlightedBody: String
    var score: Double
}

/// Hand-written code on the SQLite C API: the physical limit every Sift figure is a ratio against.
/// Prepared statements are reused, text is bound with SQLITE_STATIC from the String's own UTF-8 storage (no
/// copy, no allocation per row), each load is one transaction.
enum RawBaselines {
    // MARK: Schemas

    static let itemsSchema = """
        CREATE TABLE items(id INTEGER PRIMARY KEY, number INTEGER, score REAL, name TEXT, note TEXT, \
        created INTEGER)
        """
    static let docsSchema = "CREATE TABLE docs(id INTEGER PRIMARY KEY, title TEXT, body TEXT)"
    static let ftsSchema = """
        CREATE VIRTUAL TABLE fts USING fts5(title, body, content='docs', content_rowid='id', \
        tokenize='unicode61')
        """
    /// What GRDB's `synchronize(withTable:)` generates for inserts.
    static let insertTrigger = """
        CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
          INSERT INTO fts(rowid, title, body) VALUES (new.id, new.title, new.body);
        END
        """

    static func createItemsTable(_ db: RawDatabase) throws {
        try db.execute(itemsSchema)
    }

    static func createDocsTables(_ db: RawDatabase, trigger: Bool = false) throws {
        try db.execute(docsSchema)
        try db.execute(ftsSchema)
        if trigger { try db.execute(insertTrigger) }
    }

    // MARK: 1. Insert 6-column rows

    static func insertRecords(_ records: [BenchRecord], into db: RawDatabase) throws {
        try db.transaction {
            let insert = try db.prepare(
                "INSERT INTO items(id, number, score, name, note, created) VALUES (?, ?, ?, ?, ?, ?)")
            let stmt = insert.handle
            let STATIC = sift_sqlite_static()
            for record in records {
                sqlite3_bind_int64(stmt, 1, record.id)
                sqlite3_bind_int64(stmt, 2, record.number)
                sqlite3_bind_double(stmt, 3, record.score)
                sqlite3_bind_int64(stmt, 6, Int64(record.created.timeIntervalSince1970))
                try withUTF8Text(record.name) { name, nameLength in
                    sqlite3_bind_text(stmt, 4, name, nameLength, STATIC)
                    try withUTF8Text(record.note) { note, noteLength in
                        sqlite3_bind_text(stmt, 5, note, noteLength, STATIC)
                        try insert.run()
                    }
                }
            }
        }
    }

    // MARK: 2. Fetch 6-column rows into structs

    static func fetchRecords(from db: RawDatabase) throws -> [BenchRecord] {
        let select = try db.prepare("SELECT id, number, score, name, note, created FROM items")
        let stmt = select.handle
        var records: [BenchRecord] = []
        while try select.step() {
            records.append(BenchRecord(
                id: sqlite3_column_int64(stmt, 0),
                number: sqlite3_column_int64(stmt, 1),
                score: sqlite3_column_double(stmt, 2),
                name: columnText(stmt, 3),
                note: columnText(stmt, 4),
                created: Date(timeIntervalSince1970: Double(sqlite3_column_int64(stmt, 5)))))
        }
        return records
    }

    // MARK: 3. Full-text indexing, three ways of keeping `fts` in sync with `docs`

    /// Per document: INSERT into `docs`, then INSERT the same text into `fts`. One transaction.
    static func insertDocumentsExplicit(_ documents: [BenchDocument], into db: RawDatabase) throws {
        try db.transaction {
            let content = try db.prepare("INSERT INTO docs(id, title, body) VALUES (?, ?, ?)")
            let index = try db.prepare("INSERT INTO fts(rowid, title, body) VALUES (?, ?, ?)")
            let STATIC = sift_sqlite_static()
            for document in documents {
                try withUTF8Text(document.title) { title, titleLength in
                    try withUTF8Text(document.body) { body, bodyLength in
                        sqlite3_bind_int64(content.handle, 1, document.id)
                        sqlite3_bind_text(content.handle, 2, title, titleLength, STATIC)
                        sqlite3_bind_text(content.handle, 3, body, bodyLength, STATIC)
                        try content.run()
                        sqlite3_bind_int64(index.handle, 1, document.id)
                        sqlite3_bind_text(index.handle, 2, title, titleLength, STATIC)
                        sqlite3_bind_text(index.handle, 3, body, bodyLength, STATIC)
                        try index.run()
                    }
                }
            }
        }
    }

    /// INSERT into `docs` only: with `insertTrigger` installed, the trigger feeds `fts`; without it, this is
    /// the content-only floor (and the first half of the rebuild strategy).
    static func insertDocumentsContentOnly(_ documents: [BenchDocument], into db: RawDatabase) throws {
        let content = try db.prepare("INSERT INTO docs(id, title, body) VALUES (?, ?, ?)")
        let stmt = content.handle
        let STATIC = sift_sqlite_static()
        for document in documents {
            sqlite3_bind_int64(stmt, 1, document.id)
            try withUTF8Text(document.title) { title, titleLength in
                sqlite3_bind_text(stmt, 2, title, titleLength, STATIC)
                try withUTF8Text(document.body) { body, bodyLength in
                    sqlite3_bind_text(stmt, 3, body, bodyLength, STATIC)
                    try content.run()
                }
            }
        }
    }

    /// Bulk strategy: all content first, then one `'rebuild'` of the index. One transaction.
    static func insertDocumentsThenRebuild(_ documents: [BenchDocument], into db: RawDatabase) throws {
        try db.transaction {
            try insertDocumentsContentOnly(documents, into: db)
            try db.execute("INSERT INTO fts(fts) VALUES('rebuild')")
        }
    }

    /// Checks that `fts` indexes exactly `docs` (FTS5 integrity-check against the content, and the counts).
    static func verifyIndex(_ db: RawDatabase, expectedCount: Int) throws {
        let documents = try db.integer("SELECT count(*) FROM docs")
        guard documents == expectedCount else {
            throw BenchError.checkFailed("docs has \(documents) rows, expected \(expectedCount)")
        }
        try db.execute("INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)")
    }

    // MARK: 4. Searches

    /// The fastest hand-written form: `ORDER BY rank` (bm25 by default) lets FTS5 sort inside the virtual
    /// table, so the join and `highlight()` run for the 20 returned rows only (~40% faster than below).
    static let searchSQL = """
        SELECT d.id, d.title, d.body, highlight(fts, 1, '[', ']'), bm25(fts) FROM fts JOIN docs d ON d.id = fts.rowid \
        WHERE fts MATCH ? ORDER BY rank LIMIT 20
        """
    /// The same rows via `ORDER BY bm25(fts)`: SQLite joins and highlights every match, then sorts them in a
    /// temporary b-tree. Kept as a reference for what a naive query costs.
    static let searchSQLOrderByFunction = """
        SELECT d.id, d.title, d.body, highlight(fts, 1, '[', ']'), bm25(fts) FROM fts JOIN docs d ON d.id = fts.rowid \
        WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 20
        """

    /// What a set of searches returned: the number of hits and an order-sensitive checksum of their ids, so
    /// two implementations can be checked for returning the same rows in the same order.
    struct SearchDigest: Equatable, CustomStringConvertible {
        var hits = 0
        var checksum: Int64 = 0

        mutating func add(id: Int64) {
            hits += 1
            checksum = checksum &* 1_000_003 &+ id
        }

        var description: String { "\(hits) hits, checksum \(checksum)" }
    }

    /// Runs every query (bare words: FTS5's implicit AND) with one prepared statement, materializing the top
    /// 20 hits of each into `RawSearchHit`s.
    static func search(_ queries: [String], in db: RawDatabase, sql: String = searchSQL) throws -> SearchDigest {
        let select = try db.prepare(sql)
        let stmt = select.handle
        let STATIC = sift_sqlite_static()
        var hits: [RawSearchHit] = []
        hits.reserveCapacity(20)
        var digest = SearchDigest()
        for query in queries {
            hits.removeAll(keepingCapacity: true)
            try withUTF8Text(query) { text, length in
                sqlite3_bind_text(stmt, 1, text, length, STATIC)
                defer { select.reset() }
                while try select.step() {
                    hits.append(RawSearchHit(
                        id: sqlite3_column_int64(stmt, 0),
                        title: columnText(stmt, 1),
                        body: columnText(stmt, 2),
                        highlightedBody: columnText(stmt, 3),
                        score: sqlite3_column_double(stmt, 4)))
                }
            }
            for hit in hits { digest.add(id: hit.id) }
        }
        return digest
    }

    // MARK: 5. Tokenizer throughput

    /// A contentless FTS5 table with one column tokenized by `tokenize` (an FTS5 `tokenize=` argument).
    static func createTokenizerTable(_ db: RawDatabase, tokenize: String) throws {
        let quoted = tokenize.replacingOccurrences(of: "'", with: "''")
        try db.execute("CREATE VIRTUAL TABLE t USING fts5(body, content='', tokenize='\(quoted)')")
    }

    /// Indexes every text into the table of `createTokenizerTable`, in one transaction.
    static func indexTexts(_ texts: [String], into db: RawDatabase) throws {
        try db.transaction {
            let insert = try db.prepare("INSERT INTO t(rowid, body) VALUES (?, ?)")
            let stmt = insert.handle
            let STATIC = sift_sqlite_static()
            for (index, text) in texts.enumerated() {
                sqlite3_bind_int64(stmt, 1, Int64(index + 1))
                try withUTF8Text(text) { pointer, length in
                    sqlite3_bind_text(stmt, 2, pointer, length, STATIC)
                    try insert.run()
                }
            }
        }
    }
}
