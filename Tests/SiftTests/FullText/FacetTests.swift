import Foundation
import XCTest
@testable import Sift

/// A product: searched by title and body, counted by category (a column of no declared type, so it holds values of
/// every storage class), year and price.
final class FacetItem: TableCodable {
    var id: Int? = nil
    var title = ""
    var body = ""
    var category: String? = nil
    var year: Int? = nil
    var price: Double? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = FacetItem
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body, category, year, price
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ id: Int?, _ title: String, _ body: String = "", category: String?, year: Int? = nil, price: Double? = nil) {
        (self.id, self.title, self.body, self.category, self.year, self.price) = (id, title, body, category, year, price)
    }
}

/// The index over FacetItem's title and body, with its facets declared in the binding.
final class FacetItemIndex: TableCodable {
    var title = ""
    var body = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = FacetItemIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61")).withFacets("category", "year")
        }
    }
}

final class FacetTests: SiftTestCase {
    private let categories = ["books", "music", "films", "games", "tools"]

    private func makeItems(rows: Int = 0, mode: SyncMode = .explicit) throws -> Database {
        let database = makeDatabase()
        database.fullTextBulkThreshold = 8
        // No declared type for category: it stores integers, reals, texts, blobs and NULLs as given.
        try database.exec(sql: "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, body TEXT, category, year INTEGER, price REAL)")
        try database.create(virtualTable: "items_fts", of: FacetItemIndex.self, syncedWith: "items", mode: mode)
        if rows > 0 { try database.insert(objects: (1...rows).map(item), intoTable: "items") }
        return database
    }

    private func item(_ id: Int) -> FacetItem {
        FacetItem(id, "item \(id % 3 == 0 ? "red" : "blue")", "body \(id % 2 == 0 ? "even" : "odd")",
                  category: id % 11 == 0 ? nil : categories[id % categories.count], year: 2000 + id % 4, price: Double(id % 5))
    }

    private func search(_ database: Database, _ text: String, where condition: Condition? = nil, facets: [String] = ["category", "year"],
                        filters: [String: [FundamentalValue]] = [:], limit: Int = 3) throws -> SearchResults<FacetItem> {
        try database.search(text, mode: .anyTerm, in: "items_fts", where: condition,
                            options: SearchOptions(limit: limit, facets: facets, facetLimit: 3, facetFilters: filters))
    }

    /// The plain-SQL count: `GROUP BY` over the content rows the same text (and optional SQL condition) matches.
    private func groupBy(_ database: Database, _ text: String, _ column: String, _ sqlCondition: String = "1") throws -> [FundamentalValue: Int] {
        let expression = try XCTUnwrap(try database.expression(for: SearchQuery(text, mode: .anyTerm), in: "items_fts"))
        let rows = try database.getRows(sql: "SELECT i.\(column), count(*) FROM items_fts JOIN items i ON i.id = items_fts.rowid "
                                            + "WHERE items_fts MATCH ? AND (\(sqlCondition)) GROUP BY 1", values: [expression])
        var counts: [FundamentalValue: Int] = [:]
        for row in rows { counts[row[0], default: 0] += Int(row[1].int64Value) }
        return counts
    }

    /// The differential check: every facet of several searches counted from the structures equals the plain GROUP BY.
    @discardableResult
    private func check(_ database: Database, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        var matched = 0
        for text in ["item", "red", "blue even", "odd", "nothingmatches"] {
            let results = try search(database, text)
            for column in ["category", "year"] {
                let facet = try XCTUnwrap(results.facets[column], file: file, line: line)
                XCTAssertEqual(facet.counts, try groupBy(database, text, column), "\(label): \(text) \(column)", file: file, line: line)
                XCTAssertTrue(facet.countedFromStructure, "\(label): \(text) \(column) from the structure", file: file, line: line)
            }
            matched += results.facets["year"]?.counts.values.reduce(0, +) ?? 0
            XCTAssertEqual(results.facets["year"]?.counts.values.reduce(0, +), results.totalCount, "\(label): \(text) adds up", file: file, line: line)
        }
        let verification = try database.verify(index: "items_fts")
        XCTAssertTrue(verification.isConsistent, "\(label): \(verification.problems)", file: file, line: line)
        return matched
    }

    // MARK: - Every write kind

