import Foundation
import Sift
import SiftMacros

/// Sift's side of each comparison: the bodies of the Sift candidates in `Workloads`. Setup (opening the
/// database, creating the table, converting the fixtures to model objects) goes outside `context.measure { }`;
/// only the work being compared inside. Use the same schema and the same connection settings as the baseline
/// (`ConnectionSettings`: WAL, synchronous=NORMAL, Sift's defaults), and check the result after measuring
/// (`context.check`): a fast wrong answer fails the benchmark.
///
/// Data sets (`context.fixtures`): `records` ([BenchRecord], ids 1...rowCount, table `items`), `documents`
/// ([BenchDocument], table `docs` + FTS5 `fts`), `queries` (1,000 user-typed strings), `text(.english)` etc.;
/// template databases: `copyItemsDatabase(to:)` (items filled) and `copySearchDatabase(to:)` (docs + fts).
/// Schemas: `RawBaselines.itemsSchema`, `docsSchema`, `ftsSchema`.
enum SiftCandidates {
    /// Insert `fixtures.records` as 100k (x scale) 6-column objects into `items`, one call.
    /// Baseline: `RawBaselines.insertRecords`. Target: <= 1.3x.
    static let ormInsert: Variant.Body = { context in try insertItems(Item.self, context) }
    /// The same on an encrypted database (`cipher-orm-insert`: the plain one is the baseline).
    static let ormInsertEncrypted: Variant.Body = { context in try insertItems(Item.self, context, encrypted: true) }
    /// The same with a `@TableRowCoding` model, which binds its columns without Encodable.
    static let ormInsertDirect: Variant.Body = { context in try insertItems(DirectItem.self, context) }

    private static func insertItems<Model: TableCodable & BenchItem>(_ type: Model.Type, _ context: RunContext,
                                                                    encrypted: Bool = false) throws {
        let database = try open(context, encrypted: encrypted)
        try database.create(table: "items", of: Model.self)
        let items = context.fixtures.records.map(Model.init)
        try context.measure { try database.insert(objects: items, intoTable: "items") }
        try context.check(try database.getValue(on: Column.all.count(), fromTable: "items").int64Value == Int64(context.rowCount),
                          "row count")
        let stored: [Model] = try database.getObjects(fromTable: "items", where: Column(named: "id") == 2)
        try context.check(stored.map(\.record) == [context.fixtures.records[1]], "stored values")
    }

    /// Fetch all of `items` (start from `copyItemsDatabase`) into model objects, one call.
    /// Baseline: `RawBaselines.fetchRecords`. Target: <= 1.3x.
    static let ormFetch: Variant.Body = { context in try fetchItems(Item.self, context) }
    /// The same on an encrypted copy (`cipher-orm-fetch`).
    static let ormFetchEncrypted: Variant.Body = { context in try fetchItems(Item.self, context, encrypted: true) }
    /// The same with a `@TableRowCoding` model, which reads its columns without Decodable.
    static let ormFetchDirect: Variant.Body = { context in try fetchItems(DirectItem.self, context) }

    private static func fetchItems<Model: TableCodable & BenchItem>(_ type: Model.Type, _ context: RunContext,
                                                                   encrypted: Bool = false) throws {
        try context.fixtures.copyItemsDatabase(to: context.databasePath)
        let database = try openCopy(context, encrypted: encrypted)
        _ = try database.getValue(on: Column.all.count(), fromTable: "items")  // open and warm the connection
        let items: [Model] = try context.measure { try database.getObjects(fromTable: "items") }
        try context.check(items.map(\.record) == context.fixtures.records, "fetched records differ from inserted")
    }

    /// Insert `fixtures.documents` into a content table synced with an FTS5 index, one batch,
    /// row by row (the bulk path is switched off to measure the per-row explicit path).
    static let ftsSyncedInsert: Variant.Body = { context in
        try syncedInsert(context, bulkThreshold: Int.max)
    }

    /// The same batch as Sift handles it by default: large, so content first and one index pass.
    static let ftsBulkLoad: Variant.Body = { context in
        try syncedInsert(context, bulkThreshold: nil)
    }

    /// The row-by-row synced insert on an encrypted database (`cipher-fts-insert`).
    static let ftsSyncedInsertEncrypted: Variant.Body = { context in
        try syncedInsert(context, bulkThreshold: Int.max, encrypted: true)
    }

    private static func syncedInsert(_ context: RunContext, bulkThreshold: Int?, encrypted: Bool = false) throws {
        let database = try open(context, encrypted: encrypted)
        if let bulkThreshold { database.fullTextBulkThreshold = bulkThreshold }
        try database.create(table: "docs", of: Doc.self)
        try database.create(virtualTable: "fts", of: DocIndex.self, syncedWith: "docs")
        let documents = context.fixtures.documents.map(Doc.init)
        try context.measure { try database.insert(objects: documents, intoTable: "docs") }
        try context.check(try database.verify(index: "fts").isConsistent, "index consistent with content")
        try context.check(try database.verify(index: "fts").indexedRows == context.rowCount, "indexed rows")
    }

