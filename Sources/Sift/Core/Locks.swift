import Foundation

/// A value behind a lock: the one primitive Sift's shared state uses.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// The identity of the calling thread; transactions and `close(onClosed:)` are bound to one.
struct ThreadID: Equatable {
    let raw: pthread_t
    static var current: ThreadID { ThreadID(raw: pthread_self()) }
    static func == (lhs: ThreadID, rhs: ThreadID) -> Bool { pthread_equal(lhs.raw, rhs.raw) != 0 }
}