    func testCountsStayExactAfterEveryWriteKind() throws {
        let database = try makeItems(rows: 40)  // a bulk load (40 >= the threshold of 8)
        XCTAssertGreaterThan(try check(database, "bulk load"), 0)

        try database.insert(objects: item(41), intoTable: "items")
        try check(database, "single insert")
        try database.insert(objects: (42...45).map(item), intoTable: "items")  // below the threshold: row by row
        try check(database, "row-by-row insert")

        try database.update(table: "items", on: FacetItem.Properties.category, with: ["games"], where: FacetItem.Properties.id < 10)
        try check(database, "update of a facet alone")
        try database.update(table: "items", on: FacetItem.Properties.title, with: ["item red"], where: FacetItem.Properties.id > 30)
        try check(database, "update of the text alone")
        try database.update(table: "items", on: [FacetItem.Properties.body, FacetItem.Properties.year], with: ["body odd", 1999],
                            where: FacetItem.Properties.id % 3 == 1)
        try check(database, "update of text and facet")
        try database.exec(sql: "UPDATE items SET id = id + 1000 WHERE id BETWEEN 20 AND 25")
        try check(database, "update of the rowid")

        try database.insertOrReplace(objects: FacetItem(2, "item red", category: "tools", year: 2030), intoTable: "items")
        try check(database, "REPLACE")
        try database.insertOrReplace(objects: (1...12).map { FacetItem($0, "item blue", category: "films", year: 2031) }, intoTable: "items")
        try check(database, "bulk REPLACE")

        try database.delete(fromTable: "items", where: FacetItem.Properties.id == 3)
        try check(database, "delete")
        try database.delete(fromTable: "items", where: FacetItem.Properties.id > 40)
        try check(database, "delete many")

        struct Boom: Error {}
        XCTAssertThrowsError(try database.run(transaction: {
            try database.insert(objects: FacetItem(500, "item red", category: "rolled back"), intoTable: "items")
            try database.update(table: "items", on: FacetItem.Properties.category, with: ["gone"], where: FacetItem.Properties.id < 30)
            throw Boom()
        }))
        try check(database, "rollback")
        XCTAssertNil(try search(database, "item").facets["category"]?.counts["gone"])

        try database.rebuild(index: "items_fts")
        try check(database, "rebuild")
        try database.optimize(index: "items_fts")
        try check(database, "optimize")
    }

