import Foundation

/// The connections of one database file: one writer, many readers, shared by every `Database` on that path.
///
/// Rules, all enforced here:
/// - One thread at a time owns the writer; it keeps it for a whole transaction, and every operation
///   of that thread (reads included) runs on it so it sees its own uncommitted writes.
/// - Other threads read on reader connections meanwhile (WAL), up to `maxReaders` at once.
/// - While a thread is inside `close(onClosed:)`, every other thread waits at the door.
final class HandlePool: @unchecked Sendable {
    let path: String
    static let maxReaders = 16
    /// Who hears of committed transactions on this file (see ``CommitObservers``).
    let commitObservers = CommitObservers()

    private let condition = NSCondition()
    // Everything below is guarded by `condition`.
    private var writer: Handle?
    private var writerOwner: ThreadID?
    private var writerDepth = 0
    private var freeReaders: [Handle] = []
    /// The thread each leased reader belongs to: a thread that holds a connection finishes its work before a
    /// close, instead of waiting for the close that waits for it.
    private var readerHolders: [ObjectIdentifier: ThreadID] = [:]
    private var openReaders = 0
    private var leases = 0
    private var closingThread: ThreadID?
    private var closingDepth = 0
    private var _tag: Tag?
    private var configs: [ConfigEntry] = DefaultConfig.all
    private var configGeneration = 0
    private var localHooks = TraceHooks()
    private var hooksGeneration = 0
    private var createdDirectory = false
    private var attachments: [ObjectIdentifier: AnyObject] = [:]
    private var _cipher: CipherKey?

    init(path: String) {
        self.path = path
    }

    deinit {
        writer?.close()
        for reader in freeReaders { reader.close() }
        PoolRegistry.forget(path)
    }

    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    // MARK: - Properties

    var tag: Tag? {
        get { locked { _tag } }
        set { locked { _tag = newValue } }
    }

    /// The state a layer above Core keeps for this database file (settings, caches): one object per type, made
    /// by `make` on first use. The object must guard its own mutable state.
    func attachment<T: AnyObject & Sendable>(_ make: () -> T) -> T {
        locked {
            if let existing = attachments[ObjectIdentifier(T.self)] as? T { return existing }
            let made = make()
            attachments[ObjectIdentifier(T.self)] = made
            return made
        }
    }

    var isOpened: Bool { locked { writer != nil || openReaders > 0 } }

    /// The key connections open with (see ``Database/setCipherKey(_:pageSize:)``); change it with every
    /// connection closed.
    var cipher: CipherKey? {
        get { locked { _cipher } }
        set { locked { _cipher = newValue } }
    }

    /// Whether the calling thread has a transaction open.
    var isInTransaction: Bool {
        locked { writerOwner == .current && (writer?.transactionDepth ?? 0) > 0 }
    }

    /// The writer, when the calling thread owns it.
    func ownedWriter() -> Handle? {
        locked { writerOwner == .current ? writer : nil }
    }

    // MARK: - Checkout

    /// Runs `body` on a connection: the writer for writes (or whenever this thread owns it), else a reader.
    func withHandle<R>(write: Bool, _ body: (Handle) throws -> R) throws -> R {
        try reporting {
            let handle = try checkout(write: write)
            defer { checkin(handle) }
            return try body(handle)
        }
    }

    func checkout(write: Bool) throws -> Handle {
        let me = ThreadID.current
        condition.lock()
        var reserved = false
        var handle: Handle?
        var usesWriter = false
        while true {
            if let closer = closingThread, closer != me, !holdsConnection(me) { condition.wait(); continue }
            if writerOwner == me {
                writerDepth += 1
                handle = writer
                usesWriter = true
                break
            }
            if write {
                if writerOwner == nil {
                    writerOwner = me
                    writerDepth = 1
                    handle = writer
                    usesWriter = true
                    break
                }
            } else if let reader = freeReaders.popLast() {
                handle = reader
                readerHolders[ObjectIdentifier(reader)] = me
                break
            } else if openReaders < HandlePool.maxReaders {
                openReaders += 1
                reserved = true
                break
            }
            condition.wait()
        }
        leases += 1
        let configSnapshot = (configGeneration, configs)
        let hooksSnapshot = (hooksGeneration, localHooks)
        let needsDirectory = !createdDirectory
        let cipher = _cipher
        condition.unlock()

        do {
            if handle == nil {
                if needsDirectory { try createDirectory() }
                let opened = try Handle(path: path, pool: self, cipher: cipher)
                handle = opened
                locked {
                    if usesWriter { writer = opened } else { readerHolders[ObjectIdentifier(opened)] = me }
                }
            }
            guard let handle else { throw SiftError.misuse("No connection available.", operation: .open) }
            if handle.configGeneration != configSnapshot.0 {
                for config in configSnapshot.1 {
                    do {
                        try config.body(handle)
                    } catch let error as SiftError {
                        throw error
                    } catch {
                        throw report(SiftError(code: .error, message: "Config \(config.name) failed: \(error)",
                                               path: path, tag: tag, operation: .config))
                    }
                }
                handle.configGeneration = configSnapshot.0
            }
            if handle.hooksGeneration != hooksSnapshot.0 {
                let global = GlobalTrace.hooks.withLock { $0 }
                handle.install(hooksSnapshot.1.overriding(global), generation: hooksSnapshot.0)
            }
            try handle.observer?.connectionWillBeUsed(handle, forWriting: usesWriter)
            return handle
        } catch {
            // Undo the reservation so a failed open does not leak a slot or the writer.
            locked {
                leases -= 1
                if usesWriter {
                    writerDepth -= 1
                    if writerDepth == 0 { writerOwner = nil }
                    if let h = handle, writer !== h { h.close() }
                } else if reserved || handle != nil {
                    if let h = handle {
                        readerHolders[ObjectIdentifier(h)] = nil
                        h.close()
                    }
                    openReaders -= 1
                }
                condition.broadcast()
            }
            throw error
        }
    }

