import Foundation
import Sift
@testable import SiftTools
import XCTest

/// `.gz` inputs: read through zlib by the extension of the name inside, with the charset detection, size limit
/// and problem reporting of plain files. Every archive is written here with zlib (`GzipWriter`).
final class GzipIndexingTests: ToolTestCase {
    /// Writes `data` gzip-compressed to `name` inside the test's folder.
    @discardableResult
    private func writeGzip(_ name: String, _ data: Data) throws -> URL {
        try write(name, try GzipWriter.compress([data]))
    }

    /// Lines that do not repeat, so their compressed form is long enough to cut or damage in the middle.
    private static func distinctLines(_ count: Int) -> String {
        (1...count).map { "line \($0): the \($0 * 7919 % 1000)th heron of \($0 * 104_729 % 997) herons" }.joined(separator: "\n")
    }

    private func makeIndexer(_ corpus: CorpusDatabase, strict: Bool = false) -> (CorpusIndexer, problems: () -> [String]) {
        let indexer = CorpusIndexer(corpus: corpus, options: IndexOptions(strict: strict))
        var problems: [String] = []
        indexer.onProblem = { problems.append($0) }
        return (indexer, { problems })
    }

    func testGzipFilesInAFolderAreReadByTheirInnerExtensionAndCharset() throws {
        try writeGzip("docs/notes.txt.gz", Data("Herons wade in the shallows at dawn.".utf8))
        try writeGzip("docs/latin1.txt.gz", try XCTUnwrap(IndexingTests.french.data(using: .isoLatin1)))
        let page = """
            <html><head><meta charset="windows-1252"><title>Menu du soir</title></head>
            <body><p>Le serveur a dit \u{201C}délicieux\u{201D} en apportant l’assiette.</p></body></html>
            """
        try writeGzip("docs/page.html.gz", try XCTUnwrap(page.data(using: .windowsCP1252)))
        try writeGzip("docs/guide.md.gz", Data("# Heron guide\n\nGrey herons nest in colonies.".utf8))
        // Not read, as `changelog` and `bundle.tar` would not be: their inner names are no text extension.
        try writeGzip("docs/changelog.gz", Data("herons".utf8))
        try writeGzip("docs/bundle.tar.gz", Data("herons".utf8))
        try write("docs/plain.txt", "Herons, uncompressed")
        let corpus = try makeCorpus()
        let (indexer, problems) = makeIndexer(corpus)
        let report = try indexer.index([folder.appendingPathComponent("docs")])
        XCTAssertEqual(problems(), [])
        XCTAssertEqual(report.written, 5)
        XCTAssertEqual(try keys(corpus, "herons"), ["guide.md.gz", "notes.txt.gz", "plain.txt"])
        XCTAssertEqual(try keys(corpus, "brûlée"), ["latin1.txt.gz"], "ISO-8859-1 detected inside the archive")
        XCTAssertEqual(try keys(corpus, "délicieux"), ["page.html.gz"], "the HTML's declared charset")
        XCTAssertEqual(try corpus.search("menu").hits.first?.title, "[Menu] du soir", "HTML title of page.html.gz")
        XCTAssertEqual(try corpus.search("colonies").hits.first?.title, "Heron guide", "Markdown title of guide.md.gz")
        XCTAssertEqual(try corpus.search("dawn").hits.first?.title, "notes.txt.gz")

        let again = try CorpusIndexer(corpus: corpus).index([folder.appendingPathComponent("docs")])
        XCTAssertEqual([again.written, again.unchanged], [0, 5], "unchanged archives are not decompressed again")
    }

    func testGzipRecordFilesAreIndexedAndSearchable() throws {
        // Two gzip members one after the other (`cat a.gz b.gz`) read as one file.
        let first = #"{"_id": "d1", "title": "Egrets", "text": "Little egrets fish in the estuary."}"# + "\n"
        let second = #"{"_id": "d2", "title": "Bitterns", "text": "Bitterns boom in the reed beds."}"#
        let jsonl = try write("birds.jsonl.gz", try GzipWriter.compress([Data(first.utf8)]) + GzipWriter.compress([Data(second.utf8)]))
        let csv = try writeGzip("waders.csv.gz", Data("id,title,text\nw1,Curlew,\"Curlews probe the mud, calling\"\n".utf8))
        XCTAssertEqual(try SourceFormat.detect(jsonl), .jsonl)
        XCTAssertEqual(try SourceFormat.detect(csv), .csv)
        let corpus = try makeCorpus()
        let (indexer, problems) = makeIndexer(corpus)
        let report = try indexer.index([jsonl, csv])
        XCTAssertEqual(problems(), [])
        XCTAssertEqual([report.written, report.files], [3, 2])
        XCTAssertEqual(try keys(corpus, "estuary"), ["d1"])
        XCTAssertEqual(try keys(corpus, "reed"), ["d2"], "the second member")
        XCTAssertEqual(try keys(corpus, "mud"), ["w1"])

        let outcome = try sift("index", "birds.jsonl.gz", "--db", "cli.db", "--quiet")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(try keys(try CorpusDatabase.open(at: path("cli.db")), "bitterns"), ["d2"])
    }

