import CSQLite
import Foundation
import XCTest
@testable import Sift

/// The term dictionary kept through writes (`TermDictionaryFollower`, `TermDictionary.applying`) against one read
/// afresh from FTS5's vocabulary: after every write of a seeded random sequence (every kind the sync layer sees,
/// rollbacks, and the paths that must make the next search read the vocabulary again), the kept dictionary holds
/// the same terms with the same row counts and answers every walk and lookup the same; and it was kept, not read
/// again, exactly where the writes all went through the sync layer of this process.
final class TermDictionaryFollowerTests: SiftTestCase {
    private static let alphabet = Array("abcdeilmnorstu".unicodeScalars)

    /// Words of a small vocabulary of related spellings, so that walks within two edits find several terms.
    private static func word(_ rng: inout SplitMix) -> String {
        let roots = ["aerosol", "airfoil", "turbine", "turbulent", "stream", "streamline", "module", "nodules", "cascade"]
        var scalars = Array(roots[Int(rng.next() % UInt64(roots.count))].unicodeScalars)
        for _ in 0..<Int(rng.next() % 3) {
            let at = Int(rng.next() % UInt64(scalars.count))
            let letter = alphabet[Int(rng.next() % UInt64(alphabet.count))]
            switch rng.next() % 3 {
            case 0: scalars[at] = letter
            case 1: scalars.insert(letter, at: at)
            default: if scalars.count > 3 { scalars.remove(at: at) }
            }
        }
        return String(String.UnicodeScalarView(scalars))
    }

    private static func text(_ rng: inout SplitMix, words: Int) -> String {
        (0..<words).map { _ in word(&rng) }.joined(separator: " ")
    }

