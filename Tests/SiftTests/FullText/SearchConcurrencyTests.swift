import Foundation
import XCTest
@testable import Sift

final class SearchConcurrencyTests: SiftTestCase {
    private func corpus() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "posts", of: Post.self)
        try database.create(table: "other", of: Post.self)
        try database.create(virtualTable: "posts_fts", of: ArticleIndex.self, syncedWith: "posts")
        try database.insert(objects: [Post(1, "The quick brown fox", "jumps"), Post(2, "Cooking", "a stew")], intoTable: "posts")
        return database
    }

    @MainActor
    func testAsyncSearchFromTheMainActor() async throws {
        let database = try corpus()
        let results = try await database.search("fox", in: "posts_fts", of: Post.self)
        XCTAssertEqual(results.hits.map(\.object.id), [1])
        let query = try await database.search(SearchQuery("stew"), in: "posts_fts", of: Post.self,
                                              options: SearchOptions(highlight: ["body"]))
        XCTAssertEqual(query.hits.first?.highlights["body"], "a [stew]")
    }

    func testAsyncSearchFromAnActor() async throws {
        actor Searcher {
            let database: Database
            init(_ database: Database) { self.database = database }
            func ids(_ text: String) async throws -> [Int] {
                try await database.search(text, in: "posts_fts", of: Post.self).hits.map(\.object.id)
            }
        }
        let searcher = Searcher(try corpus())
        let ids = try await searcher.ids("quick fox")
        XCTAssertEqual(ids, [1])
    }

    func testObservedSearchFollowsCommitsToItsContentTable() throws {
        let database = try corpus()
        let deliveries = Deliveries<[Int]>()
        let token = database.observeSearch(SearchQuery("fox"), in: "posts_fts", of: Post.self)
            .start(onError: { XCTFail("\($0)") }, onChange: { deliveries.append($0.hits.map(\.object.id)) })
        defer { token.cancel() }
        XCTAssertTrue(deliveries.wait { $0 == [[1]] }, "\(deliveries.all)")
        try database.insert(objects: Post(9, "unrelated fox"), intoTable: "other")
        let writer = Database(withPath: path())
        spawn { try! writer.insert(objects: Post(3, "Another fox"), intoTable: "posts") }.wait()
        XCTAssertTrue(deliveries.wait { $0.last?.sorted() == [1, 3] }, "\(deliveries.all)")
        XCTAssertEqual(deliveries.all.count, 2, "the write to `other` was not delivered")
        XCTAssertThrowsError(try database.run(transaction: {
            try database.delete(fromTable: "posts", where: Post.Properties.id == 1)
            throw SiftError.misuse("roll back")
        }))
        try database.update(table: "posts", on: Post.Properties.title, with: ["no longer"], where: Post.Properties.id == 3)
        XCTAssertTrue(deliveries.wait { $0.last == [1] }, "\(deliveries.all)")
        XCTAssertEqual(deliveries.all.count, 3, "the rolled-back delete was not delivered")
    }
}
