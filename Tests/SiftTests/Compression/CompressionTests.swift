import CSQLite
import Foundation
import XCTest
@testable import Sift

/// Column compression (zstd, dictionaries trained on the column): values round-trip through the binding, `where:`
/// compares plain values, and a synced index over compressed columns (its matches, highlights, snippets, totals,
/// score bounds and facets) is the same as over the plain columns after every write path, the dictionary
/// retraining and the migration of an existing column; each phase is checked against a plain twin database and
/// with `verify(index:)`. Small data, lowered score-bound thresholds (bounds from 200 rows).
final class CompressionTests: SiftTestCase {
    private var rng = SplitMix(seed: 20261126)
    private let words = (0..<150).map { "w\($0)x" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipUnless(Database.isCompressionAvailable, "Sift was built without the Compression trait")
    }

    private func word() -> String { rng.zipf(words) }

    private func document(_ id: Int? = nil, prefix: String = "") -> PackedDoc {
        let title = (0..<Int.random(in: 2...6, using: &rng)).map { _ in prefix + word() }.joined(separator: " ")
        let body = (0..<Int.random(in: 8...40, using: &rng)).map { _ in prefix + word() }.joined(separator: " ")
        return PackedDoc(id, title, body, payload: Data(body.utf8.reversed()), category: "c\(Int.random(in: 0..<4, using: &rng))")
    }

    private func open(_ name: String) -> Database {
        let database = makeDatabase(name)
        database.fullTextBulkThreshold = 8
        database.pool.attachment(FullTextSettings.init).impactSizes.withLock {
            $0 = (rows: 200, listed: 30, block: 16, chunk: 4, piece: 5, tail: 4, statementRows: 0, delta: 3, logRows: 4, logEntries: 64, postings: true, rareRowsRatio: 0...Double.infinity)
        }
        return database
    }

    /// A compressed database and its plain twin, written the same way.
    private struct Twin {
        let packed: Database
        let plain: Database

        func insert(_ docs: [PackedDoc], replacing: Bool = false) throws {
            if replacing {
                try packed.insertOrReplace(objects: docs, intoTable: "docs")
                try plain.insertOrReplace(objects: docs.map(PlainDoc.init), intoTable: "docs")
            } else {
                try packed.insert(objects: docs, intoTable: "docs")
                try plain.insert(objects: docs.map(PlainDoc.init), intoTable: "docs")
            }
        }

        func both(_ body: (Database) throws -> Void) throws {
            try body(packed)
            try body(plain)
        }
    }

    private func makeTwin(indexed: Bool = true, compressedFromStart: Bool = true) throws -> Twin {
        let twin = Twin(packed: open("packed.db"), plain: open("plain.db"))
        if compressedFromStart {
            try twin.packed.create(table: "docs", of: PackedDoc.self)
        } else {
            try twin.packed.create(table: "docs", of: PlainDoc.self)
        }
        try twin.plain.create(table: "docs", of: PlainDoc.self)
        if indexed {
            try twin.both { try $0.create(virtualTable: "docs_fts", of: PackedDocIndex.self, syncedWith: "docs", facets: ["category"]) }
        }
        return twin
    }

