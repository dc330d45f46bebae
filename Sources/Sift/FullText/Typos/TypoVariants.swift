import Foundation

/// A corrected variant of a query word: the FTS5 string (or prefix) to search and its weight relative to the
/// word as typed.
struct TypoVariant: Hashable, Sendable {
    let term: FTS5Expression
    let weight: Double

    /// Finds the variants of a word as typed; the flag says whether it is the prefix of a search as you type.
    typealias Finder = (String, Bool) throws -> [TypoVariant]
}

extension Database {
    /// The variants of a query word on the index `info` under `tolerance`: given the word as typed and whether it
    /// is the prefix of a search as you type, the index's terms (or term prefixes) within its typo budget of the
    /// word's token, the fewest edits and then the most frequent first, at most `tolerance.maxVariants`. The word's
    /// own token is not among them, nor a term a query would not find as written (a stemmer's form that stems
    /// again to something else). None for a word without exactly one token, or within no budget.
    func typoVariants(_ info: FTSTableInfo, _ tokenizer: TokenizerInstance, _ tolerance: TypoTolerance,
                      on handle: Handle) -> TypoVariant.Finder {
        let settings = pool.attachment(FullTextSettings.init)
        return { word, isPrefix in
            let budget = tolerance.maxTypos(for: word)
            guard budget > 0, tolerance.maxVariants > 0, let token = try tokenizer.queryToken(of: word, prefix: isPrefix),
                  token.unicodeScalars.count <= Database.longestCorrectedWord else { return [] }
            let length = word.lowercased().precomposedStringWithCanonicalMapping.unicodeScalars.count
            let dictionary = try TermDictionary.of(info.name, in: settings, on: handle)
            let scalars = Array(token.unicodeScalars)
            let automaton = EditAutomaton(scalars, maxEdits: budget)
            let wordRows = isPrefix ? dictionary.maxRows(beginningWith: scalars) : dictionary.rows(of: scalars)
            var candidates: [(text: String, edits: Int, rows: Int64)]
            if isPrefix {
                candidates = dictionary.prefixMatches(automaton, firstLetterCostsTwo: tolerance.firstLetterCostsTwo).map {
                    var text = ""
                    text.unicodeScalars.append(contentsOf: $0.prefix)
                    return (text, $0.edits, $0.rows)
                }
            } else {
                candidates = try Database.correctedTerms(of: word, token: token, budget: budget, wordRows: wordRows,
                                                         info, dictionary, tokenizer, tolerance)
            }
            candidates.sort { ($0.edits, -$0.rows, $0.text) < ($1.edits, -$1.rows, $1.text) }
            var variants: [TypoVariant] = []
            for candidate in candidates where variants.count < tolerance.maxVariants {
                let weight = tolerance.variantWeight(edits: candidate.edits, length: length, variantRows: candidate.rows,
                                                     wordRows: wordRows)
                guard weight >= (tolerance.minimumWeight.isFinite ? tolerance.minimumWeight : 0),
                      try tokenizer.queryToken(of: candidate.text, prefix: isPrefix) == candidate.text else { continue }
                variants.append(TypoVariant(term: isPrefix ? .prefix(candidate.text) : .string(candidate.text), weight: weight))
            }
            return variants
        }
    }

