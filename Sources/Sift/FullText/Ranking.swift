/// How search results are scored: Sift's InB2 (`sift_inb2`, the default, see ``inB2(c:)``), Sift's BM25F
/// (`sift_rank`, see ``bm25f(k1:b:)``), or FTS5's built-in `bm25()`.
///
///     SearchOptions()                                          // Ranking.default: InB2, c 1
///     SearchOptions(weights: ["title": 2])                     // a title word counts twice
///     SearchOptions(ranking: .bm25f())                         // BM25F, k1 1.2, b 0.75
///     SearchOptions(ranking: .bm25f(k1: 0.9, b: 0.4))
///     SearchOptions(ranking: .bm25)                            // FTS5's bm25()
///
/// Why this default: InB2 with c 1, a model of the divergence-from-randomness framework with the parameter its
/// authors, Terrier and Lucene use (not fitted to any test collection). With the default analysis (`sift_icu stem
/// english`, English question stopwords, title weight 2) it beat Sift's BM25F (k1 1.2, b 0.75, the default before
/// it) in nDCG@10 and MAP on all four English collections: cranfield 0.3799 -> 0.3988, cisi 0.4147 -> 0.4153,
/// medline 0.6976 -> 0.7199, npl 0.4370 -> 0.4560, and on cmrc2018 (0.9876 -> 0.9918); jsquad moved 0.9484 ->
/// 0.9476 (78 questions up, 91 down; 0.9490 since Japanese questions leave out kana standing alone, see
/// `SiftICU.kanaStopwords`). What it adds to BM25F's idf is Bernoulli's after-effect, (F + 1) / n: a
/// word that recurs in the rows holding it (a topic word) weighs more than one spread thinly. k1 0.9, b 0.4
/// (Anserini's BM25 defaults) was worse on three of the four English collections.
/// The rest of the default analysis lives in the index's tokenizer (`sift_icu stem english`: Snowball stemming)
/// and in the query builder (English stopwords and kana standing alone left out of `.anyTerm` questions on
/// such indexes, see `SiftICU.englishStopwords` and `SiftICU.kanaStopwords`); ``SearchOptions/feedback`` adds optional pseudo-relevance feedback, whose added
/// words weigh fractions. Measured figures: Benchmarks/README.md.
///
/// All three take ``SearchOptions/weights`` as per-column weights (1 for a column not named) and return scores where
/// larger is better, comparable only within one query.
///
/// `.bm25` is FTS5's `bm25()`: k1 1.2 and b 0.75, fixed; an idf floored at 1e-6 for a word in more than half
/// the rows (such words then barely count); the weighted column counts normalized by the whole row's length;
/// every phrase of the query counted once per time it is written (`.allTerms` keeps a repeated word twice,
/// `.anyTerm` once).
///
/// `.bm25f` is Sift's `sift_rank()` function (registered on every connection): per phrase p of the query,
/// with N rows, n(p) rows containing p, tf(p, c) its instances in column c of the row, len(c) the row's length
/// of column c in tokens and avglen(c) that column's average,
///
///     idf(p) = ln(1 + (N - n(p) + 0.5) / (n(p) + 0.5))                          never negative (Lucene's)
///     tf~(p) = Σ_c weight(c) · tf(p, c) / (1 - b + b · len(c) / avglen(c))      each column normalized by its own length
///     score  = Σ_p qtf(p) · idf(p) · tf~(p) / (k1 + tf~(p))
///
/// where qtf(p) is how many times the question holds p: with `.bm25f` and `.inB2`, `.allTerms`, `.anyTerm` and
/// `.prefix` queries search each distinct word once and weigh it by its count (`"to be or not to be"` searches
/// `"to" "be" "or" "not"`, weighing 2, 2, 1, 1), a phrase or `near` query weighs each of its phrases 1, excluded
/// words weigh nothing, and each phrase of a ``SearchQuery/advanced(_:)`` query weighs 1. With
/// ``SearchOptions/feedback`` an `.anyTerm` question's weights are scaled to sum to the feedback's
/// `originalWeight` and the added words share the rest (qtf(p) is then any number >= 0, still one per phrase).
/// Every weight is >= 0 and the score keeps the form Σ_p w(p) · idf(p) · tf~(p) / (k1 + tf~(p)).
///
/// `.inB2` is Sift's `sift_inb2()` function, with the same column and query weights (its formula is at
/// ``inB2(c:)``).
///
/// The functions are also there for SQL on any connection Sift opened (`rank MATCH 'sift_inb2(...)'`,
/// `rank MATCH 'sift_rank(...)'`); their arguments are documented in `Sources/SiftRank/include/sift_rank.h`.
public struct Ranking: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case bm25
        case bm25f(k1: Double, b: Double)
        case inB2(c: Double)
    }

    let kind: Kind

    /// The k1 of ``bm25f(k1:b:)`` when not given: how fast repeated occurrences of a word stop adding to the
    /// score (the value of Robertson's and Lucene's BM25).
    public static let defaultK1 = 1.2
    /// The b of ``bm25f(k1:b:)`` when not given: how much a long column's occurrences count less (0.75, as
    /// Robertson and Lucene).
    public static let defaultB = 0.75

    /// FTS5's built-in `bm25()` (k1 1.2, b 0.75, one length for all columns).
    public static let bm25 = Ranking(kind: .bm25)

    /// What ``SearchOptions`` uses unless told otherwise: ``inB2(c:)`` with c 1.
    public static let `default` = inB2()

    /// Sift's BM25F: per-column length normalization, a never-negative idf, repeated query words counted.
    ///
    /// - Parameters:
    ///   - k1: term-frequency saturation, 0 or more (0 scores presence only: a word once counts as much as ten
    ///     times). Searching throws a ``SiftError`` (`.misuse`) for a negative or non-finite value.
    ///   - b: length normalization from 0 (none) to 1 (full); outside that range searching throws.
    public static func bm25f(k1: Double = Ranking.defaultK1, b: Double = Ranking.defaultB) -> Ranking {
        Ranking(kind: .bm25f(k1: k1, b: b))
    }

    /// The c of ``inB2(c:)`` when not given: 1, the value of Terrier's and Lucene's normalization 2.
    public static let defaultC = 1.0

    /// InB2 from the divergence-from-randomness framework (Amati and van Rijsbergen, 2002): an idf from the
    /// rows holding the word (In), Bernoulli's after-effect (B, which weighs a word by how often it recurs in the
    /// rows that hold it) and per-column length normalization 2 (H2), weighted columns and repeated query words
    /// counted as with ``bm25f(k1:b:)``. With N rows, n(p) rows holding phrase p and F(p) its instances in all rows,
    ///
    ///     tfn(p) = Σ_c weight(c) · tf(p, c) · log2(1 + c · avglen(c) / len(c))
    ///     score  = Σ_p qtf(p) · log2((N + 1) / (n(p) + 0.5)) · (F(p) + 1) / n(p) · tfn(p) / (tfn(p) + 1)
    ///
    /// (Terrier's `InB2`, Lucene's `DFRSimilarity(BasicModelIn, AfterEffectB, NormalizationH2)`, with the columns
    /// normalized one by one). Like ``bm25f(k1:b:)`` it takes the pruned top-k search on a large synced index: the
    /// index's impacts keep each frequent word's F beside its row count.
    ///
    ///     SearchOptions(ranking: .inB2())                          // c = 1
    ///
    /// - Parameter c: how much a column longer than its average lowers a word's count, a number > 0 (1, Terrier's
    ///   and Lucene's default; larger values normalize less). Searching throws a ``SiftError`` (`.misuse`) for 0, a
    ///   negative or a non-finite value.
    public static func inB2(c: Double = Ranking.defaultC) -> Ranking {
        Ranking(kind: .inB2(c: c))
    }

    /// `bm25`, `bm25f(k1: 1.2, b: 0.75)` or `inB2(c: 1.0)`.
    public var description: String {
        switch kind {
        case .bm25: return "bm25"
        case .bm25f(let k1, let b): return "bm25f(k1: \(k1), b: \(b))"
        case .inB2(let c): return "inB2(c: \(c))"
        }
    }

    /// Whether the ranking takes query-term weights (Sift's `sift_rank`): the query builder then searches each
    /// repeated phrase once and passes its count.
    var weighsQueryTerms: Bool { kind != .bm25 }

    /// Why searching with this ranking would fail, or nil when its parameters are in range.
    var invalidity: String? {
        if case .inB2(let c) = kind, !(c.isFinite && c > 0) { return "The ranking's c must be a finite number > 0, not \(c)." }
        guard case .bm25f(let k1, let b) = kind else { return nil }
        if !k1.isFinite || k1 < 0 { return "The ranking's k1 must be a finite number >= 0, not \(k1)." }
        if !b.isFinite || b < 0 || b > 1 { return "The ranking's b must be between 0 and 1, not \(b)." }
        return nil
    }
}
