import Foundation
import XCTest
@testable import Sift

/// Keeps a database behind an actor, as an app's store would.
actor PostStore {
    let database: Database
    init(_ database: Database) { self.database = database }

    func add(_ posts: [Post]) async throws {
        try await database.write { db in try db.insert(objects: posts, intoTable: "posts") }
    }

    func titles() async throws -> [String] {
        try await database.read { db in
            let posts: [Post] = try db.getObjects(fromTable: "posts", orderBy: Post.Properties.id.asOrder(by: .ascending))
            return posts.map(\.title)
        }
    }
}

final class AsyncTests: SiftTestCase {
    private func postsDatabase() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "posts", of: Post.self)
        return database
    }

    @MainActor
    func testReadAndWriteFromTheMainActor() async throws {
        let database = try postsDatabase()
        let count = try await database.write { db in
            try db.insert(objects: [Post(1, "one"), Post(2, "two")], intoTable: "posts")
            XCTAssertTrue(db.isInTransaction, "the closure runs inside the transaction, on its thread")
            XCTAssertFalse(Thread.isMainThread)
            return try db.postCount()
        }
        XCTAssertEqual(count, 2)
        MainActor.assertIsolated()
        let posts: [Post] = try await database.read { db in try db.getObjects(fromTable: "posts") }
        XCTAssertEqual(posts.map(\.id).sorted(), [1, 2])
        let missing: Post? = try await database.read { db in try db.getObject(fromTable: "posts", where: Post.Properties.id == 9) }
        XCTAssertNil(missing, "an optional result comes back as nil")
    }

    func testReadAndWriteFromAnActor() async throws {
        let store = PostStore(try postsDatabase())
        try await store.add([Post(1, "one")])
        try await store.add([Post(2, "two"), Post(3, "three")])
        let titles = try await store.titles()
        XCTAssertEqual(titles, ["one", "two", "three"])
    }

    func testAThrowingWriteRollsBack() async throws {
        let database = try postsDatabase()
        struct Failure: Error {}
        do {
            _ = try await database.write { db -> Int in
                try db.insert(objects: Post(1, "one"), intoTable: "posts")
                throw Failure()
            }
            XCTFail("the write should throw")
        } catch is Failure {}
        let count = try await database.read { db in try db.postCount() }
        XCTAssertEqual(count, 0)
    }

    func testConcurrentAsyncWritesAllCommit() async throws {
        let database = try postsDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 1...20 {
                group.addTask { try await database.write { db in try db.insert(objects: Post(id, "p\(id)"), intoTable: "posts") } }
            }
            try await group.waitForAll()
        }
        let count = try await database.read { db in try db.postCount() }
        XCTAssertEqual(count, 20)
    }

    func testACancelledTaskDoesNotTouchTheDatabase() async throws {
        let database = try postsDatabase()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await database.write { db in try db.insert(objects: Post(1, "one"), intoTable: "posts") }
        }
        do {
            try await task.value
            XCTFail("a cancelled task's write should throw")
        } catch is CancellationError {}
        XCTAssertEqual(try database.postCount(), 0)
    }
}
