import Foundation
import XCTest
@testable import Sift

final class ObservationTests: SiftTestCase {
    private func postsDatabase() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "posts", of: Post.self)
        try database.create(table: "other", of: Post.self)
        return database
    }

    /// Observes the number of posts with callbacks, and waits for the initial value.
    private func observeCount(_ database: Database) -> (Deliveries<Int>, ObservationCancellable) {
        let deliveries = Deliveries<Int>()
        let token = database.observe(tables: ["posts"], fetch: { db in try db.postCount() })
            .start(onError: { XCTFail("\($0)") }, onChange: { deliveries.append($0) })
        XCTAssertTrue(deliveries.wait { $0 == [0] }, "initial value: \(deliveries.all)")
        return (deliveries, token)
    }

    func testCommitsFromAnotherThreadAreDelivered() throws {
        let database = try postsDatabase()
        let (deliveries, token) = observeCount(database)
        defer { token.cancel() }
        spawn { try! database.insert(objects: Post(1, "one"), intoTable: "posts") }.wait()
        XCTAssertTrue(deliveries.wait { $0.last == 1 }, "\(deliveries.all)")
        spawn {
            try! database.run(transaction: {
                try database.insert(objects: [Post(2, "two"), Post(3, "three")], intoTable: "posts")
                try database.delete(fromTable: "posts", where: Post.Properties.id == 1)
            })
        }.wait()
        XCTAssertTrue(deliveries.wait { $0.last == 2 }, "\(deliveries.all)")
        XCTAssertEqual(deliveries.all, [0, 1, 2], "one value per committed transaction")
    }

    func testCommitsThroughAnotherDatabaseValueOnTheSameFileAreDelivered() throws {
        let database = try postsDatabase()
        let (deliveries, token) = observeCount(database)
        defer { token.cancel() }
        let other = Database(withPath: path())
        try other.insert(objects: Post(1, "one"), intoTable: "posts")
        XCTAssertTrue(deliveries.wait { $0.last == 1 }, "\(deliveries.all)")
        try other.delete(fromTable: "posts")  // no WHERE: SQLite's truncate, which its update hook would miss
        XCTAssertTrue(deliveries.wait { $0.last == 0 }, "\(deliveries.all)")
        XCTAssertEqual(deliveries.all, [0, 1, 0])
    }

    func testWritesToOtherTablesAreNotDelivered() throws {
        let database = try postsDatabase()
        let (deliveries, token) = observeCount(database)
        defer { token.cancel() }
        // Each commit notifies before the write returns: a delivery for `other` would come before the one for posts.
        try database.insert(objects: Post(1, "elsewhere"), intoTable: "other")
        try database.run(transaction: { try database.insert(objects: [Post(2, "b"), Post(3, "c")], intoTable: "other") })
        try database.update(table: "other", on: Post.Properties.title, with: ["x"])
        try database.insert(objects: Post(1, "one"), intoTable: "posts")
        XCTAssertTrue(deliveries.wait { $0.last == 1 }, "\(deliveries.all)")
        XCTAssertEqual(deliveries.all, [0, 1])
    }

    func testRolledBackTransactionsAreNotDelivered() throws {
        let database = try postsDatabase()
        let (deliveries, token) = observeCount(database)
        defer { token.cancel() }
        struct Failure: Error {}
        XCTAssertThrowsError(try database.run(transaction: {
            try database.insert(objects: Post(1, "one"), intoTable: "posts")
            throw Failure()
        }))
        try database.begin()
        try database.insert(objects: [Post(2, "two"), Post(3, "three")], intoTable: "posts")
        try database.rollback()
        // A failed statement outside a transaction (duplicate key) changes nothing either.
        try database.insert(objects: Post(4, "four"), intoTable: "other")
        try database.insert(objects: Post(5, "five"), intoTable: "posts")
        XCTAssertThrowsError(try database.insert(objects: Post(5, "again"), intoTable: "posts"))
        XCTAssertTrue(deliveries.wait { $0.last == 1 }, "\(deliveries.all)")
        XCTAssertEqual(deliveries.all, [0, 1], "only the committed insert is delivered")
    }

    func testConcurrentWritersEndOnTheLastValue() throws {
        let database = try postsDatabase()
        let (deliveries, token) = observeCount(database)
        defer { token.cancel() }
        let writers = (0..<4).map { writer in
            spawn {
                for i in 0..<25 { try! database.insert(objects: Post(writer * 100 + i, "p"), intoTable: "posts") }
            }
        }
        writers.forEach { $0.wait() }
        XCTAssertTrue(deliveries.wait { $0.last == 100 }, "\(deliveries.all.suffix(5))")
        let values = deliveries.all
        XCTAssertLessThanOrEqual(values.count, 101, "at most one value per commit, and coalesced when writes are faster")
        XCTAssertEqual(values, values.sorted(), "values arrive in commit order")
    }

    func testCancellingTheTokenStopsDeliveries() throws {
        let database = try postsDatabase()
        let (deliveries, token) = observeCount(database)
        let (sentinel, sentinelToken) = observeCount(database)
        defer { sentinelToken.cancel() }
        XCTAssertEqual(database.pool.commitObservers.count, 2)
        token.cancel()
        XCTAssertEqual(database.pool.commitObservers.count, 1)
        try database.insert(objects: Post(1, "one"), intoTable: "posts")
        // The sentinel heard of the same commit; the cancelled observation no longer listens.
        XCTAssertTrue(sentinel.wait { $0.last == 1 })
        XCTAssertEqual(deliveries.all, [0])
    }

    func testReleasingTheTokenStopsTheObservation() throws {
        let database = try postsDatabase()
        do {
            let (_, token) = observeCount(database)
            let deliveries = Deliveries<Int>()
            let other = database.observe(tables: ["posts"]) { db in try db.postCount() }.start { deliveries.append($0) }
            XCTAssertTrue(deliveries.wait { $0 == [0] })
            XCTAssertEqual(database.pool.commitObservers.count, 2)
            _ = (token, other)
        }
        XCTAssertEqual(database.pool.commitObservers.count, 0)
    }

    func testAFailingFetchEndsWithItsError() throws {
        let database = try postsDatabase()
        let errors = Deliveries<String>()
        let token = database.observe(tables: ["posts"], fetch: { db -> Int in
            Int(try db.getValue(on: Column(named: "nope"), fromTable: "posts").int64Value)
        }).start(onError: { errors.append("\($0)") }, onChange: { _ in XCTFail("no value") })
        defer { token.cancel() }
        XCTAssertTrue(errors.wait { $0.count == 1 })
        XCTAssertEqual(database.pool.commitObservers.count, 0)
    }

    func testAsyncSequenceDeliversAndEndsWhenCancelled() async throws {
        let database = try postsDatabase()
        let deliveries = Deliveries<Int>()
        let observation = database.observe(tables: ["posts"]) { db in try db.postCount() }
        let task = Task {
            for try await count in observation { deliveries.append(count) }
            return "ended"
        }
        XCTAssertTrue(deliveries.wait { $0 == [0] }, "\(deliveries.all)")
        let writer = Database(withPath: path())
        spawn { try! writer.insert(objects: Post(1, "one"), intoTable: "posts") }.wait()
        XCTAssertTrue(deliveries.wait { $0.last == 1 }, "\(deliveries.all)")
        task.cancel()
        let ended = try await task.value
        XCTAssertEqual(ended, "ended", "the sequence ends when its task is cancelled")
        XCTAssertEqual(database.pool.commitObservers.count, 0)
    }

    @MainActor
    func testAsyncSequenceOnTheMainActor() async throws {
        let database = try postsDatabase()
        do {
            var iterator = database.observe(tables: ["POSTS"]) { db in try db.postCount() }.makeAsyncIterator()
            let initial = try await iterator.next()
            XCTAssertEqual(initial, 0)
            try await database.write { db in try db.insert(objects: Post(1, "one"), intoTable: "posts") }
            let next = try await iterator.next()
            XCTAssertEqual(next, 1)
            XCTAssertEqual(database.pool.commitObservers.count, 1)
        }
        XCTAssertEqual(database.pool.commitObservers.count, 0, "dropping the iterator ends the subscription")
    }
}
