import Foundation
import SiftEvaluation
import SiftTools
import XCTest

final class EvaluationTests: ToolTestCase {
    func testEvaluatorOnSampleCollection() throws {
        let outcome = try Evaluator.run(collection: Self.sampleCollection)
        let summary = outcome.report.summary
        XCTAssertEqual(outcome.documents, 304)
        XCTAssertEqual(outcome.queries, 40)
        XCTAssertEqual(summary.queryCount, 40)
        for value in [summary.ndcgAt10, summary.map, summary.recallAt100, summary.mrrAt10, summary.precisionAt10] {
            XCTAssertTrue((0...1).contains(value), "\(summary)")
        }
        XCTAssertGreaterThan(summary.ndcgAt10, 0.5, "the sample's queries share words with their documents: \(summary)")
        XCTAssertEqual(summary.queriesWithoutResults, 0, "\(summary)")
        XCTAssertGreaterThan(outcome.documentsPerSecond, 0)
        XCTAssertGreaterThan(outcome.queriesPerSecond, 0)

        // The run file round-trips and scores the same.
        let runFile = folder.appendingPathComponent("sample.run")
        try TRECRunFile.write(outcome.run, to: runFile)
        let reread = try TRECRunFile.read(from: runFile)
        let qrels = try TestCollection(folder: Self.sampleCollection).loadQrels()
        XCTAssertEqual(EvaluationReport(run: reread, qrels: qrels).summary, summary)

        // And an independent re-computation from the file's text agrees.
        let independent = try IndependentScorer(runFile: runFile, qrelsFile: Self.sampleCollection.appendingPathComponent("qrels.tsv"))
        XCTAssertEqual(independent.mean(\.ndcg10), summary.ndcgAt10, accuracy: 1e-9)
        XCTAssertEqual(independent.mean(\.averagePrecision), summary.map, accuracy: 1e-9)
        XCTAssertEqual(independent.mean(\.recall100), summary.recallAt100, accuracy: 1e-9)
        XCTAssertEqual(independent.mean(\.reciprocalRank10), summary.mrrAt10, accuracy: 1e-9)
        XCTAssertEqual(independent.mean(\.precision10), summary.precisionAt10, accuracy: 1e-9)
    }

    func testEvalCommandWritesRunAndJSON() throws {
        let outcome = try sift("eval", Self.sampleCollection.path, "--run", "sample.run", "--json", "--tokenizer",
                               "unicode61 remove_diacritics 2")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["judged_queries"] as? Int, 40)
        XCTAssertEqual(object["tokenizer"] as? String, "unicode61 remove_diacritics 2")
        let ndcg = try XCTUnwrap(object["ndcg_at_10"] as? Double)
        let run = try TRECRunFile.read(from: URL(fileURLWithPath: path("sample.run")))
        XCTAssertEqual(run.tag, "sift-unicode61-remove_diacritics-2-inb2")
        let qrels = try TestCollection(folder: Self.sampleCollection).loadQrels()
        XCTAssertEqual(EvaluationReport(run: run, qrels: qrels).summary.ndcgAt10, ndcg, accuracy: 1e-12)

        let text = try sift("eval", Self.sampleCollection.path)
        XCTAssertEqual(text.status, 0, text.stderr)
        for label in ["nDCG@10", "MAP", "R@100", "MRR@10", "P@10", "queries  40 judged", "docs/s", "queries/s"] {
            XCTAssertTrue(text.stdout.contains(label), text.stdout)
        }
        let missing = try sift("eval", "nowhere")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("does not exist"), missing.stderr)
    }
}

/// trec_eval's arithmetic written out from its definitions, on the run file's text, so that it
/// shares no code with SiftEvaluation: sort by score then document ID descending, gains from the
/// qrels, ideal DCG from all judgments, averages over queries with a relevant judgment.
struct IndependentScorer {
    struct Row {
        var ndcg10 = 0.0, averagePrecision = 0.0, recall100 = 0.0, reciprocalRank10 = 0.0, precision10 = 0.0
    }
    var rows: [Row] = []

    init(runFile: URL, qrelsFile: URL) throws {
        var judgments: [String: [String: Int]] = [:]
        for line in try String(contentsOf: qrelsFile, encoding: .utf8).split(separator: "\n").dropFirst() {
            let parts = line.split(separator: "\t")
            judgments[String(parts[0]), default: [:]][String(parts[1])] = Int(parts[2])
        }
        var runs: [String: [(doc: String, score: Double)]] = [:]
        for line in try String(contentsOf: runFile, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: " ")
            runs[String(parts[0]), default: []].append((String(parts[2]), Double(parts[4]) ?? 0))
        }
        for (query, judged) in judgments where judged.values.contains(where: { $0 > 0 }) {
            let ranking = (runs[query] ?? []).sorted {
                $0.score != $1.score ? $0.score > $1.score : Array($0.doc.utf8).lexicographicallyPrecedes(Array($1.doc.utf8)) == false
            }.map(\.doc)
            let relevant = judged.values.filter { $0 > 0 }.count
            var row = Row()
            var hits = 0, precisionSum = 0.0, dcg = 0.0
            for (index, doc) in ranking.enumerated() {
                let gain = max(0, judged[doc] ?? 0)
                if gain > 0 {
                    hits += 1
                    precisionSum += Double(hits) / Double(index + 1)
                    if index < 10 {
                        if row.reciprocalRank10 == 0 { row.reciprocalRank10 = 1 / Double(index + 1) }
                        row.precision10 += 0.1
                    }
                    if index < 100 { row.recall100 += 1 / Double(relevant) }
                }
                if index < 10 { dcg += Double(gain) / log2(Double(index + 2)) }
            }
            let ideal = judged.values.filter { $0 > 0 }.sorted(by: >).prefix(10).enumerated()
                .reduce(0.0) { $0 + Double($1.element) / log2(Double($1.offset + 2)) }
            row.ndcg10 = ideal > 0 ? dcg / ideal : 0
            row.averagePrecision = precisionSum / Double(relevant)
            rows.append(row)
        }
    }

    func mean(_ value: KeyPath<Row, Double>) -> Double {
        rows.isEmpty ? 0 : rows.reduce(0) { $0 + $1[keyPath: value] } / Double(rows.count)
    }
}
