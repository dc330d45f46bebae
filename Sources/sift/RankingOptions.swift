import ArgumentParser
import Sift
import SiftTools

/// `--ranking`, `--k1`, `--b`, `--c`, `--title-weight`, `--feedback`, `--typos`, `--synonyms` and `--synonym-weight`,
/// shared by `search` and `eval`: the same ``Ranking``, feedback, typo tolerance and synonym use the library takes, and
/// the title's column weight.
struct RankingOptions: ParsableArguments {
    @Option(help: """
        inb2: divergence from randomness InB2 (the default: an idf, a word that recurs in the documents holding it \
        weighs more, each column normalized by its own length, a word repeated in the query counts more); bm25f: \
        Sift's BM25F (the same column and query weights); bm25: FTS5's bm25().
        """)
    var ranking: Kind = .inb2

    @Option(help: ArgumentHelp("bm25f term-frequency saturation, 0 or more (default \(Ranking.defaultK1)).", valueName: "k1"))
    var k1: Double?

    @Option(help: ArgumentHelp("bm25f length normalization, 0 (none) to 1 (full) (default \(Ranking.defaultB)).", valueName: "b"))
    var b: Double?

    @Option(help: ArgumentHelp("inb2 length normalization, more than 0 (default \(Ranking.defaultC); larger normalizes less).",
                               valueName: "c"))
    var c: Double?

    @Option(help: ArgumentHelp("Weight of a title word relative to a body word (default \(CorpusSearchOptions.defaultTitleWeight)).",
                               valueName: "weight"))
    var titleWeight: Double = CorpusSearchOptions.defaultTitleWeight

    @Flag(help: "Pseudo-relevance feedback (RM3: words of the 10 best hits of a first search added to any-term questions; not with bm25).")
    var feedback = false

    @Option(help: ArgumentHelp("""
        on: forgive typos (Meilisearch's defaults: one from 5 letters, two from 9, the first letter counting two; \
        exact words rank first); off: every word as typed. Default: \(Switch.libraryDefault.rawValue), as the library.
        """, valueName: "on|off"))
    var typos: Switch = .libraryDefault

    @Option(help: ArgumentHelp("""
        on: expand query words with the index's synonym list (`sift synonyms`), each match weighing --synonym-weight \
        times the word typed; off: every word alone. Default: on, as the library.
        """, valueName: "on|off"))
    var synonyms: Switch = .on

    @Option(help: ArgumentHelp("Weight of a synonym's match relative to the word typed, 0 to 1 (default \(SearchOptions.defaultSynonymWeight)).",
                               valueName: "weight"))
    var synonymWeight: Double = SearchOptions.defaultSynonymWeight

    /// The synonym weight the options choose, nil when synonyms are off.
    var synonymWeightValue: Double? { synonyms == .on ? synonymWeight : nil }

    /// `on` or `off`, for `--typos` and `--synonyms`.
    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off

        /// What `SearchOptions()` does for typos.
        static var libraryDefault: Switch { SearchOptions().typoTolerance.isOff ? .off : .on }
    }

    /// The typo tolerance the options choose.
    var typoTolerance: TypoTolerance { typos == .on ? .default : .off }

    /// The feedback the options choose.
    var feedbackValue: Feedback? { feedback ? .rm3 : nil }

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case bm25, bm25f, inb2
    }

    func validate() throws {
        if ranking != .bm25f && (k1 != nil || b != nil) { throw ValidationError("--k1 and --b apply to --ranking bm25f") }
        if ranking != .inb2 && c != nil { throw ValidationError("--c applies to --ranking inb2") }
        if let c, !(c.isFinite && c > 0) { throw ValidationError("--c must be more than 0") }
        if let k1, !(k1.isFinite && k1 >= 0) { throw ValidationError("--k1 must be 0 or more") }
        if let b, !(b >= 0 && b <= 1) { throw ValidationError("--b must be between 0 and 1") }
        if !(titleWeight.isFinite && titleWeight >= 0) { throw ValidationError("--title-weight must be 0 or more") }
        if !(synonymWeight >= 0 && synonymWeight <= 1) { throw ValidationError("--synonym-weight must be between 0 and 1") }
    }

    /// The ranking the options choose.
    var value: Ranking {
        switch ranking {
        case .bm25: return .bm25
        case .bm25f: return .bm25f(k1: k1 ?? Ranking.defaultK1, b: b ?? Ranking.defaultB)
        case .inb2: return .inB2(c: c ?? Ranking.defaultC)
        }
    }
}