    func checkin(_ handle: Handle) {
        var committed: Set<String> = []
        locked {
            leases -= 1
            if handle === writer {
                writerDepth -= 1
                if writerDepth == 0 {
                    committed = handle.takeCommittedTables()
                    writerOwner = nil
                }
            } else {
                readerHolders[ObjectIdentifier(handle)] = nil
                freeReaders.append(handle)
            }
            condition.broadcast()
        }
        // The writer is free again and what it committed is visible to every reader.
        if !committed.isEmpty { commitObservers.notify(committed) }
    }

    private func createDirectory() throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty && !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw report(SiftError(code: .cantOpen, message: "Cannot create directory \(directory): \(error.localizedDescription)",
                                       path: path, tag: tag, operation: .file))
            }
        }
        locked { createdDirectory = true }
    }

    // MARK: - Closing

    /// Waits for every other thread's work to finish, closes all connections, runs `body` while
    /// every other thread waits, then lets them continue (reopening on demand).
    func close(onClosed body: () throws -> Void) throws {
        let me = ThreadID.current
        condition.lock()
        if closingThread == me {
            closingDepth += 1
        } else {
            if holdsConnection(me) {
                condition.unlock()
                throw report(SiftError.misuse("Cannot close a database inside its own transaction or while this thread "
                                              + "is reading from it.", operation: .close))
            }
            while closingThread != nil { condition.wait() }
            closingThread = me
            closingDepth = 1
            while leases > 0 { condition.wait() }
        }
        closeAllLocked()
        condition.unlock()

        defer {
            locked {
                closingDepth -= 1
                if closingDepth == 0 {
                    closingThread = nil
                    condition.broadcast()
                }
            }
        }
        try body()
    }

    /// Whether `thread` holds the writer or a reader (call with the lock held).
    private func holdsConnection(_ thread: ThreadID) -> Bool {
        writerOwner == thread || readerHolders.values.contains(thread)
    }

    private func closeAllLocked() {
        writer?.close()
        writer = nil
        for reader in freeReaders { reader.close() }
        freeReaders.removeAll()
        openReaders = 0
    }

    /// Closes idle connections to free memory; busy ones are untouched.
    func purgeFreeHandles() {
        locked {
            for reader in freeReaders { reader.close() }
            openReaders -= freeReaders.count
            freeReaders.removeAll()
            if writerOwner == nil, let w = writer {
                w.close()
                writer = nil
            }
        }
    }

    // MARK: - Configs and hooks

    func setConfig(_ entry: ConfigEntry) {
        locked {
            configs.removeAll { $0.name == entry.name }
            configs.append(entry)
            configs.sort { ($0.order, $0.name) < ($1.order, $1.name) }
            configGeneration += 1
        }
    }

    func removeConfig(named name: String) {
        locked {
            configs.removeAll { $0.name == name }
            configGeneration += 1
        }
    }

    func updateHooks(_ change: (inout TraceHooks) -> Void) {
        locked {
            change(&localHooks)
            hooksGeneration += 1
        }
    }

    func hooksChanged() {
        locked { hooksGeneration += 1 }
    }

    /// Fills in the database's path and tag, sends `error` to the error tracer in force unless it was sent
    /// already, and returns it, so call sites can `throw report(...)`. Every way out of a connection
    /// (`withHandle`, transactions) reports what escapes, so each error reaches the tracer once, complete.
    @discardableResult
    func report(_ error: SiftError) -> SiftError {
        guard !error.isReported else { return error }
        var error = error
        if error.path == nil { error.path = path }
        if error.tag == nil { error.tag = tag }
        error.isReported = true
        let tracer = locked { localHooks.error } ?? GlobalTrace.hooks.withLock { $0.error }
        tracer?(error)
        return error
    }

    /// Runs `body`, reporting the Sift error that escapes it (see `report`).
    func reporting<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as SiftError {
            throw report(error)
        }
    }
}

/// Every live pool by path, so that two `Database` values on one file share connections.
enum PoolRegistry {
    private final class WeakPool { weak var pool: HandlePool?; init(_ p: HandlePool) { pool = p } }
    private static let pools = Locked<[String: WeakPool]>([:])

    static func pool(for path: String) -> HandlePool {
        pools.withLock { pools in
            if let existing = pools[path]?.pool { return existing }
            let pool = HandlePool(path: path)
            pools[path] = WeakPool(pool)
            return pool
        }
    }

    static func forget(_ path: String) {
        pools.withLock { pools in
            if pools[path]?.pool == nil { pools[path] = nil }
        }
    }

    static func forEachPool(_ body: (HandlePool) -> Void) {
        let live = pools.withLock { $0.values.compactMap(\.pool) }
        live.forEach(body)
    }
}
