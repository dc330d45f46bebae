import Foundation
import XCTest
import Sift

final class ExpressionTests: XCTestCase {
    typealias P = CRUD.Sample.Properties

    private func check(_ expression: SQLExpression, _ sql: String, line: UInt = #line) {
        XCTAssertEqual(expression.description, sql, line: line)
    }

    func testOperatorsRenderSQL() {
        let id = P.identifier, d = P.description
        check(-id, "-identifier")
        check(!id, "NOT identifier")
        check(~id, "~identifier")
        check(id || d, "identifier OR description")
        check(id && d, "identifier AND description")
        check(id + 1, "identifier + 1")
        check(id - 1, "identifier - 1")
        check(id * 2, "identifier * 2")
        check(id / 2, "identifier / 2")
        check(id % 2, "identifier % 2")
        check(id | 1, "identifier | 1")
        check(id & 1, "identifier & 1")
        check(id << 1, "identifier << 1")
        check(id >> 1, "identifier >> 1")
        check(id < 1, "identifier < 1")
        check(id <= 1, "identifier <= 1")
        check(id == 1, "identifier = 1")
        check(id != 1, "identifier != 1")
        check(id > 1, "identifier > 1")
        check(id >= 1, "identifier >= 1")
        check(id.in(1, 2, 3), "identifier IN(1, 2, 3)")
        check(id.notIn([1, 2]), "identifier NOT IN(1, 2)")
        check(id.between(10, 20), "identifier BETWEEN 10 AND 20")
        check(id.notBetween(1, 2), "identifier NOT BETWEEN 1 AND 2")
        check(d.like("Hello%"), "description LIKE 'Hello%'")
        check(d.glob("H*"), "description GLOB 'H*'")
        check(d.match("fts"), "description MATCH 'fts'")
        check(d.regexp("^a"), "description REGEXP '^a'")
        check(d.isNull(), "description IS NULL")
        check(d.isNotNull(), "description IS NOT NULL")
        check(d.collate("NOCASE") == "a", "description COLLATE NOCASE = 'a'")
        check(id.avg(), "avg(identifier)")
        check(id.count(), "count(identifier)")
        check(id.count(isDistinct: true), "count(DISTINCT identifier)")
        check(id.max(), "max(identifier)")
        check(id.min(), "min(identifier)")
        check(id.sum(), "sum(identifier)")
        check(id.total(), "total(identifier)")
        check(d.groupConcat(), "group_concat(description)")
        check(d.groupConcat(separateBy: ";"), "group_concat(description, ';')")
        check(Column.all.count(), "count(*)")
        check(id.inTable("message") == 1, "message.identifier = 1")
        check(id > 1 && d.isNotNull(), "(identifier > 1) AND (description IS NOT NULL)")
        check(id < 5 || id > 10, "(identifier < 5) OR (identifier > 10)")
        check((id + 1) * 2, "(identifier + 1) * 2")
        check(id == nil as Int?, "identifier = NULL")
        check(d.concat("!"), "description || '!'")
        check(id.isNot(1), "identifier IS NOT 1")
        check(id.is(nil as Int?), "identifier IS NULL")
        check(d.notLike("a%"), "description NOT LIKE 'a%'")
        XCTAssertEqual(id.asOrder(by: .descending).description, "identifier DESC")
        XCTAssertEqual(P.all.map(\.description), ["identifier", "description"])
    }

    func testValuesAreBoundNotSpliced() {
        let hostile = "x' OR 1=1; DROP TABLE sampleTable; --"
        let select = StatementSelect().select(P.identifier).from("sampleTable").where(P.description == hostile).limit(3)
        XCTAssertEqual(select.statementSQL.sql, "SELECT identifier FROM sampleTable WHERE description = ? LIMIT ?")
        XCTAssertEqual(select.statementSQL.values, [FundamentalValue(hostile), FundamentalValue(3)])
        XCTAssertEqual(select.description,
                       "SELECT identifier FROM sampleTable WHERE description = 'x'' OR 1=1; DROP TABLE sampleTable; --' LIMIT 3")
    }

    func testIdentifiersAreQuotedWhenNeeded() {
        XCTAssertEqual(Column(named: "offset").description, "\"offset\"")
        XCTAssertEqual(Column(named: "a\"b").description, "\"a\"\"b\"")
        XCTAssertEqual(StatementDelete().delete(fromTable: "t; DROP TABLE x").description, "DELETE FROM \"t; DROP TABLE x\"")
        XCTAssertEqual(Column(named: "plain_name1").description, "plain_name1")
    }

    func testStatementLayer() throws {
        XCTAssertEqual(StatementInsert().insert(intoTable: "t", with: [Column(named: "a"), Column(named: "b")], onConflict: .replace)
                        .values(1, "x").description, "INSERT OR REPLACE INTO t(a, b) VALUES(1, 'x')")
        XCTAssertEqual(StatementUpdate().update(table: "t").set(Column(named: "a"), to: 2).where(Column(named: "b") > 1)
                        .order(by: Column(named: "b").asOrder()).limit(1).description,
                       "UPDATE t SET a = 2 WHERE b > 1 ORDER BY b LIMIT 1")
        XCTAssertEqual(StatementDelete().delete(fromTable: "t").offset(2).description, "DELETE FROM t LIMIT -1 OFFSET 2")
        XCTAssertEqual(StatementCreateIndex().create(index: "i", isUnique: true).on("t", indexesBy: [P.identifier.asIndex(orderBy: .descending)]).description,
                       "CREATE UNIQUE INDEX IF NOT EXISTS i ON t(identifier DESC)")
        XCTAssertEqual(StatementPragma().pragma(.cacheSize, to: -2000).description, "PRAGMA cache_size = -2000")
        XCTAssertEqual(StatementPragma().pragma(.tableInfo, with: "a'b").description, "PRAGMA table_info('a''b')")
        XCTAssertEqual(StatementExplain().explainQueryPlan(
            StatementCreateTable().create(table: "message", with: [ColumnDefinition(name: "localID", type: .integer32)])).description,
                       "EXPLAIN QUERY PLAN CREATE TABLE IF NOT EXISTS message(localID INTEGER)")
        XCTAssertEqual(StatementCreateVirtualTable().create(virtualTable: "f", using: .fts5, columns: ["body"],
                                                            arguments: [ModuleArgument(withTokenize: "unicode61 remove_diacritics 2")]).description,
                       "CREATE VIRTUAL TABLE IF NOT EXISTS f USING fts5(body, tokenize='unicode61 remove_diacritics 2')")
    }
}
