import CSQLite
import Foundation
import XCTest
@testable import Sift

// Sync-invariant property test.
//
// Seeded random sequences of writes go through every way Sift writes a synced content table: insert,
// insertOrReplace (by primary key, through the UNIQUE `code` column so the replaced row has another rowid,
// and both at once), updates of text, of the rowid and of an unindexed column, deletes, bulk inserts
// (`fullTextBulkThreshold` = 8), inserts whose `encode(to:)` throws part-way (bulk and non-bulk sizes, usually
// followed by a retry of the good objects in a smaller batch, with the same keys), explicit rollbacks, commits, nested transactions (an inner failure undone, the outer work committed), and
// raw SQL through `Database.exec(sql:)`, `prepare(sql:)` and `Handle.exec(sql:)`: statements led by a comment,
// `WITH ... INSERT/UPDATE/DELETE`, REPLACE, UPSERT, `UPDATE OR REPLACE` of the rowid, RETURNING (also left
// before its end) and statements that fail part-way. Some operations also have one of their commits made to
// fail (a commit hook vetoes it), which must undo the operation as a whole. New rowids are often ones that a
// failed, rolled-back, deleted or moved row had, so stale index state shows. Configurations: one index
// (unicode61), and two indexes of different tokenizers on the same content table (unicode61 + trigram over a
// subset of the columns; porter over the columns in another order + unicode61).
//
// The test keeps a model of the live rows. After every step:
// - no transaction is left open, and a call committed at most once (content and index commit together);
// - the content table equals the model;
// - `verify(index:)` is consistent for every index;
// - in every index, each live row's unique word (`w17x`) finds exactly that row, a sample of dead words
//   (deleted, replaced, rolled back, never committed) finds nothing, and a vocabulary word finds exactly the
//   live rows containing it in that index's columns.
//
// Environment:
//   SIFT_PROPERTY_SEED   base seed (default 20240607; "random" picks one); printed, with the replay command
//   SIFT_PROPERTY_STEPS  steps per configuration (default 300)
//   SIFT_PROPERTY_SKIP   comma-separated operation kinds to leave out (see `SyncPropertyKind`), and/or
//                        "commitFailure" to inject no commit failures; for bisecting, never for CI
//   SIFT_PROPERTY_MODE   "trigger" creates the indexes in `.trigger` mode, where SQLite triggers (not Sift's
//                        explicit sync) maintain them: a reference run that checks the test's own model and
//                        search expectations; the default, "explicit", is what this test is for. (It turns
//                        on recursive_triggers: without it SQLite fires no delete trigger for a row that
//                        REPLACE removes, and trigger mode leaves that row in the index.)

/// Content rows: `id` is the rowid alias, `code` is UNIQUE, `views` is not indexed, `poison` is not a column.
final class SyncPropertyDoc: TableCodable {
    var id: Int? = nil
    var code: String = ""
    var title: String? = nil
    var body: String = ""
    var views: Int = 0
    /// 0: encodes; 1: `encode(to:)` throws before binding anything; 2: throws after binding every column.
    var poison: Int = 0

    enum CodingKeys: String, CodingTableKey {
        typealias Root = SyncPropertyDoc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, code, title, body, views
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
            [id: ColumnConstraintBinding(isPrimary: true), code: ColumnConstraintBinding(isNotNull: true, isUnique: true)]
        }
    }

    init() {}
    init(_ id: Int?, _ row: SyncPropertyRow, poison: Int = 0) {
        self.id = id
        code = row.code
        title = row.title
        body = row.body
        views = row.views
        self.poison = poison
    }

    func encode(to encoder: Encoder) throws {
        if poison == 1 { throw SyncPropertyPoison() }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(code, forKey: .code)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(views, forKey: .views)
        if poison == 2 { throw SyncPropertyPoison() }
    }
}

/// An index over title and body.
final class SyncPropertyFullIndex: TableCodable {
    var title: String? = nil
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = SyncPropertyFullIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61 remove_diacritics 2"))
        }
    }
}

/// An index over a subset of the columns: body only.
final class SyncPropertyBodyIndex: TableCodable {
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = SyncPropertyBodyIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "trigram"))
        }
    }
}

/// An index over body and title, in the other order than the content table.
final class SyncPropertySwappedIndex: TableCodable {
    var body: String = ""
    var title: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = SyncPropertySwappedIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case body, title
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "porter unicode61"))
        }
    }
}

struct SyncPropertyPoison: Error, CustomStringConvertible {
    var description: String { "SyncPropertyPoison (encode(to:) threw on purpose)" }
}

struct SyncPropertyRollback: Error, CustomStringConvertible {
    var description: String { "SyncPropertyRollback (transaction body threw on purpose)" }
}

/// A broken expectation found while an operation ran.
struct SyncPropertyMismatch: Error, CustomStringConvertible {
    let description: String
}

/// One content row as the model knows it; `word` is the row's unique token, which lives in `body`.
struct SyncPropertyRow: Equatable {
    var code: String
    var title: String?
    var body: String
    var views: Int
    var word: String
}

/// The operation kinds; `SIFT_PROPERTY_SKIP` takes these names.
enum SyncPropertyKind: String, CaseIterable {
    case insert, insertConflict, insertOrReplace, updateText, updateTitles, updateRowid, updateViews, delete
    case bulkInsert, failingInsert, failingBulkInsert, retryInsert
    case rollback, transaction, nestedTransaction
    case sqlComment, sqlWith, sqlOther

    static let atomic: [SyncPropertyKind] = [.insert, .insertConflict, .insertOrReplace, .updateText, .updateTitles,
                                             .updateRowid, .updateViews, .delete, .bulkInsert, .failingInsert,
                                             .failingBulkInsert, .sqlComment, .sqlWith, .sqlOther]

    var weight: Int {
        switch self {
        case .insert: return 10
        case .insertConflict: return 3
        case .insertOrReplace: return 8
        case .updateText: return 8
        case .updateTitles: return 3
        case .updateRowid: return 6
        case .updateViews: return 3
        case .delete: return 7
        case .bulkInsert: return 8
        case .failingInsert: return 3
        case .failingBulkInsert: return 4
        case .retryInsert: return 0
        case .rollback: return 4
        case .transaction: return 4
        case .nestedTransaction: return 4
        case .sqlComment: return 6
        case .sqlWith: return 6
        case .sqlOther: return 9
        }
    }
}

/// Counts commits made while armed, and vetoes the `failAt`-th one.
final class SyncPropertyCommitProbe: @unchecked Sendable {
    var armed = false
    var commits = 0
    var failAt = 0
    var failed = false

    func arm(failAt: Int) {
        commits = 0
        self.failAt = failAt
        failed = false
        armed = true
    }
}

private let syncPropertyCommitHook: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
    guard let context else { return 0 }
    let probe = Unmanaged<SyncPropertyCommitProbe>.fromOpaque(context).takeUnretainedValue()
    guard probe.armed else { return 0 }
    probe.commits += 1
    if probe.commits == probe.failAt {
        probe.failed = true
        return 1
    }
    return 0
}

struct SyncPropertyIndexSpec {
    let name: String
    /// The content columns the index covers.
    let columns: [String]
    let tokenizer: String
    let create: (Database, String, String, SyncMode) throws -> Void

