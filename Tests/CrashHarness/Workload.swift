import Foundation
import Sift

// The writer's workload, derived from the workload seed and the batch number alone, so the checker can
// compute what the database must hold after any committed batch without asking the writer.

/// A row of the content table. `id` is `batch * 1000 + row`; `batch` is the batch that first inserted it.
struct Doc: TableCodable, Equatable {
    var id: Int? = nil
    var batch: Int = 0
    var title: String = ""
    var body: String = ""
    var views: Int = 0

    enum CodingKeys: String, CodingTableKey {
        typealias Root = Doc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, batch, title, body, views
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// The synced FTS5 index over `title` and `body` (built-in tokenizer: no ICU needed).
struct DocIndex: TableCodable {
    var title: String = ""
    var body: String = ""

    enum CodingKeys: String, CodingTableKey {
        typealias Root = DocIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61"))
        }
    }
}

/// The last transactional batch, written in that batch's transaction (one row, id 1).
struct Progress: TableCodable {
    var id: Int? = 1
    var batch: Int = 0

    enum CodingKeys: String, CodingTableKey {
        typealias Root = Progress
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, batch
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

enum Names {
    static let content = "docs"
    static let index = "docs_fts"
    static let progress = "progress"
}

/// A small deterministic generator (the same as the test suite's), so runs repeat from their seed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// One batch: what the writer does, and so what the checker expects.
struct Batch {
    enum Kind {
        /// `database.run(transaction:)` around inserts, changes to earlier rows, and the progress row.
        case transaction
        /// One `insert(objects:intoTable:)` call and nothing else: Sift's own transaction (several rows,
        /// the bulk path from the threshold on) or the implicit one of a single autocommit statement.
        case standalone
    }

    enum InsertStyle {
        /// One `insert(objects:)` call for all the rows (the bulk path when there are enough).
        case oneCall
        /// One `insert(objects:)` call per row.
        case perRow
    }

    enum Change {
        /// `update(table:on:with:where:)` of the body (indexed), or the same through `exec(sql:)`.
        case updateBody(id: Int, viaSQL: Bool)
        /// An update of an unindexed column only (the index must not change).
        case touchViews(id: Int)
        /// `insertOrReplace`: a REPLACE of the row, or its resurrection when it was deleted.
        case replace(id: Int)
        case delete(id: Int)
        /// `delete(fromTable:where: id BETWEEN low AND high)`: one statement, several rows.
        case deleteRange(low: Int, high: Int)
    }

    let number: Int
    let kind: Kind
    let rowCount: Int
    let style: InsertStyle
    /// A nested `run(transaction:)` (a savepoint) that inserts row 999 and deletes an earlier row, then throws.
    let rolledBackSavepoint: Bool
    let changes: [Change]

    var insertedIDs: [Int] { (0..<rowCount).map { number * 1000 + $0 } }
    /// The row only the rolled-back savepoint ever inserts.
    var rolledBackID: Int { number * 1000 + 999 }
    /// The row the rolled-back savepoint deletes (and must still be there afterwards).
    var savepointVictim: Int? {
        for change in changes {
            switch change {
            case .updateBody(let id, _), .touchViews(let id), .replace(let id), .delete(let id): return id
            case .deleteRange(let low, _): return low
            }
        }
        return number > 1 ? (number - 1) * 1000 : nil
    }

    /// Every existing-row id this batch may change.
    var touchedIDs: [Int] {
        changes.flatMap { change -> [Int] in
            switch change {
            case .updateBody(let id, _), .touchViews(let id), .replace(let id), .delete(let id): return [id]
            case .deleteRange(let low, let high): return Array(low...high)
            }
        } + (rolledBackSavepoint ? [savepointVictim].compactMap { $0 } : [])
    }
}

struct Workload: Sendable {
    let seed: UInt64
    /// The writer sets `database.fullTextBulkThreshold` to this; bulk batches insert more rows than it.
    let bulkThreshold: Int

    private func generator(_ batch: Int, _ stream: UInt64) -> SplitMix {
        var mixer = SplitMix(seed: seed ^ (UInt64(batch) &* 0xD1B5_4A32_D192_ED03) ^ (stream &* 0x8CB9_2BA7_2F3D_8DD7))
        return SplitMix(seed: mixer.next())
    }

    /// Rows batch `batch` inserts: 1-6, or (one batch in eight or so) threshold+1 to 2*threshold.
    func rowCount(_ batch: Int) -> Int {
        var g = generator(batch, 1)
        if g.below(100) < 12 { return bulkThreshold + 1 + g.below(bulkThreshold) }
        return 1 + g.below(6)
    }

