import Foundation
import Sift
import SiftICU
import SiftTools
import XCTest

/// `--ranking`, `--k1`, `--b` and `--c` of `sift search` and `sift eval`: the library's ranking, the same numbers.
final class RankingCommandTests: ToolTestCase {
    func testSearchRanksAsTheLibraryDoes() throws {
        try write("docs.jsonl", """
            {"_id": "d1", "title": "Tokyo Tower", "text": "A 333-metre tower in Minato, near another tower."}
            {"_id": "d2", "title": "Tokyo Skytree", "text": "The tallest tower in Japan, far taller than Tokyo Tower."}
            {"_id": "d3", "title": "Kyoto", "text": "Temples and gardens, and a tower by the station."}
            """)
        XCTAssertEqual(try sift("index", "docs.jsonl", "--db", "c.db", "--quiet").status, 0)
        func scores(_ arguments: [String] = []) throws -> [String: Double] {
            let outcome = try sift(["search", "tower tower tokyo", "--mode", "any", "--db", "c.db", "--json"] + arguments)
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            var scores: [String: Double] = [:]
            for line in outcome.stdout.split(separator: "\n") {
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                scores[try XCTUnwrap(object["key"] as? String)] = try XCTUnwrap(object["score"] as? Double)
            }
            return scores
        }
        let corpus = try CorpusDatabase.open(at: path("c.db"))
        defer { corpus.database.close() }
        for (arguments, ranking) in [([String](), Ranking.default), (["--ranking", "bm25"], .bm25), (["--ranking", "bm25f"], .bm25f()),
                                     (["--ranking", "bm25f", "--k1", "0.9", "--b", "0.4"], .bm25f(k1: 0.9, b: 0.4)),
                                     (["--ranking", "inb2"], .inB2()), (["--ranking", "inb2", "--c", "7"], .inB2(c: 7))] {
            let command = try scores(arguments)
            let library = try corpus.search("tower tower tokyo", options: CorpusSearchOptions(mode: .anyTerm, ranking: ranking))
            XCTAssertEqual(command.count, 3)
            for hit in library.hits {
                XCTAssertEqual(command[hit.key] ?? 0, hit.score, accuracy: 1e-9, "\(ranking) \(hit.key)")
            }
        }
        XCTAssertNotEqual(try scores()["d1"], try scores(["--ranking", "bm25"])["d1"])
        XCTAssertNotEqual(try scores()["d1"], try scores(["--ranking", "bm25f"])["d1"])
        XCTAssertEqual(try scores()["d1"], try scores(["--ranking", "inb2", "--c", "1"])["d1"], "the default is inb2, c 1")
        XCTAssertNotEqual(try scores()["d1"], try scores(["--title-weight", "1"])["d1"])

        for (arguments, message) in [(["--ranking", "bm25", "--k1", "2"], "--k1 and --b apply to --ranking bm25f"),
                                     (["--title-weight=-1"], "--title-weight must be 0 or more"),
                                     (["--ranking", "bm25f", "--b", "1.5"], "--b must be between 0 and 1"),
                                     (["--ranking", "bm25f", "--k1=-1"], "--k1 must be 0 or more"),
                                     (["--ranking", "inb2", "--b", "0.5"], "--k1 and --b apply to --ranking bm25f"),
                                     (["--ranking", "bm25f", "--c", "2"], "--c applies to --ranking inb2"),
                                     (["--ranking", "inb2", "--c", "0"], "--c must be more than 0"),
                                     (["--ranking", "bm42"], "bm42")] {
            let outcome = try sift(["search", "tower", "--db", "c.db"] + arguments)
            XCTAssertEqual(outcome.status, 64, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(message), outcome.stderr)
        }
    }

    func testEvalRanksAsTheEvaluatorDoes() throws {
        let outcome = try sift("eval", Self.sampleCollection.path, "--ranking", "bm25f", "--k1", "0.9", "--b", "0.4",
                               "--json", "--run", "sample.run")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["ranking"] as? String, "bm25f(k1: 0.9, b: 0.4)")
        let library = try Evaluator.run(collection: Self.sampleCollection, ranking: .bm25f(k1: 0.9, b: 0.4))
        XCTAssertEqual(try XCTUnwrap(object["ndcg_at_10"] as? Double), library.report.summary.ndcgAt10, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(object["map"] as? Double), library.report.summary.map, accuracy: 1e-12)
        // The tag names the declared tokenizer: `stem none` in a build without the Stemming trait.
        let tag = "sift-sift_icu-stem-\(SiftICU.isStemmingAvailable ? "english" : "none")-bm25f"
        XCTAssertEqual(library.run.tag, tag)
        XCTAssertTrue(try String(contentsOfFile: path("sample.run"), encoding: .utf8).contains(tag))

        let text = try sift("eval", Self.sampleCollection.path, "--ranking", "bm25f")
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("ranking bm25f(k1: 1.2, b: 0.75)"), text.stdout)
        let plain = try sift("eval", Self.sampleCollection.path)
        XCTAssertTrue(plain.stdout.contains("ranking inB2(c: 1.0)"), plain.stdout)
        let fts5 = try sift("eval", Self.sampleCollection.path, "--ranking", "bm25")
        XCTAssertTrue(fts5.stdout.contains("ranking bm25\n"), fts5.stdout)
    }
}