    private func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    /// The same searches on both databases give the same hits, scores, highlights, snippets, totals and facet
    /// counts, and both indexes verify clean.
    private func assertSameSearches(_ twin: Twin, _ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for text in ["w0x", "w1x w2x", "w3x w40x", "w90x", "w2x w7x w11x", "vw0x"] {
            for mode in [SearchQuery.Mode.allTerms, .anyTerm] {
                for ranking in [Ranking.bm25f(), .inB2()] {
                    let options = SearchOptions(limit: 10, ranking: ranking, highlight: ["title"], snippet: ["body"], facets: ["category"])
                    let query = SearchQuery(text, mode: mode)
                    let packed: SearchResults<PackedDoc> = try twin.packed.search(query, in: "docs_fts", options: options)
                    let plain: SearchResults<PackedDoc> = try twin.plain.search(query, in: "docs_fts", options: options)
                    let context = "\(label): '\(text)' \(mode) \(ranking)"
                    XCTAssertEqual(packed.hits.map(\.rowid), plain.hits.map(\.rowid), context, file: file, line: line)
                    for (a, b) in zip(packed.hits, plain.hits) {
                        XCTAssertTrue(close(a.score, b.score), "\(context): \(a.score) vs \(b.score)", file: file, line: line)
                        XCTAssertEqual(a.highlights, b.highlights, context, file: file, line: line)
                        XCTAssertEqual(a.snippets, b.snippets, context, file: file, line: line)
                        XCTAssertEqual(a.object, b.object, context, file: file, line: line)
                    }
                    XCTAssertEqual(packed.totalCount, plain.totalCount, context, file: file, line: line)
                    XCTAssertEqual(packed.facets["category"]?.counts, plain.facets["category"]?.counts, context, file: file, line: line)
                }
            }
        }
        for database in [twin.packed, twin.plain] {
            let verification = try database.verify(index: "docs_fts")
            XCTAssertTrue(verification.isConsistent, "\(label): \(verification)", file: file, line: line)
        }
    }

    private func storedTypes(_ database: Database, _ column: String) throws -> [String: Int] {
        var types: [String: Int] = [:]
        for row in try database.getRows(sql: "SELECT typeof(\(column)) FROM docs") { types[row[0].stringValue, default: 0] += 1 }
        return types
    }

    /// How many values of `column` are stored as plain text of 100 bytes or more (compression leaves plain only
    /// text that would not shrink: short text).
    private func longPlainValues(_ database: Database, _ column: String) throws -> Int64 {
        try database.getRows(sql: "SELECT count(*) FROM docs WHERE typeof(\(column)) = 'text' AND length(\(column)) >= 100")[0][0].int64Value
    }

    /// The dictionary ids the stored frames of `column` name (bytes 2-5 of each compressed value).
    private func dictionaryIDs(_ database: Database, _ column: String) throws -> Set<Int64> {
        let rows = try database.getRows(sql: "SELECT \(column) FROM docs WHERE typeof(\(column)) = 'blob'")
        return Set(rows.map { row in
            let bytes = [UInt8](row[0].dataValue)
            guard bytes.count >= 2 else { return -1 }
            if bytes[0] == 0xC5 {  // the first form: the id in four bytes
                return bytes.count < 6 ? -1 : Int64(bytes[2]) | Int64(bytes[3]) << 8 | Int64(bytes[4]) << 16 | Int64(bytes[5]) << 24
            }
            // The compact form: the dictionary's number (LEB128), 0 for none, else its distance from the first id, plus 1.
            var number: Int64 = 0, shift: Int64 = 0, at = 1
            while at < bytes.count {
                number |= Int64(bytes[at] & 0x7F) << shift
                shift += 7
                if bytes[at] & 0x80 == 0 { break }
                at += 1
            }
            return number == 0 ? 0 : number + 32_767
        })
    }

    // MARK: - Round trips and conditions

