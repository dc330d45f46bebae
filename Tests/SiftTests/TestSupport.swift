import Foundation
import XCTest
@testable import Sift

/// A fresh directory per test, removed afterwards.
class SiftTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sift-tests-\(UUID().uuidString)", isDirectory: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String = "test.db") -> String {
        directory.appendingPathComponent(name).path
    }

    func makeDatabase(_ name: String = "test.db") -> Database {
        Database(withPath: path(name))
    }

    /// Skips the test when Sift was built without the `Encryption` trait.
    func requireEncryption() throws {
        try XCTSkipUnless(Database.isEncryptionAvailable, "Sift was built without the Encryption trait")
    }
}

/// Thread-safe collection of values produced by concurrent callbacks.
final class Collected<T>: @unchecked Sendable {
    private var items: [T] = []
    private let lock = NSLock()
    func append(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}

/// Runs `body` on a new thread and returns a way to wait for it.
func spawn(_ body: @escaping @Sendable () -> Void) -> DispatchGroup {
    let group = DispatchGroup()
    group.enter()
    Thread.detachNewThread {
        body()
        group.leave()
    }
    return group
}

/// Asserts that two texts have the same UTF-8 bytes. `String`'s `==` calls canonically equivalent texts equal
/// (a precomposed `é` and `e` + U+0301), and quoting must be checked byte for byte.
func assertSameBytes(_ actual: String?, _ expected: String, _ message: String = "",
                     file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual.map { Array($0.utf8) }, Array(expected.utf8),
                   "\(String(reflecting: actual)) is not \(String(reflecting: expected)) \(message)", file: file, line: line)
}
