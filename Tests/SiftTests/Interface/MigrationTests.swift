import CSQLite
import Foundation
import XCTest
@testable import Sift

/// Versioned migrations: AHDataModel's examples, chains from every starting version, rollback of a failed step,
/// table rebuilds, synced indexes that follow, and what other connections see.
final class MigrationTests: SiftTestCase {
    private func columns(_ database: Database, _ table: String, _ field: String = "name") throws -> [String] {
        try MigrationTests.rawValue(database.path, "SELECT group_concat(\(field)) FROM pragma_table_info('\(table)')")?
            .split(separator: ",").map(String.init) ?? []
    }

    private func seededUsers(_ database: Database) throws {
        try database.create(table: "user", of: UserV0.self)
        try database.insert(objects: [UserV0(1, "f", "Michael", "Jackson"), UserV0(2, "m", "Ada", nil), UserV0(3, nil, nil, "Lovelace")],
                            intoTable: "user")
        try database.create(table: "chat", of: Chat.self)
        try database.insert(objects: [Chat(1, "hi"), Chat(1, "there"), Chat(2, "hello"), Chat(1, "again")], intoTable: "chat")
    }

    private static var messageCount: StatementSelect {
        StatementSelect().select(Column.all.count()).from("chat")
            .where(Column(named: "userId", table: "chat") == Column(named: "id", table: "user"))
    }

    private func users(_ database: Database) throws -> [User] {
        let users: [User] = try database.getObjects(fromTable: "user")
        return users.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
    }

    // MARK: - AHDataModel's examples

    func testRenamePropertySexToGender() throws {
        let database = makeDatabase()
        try seededUsers(database)
        XCTAssertEqual(try database.schemaVersion(ofTable: "user"), 0)
        try database.migrate(table: "user", of: UserV1.self, toVersion: 1) { migrator in
            XCTAssertEqual(migrator.version, 1)
            XCTAssertEqual(migrator.primaryKey, ["id"])
            try migrator.renameProperty(from: "sex", to: "gender")
        }
        XCTAssertEqual(try database.schemaVersion(ofTable: "user"), 1)
        XCTAssertEqual(try columns(database, "user"), ["id", "gender", "firstName", "lastName"])
        let users: [UserV1] = try database.getObjects(fromTable: "user", orderBy: [UserV1.Properties.id.asOrder(by: .ascending)])
        XCTAssertEqual(users.map(\.gender), ["f", "m", nil])
        // Running it again does nothing: the table is at version 1.
        try database.migrate(table: "user", of: UserV1.self, toVersion: 1) { _ in XCTFail("no step is due") }
    }

    func testRenameIntoAnExistingColumnCopiesAndDropsTheOld() throws {
        let database = makeDatabase()
        try seededUsers(database)
        try database.exec(sql: "ALTER TABLE user ADD COLUMN gender TEXT")
        try User.migrate(in: database, table: "user", toVersion: 1) { try $0.renameProperty(from: "sex", to: "gender") }
        XCTAssertFalse(try columns(database, "user").contains("sex"))
        XCTAssertEqual(try users(database).map(\.gender), ["f", "m", nil])
    }

    func testCombinePropertiesIntoFullName() throws {
        let database = makeDatabase()
        try seededUsers(database)
        try database.migrate(table: "user", of: UserV2.self, toVersion: 1) { migrator in
            try migrator.renameProperty(from: "sex", to: "gender")
            try migrator.combineProperties("lastName", separator: ", ", "firstName", into: "fullName")
        }
        let users: [UserV2] = try database.getObjects(fromTable: "user", orderBy: [UserV2.Properties.id.asOrder(by: .ascending)])
        XCTAssertEqual(users.map(\.fullName), ["Jackson, Michael", "Ada", "Lovelace"])
        XCTAssertEqual(users.map(\.firstName), ["Michael", "Ada", nil], "the sources stay")
    }