    private func corpus(_ rng: inout SplitMix) throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        database.fullTextBulkThreshold = 8
        try database.insert(objects: (1...30).map { Article($0, Self.text(&rng, words: 2), Self.text(&rng, words: 6)) },
                            intoTable: "articles")
        return database
    }

    private func settings(_ database: Database) -> FullTextSettings {
        database.pool.attachment(FullTextSettings.init)
    }

    /// The dictionary a typo-tolerant search takes now, and whether it was read to get it (from the vocabulary or
    /// the dictionary stored beside the index), not kept in memory.
    private func searched(_ database: Database) throws -> (TermDictionary, reread: Bool) {
        let reads = { self.settings(database).termDictionaryReads.withLock { $0 } + self.settings(database).termDictionaryLoads.withLock { $0 } }
        let before = reads()
        let dictionary = try database.read { try TermDictionary.of("articles_fts", in: settings(database), on: $0) }
        return (dictionary, reads() != before)
    }

    private func fresh(_ database: Database) throws -> TermDictionary {
        TermDictionary(terms: try database.read { try FTSTableInfo.vocabulary(of: "articles_fts", on: $0) })
    }

    /// Every term with its rows, in term order.
    private func terms(_ dictionary: TermDictionary) -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: dictionary.byRows(beginningWith: []).map { (dictionary.text($0), dictionary.rows(at: $0)) })
    }

    /// Whether `kept` answers as `fresh` does: terms, counts, alphabet, and walks and lookups from `words`.
    private func assertSame(_ kept: TermDictionary, _ fresh: TermDictionary, words: [String], _ step: String) {
        XCTAssertEqual(terms(kept), terms(fresh), step)
        XCTAssertEqual(kept.count, fresh.count, step)
        XCTAssertEqual(kept.alphabet, fresh.alphabet, step)
        for word in words {
            let scalars = Array(word.unicodeScalars)
            for edits in 1...2 {
                let automaton = EditAutomaton(scalars, maxEdits: edits)
                XCTAssertEqual(kept.matches(automaton).map { (kept.text($0.term), $0.edits) }.map(Pair.init),
                               fresh.matches(automaton).map { (fresh.text($0.term), $0.edits) }.map(Pair.init), "\(step) \(word)")
                XCTAssertEqual(kept.alignedMatches(automaton, tail: 3).map { "\(kept.text($0.term)) \($0.cut) \($0.edits)" },
                               fresh.alignedMatches(automaton, tail: 3).map { "\(fresh.text($0.term)) \($0.cut) \($0.edits)" }, step)
                let prefix = EditAutomaton(Array(scalars.prefix(4)), maxEdits: edits)
                XCTAssertEqual(kept.prefixMatches(prefix), fresh.prefixMatches(prefix), "\(step) \(word)")
            }
            XCTAssertEqual(kept.rows(of: scalars), fresh.rows(of: scalars), step)
            for length in [0, 1, 2, 3, 5] {
                let prefix = Array(scalars.prefix(length))
                XCTAssertEqual(kept.maxRows(beginningWith: prefix), fresh.maxRows(beginningWith: prefix), step)
                XCTAssertEqual(kept.holdsTerm(beginningWith: prefix), !fresh.byRows(beginningWith: prefix).map { $0 }.isEmpty, step)
                XCTAssertEqual(kept.byRows(beginningWith: prefix).map(kept.text), fresh.byRows(beginningWith: prefix).map(fresh.text),
                               "\(step) \(String(String.UnicodeScalarView(prefix)))")
            }
        }
    }

    private struct Pair: Equatable {
        let text: String
        let edits: Int
        init(_ pair: (String, Int)) { (text, edits) = pair }
    }

    private enum Write: CaseIterable {
        case insert, update, updateBoth, delete, replace, rowid, rawSQL, transaction, rollback, savepoint,
             namedSavepoints, batch, failedBatch, bulk, rebuild, optimize, rawIndexCommand, otherConnection, migration
    }

    func testKeptDictionaryEqualsTheVocabularyAfterEveryWrite() throws {
        try writeAndCompare(seed: 2_024, foldRows: nil)
    }

    /// The same with the stored dictionary's log folded into its list every few statements.
    func testStoredDictionaryFoldedOftenEqualsTheVocabulary() throws {
        try writeAndCompare(seed: 4_048, foldRows: 3)
    }

    /// The dictionary stored beside the index as a search with nothing kept in memory loads it (nil when stale).
    private func stored(_ database: Database) throws -> TermDictionary? {
        try database.read { try TermDictionaryStore.load("articles_fts", on: $0) }
    }

    /// A seeded random sequence of every kind of write, each followed by a typo-tolerant search: the dictionary kept
    /// in memory and the one stored beside the index (`TermDictionaryStore`, with its log folded at `foldRows`) are
    /// the vocabulary's after each, the stored one stale only from a bulk load to the next rebuild or optimize.
    private func writeAndCompare(seed: UInt64, foldRows: Int?) throws {
        var rng = SplitMix(seed: seed)
        let database = makeDatabase()
        if let foldRows { settings(database).dictionaryFoldRows.withLock { $0 = foldRows } }
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        database.fullTextBulkThreshold = 8
        for id in 1...30 {
            try database.insert(objects: [Article(id, Self.text(&rng, words: 2), Self.text(&rng, words: 6))], intoTable: "articles")
        }
        var storedIsValid = true
        var nextID = 100, version = 0
        var live = Array(1...30)
        // The first search reads the vocabulary; every later one takes the kept dictionary unless a write says not.
        XCTAssertTrue(try searched(database).reread)
        var kept = 0
        for step in 0..<160 {
            let write = Write.allCases[Int(rng.next() % UInt64(Write.allCases.count))]
            let someone = live.isEmpty ? 1 : live[Int(rng.next() % UInt64(live.count))]
            func newID() -> Int { nextID += 1; return nextID }
            var keeps = true
            switch write {
            case .insert:
                let id = newID()
                try database.insert(objects: [Article(id, Self.text(&rng, words: 2), Self.text(&rng, words: 5))], intoTable: "articles")
                live.append(id)
            case .update:
                try database.update(table: "articles", on: Article.Properties.body, with: [Self.text(&rng, words: 4)],
                                    where: Article.Properties.id == someone)
            case .updateBoth:
                try database.exec(sql: "UPDATE articles SET title = ?, body = body || ' ' || ? WHERE id % 3 = ?",
                                  values: [Self.text(&rng, words: 1), Self.word(&rng), Int(rng.next() % 3)])
            case .delete:
                try database.delete(fromTable: "articles", where: Article.Properties.id == someone)
                live.removeAll { $0 == someone }
            case .replace:
                try database.insertOrReplace(objects: [Article(someone, Self.text(&rng, words: 2), Self.text(&rng, words: 3))],
                                             intoTable: "articles")
                if !live.contains(someone) { live.append(someone) }
            case .rowid:
                let id = newID()
                try database.exec(sql: "UPDATE articles SET id = ?, title = ? WHERE id = ?", values: [id, Self.word(&rng), someone])
                if live.contains(someone) { live.removeAll { $0 == someone }; live.append(id) }
            case .rawSQL:
                let id = newID()
                try database.exec(sql: "INSERT INTO articles(id, title, body, views) VALUES(?, ?, ?, 0)",
                                  values: [id, Self.word(&rng), Self.text(&rng, words: 3)])
                live.append(id)
            case .transaction:
                let id = newID()
                try database.run(transaction: {
                    try database.insert(objects: [Article(id, Self.word(&rng), Self.text(&rng, words: 3))], intoTable: "articles")
                    try database.delete(fromTable: "articles", where: Article.Properties.id == someone)
                    try database.update(table: "articles", on: Article.Properties.title, with: [Self.word(&rng)],
                                        where: Article.Properties.id == id)
                })
                live.removeAll { $0 == someone }
                live.append(id)
            case .rollback:
                try? database.run(transaction: {
                    try database.insert(objects: [Article(newID(), Self.word(&rng), Self.text(&rng, words: 3))], intoTable: "articles")
                    try database.delete(fromTable: "articles", where: Article.Properties.id == someone)
                    throw CancellationError()
                })
            case .savepoint:
                // The inner transaction is a savepoint rolled back; the outer one commits what it wrote itself.
                let id = newID()
                try database.run(transaction: {
                    try database.insert(objects: [Article(id, Self.word(&rng), Self.text(&rng, words: 3))], intoTable: "articles")
                    try? database.run(transaction: {
                        try database.insert(objects: [Article(newID(), Self.word(&rng), Self.word(&rng))], intoTable: "articles")
                        throw CancellationError()
                    })
                })
                live.append(id)
            case .namedSavepoints:
                // Savepoints written in SQL, nested, their names in another case when released or rolled back to:
                // only what a ROLLBACK TO undid is forgotten, and a search inside takes what is left.
                let kept = newID(), undone = newID(), released = newID()
                try database.run(transaction: {
                    try database.insert(objects: [Article(kept, Self.word(&rng), Self.text(&rng, words: 3))], intoTable: "articles")
                    try database.exec(sql: "SAVEPOINT Outer")
                    try database.insert(objects: [Article(undone, Self.word(&rng), Self.text(&rng, words: 2))], intoTable: "articles")
                    try database.exec(sql: "SAVEPOINT inner")
                    try database.delete(fromTable: "articles", where: Article.Properties.id == someone)
                    try database.exec(sql: "ROLLBACK TO outer")
                    let (inside, reread) = try searched(database)
                    XCTAssertFalse(reread, "step \(step): a search after ROLLBACK TO read the vocabulary")
                    assertSame(inside, try fresh(database), words: [Self.word(&rng)], "step \(step) after ROLLBACK TO")
                    try database.update(table: "articles", on: Article.Properties.body, with: [Self.text(&rng, words: 4)],
                                        where: Article.Properties.id == someone)
                    try database.exec(sql: "SAVEPOINT last")
                    try database.insert(objects: [Article(released, Self.word(&rng), Self.word(&rng))], intoTable: "articles")
                    try database.exec(sql: "RELEASE LAST")
                    try database.exec(sql: "RELEASE outer")
                })
                live += [kept, released]
            case .batch:
                // Below the bulk threshold: indexed row by row, and logged once for the batch.
                let ids = (0..<Int(2 + rng.next() % 5)).map { _ in newID() }
                try database.insert(objects: ids.map { Article($0, Self.word(&rng), Self.text(&rng, words: 4)) }, intoTable: "articles")
                live += ids
            case .failedBatch:
                // A batch failing at its last row (a key it holds twice), alone and inside a transaction that commits
                // what it wrote before and after: the batch's changes go with its rows, the rest stays.
                let alone = (0..<3).map { _ in newID() }
                XCTAssertThrowsError(try database.insert(objects: (alone + [alone[0]]).map { Article($0, Self.word(&rng), Self.text(&rng, words: 3)) },
                                                         intoTable: "articles"))
                let before = newID(), after = newID()
                let ids = (0..<3).map { _ in newID() }
                try database.run(transaction: {
                    try database.insert(objects: [Article(before, Self.word(&rng), Self.text(&rng, words: 3))], intoTable: "articles")
                    XCTAssertThrowsError(try database.insert(objects: (ids + [before]).map { Article($0, Self.word(&rng), Self.text(&rng, words: 3)) },
                                                             intoTable: "articles"))
                    try database.insert(objects: [Article(after, Self.word(&rng), Self.text(&rng, words: 3))], intoTable: "articles")
                })
                live += [before, after]
            case .bulk:
                let ids = (0..<10).map { _ in newID() }
                try database.insert(objects: ids.map { Article($0, Self.word(&rng), Self.text(&rng, words: 4)) }, intoTable: "articles")
                live += ids
                keeps = false
                storedIsValid = false
            case .rebuild:
                try database.rebuild(index: "articles_fts")
                keeps = false
                storedIsValid = true
            case .optimize:
                try database.optimize(index: "articles_fts")
                keeps = false
                storedIsValid = true
            case .rawIndexCommand:
                try database.exec(sql: "INSERT INTO articles_fts(articles_fts, rank) VALUES('merge', 4)")
                keeps = false
            case .otherConnection:
                let other = Database(withPath: database.path)
                let id = newID()
                try other.insert(objects: [Article(id, Self.word(&rng), Self.text(&rng, words: 2))], intoTable: "articles")
                other.close()
                live.append(id)
                keeps = false
            case .migration:
                version += 1
                try database.migrate(table: "articles", of: Article.self, toVersion: version) {
                    try $0.update(property: "title", with: Self.word(&rng), where: Column(named: "id") == someone)
                }
                keeps = false
                storedIsValid = true
            }
            // A typo-tolerant search, as an application makes after writing.
            let word = Self.word(&rng)
            let _: SearchResults<Article> = try database.search(word, in: "articles_fts")
            let (dictionary, reread) = try searched(database)
            let expected = try fresh(database)
            assertSame(dictionary, expected, words: [word, Self.word(&rng)], "step \(step) \(write)")
            if keeps {
                XCTAssertFalse(reread, "step \(step): \(write) went through the sync layer, the dictionary is kept")
                kept += 1
            }
            if let stored = try stored(database) {
                XCTAssertTrue(storedIsValid, "step \(step): \(write) left a stored dictionary after a bulk load")
                assertSame(stored, expected, words: [word], "step \(step) \(write), stored")
            } else {
                XCTAssertFalse(storedIsValid, "step \(step): \(write) left the stored dictionary stale")
            }
        }
        XCTAssertGreaterThan(kept, 60)
        if foldRows != nil {
            // Folded: fewer log rows beside the list than the header's fold threshold (its fifth number).
            let logRows = try database.read { try $0.count("SELECT count(*) FROM articles_fts_sift_dictionary WHERE id >= 0") }
            let header = try database.read { handle in
                try handle.withStatement("SELECT data FROM articles_fts_sift_dictionary WHERE id = -1") { stmt -> [UInt8] in
                    guard try handle.step(stmt) else { return [] }
                    return Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(stmt, 0), count: Int(sqlite3_column_bytes(stmt, 0))))
                }
            }
            var at = 0, values: [Int64] = []
            while let (value, size) = PageFile.varint(header, at: at, end: header.count) { values.append(value); at += size }
            XCTAssertEqual(values.count, 5)
            XCTAssertLessThan(logRows, Int(values.last ?? 0))
            XCTAssertGreaterThan(logRows, 0, "nothing logged since the last fold: the log is not exercised")
        }
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    /// Applying changes directly, with a low merge threshold: the changes kept beside the base and the merged list
    /// answer as a dictionary made from the final counts does.
    /// A typo-tolerant search inside a write transaction takes the kept dictionary with what the transaction
    /// changed so far through the sync layer (the vocabulary is not read), and a rollback leaves the kept one as it was.
    func testSearchesInsideAWriteTransactionTakeItsChanges() throws {
        var rng = SplitMix(seed: 0x7A11)
        let database = try corpus(&rng)
        _ = try searched(database)
        struct Boom: Error {}
        XCTAssertThrowsError(try database.run(transaction: {
            try database.insert(objects: Article(500, "hypersonic", "cascade stream"), intoTable: "articles")
            try database.update(table: "articles", on: Article.Properties.title, with: Article(nil, "aerosol", ""),
                                where: Article.Properties.id == 3)
            let (kept, reread) = try searched(database)
            XCTAssertFalse(reread, "a search in the transaction read the vocabulary")
            assertSame(kept, try fresh(database), words: ["hypersonc", "aerosl", "cascad"], "inside the transaction")
            let found = try database.search("hypersonc", in: "articles_fts", of: Article.self)
            XCTAssertEqual(found.hits.map(\.rowid), [500])
            throw Boom()
        }))
        let (kept, reread) = try searched(database)
        XCTAssertFalse(reread, "the rollback left the kept dictionary")
        assertSame(kept, try fresh(database), words: ["hypersonc", "aerosl", "cascad"], "after the rollback")
        XCTAssertTrue(try database.search("hypersonc", in: "articles_fts", of: Article.self).hits.isEmpty)
    }

    /// Batches large enough to be counted on a worker thread (`TermDictionaryStore.Writer.overlappedRows`), indexed
    /// row by row (under the bulk threshold): completed alone and inside a transaction, failed at their last row alone
    /// and inside a transaction that commits what it wrote around them. After each, the dictionary kept in memory and
    /// the one stored beside the index are the vocabulary's.
    func testLargeBatchesCountedOnAWorkerThread() throws {
        var rng = SplitMix(seed: 0xB47C)
        let database = try corpus(&rng)
        database.fullTextBulkThreshold = 100_000
        settings(database).dictionaryFoldRows.withLock { $0 = 3 }
        try database.optimize(index: "articles_fts")  // the corpus's bulk load left the stored dictionary stale
        _ = try searched(database)
        let rows = TermDictionaryStore.Writer.overlappedRows + 100
        var next = 10_000
        func batch(failing: Bool) -> [Article] {
            var articles = (0..<rows).map { _ in
                next += 1
                return Article(next, Self.text(&rng, words: 2), Self.text(&rng, words: 5) + " w\(next % 3_000)")
            }
            if failing, let first = articles.first { articles.append(Article(first.id ?? 0, "again", "again")) }
            return articles
        }
        func check(_ step: String) throws {
            let (kept, reread) = try searched(database)
            XCTAssertFalse(reread, "\(step): the batch went through the sync layer, the dictionary is kept")
            let expected = try fresh(database)
            assertSame(kept, expected, words: ["turbin", "w12"], step)
            guard let stored = try database.read({ try TermDictionaryStore.load("articles_fts", on: $0) }) else {
                return XCTFail("\(step): the stored dictionary is stale")
            }
            assertSame(stored, expected, words: ["turbin"], step + ", stored")
        }
        try database.insert(objects: batch(failing: false), intoTable: "articles")
        try check("a batch")
        XCTAssertThrowsError(try database.insert(objects: batch(failing: true), intoTable: "articles"))
        try check("a failed batch")
        try database.run(transaction: {
            try database.insertOrReplace(objects: [Article(1, "replaced", "before")], intoTable: "articles")
            try database.insert(objects: batch(failing: false), intoTable: "articles")
            XCTAssertThrowsError(try database.insert(objects: batch(failing: true), intoTable: "articles"))
            try database.delete(fromTable: "articles", where: Article.Properties.id == 2)
        })
        try check("batches inside a transaction")
        XCTAssertTrue(try database.verify(index: "articles_fts").isConsistent)
    }

    /// A savepoint left open when its transaction commits ends with it: a later `ROLLBACK TO` its name fails and
    /// undoes nothing, and the kept dictionary keeps every change of the transaction the statement failed in.
    func testASavepointEndsWithItsTransaction() throws {
        var rng = SplitMix(seed: 0x5A7E)
        let database = try corpus(&rng)
        _ = try searched(database)
        try database.run(transaction: { try database.exec(sql: "SAVEPOINT early") })  // committed with it open
        try database.run(transaction: {
            try database.insert(objects: [Article(700, "hypersonic", "cascade")], intoTable: "articles")
            XCTAssertThrowsError(try database.exec(sql: "ROLLBACK TO early"), "no such savepoint")
            try database.insert(objects: [Article(701, "aerosol", "streamline")], intoTable: "articles")
        })
        let (kept, reread) = try searched(database)
        XCTAssertFalse(reread, "the writes went through the sync layer, the dictionary is kept")
        assertSame(kept, try fresh(database), words: ["hypersonc", "aerosl", "streamlin"], "after a failed ROLLBACK TO")
    }

    /// A run of writes with no typo-tolerant search between them: each commit adds its changes to the kept entry
    /// (nothing is applied or merged at commit), and the first search after the run takes them all, as a fresh
    /// dictionary would answer, without reading the vocabulary.
    func testARunOfWritesIsAppliedByTheNextSearch() throws {
        var rng = SplitMix(seed: 0xC0FFEE)
        let database = try corpus(&rng)
        _ = try searched(database)
        for id in 1_000..<1_400 {
            // New words (not of the corpus's spellings) on top of related ones: well over a merge's worth of changes.
            let fresh = "q\(id)x\(rng.next() % 1_000)"
            try database.insert(objects: [Article(id, fresh, Self.text(&rng, words: 3))], intoTable: "articles")
        }
        let pending = settings(database).termDictionaries.withLock { $0["articles_fts"]?.changes.count ?? 0 }
        XCTAssertGreaterThan(pending, TermDictionary.minimumMergeThreshold, "the commits kept their changes for the search")
        let (kept, reread) = try searched(database)
        XCTAssertFalse(reread, "a run of sync-layer writes made the search read the vocabulary")
        assertSame(kept, try fresh(database), words: ["q1200x", "aerosl", "cascad"], "after a run of writes")
        XCTAssertEqual(settings(database).termDictionaries.withLock { $0["articles_fts"]?.changes.count }, 0)
    }

    func testChangesBesideTheBaseAndMergedAnswerAsAFreshDictionary() {
        var rng = SplitMix(seed: 77)
        var counts: [String: Int64] = [:]
        for _ in 0..<300 { counts[Self.word(&rng), default: 0] += Int64(1 + rng.next() % 5) }
        var dictionary = TermDictionary(terms: counts.map { ($0.key, $0.value) })
        for round in 0..<40 {
            var changes: [String: Int64] = [:]
            for _ in 0..<Int(1 + rng.next() % 12) {
                let term = rng.next() % 3 == 0 ? counts.keys.randomElement(using: &rng) ?? "x" : Self.word(&rng)
                let now = counts[term] ?? 0
                let change = rng.next() % 2 == 0 ? -Int64(rng.next() % UInt64(now + 1)) : Int64(1 + rng.next() % 3)
                guard change != 0 else { continue }
                changes[term, default: 0] += change
                counts[term] = now + change == 0 ? nil : now + change
            }
            let bytes = Dictionary(uniqueKeysWithValues: changes.map { (Array($0.key.utf8), $0.value) })
            guard let applied = dictionary.applying(bytes, mergeThreshold: round % 2 == 0 ? 8 : 1_000) else {
                return XCTFail("round \(round): changes that follow from the counts are applied")
            }
            dictionary = applied
            assertSame(dictionary, TermDictionary(terms: counts.map { ($0.key, $0.value) }),
                       words: [Self.word(&rng), Self.word(&rng)], "round \(round)")
        }
        XCTAssertNil(dictionary.applying([Array("zzzz".utf8): -1]), "a count below zero means the changes do not follow from the dictionary")
    }
}

