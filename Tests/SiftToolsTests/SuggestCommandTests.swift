import Foundation
import SiftICU
import XCTest

/// `sift suggest` and the "Did you mean" line of `sift search`, end to end.
final class SuggestCommandTests: ToolTestCase {
    private func indexNotes() throws {
        try write("notes/tokyo.md", "# Tokyo Tower\n\nA 333-metre tower in Minato, Tokyo, near the tower of the temple.")
        try write("notes/kyoto.txt", "Kyoto has many temples and a tower.")
        try write("notes/paris.txt", "Paris has a tower too, and a temple.")
        let index = try sift("index", "notes", "--db", "c.db")
        XCTAssertEqual(index.status, 0, index.stderr)
    }

    func testSuggest() throws {
        try indexNotes()
        let text = try sift("suggest", "to", "--db", "c.db")
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stdout.split(separator: "\n").first, "tower  (3 documents)", text.stdout)
        XCTAssertTrue(text.stdout.contains("tokyo  (1 document)"), text.stdout)

        let json = try sift("suggest", "kyoto te", "--db", "c.db", "--json", "--limit", "1")
        XCTAssertEqual(json.status, 0, json.stderr)
        let lines = json.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, json.stdout)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(object["text"] as? String, "kyoto temples", "as the document writes it, not the stem")
        // With stemming, "temple" and "temples" are one term, in all 3 documents; without, "temples" is in 1.
        XCTAssertEqual(object["documents"] as? Int, SiftICU.isStemmingAvailable ? 3 : 1)
        XCTAssertEqual(object["typos"] as? Int, 0)

        let typo = try sift("suggest", "tempel", "--db", "c.db")
        XCTAssertTrue(typo.stdout.hasPrefix("temple"), typo.stdout)
        XCTAssertTrue(typo.stdout.contains("1 typo forgiven"), typo.stdout)
        XCTAssertEqual(try sift("suggest", "!!!", "--db", "c.db").stdout, "no suggestions\n")
        XCTAssertEqual(try sift("suggest", "to", "--db", "c.db", "--limit", "0").status, 64)
        let missing = try sift("suggest", "to", "--db", "c.db", "--index", "documents")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("not an FTS5 table"), missing.stderr)
    }

    func testSearchWithoutHitsSaysWhatItMeant() throws {
        try indexNotes()
        // Typos off: the misspelled query finds nothing, and the correction is offered.
        let search = try sift("search", "kyoto tempels", "--db", "c.db", "--typos", "off")
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertEqual(search.stdout, "no results\nDid you mean: kyoto temples\n")
        XCTAssertFalse(try sift("search", "kyoto temples", "--db", "c.db").stdout.contains("Did you mean"))
        XCTAssertEqual(try sift("search", "zzzzzz", "--db", "c.db").stdout, "no results\n")
        XCTAssertEqual(try sift("search", "kyoto tempels", "--db", "c.db", "--json", "--typos", "off").stdout, "", "JSON Lines stay plain")
    }
}
