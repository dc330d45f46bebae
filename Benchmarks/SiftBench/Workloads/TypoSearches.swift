import Foundation
import Sift

/// The typo-tolerant searches of `sift-bench scale`: the Zipf word pairs as generated and misspelled (one edit in
/// each word of five letters or more, never on the first letter), searched with `SearchOptions.typoTolerance` and
/// without, in the same run; each typo-tolerant result checked against FTS5's own plan (the same search with a
/// condition on the rows, which never prunes).
extension ScaleCommand {
    /// `word` with one edit, not on its first letter: a letter replaced, dropped, added or swapped with the next.
    static func misspelled(_ word: String, _ rng: inout SeededGenerator) -> String {
        var letters = Array(word.unicodeScalars)
        guard letters.count >= 5 else { return word }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz".unicodeScalars)
        let at = 1 + rng.below(letters.count - 1)
        switch rng.below(4) {
        case 0:
            var letter = alphabet[rng.below(alphabet.count)]
            while letter == letters[at] { letter = alphabet[rng.below(alphabet.count)] }
            letters[at] = letter
        case 1: letters.remove(at: at)
        case 2: letters.insert(alphabet[rng.below(alphabet.count)], at: at)
        default:
            if at + 1 < letters.count, letters[at] != letters[at + 1] { letters.swapAt(at, at + 1) } else { letters.remove(at: at) }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: letters)
        return text
    }

    func typoPhase(_ corpus: ScaleCorpus, directory: String) throws {
        let database = Database(withPath: directory + "/sift.sqlite")
        let clean = corpus.queries(.zipfAll, count: queries)
        var rng = SeededGenerator(seed: 0x7E57)
        let misspelled = clean.map { $0.split(separator: " ").map { Self.misspelled(String($0), &rng) }.joined(separator: " ") }
        let exact = SearchOptions(limit: 20, ranking: ranking.value, typoTolerance: .off)
        var tolerant = exact
        tolerant.typoTolerance = .default

        // The first typo-tolerant search reads the index's term dictionary (stored beside it; FTS5's vocabulary when
        // it is stale), kept in memory after.
        var start = DispatchTime.now().uptimeNanoseconds
        _ = try database.search(SearchQuery(misspelled[0]), in: "fts", of: Doc.self, options: tolerant)
        let first = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6

        print("")
        print("| top 20 of \(corpus.count) docs, two Zipf words, \(ranking.value), ms | p50 / p90 / p99 | FTS5's plan p50 / p90 / p99 "
              + "| same as FTS5's plan | words with variants | variants a word (mean) |")
        print("|---|---|---|---|---|---|")
        var lookups: [Double] = []
        let rows: [(String, [String], SearchQuery.Mode, SearchOptions)] = [
            ("all terms, as generated, typos off", clean, .allTerms, exact),
            ("all terms, as generated, typos on", clean, .allTerms, tolerant),
            ("all terms, misspelled, typos off", misspelled, .allTerms, exact),
            ("all terms, misspelled, typos on", misspelled, .allTerms, tolerant),
            ("any term, misspelled, typos on", misspelled, .anyTerm, tolerant),
        ]
        for (label, texts, mode, options) in rows {
            var times: [Double] = [], references: [Double] = [], slowest: [(Double, String, Int?)] = []
            var same = 0, corrected = 0, words = 0, variants = 0
            for text in texts {
                let query = SearchQuery(text, mode: mode)
                start = DispatchTime.now().uptimeNanoseconds
                let results = try database.search(query, in: "fts", of: Doc.self, options: options)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                slowest = Array((slowest + [(times[times.count - 1], text, results.totalCount)]).sorted { $0.0 > $1.0 }.prefix(3))
                guard !options.typoTolerance.isOff else { continue }
                // The time to find the words' variants: the expression with typo tolerance, less the one without.
                start = DispatchTime.now().uptimeNanoseconds
                let expression = try database.expression(for: query, in: "fts", ranking: options.ranking,
                                                         typoTolerance: options.typoTolerance) ?? ""
                let with = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3
                start = DispatchTime.now().uptimeNanoseconds
                _ = try database.expression(for: query, in: "fts", ranking: options.ranking, typoTolerance: .off)
                let without = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3
                let count = text.split(separator: " ").count
                lookups.append(max(0, with - without) / Double(count))
                words += count
                // Each group is "(word OR variant ...)": its variants are its ORs.
                for group in expression.components(separatedBy: ") AND (") where group.contains(" OR ") {
                    corrected += 1
                    variants += group.components(separatedBy: " OR ").count - 1
                }
                if siftOnly { continue }
                start = DispatchTime.now().uptimeNanoseconds
                let reference = try database.search(query, in: "fts", of: Doc.self, where: Column(named: "id").isNotNull(),
                                                    options: options)
                references.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                let equal = results.hits.count == reference.hits.count
                    && zip(results.hits, reference.hits).allSatisfy { close($0.score, $1.score) }
                if equal { same += 1 } else {
                    printError("  NOT THE SAME: \(label) '\(text)': \(results.hits.prefix(3).map { "\($0.rowid):\($0.score)" }) vs "
                               + "\(reference.hits.prefix(3).map { "\($0.rowid):\($0.score)" })")
                }
            }
            // The slowest searches of the row, with what they ran, to tell where the tail's time goes.
            for (time, text, total) in slowest {
                let expression = try database.expression(for: SearchQuery(text, mode: mode), in: "fts", ranking: options.ranking,
                                                         typoTolerance: options.typoTolerance) ?? ""
                printError(String(format: "  slowest of '%@': '%@', %.1f ms, %@ hits: %@", label, text, time,
                                  total.map(String.init) ?? "?", expression))
            }
            let off = options.typoTolerance.isOff
            let reference: String = off || siftOnly ? "-" : percentiles(references)
            let checked: String = off || siftOnly ? "-" : "\(same)/\(texts.count)"
            let found: String = off ? "-" : "\(corrected)/\(words)"
            let mean: String = off ? "-" : String(format: "%.1f", Double(variants) / Double(max(1, corrected)))
            print("| \(label) | \(percentiles(times)) | \(reference) | \(checked) | \(found) | \(mean) |")
        }
        let sorted = lookups.sorted()
        print("")
        let mean = lookups.reduce(0, +) / Double(max(1, lookups.count))
        let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(0.99 * Double(sorted.count)))]
        print(String(format: "Finding a word's variants (automaton walk over the vocabulary, stem checks): mean %.0f us, "
                     + "p99 %.0f us; the first typo-tolerant search, which reads the term dictionary: %.0f ms.", mean, p99, first))
    }
}
