import Dispatch
import Foundation

/// Work done piece by piece on a thread of its own while the caller goes on: a second pass over rows' text (counting
/// terms) that costs no time of its own on a machine with a free core, while the caller has SQLite write the rows.
///
/// The caller hands pieces in order (`hand`, which waits while `queued` pieces wait); the thread runs `body` on each,
/// in the same order, touching only what `body` captures (never a connection). The caller reads what `body` wrote
/// only after `waitUntilDone()`, which returns once every piece handed is done and rethrows the first failure. `close()`
/// ends the thread once its pieces are done; whoever drops the work must close it. The thread, started by the
/// first piece, inherits the caller's scheduling priority (libdispatch's pool threads run at the default one).
final class OverlappedWork<Piece: Sendable>: @unchecked Sendable {
    private let name: String
    private let queued: Int
    private var body: ((Piece) throws -> Void)?
    private var thread: Thread?
    /// Guards `pending`, `working` and `closed`, shared with the thread.
    private let condition = NSCondition()
    private var pending: [Piece] = []
    private var working = false
    private var closed = false
    private let exited = DispatchSemaphore(value: 0)
    /// The first failure of `body`.
    private let failure = Locked<Error?>(nil)

    init(name: String, queued: Int = 4, _ body: @escaping (Piece) throws -> Void) {
        self.name = name
        self.queued = max(1, queued)
        self.body = body
    }

    /// The first failure so far, if any (the caller may stop handing pieces).
    var firstFailure: Error? { failure.withLock { $0 } }

    /// Queues `piece` (waiting while `queued` pieces wait), starting the thread if needed.
    func hand(_ piece: Piece) {
        if thread == nil {
            let thread = Thread { [self] in run() }
            thread.name = name
            self.thread = thread
            thread.start()
        }
        condition.lock()
        while pending.count >= queued { condition.wait() }
        pending.append(piece)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every piece handed is done; rethrows the first failure.
    func waitUntilDone() throws {
        condition.lock()
        while !pending.isEmpty || working { condition.wait() }
        condition.unlock()
        if let failure = firstFailure { throw failure }
    }

    /// Ends the thread once the pieces handed are done, and waits for it; `body` is released. Safe to call again.
    func close() {
        defer { body = nil }
        guard thread != nil else { return }
        thread = nil
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        exited.wait()
    }

    private func run() {
        defer { exited.signal() }
        while true {
            condition.lock()
            while pending.isEmpty && !closed { condition.wait() }
            guard !pending.isEmpty else {
                condition.unlock()
                return
            }
            let piece = pending.removeFirst()
            working = true
            condition.broadcast()
            condition.unlock()
            do { try body?(piece) } catch { failure.withLock { $0 = $0 ?? error } }
            condition.lock()
            working = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
