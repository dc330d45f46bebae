import Foundation
import XCTest
import Sift

/// Sift's BM25F (`sift_rank`), against scores computed with the formula written out on a four-row corpus whose
/// title and body columns have different average lengths (titles 7/4 tokens, bodies 22/4).
final class RankingTests: SiftTestCase {
    /// Titles and bodies, one token per word (unicode61 splits at spaces here).
    private static let documents: [(title: String, body: String)] = [
        ("apple pie", "apple apple banana cherry fruit"),                   // 1: 2 and 5 tokens
        ("banana", "apple banana banana banana fruit date fig"),            // 2: 1 and 7
        ("cherry tart recipe", "banana cherry fruit"),                      // 3: 3 and 3
        ("date", "fruit apple cherry date elderberry fig grape"),           // 4: 1 and 7
    ]

    private func corpus() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: Self.documents.enumerated().map { Article($0.offset + 1, $0.element.title, $0.element.body) },
                            intoTable: "articles")
        return database
    }

    /// The BM25F score of document `id` as the formula reads, each phrase a word with its query weight:
    /// idf = ln(1 + (N - n + 0.5) / (n + 0.5)); tf~ = Σ_c w_c tf_c / (1 - b + b len_c / avglen_c);
    /// score = Σ qtf idf tf~ / (k1 + tf~). `columns` limits the columns searched (a column filter).
    ///
    /// With `inB2` (its c), the InB2 score instead: weight = log2((N + 1) / (n + 0.5)) (F + 1) / n with F the word's
    /// instances in every row (of the searched columns), tfn = Σ_c w_c tf_c log2(1 + c avglen_c / len_c),
    /// score = Σ qtf weight tfn / (tfn + 1).
    private func expected(_ id: Int, _ phrases: [(word: String, qtf: Double)], k1: Double = 1.2, b: Double = 0.75, inB2 c: Double? = nil,
                  weights: [Double] = [1, 1], columns: Set<Int> = [0, 1]) -> Double {
        let rows = Self.documents.map { [$0.title.split(separator: " ").map(String.init), $0.body.split(separator: " ").map(String.init)] }
        let count = Double(rows.count)
        let averageLength = [0, 1].map { column in Double(rows.map { $0[column].count }.reduce(0, +)) / count }
        var score = 0.0
        for (word, qtf) in phrases {
            let having = Double(rows.filter { row in columns.contains { row[$0].contains(word) } }.count)
            let instances = Double(rows.map { row in columns.map { row[$0].filter { $0 == word }.count }.reduce(0, +) }.reduce(0, +))
            let weight = c == nil ? log(1 + (count - having + 0.5) / (having + 0.5)) : log2((count + 1) / (having + 0.5)) * (instances + 1) / having
            var pseudo = 0.0
            for column in columns {
                let tf = Double(rows[id - 1][column].filter { $0 == word }.count)
                let length = Double(rows[id - 1][column].count)
                guard tf > 0 else { continue }
                if let c { pseudo += weights[column] * tf * log2(1 + c * averageLength[column] / length) }
                else { pseudo += weights[column] * tf / (1 - b + b * length / averageLength[column]) }
            }
            if pseudo > 0 { score += qtf * weight * pseudo / ((c == nil ? k1 : 1) + pseudo) }
        }
        return score
    }

    private func search(_ query: SearchQuery, _ ranking: Ranking = .bm25f(), weights: [String: Double] = [:],
                        in database: Database, limit: Int = 20, offset: Int = 0) throws -> SearchResults<Article> {
        try database.search(query, in: "articles_fts", options: SearchOptions(limit: limit, offset: offset, weights: weights, ranking: ranking))
    }

    /// Every hit's score equals `score(id)`, and hits come best first.
    private func assertScores(_ results: SearchResults<Article>, ids: Set<Int>, _ score: (Int) -> Double,
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(results.hits.compactMap(\.object.id)), ids, file: file, line: line)
        for hit in results.hits {
            XCTAssertEqual(hit.score, score(hit.object.id ?? 0), accuracy: 1e-9, "document \(hit.object.id ?? 0)", file: file, line: line)
        }
        XCTAssertTrue(zip(results.hits, results.hits.dropFirst()).allSatisfy { $0.score >= $1.score }, "best first",
                      file: file, line: line)
    }

    func testOneWordByHand() throws {
        let database = try corpus()
        // cherry: N = 4 rows, n = 3 contain it. Average lengths: titles (2+1+3+1)/4 = 1.75, bodies (5+7+3+7)/4 = 5.5.
        let idf = log(1 + (4 - 3 + 0.5) / (3 + 0.5))
        func saturated(_ pseudo: Double) -> Double { idf * pseudo / (1.2 + pseudo) }
        let row1 = saturated(1 / (0.25 + 0.75 * 5 / 5.5))                                   // once in a 5-token body
        let row3 = saturated(1 / (0.25 + 0.75 * 3 / 1.75) + 1 / (0.25 + 0.75 * 3 / 5.5))    // 3-token title, 3-token body
        let row4 = saturated(1 / (0.25 + 0.75 * 7 / 5.5))                                   // once in a 7-token body
        let results = try search(SearchQuery("cherry"), in: database)
        XCTAssertEqual(results.hits.compactMap(\.object.id), [3, 1, 4])
        XCTAssertEqual(results.hits.map(\.score)[0], row3, accuracy: 1e-9)
        XCTAssertEqual(results.hits.map(\.score)[1], row1, accuracy: 1e-9)
        XCTAssertEqual(results.hits.map(\.score)[2], row4, accuracy: 1e-9)
        assertScores(results, ids: [1, 3, 4]) { self.expected($0, [("cherry", 1)]) }
    }

    func testTermFrequencyAndIdf() throws {
        let database = try corpus()
        // banana three times in row 2's body and once in its title; date in two rows only: a rarer word weighs more.
        assertScores(try search(SearchQuery("banana"), in: database), ids: [1, 2, 3]) { self.expected($0, [("banana", 1)]) }
        assertScores(try search(SearchQuery("date fig"), in: database), ids: [2, 4]) {
            self.expected($0, [("date", 1), ("fig", 1)])
        }
        assertScores(try search(SearchQuery("banana date", mode: .anyTerm), in: database), ids: [1, 2, 3, 4]) {
            self.expected($0, [("banana", 1), ("date", 1)])
        }
    }

    func testIdfOfAWordInEveryRowStaysPositive() throws {
        let database = try corpus()
        // fruit is in every body: Lucene's idf is ln(1 + 0.5 / 4.5), small but positive (FTS5's bm25 would floor
        // it at 1e-6, ranking the rows by nothing).
        let idf = log(1 + (4 - 4 + 0.5) / (4 + 0.5))
        XCTAssertGreaterThan(idf, 0)
        let results = try search(SearchQuery("fruit"), in: database)
        assertScores(results, ids: [1, 2, 3, 4]) { self.expected($0, [("fruit", 1)]) }
        XCTAssertTrue(results.hits.allSatisfy { $0.score > 0 })
        let pseudo = 1 / (0.25 + 0.75 * 3 / 5.5)
        XCTAssertEqual(results.hits.first?.object.id, 3, "the shortest body")
        XCTAssertEqual(results.hits.first?.score ?? 0, idf * pseudo / (1.2 + pseudo), accuracy: 1e-9)
    }

    func testLengthNormalization() throws {
        let database = try corpus()
        // b = 0: length does not matter, rows 1, 2 and 4 each hold fruit once in the body and tie with row 3.
        let flat = try search(SearchQuery("fruit"), .bm25f(b: 0), in: database)
        assertScores(flat, ids: [1, 2, 3, 4]) { self.expected($0, [("fruit", 1)], b: 0) }
        let idf = log(1 + 0.5 / 4.5)
        XCTAssertTrue(flat.hits.allSatisfy { abs($0.score - idf * 1 / (1.2 + 1)) < 1e-9 })
        // b = 1: fully proportional to each column's length over its average.
        let full = try search(SearchQuery("fruit"), .bm25f(b: 1), in: database)
        assertScores(full, ids: [1, 2, 3, 4]) { self.expected($0, [("fruit", 1)], b: 1) }
        XCTAssertEqual(full.hits.first { $0.object.id == 3 }?.score ?? 0, idf * (5.5 / 3) / (1.2 + 5.5 / 3), accuracy: 1e-9)
        // Each column by its own average: a match in a title of average length counts as one in a body of average
        // length, although the body is three times longer.
        assertScores(try search(SearchQuery("cherry"), .bm25f(b: 0.5), in: database), ids: [1, 3, 4]) {
            self.expected($0, [("cherry", 1)], b: 0.5)
        }
    }

    func testColumnWeights() throws {
        let database = try corpus()
        for weights in [[3.0, 0.5], [1, 0], [0, 2], [10, 1]] {
            let results = try search(SearchQuery("cherry banana", mode: .anyTerm), weights: ["title": weights[0], "body": weights[1]],
                                     in: database)
            assertScores(results, ids: [1, 2, 3, 4]) { self.expected($0, [("cherry", 1), ("banana", 1)], weights: weights) }
        }
        // A heavy title puts row 3 (cherry in its title, banana in its body) first.
        let titles = try search(SearchQuery("cherry banana", mode: .anyTerm), weights: ["title": 10], in: database)
        XCTAssertEqual(titles.hits.first?.object.id, 3)
        // Weight 0 for the body: rows matching only there score 0, and come last.
        let titleOnly = try search(SearchQuery("cherry"), weights: ["body": 0], in: database)
        XCTAssertEqual(titleOnly.hits.first?.object.id, 3)
        XCTAssertEqual(titleOnly.hits.dropFirst().map(\.score), [0, 0])
    }

    func testRepeatedQueryWordsWeighMore() throws {
        let database = try corpus()
        // Any term: apple twice, banana once. The expression searches each word once.
        let any = try search(SearchQuery("apple banana apple", mode: .anyTerm), in: database)
        XCTAssertEqual(any.expression, "(\"apple\" OR \"banana\")")
        assertScores(any, ids: [1, 2, 3, 4]) { self.expected($0, [("apple", 2), ("banana", 1)]) }
        // All terms: the same weights, and FTS5's default keeps the repeated phrase instead.
        let all = try search(SearchQuery("apple banana apple"), in: database)
        XCTAssertEqual(all.expression, "(\"apple\" \"banana\")")
        assertScores(all, ids: [1, 2]) { self.expected($0, [("apple", 2), ("banana", 1)]) }
        XCTAssertEqual(try search(SearchQuery("apple banana apple"), .bm25, in: database).expression, "(\"apple\" \"banana\" \"apple\")")
        XCTAssertEqual(try database.expression(for: SearchQuery("apple banana apple"), in: "articles_fts", ranking: .bm25f()),
                       "(\"apple\" \"banana\")")
        // Prefix: the last word is a prefix phrase of its own, even when it was also typed whole.
        let prefix = try search(SearchQuery("fig fig da", mode: .prefix), in: database)
        XCTAssertEqual(prefix.expression, "(\"fig\" \"da\"*)")
        XCTAssertEqual(prefix.hits.count, 2)
    }

    func testSaturation() throws {
        let database = try corpus()
        for k1 in [0, 0.5, 1.2, 2, 100.0] {
            let results = try search(SearchQuery("banana"), .bm25f(k1: k1), in: database)
            assertScores(results, ids: [1, 2, 3]) { self.expected($0, [("banana", 1)], k1: k1) }
        }
        // k1 = 0 scores presence only: every row holding banana scores its idf, however often it holds it.
        let presence = try search(SearchQuery("banana"), .bm25f(k1: 0), in: database)
        let idf = log(1 + 1.5 / 3.5)
        XCTAssertTrue(presence.hits.allSatisfy { abs($0.score - idf) < 1e-9 })
        // A large k1 is nearly linear in tf~: row 2 (four bananas) far ahead.
        let linear = try search(SearchQuery("banana"), .bm25f(k1: 100), in: database)
        XCTAssertEqual(linear.hits.first?.object.id, 2)
    }

    func testColumnFiltersExclusionsNearAndAdvancedQueries() throws {
        let database = try corpus()
        // A column filter applies to the counts too: cherry is in one title, so n = 1, and body matches don't count.
        assertScores(try search(SearchQuery("cherry", columns: ["title"]), in: database), ids: [3]) {
            self.expected($0, [("cherry", 1)], columns: [0])
        }
        // Excluded phrases weigh nothing.
        assertScores(try search(SearchQuery("apple", mode: .anyTerm, excluding: "pie"), in: database), ids: [2, 4]) {
            self.expected($0, [("apple", 1)])
        }
        assertScores(try search(SearchQuery.near("date fig", distance: 0), in: database), ids: [2]) {
            self.expected($0, [("date", 1), ("fig", 1)])
        }
        // An advanced query's phrases all weigh 1, repeated ones included.
        assertScores(try search(.advanced("apple OR cherry OR apple"), in: database), ids: [1, 2, 3, 4]) {
            self.expected($0, [("apple", 2), ("cherry", 1)])
        }
    }

    func testOrderIsStableAcrossPages() throws {
        let database = try corpus()
        for (query, ranking) in [(SearchQuery("apple cherry fig", mode: .anyTerm), Ranking.bm25f()),
                                 (SearchQuery("fruit"), Ranking.bm25f(k1: 0, b: 0))] {  // all four rows tie
            let whole = try search(query, ranking, in: database)
            XCTAssertEqual(whole.hits.count, 4)
            var paged: [Int] = []
            for offset in 0..<4 {
                let page = try search(query, ranking, in: database, limit: 1, offset: offset)
                XCTAssertEqual(page.totalCount, 4)
                paged += page.hits.compactMap(\.object.id)
            }
            XCTAssertEqual(paged, whole.hits.compactMap(\.object.id))
            let pairs = try search(query, ranking, in: database, limit: 2, offset: 2)
            XCTAssertEqual(pairs.hits.compactMap(\.object.id), Array(paged[2...]))
        }
    }

    func testEveryPooledConnectionHasTheFunction() throws {
        let database = try corpus()
        let scores = Collected<Double>()
        let groups = (0..<6).map { _ in
            spawn {
                for _ in 0..<20 {
                    if let results = try? database.search(SearchQuery("cherry"), in: "articles_fts",
                                                          of: Article.self, options: SearchOptions(ranking: .bm25f())) {
                        scores.append(results.hits.first?.score ?? -1)
                    }
                }
            }
        }
        groups.forEach { $0.wait() }
        XCTAssertEqual(scores.all.count, 120, "every search succeeded, on whichever connection")
        XCTAssertTrue(scores.all.allSatisfy { abs($0 - self.expected(3, [("cherry", 1)])) < 1e-9 })
    }

    func testRawSQLWithTheConventionDocumentedInTheHeader() throws {
        let database = try corpus()
        // As the table's rank (k1, b or sift_inb2's c, ncolumns, column weights, a text of phrase weights) and called
        // directly.
        for (call, c) in [("sift_rank(1.2, 0.75, 2, 3.0, 1.0, ''2 1'')", nil), ("sift_inb2(2, 2, 3.0, 1.0, ''2 1'')", 2.0)] {
            let ranked = try database.getRows(sql: "SELECT rowid, rank FROM articles_fts WHERE articles_fts MATCH ? "
                                              + "AND rank MATCH '\(call)' ORDER BY rank", values: ["\"apple\" OR \"banana\""])
            XCTAssertEqual(ranked.count, 4)
            for row in ranked {
                XCTAssertEqual(-row[1].doubleValue, expected(Int(row[0].int64Value), [("apple", 2), ("banana", 1)], inB2: c, weights: [3, 1]),
                               accuracy: 1e-9, call)
            }
        }
        let direct = try database.getRows(sql: "SELECT rowid, sift_rank(articles_fts) FROM articles_fts WHERE articles_fts MATCH 'cherry'")
        for row in direct {
            XCTAssertEqual(-row[1].doubleValue, expected(Int(row[0].int64Value), [("cherry", 1)]), accuracy: 1e-9, "no arguments: defaults")
        }
    }

    /// The error of calling function(articles_fts, arguments) on the rows matching `apple` (one phrase).
    private func errorMessage(calling function: String, _ arguments: String, in database: Database) -> String {
        do {
            _ = try database.getRows(sql: "SELECT \(function)(articles_fts\(arguments.isEmpty ? "" : ", " + arguments)) FROM articles_fts "
                                     + "WHERE articles_fts MATCH 'apple'")
            return "no error"
        } catch {
            return (error as? SiftError)?.message ?? "\(error)"
        }
    }

    func testBadArgumentsAreErrorsNotCrashes() throws {
        let database = try corpus()
        func message(_ arguments: String) -> String { errorMessage(calling: "sift_rank", arguments, in: database) }
        XCTAssertEqual(message("1.2"), "sift_rank: wrong number of arguments (1): a table of 2 columns takes "
                       + "sift_rank(k1, b, ncolumns, 2 column weights[, phrase weights]), 5 or 6 arguments, or none")
        XCTAssertTrue(message("1.2, 0.75, 2, 1, 1, 1, 1").hasPrefix("sift_rank: wrong number of arguments (7)"))
        XCTAssertEqual(message("1.2, 0.75, 3, 1, 1, 1"), "sift_rank: argument 3 (ncolumns) must be 2")
        XCTAssertEqual(message("-1, 0.75, 2, 1, 1"), "sift_rank: argument 1 (k1) must be a number >= 0")
        XCTAssertEqual(message("1.2, 2, 2, 1, 1"), "sift_rank: argument 2 (b) must be a number from 0 to 1")
        XCTAssertEqual(message("1.2, 0.75, 2, 'heavy', 1"), "sift_rank: argument 4 (column weight) must be a number >= 0")
        XCTAssertEqual(message("NULL, 0.75, 2, 1, 1"), "sift_rank: argument 1 (k1) must be a number >= 0")
        XCTAssertEqual(message("1.2, 0.75, 2, 1e999, 1"), "sift_rank: argument 4 (column weight) must be a number >= 0",
                       "infinity is no weight")
        let phraseWeights = "sift_rank: argument 6 (phrase weights) must be 1 numbers >= 0 separated by spaces, "
            + "one per phrase of the query, such as '2 1'"
        for bad in ["-2", "'1 1'", "''", "'x'", "'2,'", "'1 '' OR 1'", "1e999", "NULL", "X'01'"] {
            XCTAssertEqual(message("1.2, 0.75, 2, 1, 1, \(bad)"), phraseWeights, bad)
        }
        for good in ["2", "2.5", "'3'", "' 0.25 '", "0"] {
            XCTAssertEqual(message("1.2, 0.75, 2, 1, 1, \(good)"), "no error", good)
        }
        XCTAssertEqual(message("1.2, 0.75, 2, 1, 1, 1"), "no error")
        XCTAssertEqual(message(""), "no error")
        // As the table's rank, FTS5 (3.40) reports a rank function's error without its message: still an error.
        XCTAssertThrowsError(try database.getRows(sql: "SELECT rowid FROM articles_fts WHERE articles_fts MATCH 'apple' "
                                                  + "AND rank MATCH 'sift_rank(1.2)' ORDER BY rank")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .error, "\(error)")
        }

        // Through the search API: out-of-range parameters are misuse errors before anything runs.
        let cases: [(Ranking, [String: Double])] = [(.bm25f(k1: -1), [:]), (.bm25f(k1: .infinity), [:]), (.bm25f(b: 1.5), [:]),
                                                    (.bm25f(b: .nan), [:]), (.bm25f(), ["title": -1]), (.bm25f(), ["body": .nan])]
        for (ranking, weights) in cases {
            XCTAssertThrowsError(try search(SearchQuery("apple"), ranking, weights: weights, in: database)) { error in
                XCTAssertEqual((error as? SiftError)?.code, .misuse, "\(ranking) \(weights): \(error)")
            }
        }
        XCTAssertEqual(try search(SearchQuery("apple"), .bm25, weights: ["title": -1], in: database).hits.count, 3,
                       "FTS5's bm25 takes negative weights, as before")
    }

    func testMorePhrasesThanSQLiteTakesArguments() throws {
        let database = try corpus()
        // 64 words (the most a query keeps, one repeated) and 64 excluded ones: 127 phrases, which with k1, b,
        // ncolumns and two column weights would be more than the 127 arguments SQLite lets a function take.
        let filler = (0..<61).map { "w\($0)" }.joined(separator: " ")
        let query = SearchQuery("apple banana apple " + filler, mode: .anyTerm,
                                excluding: (0..<64).map { "x\($0)" }.joined(separator: " "))
        let results = try search(query, in: database)
        XCTAssertEqual(results.expression?.components(separatedBy: "\"").count, 2 * 127 + 1, "127 phrases")
        assertScores(results, ids: [1, 2, 3, 4]) { self.expected($0, [("apple", 2), ("banana", 1)]) }
    }

    func testFeedbackAddsTheBestHitsWordsByHand() throws {
        let database = try corpus()
        // First pass for "cherry": row 3 is best (see testOneWordByHand). Its six tokens, "cherry tart recipe" and
        // "banana cherry fruit", hold cherry twice and four words once: with one feedback document and two terms,
        // cherry (2/6) and, of the ties at 1/6, banana (the first by spelling). The question weighs 0.5 (cherry 1
        // of 1), the feedback 0.5 split 2:1, so cherry weighs 0.5 + 1/3 and banana 1/6.
        let feedback = Feedback(documents: 1, terms: 2, originalWeight: 0.5)
        let results = try database.search(SearchQuery("cherry", mode: .anyTerm), in: "articles_fts",
                                          options: SearchOptions(ranking: .bm25f(), feedback: feedback)) as SearchResults<Article>
        XCTAssertEqual(results.expression, "(\"cherry\" OR \"banana\")")
        assertScores(results, ids: [1, 2, 3, 4]) { self.expected($0, [("cherry", 0.5 + 1.0 / 3), ("banana", 1.0 / 6)]) }
        // All of the weight on the question: the same order as without feedback.
        let kept = try database.search(SearchQuery("cherry", mode: .anyTerm), in: "articles_fts",
                                       options: SearchOptions(feedback: Feedback(documents: 1, terms: 2, originalWeight: 1))) as SearchResults<Article>
        XCTAssertEqual(kept.hits.map(\.score).filter { $0 > 0 }.count, 3, "banana weighs 0: only the cherry rows score")
        // Other modes and FTS5's bm25 ignore it; bad parameters are misuse.
        let all = try database.search(SearchQuery("cherry"), in: "articles_fts", options: SearchOptions(feedback: .rm3)) as SearchResults<Article>
        XCTAssertEqual(all.expression, "(\"cherry\")")
        for bad in [Feedback(documents: 0), Feedback(terms: -1), Feedback(originalWeight: 1.5), Feedback(originalWeight: .nan)] {
            XCTAssertThrowsError(try database.search(SearchQuery("cherry", mode: .anyTerm), in: "articles_fts",
                                                     options: SearchOptions(feedback: bad)) as SearchResults<Article>) { error in
                XCTAssertEqual((error as? SiftError)?.code, .misuse, "\(bad)")
            }
        }
    }

    func testDescription() {
        XCTAssertEqual(Ranking.bm25.description, "bm25")
        XCTAssertEqual(Ranking.bm25f().description, "bm25f(k1: 1.2, b: 0.75)")
        XCTAssertEqual(Ranking.bm25f(k1: 0.9, b: 0.4), .bm25f(k1: 0.9, b: 0.4))
        XCTAssertNotEqual(Ranking.bm25f(), .bm25)
        XCTAssertEqual(SearchOptions().ranking, .inB2(), "Sift's InB2 with c 1 is the default")
        XCTAssertEqual(Ranking.default, .inB2(c: 1))
    }
}

