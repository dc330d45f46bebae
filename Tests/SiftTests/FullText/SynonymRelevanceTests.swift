import Foundation
import XCTest
@testable import Sift

/// A small judged collection for the synonym weight: six questions whose synonyms are right most of the time and
/// sometimes of another sense ("auto-save", "couch potato", "Doctor Who", "kid leather", "plastic film"). Rows about
/// the question's subject are relevant (2) whichever word they use; rows using a synonym in another sense are not
/// (0). nDCG@5 averaged over the questions, for each weight; SIFT_PRINT_RELEVANCE=1 prints the numbers.
final class SynonymRelevanceTests: SiftTestCase {
    static let rules: [SynonymRule] = [
        .equivalent(["car", "automobile", "auto"]), .equivalent(["sofa", "couch"]), .oneWay(from: ["nyc"], to: ["new york city"]),
        .equivalent(["film", "movie"]), .equivalent(["physician", "doctor"]), .equivalent(["kid", "child"]),
    ]

    /// (title, body, relevant to the questions at these positions of `questions`).
    static let rows: [(String, String, Set<Int>)] = [
        ("Car repair basics", "How to repair a car at home: brakes, oil and tyres.", [0]),
        ("Repairing your car engine", "Engine repair for an old car.", [0]),
        ("Automobile repair shops", "Choosing a shop for automobile repair.", [0]),
        ("Auto repair costs", "What auto repair costs in a big town.", [0]),
        ("Auto-save in editors", "Repair a broken auto-save setting in your editor.", []),
        ("Auto mode repair", "The camera's auto mode needs repair after a fall.", []),
        ("Bicycle repair", "Fixing a flat tyre on a bicycle.", []),
        ("A new couch", "We bought a grey couch for the living room.", [1]),
        ("Couch cleaning", "Cleaning a fabric couch with soap.", [1]),
        ("Choosing a sofa", "A sofa for a small living room.", [1]),
        ("Sofa beds", "A sofa that opens into a bed.", [1]),
        ("Couch potato", "Being a couch potato all weekend: television and snacks.", []),
        ("Couch to 5k", "The couch to 5k running plan for beginners.", []),
        ("Movie review: the long night", "A review of the new movie, slow but moving.", [2]),
        ("Film review: harbour lights", "Our review of a film about a harbour town.", [2]),
        ("Film reviews this week", "Three film reviews, short and sharp.", [2]),
        ("Plastic film review", "A review of plastic film for wrapping food.", []),
        ("Movie theatres", "Where to watch a movie downtown.", []),
        ("Seeing a physician", "When to see a physician about a cough.", [3]),
        ("Your doctor visit", "What a doctor asks at a first visit; a physician's checklist.", [3]),
        ("Family doctor", "Finding a family doctor near you.", [3]),
        ("Doctor Who", "The Doctor travels in time in the TARDIS.", []),
        ("A doctor of philosophy", "Earning a doctorate: the doctor title in universities.", []),
        ("Kid friendly trips", "Trips a kid will love.", [4]),
        ("Child safety at home", "Keeping a child safe at home.", [4]),
        ("Travelling with a child", "Trips with a small child: what to pack.", [4]),
        ("Kid leather gloves", "Gloves of kid leather, soft and thin.", []),
        ("NYC hotels", "Hotels in NYC for every budget.", [5]),
        ("Hotels in New York City", "Where to stay in New York City.", [5]),
        ("York hotels", "Hotels in the city of York, old and new.", []),
        ("New York State hotels", "Hotels upstate, far from the city.", []),
    ]

    static let questions = ["car repair", "couch", "movie review", "physician", "kid", "nyc hotels"]

    /// nDCG@5 of each question's ranking under `weight`, averaged.
    private func meanNDCG(_ database: Database, weight: Double?, ranking: Ranking) throws -> Double {
        var total = 0.0
        for (q, question) in Self.questions.enumerated() {
            let options = SearchOptions(limit: 5, ranking: ranking, usesSynonyms: weight != nil, synonymWeight: weight ?? 0)
            let results: SearchResults<Article> = try database.search(SearchQuery(question, mode: .allTerms), in: "articles_fts",
                                                                     options: options)
            let gains = results.hits.map { Self.rows[($0.object.id ?? 1) - 1].2.contains(q) ? 1.0 : 0.0 }
            let relevant = Self.rows.filter { $0.2.contains(q) }.count
            func dcg(_ gains: [Double]) -> Double { gains.enumerated().reduce(0) { $0 + $1.element / log2(Double($1.offset) + 2) } }
            total += dcg(gains) / dcg(Array(repeating: 1, count: min(5, relevant)))
        }
        return total / Double(Self.questions.count)
    }

    func testDefaultWeightIsAmongTheBestMeasured() throws {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: Self.rows.enumerated().map { Article($0.offset + 1, $0.element.0, $0.element.1) },
                            intoTable: "articles")
        try database.addSynonyms(Self.rules, to: "articles_fts")
        for ranking in [Ranking.default, .bm25f()] {
            var scores: [(weight: Double?, ndcg: Double)] = []
            for weight in [nil, 0.1, 0.3, 0.5, 0.7, 1.0] {
                scores.append((weight, try meanNDCG(database, weight: weight, ranking: ranking)))
            }
            if ProcessInfo.processInfo.environment["SIFT_PRINT_RELEVANCE"] != nil {
                print("\(ranking): " + scores.map { "\($0.weight.map { "\($0)" } ?? "off") \(String(format: "%.4f", $0.ndcg))" }
                    .joined(separator: ", "))
            }
            // Weights below 1 keep the word typed first; among them the default is as good as the best, and synonyms
            // raise the collection's nDCG@5 well above searching without them.
            let best = scores.filter { ($0.weight ?? 0) < 1 }.map(\.ndcg).max() ?? 0
            let chosen = try XCTUnwrap(scores.first { $0.weight == SearchOptions.defaultSynonymWeight }).ndcg
            XCTAssertEqual(chosen, best, accuracy: 1e-9, "\(ranking): \(scores)")
            XCTAssertGreaterThan(chosen, scores[0].ndcg + 0.2, "\(ranking): \(scores)")
        }
    }
}
