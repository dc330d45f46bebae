import Foundation
import XCTest

/// `sift index --vector-field`, `sift search --vector-file` and `sift eval --query-vectors` on a small synthetic
/// collection whose vectors find what its words do not.
final class VectorCommandTests: ToolTestCase {
    /// Six documents in two topics (fruit along the first axis, engines along the third); d2 and d5 say their topic
    /// in other words than the queries use.
    private func writeCollection() throws {
        try write("beir/corpus.jsonl", """
            {"_id": "d1", "title": "Apple orchard", "text": "An orchard of apple trees in spring."}
            {"_id": "d2", "title": "Pears", "text": "Ripe pears and plums picked by hand."}
            {"_id": "d3", "title": "Market", "text": "Prices at the weekly market."}
            {"_id": "d4", "title": "Engine repair", "text": "Fixing a diesel engine."}
            {"_id": "d5", "title": "Gearbox", "text": "A worn clutch and gearbox."}
            {"_id": "d6", "title": "Weather", "text": "Rain all week, an orchard flooded."}
            """)
        try write("beir/queries.jsonl", """
            {"_id": "q1", "text": "orchard"}
            {"_id": "q2", "text": "engine"}
            """)
        try write("beir/qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t1\nq2\td4\t1\nq2\td5\t1\n")
        try write("vectors/corpus.jsonl", """
            {"_id": "d1", "vector": [1, 0.1, 0, 0]}
            {"_id": "d2", "vector": [0.9, 0.2, 0, 0.1]}
            {"_id": "d3", "vector": [0.2, 0.2, 0.2, 1]}
            {"_id": "d4", "vector": [0, 0, 1, 0.1]}
            {"_id": "d5", "vector": [0, 0.1, 0.9, 0.2]}
            {"_id": "d6", "vector": [0.1, 1, 0, 0.3]}
            """)
        try write("vectors/queries.jsonl", """
            {"_id": "q1", "vector": [1, 0, 0, 0]}
            {"_id": "q2", "vector": [0, 0, 1, 0]}
            """)
    }

