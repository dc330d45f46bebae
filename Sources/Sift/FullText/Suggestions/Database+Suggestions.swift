extension Database {
    /// When reading the rows holding every word before the last one costs at most this much (see `CheckBudget`:
    /// some 1 ms, 170 rows of 35 words), they are read at once to find the completions they hold; else each
    /// completion is checked on its own, and the rows are read only once the failed checks have cost as much as
    /// reading them would.
    static let suggestionReadCost = 2_048
    /// A read of those rows stops past this much text (rows much longer than the index's average), and the
    /// completions are checked one by one instead.
    static let suggestionBytesRead = 262_144
    /// Words longer than this many Unicode scalars are neither corrected nor completed with typos: the edit
    /// automaton's work grows with the word's length, and no word a person types is this long.
    static let longestCorrectedWord = 64

    /// Completions of the last word of `text`, what a person is typing in a search box: the index's words that
    /// begin with it, most frequent first (by the rows holding each), among those that lead to hits together
    /// with the words before it.
    ///
    /// For `"sqlite se"`, every completion `se…` comes with a row holding both `sqlite` and it; each suggestion
    /// is the query to put in the box (`"sqlite search"`), the completed word and how many rows hold it. The
    /// text is split with the index's tokenizer, as a search splits it; a run of CJK characters is one word, its
    /// last character completed. Candidates are checked most frequent first with `LIMIT 1` queries, or read
    /// from the rows holding every word before when one of them is in few rows (a hundred or two of average
    /// length), or in a few hundred once checks keep failing; the typed part is never searched as a prefix (a short one would gather the postings
    /// of thousands of terms). The work stops after about 6,000 postings (some 3 ms at a million rows): when
    /// most candidates never meet the words before, fewer than `limit` suggestions come back rather than a slow
    /// answer. When nothing begins with the typed part, the completions of its variants within
    /// `typoTolerance`'s budget are offered instead (fewest typos first; ``Suggestion/typos`` says how many):
    /// `"aerelas"` completes to `"aeroelastic"`. The candidates are the index's terms; on an index that stems,
    /// a term is shown as the first row holding it writes it (`"ru"` → `"running"` for the stem `run`), so
    /// completions are words a person can type, and a word the index keeps only as its stem (`running` as `run`)
    /// completes from the stem's letters, not from its own.
    ///
    /// Empty when `text` holds no word, ends with white space (its last word is complete), or when no
    /// completion leads to hits; never an error for any text (punctuation, FTS5 operators, very long input).
    ///
    ///     let suggestions = try database.suggestions(for: "sqlite se", in: "articles_fts", limit: 5)
    ///     searchBox.completions = suggestions.map(\.text)   // ["sqlite search", "sqlite segment", ...]
    ///
    /// - Parameters:
    ///   - text: What has been typed so far.
    ///   - index: The FTS5 table to complete from.
    ///   - limit: At most this many suggestions.
    ///   - typoTolerance: The typos forgiven in the typed part when it completes to nothing
    ///     (``TypoTolerance/off``: none).
    /// - Throws: ``SiftError`` when `index` is not an FTS5 table or the database cannot be read.
    public func suggestions(for text: String, in index: String, limit: Int = 10,
                            typoTolerance: TypoTolerance = .default) throws -> [Suggestion] {
        guard limit > 0 else { return [] }
        return try read { handle in
            let info = try ftsInfo(index, on: handle)
            let tokenizer = try handle.tokenizer(info.tokenizer)
            let located = try SearchQuery.locatedSegments(text, tokenizer.querySpans)
            let utf8 = Array(text.utf8)
            // White space after the last word: it is complete, and nothing is left to complete.
            guard let last = located.last,
                  !String(decoding: utf8[last.range.upperBound...], as: UTF8.self).unicodeScalars.contains(where: \.properties.isWhitespace)
            else { return [] }
            let word = last.segment
            // The typed part is the word's last piece: the word itself, or a CJK run's last character, whose
            // earlier characters (`stem`) stay as typed.
            let typed = word.parts.last ?? word.text
            let stem = String(decoding: Array(word.text.utf8).dropLast(typed.utf8.count), as: UTF8.self)
            guard let token = try tokenizer.queryToken(of: typed, prefix: true), !token.isEmpty else { return [] }
            let dictionary = try TermDictionary.of(info.name, in: pool.attachment(FullTextSettings.init), on: handle)
            let completion = Completion(
                probe: IndexProbe(info: info, tokenizer: tokenizer, handle: handle), dictionary: dictionary,
                head: String(decoding: utf8[..<last.range.lowerBound], as: UTF8.self), stem: stem,
                before: located.dropLast().map { .string($0.segment.text) },
                beforeTokens: Set(try located.dropLast().compactMap { try tokenizer.queryToken(of: $0.segment.text) }),
                beforeRows: try located.dropLast().map {
                    try tokenizer.queryToken(of: $0.segment.text).map { dictionary.rows(of: Array($0.unicodeScalars)) } ?? .max
                }.min() ?? .max,
                rowRead: CheckBudget.rowRead(tokens: try FTSTableInfo.averageRowTokens(info.name, on: handle)),
                showsLowercase: typed == typed.lowercased(), limit: limit)
            let prefix = Array(token.unicodeScalars)
            let found = try completion.exact(prefix: prefix)
            guard found.isEmpty, !typoTolerance.isOff, stem.isEmpty, prefix.count <= Self.longestCorrectedWord,
                  case let budget = typoTolerance.maxTypos(for: typed), budget > 0
            else { return found }
            return try completion.tolerant(prefix: prefix, budget: budget, firstLetterCostsTwo: typoTolerance.firstLetterCostsTwo)
        }
    }
}