/// Sift's InB2 (`sift_inb2`), against the formula written out on the same four rows.
extension RankingTests {
    private func expectedInB2(_ id: Int, _ phrases: [(word: String, qtf: Double)], c: Double = 1, weights: [Double] = [1, 1],
                              columns: Set<Int> = [0, 1]) -> Double {
        expected(id, phrases, inB2: c, weights: weights, columns: columns)
    }

    func testInB2OneWordByHand() throws {
        let database = try corpus()
        // cherry: N = 4, n = 3, F = 4 (once in rows 1 and 4, twice in row 3). Average lengths 1.75 and 5.5.
        let weight = log2(5 / 3.5) * 5 / 3
        func saturated(_ tfn: Double) -> Double { weight * tfn / (tfn + 1) }
        let row1 = saturated(log2(1 + 5.5 / 5))                       // once in a 5-token body
        let row3 = saturated(log2(1 + 1.75 / 3) + log2(1 + 5.5 / 3))  // 3-token title, 3-token body
        let row4 = saturated(log2(1 + 5.5 / 7))                       // once in a 7-token body
        let results = try search(SearchQuery("cherry"), .inB2(), in: database)
        XCTAssertEqual(results.hits.compactMap(\.object.id), [3, 1, 4])
        for (hit, score) in zip(results.hits, [row3, row1, row4]) { XCTAssertEqual(hit.score, score, accuracy: 1e-12) }
        assertScores(results, ids: [1, 3, 4]) { self.expectedInB2($0, [("cherry", 1)]) }
    }