    func testTruncatedAndDamagedArchivesAreReportedAndSkipped() throws {
        let text = Data(Self.distinctLines(2000).utf8)
        let archive = try GzipWriter.compress([text])
        try writeGzip("docs/good.txt.gz", Data("Spoonbills sweep the shallows.".utf8))
        try write("docs/truncated.txt.gz", archive.prefix(archive.count / 2))
        try write("docs/no-trailer.txt.gz", archive.dropLast(4))
        var damaged = archive
        damaged[damaged.count / 2] ^= 0xFF
        try write("docs/damaged.txt.gz", damaged)
        try write("docs/not-gzip.txt.gz", text)
        try write("docs/empty.txt.gz", Data())
        let corpus = try makeCorpus()
        let (indexer, problems) = makeIndexer(corpus)
        let report = try indexer.index([folder.appendingPathComponent("docs")])
        XCTAssertEqual(try keys(corpus, "spoonbills"), ["good.txt.gz"])
        XCTAssertEqual(try keys(corpus, "herons"), [])
        XCTAssertEqual([report.written, report.skipped], [1, 5])
        let reported = problems().sorted()
        let docs = folder.appendingPathComponent("docs").path
        XCTAssertEqual(reported.count, 5)
        XCTAssertTrue(reported[0].hasPrefix("\(docs)/damaged.txt.gz: damaged gzip data ("), reported[0])
        XCTAssertEqual(reported[1], "\(docs)/empty.txt.gz: \(GzipProblem.truncated)")
        XCTAssertEqual(reported[2], "\(docs)/no-trailer.txt.gz: \(GzipProblem.truncated)")
        XCTAssertEqual(reported[3], "\(docs)/not-gzip.txt.gz: damaged gzip data (incorrect header check)")
        XCTAssertEqual(reported[4], "\(docs)/truncated.txt.gz: \(GzipProblem.truncated)")

        // A record file cut short: the whole records before the cut are indexed, the file is reported and skipped.
        let records = (1...2000).map { #"{"_id": "r\#($0)", "text": "record \#($0) about herons"}"# }.joined(separator: "\n")
        let full = try GzipWriter.compress([Data(records.utf8)])
        let cut = try write("cut.jsonl.gz", full.prefix(full.count / 2))
        let recordReport = try indexer.index([cut])
        XCTAssertEqual(recordReport.skipped, 1)
        XCTAssertEqual(problems().last, "\(cut.path): \(GzipProblem.truncated)")
        let written = recordReport.written
        XCTAssertGreaterThan(written, 500)
        XCTAssertLessThan(written, 2000)
        let range = try corpus.database.getRows(sql: "SELECT count(*), max(CAST(substr(key, 2) AS INTEGER)) FROM documents WHERE key LIKE 'r%'")
        XCTAssertEqual(range.first.map { [$0[0].int64Value, $0[1].int64Value] }, [Int64(written), Int64(written)],
                       "records r1 to r\(written), in order, up to the cut")
        XCTAssertEqual(try corpus.documentCount(), 1 + recordReport.written)

        let (strict, _) = makeIndexer(try makeCorpus("strict.db"), strict: true)
        XCTAssertThrowsError(try strict.index([cut])) { error in
            guard case SiftToolError.badArchive(let path, .truncated) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, cut.path)
        }

        let outcome = try sift("index", "docs", "--db", "cli.db", "--quiet")
        XCTAssertEqual(outcome.status, 1, "something was skipped")
        XCTAssertTrue(outcome.stderr.contains("sift: skipped \(docs)/truncated.txt.gz: truncated gzip data"), outcome.stderr)
    }

    func testGzipBombIsRefusedAtTheFileSizeLimit() throws {
        // 200 MB of zeros compress to about 200 KB, well under the 64 MiB limit a folder file is checked against.
        let zeros = Data(count: 1 << 20)
        let bomb = try write("docs/bomb.txt.gz", try GzipWriter.compress(repeatElement(zeros, count: 200)))
        XCTAssertLessThan(try XCTUnwrap(bomb.resourceValues(forKeys: [.fileSizeKey]).fileSize), 1 << 20)
        try writeGzip("docs/notes.txt.gz", Data("Avocets sweep their upturned bills.".utf8))
        let corpus = try makeCorpus()
        let (indexer, problems) = makeIndexer(corpus)
        let report = try indexer.index([folder.appendingPathComponent("docs")])
        let limit = IndexOptions().maxFileSize
        XCTAssertEqual(problems(), ["\(bomb.path): decompresses to more than \(limit) bytes; not indexed"])
        XCTAssertEqual([report.written, report.skipped], [1, 1])
        XCTAssertEqual(try keys(corpus, "avocets"), ["notes.txt.gz"])
    }

    func testReaderDecompressesOneBytePastTheLimit() throws {
        let archive = try write("ten.txt.gz", try GzipWriter.compress([Data(repeating: 0x61, count: 10_000)]))
        XCTAssertEqual(try GzipReader.contents(of: archive.path, limit: 10_000).count, 10_000, "exactly at the limit")
        let reader = try GzipReader(path: archive.path, limit: 9_999)
        XCTAssertThrowsError(try reader.read(upToCount: 1 << 16)) { error in
            guard case SiftToolError.badArchive(_, .tooLarge(9_999)) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(reader.decompressed, 10_000, "one byte past the limit, not the whole chunk asked for")
    }
}