    func testMessageCountFromTheChatTable() throws {
        let database = makeDatabase()
        try seededUsers(database)
        try database.migrate(table: "user", of: User.self, toVersion: 1) { migrator in
            try migrator.renameProperty(from: "sex", to: "gender")
            try migrator.update(property: "msgCount", with: MigrationTests.messageCount)
        }
        XCTAssertEqual(try users(database).map(\.msgCount), [3, 1, 0])
        // The escape hatch does the same in SQL.
        try database.migrate(table: "user", of: User.self, toVersion: 2) { migrator in
            try migrator.exec(sql: "UPDATE user SET msgCount = (SELECT count(*) FROM chat WHERE chat.userId = user.id) + ?", values: [10])
        }
        XCTAssertEqual(try users(database).map(\.msgCount), [13, 11, 10])
    }

    func testSubqueryRendersInParentheses() {
        let update = StatementUpdate().update(table: "user").set(Column(named: "msgCount"), to: MigrationTests.messageCount)
        XCTAssertEqual(update.description,
                       "UPDATE user SET msgCount = (SELECT count(*) FROM chat WHERE chat.userId = user.id)")
    }

    // MARK: - Chains

    private static var chain: [Int: (Migrator) throws -> Void] { [
        1: { try $0.renameProperty(from: "sex", to: "gender") },
        2: { try $0.combineProperties("lastName", separator: ", ", "firstName", into: "fullName") },
        3: { try $0.update(property: "msgCount", with: MigrationTests.messageCount) },
    ] }

    func testThreeVersionChainFromEveryStartingVersion() throws {
        for start in 0...3 {
            let database = makeDatabase("chain\(start).db")
            try seededUsers(database)
            let ran = Collected<Int>()
            func counting(_ steps: [Int]) -> [Int: (Migrator) throws -> Void] {
                var counted: [Int: (Migrator) throws -> Void] = [:]
                for version in steps {
                    counted[version] = { migrator in
                        XCTAssertEqual(migrator.version, version)
                        XCTAssertEqual(migrator.fromVersion, version - 1)
                        ran.append(version)
                        try MigrationTests.chain[version]?(migrator)
                    }
                }
                return counted
            }
            // Bring the table to `start` the way the application at that version did, with that version's model.
            switch start {
            case 1: try database.migrate(table: "user", of: UserV1.self, steps: counting([1]))
            case 2: try database.migrate(table: "user", of: UserV2.self, steps: counting([1, 2]))
            case 3: try database.migrate(table: "user", of: User.self, steps: counting([1, 2, 3]))
            default: break
            }
            XCTAssertEqual(try database.schemaVersion(ofTable: "user"), start)
            try database.migrate(table: "user", of: User.self, steps: counting([1, 2, 3]))
            XCTAssertEqual(ran.all, [1, 2, 3], "from \(start): each step once, in order")
            XCTAssertEqual(try database.schemaVersion(ofTable: "user"), 3)
            let users = try users(database)
            XCTAssertEqual(users.map(\.gender), ["f", "m", nil], "from \(start)")
            XCTAssertEqual(users.map(\.fullName), ["Jackson, Michael", "Ada", "Lovelace"], "from \(start)")
            XCTAssertEqual(users.map(\.msgCount), [3, 1, 0], "from \(start)")
            XCTAssertEqual(try columns(database, "user"), ["id", "gender", "firstName", "lastName", "fullName", "msgCount"])
        }
    }

    func testAMissingTableIsCreatedAtTheTargetVersion() throws {
        let database = makeDatabase()
        try database.migrate(table: "user", of: User.self, toVersion: 3) { _ in XCTFail("a new table has no data to move") }
        XCTAssertEqual(try database.schemaVersion(ofTable: "user"), 3)
        XCTAssertEqual(try columns(database, "user"), ["id", "gender", "firstName", "lastName", "fullName", "msgCount"])
    }