/// One completion request: the last word's context, and the ways its candidates are found and checked.
private struct Completion {
    let probe: IndexProbe
    let dictionary: TermDictionary
    /// The text before the last word, as typed.
    let head: String
    /// The last word's characters before its typed part (a CJK run's earlier characters), else empty.
    let stem: String
    /// The words before the last one, as FTS5 strings, and their tokens.
    let before: [FTS5Expression]
    let beforeTokens: Set<String>
    /// The fewest rows holding a word before (`Int64.max` when none is one term): at most that many hold them all.
    let beforeRows: Int64
    /// The cost of reading one row of average length (`CheckBudget.rowRead(tokens:)`).
    let rowRead: Int

    /// The cost of reading every row that may hold all the words before (more than any budget when they are many).
    var readCost: Int { Int(clamping: min(beforeRows, Int64(CheckBudget.postings))) * rowRead }
    /// Whether completions are shown lower-cased (the typed part has no upper-case letter).
    let showsLowercase: Bool
    let limit: Int

    /// The completions of the typed part as typed.
    func exact(prefix: [Unicode.Scalar]) throws -> [Suggestion] {
        guard dictionary.holdsTerm(beginningWith: prefix) else { return [] }
        // Few rows holding the words before: their words beginning with the typed part are every completion.
        let readable = !before.isEmpty && stem.isEmpty
        if readable && readCost <= Database.suggestionReadCost, let found = try read(prefix: prefix, rows: Int(beforeRows)) {
            return found
        }
        return try checked(dictionary.byRows(beginningWith: prefix).lazy.map { ($0, 0) }, readingAfterFailures: readable ? prefix : nil)
    }

    /// The completions of the typed part's variants within `budget` typos, fewest typos first, then most rows.
    func tolerant(prefix: [Unicode.Scalar], budget: Int, firstLetterCostsTwo: Bool) throws -> [Suggestion] {
        let matches = dictionary.prefixMatches(EditAutomaton(prefix, maxEdits: budget), firstLetterCostsTwo: firstLetterCostsTwo)
        guard !matches.isEmpty else { return [] }
        if !before.isEmpty {
            let variants: [FTS5Expression] = matches.map { .prefix(String(String.UnicodeScalarView($0.prefix))) }
            guard try probe.firstRow(matching: .all(before + [.any(variants)])) != nil else { return [] }
        }
        let checks = limit + CheckBudget.postings / CheckBudget.perCheck
        var candidates: [(Int, Int)] = []
        for edits in Set(matches.map(\.edits)).sorted() {
            var group: [Int] = []
            for match in matches where match.edits == edits {
                group += dictionary.byRows(beginningWith: match.prefix).prefix(checks)
            }
            group.sort(by: dictionary.precedes)
            candidates += group.prefix(checks).map { ($0, edits) }
        }
        return try checked(candidates)
    }

