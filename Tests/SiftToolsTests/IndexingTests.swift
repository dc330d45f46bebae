import Foundation
import Sift
import SiftICU
import SiftEvaluation
import SiftTools
import XCTest

final class IndexingTests: ToolTestCase {
    func testFolderIsIndexedAndReindexedIncrementally() throws {
        try write("notes/a.txt", "The quick brown fox")
        try write("notes/sub/b.md", "# Badgers\n\nBadgers dig setts at night.")
        try write("notes/c.html", "<html><head><title>Crêpes &amp; galettes</title><style>p { color: red }</style></head>"
                  + "<body><script>var hidden = 1;</script><p>Buckwheat galettes&nbsp;from Brittany</p></body></html>")
        try write("notes/ignored.bin", "quick")
        let corpus = try makeCorpus()
        let first = try CorpusIndexer(corpus: corpus).index([folder.appendingPathComponent("notes")])
        XCTAssertEqual(first.written, 3)
        XCTAssertEqual(first.exitStatus, 0)
        XCTAssertEqual(try keys(corpus, "quick"), ["a.txt"], "only .txt, .md and .html files by default")
        XCTAssertEqual(try keys(corpus, "badgers"), ["sub/b.md"])
        XCTAssertEqual(try corpus.search("galettes").hits.first?.title, "Crêpes & [galettes]", "HTML title, entities decoded")
        XCTAssertEqual(try keys(corpus, "color"), [], "style contents are dropped")
        XCTAssertEqual(try keys(corpus, "hidden"), [], "script contents are dropped")

        // Change one file (new size), delete one, add one; the unchanged one must not be read again.
        try write("notes/a.txt", "The quick brown fox jumps over the lazy dog")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("notes/sub/b.md"))
        try write("notes/d.txt", "Lazy afternoons")
        let second = try CorpusIndexer(corpus: corpus).index([folder.appendingPathComponent("notes")])
        XCTAssertEqual(second.written, 2, "the changed and the new file")
        XCTAssertEqual(second.unchanged, 1)
        XCTAssertEqual(second.removed, 1)
        XCTAssertEqual(try keys(corpus, "lazy"), ["a.txt", "d.txt"])
        XCTAssertEqual(try keys(corpus, "badgers"), [])
        XCTAssertEqual(try corpus.documentCount(), 3)
        XCTAssertTrue(try corpus.check().isHealthy)

