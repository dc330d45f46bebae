import CSQLite
import Foundation
import Sift
import Synchronization

/// Reader threads doing point selects (decoded into `BenchRecord`) for a fixed time, first alone, then while a
/// writer thread inserts rows in transactions of `writerBatch`. Each thread has its own raw connection (WAL:
/// readers never wait for the writer). Report-only: reads/s both ways, and the writer's rows/s.
enum ConcurrentReads {
    struct Configuration: Sendable {
        var readers = 2
        var seconds = 1.5
        var writerBatch = 100
    }

    /// `sift`: the same threads share one Sift `Database` (its pool: one writer, WAL readers) and read with
    /// `getObject`, write with `insert(objects:)`, instead of a raw connection each.
    static func run(_ context: RunContext, configuration: Configuration = Configuration(), sift: Bool = false) throws {
        try context.fixtures.copyItemsDatabase(to: context.databasePath)
        let database = sift ? Database(withPath: context.databasePath) : nil
        let alone = try phase(path: context.databasePath, rowCount: context.rowCount,
                              configuration: configuration, writer: false, database: database)
        let contended = try phase(path: context.databasePath, rowCount: context.rowCount,
                                  configuration: configuration, writer: true, database: database)
        let readers = configuration.readers
        context.record("reads/s, \(readers) readers, no writer", alone.readsPerSecond,
                       unit: "reads/s", higherIsBetter: true)
        context.record("reads/s, \(readers) readers + 1 writer", contended.readsPerSecond,
                       unit: "reads/s", higherIsBetter: true)
        context.record("with writer / without", contended.readsPerSecond / alone.readsPerSecond,
                       unit: "x", higherIsBetter: true)
        context.record("writer inserts/s (batches of \(configuration.writerBatch))", contended.writesPerSecond,
                       unit: "rows/s", higherIsBetter: true)
    }

    private final class Shared: Sendable {
        let stop = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let writes = Atomic<Int>(0)
        let errors = Mutex<[String]>([])
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)