    static func full(_ name: String, _ tokenizer: String) -> SyncPropertyIndexSpec {
        SyncPropertyIndexSpec(name: name, columns: ["title", "body"], tokenizer: tokenizer) {
            try $0.create(virtualTable: $1, of: SyncPropertyFullIndex.self, syncedWith: "docs", mode: $3, tokenizer: $2)
        }
    }

    static func body(_ name: String, _ tokenizer: String) -> SyncPropertyIndexSpec {
        SyncPropertyIndexSpec(name: name, columns: ["body"], tokenizer: tokenizer) {
            try $0.create(virtualTable: $1, of: SyncPropertyBodyIndex.self, syncedWith: "docs", mode: $3, tokenizer: $2)
        }
    }

    static func swapped(_ name: String, _ tokenizer: String) -> SyncPropertyIndexSpec {
        SyncPropertyIndexSpec(name: name, columns: ["body", "title"], tokenizer: tokenizer) {
            try $0.create(virtualTable: $1, of: SyncPropertySwappedIndex.self, syncedWith: "docs", mode: $3, tokenizer: $2)
        }
    }
}

final class SyncPropertyTests: SiftTestCase {
    /// One synced index.
    func testOneIndex() throws {
        try check("OneIndex", salt: 0x1, [.full("docs_fts", "unicode61 remove_diacritics 2")])
    }

    /// Two synced indexes on the same content table: unicode61 over title and body, trigram over body only.
    func testTwoIndexesUnicodeAndTrigram() throws {
        try check("TwoIndexesUnicodeAndTrigram", salt: 0x2,
                  [.full("docs_fts", "unicode61 remove_diacritics 2"), .body("docs_tri", "trigram")])
    }

    /// Two synced indexes: porter over (body, title) in swapped column order, then unicode61 over (title, body).
    func testTwoIndexesPorterAndUnicode() throws {
        try check("TwoIndexesPorterAndUnicode", salt: 0x3,
                  [.swapped("docs_porter", "porter unicode61"), .full("docs_fts", "unicode61 remove_diacritics 0")])
    }