    /// With score bounds on the index, the matching rows of a query of listed terms are read from the postings
    /// (with the changed rows' deltas, the tails through FTS5): after every write kind the counts equal a
    /// GROUP BY over FTS5's matches, and the postings were used wherever the plan applies.
    func testCountsFromThePostingsStayExactAfterEveryWriteKind() throws {
        let database = makeDatabase()
        database.fullTextBulkThreshold = 8
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock {
            $0 = (rows: 50, listed: 4, block: 16, chunk: 4, piece: 5, tail: 1_000, statementRows: 0, delta: 3, logRows: 4, logEntries: 64, postings: true, rareRowsRatio: 0...Double.infinity)
        }
        try database.exec(sql: "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, body TEXT, category, year INTEGER, price REAL)")
        try database.create(virtualTable: "items_fts", of: FacetItemIndex.self, syncedWith: "items")
        try database.insert(objects: (1...200).map(item), intoTable: "items")
        try database.optimize(index: "items_fts")
        XCTAssertTrue(try database.verify(index: "items_fts").searchPlan.hasPrefix("pruned"))
        var fromPostings = 0
        func check(_ label: String, postings expected: Bool? = nil, line: UInt = #line) throws {
            var used = 0
            for (text, mode) in [("item", SearchQuery.Mode.allTerms), ("red even", .allTerms), ("blue odd", .anyTerm),
                                 ("red blue", .anyTerm), ("nothingmatches", .allTerms)] {
                let query = SearchQuery(text, mode: mode)
                let facets = try database.facets(for: query, in: "items_fts", options: SearchOptions(facets: ["category", "year"]))
                let expression = try XCTUnwrap(try database.expression(for: query, in: "items_fts"))
                for column in ["category", "year"] {
                    let rows = try database.getRows(sql: "SELECT i.\(column), count(*) FROM items_fts JOIN items i ON i.id = items_fts.rowid "
                                                        + "WHERE items_fts MATCH ? GROUP BY 1", values: [expression])
                    let counts = Dictionary(uniqueKeysWithValues: rows.map { ($0[0], Int($0[1].int64Value)) })
                    XCTAssertEqual(facets[column]?.counts, counts, "\(label): \(text) \(column)", line: line)
                    XCTAssertEqual(facets[column]?.countedFromStructure, true, "\(label): \(text) \(column)", line: line)
                }
                if facets["year"]?.matchesFromPostings == true { used += 1 }
            }
            if let expected { XCTAssertEqual(used, expected ? 4 : 0, "\(label): searches whose matches came from the postings", line: line) }
            fromPostings += used
        }
        try check("optimized", postings: true)
        try database.insert(objects: (201...230).map(item), intoTable: "items")  // above the watermark: the tail
        try check("tail", postings: true)
        try database.update(table: "items", on: FacetItem.Properties.title, with: ["item red"], where: FacetItem.Properties.id % 17 == 0)
        try check("changed rows", postings: true)
        try database.insertOrReplace(objects: (3...6).map { FacetItem($0, "item blue", "body even", category: "films", year: 2031) },
                                     intoTable: "items")
        try check("REPLACE", postings: true)
        try database.delete(fromTable: "items", where: FacetItem.Properties.id % 29 == 0)
        try check("delete", postings: true)
        try database.insert(objects: FacetItem(0, "item red", "body odd", category: "low"), FacetItem(-4, "item blue", category: nil),
                            intoTable: "items")
        try check("rows at rowid 0 and below", postings: true)
        try database.exec(sql: "UPDATE items SET id = id + 1000 WHERE id BETWEEN 40 AND 44")
        try check("rowids moved", postings: true)
        try database.update(table: "items", on: FacetItem.Properties.body, with: ["body odd"], where: FacetItem.Properties.id < 120)
        try check("changed rows folded into the postings", postings: true)
        try database.optimize(index: "items_fts")
        try check("optimized again", postings: true)
        try database.exec(sql: "UPDATE items_fts_sift_impacts SET postings = x'00' WHERE rowid IN (SELECT rowid FROM items_fts_sift_impacts WHERE term = 'item' LIMIT 1)")
        try check("damaged postings")
        XCTAssertGreaterThan(fromPostings, 0)
    }

    /// A dictionary kept in memory by searches is used only at the generation it was read at: a value added in a
    /// transaction that rolls back leaves its ordinal free, and the next value to take it is counted as itself.
    func testKeptDictionariesFollowNewValuesRollbacksAndRebuilds() throws {
        let database = try makeItems(rows: 20)
        try check(database, "bulk load")
        struct Boom: Error {}
        XCTAssertThrowsError(try database.run(transaction: {
            try database.insert(objects: FacetItem(100, "item red", category: "rolled back"), intoTable: "items")
            XCTAssertEqual(try search(database, "item").facets["category"]?.counts["rolled back"], 1)
            throw Boom()
        }))
        try database.insert(objects: FacetItem(101, "item red", category: "kept"), intoTable: "items")
        let counts = try XCTUnwrap(try search(database, "item").facets["category"])
        XCTAssertEqual(counts.counts["kept"], 1)
        XCTAssertNil(counts.counts["rolled back"])
        try check(database, "a value taking a rolled-back value's ordinal")
        try database.rebuild(index: "items_fts")
        try check(database, "rebuild")
        try database.insert(objects: FacetItem(102, "item blue", category: "after rebuild"), intoTable: "items")
        try check(database, "a new value after a rebuild")
    }

    func testMigrationStepsAndRecoveryRebuildTheFacets() throws {
        let database = try makeItems(rows: 30)
        try database.migrate(table: "items", of: FacetItem.self, steps: [
            1: { try $0.exec(sql: "UPDATE items SET category = 'migrated' WHERE id % 2 = 0") },
            2: { try $0.update(property: "year", with: 1990, where: Column(named: "id") % 5 == 0) },
        ])
        try check(database, "migration steps")
        XCTAssertEqual(try search(database, "item").facets["category"]?.counts["migrated"], 15)

        let source = database.path
        database.close()
        let target = makeDatabase("recovered.db")
        _ = try Database.recover(from: source, into: target)
        try check(target, "recovered")
    }

