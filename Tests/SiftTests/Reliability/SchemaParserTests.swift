import CSQLite
import Foundation
import XCTest
@testable import Sift

/// The parser that writes a damaged file's CREATE statements again for recovery: what SQLite and Sift write comes
/// back the same, hostile statements are refused or lose only the part that would run something.
final class SchemaParserTests: SiftTestCase {
    private func refusal(_ sql: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let statement = try SchemaParser.parse(sql)
            XCTFail("accepted: \(statement.sql.prefix(200))", file: file, line: line)
            return ""
        } catch {
            return (error as? SchemaParser.Refusal)?.reason ?? "\(error)"
        }
    }

    /// The objects of the database at `path` as SQLite describes them (columns, declared types, defaults, keys,
    /// indexes, foreign keys, WITHOUT ROWID and STRICT), whitespace aside: what recovery must give back.
    private func describe(_ path: String) throws -> [String] {
        let database = Database(withPath: path)
        defer { database.close() }
        var lines: [String] = []
        let text = { (rows: [[FundamentalValue]]) in rows.map { $0.map { $0.isNull ? "NULL" : $0.stringValue }.joined(separator: "|") } }
        let objects = try database.getRows(sql: """
            SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite%' AND type IN ('table', 'index')
            AND NOT EXISTS (SELECT 1 FROM sqlite_master v WHERE v.sql LIKE 'CREATE VIRTUAL%' AND sqlite_master.tbl_name LIKE v.name || '\\_%' ESCAPE '\\')
            ORDER BY name
            """).map { ($0[0].stringValue, $0[1].stringValue) }
        for (type, name) in objects {
            if type == "table" {
                lines += text(try database.getRows(sql: "SELECT type, ncol, wr, strict FROM pragma_table_list(?)", values: [name])).map { "\(name) list \($0)" }
                lines += text(try database.getRows(sql: "SELECT cid, name, type, \"notnull\", replace(dflt_value, ' ', ''), pk, hidden FROM pragma_table_xinfo(?)",
                                                   values: [name])).map { "\(name) column \($0)" }
                lines += text(try database.getRows(sql: "SELECT \"unique\", origin, partial FROM pragma_index_list(?) ORDER BY name", values: [name]))
                    .map { "\(name) index \($0)" }
                lines += text(try database.getRows(sql: "SELECT id, seq, \"table\", \"from\", \"to\", on_update, on_delete, match FROM pragma_foreign_key_list(?)",
                                                   values: [name])).map { "\(name) foreign key \($0)" }
            } else {
                lines += text(try database.getRows(sql: "SELECT seqno, cid, name, desc, coll, key FROM pragma_index_xinfo(?)", values: [name]))
                    .map { "\(name) indexes \($0)" }
            }
        }
        return lines
    }

    /// Runs `statements` in a new database, then recreates its schema rows from what the parser writes in
    /// another, and compares the two.
    private func assertRecreatedAlike(_ statements: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let original = makeDatabase("original.db")
        for sql in statements { try original.exec(sql: sql) }
        let rows = try original.getRows(sql: """
            SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') AND name NOT LIKE 'sqlite%'
            AND NOT EXISTS (SELECT 1 FROM sqlite_master v WHERE v.sql LIKE 'CREATE VIRTUAL%' AND sqlite_master.tbl_name LIKE v.name || '\\_%' ESCAPE '\\')
            ORDER BY rowid
            """)
        original.close()
        let copy = makeDatabase("copy.db")
        for row in rows {
            let statement = try SchemaParser.parse(row[1].stringValue)
            XCTAssertEqual(statement.notes, [], row[1].stringValue, file: file, line: line)
            XCTAssertEqual(try SchemaParser.parse(statement.sql).sql, statement.sql, "written again, it reads the same", file: file, line: line)
            try copy.exec(sql: statement.sql)
        }
        copy.close()
        let expected = try describe(original.path), actual = try describe(copy.path)
        XCTAssertGreaterThan(expected.count, statements.count, file: file, line: line)
        XCTAssertEqual(actual, expected, file: file, line: line)
        try original.removeFiles()
        try copy.removeFiles()
    }

    func testSchemasWrittenBySQLiteAreRecreatedAlike() throws {
        try assertRecreatedAlike([
            """
            CREATE TABLE plain(a, b INTEGER, c VARCHAR(255) NOT NULL DEFAULT 'it''s', d DECIMAL(10, 2) DEFAULT -1.5, -- a comment
              e BLOB DEFAULT x'00ff', f TEXT COLLATE NOCASE UNIQUE, g REAL CHECK (g > 0 AND g < 100) /* another */,
              h INT DEFAULT CURRENT_TIMESTAMP, i UNSIGNED BIG INT NULL, j TEXT DEFAULT (upper('x') || 'y'), k DEFAULT +7, l DEFAULT TRUE)
            """,
            #"CREATE TABLE IF NOT EXISTS "quoted ""name"""([weird col] TEXT PRIMARY KEY ASC ON CONFLICT REPLACE, `back``tick` INT) WITHOUT ROWID"#,
            #"""
            CREATE TABLE main.child(id INTEGER PRIMARY KEY AUTOINCREMENT, parent INTEGER REFERENCES plain(a) ON DELETE CASCADE
              DEFERRABLE INITIALLY DEFERRED NOT NULL, other TEXT, CONSTRAINT u UNIQUE (parent, id DESC) ON CONFLICT IGNORE
              FOREIGN KEY (other) REFERENCES "quoted ""name"""([weird col]) ON UPDATE SET NULL MATCH FULL,
              CHECK (length(other) < 10 AND other NOT IN ('a', 'b') AND CAST(parent AS INTEGER) BETWEEN 0 AND 9))
            """#,
            "CREATE TABLE s(x INT, y TEXT, z ANY, PRIMARY KEY(y COLLATE NOCASE, x)) STRICT, WITHOUT ROWID",
            "CREATE TABLE gen(a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) STORED, c AS (abs(a)) VIRTUAL)",
            "CREATE TABLE 'string name'('string column' TEXT, CASE_sensitive Text)",
            "CREATE INDEX plain_b ON plain(b DESC, c COLLATE NOCASE)",
            "CREATE UNIQUE INDEX IF NOT EXISTS child_parent ON child(parent) WHERE parent IS NOT NULL AND parent > 0",
            "CREATE INDEX expression ON plain(lower(c), b + 1, substr(f, 1, 2) COLLATE RTRIM DESC)",
            """
            CREATE VIRTUAL TABLE docs_fts USING fts5(f, c UNINDEXED, content='plain', content_rowid='a',
              tokenize = "porter unicode61 remove_diacritics 2 tokenchars '-_'", prefix='2 3', detail=column)
            """,
        ])
    }

    func testSchemasWrittenBySiftAreRecreatedAlike() throws {
        let database = makeDatabase("sift.db")
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", mode: .trigger)
        try database.create(table: "message", of: RepairMessage.self)
        let statements = try database.getRows(sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') ORDER BY rowid")
            .map { $0[0].stringValue }
        database.close()
        try assertRecreatedAlike(statements.filter { !$0.contains("articles_fts_") } + [
            // The impacts tables of TopKImpacts.
            """
            CREATE TABLE "sift_impacts_meta"(id INTEGER PRIMARY KEY CHECK (id = 1), watermark INTEGER NOT NULL, \
            block INTEGER NOT NULL, valid INTEGER NOT NULL, columns INTEGER NOT NULL, built_rows INTEGER NOT NULL, \
            chunk_blocks INTEGER NOT NULL, layout INTEGER NOT NULL)
            """,
            """
            CREATE TABLE "sift_impacts_terms"(term TEXT NOT NULL, chunk INTEGER NOT NULL, df INTEGER NOT NULL, \
            cf INTEGER NOT NULL, blocks BLOB NOT NULL, postings BLOB NOT NULL DEFAULT x'', UNIQUE (term, chunk))
            """,
            "CREATE TABLE \"sift_impacts_changes\"(term TEXT NOT NULL, rowid INTEGER NOT NULL, counts BLOB NOT NULL, PRIMARY KEY (term, rowid)) WITHOUT ROWID",
            "CREATE TABLE IF NOT EXISTS sift_schema_versions(table_name TEXT PRIMARY KEY, version INTEGER NOT NULL)",
        ])
        let fts = try SchemaParser.parse(try XCTUnwrap(statements.first { $0.hasPrefix("CREATE VIRTUAL") }))
        XCTAssertEqual(fts.kind, .virtualTable)
        XCTAssertTrue(fts.sql.contains("content='articles'"), fts.sql)
    }

    /// Names are written double-quoted whatever they hold: a name cannot end the statement early.
    func testNamesAreQuoted() throws {
        let statement = try SchemaParser.parse(#"CREATE TABLE [x"); DROP TABLE y; --]("a""b" TEXT, `c"` INT)"#)
        XCTAssertEqual(statement.name, #"x"); DROP TABLE y; --"#)
        XCTAssertEqual(statement.sql, #"CREATE TABLE "x""); DROP TABLE y; --"("a""b" TEXT, "c""" INT)"#)
        let database = makeDatabase()
        try database.exec(sql: "CREATE TABLE y(z)")
        try database.exec(sql: statement.sql)
        XCTAssertEqual(try database.getRows(sql: "SELECT name FROM sqlite_master ORDER BY name").map { $0[0].stringValue },
                       [#"x"); DROP TABLE y; --"#, "y"])
    }

    /// What recovery must never run: a query, a function that allocates or loads, SQL hidden in a name or a literal.
    func testStatementsThatWouldRunSomethingAreRefused() {
        XCTAssertTrue(refusal("CREATE TABLE x AS SELECT 1").contains("CREATE TABLE ... AS"))
        XCTAssertTrue(refusal("""
            CREATE TABLE x AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c
            """).contains("CREATE TABLE ... AS"))
        XCTAssertTrue(refusal("CREATE TABLE x(a) AS SELECT 1").contains("goes on after its end"))
        XCTAssertTrue(refusal("CREATE TABLE x(a); DROP TABLE y").contains("goes on after its end"))
        XCTAssertTrue(refusal("CREATE TABLE x(a GENERATED ALWAYS AS (zeroblob(1000000000)))").contains("calls zeroblob()"))
        XCTAssertTrue(refusal("CREATE TABLE x(a AS ((SELECT count(*) FROM y)))").contains("uses SELECT"))
        XCTAssertTrue(refusal("CREATE TEMP TABLE x(a)").contains("temporary"))
        XCTAssertTrue(refusal("CREATE TABLE aux.x(a)").contains("another schema"))
        XCTAssertTrue(refusal("CREATE VIRTUAL TABLE x USING fts4(a)").contains("not FTS5"))
        XCTAssertTrue(refusal("CREATE VIRTUAL TABLE x USING rtree(id, a, b)").contains("not FTS5"))
        XCTAssertTrue(refusal("CREATE VIRTUAL TABLE x USING fts5(a, rank='bm25(1)')").contains("no option rank"))
        XCTAssertTrue(refusal("CREATE VIRTUAL TABLE x USING fts5(a b c)").contains("neither a column nor an option"))
        XCTAssertTrue(refusal("CREATE VIRTUAL TABLE x USING fts5(a, tokenize=(SELECT 1))").contains("neither a column nor an option"))
        XCTAssertTrue(refusal("CREATE INDEX i ON t((SELECT 1))").contains("uses SELECT"))
        XCTAssertTrue(refusal("CREATE INDEX i ON t(randomblob(a))").contains("calls randomblob()"))
        XCTAssertTrue(refusal("CREATE INDEX i ON t(a) WHERE a IN (SELECT b FROM u)").contains("uses SELECT"))
        XCTAssertTrue(refusal("CREATE INDEX i ON t(a) WHERE a IN u").contains("reads a table"))
        XCTAssertTrue(refusal("CREATE VIEW v AS SELECT 1").contains("not a CREATE TABLE"))
        XCTAssertTrue(refusal("CREATE TRIGGER g AFTER INSERT ON t BEGIN DELETE FROM t; END").contains("not a CREATE TABLE"))
        XCTAssertTrue(refusal("PRAGMA user_version = 1").contains("CREATE expected"))
        XCTAssertTrue(refusal("CREATE TABLE x(a DEFAULT ?)").contains("does not allow"))
        XCTAssertTrue(refusal("CREATE TABLE x(a DEFAULT :name)").contains("does not allow"))
    }

    /// A constraint or default that would run something is left out, named in the notes; the table keeps the rest.
    func testUnsafeConstraintsAndDefaultsAreLeftOut() throws {
        let statement = try SchemaParser.parse("""
            CREATE TABLE t(a DEFAULT (randomblob(1000000000)), b CHECK (zeroblob(b) > 0), c INTEGER NOT NULL CHECK (c > 0),
              d CHECK (load_extension('/tmp/x.so')), e CHECK ("length"(e)), f CHECK (printf('%.*c', 1000000000, 'x') IS NOT NULL),
              g CHECK (g -> '$.x'), h CHECK (RAISE(IGNORE)), i CHECK (i IN (SELECT 1)), j CHECK (EXISTS (SELECT 1)),
              CHECK (a IN t2), CONSTRAINT named CHECK (c < 10))
            """)
        XCTAssertEqual(statement.sql, #"""
            CREATE TABLE "t"("a", "b", "c" INTEGER NOT NULL CHECK("c" > 0), "d", "e", "f", "g", "h", "i", "j", CONSTRAINT "named" CHECK("c" < 10))
            """#)
        XCTAssertEqual(statement.notes, [
            "column a: DEFAULT left out: calls randomblob()", "column b: CHECK constraint left out: calls zeroblob()",
            "column d: CHECK constraint left out: calls load_extension()",
            "column e: CHECK constraint left out: calls a function by a quoted name",
            "column f: CHECK constraint left out: calls printf()", "column g: CHECK constraint left out: uses the operator ->",
            "column h: CHECK constraint left out: uses RAISE", "column i: CHECK constraint left out: uses SELECT",
            "column j: CHECK constraint left out: uses EXISTS", "CHECK constraint left out: reads a table (IN without a list)",
        ])
    }

    /// Malformed, huge and deeply nested statements are refused quickly, never a trap or a deep recursion.
    func testMalformedHugeAndNestedStatementsAreRefused() {
        XCTAssertTrue(refusal("CREATE TABLE 'x(a)").contains("unterminated quote"))
        XCTAssertTrue(refusal("CREATE TABLE \"x(a)").contains("unterminated quote"))
        XCTAssertTrue(refusal("CREATE TABLE [x(a)").contains("unterminated quote"))
        XCTAssertTrue(refusal("CREATE TABLE x(a DEFAULT x'0')").contains("malformed blob"))
        XCTAssertTrue(refusal("CREATE TABLE x(a DEFAULT 12abc)").contains("malformed number"))
        XCTAssertTrue(refusal("CREATE TABLE x(a CHECK (a > 0)").contains(") expected, the end found"))
        XCTAssertTrue(refusal("CREATE TABLE x(a CHECK ((a > 0)").contains("unclosed parenthesis"))
        XCTAssertTrue(refusal("CREATE TABLE x(a").contains("expected"))
        XCTAssertTrue(refusal("").contains("CREATE expected"))
        XCTAssertTrue(refusal("CREATE").contains("not a CREATE TABLE"))
        let deep = "CREATE TABLE x(a CHECK (" + String(repeating: "(", count: 100_000) + "1" + String(repeating: ")", count: 100_000) + "))"
        XCTAssertTrue(refusal(deep).contains("deeper than \(SchemaParser.maximumDepth)"))
        let huge = "CREATE TABLE x(" + (0..<200_000).map { "c\($0)" }.joined(separator: ", ") + ")"
        XCTAssertTrue(refusal(huge).contains("longer than"))
        XCTAssertEqual(try? SchemaParser.parse("CREATE TABLE x(a) /* a comment SQLite lets run to the end").sql, #"CREATE TABLE "x"("a")"#)
    }

    /// Valid statements with random pieces of SQL inserted and random spans cut out: the parser never traps, and
    /// what it accepts reads back the same and holds no query and none of the refused functions.
    func testMutatedStatementsNeverTrap() throws {
        let statements = [
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x', c REAL CHECK (c > 0), UNIQUE (b, c)) WITHOUT ROWID",
            "CREATE UNIQUE INDEX i ON t(b COLLATE NOCASE DESC, lower(c)) WHERE c IS NOT NULL",
            "CREATE VIRTUAL TABLE f USING fts5(title, body UNINDEXED, content='t', tokenize='porter unicode61')",
            "CREATE TABLE u(x REFERENCES t(a) ON DELETE CASCADE, y AS (x * 2) STORED, z DEFAULT (abs(-1)))",
        ]
        let pieces = ["(", ")", ",", "AS", "SELECT 1", "WITH RECURSIVE c(i) AS (SELECT 1)", "zeroblob(1e9)", "randomblob(5)",
                      "'", "\"", "[", "`", "x'0", "--", "/*", ";", "CHECK", "DEFAULT", "(((", ")))", "1", "-", "||", "IN t",
                      "GENERATED ALWAYS AS (", "USING fts4(", "x", "\u{0}", "é", "?"]
        var generator = SplitMix(seed: 41)
        var accepted = 0
        for round in 0..<4_000 {
            var sql = Array(statements[round % statements.count].unicodeScalars)
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let at = Int(generator.next() % UInt64(sql.count + 1))
                if generator.next() % 2 == 0 {
                    sql.insert(contentsOf: pieces[Int(generator.next() % UInt64(pieces.count))].unicodeScalars, at: at)
                } else {
                    sql.removeSubrange(at..<min(sql.count, at + Int(generator.next() % 6)))
                }
            }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: sql)
            guard let statement = try? SchemaParser.parse(String(text)) else { continue }
            accepted += 1
            XCTAssertEqual(try SchemaParser.parse(statement.sql).sql, statement.sql, String(text))
            let tokens = try SchemaParser.Lexer.tokens(of: statement.sql)
            XCTAssertFalse(tokens.contains { $0.isWord("SELECT") || $0.isWord("WITH") }, String(text))
            // A refused function's name may only be a declared type (after a column's quoted name), never a call.
            for i in tokens.indices.dropFirst() where tokens[i].isWord("ZEROBLOB") || tokens[i].isWord("RANDOMBLOB") {
                XCTAssertEqual(tokens[i - 1].kind, .quoted, String(text))
            }
        }
        print("mutated schema statements: 4000, accepted \(accepted)")
        XCTAssertGreaterThan(accepted, 400)
    }
}