    func testTextAndBlobsRoundTripAndConditionsComparePlainValues() throws {
        let database = open("packed.db")
        try database.create(table: "docs", of: PackedDoc.self)
        let long = String(repeating: "the quick brown fox jumps over the lazy dog ", count: 40)
        let docs = [
            PackedDoc(1, "", "", payload: nil),
            PackedDoc(2, "short", "ünïcødé 天安门 ✓ " + long, payload: Data()),
            PackedDoc(3, long, long + "end", payload: Data(repeating: 7, count: 5_000)),
            PackedDoc(4, "tiny", "body", payload: Data([0xC5, 1, 2])),
            // Past zstd's window at level 3 (2 MB): more than one segment, written in the first form.
            PackedDoc(5, "large", "body", payload: Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 3 + $0 / 4_096) })),
        ]
        try database.insert(objects: docs, intoTable: "docs")
        let read: [PackedDoc] = try database.getObjects(fromTable: "docs", orderBy: PackedDoc.Properties.id.asOrder(by: .ascending))
        XCTAssertEqual(read, docs)
        // Long text is stored as a frame, far smaller; short text stays text; every blob is framed.
        let stored = try database.getRows(sql: "SELECT typeof(body), length(body), typeof(title), typeof(payload), length(payload) "
                                          + "FROM docs WHERE id = 3")[0]
        XCTAssertEqual(stored[0].stringValue, "blob")
        XCTAssertLessThan(stored[1].int64Value, Int64(long.utf8.count / 10))
        XCTAssertEqual(stored[2].stringValue, "blob")
        XCTAssertEqual(stored[3].stringValue, "blob")
        XCTAssertLessThan(stored[4].int64Value, 100)
        XCTAssertEqual(try database.getRows(sql: "SELECT typeof(title) FROM docs WHERE id = 4")[0][0].stringValue, "text")
        XCTAssertEqual(try database.getRows(sql: "SELECT hex(substr(payload, 1, 1)) FROM docs WHERE id = 5")[0][0].stringValue, "C5")
        XCTAssertEqual(try database.getRows(sql: "SELECT hex(substr(payload, 1, 2)) FROM docs WHERE id = 4")[0][0].stringValue, "D100")
        // One block, its kind in the first byte: raw (above), compressed (a blob, text).
        XCTAssertEqual(try database.getRows(sql: "SELECT hex(substr(payload, 1, 1)), hex(substr(body, 1, 1)) FROM docs WHERE id = 3")[0]
                        .map(\.stringValue), ["D5", "D4"])

        // Conditions compare the plain values (equality, LIKE, ordering), in reads, updates and deletes.
        let equal: [PackedDoc] = try database.getObjects(fromTable: "docs", where: PackedDoc.Properties.body == long + "end")
        XCTAssertEqual(equal.map(\.id), [3])
        let like: [PackedDoc] = try database.getObjects(fromTable: "docs", where: PackedDoc.Properties.body.like("%天安门%"))
        XCTAssertEqual(like.map(\.id), [2])
        let rows = try database.getRows(on: [PackedDoc.Properties.id], fromTable: "docs", where: PackedDoc.Properties.title == long)
        XCTAssertEqual(rows.map { $0[0].int64Value }, [3])
        try database.update(table: "docs", on: [PackedDoc.Properties.body], with: PackedDoc(nil, "", long + "updated"),
                            where: PackedDoc.Properties.body == long + "end")
        try database.update(table: "docs", on: [PackedDoc.Properties.title], with: [long + "row"], where: PackedDoc.Properties.title == long)
        let updated: PackedDoc? = try database.getObject(fromTable: "docs", where: PackedDoc.Properties.id == 3)
        XCTAssertEqual(updated?.body, long + "updated")
        XCTAssertEqual(updated?.title, long + "row")
        XCTAssertEqual(try database.getRows(sql: "SELECT typeof(title) FROM docs WHERE id = 3")[0][0].stringValue, "blob")
        try database.delete(fromTable: "docs", where: PackedDoc.Properties.body.like("%updated"))
        let left: [PackedDoc] = try database.getObjects(fromTable: "docs")
        XCTAssertEqual(left.map(\.id), [1, 2, 4, 5])
    }

    // MARK: - Search through compressed content

    func testSearchThroughCompressedColumnsMatchesPlainAfterEveryWritePath() throws {
        let twin = try makeTwin()
        try twin.insert((1...300).map { document($0) })                       // the bulk path, score bounds built
        try twin.both { try $0.optimize(index: "docs_fts") }
        try assertSameSearches(twin, "bulk load")
        XCTAssertEqual(try longPlainValues(twin.packed, "body"), 0)
        for id in 301...306 { try twin.insert([document(id)]) }                 // single inserts
        try twin.insert([document(5), document(17)], replacing: true)           // REPLACE
        try twin.insert([document(400, prefix: "v")])
        let changed = document(nil)
        try twin.both { database in
            try database.update(table: "docs", on: [PackedDoc.Properties.title, PackedDoc.Properties.body], with: changed,
                                where: PackedDoc.Properties.id == 9)
            try database.delete(fromTable: "docs", where: PackedDoc.Properties.id > 295 && PackedDoc.Properties.id < 300)
        }
        try assertSameSearches(twin, "single writes")
        // A highlight and a snippet are cut from the plain text.
        let hit: SearchResults<PackedDoc> = try twin.packed.search("vw0x", in: "docs_fts",
                                                                   options: SearchOptions(highlight: ["title"], snippet: ["body"]))
        XCTAssertEqual(hit.hits.map(\.rowid), [400])
        XCTAssertTrue(hit.hits.first?.snippets["body"]?.contains("[vw0x]") == true, "\(hit.hits.first?.snippets ?? [:])")
    }

    /// A migration step that renames a compressed column and drops another: the records and the view follow, the
    /// values read plain under their new names, and the synced index follows the renamed column (it finds what it
    /// found before the step).
    func testMigrationRenamingAndDroppingCompressedColumns() throws {
        let database = open("migrated")
        try database.create(table: "docs", of: PackedDoc.self)
        try database.create(virtualTable: "docs_fts", of: PackedDocIndex.self, syncedWith: "docs")
        let docs = (1...40).map { document($0) }
        try database.insert(objects: docs, intoTable: "docs")
        let word = try XCTUnwrap(docs[3].body.split(separator: " ").first.map(String.init))
        let before: SearchResults<PackedDoc> = try database.search(word, in: "docs_fts", options: SearchOptions(limit: 100))
        try database.migrate(table: "docs", of: PackedDocRenamed.self, steps: [1: { step in
            try step.renameProperty(from: "body", to: "text")
            try step.dropProperties("payload")
        }])
        let read: [PackedDocRenamed] = try database.getObjects(fromTable: "docs", orderBy: [PackedDocRenamed.Properties.id.asOrder()])
        XCTAssertEqual(read.map(\.text), docs.map(\.body))
        XCTAssertEqual(read.map(\.title), docs.map(\.title))
        let recorded = try database.getRows(sql: "SELECT column_name FROM sift_compressed_columns WHERE table_name = 'docs' ORDER BY 1")
        XCTAssertEqual(recorded.map { $0[0].stringValue }, ["text", "title"])
        XCTAssertEqual(try longPlainValues(database, "text"), 0)
        let after: SearchResults<PackedDocRenamed> = try database.search(word, in: "docs_fts", options: SearchOptions(limit: 100))
        XCTAssertEqual(after.totalCount, before.totalCount)
        XCTAssertEqual(after.hits.map(\.rowid), before.hits.map(\.rowid))
        XCTAssertTrue(try database.verify(index: "docs_fts").isConsistent)
    }

    // MARK: - Dictionaries

    func testRetrainingMakesANewDictionaryAndOldValuesStayReadable() throws {
        let twin = try makeTwin()
        try twin.insert((1...200).map { document($0) })
        XCTAssertEqual(try dictionaryIDs(twin.packed, "body"), [0])
        let first = try XCTUnwrap(try twin.packed.trainCompressionDictionary(forColumn: "body", inTable: "docs"))
        try twin.insert((201...300).map { document($0, prefix: "v") })
        let second = try XCTUnwrap(try twin.packed.trainCompressionDictionary(forColumn: "body", inTable: "docs"))
        // Ids in order from the first of zstd's private range; each value names its dictionary in a byte.
        XCTAssertEqual(first, 32_768)
        XCTAssertEqual(second, first + 1)
        try twin.insert((301...320).map { document($0) })
        XCTAssertEqual(try dictionaryIDs(twin.packed, "body"), [0, first, second])
        try assertSameSearches(twin, "three dictionaries")
        // Re-encoding brings every value to the newest dictionary; the texts, the index and its bounds stay.
        while try !twin.packed.compressRows(ofTable: "docs", batchSize: 64) {}
        XCTAssertEqual(try dictionaryIDs(twin.packed, "body"), [second])
        try assertSameSearches(twin, "re-encoded")
        let all: [PackedDoc] = try twin.packed.getObjects(fromTable: "docs")
        XCTAssertEqual(all.count, 320)
        XCTAssertThrowsError(try twin.packed.trainCompressionDictionary(forColumn: "category", inTable: "docs"))
        // A dictionary of a size asked for, within its bounds.
        for size in [100, 17 << 20] {
            XCTAssertThrowsError(try twin.packed.trainCompressionDictionary(forColumn: "body", inTable: "docs", maximumSize: size))
        }
        let small = try XCTUnwrap(try twin.packed.trainCompressionDictionary(forColumn: "body", inTable: "docs", maximumSize: 2_048))
        let length = try twin.packed.getRows(sql: "SELECT length(dictionary) FROM sift_zstd_dictionaries WHERE id = \(small)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(length.first?.first?.int64Value), 2_048)
        while try !twin.packed.compressRows(ofTable: "docs", batchSize: 100) {}
        XCTAssertEqual(try dictionaryIDs(twin.packed, "body"), [small])
        try assertSameSearches(twin, "a small dictionary")
    }

    // MARK: - Migration of an existing column

    func testCompressingAnExistingColumnIsResumableAndKeepsTheIndexExact() throws {
        let twin = try makeTwin(compressedFromStart: false)
        try twin.insert((1...250).map { document($0) })
        try twin.both { try $0.optimize(index: "docs_fts") }
        XCTAssertEqual(try storedTypes(twin.packed, "body"), ["text": 250])
        try twin.packed.enableCompression(.zstd, forColumns: ["title", "body"], inTable: "docs")
        XCTAssertEqual(try twin.packed.syncedIndexes().first?.contentTable, "docs")
        try assertSameSearches(twin, "declared, nothing compressed yet")
        XCTAssertNotNil(try twin.packed.trainCompressionDictionary(forColumn: "body", inTable: "docs"))
        XCTAssertFalse(try twin.packed.compressRows(ofTable: "docs", batchSize: 100))
        // Writes between batches are compressed as they come, and followed by the index.
        try twin.insert([document(251), document(252)])
        try assertSameSearches(twin, "one batch")
        // A new Database (another process, after a stop) continues after the last committed batch.
        twin.packed.close()
        let reopened = open("packed.db")
        let progress = try reopened.getRows(sql: "SELECT min(compressed_through) FROM sift_compressed_columns")[0][0].int64Value
        XCTAssertEqual(progress, 100)
        var batches = 0
        while try !reopened.compressRows(ofTable: "docs", batchSize: 100) { batches += 1 }
        XCTAssertEqual(batches, 2)
        XCTAssertEqual(try longPlainValues(reopened, "body"), 0)
        XCTAssertEqual(try longPlainValues(reopened, "title"), 0)
        try assertSameSearches(Twin(packed: reopened, plain: twin.plain), "migrated")
    }

    /// Blobs written before compression was declared that begin as a compressed value does (either form's first
    /// byte) read back as they were once the column is compressed: the declaration frames them.
    func testPlainBlobsThatLookCompressedStayTheirOwnValues() throws {
        let database = open("plain.db")
        try database.create(table: "docs", of: PlainDoc.self)
        let blobs: [Data] = [Data([0xC5, 1, 0, 0, 0, 0, 0x28, 0xB5, 0x2F, 0xFD]), Data([0xC6, 1, 0, 7, 7, 7]), Data([0xC6]),
                             Data([0xC4, 1, 2]), Data([0xD2, 0, 5, 0x61]), Data([0xC7, 0, 0])]
        let docs = blobs.enumerated().map { i, blob in
            let doc = PlainDoc()
            (doc.id, doc.title, doc.payload) = (i + 1, "t\(i)", blob)
            return doc
        }
        try database.insert(objects: docs, intoTable: "docs")
        try database.enableCompression(.zstd, forColumns: ["payload"], inTable: "docs")
        let read: [PackedDoc] = try database.getObjects(fromTable: "docs", orderBy: PackedDoc.Properties.id.asOrder(by: .ascending))
        XCTAssertEqual(read.map(\.payload), blobs)
        while try !database.compressRows(ofTable: "docs", batchSize: 2) {}
        let again: [PackedDoc] = try database.getObjects(fromTable: "docs", orderBy: PackedDoc.Properties.id.asOrder(by: .ascending))
        XCTAssertEqual(again.map(\.payload), blobs)
    }

    // MARK: - Damaged and hostile values

    private func assertFailure(_ database: Database, _ value: [UInt8], _ expected: CompressionFailure,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        try database.exec(sql: "UPDATE docs SET body = ? WHERE id = 1", values: [Data(value)])
        XCTAssertThrowsError(try database.getObjects(fromTable: "docs") as [PackedDoc], file: file, line: line) { error in
            let error = error as? SiftError
            XCTAssertEqual(error?.compressionFailure, expected, "\(String(describing: error))", file: file, line: line)
            XCTAssertEqual(error?.isCorruption, false, file: file, line: line)
        }
    }

    func testDamagedFramesUnknownDictionariesAndHugeSizesAreTypedErrors() throws {
        let database = open("packed.db")
        try database.create(table: "docs", of: PackedDoc.self)
        try database.insert(objects: [PackedDoc(1, "title", "body")], intoTable: "docs")
        let header: [UInt8] = [0xC5, 1]
        let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        // A truncated header, an unknown kind, garbage where the frame should be.
        try assertFailure(database, [0xC5, 1, 0], .damagedValue)
        try assertFailure(database, [0xC5, 9, 0, 0, 0, 0] + magic + [0, 0, 0], .damagedValue)
        try assertFailure(database, header + [0, 0, 0, 0] + [1, 2, 3, 4, 5, 6, 7, 8], .damagedValue)
        // A frame of dictionary 42 (single segment, a 1-byte dictionary id, a 1-byte size, one raw block "hello").
        let frame42 = magic + [0x21, 42, 5, 0x29, 0, 0] + Array("hello".utf8)
        try assertFailure(database, header + [42, 0, 0, 0] + frame42, .unknownDictionary(id: 42))
        // The header and the frame disagree on the dictionary.
        try assertFailure(database, header + [7, 0, 0, 0] + frame42, .damagedValue)
        // A frame that says it holds 2^40 bytes: refused before any allocation.
        try assertFailure(database, header + [0, 0, 0, 0] + magic + [0xE0] + [0, 0, 0, 0, 0, 1, 0, 0], .tooLarge(size: 1 << 40))
        // A frame whose block is shorter than it says.
        try assertFailure(database, header + [0, 0, 0, 0] + magic + [0x20, 5, 0x29, 0, 0] + Array("he".utf8), .damagedValue)
        // The compact form (the kind, the dictionary's number, the size, then the frame's blocks): a truncated
        // number, a size past the limit, an unknown dictionary (number 5: id 32,772), a number past 32 bits, blocks
        // cut short, blocks holding more than the size says.
        let block = [0x29, 0, 0] + Array("hello".utf8)
        try assertFailure(database, [0xC6, 0x80], .damagedValue)
        try assertFailure(database, [0xC6, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F] + block, .tooLarge(size: 34_359_738_367))
        try assertFailure(database, [0xC6, 5, 5] + block, .unknownDictionary(id: 32_772))
        try assertFailure(database, [0xC6, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 5] + block, .damagedValue)
        try assertFailure(database, [0xC6, 0, 5] + block.dropLast(3), .damagedValue)
        try assertFailure(database, [0xC6, 0, 3] + block, .damagedValue)
        // One block without its header: a repeated byte must be one byte, a raw block past the size, a size past
        // the limit.
        try assertFailure(database, [0xD2, 0, 5, 0x61, 0x61], .damagedValue)
        try assertFailure(database, [0xD0, 0, 3] + Array("hello".utf8), .damagedValue)
        try assertFailure(database, [0xD4, 0, 5] + [1, 2, 3], .damagedValue)
        try assertFailure(database, [0xD0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F] + Array("hello".utf8), .tooLarge(size: 34_359_738_367))
        // A value of either form reads as the text it holds (values of the first form stay readable).
        for value in [header + [0, 0, 0, 0] + magic + [0x20, 5] + block, [0xC6, 0, 5] + block, [0xD0, 0, 5] + Array("hello".utf8)] {
            try database.exec(sql: "UPDATE docs SET body = ? WHERE id = 1", values: [Data(value)])
            let read: [PackedDoc] = try database.getObjects(fromTable: "docs")
            XCTAssertEqual(read.first?.body, "hello", "\(value)")
        }
        try database.exec(sql: "UPDATE docs SET body = ? WHERE id = 1", values: [Data([0xD2, 0, 5, 0x61])])
        XCTAssertEqual((try database.getObjects(fromTable: "docs") as [PackedDoc]).first?.body, "aaaaa")
        // Fixed, the row reads again.
        try database.update(table: "docs", on: [PackedDoc.Properties.body], with: PackedDoc(1, "", "body again"),
                            where: PackedDoc.Properties.id == 1)
        let read: [PackedDoc] = try database.getObjects(fromTable: "docs")
        XCTAssertEqual(read.first?.body, "body again")
    }

    func testDeclarationsThatCannotWorkAreRefused() throws {
        let database = open("packed.db")
        try database.create(table: "docs", of: PlainDoc.self)
        XCTAssertThrowsError(try database.enableCompression(forColumns: ["missing"], inTable: "docs"))
        XCTAssertThrowsError(try database.enableCompression(.zstd(level: 40), forColumns: ["body"], inTable: "docs"))
        try database.create(virtualTable: "docs_fts", of: PackedDocIndex.self, syncedWith: "docs", mode: .trigger)
        XCTAssertThrowsError(try database.enableCompression(forColumns: ["body"], inTable: "docs")) { error in
            XCTAssertEqual((error as? SiftError)?.code, .misuse)
        }
    }
}

/// A build without the `Compression` trait: declaring compression throws ``CompressionFailure/unavailable``, and
/// tables without it work as ever. Skipped in a build with the trait (CompressionTests).
final class CompressionTraitTests: SiftTestCase {
    func testDeclaringCompressionThrowsUnavailable() throws {
        try XCTSkipIf(Database.isCompressionAvailable, "built with the Compression trait: CompressionTests cover compression")
        let database = makeDatabase()
        for body in [{ try database.create(table: "docs", of: PackedDoc.self) },
                     { try database.enableCompression(forColumns: ["body"], inTable: "docs") },
                     { _ = try database.trainCompressionDictionary(forColumn: "body", inTable: "docs") }] as [() throws -> Void] {
            XCTAssertThrowsError(try body()) { error in
                XCTAssertEqual((error as? SiftError)?.compressionFailure, .unavailable)
                XCTAssertTrue((error as? SiftError)?.message.contains("`Compression` trait") == true)
            }
        }
        try database.create(table: "plain", of: PlainDoc.self)
        try database.insert(objects: [PlainDoc(PackedDoc(1, "a", "b"))], intoTable: "plain")
        XCTAssertEqual((try database.getObjects(fromTable: "plain") as [PlainDoc]).count, 1)
    }
}
