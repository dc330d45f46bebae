import SiftEvaluation
import XCTest

final class JSONLinesReaderTests: TemporaryFilesTestCase {
    private let messy = """
        {"_id": "1", "text": "one"}
        {"_id": "2", "text": }
        [1, 2]

        {"_id": "5", "text": "five"}
        """

    func testStrictStopsAtTheFirstMalformedLine() throws {
        let reader = try JSONLinesReader(url: try file("messy.jsonl", messy))
        XCTAssertEqual(try reader.next()?.line, 1)
        XCTAssertThrowsError(try reader.next()) { error in
            guard let error = error as? InputError, case .malformedJSON = error.kind else {
                return XCTFail("expected malformedJSON, got \(error)")
            }
            XCTAssertEqual(error.line, 2)
            XCTAssertTrue(error.description.contains("messy.jsonl:2: malformed JSON"), error.description)
        }
    }

    func testSkipReportsEachMalformedLineAndCarriesOn() throws {
        var skipped: [InputError] = []
        let reader = try JSONLinesReader(url: try file("messy.jsonl", messy), policy: .skip { skipped.append($0) })
        var ids: [(Int, JSONValue?)] = []
        while let (line, object) = try reader.next() { ids.append((line, object["_id"])) }
        XCTAssertEqual(ids.map(\.0), [1, 5])            // line 4 is blank: skipped, not an error
        XCTAssertEqual(ids.map(\.1), [.string("1"), .string("5")])
        XCTAssertEqual(skipped.map(\.line), [2, 3])
        XCTAssertEqual(skipped.last?.kind, .malformedJSON("not a JSON object"))
    }

    func testInvalidUTF8InsideAStringIsReportedAsSuch() throws {
        let bytes = Array(#"{"_id": "1", "text": "ok"}"#.utf8) + [0x0A]
            + Array(#"{"_id": "2", "text": "caf"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8) + [0x0A]
        let url = try file("utf8.jsonl", bytes: bytes)
        let strict = try CorpusReader(url: url)
        XCTAssertEqual(try strict.next()?.id, "1")
        XCTAssertThrowsError(try strict.next()) { error in
            XCTAssertEqual(error as? InputError, InputError(.invalidUTF8, line: 2, path: url.path))
        }
        var skipped: [InputError.Kind] = []
        let lenient = try CorpusReader(url: url, policy: .skip { skipped.append($0.kind) })
        XCTAssertEqual(try lenient.next()?.id, "1")
        XCTAssertNil(try lenient.next())
        XCTAssertEqual(skipped, [.invalidUTF8])
    }

    /// BOM, CRLF, no final newline, a numeric `_id`, no title, and extra fields of every JSON type.
    func testCorpusDocumentsKeepEveryField() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"""
            {"_id": "d1", "title": "Title", "text": "Text"}\#r
            {"_id": 42, "text": "no title", "title": null, "metadata": {"url": "u"}, "n": 3, "x": 1.5, "ok": true, "tags": ["a", null]}
            """#.utf8)
        let documents = try CorpusReader(url: try file("corpus.jsonl", bytes: bytes)).collect()
        XCTAssertEqual(documents, [
            CorpusDocument(id: "d1", title: "Title", text: "Text"),
            CorpusDocument(id: "42", title: "", text: "no title", fields: [
                "metadata": .object(["url": .string("u")]), "n": .integer(3), "x": .number(1.5),
                "ok": .bool(true), "tags": .array([.string("a"), .null]),
            ]),
        ])
    }

    func testDocumentsNeedAnIDAndText() throws {
        let text = """
            {"title": "no id", "text": "t"}
            {"_id": "2", "text": 7}
            {"_id": "3", "title": 5, "text": "bad title"}
            {"_id": "4", "text": "fine"}
            """
        var skipped: [InputError] = []
        let documents = try CorpusReader(url: try file("c.jsonl", text), policy: .skip { skipped.append($0) }).collect()
        XCTAssertEqual(documents.map(\.id), ["4"])
        XCTAssertEqual(skipped.map(\.line), [1, 2, 3])
        XCTAssertEqual(skipped.map(\.kind), [.missingField("_id"), .missingField("text"), .missingField("title")])
    }
}

extension CorpusReader {
    func collect() throws -> [CorpusDocument] {
        var documents: [CorpusDocument] = []
        try forEach { documents.append($0) }
        return documents
    }
}
