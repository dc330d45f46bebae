import Foundation
import SiftEvaluation
import XCTest

final class TestCollectionTests: TemporaryFilesTestCase {
    private func makeCollection(qrels: String = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td2\t1\n") throws -> TestCollection {
        try file("c/corpus.jsonl", """
            {"_id": "d1", "title": "Wings", "text": "lift and drag"}
            {"_id": "d2", "title": "", "text": "heat transfer"}
            """)
        try file("c/queries.jsonl", "{\"_id\": \"q1\", \"text\": \"lift\"}\n{\"_id\": \"q2\", \"text\": \"heat\", \"lang\": \"en\"}\n")
        try file("c/qrels.tsv", qrels)
        return TestCollection(folder: folder.appendingPathComponent("c"))
    }

    func testLoadsAllThreeFiles() throws {
        let collection = try makeCollection()
        XCTAssertNoThrow(try collection.validate())
        XCTAssertEqual(collection.name, "c")
        XCTAssertEqual(try collection.loadQueries(), [
            EvaluationQuery(id: "q1", text: "lift"),
            EvaluationQuery(id: "q2", text: "heat", fields: ["lang": .string("en")]),
        ])
        let qrels = try collection.loadQrels()
        XCTAssertEqual(qrels.judgments, ["q1": ["d1": 2, "d2": 0], "q2": ["d2": 1]])
        XCTAssertEqual(qrels.count, 3)
        XCTAssertEqual(qrels.judgedQueryIDs, ["q1", "q2"])
        let reader = try collection.corpus()
        XCTAssertEqual(try reader.next(), CorpusDocument(id: "d1", title: "Wings", text: "lift and drag"))
        XCTAssertEqual(try reader.next()?.id, "d2")
        XCTAssertNil(try reader.next())
        XCTAssertEqual(try collection.loadCorpus().count, 2)
    }

    func testSaysWhichFilesAreMissing() throws {
        try file("partial/corpus.jsonl", "")
        let partial = TestCollection(folder: folder.appendingPathComponent("partial"))
        XCTAssertEqual(partial.missingFiles(), [.queries, .qrels])
        XCTAssertThrowsError(try partial.validate()) { error in
            XCTAssertEqual((error as? TestCollectionError)?.missing, [.queries, .qrels])
            XCTAssertTrue("\(error)".contains("is missing queries.jsonl, qrels.tsv"), "\(error)")
        }
        XCTAssertThrowsError(try partial.loadQrels()) { error in
            XCTAssertEqual((error as? TestCollectionError)?.missing, [.qrels])
        }
        let nowhere = TestCollection(folder: folder.appendingPathComponent("nowhere"))
        XCTAssertEqual(nowhere.missingFiles(), TestCollection.File.allCases)
        XCTAssertThrowsError(try nowhere.validate()) { error in
            XCTAssertTrue("\(error)".contains("the folder does not exist"), "\(error)")
        }
    }

    func testFallsBackToBEIRsQrelsFolder() throws {
        let collection = try makeCollection()
        try FileManager.default.removeItem(at: collection.url(for: .qrels))
        try file("c/qrels/test.tsv", "query-id\tcorpus-id\tscore\nq9\td1\t1\n")
        XCTAssertEqual(collection.missingFiles(), [])
        XCTAssertEqual(try collection.loadQrels().judgments, ["q9": ["d1": 1]])
    }

    func testQrelsAcceptTRECFormatAndReportBadLines() throws {
        let trec = try file("trec.qrels", "1 0 d1 1\n1 0 d2 -1\n\n2 0 d3 0\n")
        let qrels = try Qrels(contentsOf: trec)
        XCTAssertEqual(qrels.judgments, ["1": ["d1": 1, "d2": -1], "2": ["d3": 0]])
        XCTAssertEqual(qrels.judgedQueryIDs, ["1"])
        XCTAssertEqual(qrels.relevantCount(for: "1"), 1)

        let bad = try file("bad.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\trelevant\nq1\td3\n")
        XCTAssertThrowsError(try Qrels(contentsOf: bad)) { error in
            XCTAssertEqual((error as? InputError)?.line, 3)
        }
        var skipped: [Int] = []
        XCTAssertEqual(try Qrels(contentsOf: bad, policy: .skip { skipped.append($0.line) }).judgments, ["q1": ["d1": 1]])
        XCTAssertEqual(skipped, [3, 4])
    }

    /// Reads the real collections when the shared datasets are present (`../shared/datasets` from the
    /// package root); the counts are those in each collection's SOURCE.md.
    func testSharedDatasetsWhenPresent() throws {
        let datasets = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/datasets")
        guard FileManager.default.fileExists(atPath: datasets.path) else {
            throw XCTSkip("no shared datasets at \(datasets.path)")
        }
        let cranfield = TestCollection(folder: datasets.appendingPathComponent("cranfield"))
        try cranfield.validate()
        XCTAssertEqual(try cranfield.loadQueries().count, 225)
        let qrels = try cranfield.loadQrels()
        XCTAssertEqual(qrels.count, 1837)
        XCTAssertEqual(qrels.judgedQueryIDs.count, 225)
        XCTAssertEqual(qrels.judgments.values.flatMap(\.values).max(), 4)   // graded
        var documents = 0
        try cranfield.corpus().forEach { _ in documents += 1 }
        XCTAssertEqual(documents, 1400)

        let cisi = TestCollection(folder: datasets.appendingPathComponent("cisi"))
        XCTAssertEqual(try cisi.loadQueries().count, 112)
        XCTAssertEqual(try cisi.loadQrels().judgedQueryIDs.count, 76)
        XCTAssertEqual(TestCollection(folder: datasets.appendingPathComponent("sighan2005-pku")).missingFiles(),
                       TestCollection.File.allCases)
    }
}