    func testInB2TermFrequencyRecurrenceLengthWeightsAndRepeatedWords() throws {
        let database = try corpus()
        // banana: four times in row 2 (B = (6 + 1) / 3 weighs a word that recurs in its rows more than date's 3 / 2).
        assertScores(try search(SearchQuery("banana"), .inB2(), in: database), ids: [1, 2, 3]) { self.expectedInB2($0, [("banana", 1)]) }
        assertScores(try search(SearchQuery("banana date", mode: .anyTerm), .inB2(), in: database), ids: [1, 2, 3, 4]) {
            self.expectedInB2($0, [("banana", 1), ("date", 1)])
        }
        for c in [0.25, 1, 7] {
            assertScores(try search(SearchQuery("fruit cherry", mode: .anyTerm), .inB2(c: c), in: database), ids: [1, 2, 3, 4]) {
                self.expectedInB2($0, [("fruit", 1), ("cherry", 1)], c: c)
            }
        }
        for weights in [[3.0, 0.5], [1, 0], [0, 2]] {
            let results = try search(SearchQuery("cherry banana", mode: .anyTerm), .inB2(), weights: ["title": weights[0], "body": weights[1]],
                                     in: database)
            assertScores(results, ids: [1, 2, 3, 4]) { self.expectedInB2($0, [("cherry", 1), ("banana", 1)], weights: weights) }
        }
        let repeated = try search(SearchQuery("apple banana apple", mode: .anyTerm), .inB2(), in: database)
        XCTAssertEqual(repeated.expression, "(\"apple\" OR \"banana\")")
        assertScores(repeated, ids: [1, 2, 3, 4]) { self.expectedInB2($0, [("apple", 2), ("banana", 1)]) }
        // A column filter counts n and F in that column only.
        assertScores(try search(SearchQuery("cherry", columns: ["body"]), .inB2(), in: database), ids: [1, 3, 4]) {
            self.expectedInB2($0, [("cherry", 1)], columns: [1])
        }
    }

