import Foundation

/// How many typos a search forgives in each word of the query: Meilisearch's documented defaults.
///
/// A word shorter than ``oneTypoLength`` Unicode scalars (after lower-casing and canonical composition) is
/// searched as typed; from ``oneTypoLength`` one typo is forgiven, from ``twoTypoLength`` two. A typo is an
/// inserted, deleted or replaced letter, or two adjacent letters swapped (Damerau-Levenshtein). With
/// ``firstLetterCostsTwo`` a typo on the first letter counts as two, so a word of fewer than ``twoTypoLength``
/// letters must begin as typed. Words of CJK scripts (Han, Hiragana, Katakana, Hangul) are never corrected: one
/// character there is a word or most of one.
///
/// Each word of the query then matches its indexed variants within the budget as well as itself; a corrected
/// variant weighs less than the word as typed (see ``variantWeight(edits:length:variantRows:wordRows:)``) and is
/// scored with the document frequency of its group's most frequent member, so exact matches rank first.
///
///     var options = SearchOptions()
///     options.typoTolerance = .default                 // "aeroelastc" finds "aeroelastic"
///     options.typoTolerance.twoTypoLength = 12         // two typos only from 12 letters
///     options.typoTolerance = .off                     // every word as typed
public struct TypoTolerance: Sendable, Hashable {
    /// Words of at least this many scalars forgive one typo (Meilisearch's `oneTypo`, 5).
    public var oneTypoLength: Int
    /// Words of at least this many scalars forgive two typos (Meilisearch's `twoTypos`, 9).
    public var twoTypoLength: Int
    /// Whether a typo on the first letter counts as two (Meilisearch's rule).
    public var firstLetterCostsTwo: Bool
    /// At most this many corrected variants per word, the fewest edits and then the most frequent first.
    public var maxVariants: Int
    /// The chance that a typed word holds a typo, per edit (0.05): about one word in twenty. Web search logs
    /// have a misspelling in 10-15% of queries (Cucerzan and Brill, 2004) of two to three words each. It weighs
    /// the variants of a word the index holds (see ``variantWeight(edits:length:variantRows:wordRows:)``).
    public var errorRate: Double

    /// Variants weighing less than this (relative to the word as typed, see
    /// ``variantWeight(edits:length:variantRows:wordRows:)``) are not searched (0.01): a variant a hundred times
    /// less likely than the word as typed to be what was meant, such as a rare word one letter from a common word
    /// typed right, would barely move the ranking and costs as much to search as any other word.
    public var minimumWeight: Double

    /// Thresholds in scalars: one typo from `oneTypoLength`, two from `twoTypoLength`.
    public init(oneTypoLength: Int = 5, twoTypoLength: Int = 9, firstLetterCostsTwo: Bool = true, maxVariants: Int = 50,
                errorRate: Double = 0.05, minimumWeight: Double = 0.01) {
        self.oneTypoLength = oneTypoLength
        self.twoTypoLength = twoTypoLength
        self.firstLetterCostsTwo = firstLetterCostsTwo
        self.maxVariants = maxVariants
        self.errorRate = errorRate
        self.minimumWeight = minimumWeight
    }

    /// Meilisearch's defaults: one typo from 5 letters, two from 9, the first letter counting two.
    public static let `default` = TypoTolerance()
    /// No typo forgiven: every word is searched as typed.
    public static let off = TypoTolerance(oneTypoLength: .max, twoTypoLength: .max, maxVariants: 0)

    /// Whether no word can be corrected.
    public var isOff: Bool { maxVariants <= 0 || (oneTypoLength == .max && twoTypoLength == .max) }

    /// The typos forgiven in a word of `length` scalars: 0, 1 or 2.
    public func maxTypos(forLength length: Int) -> Int {
        length >= twoTypoLength ? 2 : length >= oneTypoLength ? 1 : 0
    }

    /// The typos forgiven in `word` as typed: by its length in scalars after lower-casing and canonical
    /// composition, and 0 when it holds a CJK character.
    public func maxTypos(for word: String) -> Int {
        let folded = word.lowercased().precomposedStringWithCanonicalMapping.unicodeScalars
        if folded.contains(where: SearchQuery.isCJK) { return 0 }
        return maxTypos(forLength: folded.count)
    }

    /// The weight of a variant `edits` away from a typed word of `length` scalars, relative to the word's own
    /// weight, when `variantRows` rows hold the variant and `wordRows` the word as typed (its token, or for a
    /// prefix the most frequent term it begins).
    ///
    /// It is the smaller of two numbers. The first is `1 - edits / length`, the similarity Lucene's fuzzy query
    /// boosts each variant by (`FuzzyTermsEnum`): one edit in a five-letter word changes a fifth of it and keeps
    /// 0.8 of the weight, one in a ten-letter word keeps 0.9. It is below 1, so a document holding the word as
    /// typed outranks one holding only a variant, all else equal. The second is the noisy-channel ratio of the
    /// variant's chance of being the word meant to the typed word's (Kernighan, Church and Gale, 1990):
    /// `errorRate^edits` (the chance of that many typos) times `variantRows / wordRows` (how often each is
    /// written). A word the index does not hold (`wordRows` 0) was almost surely mistyped: its variants keep the
    /// similarity. A common word the index holds was almost surely meant: its variants weigh about `errorRate`,
    /// so a correctly spelled query ranks nearly as without typo tolerance. A word held by a row or two and one
    /// edit from a common word is a misspelling in the documents themselves: the common word keeps the similarity.
    ///
    ///     TypoTolerance.default.variantWeight(edits: 1, length: 10, variantRows: 300, wordRows: 0)    // 0.9
    ///     TypoTolerance.default.variantWeight(edits: 1, length: 10, variantRows: 300, wordRows: 200)  // 0.075
    public func variantWeight(edits: Int, length: Int, variantRows: Int64, wordRows: Int64) -> Double {
        guard edits > 0 else { return 1 }
        let similarity = max(0, 1 - Double(edits) / Double(max(length, edits + 1)))
        guard wordRows > 0 else { return similarity }
        let rate = min(1, max(0, errorRate.isFinite ? errorRate : 0))
        return min(similarity, pow(rate, Double(edits)) * Double(max(0, variantRows)) / Double(wordRows))
    }
}