        let third = try CorpusIndexer(corpus: corpus).index([folder.appendingPathComponent("notes")])
        XCTAssertEqual([third.written, third.unchanged, third.removed], [0, 3, 0])
    }

    func testExtraExtensionsAndInvalidUTF8() throws {
        try write("docs/readme.rst", "Restructured text about walruses")
        try write("docs/good.txt", "Walruses have tusks")
        try write("docs/bad.txt", Data("line one\nline two \u{FF}".utf8) + Data([0xFF, 0xFE]))
        let corpus = try makeCorpus()
        let indexer = CorpusIndexer(corpus: corpus, options: IndexOptions(extraExtensions: ["rst"]))
        var problems: [String] = []
        indexer.onProblem = { problems.append($0) }
        let report = try indexer.index([folder.appendingPathComponent("docs")])
        XCTAssertEqual(try keys(corpus, "walruses"), ["good.txt", "readme.rst"])
        XCTAssertEqual(report.skipped, 1)
        XCTAssertEqual(report.exitStatus, 1)
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].hasSuffix("bad.txt:2: invalid UTF-8"), problems[0])
    }

    func testJSONLinesWithMalformedLineIsReportedAndSkipped() throws {
        let file = try write("docs.jsonl", """
            {"_id": "d1", "title": "Tokyo Tower", "text": "A 333-metre tower in Minato.", "lang": "en", "year": 1958}
            {"_id": "d2", "title": "broken", "text": 
            {"_id": "d3", "title": "東京タワー", "text": "東京都港区にある電波塔。", "lang": "ja"}

            {"title": "no id", "text": "orphan"}
            """)
        let corpus = try makeCorpus()
        let indexer = CorpusIndexer(corpus: corpus)
        var problems: [String] = []
        indexer.onProblem = { problems.append($0) }
        let report = try indexer.index([file])
        XCTAssertEqual(report.written, 2)
        XCTAssertEqual(report.skipped, 2)
        XCTAssertEqual(report.exitStatus, 1)
        XCTAssertEqual(problems.map { $0.components(separatedBy: ": ").first?.components(separatedBy: ":").last }, ["2", "5"])
        let hit = try XCTUnwrap(corpus.search("東京").hits.first)
        XCTAssertEqual(hit.key, "d3")
        XCTAssertEqual(hit.fields, #"{"lang":"ja"}"#, "other fields are stored as JSON")
        XCTAssertEqual(try keys(corpus, "tower"), ["d1"])

        // Re-indexing the file after a record is removed removes its document.
        try write("docs.jsonl", #"{"_id": "d3", "title": "東京タワー", "text": "電波塔"}"#)
        let again = try CorpusIndexer(corpus: corpus).index([file])
        XCTAssertEqual([again.written, again.removed], [1, 1])
        XCTAssertEqual(try corpus.documentCount(), 1)
    }

    func testStrictStopsAtFirstBadLineAndKeepsWhatWasRead() throws {
        let file = try write("docs.jsonl", "{\"_id\": \"a\", \"text\": \"alpha\"}\nnot json\n{\"_id\": \"b\", \"text\": \"beta\"}\n")
        let corpus = try makeCorpus()
        XCTAssertThrowsError(try CorpusIndexer(corpus: corpus, options: IndexOptions(strict: true)).index([file])) { error in
            guard case SiftToolError.badInput(let input) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(input.line, 2)
        }
        XCTAssertEqual(try keys(corpus, "alpha"), ["a"], "the document before the bad line is committed")
        XCTAssertEqual(try keys(corpus, "beta"), [])
    }

    func testCSVWithQuotesAndLineBreaksAndTSV() throws {
        // CRLF line ends as RFC 4180 has them, and one record spanning two lines inside quotes.
        let csv = try write("docs.csv", [
            "id,title,text,year",
            #"d1,Berlin Wall,"The wall fell on November 9, 1989.",1989"#,
            "d2,天安门,天安门位于北京市中心。,1417",
            #"d3,"Say ""cheese""","first line"#,
            #"second line",2000"#,
            #"d4,bad,"x"y,1"#,
            "d5,too few",
        ].joined(separator: "\r\n") + "\r\n")
        let tsv = try write("docs.tsv", "id\ttext\tlang\nt1\tplain \"quoted\" tab-separated text\ten\n")
        let corpus = try makeCorpus()
        let indexer = CorpusIndexer(corpus: corpus)
        var problems: [String] = []
        indexer.onProblem = { problems.append($0) }
        let report = try indexer.index([csv, tsv])
        XCTAssertEqual(report.written, 4)
        XCTAssertEqual(problems.count, 2)
        XCTAssertTrue(problems[0].contains("docs.csv:6:"), problems[0])
        XCTAssertTrue(problems[1].contains("docs.csv:7:"), problems[1])
        XCTAssertEqual(try corpus.search("november").hits.first?.snippet, "The wall fell on [November] 9, 1989.")
        let multiline = try XCTUnwrap(corpus.search("second").hits.first)
        XCTAssertEqual(multiline.title, "Say \"cheese\"")
        XCTAssertEqual(multiline.snippet, "first line\n[second] line")
        XCTAssertEqual(try keys(corpus, "天安门"), ["d2"])
        XCTAssertEqual(try keys(corpus, "quoted"), ["t1"])
        XCTAssertEqual(try corpus.search("wall", options: CorpusSearchOptions(filters: [FieldFilter(field: "year", value: "1989")])).hits.count, 1)
    }

    /// One stray quote used to open a quoted field that swallowed every later row into one field, lost with a
    /// single problem for the whole tail. Now the bad row is reported by its line and the rows after it are read.
    func testCSVStrayQuoteLosesOnlyItsOwnRow() throws {
        var rows = ["id,title,text"]
        for row in 1...1100 {
            rows.append(row == 100 ? #"r100,"Stray quote,the text of row 100"# : "r\(row),Title \(row),the text of row \(row)")
        }
        let csv = try write("big.csv", rows.joined(separator: "\n") + "\n")
        let corpus = try makeCorpus()
        let indexer = CorpusIndexer(corpus: corpus)
        var problems: [String] = []
        indexer.onProblem = { problems.append($0) }
        let report = try indexer.index([csv])
        XCTAssertEqual(report.written, 1099)
        XCTAssertEqual(try corpus.documentCount(), 1099)
        XCTAssertEqual(report.skipped, 1)
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.contains("big.csv:101: ") == true, "row 100 is on line 101: \(problems)")
        XCTAssertEqual(try keys(corpus, "row 1100"), ["r1100"])
        XCTAssertEqual(try keys(corpus, "row 100"), [])
    }

    /// A stray quote before rows with properly quoted fields (one spanning lines): the stray field "closes" on
    /// the next quote, followed by text a closing quote cannot be followed by; only the stray row is lost.
    func testCSVStrayQuoteBeforeQuotedAndMultilineFields() throws {
        let csv = try write("docs.csv", [
            "id,title,text",
            "a1,Alpha,first row",
            #"a2,"Stray,the quote is never closed"#,
            "a3,Gamma,plain row",
            #"a4,"Delta, with a comma","a quoted text""#,
            #"a5,Epsilon,"a text over"#,
            #"two lines""#,
            "a6,Zeta,last row",
        ].joined(separator: "\n") + "\n")
        let corpus = try makeCorpus()
        let indexer = CorpusIndexer(corpus: corpus)
        var problems: [String] = []
        indexer.onProblem = { problems.append($0) }
        let report = try indexer.index([csv])
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.contains("docs.csv:3: ") == true, "\(problems)")
        XCTAssertEqual(report.written, 5)
        XCTAssertEqual(try corpus.search("comma").hits.first?.title, "Delta, with a [comma]")
        XCTAssertEqual(try corpus.search("over").hits.first?.snippet, "a text [over]\ntwo lines")
        XCTAssertEqual(try keys(corpus, "row"), ["a1", "a3", "a6"])
    }

    func testMissingColumnAndUnknownFormat() throws {
        let csv = try write("docs.csv", "name,body\nx,y\n")
        let corpus = try makeCorpus()
        XCTAssertThrowsError(try CorpusIndexer(corpus: corpus).index([csv])) { error in
            XCTAssertTrue("\(error)".contains("has no field \"_id\""), "\(error)")
        }
        let other = try write("notes.docx", "x")
        XCTAssertThrowsError(try CorpusIndexer(corpus: corpus).index([other])) { error in
            XCTAssertTrue("\(error)".contains("--format"), "\(error)")
        }
    }

    func testInterruptionCommitsWholeBatchesAndLeavesAConsistentIndex() throws {
        let lines = (1...50).map { #"{"_id": "d\#($0)", "text": "document number \#($0)"}"# }
        let file = try write("docs.jsonl", lines.joined(separator: "\n"))
        let corpus = try makeCorpus()
        let indexer = CorpusIndexer(corpus: corpus, options: IndexOptions(batchSize: 10))
        var polls = 0
        indexer.shouldStop = {
            polls += 1
            return polls > 25
        }
        let report = try indexer.index([file])
        XCTAssertTrue(report.interrupted)
        XCTAssertEqual(report.exitStatus, 130)
        XCTAssertEqual(try corpus.documentCount(), 25, "every document read before the stop is committed")
        XCTAssertTrue(try corpus.check().isHealthy)
        // An interrupted run must not sweep documents as stale.
        XCTAssertEqual(report.removed, 0)
    }

    func testLockedDatabaseIsReportedAfterTheBusyTimeout() throws {
        _ = try makeCorpus()
        // A second path to the same file gets its own connection pool, standing in for another process.
        let link = path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path("corpus.db"))
        let other = Database(withPath: link)
        other.registerICUTokenizer()
        try other.begin()
        try other.exec(sql: "INSERT INTO sift_meta(name, value) VALUES('lock', 'held')")
        defer { try? other.rollback() }
        let corpus = try CorpusDatabase.open(at: path("corpus.db"), busyTimeout: 0.1)
        let file = try write("docs.jsonl", #"{"_id": "a", "text": "alpha"}"#)
        XCTAssertThrowsError(try CorpusIndexer(corpus: corpus).index([file])) { error in
            guard case SiftToolError.locked = error else { return XCTFail("\(error)") }
        }
    }

    func testASecondRunOnACorpusBeingIndexedFailsAtOnceAndWritesNothing() throws {
        let file = try write("docs.jsonl", (1...20).map { #"{"_id": "d\#($0)", "text": "document \#($0)"}"# }.joined(separator: "\n"))
        let other = try write("other.jsonl", #"{"_id": "x", "text": "other"}"#)
        let corpus = try makeCorpus()
        let first = CorpusIndexer(corpus: corpus, options: IndexOptions(batchSize: 5))
        let second = CorpusIndexer(corpus: try CorpusDatabase.open(at: path("corpus.db")))
        var secondError: Error?
        first.shouldStop = {
            // In the middle of the first run, a second indexer (another open of the same file) tries to start.
            if secondError == nil {
                do {
                    _ = try second.index([other])
                    XCTFail("the second run must not start while the first is indexing")
                } catch {
                    secondError = error
                }
            }
            return false
        }
        let report = try first.index([file])
        guard case SiftToolError.indexingInProgress(let path) = try XCTUnwrap(secondError) else {
            return XCTFail("\(String(describing: secondError))")
        }
        XCTAssertEqual(path, self.path("corpus.db"))
        XCTAssertTrue("\(try XCTUnwrap(secondError))".contains("another `sift index` is running on"))
        XCTAssertEqual(report.written, 20)
        XCTAssertEqual(try keys(corpus, "other"), [], "the refused run wrote nothing")
        // The lock is released with the run: the next one goes ahead.
        XCTAssertEqual(try CorpusIndexer(corpus: corpus).index([other]).written, 1)
        XCTAssertEqual(try corpus.documentCount(), 21)
    }

    func testOpeningSomethingElse() throws {
        XCTAssertThrowsError(try CorpusDatabase.open(at: path("missing.db"))) { error in
            guard case SiftToolError.missingFile = error else { return XCTFail("\(error)") }
        }
        try write("text.db", "just some text, not a database at all......")
        XCTAssertThrowsError(try CorpusDatabase.open(at: path("text.db"))) { error in
            guard case SiftToolError.notADatabase = error else { return XCTFail("\(error)") }
        }
        let other = Database(withPath: path("other.db"))
        try other.exec(sql: "CREATE TABLE t(a)")
        other.close()
        XCTAssertThrowsError(try CorpusDatabase.openOrCreate(at: path("other.db"))) { error in
            guard case SiftToolError.notACorpus = error else { return XCTFail("\(error)") }
        }
        _ = try makeCorpus("icu.db")
        XCTAssertThrowsError(try makeCorpus("icu.db", tokenizer: "unicode61")) { error in
            guard case SiftToolError.tokenizerMismatch = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try makeCorpus("bad.db", tokenizer: "no_such_tokenizer")) { error in
            guard case SiftToolError.unknownTokenizer = error else { return XCTFail("\(error)") }
        }
    }

    func testHTMLExtraction() {
        let (title, text) = TextExtraction.html("""
            <!DOCTYPE html><html><head><TITLE>A &lt;b&gt; test</TITLE><!-- <p>comment</p> -->
            <SCRIPT type="text/javascript">if (a < b) { alert("x") }</SCRIPT></head>
            <body><h1>Heading</h1><p>1 &lt; 2 &#38; 3 &#x3E; 2, caf&eacute;<br>next</p></body></html>
            """)
        XCTAssertEqual(title, "A <b> test")
        XCTAssertEqual(text, "Heading\n1 < 2 & 3 > 2, café\nnext")
        XCTAssertEqual(TextExtraction.markdownTitle("intro\n# Title here \nbody"), "Title here")
    }
}