    /// sift_inb2_df takes each phrase's rows and instances from the caller (what the pruned search keeps): with
    /// the true counts it scores as sift_inb2, with others it uses them; a count without instances is counted.
    func testInB2WithGivenCounts() throws {
        let database = try corpus()
        func scores(_ counts: String) throws -> [Int64: Double] {
            let rows = try database.getRows(sql: "SELECT rowid, sift_inb2_df(articles_fts, 1, 2, 1, 1, '1', '\(counts)') FROM articles_fts "
                                            + "WHERE articles_fts MATCH 'cherry'")
            return Dictionary(uniqueKeysWithValues: rows.map { ($0[0].int64Value, -$0[1].doubleValue) })
        }
        for counts in ["3/4", "3", "-"] {
            for (rowid, score) in try scores(counts) {
                XCTAssertEqual(score, expectedInB2(Int(rowid), [("cherry", 1)]), accuracy: 1e-12, counts)
            }
        }
        // F = 9 instead of 4: the after-effect (F + 1) / n grows from 5/3 to 10/3, twice the score.
        for (rowid, score) in try scores("3/9") {
            XCTAssertEqual(score, 2 * expectedInB2(Int(rowid), [("cherry", 1)]), accuracy: 1e-12)
        }
        for bad in ["3/", "3/x", "/4"] {
            XCTAssertTrue(errorMessage(calling: "sift_inb2_df", "1, 2, 1, 1, '1', '\(bad)'", in: database).hasPrefix("sift_rank_df: the last argument"), bad)
        }
    }