    private func check(_ name: String, salt: UInt64, _ indexes: [SyncPropertyIndexSpec]) throws {
        let environment = ProcessInfo.processInfo.environment
        let seed: UInt64
        switch environment["SIFT_PROPERTY_SEED"] {
        case nil, "": seed = 20_240_607
        case "random": seed = UInt64.random(in: 1...999_999_999)
        case let text?:
            guard let value = UInt64(text) else { return XCTFail("SIFT_PROPERTY_SEED must be a number or \"random\": \(text)") }
            seed = value
        }
        let steps = environment["SIFT_PROPERTY_STEPS"].flatMap { Int($0) } ?? 300
        let skip = Set((environment["SIFT_PROPERTY_SKIP"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let known = Set(SyncPropertyKind.allCases.map(\.rawValue) + ["commitFailure"])
        for unknown in skip.subtracting(known) { XCTFail("SIFT_PROPERTY_SKIP: unknown kind \(unknown); known: \(known.sorted())") }

        let mode: SyncMode
        switch environment["SIFT_PROPERTY_MODE"] {
        case nil, "", "explicit": mode = .explicit
        case "trigger": mode = .trigger
        case let text?: return XCTFail("SIFT_PROPERTY_MODE must be explicit or trigger: \(text)")
        }

        let database = makeDatabase()
        defer { database.close() }
        let probe = SyncPropertyCommitProbe()
        database.setConfig(named: "syncProperty.commitProbe") { handle in
            _ = sqlite3_commit_hook(handle.sqliteConnection, syncPropertyCommitHook, Unmanaged.passUnretained(probe).toOpaque())
        }
        if mode == .trigger {
            database.setConfig(named: "syncProperty.recursiveTriggers") { try $0.exec(sql: "PRAGMA recursive_triggers = ON") }
        }
        try database.create(table: "docs", of: SyncPropertyDoc.self)
        for index in indexes { try index.create(database, index.name, index.tokenizer, mode) }
        database.fullTextBulkThreshold = SyncPropertyRun.bulkThreshold

        print("SyncPropertyTests[\(name)] seed=\(seed) steps=\(steps) indexes=\(indexes.map { "\($0.name)(\($0.tokenizer))" })"
              + (skip.isEmpty ? "" : " skip=\(skip.sorted())") + (mode == .explicit ? "" : " mode=\(mode.rawValue)"))
        let run = SyncPropertyRun(database: database, name: name, indexes: indexes, seed: seed, salt: salt, steps: steps,
                                  skip: skip, probe: probe)
        let started = Date()
        let failure = run.run()
        let elapsed = Date().timeIntervalSince(started)
        print(run.summary(elapsed: elapsed))
        if let failure {
            print(failure)
            XCTFail(failure)
        }
    }
}

/// One seeded run over one configuration.
final class SyncPropertyRun {
    static let bulkThreshold = 8
    /// Vocabulary for the non-unique words: none is a substring of another, of a unique word, or of a noise
    /// word, and none stems like another, so token and substring (trigram) matching agree.
    static let vocabulary = ["amber", "cobalt", "indigo", "scarlet", "violet", "maroon", "sienna", "ochre"]
    static let noise = ["café", "naïve", "façade", "Ünïcödé", "smörgåsbord", "crème"]

    typealias Kind = SyncPropertyKind
    typealias Row = SyncPropertyRow
    typealias Doc = SyncPropertyDoc
    typealias P = SyncPropertyDoc.Properties

    struct Model: Equatable {
        var rows: [Int: Row] = [:]
        var maxId: Int { rows.keys.max() ?? 0 }
        /// INSERT OR REPLACE: rows with the same rowid or the same code go.
        mutating func replace(_ id: Int, _ row: Row) {
            rows = rows.filter { $0.key != id && $0.value.code != row.code }
            rows[id] = row
        }
        func id(ofCode code: String) -> Int? { rows.first { $0.value.code == code }?.key }
    }

    enum Failure: CustomStringConvertible {
        case none, encode, constraint, deliberate
        func matches(_ error: Error) -> Bool {
            switch self {
            case .none: return false
            case .encode: return error is SyncPropertyPoison
            case .constraint: return (error as? SiftError)?.code == .constraint
            case .deliberate: return error is SyncPropertyRollback
            }
        }
        var description: String {
            switch self {
            case .none: return "none"
            case .encode: return "encode error"
            case .constraint: return "constraint error"
            case .deliberate: return "deliberate rollback"
            }
        }
    }

    /// An operation: what it does, the model afterwards (nil: the call must fail), and how to run it.
    struct Planned {
        var kind: Kind
        var text: String
        var after: Model?
        var failure: Failure = .none
        /// False for a RETURNING write left before its end: `finalize()` cannot report a failed commit.
        var vetoable = true
        var run: () throws -> Void
    }

    enum SQLPath: String, CaseIterable { case exec, prepared, handle }

    let database: Database
    let name: String
    let indexes: [SyncPropertyIndexSpec]
    let seed: UInt64
    let steps: Int
    let skip: Set<String>
    let probe: SyncPropertyCommitProbe
    var rng: SplitMix
    var model = Model()
    var wordNumber = 0
    var codeNumber = 0
    var allWords: [String] = []
    /// Rowids that stopped being live or never became live (the last few hundred).
    var recycled: [Int] = []
    /// Rowids handed out while planning the current step.
    var allocated: [Int] = []
    /// The good objects of the last failed insert, which the next step usually retries in a smaller batch.
    var retryable: [(id: Int?, row: Row)] = []
    var history: [String] = []
    var applied: [Kind: Int] = [:]
    var failedAsExpected: [Kind: Int] = [:]
    var nested: [Kind: Int] = [:]
    var commitFailures = 0
    var stepsRun = 0
    var searches = 0

    init(database: Database, name: String, indexes: [SyncPropertyIndexSpec], seed: UInt64, salt: UInt64, steps: Int,
         skip: Set<String>, probe: SyncPropertyCommitProbe) {
        self.database = database
        self.name = name
        self.indexes = indexes
        self.seed = seed
        self.steps = steps
        self.skip = skip
        self.probe = probe
        // Seeds k and k + 1 would give shifted copies of one SplitMix sequence: scramble the seed first.
        var scrambler = SplitMix(seed: seed ^ (salt &* 0xD1B5_4A32_D192_ED03))
        rng = SplitMix(seed: scrambler.next())
    }

    // MARK: - Randomness

    func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

    func choose(from kinds: [Kind]) -> Kind {
        let allowed = kinds.filter { !skip.contains($0.rawValue) }
        precondition(!allowed.isEmpty, "SIFT_PROPERTY_SKIP leaves no operation")
        let size = model.rows.count
        func weight(_ kind: Kind) -> Int {
            switch kind {
            case .delete: return size > 45 ? 40 : size < 8 ? 1 : kind.weight
            case .bulkInsert: return size > 70 ? 1 : kind.weight
            default: return kind.weight
            }
        }
        let total = allowed.map(weight).reduce(0, +)
        var draw = int(0...total - 1)
        for kind in allowed {
            draw -= weight(kind)
            if draw < 0 { return kind }
        }
        return allowed[0]
    }

    // MARK: - Data

    func newWord() -> String {
        wordNumber += 1
        let word = "w\(wordNumber)x"
        allWords.append(word)
        return word
    }

    func newCode() -> String {
        codeNumber += 1
        return "c\(codeNumber)"
    }

    func vocabularyWords(upTo count: Int) -> [String] {
        var words = (0..<int(0...count)).map { _ -> String in
            let word = pick(Self.vocabulary)
            switch int(0...9) {
            case 0: return word.uppercased()
            case 1, 2: return word.capitalized
            default: return word
            }
        }
        if chance(0.25) { words.insert(pick(Self.noise), at: int(0...words.count)) }
        return words
    }

    func joined(_ words: [String]) -> String {
        words.enumerated().map { $0.offset == 0 ? $0.element : (chance(0.15) ? ", " : " ") + $0.element }.joined()
    }

    func newTitle(allowNil: Bool = true) -> String? {
        if allowNil && chance(0.1) { return nil }
        return joined(vocabularyWords(upTo: 3))
    }

    func newBody(_ word: String) -> String {
        var words = vocabularyWords(upTo: 4)
        words.insert(word, at: int(0...words.count))
        return joined(words)
    }

    func newRow(allowNilTitle: Bool = true) -> Row {
        let word = newWord()
        return Row(code: newCode(), title: newTitle(allowNil: allowNilTitle), body: newBody(word), views: int(0...20), word: word)
    }

    /// A rowid not in `model`: past the end, a hole, or often a rowid that a failed, rolled-back, deleted or moved
    /// row had (as an application retrying with its own keys would), so stale index state would show.
    func freshId(_ model: Model) -> Int {
        let id = pickFreshId(model)
        allocated.append(id)
        return id
    }

    private func pickFreshId(_ model: Model) -> Int {
        let top = model.maxId
        // Mostly the most recently abandoned rowids: retries come soon after the failure.
        if !recycled.isEmpty && chance(0.4) {
            let recent = Array(recycled.suffix(chance(0.75) ? 24 : 300))
            for _ in 0..<4 {
                let candidate = pick(recent)
                if model.rows[candidate] == nil { return candidate }
            }
        }
        if chance(0.3) {
            for _ in 0..<8 {
                let candidate = int(1...top + 4)
                if model.rows[candidate] == nil { return candidate }
            }
        }
        return top + 1 + int(0...2)
    }

    func existingId(_ model: Model) -> Int? {
        model.rows.isEmpty ? nil : pick(model.rows.keys.sorted())
    }

    // MARK: - Planning

    func plan(_ kind: Kind, from model: Model) -> Planned {
        switch kind {
        case .insert: return planInsert(model, count: int(1...Self.bulkThreshold - 1), kind: .insert)
        case .bulkInsert: return planBulkInsert(model)
        case .insertConflict: return planInsertConflict(model)
        case .insertOrReplace: return planInsertOrReplace(model)
        case .updateText: return planUpdateText(model)
        case .updateTitles: return planUpdateTitles(model)
        case .updateRowid: return planUpdateRowid(model)
        case .updateViews: return planUpdateViews(model)
        case .delete: return planDelete(model)
        case .failingInsert: return planFailingInsert(model, bulk: false)
        case .failingBulkInsert: return planFailingInsert(model, bulk: true)
        case .retryInsert: return planRetry(model)
        case .rollback: return planRollback(model)
        case .transaction: return planTransaction(model)
        case .nestedTransaction: return planNested(model)
        case .sqlComment: return planSQLComment(model)
        case .sqlWith: return planSQLWith(model)
        case .sqlOther: return planSQLOther(model)
        }
    }

    /// New rows for a batch: explicit fresh ids, or nil ids that SQLite numbers max(rowid) + 1.
    func newDocs(_ count: Int, into after: inout Model) -> (docs: [Doc], ids: [Int], text: String) {
        let (docs, ids, text, _) = newDocsAndRows(count, into: &after)
        return (docs, ids, text)
    }

    func newDocsAndRows(_ count: Int, into after: inout Model) -> (docs: [Doc], ids: [Int], text: String, rows: [Row]) {
        var docs: [Doc] = [], ids: [Int] = [], text: [String] = [], rows: [Row] = []
        for _ in 0..<count {
            let row = newRow()
            rows.append(row)
            if chance(0.2) {
                let id = after.maxId + 1
                docs.append(Doc(nil, row))
                text.append("auto:\(id)")
                ids.append(id)
                after.rows[id] = row
            } else {
                let id = freshId(after)
                docs.append(Doc(id, row))
                text.append("\(id)")
                ids.append(id)
                after.rows[id] = row
            }
        }
        return (docs, ids, text.joined(separator: ","), rows)
    }

    func planInsert(_ model: Model, count: Int, kind: Kind) -> Planned {
        var after = model
        let (docs, _, text) = newDocs(count, into: &after)
        let database = self.database
        return Planned(kind: kind, text: "\(kind) \(count) ids [\(text)]", after: after) {
            try database.insert(objects: docs, intoTable: "docs")
        }
    }

    func planBulkInsert(_ model: Model) -> Planned {
        let count = int(Self.bulkThreshold...Self.bulkThreshold + 12)
        guard chance(0.5) else { return planInsert(model, count: count, kind: .bulkInsert) }
        // A contiguous block of rowids, maybe shuffled: one or a few rowid runs for the bulk indexer.
        var after = model
        let base = model.maxId + 1 + int(0...3)
        var ids = Array(base..<base + count)
        allocated += ids
        if chance(0.5) { ids.shuffle(using: &rng) }
        let docs = ids.map { id -> Doc in
            let row = newRow()
            after.rows[id] = row
            return Doc(id, row)
        }
        let database = self.database
        return Planned(kind: .bulkInsert, text: "bulkInsert \(count) block ids [\(ids.map(String.init).joined(separator: ","))]",
                       after: after) {
            try database.insert(objects: docs, intoTable: "docs")
        }
    }

    func planInsertConflict(_ model: Model) -> Planned {
        let bulk = chance(0.5)
        let count = bulk ? int(Self.bulkThreshold...Self.bulkThreshold + 8) : int(1...Self.bulkThreshold - 1)
        var scratch = model
        let (built, ids, text) = newDocs(count, into: &scratch)
        var docs = built
        let position = int(0...count - 1)
        var options: [String] = []
        if !model.rows.isEmpty { options += ["existing id", "existing code"] }
        if position > 0 { options += ["duplicate id in batch", "duplicate code in batch"] }
        guard !options.isEmpty else { return planInsert(model, count: count, kind: count >= Self.bulkThreshold ? .bulkInsert : .insert) }
        let how = pick(options)
        let victim = docs[position]
        let other = position > 0 ? int(0...position - 1) : 0
        switch how {
        case "existing id": victim.id = existingId(model)
        case "existing code": victim.code = model.rows[existingId(model)!]!.code
        case "duplicate id in batch": victim.id = ids[other]
        default: victim.code = docs[other].code
        }
        docs[position] = victim
        let database = self.database
        return Planned(kind: .insertConflict,
                       text: "insertConflict \(count) ids [\(text)] object \(position) gets \(how) (id \(victim.id.map(String.init) ?? "auto"), code \(victim.code))",
                       after: nil, failure: .constraint) {
            try database.insert(objects: docs, intoTable: "docs")
        }
    }

    func planInsertOrReplace(_ model: Model) -> Planned {
        let count = int(1...4)
        var after = model
        var docs: [Doc] = [], text: [String] = []
        for _ in 0..<count {
            var row = newRow()
            var options = ["new"]
            if !after.rows.isEmpty { options += ["same id", "same code"] }
            if after.rows.count >= 2 { options.append("id of one row, code of another") }
            let how = pick(options)
            let id: Int
            switch how {
            case "same id":
                id = existingId(after)!
                if chance(0.5) { row.code = after.rows[id]!.code }
            case "same code":
                id = freshId(after)
                row.code = after.rows[existingId(after)!]!.code
            case "id of one row, code of another":
                let ids = after.rows.keys.sorted().shuffled(using: &rng)
                id = ids[0]
                row.code = after.rows[ids[1]]!.code
            default:
                id = freshId(after)
            }
            after.replace(id, row)
            docs.append(Doc(id, row))
            text.append("\(id)/\(row.code) (\(how))")
        }
        let database = self.database
        return Planned(kind: .insertOrReplace, text: "insertOrReplace [\(text.joined(separator: ", "))]", after: after) {
            try database.insertOrReplace(objects: docs, intoTable: "docs")
        }
    }

    func planUpdateText(_ model: Model) -> Planned {
        guard let id = existingId(model) else { return planInsert(model, count: 1, kind: .insert) }
        let database = self.database
        var after = model
        var row = model.rows[id]!
        let word = newWord()
        switch int(0...4) {
        case 0, 1:
            row.body = newBody(word)
            row.word = word
            after.rows[id] = row
            let body = row.body
            return Planned(kind: .updateText, text: "updateText body of \(id) (values) -> \(word)", after: after) {
                try database.update(table: "docs", on: [P.body], with: [body], where: P.id == id)
            }
        case 2:
            row.title = newTitle()
            row.body = newBody(word)
            row.word = word
            after.rows[id] = row
            let doc = Doc(nil, row)
            return Planned(kind: .updateText, text: "updateText title+body of \(id) (object, title \(row.title == nil ? "NULL" : "text")) -> \(word)",
                           after: after) {
                try database.update(table: "docs", on: [P.title, P.body], with: doc, where: P.id == id)
            }
        case 3:
            // A title-only change: the body-only index must not change, the others must.
            let title = newTitle(allowNil: false)!
            row.title = title
            after.rows[id] = row
            return Planned(kind: .updateText, text: "updateText title of \(id) (values)", after: after) {
                try database.update(table: "docs", on: P.title, with: [title], where: P.id == id)
            }
        default:
            var poisoned = row
            poisoned.body = newBody(word)
            let doc = Doc(nil, poisoned, poison: int(1...2))
            return Planned(kind: .updateText, text: "updateText body of \(id) (object whose encode throws, poison \(doc.poison))",
                           after: nil, failure: .encode) {
                try database.update(table: "docs", on: [P.body], with: doc, where: P.id == id)
            }
        }
    }

    func condition(_ model: Model) -> (Condition, String, (Int, Row) -> Bool) {
        switch int(0...2) {
        case 0:
            let limit = int(0...12)
            return (P.views < limit, "views < \(limit)", { $1.views < limit })
        case 1:
            let low = int(0...max(1, model.maxId)), high = low + int(0...6)
            return (P.id.between(low, high), "id BETWEEN \(low) AND \(high)", { id, _ in id >= low && id <= high })
        default:
            let word = pick(Self.vocabulary)
            return (P.title.like("%\(word)%"), "title LIKE %\(word)%", { $1.title?.lowercased().contains(word) ?? false })
        }
    }

    func planUpdateTitles(_ model: Model) -> Planned {
        let (condition, text, matches) = self.condition(model)
        let title = newTitle()
        var after = model
        for (id, row) in model.rows where matches(id, row) { after.rows[id]?.title = title }
        let database = self.database
        let changed = model.rows.filter { matches($0.key, $0.value) }.count
        if let title {
            return Planned(kind: .updateTitles, text: "updateTitles where \(text) (\(changed) rows, values)", after: after) {
                try database.update(table: "docs", on: P.title, with: [title], where: condition)
            }
        }
        let doc = Doc()
        return Planned(kind: .updateTitles, text: "updateTitles to NULL where \(text) (\(changed) rows, object)", after: after) {
            try database.update(table: "docs", on: P.title, with: doc, where: condition)
        }
    }

    func planUpdateRowid(_ model: Model) -> Planned {
        guard let id = existingId(model) else { return planInsert(model, count: 1, kind: .insert) }
        let database = self.database
        if model.rows.count >= 2 && chance(0.2) {
            let target = model.rows.keys.filter { $0 != id }.sorted()[int(0...model.rows.count - 2)]
            return Planned(kind: .updateRowid, text: "updateRowid \(id) -> existing \(target)", after: nil, failure: .constraint) {
                try database.update(table: "docs", on: P.id, with: [target], where: P.id == id)
            }
        }
        let target = freshId(model)
        var after = model
        var row = after.rows.removeValue(forKey: id)!
        if chance(0.5) {
            after.rows[target] = row
            return Planned(kind: .updateRowid, text: "updateRowid \(id) -> \(target)", after: after) {
                try database.update(table: "docs", on: P.id, with: [target], where: P.id == id)
            }
        }
        let word = newWord()
        row.body = newBody(word)
        row.word = word
        after.rows[target] = row
        let body = row.body
        return Planned(kind: .updateRowid, text: "updateRowid \(id) -> \(target) with body -> \(word)", after: after) {
            try database.update(table: "docs", on: [P.id, P.body], with: [target, body], where: P.id == id)
        }
    }

    func planUpdateViews(_ model: Model) -> Planned {
        let (condition, text, matches) = self.condition(model)
        let views = int(0...20)
        var after = model
        for (id, row) in model.rows where matches(id, row) { after.rows[id]?.views = views }
        let database = self.database
        return Planned(kind: .updateViews, text: "updateViews = \(views) where \(text)", after: after) {
            try database.update(table: "docs", on: P.views, with: [views], where: condition)
        }
    }

    func planDelete(_ model: Model) -> Planned {
        let database = self.database
        var after = model
        switch int(0...3) {
        case 0:
            let id = chance(0.9) ? existingId(model) ?? 1 : model.maxId + 7
            after.rows[id] = nil
            return Planned(kind: .delete, text: "delete id \(id)", after: after) {
                try database.delete(fromTable: "docs", where: P.id == id)
            }
        case 1:
            let ids = (0..<int(1...4)).compactMap { _ in existingId(model) }
            for id in ids { after.rows[id] = nil }
            return Planned(kind: .delete, text: "delete ids in \(ids)", after: after) {
                try database.delete(fromTable: "docs", where: P.id.in(ids))
            }
        default:
            let (condition, text, matches) = self.condition(model)
            after.rows = model.rows.filter { !matches($0.key, $0.value) }
            return Planned(kind: .delete, text: "delete where \(text) (\(model.rows.count - after.rows.count) rows)", after: after) {
                try database.delete(fromTable: "docs", where: condition)
            }
        }
    }

    /// A multi-object insert whose encode throws on one object: nothing of it may stay.
    func planFailingInsert(_ model: Model, bulk: Bool) -> Planned {
        let kind: Kind = bulk ? .failingBulkInsert : .failingInsert
        let count = bulk ? int(Self.bulkThreshold...Self.bulkThreshold + 12) : int(2...Self.bulkThreshold - 1)
        // Mostly after some rows are already written, so there is something to undo.
        let position = chance(0.85) ? int(1...count - 1) : 0
        let poison = int(1...2)
        let database = self.database
        if !bulk && !model.rows.isEmpty && chance(0.3) {
            // insertOrReplace whose first objects replace existing rows: the replaced rows must come back.
            var scratch = model
            var docs: [Doc] = [], text: [String] = []
            for index in 0..<count {
                let row = newRow()
                let id = index < position && chance(0.6) ? existingId(scratch)! : freshId(scratch)
                scratch.replace(id, row)
                docs.append(Doc(id, row, poison: index == position ? poison : 0))
                text.append("\(id)")
            }
            return Planned(kind: kind, text: "\(kind) insertOrReplace \(count) ids [\(text.joined(separator: ","))] encode throws at \(position) (poison \(poison))",
                           after: nil, failure: .encode) {
                try database.insertOrReplace(objects: docs, intoTable: "docs")
            }
        }
        var scratch = model
        let (docs, _, text, rows) = newDocsAndRows(count, into: &scratch)
        docs[position].poison = poison
        retryable = docs.indices.filter { $0 != position }.map { (docs[$0].id, rows[$0]) }
        return Planned(kind: kind, text: "\(kind) \(count) ids [\(text)] encode throws at \(position) (poison \(poison))",
                       after: nil, failure: .encode) {
            try database.insert(objects: docs, intoTable: "docs")
        }
    }

    /// What an application does after a batch failed: insert the good objects again, fewer at a time
    /// (below the bulk threshold), with the same keys.
    func planRetry(_ model: Model) -> Planned {
        var after = model
        var docs: [Doc] = [], text: [String] = []
        for (oldId, row) in retryable where docs.count < Self.bulkThreshold - 1 {
            guard oldId.map({ after.rows[$0] == nil }) ?? true, after.id(ofCode: row.code) == nil,
                  !after.rows.values.contains(where: { $0.word == row.word }) else { continue }
            let id = oldId ?? after.maxId + 1
            after.rows[id] = row
            docs.append(Doc(oldId, row))
            text.append(oldId == nil ? "auto:\(id)" : "\(id)")
        }
        retryable = []
        guard !docs.isEmpty else { return planInsert(model, count: int(1...3), kind: .insert) }
        let database = self.database
        return Planned(kind: .retryInsert, text: "retryInsert \(docs.count) ids [\(text.joined(separator: ","))]", after: after) {
            try database.insert(objects: docs, intoTable: "docs")
        }
    }

    // MARK: - Transactions

    func planSubs(_ count: Int, from model: Model) -> (subs: [Planned], after: Model) {
        var current = model
        var subs: [Planned] = []
        for _ in 0..<count {
            let sub = plan(choose(from: Kind.atomic), from: current)
            subs.append(sub)
            if let after = sub.after { current = after }
        }
        return (subs, current)
    }

    /// Runs an operation inside a transaction, where an expected failure is caught and the transaction goes on.
    func runSub(_ sub: Planned) throws {
        do {
            try sub.run()
        } catch let mismatch as SyncPropertyMismatch {
            throw mismatch
        } catch {
            if sub.after == nil && sub.failure.matches(error) {
                failedAsExpected[sub.kind, default: 0] += 1
                nested[sub.kind, default: 0] += 1
                return
            }
            throw SyncPropertyMismatch(description: "inside a transaction, \(sub.text) threw \(error)"
                                       + (sub.after == nil ? " (expected: \(sub.failure))" : " (expected success)"))
        }
        if sub.after == nil {
            throw SyncPropertyMismatch(description: "inside a transaction, \(sub.text) succeeded (expected: \(sub.failure))")
        }
        applied[sub.kind, default: 0] += 1
        nested[sub.kind, default: 0] += 1
    }

    func describe(_ subs: [Planned]) -> String { "{" + subs.map(\.text).joined(separator: "; ") + "}" }

    /// Ends every level this operation opened, after something went wrong inside.
    func unwind(_ levels: Int) {
        for _ in 0..<levels { try? database.rollback() }
    }

    func planRollback(_ model: Model) -> Planned {
        let (subs, _) = planSubs(int(1...4), from: model)
        let database = self.database
        if chance(0.5) {
            return Planned(kind: .rollback, text: "begin \(describe(subs)) rollback", after: model) { [unowned self] in
                try database.begin()
                do {
                    for sub in subs { try self.runSub(sub) }
                } catch {
                    self.unwind(1)
                    throw error
                }
                try database.rollback()
            }
        }
        return Planned(kind: .rollback, text: "run(transaction: \(describe(subs)) throw)", after: nil, failure: .deliberate) {
            [unowned self] in
            try database.run(transaction: {
                for sub in subs { try self.runSub(sub) }
                throw SyncPropertyRollback()
            })
        }
    }

    func planTransaction(_ model: Model) -> Planned {
        let (subs, after) = planSubs(int(1...4), from: model)
        let database = self.database
        if chance(0.5) {
            return Planned(kind: .transaction, text: "begin \(describe(subs)) commit", after: after) { [unowned self] in
                try database.begin()
                do {
                    for sub in subs { try self.runSub(sub) }
                } catch {
                    self.unwind(1)
                    throw error
                }
                do {
                    try database.commit()
                } catch {
                    // A failed commit leaves the transaction to roll back.
                    try database.rollback()
                    throw error
                }
            }
        }
        return Planned(kind: .transaction, text: "run(transaction: \(describe(subs)))", after: after) { [unowned self] in
            try database.run(transaction: {
                for sub in subs { try self.runSub(sub) }
            })
        }
    }

    /// Savepoints: outer work, an inner transaction that fails (or commits), more outer work, outer commit.
    func planNested(_ model: Model) -> Planned {
        let (outerA, afterA) = planSubs(int(0...2), from: model)
        let (inner, afterInner) = planSubs(int(1...3), from: afterA)
        let failingKinds = [Kind.failingInsert, .failingBulkInsert].filter { !skip.contains($0.rawValue) }
        let innerOutcome = pick(["rolled back", "rolled back", "committed"] + (failingKinds.isEmpty ? [] : ["fails with an encode error"]))
        let failing = innerOutcome == "fails with an encode error"
            ? planFailingInsert(afterInner, bulk: pick(failingKinds) == .failingBulkInsert) : nil
        let innerKept = innerOutcome == "committed"
        let (outerC, afterC) = planSubs(int(0...2), from: innerKept ? afterInner : afterA)
        let database = self.database
        let text = "nested: outer \(describe(outerA)), inner \(describe(inner))"
            + (failing.map { " then \($0.text)" } ?? "") + " \(innerOutcome), outer \(describe(outerC))"
        if chance(0.5) {
            return Planned(kind: .nestedTransaction, text: "begin/begin " + text + " commit", after: afterC) { [unowned self] in
                try database.begin()
                var levels = 1
                do {
                    for sub in outerA { try self.runSub(sub) }
                    try database.begin()
                    levels = 2
                    for sub in inner { try self.runSub(sub) }
                    if let failing {
                        do {
                            try failing.run()
                            throw SyncPropertyMismatch(description: "inside a savepoint, \(failing.text) succeeded")
                        } catch is SyncPropertyPoison {
                            self.failedAsExpected[failing.kind, default: 0] += 1
                            self.nested[failing.kind, default: 0] += 1
                        }
                        // The savepoint's work is undone below, the failed insert's by the insert itself.
                    }
                    if innerKept { try database.commit() } else { try database.rollback() }
                    levels = 1
                    for sub in outerC { try self.runSub(sub) }
                } catch {
                    self.unwind(levels)
                    throw error
                }
                do {
                    try database.commit()
                } catch {
                    try database.rollback()
                    throw error
                }
            }
        }
        return Planned(kind: .nestedTransaction, text: "run(transaction:) " + text, after: afterC) { [unowned self] in
            try database.run(transaction: {
                for sub in outerA { try self.runSub(sub) }
                do {
                    try database.run(transaction: {
                        for sub in inner { try self.runSub(sub) }
                        if let failing { try failing.run() }
                        if !innerKept && failing == nil { throw SyncPropertyRollback() }
                    })
                    if !innerKept { throw SyncPropertyMismatch(description: "the inner transaction did not fail") }
                } catch is SyncPropertyRollback {
                } catch is SyncPropertyPoison {
                    if let failing {
                        self.failedAsExpected[failing.kind, default: 0] += 1
                        self.nested[failing.kind, default: 0] += 1
                    }
                }
                for sub in outerC { try self.runSub(sub) }
            })
        }
    }

    // MARK: - Raw SQL

    func runSQL(_ sql: String, _ values: [ColumnEncodable], _ path: SQLPath, leaveEarly: Bool = false) throws {
        switch path {
        case .exec:
            try database.exec(sql: sql, values: values)
        case .prepared:
            let statement = try database.prepare(sql: sql)
            defer { statement.finalize() }
            try statement.bind(values)
            if leaveEarly {
                _ = try statement.step()
            } else {
                while try statement.step() {}
            }
        case .handle:
            try database.pool.withHandle(write: true) { handle in try handle.exec(sql: sql, values: values) }
        }
    }

    func sqlPlan(_ kind: Kind, _ text: String, _ after: Model?, failure: Failure = .none, _ sql: String,
                 _ values: [ColumnEncodable], path: SQLPath? = nil, leaveEarly: Bool = false) -> Planned {
        let path = path ?? pick(SQLPath.allCases)
        return Planned(kind: kind, text: "\(kind) [\(path)] \(text): \(sql.debugDescription)", after: after, failure: failure,
                       vetoable: !leaveEarly) { [unowned self] in
            try self.runSQL(sql, values, path, leaveEarly: leaveEarly)
        }
    }

    static let insertColumns = "docs(id, code, title, body, views)"

    func planSQLComment(_ model: Model) -> Planned {
        var after = model
        let lead = pick(["/* c */ ", "-- note\n", "/* a */ /* b */\n  "])
        let options = model.rows.isEmpty ? [0] : [0, 0, 1, 2, 3, 4]
        switch pick(options) {
        case 0:
            let id = freshId(model), row = newRow(allowNilTitle: false)
            after.rows[id] = row
            return sqlPlan(.sqlComment, "insert \(id)", after, lead + "INSERT INTO \(Self.insertColumns) VALUES(?, ?, ?, ?, ?)",
                           [id, row.code, row.title, row.body, row.views])
        case 1:
            let id = existingId(model)!, word = newWord()
            after.rows[id]!.body = newBody(word)
            after.rows[id]!.word = word
            return sqlPlan(.sqlComment, "body of \(id) -> \(word)", after, lead + "UPDATE docs SET body = ? WHERE id = ?",
                           [after.rows[id]!.body, id])
        case 2:
            let id = existingId(model)!
            after.rows[id] = nil
            return sqlPlan(.sqlComment, "delete \(id)", after, lead + "DELETE FROM docs WHERE id = ?", [id])
        case 3:
            let id = existingId(model)!, target = freshId(model)
            after.rows[target] = after.rows.removeValue(forKey: id)
            return sqlPlan(.sqlComment, "rowid \(id) -> \(target)", after, lead + "UPDATE docs SET id = ? WHERE id = ?", [target, id])
        default:
            let victim = existingId(model)!, id = freshId(model)
            var row = newRow(allowNilTitle: false)
            row.code = model.rows[victim]!.code
            after.replace(id, row)
            return sqlPlan(.sqlComment, "replace through code of \(victim) at \(id)", after,
                           lead + "REPLACE INTO \(Self.insertColumns) VALUES(?, ?, ?, ?, ?)", [id, row.code, row.title, row.body, row.views])
        }
    }

    func planSQLWith(_ model: Model) -> Planned {
        var after = model
        let with = chance(0.3) ? "with" : "WITH"
        let options = model.rows.isEmpty ? [0, 1] : [0, 1, 2, 3, 4]
        switch pick(options) {
        case 0:
            let id = freshId(model), row = newRow(allowNilTitle: false)
            after.rows[id] = row
            return sqlPlan(.sqlWith, "insert \(id)", after,
                           "\(with) v(i, c, t, b, n) AS (VALUES(?, ?, ?, ?, ?)) INSERT INTO \(Self.insertColumns) SELECT i, c, t, b, n FROM v",
                           [id, row.code, row.title, row.body, row.views])
        case 1:
            // Several rows from one statement, each with its own unique word.
            let count = int(2...5)
            let base = model.maxId + 1 + int(0...2)
            let firstWord = wordNumber + 1, firstCode = codeNumber + 1
            let title = newTitle(allowNil: false)!
            for i in 0..<count {
                let word = newWord()
                codeNumber += 1
                after.rows[base + i] = Row(code: "r\(firstCode + i)", title: title, body: "indigo \(word)", views: i, word: word)
            }
            return sqlPlan(.sqlWith, "insert \(count) rows \(base)...\(base + count - 1)", after,
                           "\(with) RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i + 1 < ?) "
                           + "INSERT INTO \(Self.insertColumns) SELECT ? + i, 'r' || (? + i), ?, 'indigo w' || (? + i) || 'x', i FROM r",
                           [count, base, firstCode, title, firstWord])
        case 2:
            let id = existingId(model)!, word = newWord()
            after.rows[id]!.body = newBody(word)
            after.rows[id]!.word = word
            return sqlPlan(.sqlWith, "body of \(id) -> \(word)", after,
                           "\(with) t(x, b) AS (SELECT ?, ?) UPDATE docs SET body = (SELECT b FROM t) WHERE id = (SELECT x FROM t)",
                           [id, after.rows[id]!.body])
        case 3:
            let a = existingId(model)!, b = existingId(model)!
            after.rows[a] = nil
            after.rows[b] = nil
            return sqlPlan(.sqlWith, "delete \(a), \(b)", after,
                           "\(with) t(x) AS (VALUES(?), (?)) DELETE FROM docs WHERE id IN (SELECT x FROM t)", [a, b])
        default:
            let id = existingId(model)!, target = freshId(model)
            after.rows[target] = after.rows.removeValue(forKey: id)
            return sqlPlan(.sqlWith, "rowid \(id) -> \(target)", after,
                           "\(with) t(x, y) AS (SELECT ?, ?) UPDATE docs SET id = (SELECT y FROM t) WHERE id = (SELECT x FROM t)",
                           [id, target])
        }
    }

    func planSQLOther(_ model: Model) -> Planned {
        var after = model
        let count = model.rows.count
        var options = [0, 1]
        if count >= 1 { options += [2, 3, 4, 5, 6, 7, 8, 10] }
        if count >= 2 { options += [9, 11, 3] }
        switch pick(options) {
        case 0:
            let id = freshId(model), row = newRow(allowNilTitle: false)
            after.rows[id] = row
            return sqlPlan(.sqlOther, "lower-case insert \(id)", after,
                           "\n  insert into \(Self.insertColumns) values(?, ?, ?, ?, ?)", [id, row.code, row.title, row.body, row.views])
        case 1, 2:
            // UPSERT on code: an existing code updates that row in place; a new one inserts.
            let id = freshId(model)
            var row = newRow(allowNilTitle: false)
            let text: String
            if count > 0 && chance(0.7), let existing = existingId(model) {
                row.code = model.rows[existing]!.code
                row.views = model.rows[existing]!.views
                after.rows[existing] = row
                text = "upsert updates \(existing) (code \(row.code)) -> \(row.word)"
            } else {
                after.rows[id] = row
                text = "upsert inserts \(id)"
            }
            return sqlPlan(.sqlOther, text, after,
                           "INSERT INTO \(Self.insertColumns) VALUES(?, ?, ?, ?, ?) ON CONFLICT(code) DO UPDATE SET title = excluded.title, body = excluded.body",
                           [id, row.code, row.title, row.body, row.views])
        case 3:
            // UPDATE OR REPLACE of the rowid onto an existing row: that row goes.
            let id = existingId(model)!
            let others = model.rows.keys.filter { $0 != id }.sorted()
            let target = others.isEmpty || chance(0.3) ? freshId(model) : pick(others)
            let row = after.rows.removeValue(forKey: id)!
            after.rows[target] = row
            return sqlPlan(.sqlOther, "rowid \(id) -> \(target) or replace", after, "UPDATE OR REPLACE docs SET id = ? WHERE id = ?",
                           [target, id])
        case 4:
            let limit = int(0...10)
            for (id, row) in model.rows where row.views < limit { after.rows[id]!.title = nil }
            return sqlPlan(.sqlOther, "titles NULL where views < \(limit)", after, "UPDATE docs SET title = NULL WHERE views < ?", [limit])
        case 5:
            for (id, _) in model.rows where id % 2 == 0 { after.rows[id]!.views += 1 }
            return sqlPlan(.sqlOther, "views + 1 on even ids", after, "UPDATE docs SET views = views + 1 WHERE id % 2 = 0", [])
        case 6:
            let id = existingId(model)!
            after.rows[id] = nil
            return sqlPlan(.sqlOther, "delete \(id) returning", after, "DELETE FROM docs WHERE id = ? RETURNING id", [id])
        case 7:
            // RETURNING left after its first row: the write still commits, with its index changes.
            let id = existingId(model)!, word = newWord()
            after.rows[id]!.body = newBody(word)
            after.rows[id]!.word = word
            return sqlPlan(.sqlOther, "body of \(id) -> \(word) returning, left after one step", after,
                           "UPDATE docs SET body = ? WHERE id = ? RETURNING id, body", [after.rows[id]!.body, id],
                           path: .prepared, leaveEarly: true)
        case 8:
            let low = int(0...15), high = low + int(0...4)
            after.rows = model.rows.filter { !($0.value.views >= low && $0.value.views <= high) }
            return sqlPlan(.sqlOther, "delete views \(low)...\(high) returning, left after one step", after,
                           "DELETE FROM docs WHERE views BETWEEN ? AND ? RETURNING id", [low, high], path: .prepared, leaveEarly: true)
        case 9:
            // Fails on its second row, after the first row's change was reported.
            let ids = Array(model.rows.keys.sorted().shuffled(using: &rng).prefix(2))
            let code = "dup\(int(0...999_999))"
            return sqlPlan(.sqlOther, "code of \(ids) -> one code (fails)", nil, failure: .constraint,
                           "UPDATE docs SET code = ? WHERE id IN (?, ?)", [code, ids[0], ids[1]])
        case 10:
            // Two rows in one statement; the second collides with an existing id.
            let id = freshId(model), row = newRow(allowNilTitle: false), clash = existingId(model)!, other = newRow(allowNilTitle: false)
            return sqlPlan(.sqlOther, "insert \(id) and existing \(clash) (fails)", nil, failure: .constraint,
                           "INSERT INTO \(Self.insertColumns) VALUES(?, ?, ?, ?, ?), (?, ?, ?, ?, ?)",
                           [id, row.code, row.title, row.body, row.views, clash, other.code, other.title, other.body, other.views])
        default:
            // REPLACE that takes one row's id and another row's code: both go.
            let ids = model.rows.keys.sorted().shuffled(using: &rng)
            var row = newRow(allowNilTitle: false)
            row.code = model.rows[ids[1]]!.code
            after.replace(ids[0], row)
            return sqlPlan(.sqlOther, "replace id \(ids[0]) with code of \(ids[1])", after,
                           "REPLACE INTO \(Self.insertColumns) VALUES(?, ?, ?, ?, ?)", [ids[0], row.code, row.title, row.body, row.views])
        }
    }

    // MARK: - Running

    /// Runs every step; returns the failure report, or nil.
    func run() -> String? {
        for step in 0..<steps {
            stepsRun = step + 1
            let kind = !retryable.isEmpty && !skip.contains(Kind.retryInsert.rawValue) && chance(0.75)
                ? Kind.retryInsert : choose(from: Kind.allCases)
            if kind != .retryInsert { retryable = [] }
            let firstNewWord = allWords.count
            allocated.removeAll()
            let planned = plan(kind, from: model)
            let before = model
            let failAt = planned.vetoable && !skip.contains("commitFailure") && chance(0.08) ? int(1...2) : 0
            probe.arm(failAt: failAt)
            var thrown: Error?
            do { try planned.run() } catch { thrown = error }
            probe.armed = false
            history.append("#\(step) \(planned.text)" + (failAt > 0 ? " [commit \(failAt) of the call fails"
                                                           + (probe.failed ? "]" : ": not reached]") : ""))

            var problems: [String] = []
            if let mismatch = thrown as? SyncPropertyMismatch {
                problems.append(mismatch.description)
            } else if let error = thrown {
                if probe.failed {
                    model = before
                    commitFailures += 1
                } else if planned.after == nil && planned.failure.matches(error) {
                    model = before
                    failedAsExpected[planned.kind, default: 0] += 1
                } else {
                    problems.append("the call threw \(error)"
                                    + (planned.after == nil ? " (expected: \(planned.failure))" : " (expected success)"))
                }
            } else if probe.failed {
                model = before
                problems.append("a commit of the call was made to fail, yet the call reported success")
            } else if let after = planned.after {
                model = after
                applied[planned.kind, default: 0] += 1
            } else {
                problems.append("the call succeeded (expected: \(planned.failure))")
            }
            if !probe.failed && probe.commits > 1 {
                problems.append("the call committed \(probe.commits) transactions: its content and index writes did not commit together")
            }
            // Words that left the table, and words this step wrote that are not live (rolled back, failed, overwritten).
            let live = Set(model.rows.values.map(\.word))
            let killed = Set(before.rows.values.map(\.word)).union(allWords[firstNewWord...].prefix(24)).subtracting(live)
            recycled += Set(before.rows.keys).union(allocated).subtracting(model.rows.keys).sorted()
            if recycled.count > 300 { recycled.removeFirst(recycled.count - 300) }
            problems += checkInvariants(killed: killed)
            if !problems.isEmpty { return report(step: step, planned: planned, problems: problems) }
        }
        return nil
    }

    func ids(_ word: String, in index: String, limit: Int = 10) throws -> [Int] {
        searches += 1
        let results: SearchResults<Doc> = try database.search(SearchQuery(word), in: index, of: Doc.self,
                                                              options: SearchOptions(limit: limit, countTotal: false, typoTolerance: .off))
        return results.hits.map { $0.object.id ?? Int($0.rowid) }.sorted()
    }

    /// Whether `text` holds `word` as a token (case-insensitively); the vocabulary makes this the rule for every tokenizer here.
    static func contains(_ text: String?, _ word: String) -> Bool {
        guard let text else { return false }
        return text.lowercased().split { !$0.isLetter && !$0.isNumber }.contains { $0 == word }
    }

    func checkInvariants(killed: Set<String>) -> [String] {
        var problems: [String] = []
        func note(_ problem: String) {
            if problems.count < 40 { problems.append(problem) } else if problems.count == 40 { problems.append("...") }
        }
        if database.isInTransaction { note("a transaction is still open") }
        do {
            let docs: [Doc] = try database.getObjects(fromTable: "docs")
            var actual: [Int: Doc] = [:]
            for doc in docs { actual[doc.id ?? -1] = doc }
            for (id, row) in model.rows.sorted(by: { $0.key < $1.key }) {
                guard let doc = actual[id] else { note("content: row \(id) (\(row.word)) is missing"); continue }
                if doc.code != row.code || doc.title != row.title || doc.body != row.body || doc.views != row.views {
                    note("content: row \(id) is \(doc.code)|\(doc.title ?? "NULL")|\(doc.body)|\(doc.views), "
                         + "expected \(row.code)|\(row.title ?? "NULL")|\(row.body)|\(row.views)")
                }
            }
            for (id, doc) in actual.sorted(by: { $0.key < $1.key }) where model.rows[id] == nil {
                note("content: unexpected row \(id): \(doc.code)|\(doc.title ?? "NULL")|\(doc.body)")
            }
        } catch {
            note("reading the content table failed: \(error)")
        }
        let live = Set(model.rows.values.map(\.word))
        var dead = Array(killed).sorted()
        for _ in 0..<4 where !allWords.isEmpty {
            let word = pick(allWords)
            if !live.contains(word) { dead.append(word) }
        }
        let vocabularyWord = pick(Self.vocabulary)
        for index in indexes {
            do {
                let verification = try database.verify(index: index.name)
                if !verification.isConsistent { note("verify(\(index.name)): \(verification.problems.joined(separator: "; "))") }
                for (id, row) in model.rows.sorted(by: { $0.key < $1.key }) {
                    let found = try ids(row.word, in: index.name)
                    if found != [id] { note("\(index.name): \(row.word) (row \(id)) finds \(found)") }
                }
                for word in dead {
                    let found = try ids(word, in: index.name)
                    if !found.isEmpty { note("\(index.name): dead word \(word) finds \(found)") }
                }
                let expected = model.rows.filter { _, row in
                    index.columns.contains { column in Self.contains(column == "title" ? row.title : row.body, vocabularyWord) }
                }.keys.sorted()
                let found = try ids(vocabularyWord, in: index.name, limit: 1000)
                if found != expected {
                    note("\(index.name): \(vocabularyWord) finds \(found), expected \(expected) "
                         + "(missing \(Set(expected).subtracting(found).sorted()), extra \(Set(found).subtracting(expected).sorted()))")
                }
            } catch {
                note("\(index.name): checking failed: \(error)")
            }
        }
        return problems
    }

    func report(step: Int, planned: Planned, problems: [String]) -> String {
        let tail = history.suffix(15).joined(separator: "\n  ")
        return """
            SyncPropertyTests[\(name)] FAILED at step \(step) of \(steps), seed \(seed)
            operation: \(planned.text)
            problems:
              \(problems.joined(separator: "\n  "))
            history (last \(min(15, history.count)) steps):
              \(tail)
            replay: SIFT_PROPERTY_SEED=\(seed) SIFT_PROPERTY_STEPS=\(step + 1) swift test --filter SiftTests.SyncPropertyTests/test\(name)
            """
    }

    func summary(elapsed: TimeInterval) -> String {
        func list(_ counts: [Kind: Int]) -> String {
            Kind.allCases.compactMap { kind in counts[kind].map { "\(kind)=\($0)" } }.joined(separator: " ")
        }
        return """
            SyncPropertyTests[\(name)] seed=\(seed) ran \(stepsRun)/\(steps) steps in \(String(format: "%.2f", elapsed)) s, \
            \(searches) searches, \(model.rows.count) live rows, \(wordNumber) words
              applied: \(list(applied))
              failed as expected: \(list(failedAsExpected))
              of these, inside transactions: \(list(nested))
              commits made to fail: \(commitFailures)
            """
    }
}