    func testANewerDatabaseAndAnOpenTransactionAreRefused() throws {
        let database = makeDatabase()
        try database.migrate(table: "user", of: User.self, toVersion: 3) { _ in }
        XCTAssertThrowsError(try database.migrate(table: "user", of: User.self, toVersion: 2) { _ in }) { error in
            XCTAssertEqual((error as? SiftError)?.operation, .migration)
        }
        try database.begin()
        XCTAssertThrowsError(try database.migrate(table: "user", of: User.self, toVersion: 4) { _ in }) { error in
            XCTAssertEqual((error as? SiftError)?.code, .misuse)
        }
        try database.rollback()
        XCTAssertEqual(try database.schemaVersion(ofTable: "user"), 3)
    }

    // MARK: - Failure

    func testAFailingStepRollsBackAndNamesTheStep() throws {
        let database = makeDatabase()
        try seededUsers(database)
        struct Refused: Error {}
        var steps = MigrationTests.chain
        steps[2] = { migrator in
            try migrator.combineProperties("lastName", separator: ", ", "firstName", into: "fullName")
            try migrator.renameProperty(from: "gender", to: "sex2")
            try migrator.exec(sql: "DELETE FROM user WHERE id = 1")
            throw Refused()
        }
        XCTAssertThrowsError(try database.migrate(table: "user", of: User.self, steps: steps)) { error in
            guard let error = error as? SiftError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.operation, .migration)
            XCTAssertEqual(error.migrationVersion, 2)
            XCTAssertTrue(error.message.contains("version 2"), error.message)
            XCTAssertTrue(error.message.contains("Refused"), error.message)
        }
        // Step 1 committed on its own; step 2 left nothing behind, and step 3 never ran.
        XCTAssertEqual(try database.schemaVersion(ofTable: "user"), 1)
        XCTAssertEqual(try columns(database, "user"), ["id", "gender", "firstName", "lastName", "fullName", "msgCount"])
        let users = try users(database)
        XCTAssertEqual(users.map(\.id), [1, 2, 3])
        XCTAssertEqual(users.map(\.fullName), [nil, nil, nil])