    /// Searches take the phrases' counts from the last search while the index is unchanged (`PhraseStatistics`):
    /// after inserts, deletes, a rolled-back transaction (searched inside it too) and another connection's write,
    /// every score still equals the function counting for itself in SQL.
    func testKeptPhraseCountsFollowEveryChange() throws {
        let database = try corpus()
        func check(_ context: String, line: UInt = #line) throws {
            for (ranking, call) in [(Ranking.inB2(), "sift_inb2(articles_fts, 1, 2, 1, 1, '1 1')"),
                                    (.bm25f(), "sift_rank(articles_fts, 1.2, 0.75, 2, 1, 1, '1 1')")] {
                let rows = try database.getRows(sql: "SELECT rowid, \(call) FROM articles_fts WHERE articles_fts MATCH '\"cherry\" OR \"fig\"'")
                let expected = Dictionary(uniqueKeysWithValues: rows.map { ($0[0].int64Value, -$0[1].doubleValue) })
                let results = try search(SearchQuery("cherry fig", mode: .anyTerm), ranking, in: database)
                XCTAssertEqual(results.hits.count, expected.count, context, line: line)
                for hit in results.hits {
                    XCTAssertEqual(hit.score, expected[hit.rowid] ?? -1, accuracy: 1e-12, "\(context) \(ranking) row \(hit.rowid)", line: line)
                }
            }
        }
        try check("first")
        try check("kept")
        try database.insert(objects: [Article(5, "cherry", "cherry cherry fig"), Article(6, "fig", "plum")], intoTable: "articles")
        try check("after inserts")
        try database.delete(fromTable: "articles", where: Column(named: "id") == 3)
        try check("after a delete")
        struct Rollback: Error {}
        XCTAssertThrowsError(try database.run(transaction: {
            try database.insert(objects: [Article(7, "cherry cherry", "fig fig fig")], intoTable: "articles")
            try check("inside a transaction")
            throw Rollback()
        }))
        try check("after the rollback")
        let other = Database(withPath: database.path)
        try other.insert(objects: [Article(8, "cherry", "fig")], intoTable: "articles")
        other.close()
        try check("after another connection's write")
    }

