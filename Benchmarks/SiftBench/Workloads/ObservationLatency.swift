import Foundation
import Sift
import Synchronization

/// How long after a commit an observation delivers the fresh value: one observed table, one committed insert at a
/// time, each waiting for its delivery (the count of rows, fetched on a reader) before the next. Report-only:
/// the median and 95th percentile, and the same commits with no observer for the commit's own cost.
enum ObservationLatency {
    struct Row: TableCodable, Sendable {
        var id: Int = 0
        var text: String = ""
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Row
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case id, text
            static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
                [id: ColumnConstraintBinding(isPrimary: true)]
            }
        }
    }

    private final class Latest: Sendable {
        let value = Mutex<(count: Int, at: ContinuousClock.Instant)>((-1, .now))
        let delivered = DispatchSemaphore(value: 0)
    }

    static let commits = 500

    static func run(_ context: RunContext) throws {
        let database = Database(withPath: context.databasePath)
        try database.removeFiles()  // each round starts empty
        try database.create(table: "observed", of: Row.self)
        try database.create(table: "unobserved", of: Row.self)
        let countRows = { @Sendable (db: Database) throws -> Int in
            Int(try db.getValue(on: Column.all.count(), fromTable: "observed").int64Value)
        }
        var alone: [Double] = []
        for i in 0..<commits {
            let start = ContinuousClock.now
            try database.insert(objects: Row(id: i, text: "row \(i)"), intoTable: "unobserved")
            alone.append((ContinuousClock.now - start).seconds)
        }

        let latest = Latest()
        let token = database.observe(tables: ["observed"], fetch: countRows).start(onChange: { count in
            latest.value.withLock { $0 = (count, .now) }
            latest.delivered.signal()
        })
        defer { token.cancel() }
        latest.delivered.wait()  // the initial value
        var latencies: [Double] = []
        for i in 0..<commits {
            try database.insert(objects: Row(id: i, text: "row \(i)"), intoTable: "observed")
            let committed = ContinuousClock.now
            while true {
                guard latest.delivered.wait(timeout: .now() + 5) == .success else {
                    throw BenchError.checkFailed("no delivery within 5 s after commit \(i)")
                }
                let (count, at) = latest.value.withLock { $0 }
                if count == i + 1 {
                    latencies.append(max(0, (at - committed).seconds))
                    break
                }
            }
        }
        try context.check(latencies.count == commits, "one delivery per commit")
        context.record("delivery after commit, median", percentile(latencies, 0.5) * 1e6, unit: "µs", higherIsBetter: false)
        context.record("delivery after commit, p95", percentile(latencies, 0.95) * 1e6, unit: "µs", higherIsBetter: false)
        context.record("unobserved commit, median", percentile(alone, 0.5) * 1e6, unit: "µs", higherIsBetter: false)
    }

    private static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }
}
