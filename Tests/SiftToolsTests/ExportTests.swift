import Foundation
import Sift
import SiftICU
@testable import SiftTools
import XCTest

/// `sift export`: the `_bulk` stream's shape as OpenSearch/Elasticsearch document it, and the index definition.
final class ExportTests: ToolTestCase {
    /// Text that JSON and NDJSON must carry unchanged: CJK, quotes, backslashes, newlines, tabs, control
    /// characters, combining marks, right-to-left text, emoji, slashes.
    static var corpusLines: [[String: Any]] { [
        ["_id": "d1", "title": "Tokyo Tower", "text": "A 333-metre tower in Minato.", "lang": "en", "year": 1958],
        ["_id": "d2", "title": "東京タワー", "text": "東京都港区にある電波塔。\n東京タワーは1958年に完成した。", "lang": "ja",
         "tags": ["塔", "東京"]],
        ["_id": "q\"uo'te\\d/3", "title": "He said \"hi\" \\ then left", "text": "line one\nline two\r\n\ttabbed \u{1} control </script>",
         "nested": ["a": 1, "b": [true, false], "c": NSNull()] as [String: Any]],
        ["_id": "天安门/4", "title": "天安门 Tiananmen", "text": "臺灣 台湾 Crème brûlée, İstanbul, café\u{301} — עברית العربية 👩‍👩‍👧 ﬁ",
         "score": 2.5, "ok": true],
        ["_id": "d5", "title": "", "text": "한국어 텍스트와 ไทย ภาษา", "empty": ""],
    ] }