    func testRenamingAFacetColumnInAMigrationFollowsIt() throws {
        let database = try makeItems(rows: 20)
        try database.migrate(table: "items", of: FacetItem.self, steps: [1: { try $0.renameProperty(from: "year", to: "made") }])
        XCTAssertEqual(try database.read { try FacetStore.declared("items_fts", on: $0) }.map(\.column), ["category", "made"])
        let results = try search(database, "item", facets: ["made"])
        XCTAssertEqual(results.facets["made"]?.counts, try groupBy(database, "item", "made"))
        XCTAssertEqual(results.facets["made"]?.countedFromStructure, true)
    }

    // MARK: - Filters, top values, types

    func testFiltersCombineWithTheTextAndTheCondition() throws {
        let database = try makeItems(rows: 60)
        let filtered = try search(database, "item", where: FacetItem.Properties.price >= 2, filters: ["category": ["books", "music"]],
                                  limit: 100)
        let condition = "i.price >= 2 AND i.category IN ('books', 'music')"
        XCTAssertEqual(filtered.facets["year"]?.counts, try groupBy(database, "item", "year", condition))
        XCTAssertEqual(filtered.facets["category"]?.counts, try groupBy(database, "item", "category", condition))
        XCTAssertTrue(filtered.hits.allSatisfy { ["books", "music"].contains($0.object.category) && ($0.object.price ?? 0) >= 2 })
        XCTAssertEqual(filtered.totalCount, filtered.hits.count)
        XCTAssertEqual(filtered.facets["category"]?.countedFromStructure, true)

        let withNull = try search(database, "red", filters: ["category": [.null, "tools"], "year": [2001, 2002]])
        XCTAssertEqual(withNull.facets["category"]?.counts,
                       try groupBy(database, "red", "category", "(i.category IS NULL OR i.category = 'tools') AND i.year IN (2001, 2002)"))
        XCTAssertEqual(try search(database, "item", filters: ["category": []]).totalCount, 0, "an empty list keeps nothing")
        XCTAssertThrowsError(try search(database, "item", filters: ["nope": [1]]))
        XCTAssertThrowsError(try search(database, "item", facets: ["nope"]))
    }

    func testTopValuesAndDistinctCount() throws {
        let database = try makeItems()
        let counts = ["a": 5, "b": 3, "c": 3, "d": 1]
        var id = 0
        for (value, count) in counts.sorted(by: { $0.key < $1.key }) {
            for _ in 0..<count { id += 1; try database.insert(objects: FacetItem(id, "word", category: value), intoTable: "items") }
        }
        let facet = try XCTUnwrap(try search(database, "word").facets["category"])
        XCTAssertEqual(facet.distinctCount, 4)
        XCTAssertEqual(facet.top.map(\.value), ["a", "b", "c"], "by count, ties in value order, at most facetLimit")
        XCTAssertEqual(facet.top.map(\.count), [5, 3, 3])
        XCTAssertEqual(facet.counts["d"], 1)
    }

    /// Integers, reals, texts, blobs and NULL in one column: counted as GROUP BY groups them (the integer 1 and the
    /// text "1" apart, NULL as one value of its own).
    func testValuesOfEveryType() throws {
        let database = try makeItems()
        let values: [FundamentalValue] = [1, 1, "1", 2.5, 2.5, .null, .null, .null, FundamentalValue(Data([0, 1, 2])), "text"]
        for (i, value) in values.enumerated() {
            try database.exec(sql: "INSERT INTO items(id, title, body, category) VALUES(?, 'word', '', ?)", values: [i + 1, value])
        }
        let facet = try XCTUnwrap(try search(database, "word").facets["category"])
        XCTAssertTrue(facet.countedFromStructure)
        XCTAssertEqual(facet.counts, [1: 2, "1": 1, 2.5: 2, .null: 3, FundamentalValue(Data([0, 1, 2])): 1, "text": 1])
        XCTAssertEqual(facet.counts, try groupBy(database, "word", "category"))
        XCTAssertEqual(facet.top.first, FacetDistribution.ValueCount(value: .null, count: 3))
        // The same values by a bulk load and after a rebuild.
        try database.rebuild(index: "items_fts")
        XCTAssertEqual(try search(database, "word").facets["category"]?.counts, facet.counts)
    }

    // MARK: - Declarations

