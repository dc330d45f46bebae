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

    func testExtraExtensionsAndBinaryFiles() throws {
        try write("docs/readme.rst", "Restructured text about walruses")
        try write("docs/good.txt", "Walruses have tusks")
        try write("docs/bad.txt", Data("walruses\n".utf8) + Data([0x00, 0x01, 0xFF, 0xFE]))
        let corpus = try makeCorpus()
        let indexer = CorpusIndexer(corpus: corpus, options: IndexOptions(extraExtensions: ["rst"]))
        var problems: [String] = []
        indexer.onProblem = { problems.append($0) }
        let report = try indexer.index([folder.appendingPathComponent("docs")])
        XCTAssertEqual(try keys(corpus, "walruses"), ["good.txt", "readme.rst"])
        XCTAssertEqual(report.skipped, 1)
        XCTAssertEqual(report.exitStatus, 1)
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].hasSuffix("bad.txt: binary content (NUL byte at offset 9)"), problems[0])

        let strict = CorpusIndexer(corpus: try makeCorpus("strict.db"), options: IndexOptions(strict: true))
        XCTAssertThrowsError(try strict.index([folder.appendingPathComponent("docs")])) { error in
            XCTAssertTrue("\(error)".hasSuffix("bad.txt: binary content (NUL byte at offset 9)"), "\(error)")
        }
    }

    /// French in ISO-8859-1, long enough for ICU's detector (which needs a few sentences).
    static let french = """
        Le dessert préféré de la maison est la crème brûlée, servie avec un café très serré. \
        À la fin du repas, les invités goûtent aussi une tarte aux pommes légère et des crêpes à la châtaigne. \
        Le chef explique que la crème doit être cuite lentement, à température douce, puis caramélisée à la dernière minute. \
        Les enfants préfèrent les gâteaux au chocolat, mais leurs parents reviennent toujours à la crème brûlée.
        """

    /// Japanese, encoded as Shift_JIS by Foundation.
    static let japanese = """
        東京は日本の首都です。東京には多くの人が住んでいて、毎日たくさんの電車が走っています。\
        週末には公園や美術館に行く人が多く、春には桜を見るために多くの人が集まります。\
        東京タワーやスカイツリーからは、晴れた日に富士山が見えることもあります。
        """

    /// 北京是中华人民共和国的首都，也是全国的政治中心和文化中心。北京有很多名胜古迹，比如故宫、天坛和长城。
    /// 每年都有很多游客来北京旅游，他们喜欢吃北京烤鸭。 in GBK (Foundation on Linux cannot encode GBK).
    static let chineseGBK: [UInt8] = [
        0xb1, 0xb1, 0xbe, 0xa9, 0xca, 0xc7, 0xd6, 0xd0, 0xbb, 0xaa, 0xc8, 0xcb, 0xc3, 0xf1, 0xb9, 0xb2, 0xba, 0xcd, 0xb9, 0xfa,
        0xb5, 0xc4, 0xca, 0xd7, 0xb6, 0xbc, 0xa3, 0xac, 0xd2, 0xb2, 0xca, 0xc7, 0xc8, 0xab, 0xb9, 0xfa, 0xb5, 0xc4, 0xd5, 0xfe,
        0xd6, 0xce, 0xd6, 0xd0, 0xd0, 0xc4, 0xba, 0xcd, 0xce, 0xc4, 0xbb, 0xaf, 0xd6, 0xd0, 0xd0, 0xc4, 0xa1, 0xa3, 0xb1, 0xb1,
        0xbe, 0xa9, 0xd3, 0xd0, 0xba, 0xdc, 0xb6, 0xe0, 0xc3, 0xfb, 0xca, 0xa4, 0xb9, 0xc5, 0xbc, 0xa3, 0xa3, 0xac, 0xb1, 0xc8,
        0xc8, 0xe7, 0xb9, 0xca, 0xb9, 0xac, 0xa1, 0xa2, 0xcc, 0xec, 0xcc, 0xb3, 0xba, 0xcd, 0xb3, 0xa4, 0xb3, 0xc7, 0xa1, 0xa3,
        0xc3, 0xbf, 0xc4, 0xea, 0xb6, 0xbc, 0xd3, 0xd0, 0xba, 0xdc, 0xb6, 0xe0, 0xd3, 0xce, 0xbf, 0xcd, 0xc0, 0xb4, 0xb1, 0xb1,
        0xbe, 0xa9, 0xc2, 0xc3, 0xd3, 0xce, 0xa3, 0xac, 0xcb, 0xfb, 0xc3, 0xc7, 0xcf, 0xb2, 0xbb, 0xb6, 0xb3, 0xd4, 0xb1, 0xb1,
        0xbe, 0xa9, 0xbf, 0xbe, 0xd1, 0xbc, 0xa1, 0xa3,
    ]

    func testFolderFilesInOtherCharsetsAreTranscoded() throws {
        try write("mixed/utf8.txt", "Une soupe à l’oignon gratinée, en UTF-8.")
        try write("mixed/latin1.txt", try XCTUnwrap(Self.french.data(using: .isoLatin1)))
        let page = """
            <html><head><meta charset="windows-1252"><title>Menu du soir</title></head>
            <body><p>Le serveur a dit \u{201C}délicieux\u{201D} en apportant l’assiette.</p></body></html>
            """
        try write("mixed/page.html", try XCTUnwrap(page.data(using: .windowsCP1252)))
        try write("mixed/japanese.txt", try XCTUnwrap(Self.japanese.data(using: .shiftJIS)))
        try write("mixed/chinese.txt", Data(Self.chineseGBK))
        try write("mixed/utf16.txt", Data([0xFF, 0xFE]) + (try XCTUnwrap("Naïve résumé in UTF-16".data(using: .utf16LittleEndian))))
        try write("mixed/archive.txt", Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03]) + Data(repeating: 0xA7, count: 64))
        let corpus = try makeCorpus()
        let indexer = CorpusIndexer(corpus: corpus)
        var problems: [String] = []
        indexer.onProblem = { problems.append($0) }
        let report = try indexer.index([folder.appendingPathComponent("mixed")])
        XCTAssertEqual(report.written, 6)
        XCTAssertEqual(report.skipped, 1)
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.first?.hasSuffix("archive.txt: binary content (NUL byte at offset 3)") == true, "\(problems)")

        XCTAssertEqual(try keys(corpus, "brûlée"), ["latin1.txt"])
        XCTAssertEqual(try keys(corpus, "gratinée"), ["utf8.txt"])
        XCTAssertEqual(try keys(corpus, "délicieux"), ["page.html"])
        XCTAssertEqual(try keys(corpus, "東京"), ["japanese.txt"])
        XCTAssertEqual(try keys(corpus, "スカイツリー"), ["japanese.txt"])
        XCTAssertEqual(try keys(corpus, "北京烤鸭"), ["chinese.txt"])
        XCTAssertEqual(try keys(corpus, "résumé"), ["utf16.txt"])
        XCTAssertEqual(try body(corpus, "page.html"), "Le serveur a dit \u{201C}délicieux\u{201D} en apportant l’assiette.")
        XCTAssertEqual(try body(corpus, "page.html", column: "title"), "Menu du soir")
        XCTAssertEqual(try body(corpus, "latin1.txt"), Self.french)
        XCTAssertEqual(try body(corpus, "japanese.txt"), Self.japanese)
        XCTAssertEqual(try body(corpus, "chinese.txt"), "北京是中华人民共和国的首都，也是全国的政治中心和文化中心。北京有很多名胜古迹，比如故宫、天坛和长城。"
                       + "每年都有很多游客来北京旅游，他们喜欢吃北京烤鸭。")
        XCTAssertEqual(try body(corpus, "utf16.txt"), "Naïve résumé in UTF-16")
    }

    func testDeclaredCharsetWinsOverDetection() throws {
        // ICU would detect windows-1252 or ISO-8859-1 here; the page says ISO-8859-15, where 0xA4 is the euro sign.
        let text = Self.french + " Prix du menu : 25 \u{20AC}."
        var bytes = try XCTUnwrap(Self.french.data(using: .isoLatin1))
        bytes.append(Data(" Prix du menu : 25 ".utf8) + Data([0xA4, 0x2E]))
        try write("menu/tarif.html", Data("<?xml version=\"1.0\" encoding=\"ISO-8859-15\"?>\n<html><body><p>".utf8) + bytes
                  + Data("</p></body></html>".utf8))
        let corpus = try makeCorpus()
        let report = try CorpusIndexer(corpus: corpus).index([folder.appendingPathComponent("menu")])
        XCTAssertEqual(report.written, 1)
        XCTAssertEqual(try body(corpus, "tarif.html"), text)
    }

    func testCharsetDeclarations() {
        func declared(_ text: String) -> String? { TextExtraction.declaredCharset(Array(text.utf8)) }
        XCTAssertEqual(declared(#"<!DOCTYPE html><html><head><meta charset="Windows-1252">"#), "windows-1252")
        XCTAssertEqual(declared("<html><head><META CHARSET=shift_jis>"), "shift_jis")
        XCTAssertEqual(declared(#"<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">"#), "iso-8859-1")
        XCTAssertEqual(declared(#"<meta content='text/html;charset=euc-jp' http-equiv='content-type'/>"#), "euc-jp")
        XCTAssertEqual(declared(#"  <?xml version="1.0" encoding='GBK'?><root/>"#), "gbk")
        XCTAssertNil(declared(#"<meta name="description" content="about charsets"><p>charset="koi8-r"</p>"#))
        XCTAssertNil(declared(#"<?xml version="1.0"?><meta data-charset="x">"#))
        XCTAssertNil(declared("plain text"))
        XCTAssertEqual(try TextExtraction.decode(Data("<p>caf\u{E9}</p>".utf8)).get().charset, "UTF-8", "UTF-8 needs no ICU")
        XCTAssertEqual(try TextExtraction.decode(Data([0xEF, 0xBB, 0xBF]) + Data("é".utf8)).get().text, "é")
        XCTAssertEqual(TextExtraction.decode(Data(repeating: 0x01, count: 40) + Data([0xE9])),
                       .failure(.controlCharacters(percent: 97)))
        XCTAssertEqual(TextExtraction.decode(Data("valid UTF-8 \u{0}".utf8)), .failure(.nulBytes(offset: 12)), "NUL is valid UTF-8 but no text")
        XCTAssertEqual(try TextExtraction.decode(Data("N\u{8}NA\u{8}AM\u{8}ME\u{8}E".utf8)).get().charset, "UTF-8", "nroff overstrike is text")
    }

    /// The stored body (or another column) of the document with `key`.
    private func body(_ corpus: CorpusDatabase, _ key: String, column: String = "body") throws -> String? {
        try corpus.database.getRows(sql: "SELECT \(column) FROM documents WHERE key = ?", values: [key]).first?[0].stringValue
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
