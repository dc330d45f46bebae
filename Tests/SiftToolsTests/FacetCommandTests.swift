import Foundation
import Sift
import XCTest

/// `sift index --facet` and `sift search --facet`: facet fields of JSON Lines and CSV records counted over all hits.
final class FacetCommandTests: ToolTestCase {
    private func facets(_ arguments: String...) throws -> [String: Any] {
        let outcome = try sift(["search"] + arguments + ["--db", "c.db", "--json"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let last = try XCTUnwrap(outcome.stdout.split(separator: "\n").last)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        return try XCTUnwrap(object["facets"] as? [String: Any])
    }

    private func values(_ facet: Any?) -> [String: Int] {
        let values = (facet as? [String: Any])?["values"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: values.map { ("\($0["value"] ?? "?")", $0["count"] as? Int ?? -1) })
    }

    func testJSONLinesFacetsAreCountedOverAllHits() throws {
        try write("docs.jsonl", """
            {"_id": "d1", "title": "Tokyo Tower", "text": "A tower in Minato.", "lang": "en", "year": 1958}
            {"_id": "d2", "title": "Skytree", "text": "The tallest tower.", "lang": "en", "year": 2012}
            {"_id": "d3", "title": "Tour Eiffel", "text": "Une tower à Paris.", "lang": "fr", "year": 1889}
            {"_id": "d4", "title": "Kyoto", "text": "Temples, no tower.", "year": 1958}
            """)
        let index = try sift("index", "docs.jsonl", "--db", "c.db", "--quiet", "--facet", "lang", "--facet", "year")
        XCTAssertEqual(index.status, 0, index.stderr)

        let counted = try facets("tower", "--facet", "lang", "--facet", "year", "--limit", "1")
        XCTAssertEqual(values(counted["lang"]), ["en": 2, "fr": 1, "<null>": 1], "\(counted)")
        XCTAssertEqual(values(counted["year"]), ["1958": 2, "2012": 1, "1889": 1])
        XCTAssertEqual((counted["lang"] as? [String: Any])?["distinct"] as? Int, 3)

        let filtered = try facets("tower", "--facet", "year", "--where", "lang=en")
        XCTAssertEqual(values(filtered["year"]), ["1958": 1, "2012": 1])

        let text = try sift("search", "tower", "--db", "c.db", "--facet", "lang", "--facet-limit", "1")
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("lang: en 2 (3 distinct)"), text.stdout)

        // A later run keeps the facets: the new record is counted, the changed one moves.
        try write("more.jsonl", """
            {"_id": "d5", "title": "CN Tower", "text": "A tower in Toronto.", "lang": "en", "year": 1976}
            """)
        XCTAssertEqual(try sift("index", "more.jsonl", "--db", "c.db", "--quiet").status, 0)
        XCTAssertEqual(values(try facets("tower", "--facet", "lang")["lang"]), ["en": 3, "fr": 1, "<null>": 1])
        XCTAssertEqual(try sift("check", "--db", "c.db").status, 0)

        let unknown = try sift("search", "tower", "--db", "c.db", "--facet", "color")
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("--facet color"), unknown.stderr)
    }

    func testCSVColumnsAsFacets() throws {
        try write("items.csv", "id,title,text,brand\n1,Red kettle,a kettle,acme\n2,Blue kettle,a kettle,acme\n3,Green kettle,a kettle,zenith\n")
        XCTAssertEqual(try sift("index", "items.csv", "--db", "c.db", "--quiet", "--facet", "brand").status, 0)
        XCTAssertEqual(values(try facets("kettle", "--facet", "brand")["brand"]), ["acme": 2, "zenith": 1])
    }
}
