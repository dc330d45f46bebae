import CSQLite
import Foundation

/// Pseudo-relevance feedback for natural-language questions (RM3, Lavrenko and Croft's relevance model with the
/// question kept, as Anserini's BM25+RM3): a first search takes the best `documents` hits as if they were
/// relevant, the `terms` words most frequent in them (each hit's words counted in proportion to its score and
/// inversely to its length) join the question, and a second search ranks with the question weighing
/// `originalWeight` and the added words the rest.
///
///     SearchOptions(feedback: .rm3)                                  // 10 documents, 10 terms, half and half
///     SearchOptions(feedback: Feedback(documents: 5, terms: 20, originalWeight: 0.7))
///
/// It applies to `.anyTerm` questions ranked with ``Ranking/bm25f(k1:b:)`` (the added words need weights; other
/// modes and `.bm25` ignore it) that hold no CJK text (measured on cmrc2018: a few added Latin words outweighed
/// a Chinese question's many character pieces, nDCG@10 0.99 -> 0.76), and costs a second search plus tokenizing the feedback hits: measured in
/// Benchmarks/README.md, not on by default. Added words are indexed tokens that hold a letter, are not CJK
/// (CJK questions are characters and pairs; feedback characters add noise) and are not the index's question
/// stopwords.
public struct Feedback: Sendable, Hashable {
    /// How many of the first search's best hits are taken as relevant (1 or more).
    public var documents: Int
    /// How many words are added (0 or more).
    public var terms: Int
    /// The share of the question's own words in the final weights, 0 to 1 (1: feedback changes nothing).
    public var originalWeight: Double

    /// Feedback from the best `documents` hits adding `terms` words, the question weighing `originalWeight`.
    public init(documents: Int = 10, terms: Int = 10, originalWeight: Double = 0.5) {
        self.documents = documents
        self.terms = terms
        self.originalWeight = originalWeight
    }

    /// Anserini's RM3 defaults: 10 documents, 10 terms, the question weighing 0.5.
    public static let rm3 = Feedback()

    /// Why these parameters cannot run, or nil.
    var invalidity: String? {
        if documents < 1 { return "Feedback needs at least 1 document, not \(documents)." }
        if terms < 0 { return "Feedback cannot add \(terms) terms." }
        if !(originalWeight >= 0 && originalWeight <= 1) { return "Feedback's originalWeight must be between 0 and 1, not \(originalWeight)." }
        return nil
    }
}

extension Database {
    /// `query` (searched as `tree` under `rank` and `condition`) with the feedback words of its first search
    /// added, or nil when the first search finds no words to add.
    func expanded(_ query: SearchQuery, _ tree: FTS5Expression, _ rank: SearchStatement.Rank?, _ condition: Condition?,
                  by feedback: Feedback, _ info: FTSTableInfo, _ tokenizer: TokenizerInstance, _ stopwords: Set<String>,
                  variants: TypoVariant.Finder? = nil, synonyms: SynonymSet.Finder? = nil, synonymWeight: Double = 1,
                  on handle: Handle) throws -> (tree: FTS5Expression, weights: [Double]?)? {
        var first = SearchStatement(index: info.name, content: info.content, columns: [], expression: tree.rendered)
        first.rank = rank
        first.condition = condition
        let terms = try feedbackTerms(feedback, for: first, columns: info.columns, tokenizer: tokenizer, stopwords: stopwords, on: handle)
        guard !terms.isEmpty else { return nil }
        return try query.weightedTree(spans: tokenizer.querySpans, distinct: true, stopwords: stopwords,
                                      feedback: (terms, feedback.originalWeight), variants: variants,
                                      synonyms: synonyms, synonymWeight: synonymWeight)
    }

    /// The feedback words of a first search for `statement` (its expression, rank and condition), best first,
    /// with their relevance-model weights: Σ over the hits of score share × count / length.
    func feedbackTerms(_ feedback: Feedback, for statement: SearchStatement, columns: [String], tokenizer: TokenizerInstance,
                       stopwords: Set<String>, on handle: Handle) throws -> [(term: String, weight: Double)] {
        guard feedback.terms > 0 else { return [] }
        var first = statement
        first.columns = columns
        first.limit = feedback.documents
        first.offset = 0
        first.highlights = []
        first.snippets = []
        let rendered = first.statementSQL
        var hits: [(texts: [String], score: Double)] = []
        try handle.withStatement(rendered.sql) { stmt in
            try handle.bind(rendered.values, to: stmt, sql: rendered.sql)
            let count = Int32(columns.count)
            while try handle.step(stmt) {
                hits.append(((0..<count).map { RawStatement.text(stmt, $0) }, max(0, -sqlite3_column_double(stmt, count + 1))))
            }
        }
        let total = hits.reduce(0) { $0 + $1.score }
        var model: [String: Double] = [:]
        for hit in hits {
            var counts: [String: Int] = [:]
            var length = 0
            for text in hit.texts {
                try tokenizer.tokenize(text, reason: .document) { bytes, _, _, colocated in
                    guard !colocated else { return }
                    length += 1
                    guard bytes.count >= 2 else { return }
                    let term = String(decoding: bytes, as: UTF8.self)
                    guard term.unicodeScalars.contains(where: { $0.properties.isAlphabetic }),
                          !term.unicodeScalars.contains(where: SearchQuery.isCJK), !stopwords.contains(term) else { return }
                    counts[term, default: 0] += 1
                }
            }
            guard length > 0 else { continue }
            let share = total > 0 ? hit.score / total : 1 / Double(hits.count)
            for (term, count) in counts { model[term, default: 0] += share * Double(count) / Double(length) }
        }
        return model.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(feedback.terms).map { (term: $0.key, weight: $0.value) }
    }
}
