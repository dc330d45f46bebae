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
        let cache = pool.attachment(FullTextSettings.init).termDictionaries
        return { word, isPrefix in
            let budget = tolerance.maxTypos(for: word)
            guard budget > 0, tolerance.maxVariants > 0, let token = try tokenizer.queryToken(of: word, prefix: isPrefix) else { return [] }
            let length = word.lowercased().precomposedStringWithCanonicalMapping.unicodeScalars.count
            let dictionary = try TermDictionary.of(info.name, cache: cache, on: handle)
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
                candidates = dictionary.matches(automaton, firstLetterCostsTwo: tolerance.firstLetterCostsTwo)
                    .filter { $0.edits > 0 }
                    .map { (dictionary.text($0.term), $0.edits, dictionary.rows[$0.term]) }
            }
            candidates.sort { ($0.edits, -$0.rows, $0.text) < ($1.edits, -$1.rows, $1.text) }
            var variants: [TypoVariant] = []
            for candidate in candidates where variants.count < tolerance.maxVariants {
                guard try tokenizer.queryToken(of: candidate.text, prefix: isPrefix) == candidate.text else { continue }
                variants.append(TypoVariant(term: isPrefix ? .prefix(candidate.text) : .string(candidate.text),
                                            weight: tolerance.variantWeight(edits: candidate.edits, length: length,
                                                                            variantRows: candidate.rows, wordRows: wordRows)))
            }
            return variants
        }
    }
}