    /// A search reads one snapshot: another connection's write that commits after the search counted its phrases
    /// but before its ranked statement runs is not half seen (the new row scored with counts from before it).
    func testSearchCountsAndRanksOneSnapshot() throws {
        let database = try corpus()
        let before = try search(SearchQuery("cherry fig", mode: .anyTerm), .inB2(), in: database)
        let other = Database(withPath: database.path)
        try other.create(table: "articles", of: Article.self)
        let written = Collected<Bool>()
        // The write commits as the ranked statement starts, after PhraseStatistics read the structure and counted.
        database.trace(ofSQL: { sql in
            guard sql.contains(".rank MATCH"), written.all.isEmpty else { return }
            written.append((try? other.insert(objects: [Article(9, "cherry cherry cherry", "fig fig")], intoTable: "articles")) != nil)
        })
        let during = try search(SearchQuery("cherry fig", mode: .anyTerm), .inB2(), in: database)
        database.trace(ofSQL: nil)
        other.close()
        XCTAssertEqual(written.all, [true], "the write ran during the search")
        XCTAssertEqual(during.hits.map(\.rowid), before.hits.map(\.rowid))
        for (hit, old) in zip(during.hits, before.hits) { XCTAssertEqual(hit.score, old.score, accuracy: 1e-12, "row \(hit.rowid)") }
        XCTAssertEqual(try search(SearchQuery("cherry fig", mode: .anyTerm), .inB2(), in: database).hits.first?.rowid, 9,
                       "the next search sees the write")
    }

