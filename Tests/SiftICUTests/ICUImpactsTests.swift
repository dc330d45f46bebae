import Foundation
import XCTest
@testable import Sift
import SiftICU

final class ICUImpactDoc: TableCodable {
    var id: Int? = nil
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ICUImpactDoc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ title: String, _ body: String) { self.title = title; self.body = body }
}

final class ICUImpactIndex: TableCodable {
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ICUImpactIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "sift_icu pinyin 1"))
        }
    }
}

/// The score bounds of a `sift_icu` index (stemmed English, CJK words with colocated pinyin) counted by bulk
/// inserts on the worker thread: they match FTS5's own counts and lengths (verify recomputes them from the
/// index) and the pruned searches equal exhaustive scoring.
final class ICUImpactsTests: XCTestCase {
    func testBulkInsertsCountSiftICUTermsAsFTS5Does() throws {
        let path = NSTemporaryDirectory() + "icu-impacts-\(UUID().uuidString).db"
        let database = Database(withPath: path)
        addTeardownBlock { try? database.close { try? database.removeFiles() } }
        database.registerICUTokenizer()
        database.fullTextBulkThreshold = 8
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock {
            $0 = (rows: 100, listed: 10, block: 8, chunk: 4, piece: 7, tail: 1_000, statementRows: 0, delta: 1_000, logRows: 1, logEntries: 1, postings: true, rareRowsRatio: 0...Double.infinity)
        }
        try database.create(table: "docs", of: ICUImpactDoc.self)
        try database.create(virtualTable: "docs_fts", of: ICUImpactIndex.self, syncedWith: "docs")
        let words = ["running", "runs", "北京", "大学", "searching", "index", "東京", "データ", "the", "ranking"]
        var state: UInt64 = 42
        func word() -> String {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return words[Int((state >> 33) % UInt64(words.count))]
        }
        for _ in 0..<6 {
            let batch = (0..<50).map { _ in
                ICUImpactDoc((0..<3).map { _ in word() }.joined(separator: " "), (0..<12).map { _ in word() }.joined(separator: " "))
            }
            try database.insert(objects: batch, intoTable: "docs")
        }
        let meta = try XCTUnwrap(try database.read { try TopKImpacts.meta("docs_fts", on: $0) })
        XCTAssertTrue(meta.valid)
        XCTAssertEqual(meta.watermark, 300)
        let listed = try database.read { try TopKImpacts.listedTerms("docs_fts", on: $0) }
        if SiftICU.isStemmingAvailable { XCTAssertTrue(listed.contains("run"), "stemmed English listed: \(listed)") }
        XCTAssertTrue(listed.contains("bj") && listed.contains("北"), "colocated pinyin initials and CJK listed: \(listed)")
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        func comparePrunedWithExhaustive() throws {
            for question in ["run", "run search", "北京", "beijing 大学", "index ranking"] {
                for ranking in [Ranking.bm25f(), .inB2()] {
                    let options = SearchOptions(limit: 5, ranking: ranking)
                    let pruned: SearchResults<ICUImpactDoc> = try database.search(question, in: "docs_fts", options: options)
                    let valid = try database.getValue(on: Column(named: "valid"), fromTable: "docs_fts_sift_topk").int64Value
                    try database.exec(sql: "UPDATE docs_fts_sift_topk SET valid = 0")
                    let exhaustive: SearchResults<ICUImpactDoc> = try database.search(question, in: "docs_fts", options: options)
                    try database.exec(sql: "UPDATE docs_fts_sift_topk SET valid = \(valid)")
                    XCTAssertEqual(pruned.hits.map(\.score), exhaustive.hits.map(\.score), "\(question) \(ranking)")
                }
            }
        }
        try comparePrunedWithExhaustive()
        // Updates and deletes keep them exact, counted on the calling thread: the one-word columns are the shortest
        // of their blocks, and their colocated pinyin must not count in their lengths.
        try database.update(table: "docs", on: ICUImpactDoc.Properties.title, ICUImpactDoc.Properties.body,
                            with: ICUImpactDoc("北京", "大学"), where: Column(named: "id") == 5)
        try database.update(table: "docs", on: ICUImpactDoc.Properties.title, ICUImpactDoc.Properties.body,
                            with: ICUImpactDoc("running", "東京 runs"), where: Column(named: "id") == 200)
        try database.delete(fromTable: "docs", where: Column(named: "id") == 9)
        let changed = try XCTUnwrap(try database.read { try TopKImpacts.meta("docs_fts", on: $0) })
        XCTAssertTrue(changed.valid && changed.loose)
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
        try comparePrunedWithExhaustive()
    }
}