    func batch(_ number: Int) -> Batch {
        var g = generator(number, 2)
        let rows = rowCount(number)
        if number > 1 && g.below(100) < 20 {
            return Batch(number: number, kind: .standalone, rowCount: rows, style: .oneCall, rolledBackSavepoint: false, changes: [])
        }
        let style: Batch.InsertStyle = rows > 1 && rows < bulkThreshold && g.below(100) < 25 ? .perRow : .oneCall
        let savepoint = g.below(100) < 15
        var changes: [Batch.Change] = []
        if number > 1 {
            for _ in 0..<g.below(5) {
                // Mostly recent batches, so consecutive batches change the same rows; sometimes any earlier one.
                let target = g.below(100) < 70 ? number - 1 - g.below(min(number - 1, 20)) : 1 + g.below(number - 1)
                let count = rowCount(target)
                let row = g.below(count)
                let id = target * 1000 + row
                switch g.below(100) {
                case 0..<30: changes.append(.updateBody(id: id, viaSQL: false))
                case 30..<45: changes.append(.updateBody(id: id, viaSQL: true))
                case 45..<55: changes.append(.touchViews(id: id))
                case 55..<70: changes.append(.replace(id: id))
                case 70..<90: changes.append(.delete(id: id))
                default: changes.append(.deleteRange(low: id, high: target * 1000 + min(row + 3, count - 1)))
                }
            }
        }
        return Batch(number: number, kind: .transaction, rowCount: rows, style: style, rolledBackSavepoint: savepoint, changes: changes)
    }

    // MARK: - Text: every row has words no other row has

    /// In the title for the row's whole life.
    static func titleWord(_ id: Int) -> String { "b\(id / 1000)r\(id % 1000)" }
    /// In the title of every row first inserted by `batch`.
    static func groupWord(_ batch: Int) -> String { "g\(batch)" }
    /// In the body while the row is at `version` (0 when inserted, then the batch that last rewrote it).
    static func versionWord(_ id: Int, _ version: Int) -> String { "v\(id / 1000)r\(id % 1000)u\(version)" }

    static func title(_ id: Int) -> String { "\(titleWord(id)) \(groupWord(id / 1000)) title" }

    static func body(_ id: Int, version: Int) -> String {
        var g = SplitMix(seed: UInt64(id) &* 31 &+ UInt64(version))
        let filler = (0..<6).map { _ in "w\(g.below(40))" }.joined(separator: " ")
        return "\(versionWord(id, version)) common \(filler)"
    }

    static func doc(_ id: Int, version: Int) -> Doc {
        Doc(id: id, batch: id / 1000, title: title(id), body: body(id, version: version), views: 0)
    }
}

/// What the database must hold after a given batch committed: the workload replayed in memory.
struct Expected {
    struct Row: Equatable {
        var doc: Doc
        var version: Int
    }

    let workload: Workload
    private(set) var batch = 0
    private(set) var rows: [Int: Row] = [:]
    /// Every body version each id ever had, so stale words can be searched for.
    private(set) var versions: [Int: [Int]] = [:]
    /// The last `.transaction` batch (what the progress row must say).
    private(set) var lastTransaction = 0

    init(workload: Workload) { self.workload = workload }

    mutating func advance(to target: Int) {
        while batch < target {
            batch += 1
            apply(workload.batch(batch))
        }
    }

    private mutating func set(_ id: Int, version: Int) {
        rows[id] = Row(doc: Workload.doc(id, version: version), version: version)
        versions[id, default: []].append(version)
    }

    private mutating func apply(_ plan: Batch) {
        for id in plan.insertedIDs { set(id, version: 0) }
        for change in plan.changes {
            switch change {
            case .updateBody(let id, _):
                guard var row = rows[id] else { continue }
                row.doc.body = Workload.body(id, version: plan.number)
                row.version = plan.number
                rows[id] = row
                versions[id, default: []].append(plan.number)
            case .touchViews(let id):
                rows[id]?.doc.views = plan.number
            case .replace(let id):
                set(id, version: plan.number)
            case .delete(let id):
                rows[id] = nil
            case .deleteRange(let low, let high):
                for id in low...high { rows[id] = nil }
            }
        }
        if plan.kind == .transaction { lastTransaction = plan.number }
    }

    /// The same aggregates the checker computes in SQL over the whole content table.
    var checksum: [Int64] {
        var result: [Int64] = [Int64(rows.count), 0, 0, 0, 0, 0]
        for (id, row) in rows {
            let id = Int64(id)
            result[1] += id
            result[2] += Int64(row.doc.batch) * (id % 983 + 1)
            result[3] += Int64(row.doc.views) * (id % 991 + 1)
            result[4] += Int64(row.doc.title.utf8.count) * (id % 997 + 1)
            result[5] += Int64(row.doc.body.utf8.count) * (id % 1009 + 1)
        }
        return result
    }

    static let checksumSQL = """
        SELECT count(*), coalesce(sum(id), 0), coalesce(sum(batch * (id % 983 + 1)), 0), coalesce(sum(views * (id % 991 + 1)), 0), \
        coalesce(sum(length(title) * (id % 997 + 1)), 0), coalesce(sum(length(body) * (id % 1009 + 1)), 0) FROM docs
        """
}