    func testInB2ArgumentErrors() throws {
        let database = try corpus()
        func message(_ arguments: String) -> String { errorMessage(calling: "sift_inb2", arguments, in: database) }
        XCTAssertEqual(message(""), "no error")
        XCTAssertEqual(message("1, 2, 1, 1"), "no error")
        XCTAssertEqual(message("1.2, 0.75, 2, 1, 1"), "sift_inb2: argument 2 (ncolumns) must be 2", "sift_rank's arguments are not sift_inb2's")
        XCTAssertEqual(message("1"), "sift_inb2: wrong number of arguments (1): a table of 2 columns takes "
                       + "sift_inb2(c, ncolumns, 2 column weights[, phrase weights]), 4 or 5 arguments, or none")
        XCTAssertEqual(message("0, 2, 1, 1"), "sift_inb2: argument 1 (c) must be a number > 0")
        XCTAssertEqual(message("-1, 2, 1, 1"), "sift_inb2: argument 1 (c) must be a number > 0")
        XCTAssertEqual(message("NULL, 2, 1, 1"), "sift_inb2: argument 1 (c) must be a number > 0")
        XCTAssertEqual(message("1, 2, 1, 1, 'x'"), "sift_inb2: argument 5 (phrase weights) must be 1 numbers >= 0 separated by "
                       + "spaces, one per phrase of the query, such as '2 1'")
        for bad in [0, -1, .nan, .infinity] {
            XCTAssertThrowsError(try search(SearchQuery("apple"), .inB2(c: bad), in: database)) { error in
                XCTAssertEqual((error as? SiftError)?.code, .misuse, "c \(bad): \(error)")
            }
        }
        XCTAssertEqual(Ranking.inB2().description, "inB2(c: 1.0)")
        XCTAssertNotEqual(Ranking.inB2(), .inB2(c: 2))
    }
}
