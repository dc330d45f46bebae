import SiftEvaluation
import XCTest

final class TRECRunFileTests: TemporaryFilesTestCase {
    func testFormatOrdersByScoreThenDocumentIDAndNumbersRanksFromOne() throws {
        let run = Run(tag: "bm25", results: [
            "10": [ScoredDocument(id: "a", score: 1)],
            "2": [ScoredDocument(id: "x", score: 0.5), ScoredDocument(id: "y", score: 0.5), ScoredDocument(id: "z", score: 2)],
        ])
        XCTAssertEqual(try TRECRunFile.format(run), """
            2 Q0 z 1 2.0 bm25
            2 Q0 y 2 0.5 bm25
            2 Q0 x 3 0.5 bm25
            10 Q0 a 1 1.0 bm25

            """)
        XCTAssertEqual(try TRECRunFile.format(run, depth: 1).split(separator: "\n"), ["2 Q0 z 1 2.0 bm25", "10 Q0 a 1 1.0 bm25"])
    }

    func testRoundTripReproducesRankingsAndScoresExactly() throws {
        var run = SyntheticCollection.run
        run.results["odd"] = [0.1 + 0.2, 1e-300, -1.5, .infinity, 123456789.123456789, 0]
            .enumerated().map { ScoredDocument(id: "o\($0.offset)", score: $0.element) }
        let url = folder.appendingPathComponent("synthetic.run")
        try TRECRunFile.write(run, to: url)
        let back = try TRECRunFile.read(from: url)
        XCTAssertEqual(back.tag, "synthetic")
        XCTAssertEqual(Set(back.results.keys), Set(run.results.keys))
        for queryID in run.results.keys {
            XCTAssertEqual(back.ranking(for: queryID), run.ranking(for: queryID), queryID)
        }
        // Metrics are unchanged by the trip.
        XCTAssertEqual(EvaluationReport(run: back, qrels: SyntheticCollection.qrels).summary,
                       EvaluationReport(run: run, qrels: SyntheticCollection.qrels).summary)
    }

    func testWritesAtMostTheDepthPerQuery() throws {
        let many = Run(results: ["q": (0..<1500).map { ScoredDocument(id: "d\($0)", score: Double($0)) }])
        let url = folder.appendingPathComponent("deep.run")
        try TRECRunFile.write(many, to: url)
        let back = try TRECRunFile.read(from: url).results["q"]!
        XCTAssertEqual(back.count, TRECRunFile.defaultDepth)
        XCTAssertEqual(back.first?.id, "d1499")
    }

    func testReadingIgnoresTheRankColumnAndChecksTheRest() throws {
        // Ranks deliberately wrong and tabs mixed in: order comes from the scores, as in trec_eval.
        let url = try file("r.run", "q1 Q0 a 1 0.5 t\nq1\tQ0\tb\t2\t0.9\tt\r\n\nq1 Q0 c 3 x t\nq1 Q0 d 4 0.1\nq2 Q0 e 1 1 t")
        XCTAssertThrowsError(try TRECRunFile.read(from: url)) { error in
            XCTAssertEqual((error as? InputError)?.line, 4)
        }
        var skipped: [Int] = []
        let run = try TRECRunFile.read(from: url, policy: .skip { skipped.append($0.line) })
        XCTAssertEqual(skipped, [4, 5])
        XCTAssertEqual(run.ranking(for: "q1").map(\.id), ["b", "a"])
        XCTAssertEqual(run.ranking(for: "q2"), [ScoredDocument(id: "e", score: 1)])
        XCTAssertEqual(run.tag, "t")
    }

    func testRefusesIdentifiersTheFormatCannotHold() {
        let bad = Run(results: ["q": [ScoredDocument(id: "two words", score: 1)]])
        XCTAssertThrowsError(try TRECRunFile.format(bad)) { error in
            XCTAssertEqual(error as? TRECRunFileError, .unwritableField(what: "document ID", value: "two words"))
        }
        XCTAssertThrowsError(try TRECRunFile.format(Run(tag: "", results: [:])))
        XCTAssertThrowsError(try TRECRunFile.format(Run(results: ["q\t1": []])))
    }
}
