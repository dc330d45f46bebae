extension Database {
    /// At most this many spellings are tried for each word of a query being corrected.
    static let correctionSpellings = 5

    /// "Did you mean": `text` with its misspelled words corrected so that every word is found together, for a
    /// query that finds nothing; nil when it already has hits, or when no correction within `typoTolerance`'s
    /// budget has any.
    ///
    /// Each word of `text` (split with the index's tokenizer, as an all-terms search splits it) is kept when the
    /// index holds it, or replaced by one of its variants within the typo budget (``TypoTolerance``: none in
    /// words under 5 letters nor in CJK text, a first-letter typo counting two), the fewest typos first and then
    /// the one most rows hold. Words are tried in that order, one after the other, keeping the choices that still
    /// lead to hits with the words chosen before them (`LIMIT 1` queries reading about 6,000 postings at most,
    /// some 3 ms at a million rows). The corrected text keeps everything else as typed; a corrected word is
    /// written as a row holding it writes it.
    ///
    ///     if results.hits.isEmpty, let suggestion = try database.correction(for: "aeroelastc fluter", in: "articles_fts") {
    ///         print("Did you mean: \(suggestion)")   // "aeroelastic flutter"
    ///     }
    ///
    /// - Parameters:
    ///   - text: The query as typed.
    ///   - index: The FTS5 table searched.
    ///   - typoTolerance: How many typos each word may hold (``TypoTolerance/off``: no correction).
    /// - Throws: ``SiftError`` when `index` is not an FTS5 table or the database cannot be read.
    public func correction(for text: String, in index: String, typoTolerance: TypoTolerance = .default) throws -> String? {
        try read { handle in
            let info = try ftsInfo(index, on: handle)
            guard !typoTolerance.isOff else { return nil }
            let tokenizer = try handle.tokenizer(info.tokenizer)
            let located = try SearchQuery.locatedSegments(text, tokenizer.querySpans)
            guard !located.isEmpty else { return nil }
            let probe = IndexProbe(info: info, tokenizer: tokenizer, handle: handle)
            if try probe.firstRow(matching: .all(located.map { .string($0.segment.text) })) != nil { return nil }
            let dictionary = try TermDictionary.of(info.name, in: pool.attachment(FullTextSettings.init), on: handle)
            // Each word's spellings: as typed when the index holds it, then its variants.
            var spellings: [[Spelling]] = []
            for (_, segment) in located {
                let token = try tokenizer.queryToken(of: segment.text)
                var options: [Spelling] = []
                let rows = token.map { dictionary.rows(of: Array($0.unicodeScalars)) } ?? 0
                if rows > 0 { options.append(.asTyped(rows: rows)) }
                let budget = typoTolerance.maxTypos(for: segment.text)
                if let token, !segment.isCJK, budget > 0, token.unicodeScalars.count <= Self.longestCorrectedWord {
                    // The terms a typo-tolerant search would take for the word, stems of corrected words included.
                    let terms = try Self.correctedTerms(of: segment.text, token: token, budget: budget, wordRows: rows, info,
                                                        dictionary, tokenizer, typoTolerance)
                        .sorted { ($0.edits, -$0.rows, $0.text) < ($1.edits, -$1.rows, $1.text) }
                    for term in terms.prefix(Self.correctionSpellings - options.count) {
                        let (expression, isPrefix) = try probe.expression(finding: term.text)
                        options.append(.variant(term.text, expression, isPrefix: isPrefix, rows: term.rows))
                    }
                }
                if options.isEmpty { return nil }
                spellings.append(options)
            }
            let typed = located.map(\.segment.text)
            guard let chosen = try Self.firstWithHits(spellings, probe: probe, typed: typed),
                  chosen.contains(where: { if case .variant = $0 { true } else { false } }) else { return nil }
            // The corrected words as the first row holding them all writes them.
            let row = try probe.firstRow(matching: .all(zip(chosen, typed).map { $0.expression(typed: $1) })) ?? []
            var corrected = Array(text.utf8), end = corrected.count
            for (spelling, (range, segment)) in zip(chosen, located).reversed() {
                guard case .variant(let term, _, let isPrefix, _) = spelling, range.upperBound <= end else { continue }
                let showsLowercase = segment.text == segment.text.lowercased()
                let word = try probe.writtenForm(of: term, in: row, isPrefix: isPrefix, lowercased: showsLowercase) ?? term
                corrected.replaceSubrange(range, with: Array(word.utf8))
                end = range.lowerBound
            }
            return String(decoding: corrected, as: UTF8.self)
        }
    }

    /// The first choice of one spelling per word, in the order given, whose words all occur in one row: a
    /// depth-first search that drops a choice as soon as the words chosen so far have no row in common.
    private static func firstWithHits(_ spellings: [[Spelling]], probe: IndexProbe, typed: [String]) throws -> [Spelling]? {
        var budget = CheckBudget()
        var chosen: [Spelling] = []
        func search(_ word: Int) throws -> Bool {
            if word == spellings.count { return true }
            for spelling in spellings[word] {
                if budget.isSpent { return false }
                chosen.append(spelling)
                // One word the index holds always has a row; more are checked together.
                var found = word == 0
                if !found {
                    found = try probe.firstRow(matching: .all(zip(chosen, typed).map { $0.expression(typed: $1) })) != nil
                    budget.charge(found: found, smallest: chosen.map(\.rows).min() ?? 0)
                }
                if found, try search(word + 1) { return true }
                chosen.removeLast()
            }
            return false
        }
        return try search(0) ? chosen : nil
    }
}

/// One way to spell a word of a query being corrected: as typed, or an indexed term within its typo budget with
/// the expression that finds it (see `IndexProbe.expression(finding:)`).
private enum Spelling {
    /// The word as typed, which `rows` rows hold.
    case asTyped(rows: Int64)
    /// A term, the expression that finds it, and the rows holding it.
    case variant(String, FTS5Expression, isPrefix: Bool, rows: Int64)

    /// The expression finding the word spelled this way, given the word as typed.
    func expression(typed: String) -> FTS5Expression {
        if case .variant(_, let expression, _, _) = self { expression } else { .string(typed) }
    }

    /// The rows holding the word spelled this way.
    var rows: Int64 {
        switch self {
        case .asTyped(let rows), .variant(_, _, _, let rows): rows
        }
    }
}