    /// The first `limit` candidates (positions in the dictionary, with their typos) that lead to hits with the
    /// words before, in the order given, each checked with a `LIMIT 1` query, within a `CheckBudget`. With
    /// `prefix` (the completions' beginning), once the failed checks have cost as much as reading the rows that
    /// hold every word before would, and the budget left allows it, those rows are read instead (ski rental:
    /// never much more than the cheaper of the two ways).
    private func checked(_ candidates: some Sequence<(Int, Int)>, readingAfterFailures prefix: [Unicode.Scalar]? = nil) throws
        -> [Suggestion] {
        var found: [Suggestion] = [], words: Set<String> = [], budget = CheckBudget(), failed = 0
        var prefix = prefix
        for (position, typos) in candidates {
            if found.count == limit || budget.isSpent { break }
            if let reading = prefix, failed >= readCost, readCost <= budget.remaining {
                if let read = try read(prefix: reading, rows: Int(beforeRows)) { return read }
                prefix = nil  // no text to read, or too much: checks only
            }
            let term = dictionary.text(position)
            if beforeTokens.contains(term) { continue }
            // A CJK run's completion is a phrase of its characters; a word, the term as a query finds it.
            let (finding, isPrefix) = stem.isEmpty ? try probe.expression(finding: term) : (.string(stem + term), false)
            let row = try probe.firstRow(matching: before.isEmpty ? finding : .all(before + [finding]))
            let cost = budget.charge(found: row != nil, smallest: min(beforeRows, dictionary.rows(at: position)))
            guard let row else {
                failed += cost
                continue
            }
            let written = stem.isEmpty ? try probe.writtenForm(of: term, in: row, isPrefix: isPrefix, lowercased: showsLowercase) : nil
            let word = stem + (written ?? term)
            guard words.insert(word).inserted else { continue }
            found.append(Suggestion(text: head + word, word: word, rowCount: Int(dictionary.rows(at: position)), typos: typos))
        }
        return found
    }

    /// The completions beginning with `prefix` in the rows holding every word before (at most `rows` of them:
    /// all, when a word before is in that many), each row's text tokenized as the index tokenizes it, most rows
    /// first; nil when those rows have no text to read them from (an index without content) or more than
    /// `suggestionBytesRead` bytes of it.
    private func read(prefix: [Unicode.Scalar], rows: Int) throws -> [Suggestion]? {
        var written: [String: String] = [:], hasText = false, bytes = 0
        var prefixText = ""
        prefixText.unicodeScalars.append(contentsOf: prefix)
        let prefixUTF8 = Array(prefixText.utf8)  // a prefix in scalars is one in UTF-8 bytes
        for row in try probe.rows(matching: .all(before), limit: rows, marked: false) {
            for case let column? in row {
                hasText = true
                let utf8 = Array(column.utf8)
                bytes += utf8.count
                if bytes > Database.suggestionBytesRead { return nil }
                try probe.tokenizer.tokenize(column, reason: .document) { bytes, start, end, colocated in
                    guard !colocated, start < end, end <= utf8.count, bytes.starts(with: prefixUTF8) else { return }
                    let token = String(decoding: bytes, as: UTF8.self)
                    guard written[token] == nil, !beforeTokens.contains(token) else { return }
                    let word = String(decoding: utf8[start..<end], as: UTF8.self)
                    written[token] = showsLowercase ? word.lowercased() : word
                }
            }
        }
        guard hasText else { return nil }
        let ranked = written.map { (term: $0.key, word: $0.value, rows: dictionary.rows(of: Array($0.key.unicodeScalars))) }
            .filter { $0.rows > 0 }
            .sorted { ($1.rows, $0.term) < ($0.rows, $1.term) }
        var found: [Suggestion] = [], words: Set<String> = []
        for candidate in ranked where found.count < limit && words.insert(candidate.word).inserted {
            found.append(Suggestion(text: head + candidate.word, word: candidate.word, rowCount: Int(candidate.rows)))
        }
        return found
    }
}