        // A failing SQL statement in the first step leaves version 0 and the original table.
        let other = makeDatabase("other.db")
        try seededUsers(other)
        XCTAssertThrowsError(try other.migrate(table: "user", of: User.self, toVersion: 3) { migrator in
            try migrator.renameProperty(from: "sex", to: "gender")
            try migrator.exec(sql: "UPDATE user SET nosuchcolumn = 1")
        }) { error in
            XCTAssertEqual((error as? SiftError)?.migrationVersion, 1)
            XCTAssertEqual((error as? SiftError)?.code, .error)
        }
        XCTAssertEqual(try other.schemaVersion(ofTable: "user"), 0)
        XCTAssertEqual(try columns(other, "user"), ["id", "sex", "firstName", "lastName"])
        let old: [UserV0] = try other.getObjects(fromTable: "user", orderBy: [UserV0.Properties.id.asOrder(by: .ascending)])
        XCTAssertEqual(old.map(\.sex), ["f", "m", nil])
    }

    // MARK: - Rebuilds

    private func seededItems(_ database: Database) throws {
        try database.create(table: "item", of: ItemV0.self)
        try database.insert(objects: [ItemV0(1, "apple", "10", "x"), ItemV0(2, "pear", "7", nil), ItemV0(5, "plum", "12", "y")],
                            intoTable: "item")
        try database.create(table: "itemTag", of: ItemTag.self)
        try database.insert(objects: [ItemTag(1, "red"), ItemTag(5, "purple")], intoTable: "itemTag")
        try database.exec(sql: "CREATE INDEX item_score ON item(score)")
        try database.exec(sql: "CREATE INDEX item_legacy ON item(legacy)")
        try database.exec(sql: "CREATE TABLE audit(itemId INTEGER, note TEXT)")
        try database.exec(sql: "CREATE TRIGGER item_audit AFTER UPDATE OF name ON item BEGIN INSERT INTO audit VALUES(new.id, new.name); END")
        try database.exec(sql: "CREATE VIEW item_names AS SELECT name FROM item")
    }

    func testDropColumnAndChangeTypeByRebuild() throws {
        let database = makeDatabase()
        try seededItems(database)
        try database.migrate(table: "item", of: Item.self, toVersion: 1) { migrator in
            try migrator.dropProperties("legacy")
            try migrator.rebuildTable(converting: ["score": Column(named: "score").cast(as: .integer64)])
        }
        XCTAssertEqual(try columns(database, "item"), ["id", "name", "score"])
        let types = try columns(database, "item", "type")
        XCTAssertEqual(types, ["INTEGER", "TEXT", "INTEGER"])
        let items: [Item] = try database.getObjects(fromTable: "item", orderBy: [Item.Properties.id.asOrder(by: .ascending)])
        XCTAssertEqual(items.map(\.id), [1, 2, 5])
        XCTAssertEqual(items.map(\.score), [10, 7, 12])
        XCTAssertEqual(try database.getValue(on: SQLExpression(function: "typeof", [Column(named: "score")]), fromTable: "item").stringValue, "integer")
        // Indexes: the model's, and the others whose columns are still there; the dropped column's index is gone.
        let indexes = try database.getColumn(on: Column(named: "name"), fromTable: "sqlite_master",
                                             where: Column(named: "type") == "index" && Column(named: "tbl_name") == "item")
            .map(\.stringValue)
        XCTAssertTrue(indexes.contains("item_name"), "\(indexes)")
        XCTAssertTrue(indexes.contains("item_score"), "\(indexes)")
        XCTAssertFalse(indexes.contains("item_legacy"), "\(indexes)")
        // The new constraint holds, the trigger and the view still work, and foreign keys are enforced again.
        XCTAssertThrowsError(try database.exec(sql: "INSERT INTO item(name, score) VALUES('apple', 1)"))
        try database.exec(sql: "UPDATE item SET name = 'green apple' WHERE id = 1")
        XCTAssertEqual(try database.getValue(on: Column(named: "note"), fromTable: "audit").stringValue, "green apple")
        XCTAssertEqual(try database.getColumn(on: Column(named: "name"), fromTable: "item_names").count, 3)
        XCTAssertThrowsError(try database.insert(objects: ItemTag(99, "nobody"), intoTable: "itemTag"))
        try database.delete(fromTable: "item", where: Item.Properties.id == 5)
        XCTAssertEqual(try database.getColumn(on: Column(named: "tag"), fromTable: "itemTag").map(\.stringValue), ["red"],
                       "the cascade still runs")
        XCTAssertEqual(try database.getValue(on: Column(named: "foreign_keys"), fromTable: "pragma_foreign_keys").int64Value, 1)
    }

    func testARebuildThatBreaksAForeignKeyFailsTheStep() throws {
        let database = makeDatabase()
        try seededItems(database)
        XCTAssertThrowsError(try database.migrate(table: "item", of: Item.self, toVersion: 1) { migrator in
            try migrator.dropProperties("legacy")
            // Foreign keys are off inside a step, so this leaves itemTag's row 1 pointing nowhere.
            try migrator.exec(sql: "DELETE FROM item WHERE id = 1")
        }) { error in
            XCTAssertEqual((error as? SiftError)?.code, .constraint)
            XCTAssertEqual((error as? SiftError)?.migrationVersion, 1)
        }
        XCTAssertEqual(try database.schemaVersion(ofTable: "item"), 0)
        XCTAssertEqual(try columns(database, "item"), ["id", "name", "score", "legacy"])
        XCTAssertEqual(try database.getColumn(on: Column(named: "id"), fromTable: "item").count, 3)
        XCTAssertEqual(try database.getValue(on: Column(named: "foreign_keys"), fromTable: "pragma_foreign_keys").int64Value, 1)
    }

    func testDroppingAColumnTheModelDeclaresIsRefused() throws {
        let database = makeDatabase()
        try seededItems(database)
        XCTAssertThrowsError(try database.migrate(table: "item", of: Item.self, toVersion: 1) { try $0.dropProperties("name") }) { error in
            XCTAssertEqual((error as? SiftError)?.code, .misuse)
        }
        XCTAssertEqual(try columns(database, "item"), ["id", "name", "score", "legacy"])
    }

    // MARK: - Synced full-text indexes

    private func seededArticles(_ database: Database, mode: SyncMode) throws {
        try database.create(table: "articles", of: Article.self)
        try database.insert(objects: [Article(1, "Coffee", "roasting beans", views: 3), Article(2, "Tea", "green leaves", views: 5)],
                            intoTable: "articles")
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles", mode: mode)
    }

    private func hits(_ database: Database, _ text: String) throws -> [Int] {
        let results: SearchResults<ArticleV2> = try database.search(text, in: "articles_fts")
        return results.hits.compactMap(\.object.id).sorted()
    }

    private func hits(_ database: Database, _ text: String, _ model: ArticleV3.Type) throws -> [Int] {
        let results: SearchResults<ArticleV3> = try database.search(text, in: "articles_fts")
        return results.hits.compactMap(\.object.id).sorted()
    }

    func testSyncedIndexFollowsRenameRebuildAndDrop() throws {
        for mode in [SyncMode.explicit, .trigger] {
            let database = makeDatabase("fts-\(mode).db")
            try seededArticles(database, mode: mode)
            try database.migrate(table: "articles", of: ArticleV2.self, toVersion: 1) { migrator in
                try migrator.renameProperty(from: "body", to: "text")
                try migrator.exec(sql: "UPDATE articles SET text = text || ' migrated' WHERE id = 2")
                try migrator.rebuildTable(converting: ["views": Column(named: "views").cast(as: .text)])
            }
            XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent, "\(mode)")
            let record = try database.getValue(on: Column(named: "columns"), fromTable: "sift_fts_sync").stringValue
            XCTAssertEqual(record, "title\u{1F}text", "\(mode)")
            XCTAssertEqual(try hits(database, "migrated"), [2], "\(mode)")
            XCTAssertEqual(try hits(database, "roasting"), [1], "\(mode)")
            // Writes after the migration are followed again.
            let third = ArticleV2()
            third.id = 3; third.title = "Cocoa"; third.text = "bitter migrated"; third.views = "1"
            try database.insert(objects: third, intoTable: "articles")
            try database.update(table: "articles", on: ArticleV2.Properties.text, with: ["sweet"], where: ArticleV2.Properties.id == 1)
            XCTAssertEqual(try hits(database, "migrated"), [2, 3], "\(mode)")
            XCTAssertEqual(try hits(database, "sweet"), [1], "\(mode)")
            XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent, "\(mode)")

            // Dropping an indexed column takes it out of the index.
            try database.migrate(table: "articles", of: ArticleV3.self, toVersion: 2) { try $0.dropProperties("title") }
            XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent, "\(mode)")
            XCTAssertEqual(try database.getValue(on: Column(named: "columns"), fromTable: "sift_fts_sync").stringValue, "text")
            XCTAssertEqual(try hits(database, "cocoa", ArticleV3.self), [], "\(mode)")
            XCTAssertEqual(try hits(database, "bitter", ArticleV3.self), [3], "\(mode)")
            try database.delete(fromTable: "articles", where: ArticleV3.Properties.id == 3)
            XCTAssertEqual(try hits(database, "bitter", ArticleV3.self), [], "\(mode)")
            XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent, "\(mode)")
        }
    }

    func testAnIndexGainsTheColumnAStepAdds() throws {
        let database = makeDatabase()
        try seededArticles(database, mode: .explicit)
        try database.migrate(table: "articles", of: ArticleWithSummary.self, toVersion: 1) { migrator in
            try migrator.update(property: "summary", with: Column(named: "title").concat(" digest"))
            try migrator.database.create(virtualTable: "articles_fts", of: ArticleSummaryIndex.self, syncedWith: "articles")
        }
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
        XCTAssertEqual(try database.getValue(on: Column(named: "columns"), fromTable: "sift_fts_sync").stringValue,
                       "title\u{1F}body\u{1F}summary")
        let results: SearchResults<ArticleWithSummary> = try database.search("digest", in: "articles_fts")
        XCTAssertEqual(results.hits.compactMap(\.object.id).sorted(), [1, 2])
        try database.update(table: "articles", on: ArticleWithSummary.Properties.summary, with: ["précis"],
                            where: ArticleWithSummary.Properties.id == 2)
        let updated: SearchResults<ArticleWithSummary> = try database.search("precis", in: "articles_fts")
        XCTAssertEqual(updated.hits.compactMap(\.object.id), [2])
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    func testAFailedStepLeavesTheIndexAsItWas() throws {
        let database = makeDatabase()
        try seededArticles(database, mode: .explicit)
        XCTAssertThrowsError(try database.migrate(table: "articles", of: ArticleV2.self, toVersion: 1) { migrator in
            try migrator.renameProperty(from: "body", to: "text")
            try migrator.exec(sql: "UPDATE articles SET text = 'gone'")
            try migrator.exec(sql: "SELECT nosuchfunction()")
        })
        XCTAssertEqual(try database.getValue(on: Column(named: "columns"), fromTable: "sift_fts_sync").stringValue, "title\u{1F}body")
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
        let results: SearchResults<Article> = try database.search("roasting", in: "articles_fts")
        XCTAssertEqual(results.hits.map(\.object.id), [1])
        try database.insert(objects: Article(3, "Mate", "gourd"), intoTable: "articles")
        let mate: SearchResults<Article> = try database.search("gourd", in: "articles_fts")
        XCTAssertEqual(mate.hits.map(\.object.id), [3], "the index is followed again after the rollback")
    }

    // MARK: - Other connections

    /// Reads one value with a connection of its own, like another process.
    private static func rawValue(_ path: String, _ sql: String) throws -> String? {
        let raw = try RawConnection(path: path)
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(raw.db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            return "error: " + String(cString: sqlite3_errmsg(raw.db))
        }
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW, let text = sqlite3_column_text(stmt, 0) else { return nil }
        return String(cString: text)
    }

    func testOtherConnectionsSeeTheMigrationOnlyAfterCommit() throws {
        let database = makeDatabase()
        try seededUsers(database)
        try database.migrate(table: "chat", of: Chat.self, toVersion: 1) { _ in }
        let path = database.path
        let seen = Collected<String?>()
        try database.migrate(table: "user", of: User.self, toVersion: 1) { migrator in
            try migrator.renameProperty(from: "sex", to: "gender")
            try migrator.update(property: "msgCount", with: MigrationTests.messageCount)
            // Another process, and another thread of this one (a reader of the same pool), while the step is open.
            let done = spawn {
                seen.append(try? MigrationTests.rawValue(path, "SELECT group_concat(name) FROM pragma_table_info('user')"))
                seen.append(try? MigrationTests.rawValue(path, "SELECT version FROM sift_schema_versions WHERE table_name = 'user'"))
                seen.append((try? Database(withPath: path).schemaVersion(ofTable: "user")).map(String.init))
            }
            done.wait()
        }
        XCTAssertEqual(seen.all.count, 3)
        XCTAssertEqual(seen.all[0], "id,sex,firstName,lastName", "the old schema until the commit")
        XCTAssertNil(seen.all[1], "no version recorded for user until the commit")
        XCTAssertEqual(seen.all[2], "0")
        // msgCount was added by `update(property:)`, fullName when the step returned.
        XCTAssertEqual(try MigrationTests.rawValue(path, "SELECT group_concat(name) FROM pragma_table_info('user')"),
                       "id,gender,firstName,lastName,msgCount,fullName")
        XCTAssertEqual(try MigrationTests.rawValue(path, "SELECT version FROM sift_schema_versions WHERE table_name = 'user'"), "1")
        XCTAssertEqual(try MigrationTests.rawValue(path, "SELECT sum(msgCount) FROM user"), "4")
    }
}