    /// The 1,000 `fixtures.queries` as user text (all-terms mode), top 20 objects with the body
    /// highlighted `[...]` and the score under `ranking`, against `copySearchDatabase` (encrypted in place before
    /// measuring when `encrypted`: the `cipher-search` workload).
    /// Baseline: `RawBaselines.search` (`ORDER BY rank`, FTS5's bm25). Target: <= 1.3x.
    /// With `.bm25` the rows and their order must be the baseline's; another ranking orders the same matches
    /// differently, so only the number of hits is checked.
    static func search(ranking: Ranking, encrypted: Bool = false) -> Variant.Body {
        { context in try search(context, ranking: ranking, encrypted: encrypted) }
    }

    private static func search(_ context: RunContext, ranking: Ranking, encrypted: Bool) throws {
        try context.fixtures.copySearchDatabase(to: context.databasePath)
        let expected = try RawBaselines.search(context.fixtures.queries, in: try RawDatabase(path: context.databasePath))
        let database = try openCopy(context, encrypted: encrypted)
        let queries = context.fixtures.queries
        let options = SearchOptions(limit: 20, ranking: ranking, highlight: ["body"], countTotal: false, typoTolerance: .off)
        _ = try database.search(SearchQuery("warm"), in: "fts", of: Doc.self, options: options)
        let digest = try context.measure { () throws -> RawBaselines.SearchDigest in
            var digest = RawBaselines.SearchDigest()
            for query in queries {
                let results = try database.search(SearchQuery(query), in: "fts", of: Doc.self, options: options)
                for hit in results.hits { digest.add(id: hit.object.id) }
            }
            return digest
        }
        if ranking == .bm25 {
            try context.check(digest == expected, "same rows as the raw query: \(digest) vs \(expected)")
        } else {
            try context.check(digest.hits == expected.hits, "as many hits as the raw query: \(digest) vs \(expected)")
        }
    }

    /// The passphrase of the encrypted variants: SQLCipher 4's defaults, so the KDF runs (once, before measuring).
    static let passphrase = Data("sift-bench passphrase".utf8)

    /// The benchmark database, encrypted with `passphrase` when `encrypted`.
    private static func open(_ context: RunContext, encrypted: Bool) throws -> Database {
        let database = Database(withPath: context.databasePath)
        if encrypted { try database.setCipherKey(passphrase) }
        return database
    }

    /// A template copied to the benchmark path, encrypted in place (before measuring) when `encrypted`.
    private static func openCopy(_ context: RunContext, encrypted: Bool) throws -> Database {
        let database = Database(withPath: context.databasePath)
        if encrypted { try database.rekey(passphrase) }
        return database
    }
}

/// The 6-column model of the ORM workloads (same schema as `RawBaselines.itemsSchema`).
struct Item: TableCodable {
    var id: Int64
    var number: Int64
    var score: Double
    var name: String
    var note: String
    var created: Date
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Item
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, number, score, name, note, created
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init(_ record: BenchRecord) {
        id = record.id; number = record.number; score = record.score
        name = record.name; note = record.note; created = record.created
    }
}

/// The benchmark models' common face, so one workload body serves both.
protocol BenchItem {
    init(_ record: BenchRecord)
    var id: Int64 { get }
    var number: Int64 { get }
    var score: Double { get }
    var name: String { get }
    var note: String { get }
    var created: Date { get }
}

extension BenchItem {
    var record: BenchRecord { BenchRecord(id: id, number: number, score: score, name: name, note: note, created: created) }
}

extension Item: BenchItem {}

/// `Item` with `@TableRowCoding`: its rows read and written by generated code instead of through Codable.
@TableRowCoding
struct DirectItem: TableCodable, BenchItem {
    var id: Int64
    var number: Int64
    var score: Double
    var name: String
    var note: String
    var created: Date
    enum CodingKeys: String, CodingTableKey {
        typealias Root = DirectItem
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, number, score, name, note, created
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

extension DirectItem {
    init(_ record: BenchRecord) {
        self.init(id: record.id, number: record.number, score: record.score, name: record.name, note: record.note,
                  created: record.created)
    }
}

/// A document of the full-text workloads (table `docs`).
struct Doc: TableCodable {
    var id: Int64
    var title: String
    var body: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Doc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init(_ document: BenchDocument) { id = document.id; title = document.title; body = document.body }
}

/// `Doc` with `@TableRowCoding`: its rows written by generated code instead of through Encodable.
@TableRowCoding
struct DirectDoc: TableCodable {
    var id: Int64
    var title: String
    var body: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = DirectDoc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

extension DirectDoc {
    init(_ document: BenchDocument) { self.init(id: document.id, title: document.title, body: document.body) }
}

/// The FTS5 index over `docs` (same tokenizer as `RawBaselines.ftsSchema`).
struct DocIndex: TableCodable {
    var title: String
    var body: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = DocIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61"))
        }
    }
}