    /// The records of the collection with their vectors inline, as `sift index --vector-field` reads them.
    private func writeRecords() throws -> String {
        try writeCollection()
        let vectors = try String(contentsOf: folder.appendingPathComponent("vectors/corpus.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { String($0.drop { $0 != "[" }.dropLast()) }
        let records = try String(contentsOf: folder.appendingPathComponent("beir/corpus.jsonl"), encoding: .utf8)
            .split(separator: "\n").enumerated().map { $0.element.dropLast() + ", \"emb\": \(vectors[$0.offset])}" }
        try write("docs.jsonl", records.joined(separator: "\n") + "\n")
        return "docs.jsonl"
    }

    private func keys(_ outcome: Outcome) throws -> [String] {
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return try outcome.stdout.split(separator: "\n").map { line in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try XCTUnwrap(object["key"] as? String)
        }
    }

    func testIndexAndSearchByVector() throws {
        let records = try writeRecords()
        let index = try sift("index", records, "--db", "c.db", "--vector-field", "emb", "--quiet")
        XCTAssertEqual(index.status, 0, index.stderr)
        try write("q.json", "[0.95, 0.05, 0, 0]")

        // Vector alone: the fruit documents by cosine, d2 although it never says "orchard".
        XCTAssertEqual(try keys(try sift("search", "--vector-file", "q.json", "--db", "c.db", "--json", "--limit", "2")), ["d1", "d2"])
        // Text alone finds the two that say "orchard"; hybrid ranks d1 (both sides) first and brings d2 in.
        XCTAssertEqual(Set(try keys(try sift("search", "orchard", "--db", "c.db", "--json"))), ["d1", "d6"])
        for fusion in ["blend", "rrf"] {
            let hybrid = try keys(try sift("search", "orchard", "--vector-file", "q.json", "--fusion", fusion, "--db", "c.db",
                                           "--json", "--limit", "3"))
            XCTAssertEqual(hybrid.first, "d1", fusion)
            XCTAssertTrue(hybrid.contains("d2"), "\(fusion): \(hybrid)")
        }
        // The vector field is not kept among the stored fields; the index is healthy.
        let shown = try sift("search", "orchard", "--db", "c.db", "--json", "--limit", "1")
        XCTAssertFalse(shown.stdout.contains("emb"), shown.stdout)
        XCTAssertEqual(try sift("check", "--db", "c.db").status, 0)

        // Re-indexing a record with another vector moves it: d3 now points where the query does.
        try write("more.jsonl", "{\"_id\": \"d3\", \"title\": \"Market\", \"text\": \"Prices.\", \"emb\": [0.95, 0.05, 0, 0]}\n")
        XCTAssertEqual(try sift("index", "more.jsonl", "--db", "c.db", "--vector-field", "emb", "--quiet").status, 0)
        XCTAssertEqual(try keys(try sift("search", "--vector-file", "q.json", "--db", "c.db", "--json", "--limit", "1")), ["d3"])
    }

    func testBadVectorsAreReportedAndSkipped() throws {
        try write("docs.jsonl", """
            {"_id": "a", "text": "first", "emb": [1, 0, 0]}
            {"_id": "b", "text": "second", "emb": [1, 0]}
            {"_id": "c", "text": "third", "emb": [0, 0, 0]}
            {"_id": "d", "text": "fourth", "emb": ["x", 1, 2]}
            {"_id": "e", "text": "fifth"}
            """)
        let index = try sift("index", "docs.jsonl", "--db", "c.db", "--vector-field", "emb", "--quiet")
        XCTAssertEqual(index.status, 1, index.stderr)
        XCTAssertTrue(index.stderr.contains("docs.jsonl:2:") && index.stderr.contains("the corpus's vectors have 3"), index.stderr)
        XCTAssertTrue(index.stderr.contains("docs.jsonl:3:") && index.stderr.contains("zeros"), index.stderr)
        XCTAssertTrue(index.stderr.contains("docs.jsonl:4:") && index.stderr.contains("not a finite number"), index.stderr)

        try write("q2.json", "[1, 0]")
        let wrong = try sift("search", "--vector-file", "q2.json", "--db", "c.db")
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.stderr.contains("3"), wrong.stderr)
        try write("bad.json", "{\"vector\": [1, 0, 0]}")
        let notArray = try sift("search", "--vector-file", "bad.json", "--db", "c.db")
        XCTAssertNotEqual(notArray.status, 0)
        XCTAssertTrue(notArray.stderr.contains("bad.json"), notArray.stderr)

        // Another metric than the corpus's is refused; a corpus without vectors says how to get them.
        let metric = try sift("index", "docs.jsonl", "--db", "c.db", "--vector-field", "emb", "--vector-metric", "dot", "--quiet")
        XCTAssertNotEqual(metric.status, 0)
        XCTAssertTrue(metric.stderr.contains("cosine"), metric.stderr)
        XCTAssertEqual(try sift("index", "docs.jsonl", "--db", "plain.db", "--quiet").status, 0)
        try write("q3.json", "[1, 0, 0]")
        let none = try sift("search", "first", "--vector-file", "q3.json", "--db", "plain.db")
        XCTAssertNotEqual(none.status, 0)
        XCTAssertTrue(none.stderr.contains("--vector-field"), none.stderr)
    }

    func testEvalReportsTextVectorAndHybrid() throws {
        try writeCollection()
        let outcome = try sift("eval", "beir", "--query-vectors", "vectors/queries.jsonl", "--json", "--quiet")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let vectors = try XCTUnwrap(object["vectors"] as? [String: Any])
        func ndcg(_ side: String) -> Double? { (vectors[side] as? [String: Any])?["ndcg_at_10"] as? Double }
        // Vectors rank both relevant documents first for both queries; text finds one of two for each.
        XCTAssertEqual(try XCTUnwrap(ndcg("vector")), 1, accuracy: 1e-9)
        XCTAssertEqual(ndcg("text"), object["ndcg_at_10"] as? Double)
        XCTAssertLessThan(try XCTUnwrap(ndcg("text")), 1)
        XCTAssertGreaterThan(try XCTUnwrap(ndcg("hybrid")), try XCTUnwrap(ndcg("text")))
        // Two queries: the p is exact, over the 4 sign assignments.
        let p = try XCTUnwrap(vectors["p_hybrid_text"] as? Double)
        XCTAssertTrue([0.5, 1].contains(p), "\(p)")

        let text = try sift("eval", "beir", "--query-vectors", "vectors/queries.jsonl", "--fusion", "rrf", "--quiet")
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("text  vector  hybrid"), text.stdout)
        XCTAssertTrue(text.stdout.contains("reciprocal rank fusion"), text.stdout)
        XCTAssertTrue(text.stdout.contains("hybrid vs vector"), text.stdout)

        // A query without a vector, or vectors of ids that are no document, are errors.
        try write("vectors/short.jsonl", "{\"_id\": \"q1\", \"vector\": [1, 0, 0, 0]}\n")
        let missing = try sift("eval", "beir", "--query-vectors", "vectors/short.jsonl", "--corpus-vectors", "vectors/corpus.jsonl",
                               "--quiet")
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("q2"), missing.stderr)
    }
}
