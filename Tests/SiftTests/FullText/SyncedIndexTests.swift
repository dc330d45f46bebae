import XCTest
@testable import Sift

/// The SQL a synced index writes its entries and triggers with.
final class SyncedIndexTests: XCTestCase {
    func testSimpleIndex() {
        let index = SyncedIndex(index: "articles_fts", content: "articles", rowidColumn: "id", columns: ["title", "body"], mode: .trigger)
        XCTAssertEqual(index.insertSQL, "INSERT INTO articles_fts(rowid, title, body) VALUES(?, ?, ?)")
        XCTAssertEqual(index.deleteSQL, "INSERT INTO articles_fts(articles_fts, rowid, title, body) VALUES('delete', ?, ?, ?)")
        XCTAssertEqual(index.insertRangeSQL,
                       "INSERT INTO articles_fts(rowid, title, body) SELECT id, title, body FROM articles WHERE id BETWEEN ? AND ?")
        let insertNew = "INSERT INTO articles_fts(rowid, title, body) VALUES(new.id, new.title, new.body);"
        let deleteOld = "INSERT INTO articles_fts(articles_fts, rowid, title, body) VALUES('delete', old.id, old.title, old.body);"
        XCTAssertEqual(index.triggerSQL, [
            "CREATE TRIGGER IF NOT EXISTS sift_articles_fts_ai AFTER INSERT ON articles BEGIN \(insertNew) END",
            "CREATE TRIGGER IF NOT EXISTS sift_articles_fts_ad AFTER DELETE ON articles BEGIN \(deleteOld) END",
            "CREATE TRIGGER IF NOT EXISTS sift_articles_fts_au AFTER UPDATE OF title, body, id ON articles BEGIN \(deleteOld) \(insertNew) END",
        ])
        XCTAssertEqual(index.dropTriggerSQL, ["DROP TRIGGER IF EXISTS sift_articles_fts_ai", "DROP TRIGGER IF EXISTS sift_articles_fts_ad",
                                              "DROP TRIGGER IF EXISTS sift_articles_fts_au"])
    }

    func testNamesThatNeedQuoting() {
        let index = SyncedIndex(index: "my index", content: #"art"icles"#, rowidColumn: "order", columns: ["title", "the body"],
                                mode: .trigger)
        XCTAssertEqual(index.insertSQL, #"INSERT INTO "my index"(rowid, title, "the body") VALUES(?, ?, ?)"#)
        XCTAssertEqual(index.deleteSQL, #"INSERT INTO "my index"("my index", rowid, title, "the body") VALUES('delete', ?, ?, ?)"#)
        XCTAssertEqual(index.insertRangeSQL, #"INSERT INTO "my index"(rowid, title, "the body") SELECT "order", title, "the body" "#
                       + #"FROM "art""icles" WHERE "order" BETWEEN ? AND ?"#)
        let insertNew = #"INSERT INTO "my index"(rowid, title, "the body") VALUES(new."order", new.title, new."the body");"#
        let deleteOld = #"INSERT INTO "my index"("my index", rowid, title, "the body") VALUES('delete', old."order", old.title, "#
            + #"old."the body");"#
        XCTAssertEqual(index.triggerSQL, [
            #"CREATE TRIGGER IF NOT EXISTS "sift_my index_ai" AFTER INSERT ON "art""icles" BEGIN "# + insertNew + " END",
            #"CREATE TRIGGER IF NOT EXISTS "sift_my index_ad" AFTER DELETE ON "art""icles" BEGIN "# + deleteOld + " END",
            #"CREATE TRIGGER IF NOT EXISTS "sift_my index_au" AFTER UPDATE OF title, "the body", "order" ON "art""icles" BEGIN "#
                + deleteOld + " " + insertNew + " END",
        ])
        XCTAssertEqual(index.dropTriggerSQL, [#"DROP TRIGGER IF EXISTS "sift_my index_ai""#, #"DROP TRIGGER IF EXISTS "sift_my index_ad""#,
                                              #"DROP TRIGGER IF EXISTS "sift_my index_au""#])
    }

    func testQuoteInTheIndexNameIsDoubledEverywhere() {
        let index = SyncedIndex(index: "x\"\u{301}y", content: "docs", rowidColumn: "id", columns: ["body"], mode: .explicit)
        let name = "\"x\"\"\u{301}y\""
        assertSameBytes(index.insertSQL, "INSERT INTO \(name)(rowid, body) VALUES(?, ?)")
        assertSameBytes(index.deleteSQL, "INSERT INTO \(name)(\(name), rowid, body) VALUES('delete', ?, ?)")
        assertSameBytes(index.insertRangeSQL, "INSERT INTO \(name)(rowid, body) SELECT id, body FROM docs WHERE id BETWEEN ? AND ?")
        for (sql, suffix) in zip(index.triggerSQL, ["_ai", "_ad", "_au"]) {
            XCTAssertTrue(sql.utf8.starts(with: "CREATE TRIGGER IF NOT EXISTS \"sift_x\"\"\u{301}y\(suffix)\" AFTER ".utf8), sql)
        }
        XCTAssertEqual(index.dropTriggerSQL.map { Array($0.utf8) },
                       ["_ai", "_ad", "_au"].map { Array("DROP TRIGGER IF EXISTS \"sift_x\"\"\u{301}y\($0)\"".utf8) })
    }
}
