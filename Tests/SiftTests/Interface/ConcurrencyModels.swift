import Foundation
import XCTest
@testable import Sift

/// A value-type model, Sendable, for the async API and observation tests.
struct Post: TableCodable, Sendable, Equatable {
    var id: Int = 0
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Post
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init(_ id: Int, _ title: String, _ body: String = "") {
        self.id = id
        self.title = title
        self.body = body
    }
}

/// Values delivered by an observation, and a way to wait for the ones a test expects (never a sleep).
final class Deliveries<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [T] = []  // guarded by `condition`

    func append(_ item: T) {
        condition.lock()
        items.append(item)
        condition.broadcast()
        condition.unlock()
    }

    var all: [T] {
        condition.lock()
        defer { condition.unlock() }
        return items
    }

    /// Waits until `predicate` holds for the values so far; false when it still does not after `timeout` seconds.
    func wait(timeout: TimeInterval = 5, until predicate: ([T]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(items) {
            if !condition.wait(until: deadline) { return predicate(items) }
        }
        return true
    }
}

extension Database {
    /// The number of posts, as observations fetch it.
    func postCount() throws -> Int {
        Int(try getValue(on: Post.Properties.id.count(), fromTable: "posts").int64Value)
    }
}
