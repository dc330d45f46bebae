import Foundation
import XCTest
@testable import Sift

/// Synonym lists: kept in `sift_synonyms`, written through the API, applied when a query is built (no reindex),
/// one-way and two-way, multi-word on either side, ranked below the word typed, marked in highlights.
final class SynonymTests: SiftTestCase {
    private func articles(_ rows: [(String, String)]) throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: rows.enumerated().map { Article($0.offset + 1, $0.element.0, $0.element.1) }, intoTable: "articles")
        return database
    }

    private func ids(_ database: Database, _ text: String, mode: SearchQuery.Mode = .allTerms,
                     options: SearchOptions = SearchOptions()) throws -> [Int] {
        let results: SearchResults<Article> = try database.search(SearchQuery(text, mode: mode), in: "articles_fts", options: options)
        return results.hits.compactMap(\.object.id)
    }

    private let cities: [(String, String)] = [
        ("NYC marathon", "Runners crossed the five boroughs."),
        ("A trip to New York City", "Museums and parks."),
        ("York minster", "A cathedral in the city of York, not new."),
        ("Car show", "The newest car models."),
        ("Automobile history", "From steam to petrol."),
        ("Auto repair", "Fixing brakes."),
    ]

    func testTwoWayGroupFindsEveryMember() throws {
        let database = try articles(cities)
        XCTAssertEqual(try ids(database, "car"), [4])
        try database.addSynonyms([.equivalent(["car", "automobile", "auto"])], to: "articles_fts")
        for word in ["car", "automobile", "auto", "AUTOMOBILE"] {
            XCTAssertEqual(Set(try ids(database, word)), [4, 5, 6], word)
        }
        XCTAssertEqual(try ids(database, "car", options: SearchOptions(usesSynonyms: false)), [4])
    }

    func testOneWayRuleFindsThePhraseNotTheReverse() throws {
        let database = try articles(cities)
        try database.addSynonyms([.oneWay(from: ["nyc"], to: ["new york city"])], to: "articles_fts")
        // "nyc" also finds the phrase; row 3 holds new, york and city, not as a phrase.
        XCTAssertEqual(try ids(database, "nyc"), [1, 2])
        XCTAssertEqual(Set(try ids(database, "new york city")), [2, 3], "the reverse is not a synonym")
        XCTAssertEqual(try database.expression(for: SearchQuery("nyc marathon"), in: "articles_fts"),
                       #"(("nyc" OR "new york city") AND "marathon")"#)
    }

    func testMultiWordEntryTypedMatchesItsWordsOrItsSynonym() throws {
        let database = try articles(cities)
        try database.addSynonyms([.equivalent(["nyc", "new york city"])], to: "articles_fts")
        XCTAssertEqual(try database.expression(for: SearchQuery("new york city"), in: "articles_fts"),
                       #"((("new" "york" "city") OR "nyc"))"#)
        // The words typed keep their meaning (all required, anywhere: row 3); "nyc" is added (row 1).
        XCTAssertEqual(Set(try ids(database, "new york city")), [1, 2, 3])
        XCTAssertEqual(Set(try ids(database, "NYC")), [1, 2])
        // Inside a longer question, the run is matched as a whole.
        XCTAssertEqual(try ids(database, "trip new york city"), [2])
        XCTAssertEqual(try ids(database, "new york city marathon"), [1])
        // Any-term: the synonym is a term of its own; phrase: a phrase equal to an entry.
        XCTAssertEqual(Set(try ids(database, "new york city", mode: .anyTerm)), [1, 2, 3])
        XCTAssertEqual(Set(try ids(database, "new york city", mode: .phrase)), [1, 2])
        XCTAssertEqual(Set(try ids(database, "nyc", mode: .phrase)), [1, 2])
        // Prefix: the word being typed finds the synonyms of an entry it equals.
        XCTAssertEqual(Set(try ids(database, "ny", mode: .prefix)), [1])
        XCTAssertEqual(Set(try ids(database, "nyc", mode: .prefix)), [1, 2])
        XCTAssertEqual(Set(try ids(database, "new york ci", mode: .prefix)), [2, 3])
    }

    func testEntriesAreNormalizedByTheIndexTokenizer() throws {
        let database = try articles([("Café culture", "Espresso."), ("Coffee house", "Filter."), ("Tea room", "Green.")])
        // unicode61 remove_diacritics 2 folds case and accents, on both sides.
        try database.addSynonyms([.equivalent(["CAFE", "coffee   house"])], to: "articles_fts")
        XCTAssertEqual(Set(try ids(database, "café")), [1, 2])
        XCTAssertEqual(Set(try ids(database, "Coffee House")), [1, 2])
        XCTAssertEqual(try database.synonyms(in: "articles_fts"), [.equivalent(["CAFE", "coffee house"])])
    }

    func testListChangeAppliesWithoutReindexing() throws {
        let database = try articles(cities)
        XCTAssertEqual(try ids(database, "auto"), [6])
        try database.addSynonyms([.equivalent(["auto", "car"])], to: "articles_fts")
        XCTAssertEqual(Set(try ids(database, "auto")), [4, 6])
        try database.replaceSynonyms(in: "articles_fts", with: [.oneWay(from: ["auto"], to: ["automobile"])])
        XCTAssertEqual(Set(try ids(database, "auto")), [5, 6])
        XCTAssertEqual(try ids(database, "automobile"), [5])
        XCTAssertEqual(try database.removeSynonyms([.oneWay(from: ["auto"], to: ["automobile"])], from: "articles_fts"), 1)
        XCTAssertEqual(try ids(database, "auto"), [6])
        XCTAssertEqual(try database.synonyms(in: "articles_fts"), [])
        // A rolled-back change is not kept, in the list or in what searches use.
        try? database.run(transaction: {
            try database.addSynonyms([.equivalent(["auto", "car"])], to: "articles_fts")
            XCTAssertEqual(Set(try self.ids(database, "auto")), [4, 6], "the transaction sees its own list")
            throw SiftError.misuse("roll back")
        })
        XCTAssertEqual(try ids(database, "auto"), [6])
        try database.addSynonyms([.equivalent(["auto", "automobile"])], to: "articles_fts")
        XCTAssertEqual(Set(try ids(database, "auto")), [5, 6], "a generation is never reused after a rollback")
    }

    func testTypedWordRanksAboveItsSynonym() throws {
        // Rows alike but for the word: the one holding the word typed ranks first, from either side of the group.
        let database = try articles([("sofa for sale", "in good shape"), ("couch for sale", "in good shape"),
                                     ("table", "oak"), ("chair", "pine"), ("lamp", "brass")])
        try database.addSynonyms([.equivalent(["sofa", "couch"])], to: "articles_fts")
        for ranking in [Ranking.default, .bm25f()] {
            let options = SearchOptions(ranking: ranking)
            XCTAssertEqual(try ids(database, "sofa", options: options), [1, 2], "\(ranking)")
            XCTAssertEqual(try ids(database, "couch", options: options), [2, 1], "\(ranking)")
            XCTAssertEqual(try ids(database, "couch sale", mode: .anyTerm, options: options), [2, 1], "\(ranking)")
        }
        let full: SearchResults<Article> = try database.search("sofa", in: "articles_fts")
        let half: SearchResults<Article> = try database.search("sofa", in: "articles_fts", options: SearchOptions(synonymWeight: 0.25))
        XCTAssertEqual(full.hits[0].score, half.hits[0].score, accuracy: 1e-9, "the word typed scores alike")
        XCTAssertLessThan(half.hits[1].score, full.hits[1].score)
        XCTAssertThrowsError(try ids(database, "sofa", options: SearchOptions(synonymWeight: 1.5)))
    }

    func testHighlightsAndSnippetsMarkTheSynonym() throws {
        let database = try articles(cities)
        try database.addSynonyms([.oneWay(from: ["nyc"], to: ["new york city"]), .equivalent(["car", "automobile"])],
                                 to: "articles_fts")
        let options = SearchOptions(highlight: ["title"], snippet: ["title"], markers: .init("<", ">"))
        let results: SearchResults<Article> = try database.search("nyc", in: "articles_fts", options: options)
        XCTAssertEqual(results.hits.map { $0.highlights["title"] }, ["<NYC> marathon", "A trip to <New York City>"])
        XCTAssertEqual(results.hits[1].snippets["title"], "A trip to <New York City>")
        let car: SearchResults<Article> = try database.search("car", in: "articles_fts", options: options)
        XCTAssertEqual(Set(car.hits.compactMap { $0.highlights["title"] }), ["<Car> show", "<Automobile> history"])
    }

    func testInvalidEntriesAndUnknownIndexesAreTypedErrors() throws {
        let database = try articles(cities)
        func misuse(_ rules: [SynonymRule], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try database.addSynonyms(rules, to: "articles_fts"), file: file, line: line) { error in
                XCTAssertEqual((error as? SiftError)?.code, .misuse, "\(error)", file: file, line: line)
                XCTAssertTrue((error as? SiftError)?.message.contains(message) == true, "\(error)", file: file, line: line)
            }
        }
        misuse([.equivalent(["car"])], "at least two")
        misuse([.equivalent(["car", " car "])], "at least two")
        misuse([.equivalent(["car", "  "])], "empty")
        misuse([.oneWay(from: [], to: ["car"])], "both sides")
        misuse([.oneWay(from: ["car"], to: ["car"])], "both sides")
        misuse([.equivalent(["car", "a\u{0}b"])], "control")
        misuse([.equivalent(["car", "!!!"])], "holds no word")
        misuse([.equivalent(["car", String(repeating: "word ", count: 60)])], "at most 256 bytes")
        misuse([.equivalent((0..<1_001).map { "w\($0)" })], "at most 1000 entries")
        misuse([.equivalent(["car", "auto"]), .equivalent(["bus"])], "at least two")
        XCTAssertEqual(try database.synonyms(in: "articles_fts"), [], "nothing added when one rule is invalid")
        for call in [{ try database.addSynonyms([.equivalent(["a", "b"])], to: "nope") },
                     { _ = try database.synonyms(in: "articles") },
                     { _ = try database.removeSynonyms([.equivalent(["a", "b"])], from: "nope") },
                     { try database.replaceSynonyms(in: "nope", with: []) }] {
            XCTAssertThrowsError(try call()) { XCTAssertTrue($0 is SiftError, "\($0)") }
        }
    }

    func testLargeListsAndHugeInputStayBounded() throws {
        let database = try articles(cities + [("w17 w42", "w9999")])
        // A group of 1,000 entries and 9,000 one-way rules: each word finds at most `maxSynonyms` others.
        let group = SynonymRule.equivalent((0..<1_000).map { "w\($0)" })
        let oneWay = (0..<9_000).map { SynonymRule.oneWay(from: ["k\($0)"], to: ["car"]) }
        try database.addSynonyms([group] + oneWay, to: "articles_fts")
        XCTAssertEqual(try database.synonyms(in: "articles_fts").count, 9_001)
        let expression = try XCTUnwrap(database.expression(for: SearchQuery("w5"), in: "articles_fts"))
        XCTAssertEqual(expression.components(separatedBy: " OR ").count, 1 + SynonymSet.maxSynonyms)
        XCTAssertEqual(try ids(database, "k8999"), [4])
        // A long question adds at most 2 * maxTerms synonyms.
        let long = (0..<64).map { "w\($0)" }.joined(separator: " ")
        let grouped = try XCTUnwrap(database.expression(for: SearchQuery(long, mode: .anyTerm), in: "articles_fts"))
        XCTAssertEqual(grouped.components(separatedBy: " OR ").count, 64 + 2 * SearchQuery.maxTerms)
        XCTAssertNoThrow(try ids(database, long, mode: .anyTerm))
        XCTAssertNoThrow(try ids(database, String(repeating: "w1 ", count: 10_000)))
    }

    /// The list in Solr's format: two-way lines, one-way lines, comments, escapes; read back from `description`.
    func testSolrFormatRoundTrips() throws {
        let text = """
            # vehicles
              car, automobile,auto
            nyc, big apple => new york city

            1\\,000, one thousand
            a\\=>b => c\\\\d
            \\#hash, tag
            """
        let rules = try SynonymRule.solrRules(text)
        XCTAssertEqual(rules, [.equivalent(["auto", "automobile", "car"]), .oneWay(from: ["big apple", "nyc"], to: ["new york city"]),
                               .equivalent(["1,000", "one thousand"]), .oneWay(from: ["a=>b"], to: ["c\\d"]),
                               .equivalent(["#hash", "tag"])])
        XCTAssertEqual(try SynonymRule.solrRules(rules.map(\.description).joined(separator: "\n")), rules)
        XCTAssertEqual(rules[3].description, "a\\=>b => c\\\\d")
        for bad in ["a => b => c", "a, , b", "=> b", "a =>", "solo"] {
            XCTAssertThrowsError(try SynonymRule.solrRules("# ok\n" + bad)) { error in
                XCTAssertTrue((error as? SiftError)?.message.hasPrefix("Synonyms line 2:") == true, "\(bad): \(error)")
            }
        }
    }

    /// Observed and async searches use the list, and a change to it alone delivers fresh results.
    func testObservedAndAsyncSearchesFollowTheList() async throws {
        let database = makeDatabase()
        try database.create(table: "posts", of: Post.self)
        try database.create(virtualTable: "posts_fts", of: ArticleIndex.self, syncedWith: "posts")
        try database.insert(objects: [Post(1, "Auto repair", "brakes"), Post(2, "Car show", "models")], intoTable: "posts")
        let deliveries = Deliveries<[Int]>()
        let token = database.observeSearch(SearchQuery("auto"), in: "posts_fts", of: Post.self)
            .start(onError: { XCTFail("\($0)") }, onChange: { deliveries.append($0.hits.map(\.object.id).sorted()) })
        defer { token.cancel() }
        XCTAssertTrue(deliveries.wait { $0 == [[1]] }, "\(deliveries.all)")
        try database.addSynonyms([.equivalent(["auto", "car"])], to: "posts_fts")
        XCTAssertTrue(deliveries.wait { $0.last == [1, 2] }, "\(deliveries.all)")
        let found = try await database.search("car", in: "posts_fts", of: Post.self)
        XCTAssertEqual(found.hits.map(\.object.id), [2, 1])
    }

    /// A migration that drops every indexed column drops the index and its synonym list with it.
    func testMigrationThatDropsTheIndexDropsItsList() throws {
        let database = try articles(cities)
        try database.addSynonyms([.equivalent(["car", "automobile"])], to: "articles_fts")
        XCTAssertEqual(Set(try ids(database, "car")), [4, 5])
        try database.migrate(table: "articles", of: ArticleViewsOnly.self, toVersion: 1) { try $0.dropProperties("title", "body") }
        XCTAssertThrowsError(try database.synonyms(in: "articles_fts"))
        XCTAssertEqual(try database.getValue(on: Column.all.count(), fromTable: "sift_synonyms",
                                             where: Column(named: "rule") != "").int64Value, 0)
    }
}

/// Article after a migration dropped both indexed columns.
final class ArticleViewsOnly: TableCodable {
    var id: Int? = nil
    var views: Int = 0
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ArticleViewsOnly
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, views
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}
