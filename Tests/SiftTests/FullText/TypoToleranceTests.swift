import Foundation
import XCTest
@testable import Sift

/// The edit automaton and the term dictionary's walk against brute-force Damerau-Levenshtein (optimal string
/// alignment) distances, Meilisearch's typo budget, and typo-tolerant searches.
final class TypoToleranceTests: SiftTestCase {
    /// The optimal string alignment distance, by the full dynamic program.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }

    /// Small alphabets of several scripts, so random words often come within a few edits of each other.
    static let alphabets: [[Unicode.Scalar]] = [
        "abcdeo", "αβγδεη", "абвгдо", "aéèêàç", "中文日本語", "😀😃🚀🎉", "aαа中😀é",
    ].map { Array($0.unicodeScalars) }

    /// A random word of `length` scalars from one alphabet.
    static func word(_ length: Int, _ alphabet: [Unicode.Scalar], _ rng: inout SplitMix) -> [Unicode.Scalar] {
        (0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
    }

    /// `word` after up to `edits` random insertions, deletions, substitutions and transpositions.
    static func mutated(_ word: [Unicode.Scalar], _ edits: Int, _ alphabet: [Unicode.Scalar], _ rng: inout SplitMix) -> [Unicode.Scalar] {
        var word = word
        for _ in 0..<edits {
            let at = word.isEmpty ? 0 : Int(rng.next() % UInt64(word.count))
            let letter = alphabet[Int(rng.next() % UInt64(alphabet.count))]
            switch rng.next() % 4 {
            case 0: word.insert(letter, at: at)
            case 1: if !word.isEmpty { word.remove(at: at) }
            case 2: if !word.isEmpty { word[at] = letter }
            default: if at + 1 < word.count { word.swapAt(at, at + 1) }
            }
        }
        return word
    }

    func testAutomatonAgreesWithTheDistanceOnRandomWords() {
        var rng = SplitMix(seed: 20261126)
        var within = 0
        for round in 0..<3_000 {
            let alphabet = Self.alphabets[round % Self.alphabets.count]
            // Lengths around the thresholds: 3-10 scalars.
            let word = Self.word(3 + round % 8, alphabet, &rng)
            let text = round % 3 == 0 ? Self.word(3 + Int(rng.next() % 8), alphabet, &rng) : Self.mutated(word, Int(rng.next() % 4), alphabet, &rng)
            let maxEdits = round % 3
            let automaton = EditAutomaton(word, maxEdits: maxEdits)
            let exact = Self.distance(word, text)
            XCTAssertEqual(automaton.distance(automaton.state(after: text)), exact <= maxEdits ? exact : nil,
                           "\(String(String.UnicodeScalarView(word))) / \(String(String.UnicodeScalarView(text)))")
            if exact <= maxEdits { within += 1 }
            // After each prefix of the text: whether some continuation can still come within the budget.
            var state = automaton.start
            for (i, scalar) in text.enumerated() {
                state = automaton.step(state, scalar)
                let prefix = Array(text[...i])
                let best = (0...word.count).map { Self.distance(prefix, Array(word[..<$0])) }.min() ?? 0
                XCTAssertEqual(automaton.canMatch(state), best <= maxEdits)
            }
        }
        XCTAssertGreaterThan(within, 1_000, "most pairs are near ones")
    }

    /// A random vocabulary: mutations of a few roots (shared prefixes, near duplicates) in several scripts.
    private func vocabulary(_ rng: inout SplitMix, roots: Int) -> [[Unicode.Scalar]] {
        var terms: [[Unicode.Scalar]] = []
        for root in 0..<roots {
            let alphabet = Self.alphabets[root % Self.alphabets.count]
            let word = Self.word(3 + root % 8, alphabet, &rng)
            for _ in 0..<20 { terms.append(Self.mutated(word, Int(rng.next() % 4), alphabet, &rng)) }
        }
        return terms.filter { !$0.isEmpty }
    }

    func testDictionaryWalkFindsExactlyTheTermsWithinTheBudget() {
        var rng = SplitMix(seed: 42)
        let terms = vocabulary(&rng, roots: 40)
        let dictionary = TermDictionary(terms: terms.enumerated().map { (String(String.UnicodeScalarView($0.element)), Int64($0.offset)) })
        let sorted = (0..<dictionary.count).map { Array(dictionary.term($0)) }
        XCTAssertEqual(sorted, Array(Set(terms)).sorted { $0.lexicographicallyPrecedes($1) { $0.value < $1.value } })
        XCTAssertEqual(sorted.map(dictionary.rows(of:)), (0..<dictionary.count).map(dictionary.rows(at:)))
        XCTAssertEqual(dictionary.rows(of: Array("zzzz".unicodeScalars)), 0)
        XCTAssertEqual(dictionary.maxRows(beginningWith: Array(sorted[0].prefix(1))),
                       sorted.indices.filter { sorted[$0].first == sorted[0].first }.map(dictionary.rows(at:)).max())
        for round in 0..<60 {
            let word = round % 2 == 0 ? terms[Int(rng.next() % UInt64(terms.count))]
                : Self.mutated(terms[Int(rng.next() % UInt64(terms.count))], 2, Self.alphabets[round % Self.alphabets.count], &rng)
            guard !word.isEmpty else { continue }
            let distances = sorted.map { Self.distance(word, $0) }
            for maxEdits in 0...2 {
                for firstLetterCostsTwo in [true, false] {
                    let automaton = EditAutomaton(word, maxEdits: maxEdits)
                    let found = dictionary.matches(automaton, firstLetterCostsTwo: firstLetterCostsTwo)
                    let expected = sorted.indices.compactMap { i -> TermDictionary.Match? in
                        let cost = distances[i] + (firstLetterCostsTwo && sorted[i].first != word.first ? 1 : 0)
                        return cost <= maxEdits ? TermDictionary.Match(term: i, edits: cost) : nil
                    }
                    XCTAssertEqual(found, expected, "\(String(String.UnicodeScalarView(word))) within \(maxEdits)")
                }
            }
        }
    }

    func testAlignedWalkFindsTheTermsWithinTheBudgetOfEachCut() {
        var rng = SplitMix(seed: 7)
        let terms = vocabulary(&rng, roots: 30)
        let dictionary = TermDictionary(terms: terms.map { (String(String.UnicodeScalarView($0)), 1) })
        let sorted = (0..<dictionary.count).map { Array(dictionary.term($0)) }
        for round in 0..<40 {
            let word = Self.mutated(terms[Int(rng.next() % UInt64(terms.count))] + Self.word(round % 4, Self.alphabets[0], &rng), 1,
                                    Self.alphabets[round % Self.alphabets.count], &rng)
            guard !word.isEmpty else { continue }
            for maxEdits in 0...2 {
                for tail in [0, 2, 6] {
                    let automaton = EditAutomaton(word, maxEdits: maxEdits)
                    let found = dictionary.alignedMatches(automaton, tail: tail)
                    let cuts = max(1, word.count - tail)...word.count
                    let expected = sorted.indices.flatMap { i in
                        cuts.compactMap { cut -> TermDictionary.AlignedMatch? in
                            let cost = Self.distance(Array(word[..<cut]), sorted[i]) + (sorted[i].first != word.first ? 1 : 0)
                            return cost <= maxEdits ? TermDictionary.AlignedMatch(term: i, cut: cut, edits: cost) : nil
                        }
                    }
                    XCTAssertEqual(found, expected, "\(String(String.UnicodeScalarView(word))) within \(maxEdits), tail \(tail)")
                }
            }
        }
    }

    func testPrefixWalkCoversTheTermsBeginningWithinTheBudget() {
        var rng = SplitMix(seed: 7)
        let dictionary = TermDictionary(terms: vocabulary(&rng, roots: 20).map { (String(String.UnicodeScalarView($0)), 1) })
        let terms = (0..<dictionary.count).map { Array(dictionary.term($0)) }
        for round in 0..<40 {
            let term = terms[Int(rng.next() % UInt64(terms.count))]
            let typed = Self.mutated(Array(term.prefix(2 + round % 6)), round % 3, Self.alphabets[round % Self.alphabets.count], &rng)
            guard !typed.isEmpty else { continue }
            // The cost of each prefix of each term (first letter counting two).
            let costs = terms.map { term in
                (0...term.count).map { Self.distance(typed, Array(term[..<$0])) + ($0 > 0 && term[0] != typed[0] ? 1 : 0) }
            }
            for maxEdits in 1...2 {
                let automaton = EditAutomaton(typed, maxEdits: maxEdits)
                let found = dictionary.prefixMatches(automaton)
                func qualifies(_ term: [Unicode.Scalar], _ length: Int, _ cost: Int) -> Bool {
                    let prefix = Array(term[..<length])
                    return length > 0 && cost <= maxEdits && !typed.starts(with: prefix) && !prefix.starts(with: typed)
                }
                for match in found {
                    let cost = Self.distance(typed, match.prefix) + (match.prefix[0] != typed[0] ? 1 : 0)
                    XCTAssertEqual(match.edits, cost)
                    XCTAssertFalse((1..<match.prefix.count).contains {
                        let shorter = Array(match.prefix[..<$0])
                        return qualifies(shorter, $0, Self.distance(typed, shorter) + (shorter[0] != typed[0] ? 1 : 0))
                    }, "the shortest prefix")
                }
                for (term, cost) in zip(terms, costs) {
                    let covered = found.contains { term.starts(with: $0.prefix) }
                    let expected = (1...term.count).contains { qualifies(term, $0, cost[$0]) }
                    XCTAssertEqual(covered, expected, "\(String(String.UnicodeScalarView(term))) for \(String(String.UnicodeScalarView(typed)))")
                }
            }
        }
    }

    func testBudgetFollowsMeilisearchsDefaults() {
        let tolerance = TypoTolerance.default
        XCTAssertEqual(["flow", "wings", "aircraft", "aeroelast", "théâtre", "ΑΘΗΝΑ", "москва"].map(tolerance.maxTypos(for:)),
                       [0, 1, 1, 2, 1, 1, 1])
        XCTAssertEqual(tolerance.maxTypos(for: "the\u{301}a\u{300}tre"), 1, "composed: 7 scalars, not 9")
        XCTAssertEqual(["北京大学北京大学北京", "ひらがなひらがな", "カタカナカタカナ", "한국어한국어한국어"].map(tolerance.maxTypos(for:)), [0, 0, 0, 0])
        XCTAssertEqual(TypoTolerance.off.maxTypos(for: "aeroelasticity"), 0)
        XCTAssertTrue(TypoTolerance.off.isOff)
        var strict = TypoTolerance.default
        strict.twoTypoLength = 12
        XCTAssertEqual(strict.maxTypos(for: "aeroelastic"), 1)
        // A word the index does not hold: Lucene's similarity; one it holds: the noisy-channel ratio, at most that.
        XCTAssertEqual(tolerance.variantWeight(edits: 1, length: 5, variantRows: 40, wordRows: 0), 0.8, accuracy: 1e-12)
        XCTAssertEqual(tolerance.variantWeight(edits: 2, length: 10, variantRows: 40, wordRows: 0), 0.8, accuracy: 1e-12)
        XCTAssertEqual(tolerance.variantWeight(edits: 1, length: 10, variantRows: 300, wordRows: 200), 0.075, accuracy: 1e-12)
        XCTAssertEqual(tolerance.variantWeight(edits: 2, length: 10, variantRows: 300, wordRows: 200), 0.00375, accuracy: 1e-12)
        XCTAssertEqual(tolerance.variantWeight(edits: 1, length: 10, variantRows: 300, wordRows: 1), 0.9, accuracy: 1e-12)
        XCTAssertEqual(tolerance.variantWeight(edits: 0, length: 5, variantRows: 1, wordRows: 1), 1)
    }

    private func corpus() throws -> Database {
        let database = makeDatabase()
        try database.create(table: "articles", of: Article.self)
        try database.create(virtualTable: "articles_fts", of: ArticleIndex.self, syncedWith: "articles")
        try database.insert(objects: [
            Article(1, "Aeroelastic models", "flutter of wings at high speed", views: 1),
            Article(2, "Heat transfer", "flatter plates in a supersonic stream", views: 1),
            Article(3, "Structural problems", "aeroelastic flutter of panels", views: 1),
            Article(4, "北京大学", "中文 文本", views: 1),
        ], intoTable: "articles")
        return database
    }

    private func ids(_ database: Database, _ query: SearchQuery, _ tolerance: TypoTolerance) throws -> [Int] {
        let results: SearchResults<Article> = try database.search(query, in: "articles_fts", options: SearchOptions(typoTolerance: tolerance))
        return results.hits.compactMap(\.object.id)
    }

    func testMisspelledWordsFindTheirVariants() throws {
        let database = try corpus()
        XCTAssertEqual(try ids(database, SearchQuery("aeroelastc"), .off), [])
        XCTAssertEqual(Set(try ids(database, SearchQuery("aeroelastc"), .default)), [1, 3])
        XCTAssertEqual(Set(try ids(database, SearchQuery("aeroleastic fluttre"), .default)), [1, 3],
                       "transpositions; fluttre is one edit from flutter, two from flatter (7 letters forgive one)")
        XCTAssertEqual(try database.expression(for: SearchQuery("aeroelastc"), in: "articles_fts", typoTolerance: .default),
                       "((\"aeroelastc\" OR \"aeroelastic\"))")
        XCTAssertEqual(try database.expression(for: SearchQuery("aeroelastc flutter"), in: "articles_fts", typoTolerance: .default),
                       "((\"aeroelastc\" OR \"aeroelastic\") AND (\"flutter\" OR \"flatter\"))")
        let marked: SearchResults<Article> = try database.search(SearchQuery("aeroelastc"), in: "articles_fts",
                                                                 options: SearchOptions(highlight: ["title"], typoTolerance: .default))
        XCTAssertEqual(marked.hits.first { $0.object.id == 1 }?.highlights["title"], "[Aeroelastic] models", "corrected words are marked")
        // Four letters: no typo; a typo on the first letter counts two.
        XCTAssertEqual(try ids(database, SearchQuery("wngs"), .default), [])
        XCTAssertEqual(try ids(database, SearchQuery("wingz"), .default), [1])
        XCTAssertEqual(try ids(database, SearchQuery("glutter"), .default), [], "first letter: two typos in 7 letters")
        XCTAssertEqual(Set(try ids(database, SearchQuery("flutterr", mode: .anyTerm), .default)), [1, 3])
        // CJK is never corrected; phrases are searched as typed.
        XCTAssertEqual(try database.expression(for: SearchQuery("北京大字"), in: "articles_fts", typoTolerance: .default), "(\"北京大字\")")
        XCTAssertEqual(try ids(database, SearchQuery("aeroelastc flutter", mode: .phrase), .default), [])
    }

    func testExactWordsOutrankCorrectedOnes() throws {
        let database = try corpus()
        // "flutter" as typed is in 1 and 3; "flatter" (one edit) only in 2.
        let found = try ids(database, SearchQuery("flutter", mode: .anyTerm), .default)
        XCTAssertEqual(Set(found), [1, 2, 3])
        XCTAssertEqual(found.last, 2)
        for ranking in [Ranking.bm25f(), .inB2()] {
            let results: SearchResults<Article> = try database.search(SearchQuery("flatter"), in: "articles_fts",
                                                                      options: SearchOptions(ranking: ranking, typoTolerance: .default))
            XCTAssertEqual(results.hits.first?.object.id, 2, "\(ranking): the word as typed first")
        }
    }

    func testVariantsFarLessLikelyThanTheWordAsTypedAreNotSearched() throws {
        let database = try corpus()
        // "flutter" in 2 rows, "flatter" in 1: the variant weighs 0.05 * 1/2 = 0.025, searched.
        XCTAssertEqual(try database.expression(for: SearchQuery("flutter"), in: "articles_fts", typoTolerance: .default),
                       "((\"flutter\" OR \"flatter\"))")
        // "flutter" in 7 rows: 0.05 * 1/7 < 0.01, the word alone; with a lower floor the variant again.
        try database.insert(objects: (10..<15).map { Article($0, "Flutter", "wing flutter", views: 1) }, intoTable: "articles")
        XCTAssertEqual(try database.expression(for: SearchQuery("flutter"), in: "articles_fts", typoTolerance: .default), "(\"flutter\")")
        var lower = TypoTolerance.default
        lower.minimumWeight = 0.001
        XCTAssertEqual(try database.expression(for: SearchQuery("flutter"), in: "articles_fts", typoTolerance: lower),
                       "((\"flutter\" OR \"flatter\"))")
        // A word the index does not hold keeps its variants at full similarity.
        XCTAssertEqual(try database.expression(for: SearchQuery("fluttr"), in: "articles_fts", typoTolerance: .default),
                       "((\"fluttr\" OR \"flutter\"))")
    }

    func testTheWordAsTypedScoresAsWithoutTypoTolerance() throws {
        let database = try corpus()
        // "flatter" (one row) has a more frequent variant, "flutter" (two rows): only the variant takes its counts.
        for ranking in [Ranking.bm25f(), .inB2()] {
            func score(_ tolerance: TypoTolerance) throws -> Double? {
                let results: SearchResults<Article> = try database.search(SearchQuery("flatter"), in: "articles_fts",
                                                                          options: SearchOptions(ranking: ranking, typoTolerance: tolerance))
                return results.hits.first { $0.object.id == 2 }?.score
            }
            let exact = try XCTUnwrap(try score(.off))
            XCTAssertEqual(try XCTUnwrap(try score(.default)), exact, accuracy: 1e-9, "\(ranking)")
        }
    }

    func testPrefixSearchForgivesTyposInTheTypedPart() throws {
        let database = try corpus()
        try database.insert(objects: [Article(7, "Search engines", "an inverted index", views: 1)], intoTable: "articles")
        XCTAssertEqual(try ids(database, SearchQuery("serch eng", mode: .prefix), .off), [])
        XCTAssertEqual(try ids(database, SearchQuery("serch eng", mode: .prefix), .default), [7], "search as you type, a typo in a word")
        XCTAssertEqual(try ids(database, SearchQuery("search engnes", mode: .prefix), .default), [7], "and in the typed part")
        XCTAssertEqual(try ids(database, SearchQuery("aerelas", mode: .prefix), .off), [])
        XCTAssertEqual(Set(try ids(database, SearchQuery("aerelas", mode: .prefix), .default)), [1, 3])
        XCTAssertEqual(Set(try ids(database, SearchQuery("aeroelas", mode: .prefix), .default)), [1, 3])
    }

    func testTyposThatChangeTheStemFindTheWordMeant() throws {
        let database = makeDatabase()
        try database.create(virtualTable: "notes", of: Note.self)  // porter unicode61: a stemming tokenizer
        try database.insert(objects: [Note("training of pilots", "a"), Note("heated plates", "b"), Note("trains and planes", "c"),
                                      Note("making tools", "d")], intoTable: "notes")
        func tags(_ text: String, _ tolerance: TypoTolerance) throws -> Set<String> {
            let results: SearchResults<Note> = try database.search(SearchQuery(text), in: "notes", options: SearchOptions(typoTolerance: tolerance))
            return Set(results.hits.map(\.object.tag))
        }
        // "traning" stems to "trane", two edits from "train": found through "training", one edit from it as typed.
        XCTAssertEqual(try tags("traning", .off), [])
        XCTAssertEqual(try tags("traning", .default), ["a", "c"])
        // "heatfd" is its own stem; "heated", one edit away as typed, stems to "heat".
        XCTAssertEqual(try tags("heatfd", .default), ["b"])
        // "makng" stems to itself; "making" (one insertion) stems to "make".
        XCTAssertEqual(try tags("makng tools", .default), ["d"])
        // A word spelled right finds what it finds without typo tolerance ("trains" and "training" stem alike).
        XCTAssertEqual(try tags("trains", .default), try tags("trains", .off))
        let plates: SearchResults<Note> = try database.search(SearchQuery("plates"), in: "notes", options: SearchOptions(typoTolerance: .default))
        XCTAssertEqual(plates.hits.map(\.object.tag), ["b", "c"], "the word as typed first, then planes (one edit)")
    }

    func testWhichTokenizersMayStem() {
        XCTAssertFalse(FTSTableInfo.mayStem(["unicode61", "remove_diacritics", "2"]))
        XCTAssertFalse(FTSTableInfo.mayStem(["trigram"]))
        XCTAssertFalse(FTSTableInfo.mayStem([]), "FTS5's default, unicode61")
        XCTAssertTrue(FTSTableInfo.mayStem(["porter", "unicode61"]))
        XCTAssertFalse(FTSTableInfo.mayStem(["sift_icu"]), "no stemmer unless declared")
        XCTAssertTrue(FTSTableInfo.mayStem(["sift_icu", "cjk", "words", "stem", "en"]))
        XCTAssertFalse(FTSTableInfo.mayStem(["sift_icu", "stem", "en", "stem", "none"]), "the last stem option counts")
        XCTAssertFalse(FTSTableInfo.mayStem(["sift_icu", "cjk", "stem"]), "an option name is not a value")
        XCTAssertTrue(FTSTableInfo.mayStem(["my_tokenizer"]), "a tokenizer Sift does not know may stem")
    }

    func testDictionaryFollowsChangesToTheIndex() throws {
        let database = try corpus()
        XCTAssertEqual(try ids(database, SearchQuery("turbulance"), .default), [])
        try database.insert(objects: [Article(5, "Turbulence", "in boundary layers", views: 1)], intoTable: "articles")
        XCTAssertEqual(try ids(database, SearchQuery("turbulance"), .default), [5], "the new term is found after the write")
        try database.run(transaction: {
            try database.insert(objects: [Article(6, "Vortices", "vortex shedding", views: 1)], intoTable: "articles")
            XCTAssertEqual(try ids(database, SearchQuery("vorticez"), .default), [6], "inside the write transaction too")
        })
    }
}