    /// The index's terms other than `token` (the token of `word`, which `wordRows` rows hold) within `budget`
    /// typos of the word, each with its edits and rows, once each (its fewest edits), in no order: the terms
    /// within the budget of the token, and for a word the index does not hold on a tokenizer that may stem
    /// (``FTSTableInfo/tokenizerMayStem``), the stems of the words within the budget of it as typed (see
    /// `stemCorrections`). A word the index holds is nearly always spelled as meant, and its variants weigh little.
    static func correctedTerms(of word: String, token: String, budget: Int, wordRows: Int64, _ info: FTSTableInfo,
                               _ dictionary: TermDictionary, _ tokenizer: TokenizerInstance,
                               _ tolerance: TypoTolerance) throws -> [(text: String, edits: Int, rows: Int64)] {
        var candidates = dictionary.matches(EditAutomaton(Array(token.unicodeScalars), maxEdits: budget),
                                            firstLetterCostsTwo: tolerance.firstLetterCostsTwo)
            .filter { $0.edits > 0 }
            .map { (text: dictionary.text($0.term), edits: $0.edits, rows: dictionary.rows(at: $0.term)) }
        if wordRows == 0 && info.tokenizerMayStem {
            candidates += try stemCorrections(of: word, token: token, budget: budget, dictionary, tokenizer, tolerance)
        }
        return Dictionary(candidates.map { ($0.text, $0) }) { $0.edits <= $1.edits ? $0 : $1 }.map(\.value)
    }

    /// How many scalars at the end of a typed word a stemmer may remove or rewrite (English's "ational", "ization"
    /// and "ing" are within it): where a typo can make the word stem to something its intended word does not.
    static let stemmedSuffixReach = 6

    /// The terms a stemming tokenizer gives the words within `budget` typos of `word` that differ from its own
    /// `token`, when the typo changed what the stemmer removed: the edits are counted on the word as typed
    /// (folded, unstemmed), so "traning" finds "train" (the stem of "training", one edit away) though its own
    /// stem is "trane", two from "train", and "heatfd" finds "heat" ("heated") though "heatfd" is its stem.
    ///
    /// Two kinds of words are tried, each one checked by stemming it: a term followed by the word's own last
    /// scalars (the term within the budget of the word's beginning, the rest within `stemmedSuffixReach`), and
    /// the word with one typo corrected among its last `stemmedSuffixReach` scalars (the letters inserted or
    /// replaced from the index's own). With a tokenizer that does not stem, every word so found is its own token
    /// and the plain match has found it already.
    private static func stemCorrections(of word: String, token: String, budget: Int, _ dictionary: TermDictionary,
                                 _ tokenizer: TokenizerInstance, _ tolerance: TypoTolerance) throws
        -> [(text: String, edits: Int, rows: Int64)] {
        guard let surface = try tokenizer.queryToken(of: word, prefix: true) else { return [] }
        let typed = Array(surface.unicodeScalars)
        let reach = Database.stemmedSuffixReach
        var found: [(text: String, edits: Int, rows: Int64)] = []
        func stemmed(_ scalars: some Sequence<Unicode.Scalar>, edits: Int) throws {
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            guard let stem = try tokenizer.queryToken(of: text), stem != token else { return }
            let rows = dictionary.rows(of: Array(stem.unicodeScalars))
            if rows > 0 { found.append((stem, edits, rows)) }
        }
        let automaton = EditAutomaton(typed, maxEdits: budget)
        for match in dictionary.alignedMatches(automaton, tail: reach, firstLetterCostsTwo: tolerance.firstLetterCostsTwo) {
            let term = dictionary.term(match.term)
            guard match.cut < typed.count || !term.elementsEqual(token.unicodeScalars) else { continue }
            try stemmed(term + typed[match.cut...], edits: match.edits)
        }
        // One typo among the last scalars: deleted, swapped with the next, replaced or inserted.
        let start = max(0, typed.count - reach)
        let firstCosts = tolerance.firstLetterCostsTwo ? 1 : 0
        for i in start...typed.count {
            let edits = 1 + (i == 0 ? firstCosts : 0)
            guard edits <= budget else { continue }
            if i < typed.count {
                try stemmed(typed[..<i] + typed[(i + 1)...], edits: edits)
                if i + 1 < typed.count { try stemmed(typed[..<i] + [typed[i + 1], typed[i]] + typed[(i + 2)...], edits: edits) }
            }
            for letter in dictionary.alphabet {
                if i < typed.count && letter != typed[i] { try stemmed(typed[..<i] + [letter] + typed[(i + 1)...], edits: edits) }
                try stemmed(typed[..<i] + [letter] + typed[i...], edits: edits)
            }
        }
        return found
    }
}