    /// Writes the corpus as JSON Lines and indexes it into `corpus.db` with `tokenizer`.
    private func indexCorpus(tokenizer: String? = nil) throws {
        let lines = try Self.corpusLines.map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self)
        }
        try write("docs.jsonl", lines.joined(separator: "\n") + "\n")
        var arguments = ["index", "docs.jsonl", "--db", "corpus.db", "--quiet"]
        if let tokenizer { arguments += ["--tokenizer", tokenizer] }
        let index = try sift(arguments)
        XCTAssertEqual(index.status, 0, index.stderr)
    }

    /// The lines of a bulk file, checked against the documented format: newline-terminated, action and
    /// source lines alternating, each one JSON object. Returns (action, source) pairs.
    private func bulkPairs(_ data: Data, index: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> [(id: String, source: [String: Any])] {
        guard !data.isEmpty else { return [] }
        XCTAssertEqual(data.last, 0x0A, "the bulk body must end with a newline", file: file, line: line)
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(lines.count % 2, 0, "action and source lines come in pairs", file: file, line: line)
        var pairs: [(String, [String: Any])] = []
        var iterator = lines.makeIterator()
        while let actionLine = iterator.next() {
            let action = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(actionLine)) as? [String: Any], file: file, line: line)
            XCTAssertEqual(Array(action.keys), ["index"], file: file, line: line)
            let meta = try XCTUnwrap(action["index"] as? [String: Any], file: file, line: line)
            XCTAssertEqual(Set(meta.keys), ["_index", "_id"], file: file, line: line)
            XCTAssertEqual(meta["_index"] as? String, index, file: file, line: line)
            let id = try XCTUnwrap(meta["_id"] as? String, file: file, line: line)
            let sourceLine = try XCTUnwrap(iterator.next(), file: file, line: line)
            XCTAssertFalse(actionLine.contains { $0 < 0x20 } || sourceLine.contains { $0 < 0x20 },
                           "control characters (newlines included) are escaped inside a line", file: file, line: line)
            let source = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(sourceLine)) as? [String: Any], file: file, line: line)
            XCTAssertNil(source["index"], "a source line is not an action", file: file, line: line)
            pairs.append((id, source))
        }
        return pairs
    }

    func testBulkStreamRoundTripsEveryDocumentOnce() throws {
        try indexCorpus()
        let export = try sift("export", "--db", "corpus.db", "--out", "docs.ndjson", "--settings", "index.json", "--page-size", "2")
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(export.stdout, "", "the stream went to --out")
        XCTAssertTrue(export.stderr.contains("exported 5 documents to docs.ndjson (index \"corpus\""), export.stderr)
        XCTAssertTrue(export.stderr.contains("not mapped exactly"), export.stderr)
        XCTAssertTrue(export.stderr.contains("match_phrase"), export.stderr)
        XCTAssertTrue(export.stderr.contains("analysis-icu"), export.stderr)

        let data = try Data(contentsOf: URL(fileURLWithPath: path("docs.ndjson")))
        let pairs = try bulkPairs(data, index: "corpus")
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("\"ok\":true") && text.contains("\"b\":[true,false]") && text.contains("\"c\":null"),
                      "JSON booleans and null stay booleans and null, not numbers")
        let ids = pairs.map(\.id)
        XCTAssertEqual(ids.count, Self.corpusLines.count)
        XCTAssertEqual(Set(ids).count, ids.count, "every document exported once")
        XCTAssertEqual(Set(ids), Set(Self.corpusLines.map { $0["_id"] as! String }))

        // Sources carry the text exactly as the corpus stores it, and the input's other fields.
        let corpus = try CorpusDatabase.open(at: path("corpus.db"))
        let stored: [StoredDocument] = try corpus.database.getObjects(fromTable: CorpusDatabase.documentsTable)
        let byKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.key, $0) })
        for (id, source) in pairs {
            let document = try XCTUnwrap(byKey[id])
            XCTAssertEqual(Set(source.keys), ["key", "title", "body", "origin", "source", "fields"])
            XCTAssertEqual(source["key"] as? String, document.key)
            XCTAssertEqual(source["title"] as? String, document.title)
            XCTAssertEqual(source["body"] as? String, document.body)
            XCTAssertEqual(source["origin"] as? String, document.origin)
            XCTAssertEqual(source["source"] as? String, document.source)
            let input = try XCTUnwrap(Self.corpusLines.first { $0["_id"] as? String == id })
            XCTAssertEqual(source["title"] as? String, input["title"] as? String, "title of \(id)")
            XCTAssertEqual(source["body"] as? String, input["text"] as? String, "body of \(id)")
            var extra = input
            for field in ["_id", "title", "text"] { extra[field] = nil }
            XCTAssertEqual(source["fields"] as? NSDictionary, extra as NSDictionary, "fields of \(id)")
        }
    }

    func testStandardOutputAndDefaultNames() throws {
        try indexCorpus()
        try FileManager.default.moveItem(atPath: path("corpus.db"), toPath: path("My Notes.sift"))
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path("corpus.db") + suffix) {
            try FileManager.default.moveItem(atPath: path("corpus.db") + suffix, toPath: path("My Notes.sift") + suffix)
        }
        let export = try sift("export", "--db", "My Notes.sift")
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(try bulkPairs(Data(export.stdout.utf8), index: "my-notes").count, Self.corpusLines.count)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("my-notes.settings.json")), export.stderr)

        let toFile = try sift("export", "--db", "My Notes.sift", "--out", "out.ndjson", "--index", "notes-2026")
        XCTAssertEqual(toFile.status, 0, toFile.stderr)
        XCTAssertEqual(try bulkPairs(try Data(contentsOf: URL(fileURLWithPath: path("out.ndjson"))), index: "notes-2026").count,
                       Self.corpusLines.count)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("out.ndjson.settings.json")))))

        let dash = try sift("export", "--db", "My Notes.sift", "--out", "-", "--index", "dash", "--page-size", "1")
        XCTAssertEqual(dash.status, 0, dash.stderr)
        XCTAssertEqual(try bulkPairs(Data(dash.stdout.utf8), index: "dash").count, Self.corpusLines.count)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("dash.settings.json")), dash.stderr)

        let badName = try sift("export", "--db", "My Notes.sift", "--index", "Bad Name")
        XCTAssertEqual(badName.status, 2)
        XCTAssertTrue(badName.stderr.contains("invalid index name \"Bad Name\""), badName.stderr)
        let overwrite = try sift("export", "--db", "My Notes.sift", "--out", "My Notes.sift")
        XCTAssertEqual(overwrite.status, 2)
        XCTAssertTrue(overwrite.stderr.contains("is the corpus database"), overwrite.stderr)
        XCTAssertEqual(try CorpusDatabase.open(at: path("My Notes.sift")).documentCount(), Self.corpusLines.count)
        let missing = try sift("export", "--db", "nothing.db")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nothing.db: no such file"), missing.stderr)
    }

    func testOverlongKeysAreExportedAndReported() throws {
        let key = String(repeating: "k", count: SearchEngineExport.maximumIDBytes + 1)
        try write("long.jsonl", "{\"_id\": \"\(key)\", \"text\": \"long key\"}\n{\"_id\": \"short\", \"text\": \"short key\"}\n")
        XCTAssertEqual(try sift("index", "long.jsonl", "--db", "long.db", "--quiet").status, 0)
        let export = try sift("export", "--db", "long.db", "--out", "long.ndjson")
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stderr.contains("warning: 1 key longer than 512 bytes"), export.stderr)
        let ids = try bulkPairs(try Data(contentsOf: URL(fileURLWithPath: path("long.ndjson"))), index: "long").map(\.id)
        XCTAssertEqual(Set(ids), [key, "short"])
    }

    func testEmptyCorpusExportsAnEmptyStream() throws {
        _ = try makeCorpus("empty.db")
        let export = try sift("export", "--db", "empty.db", "--out", "empty.ndjson")
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("empty.ndjson"))).count, 0)
        XCTAssertTrue(export.stderr.contains("exported 0 documents"), export.stderr)
    }

    // MARK: - Index definitions

    /// Exports a new, empty corpus built with `tokenizer` and returns its index definition's analysis
    /// settings, its mappings and what `sift export` printed.
    private func definition(tokenizer: String, _ extra: String...) throws
        -> (analysis: [String: Any], mappings: [String: Any], stderr: String) {
        let name = "t\(UUID().uuidString.prefix(8)).db"
        _ = try makeCorpus(name, tokenizer: tokenizer)
        let export = try sift(["export", "--db", name, "--out", "\(name).ndjson", "--settings", "\(name).json"] + extra)
        XCTAssertEqual(export.status, 0, export.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("\(name).json"))))
        let root = try XCTUnwrap(json as? [String: Any])
        XCTAssertEqual(Set(root.keys), ["settings", "mappings"])
        let settings = try XCTUnwrap(root["settings"] as? [String: Any])
        return (try XCTUnwrap(settings["analysis"] as? [String: Any]), try XCTUnwrap(root["mappings"] as? [String: Any]), export.stderr)
    }

    private func analyzer(_ analysis: [String: Any], _ name: String = SearchEngineExport.analyzerName) throws -> [String: Any] {
        try XCTUnwrap((analysis["analyzer"] as? [String: Any])?[name] as? [String: Any])
    }

    /// The types of the filters an analyzer names, resolving custom filters to their definitions.
    private func filterTypes(_ analysis: [String: Any], _ analyzer: [String: Any]) -> [String] {
        let custom = analysis["filter"] as? [String: Any] ?? [:]
        return (analyzer["filter"] as? [String] ?? []).map { ((custom[$0] as? [String: Any])?["type"] as? String) ?? $0 }
    }

    func testSiftICUDefinition() throws {
        try XCTSkipUnless(SiftICU.isStemmingAvailable, "Sift was built without the Stemming trait")
        let (analysis, mappings, stderr) = try definition(tokenizer: "sift_icu")
        let main = try analyzer(analysis)
        XCTAssertEqual(main["tokenizer"] as? String, "icu_tokenizer")
        // A corpus declared `sift_icu` is `sift_icu stem english`: Snowball's English stemmer before folding.
        XCTAssertEqual(filterTypes(analysis, main), ["icu_normalizer", "snowball", "icu_folding"])
        XCTAssertEqual(((analysis["filter"] as? [String: Any])?["sift_stem"] as? [String: Any])?["language"] as? String, "English")
        let filters = try XCTUnwrap(analysis["filter"] as? [String: Any])
        XCTAssertEqual((filters["sift_nfkc_cf"] as? [String: Any])?["name"] as? String, "nfkc_cf")
        let charFilter = try XCTUnwrap((analysis["char_filter"] as? [String: Any])?[(main["char_filter"] as? [String])?.first ?? ""] as? [String: Any])
        XCTAssertEqual(charFilter["type"] as? String, "pattern_replace", "per-character CJK")
        let properties = try XCTUnwrap(mappings["properties"] as? [String: Any])
        for field in ["title", "body"] {
            let mapping = try XCTUnwrap(properties[field] as? [String: Any])
            XCTAssertEqual(mapping["type"] as? String, "text")
            XCTAssertEqual(mapping["analyzer"] as? String, SearchEngineExport.analyzerName)
        }
        for field in ["key", "origin", "source"] { XCTAssertEqual((properties[field] as? [String: Any])?["type"] as? String, "keyword") }
        XCTAssertEqual((properties["fields"] as? [String: Any])?["type"] as? String, "object")
        XCTAssertTrue(stderr.contains("bm25"), stderr)
        // What Sift's questions leave out, which the analyzer does not: English function words and lone hiragana.
        let notes = try SearchEngineExport.indexDefinition(forTokenizer: "sift_icu stem english").notes
        XCTAssertTrue(notes.contains { $0.contains("English function words") }, "\(notes)")
        XCTAssertTrue(notes.contains { $0.contains("kana standing alone") }, "\(notes)")
        XCTAssertFalse(try SearchEngineExport.indexDefinition(forTokenizer: "sift_icu stem none").notes.contains { $0.contains("hiragana") })
        XCTAssertTrue(stderr.contains("Highlighting"), stderr)

        let bigram = try definition(tokenizer: "sift_icu cjk bigram remove_diacritics 0 traditional_to_simplified 1 pinyin 1")
        let bigramMain = try analyzer(bigram.analysis)
        XCTAssertEqual(bigramMain["tokenizer"] as? String, "icu_tokenizer")
        XCTAssertNil(bigramMain["char_filter"])
        XCTAssertEqual(filterTypes(bigram.analysis, bigramMain), ["cjk_bigram", "icu_transform", "icu_normalizer", "snowball"])
        let unstemmed = try definition(tokenizer: "sift_icu stem none")
        XCTAssertEqual(filterTypes(unstemmed.analysis, try analyzer(unstemmed.analysis)), ["icu_normalizer", "icu_folding"])
        let bigramFilters = try XCTUnwrap(bigram.analysis["filter"] as? [String: Any])
        let ids = bigramFilters.values.compactMap { ($0 as? [String: Any])?["id"] as? String }
        XCTAssertTrue(ids.contains("Traditional-Simplified"), "\(ids)")
        XCTAssertTrue(ids.contains { $0.hasPrefix("Han-Latin") }, "\(ids)")
        let pinyin = try analyzer(bigram.analysis, SearchEngineExport.pinyinAnalyzerName)
        XCTAssertTrue(filterTypes(bigram.analysis, pinyin).contains("icu_transform"))
        let title = try XCTUnwrap((bigram.mappings["properties"] as? [String: Any])?["title"] as? [String: Any])
        XCTAssertEqual(((title["fields"] as? [String: Any])?["pinyin"] as? [String: Any])?["analyzer"] as? String,
                       SearchEngineExport.pinyinAnalyzerName)
        XCTAssertTrue(bigram.stderr.contains("initials"), bigram.stderr)

        let words = try definition(tokenizer: "sift_icu cjk words", "--word-tokenizer", "kuromoji")
        XCTAssertEqual(try analyzer(words.analysis)["tokenizer"] as? String, "kuromoji_tokenizer")
        XCTAssertTrue(words.stderr.contains("analysis-kuromoji"), words.stderr)
        _ = try makeCorpus("unigram.db", tokenizer: "sift_icu")
        let wrong = try sift("export", "--db", "unigram.db", "--word-tokenizer", "smartcn")
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("cjk words"), wrong.stderr)
    }

    func testBuiltinTokenizerDefinitions() throws {
        let unicode = try definition(tokenizer: "unicode61 remove_diacritics 2")
        let main = try analyzer(unicode.analysis)
        XCTAssertEqual(main["tokenizer"] as? String, "standard")
        XCTAssertEqual(filterTypes(unicode.analysis, main), ["lowercase", "asciifolding"])
        XCTAssertFalse(unicode.stderr.contains("analysis-icu"), unicode.stderr)

        let plain = try definition(tokenizer: "unicode61 remove_diacritics 0")
        XCTAssertEqual(filterTypes(plain.analysis, try analyzer(plain.analysis)), ["lowercase"])

        let porter = try definition(tokenizer: "porter unicode61 remove_diacritics 1")
        XCTAssertEqual(filterTypes(porter.analysis, try analyzer(porter.analysis)), ["lowercase", "asciifolding", "porter_stem"])

        let trigram = try definition(tokenizer: "trigram")
        let trigramMain = try analyzer(trigram.analysis)
        let tokenizer = try XCTUnwrap((trigram.analysis["tokenizer"] as? [String: Any])?[trigramMain["tokenizer"] as? String ?? ""] as? [String: Any])
        XCTAssertEqual(tokenizer["type"] as? String, "ngram")
        XCTAssertEqual(tokenizer["min_gram"] as? Int, 3)
        XCTAssertEqual(tokenizer["max_gram"] as? Int, 3)
        XCTAssertEqual(filterTypes(trigram.analysis, trigramMain), ["lowercase", "asciifolding"])
    }

    func testIndexNamesAndTokenizerWords() throws {
        XCTAssertEqual(SearchEngineExport.defaultIndexName(forDatabase: "/tmp/My Notes.sift"), "my-notes")
        XCTAssertEqual(SearchEngineExport.defaultIndexName(forDatabase: "_hidden.db"), "hidden")
        XCTAssertEqual(SearchEngineExport.defaultIndexName(forDatabase: "東京.db"), "sift")
        XCTAssertNoThrow(try SearchEngineExport.validateIndexName("notes.v2_x-1"))
        for bad in ["", "Upper", "-dash", "a b", "a/b", "a*b", ".."] {
            XCTAssertThrowsError(try SearchEngineExport.validateIndexName(bad), bad)
        }
        XCTAssertEqual(SearchEngineExport.words(ofTokenizer: "porter 'unicode61' \"remove_diacritics\" [2]  `x``y`"),
                       ["porter", "unicode61", "remove_diacritics", "2", "x`y"])
        XCTAssertThrowsError(try SearchEngineExport.indexDefinition(forTokenizer: "sift_icu cjk trigrams"))
        XCTAssertThrowsError(try SearchEngineExport.indexDefinition(forTokenizer: "mytokenizer"))
    }
}
