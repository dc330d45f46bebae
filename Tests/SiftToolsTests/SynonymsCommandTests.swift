import Foundation
import XCTest

/// `sift synonyms add|remove|list|import` end to end, and `sift search` using the list.
final class SynonymsCommandTests: ToolTestCase {
    private func indexNotes() throws {
        try write("notes/car.txt", "A car with four doors.")
        try write("notes/automobile.txt", "The automobile was invented long ago.")
        try write("notes/nyc.txt", "Moving to New York City next year.")
        try write("notes/sofa.txt", "A red sofa, 1,000 dollars.")
        let index = try sift("index", "notes", "--db", "c.db")
        XCTAssertEqual(index.status, 0, index.stderr)
    }

    private func keys(_ query: String, _ extra: String...) throws -> Set<String> {
        let outcome = try sift(["search", query, "--db", "c.db", "--json"] + extra)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return Set(try outcome.stdout.split(separator: "\n").map { line in
            try XCTUnwrap((JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["key"] as? String)
        })
    }

    func testAddListRemoveRoundTrip() throws {
        try indexNotes()
        XCTAssertEqual(try keys("car"), ["car.txt"])
        let add = try sift("synonyms", "add", "car, automobile", "nyc => new york city", "--db", "c.db")
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(add.stdout, "added 2 rules\n")
        XCTAssertEqual(try keys("car"), ["car.txt", "automobile.txt"])
        XCTAssertEqual(try keys("nyc"), ["nyc.txt"])
        XCTAssertEqual(try keys("car", "--synonyms", "off"), ["car.txt"])
        XCTAssertEqual(try sift("synonyms", "list", "--db", "c.db").stdout, "automobile, car\nnyc => new york city\n")
        let remove = try sift("synonyms", "remove", "car, automobile", "--db", "c.db")
        XCTAssertEqual(remove.stdout, "removed 1 rule\n", remove.stderr)
        XCTAssertEqual(try keys("car"), ["car.txt"])
        XCTAssertEqual(try sift("synonyms", "list", "--db", "c.db").stdout, "nyc => new york city\n")
    }

    func testImportReadsSolrFormatAndListWritesIt() throws {
        try indexNotes()
        try write("synonyms.txt", """
            # vehicles
            car, automobile, auto
            nyc => new york city

            couch, sofa
            1\\,000, thousand
            """)
        let imported = try sift("synonyms", "import", path("synonyms.txt"), "--db", "c.db")
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "added 4 rules\n")
        XCTAssertEqual(try keys("couch"), ["sofa.txt"])
        let listed = try sift("synonyms", "list", "--db", "c.db").stdout
        XCTAssertEqual(listed, "1\\,000, thousand\nauto, automobile, car\ncouch, sofa\nnyc => new york city\n")
        // What `list` prints, `import --replace` reads back to the same list.
        try write("listed.txt", listed)
        XCTAssertEqual(try sift("synonyms", "import", path("listed.txt"), "--replace", "--db", "c.db").status, 0)
        XCTAssertEqual(try sift("synonyms", "list", "--db", "c.db").stdout, listed)
        try write("one.txt", "car, auto\n")
        XCTAssertEqual(try sift("synonyms", "import", path("one.txt"), "--replace", "--db", "c.db").stdout,
                       "replaced the list with 1 rule\n")
        XCTAssertEqual(try sift("synonyms", "list", "--db", "c.db").stdout, "auto, car\n")
    }

    func testBadInputIsReportedAndChangesNothing() throws {
        try indexNotes()
        try write("bad.txt", "car, auto\nsolo\n")
        let bad = try sift("synonyms", "import", path("bad.txt"), "--db", "c.db")
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("line 2"), bad.stderr)
        XCTAssertEqual(try sift("synonyms", "list", "--db", "c.db").stdout, "", "nothing imported")
        let empty = try sift("synonyms", "add", "car, !!!", "--db", "c.db")
        XCTAssertEqual(empty.status, 2)
        XCTAssertTrue(empty.stderr.contains("holds no word"), empty.stderr)
        let index = try sift("synonyms", "list", "--db", "c.db", "--index", "documents")
        XCTAssertEqual(index.status, 2)
        XCTAssertTrue(index.stderr.contains("not an FTS5 table"), index.stderr)
        XCTAssertEqual(try sift("synonyms", "add", "--db", "c.db").status, 64)
        XCTAssertEqual(try sift("synonyms", "import", path("missing.txt"), "--db", "c.db").status, 2)
        XCTAssertEqual(try sift("search", "car", "--db", "c.db", "--synonym-weight", "2").status, 64)
    }

    func testEvalSearchesWithASynonymsFile() throws {
        try write("synonyms.txt", "coffee, espresso\nhoney => nectar\n")
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Corpora/sample").path
        let eval = try sift("eval", sample, "--synonyms-file", path("synonyms.txt"), "--db", "e.db", "--json")
        XCTAssertEqual(eval.status, 0, eval.stderr)
        XCTAssertEqual(try sift("synonyms", "list", "--db", "e.db").stdout, "coffee, espresso\nhoney => nectar\n")
        try write("bad.txt", "coffee\n")
        let bad = try sift("eval", sample, "--synonyms-file", path("bad.txt"))
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("line 1"), bad.stderr)
    }
}