    func testFacetsNamedByASearchOnlyAndTriggerSyncedIndexesCountWithGroupBy() throws {
        let database = try makeItems(rows: 30)
        let undeclared = try search(database, "item", facets: ["price"])
        XCTAssertEqual(undeclared.facets["price"]?.counts, try groupBy(database, "item", "price"))
        XCTAssertEqual(undeclared.facets["price"]?.countedFromStructure, false)

        let triggers = makeDatabase("triggers.db")
        try triggers.create(table: "items", of: FacetItem.self)
        try triggers.create(virtualTable: "items_fts", of: FacetItemIndex.self, syncedWith: "items", mode: .trigger)
        try triggers.insert(objects: (1...20).map(item), intoTable: "items")
        let counted = try search(triggers, "item")
        XCTAssertEqual(counted.facets["category"]?.counts, try groupBy(triggers, "item", "category"))
        XCTAssertEqual(counted.facets["category"]?.countedFromStructure, false)
    }

    func testChangingTheDeclaredFacetsBuildsThem() throws {
        let database = try makeItems(rows: 20)
        try database.create(virtualTable: "items_fts", of: FacetItemIndex.self, syncedWith: "items", facets: ["price"])
        XCTAssertEqual(try search(database, "item", facets: ["price"]).facets["price"]?.countedFromStructure, true)
        XCTAssertEqual(try search(database, "item", facets: ["category"]).facets["category"]?.countedFromStructure, false)
        XCTAssertEqual(try search(database, "item", facets: ["price"]).facets["price"]?.counts, try groupBy(database, "item", "price"))
        XCTAssertTrue(try database.verify(index: "items_fts").isConsistent)
    }

    // MARK: - Damage

    /// Damaged facet tables (wrong blob sizes, ordinals past the dictionary or zero for a matching row, missing
    /// chunks, a huge dictionary, a dictionary entry gone, a meta row or a table gone): every search counts exactly
    /// (from GROUP BY), verify reports it, a rebuild or optimize builds it anew. Never a crash.
    func testDamagedFacetTablesFallBackToGroupBy() throws {
        let database = try makeItems(rows: 50)
        let damages = [
            "UPDATE items_fts_sift_facet_0 SET ordinals = x'0102'",
            "UPDATE items_fts_sift_facet_0 SET ordinals = zeroblob(4096)",
            "UPDATE items_fts_sift_facet_0 SET ordinals = randomblob(4096)",
            "UPDATE items_fts_sift_facet_0 SET ordinals = 42",
            "DELETE FROM items_fts_sift_facet_0",
            "UPDATE items_fts_sift_facet_0 SET chunk = chunk + 1",
            "UPDATE items_fts_sift_facet_values SET ordinal = 9223372036854775807 WHERE position = 0 AND ordinal = 2",
            "INSERT INTO items_fts_sift_facet_values VALUES(0, 100000000, 'huge')",
            "DELETE FROM items_fts_sift_facet_values WHERE position = 0 AND ordinal = 3",
            "UPDATE items_fts_sift_facet_values SET position = -1 WHERE position = 0",
            "UPDATE items_fts_sift_facet_meta SET valid = 0",
            "UPDATE items_fts_sift_facet_meta SET column_name = 'other' WHERE position = 0",
            "DELETE FROM items_fts_sift_facet_meta",
            "DROP TABLE items_fts_sift_facet_0",
            "DROP TABLE items_fts_sift_facet_values",
        ]
        for damage in damages {
            try database.exec(sql: damage)
            // Searches keep a facet's dictionary while its generation holds; a damage done behind Sift's back is seen
            // by the next process (or the next generation): forget the kept ones, as a process opening the file would.
            database.pool.attachment(FullTextSettings.init).facetDictionaries.withLock { $0.removeAll() }
            for text in ["item", "red"] {
                let counts = try search(database, text).facets["category"]
                XCTAssertEqual(counts?.counts, try groupBy(database, text, "category"), damage)
                XCTAssertEqual(counts?.countedFromStructure, false, damage)
            }
            XCTAssertFalse(try database.verify(index: "items_fts").isConsistent, damage)
            try database.rebuild(index: "items_fts")
            try check(database, "rebuilt after \(damage)")
        }
        // A value renamed in the dictionary is a plausible number-wise: verify finds it, optimize rebuilds it.
        try database.exec(sql: "UPDATE items_fts_sift_facet_values SET facet_value = 'renamed' WHERE position = 0 AND ordinal = 2")
        XCTAssertFalse(try database.verify(index: "items_fts").isConsistent)
        try database.optimize(index: "items_fts")
        try check(database, "optimized after damage")
    }
}