        func fail(_ error: any Error) {
            errors.withLock { $0.append(String(describing: error)) }
        }
    }

    private static func phase(path: String, rowCount: Int, configuration: Configuration, writer: Bool,
                              database: Database?) throws -> (readsPerSecond: Double, writesPerSecond: Double) {
        let shared = Shared()
        let threads = configuration.readers + (writer ? 1 : 0)
        for index in 0..<configuration.readers {
            if let database {
                Thread { siftReader(database, rowCount: rowCount, seed: UInt64(index), shared: shared) }.start()
            } else {
                Thread { reader(path: path, rowCount: rowCount, seed: UInt64(index), shared: shared) }.start()
            }
        }
        if writer {
            let batch = configuration.writerBatch
            let firstID = Int64(rowCount) * 10 + (database == nil ? 0 : Int64(rowCount) * 10)
            if let database {
                Thread { siftWriter(database, firstID: firstID, batch: batch, shared: shared) }.start()
            } else {
                Thread { Self.writer(path: path, firstID: firstID, batch: batch, shared: shared) }.start()
            }
        }
        for _ in 0..<threads { shared.ready.wait() }   // connections open, statements prepared
        let start = ContinuousClock.now
        for _ in 0..<threads { shared.go.signal() }
        Thread.sleep(forTimeInterval: configuration.seconds)
        shared.stop.store(true, ordering: .relaxed)
        for _ in 0..<threads { shared.done.wait() }
        let elapsed = (ContinuousClock.now - start).seconds
        if let error = shared.errors.withLock({ $0.first }) { throw BenchError.checkFailed(error) }
        return (Double(shared.reads.load(ordering: .relaxed)) / elapsed,
                Double(shared.writes.load(ordering: .relaxed)) / elapsed)
    }

    private static func reader(path: String, rowCount: Int, seed: UInt64, shared: Shared) {
        defer { shared.done.signal() }
        var prepared: (RawDatabase, RawStatement)?
        do {
            let db = try RawDatabase(path: path)
            prepared = (db, try db.prepare(
                "SELECT id, number, score, name, note, created FROM items WHERE id = ?"))
        } catch {
            shared.fail(error)
        }
        shared.ready.signal()
        shared.go.wait()
        guard let select = prepared?.1 else { return }
        let stmt = select.handle
        var rng = SeededGenerator(seed: 0xAEAD_0000 &+ seed)
        var reads = 0
        var checksum = 0.0
        do {
            while !shared.stop.load(ordering: .relaxed) {
                sqlite3_bind_int64(stmt, 1, Int64(1 + rng.below(rowCount)))
                guard try select.step() else { throw BenchError.checkFailed("point select found no row") }
                let record = BenchRecord(
                    id: sqlite3_column_int64(stmt, 0),
                    number: sqlite3_column_int64(stmt, 1),
                    score: sqlite3_column_double(stmt, 2),
                    name: columnText(stmt, 3),
                    note: columnText(stmt, 4),
                    created: Date(timeIntervalSince1970: Double(sqlite3_column_int64(stmt, 5))))
                select.reset()
                checksum += record.score
                reads += 1
            }
        } catch {
            shared.fail(error)
        }
        if checksum.isNaN { shared.fail(BenchError.checkFailed("NaN score")) }  // keeps the decode alive
        shared.reads.add(reads, ordering: .relaxed)
    }

    private static func writer(path: String, firstID: Int64, batch: Int, shared: Shared) {
        defer { shared.done.signal() }
        var prepared: (RawDatabase, RawStatement)?
        do {
            let db = try RawDatabase(path: path)
            prepared = (db, try db.prepare(
                "INSERT INTO items(id, number, score, name, note, created) VALUES (?, ?, 0.5, ?, ?, 1700000000)"))
        } catch {
            shared.fail(error)
        }
        shared.ready.signal()
        shared.go.wait()
        guard let prepared else { return }
        let (db, insert) = prepared
        let stmt = insert.handle
        let TRANSIENT = sift_sqlite_transient()
        var id = firstID
        var writes = 0
        do {
            while !shared.stop.load(ordering: .relaxed) {
                try db.transaction {
                    for _ in 0..<batch {
                        id += 1
                        sqlite3_bind_int64(stmt, 1, id)
                        sqlite3_bind_int64(stmt, 2, id & 0xFFFF)
                        sqlite3_bind_text(stmt, 3, "written while reading", -1, TRANSIENT)
                        sqlite3_bind_text(stmt, 4, "a row inserted by the concurrent writer", -1, TRANSIENT)
                        try insert.run()
                    }
                }
                writes += batch
            }
        } catch {
            shared.fail(error)
        }
        shared.writes.add(writes, ordering: .relaxed)
    }

    private static func siftReader(_ database: Database, rowCount: Int, seed: UInt64, shared: Shared) {
        defer { shared.done.signal() }
        shared.ready.signal()
        shared.go.wait()
        var rng = SeededGenerator(seed: 0xAEAD_0000 &+ seed)
        var reads = 0
        var checksum = 0.0
        do {
            while !shared.stop.load(ordering: .relaxed) {
                let id = Int64(1 + rng.below(rowCount))
                guard let item: Item = try database.getObject(fromTable: "items", where: Item.Properties.id == id) else {
                    throw BenchError.checkFailed("point select found no row")
                }
                checksum += item.score
                reads += 1
            }
        } catch {
            shared.fail(error)
        }
        if checksum.isNaN { shared.fail(BenchError.checkFailed("NaN score")) }
        shared.reads.add(reads, ordering: .relaxed)
    }

    private static func siftWriter(_ database: Database, firstID: Int64, batch: Int, shared: Shared) {
        defer { shared.done.signal() }
        shared.ready.signal()
        shared.go.wait()
        var id = firstID
        var writes = 0
        do {
            while !shared.stop.load(ordering: .relaxed) {
                let items = (0..<batch).map { _ -> Item in
                    id += 1
                    return Item(BenchRecord(id: id, number: id & 0xFFFF, score: 0.5, name: "written while reading",
                                            note: "a row inserted by the concurrent writer",
                                            created: Date(timeIntervalSince1970: 1_700_000_000)))
                }
                try database.insert(objects: items, intoTable: "items")
                writes += batch
            }
        } catch {
            shared.fail(error)
        }
        shared.writes.add(writes, ordering: .relaxed)
    }
}
