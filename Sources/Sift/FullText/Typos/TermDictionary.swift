import CSQLite

/// An index's terms with the rows holding each, walked with an ``EditAutomaton`` to find the terms within a few
/// edits of a word, and kept exact through the writes of this process without reading the index again.
///
/// It is a `TermList` read from FTS5's vocabulary (the base), and the changes since: the terms no row of the base
/// held (`added`, a small list of their own) and the base terms whose row count changed (`adjusted`; a count of 0
/// is a term no row holds any more). Every lookup and walk answers as a dictionary read afresh from the index would:
/// a walk goes through the base, drops the terms no row holds any more, and meets the added terms' walk in term
/// order. Once the changes outgrow a sixteenth of the base (see `applying(_:)`), the two are merged into one list.
///
/// A term's position (what the walks return and `term(_:)`, `text(_:)` and `rows(at:)` take) is its position in the
/// base, or `base.count` plus its position among the added terms: a handle, not an order (``precedes(_:_:)`` orders).
final class TermDictionary: Sendable {
    typealias Match = TermList.Match
    typealias AlignedMatch = TermList.AlignedMatch
    typealias PrefixMatch = TermList.PrefixMatch

    /// The terms as read from the index (or as last merged).
    let base: TermList
    /// Terms the base does not hold, in term order, each held by at least one row.
    let added: TermList
    /// Base positions whose row count changed, ascending, and their counts now (0: no row holds the term).
    let adjustedPositions: [Int]
    let adjustedRows: [Int64]
    /// How many terms each letter is written in, over the terms some row holds (see `TermList.letterCounts`).
    let letters: [Unicode.Scalar: Int]

    /// The letters the terms are written with (alphabetic scalars, not CJK ones, whose words are never corrected),
    /// the 64 most frequent: what a typo corrected by inserting or replacing a letter can put in a word.
    let alphabet: [Unicode.Scalar]

    /// How many terms some row holds.
    let count: Int

    /// Terms given in any order; duplicates keep their first row count.
    convenience init(terms: [(term: String, rows: Int64)]) {
        let base = TermList(terms: terms)
        self.init(base: base, added: TermList(TermList.Builder()), adjusted: [], letters: base.letterCounts())
    }

    /// A dictionary of `base` with `added` terms and `adjusted` base positions (ascending, with their counts now).
    init(base: TermList, added: TermList, adjusted: [(position: Int, rows: Int64)], letters: [Unicode.Scalar: Int]) {
        self.base = base
        self.added = added
        self.adjustedPositions = adjusted.map(\.position)
        self.adjustedRows = adjusted.map(\.rows)
        self.letters = letters
        self.alphabet = letters.filter { $0.value > 0 }.sorted { ($0.value, $1.key.value) > ($1.value, $0.key.value) }
            .prefix(64).map(\.key)
        self.count = base.count - adjusted.filter { $0.rows <= 0 }.count + added.count
    }

    // MARK: - Terms by position

    /// The scalars of the term at `position`.
    func term(_ position: Int) -> ArraySlice<Unicode.Scalar> {
        position < base.count ? base.term(position) : added.term(position - base.count)
    }

    /// The term at `position` as a string.
    func text(_ position: Int) -> String {
        position < base.count ? base.text(position) : added.text(position - base.count)
    }

    /// The rows holding the term at `position` (0 for a base term no row holds any more).
    func rows(at position: Int) -> Int64 {
        if position >= base.count { return added.rows[position - base.count] }
        if let i = adjustment(of: position) { return adjustedRows[i] }
        return base.rows[position]
    }

    /// Whether the term at `a` comes before the one at `b` in frequency order: more rows, then term order.
    func precedes(_ a: Int, _ b: Int) -> Bool {
        let (rowsA, rowsB) = (rows(at: a), rows(at: b))
        return rowsA != rowsB ? rowsA > rowsB : termPrecedes(a, b)
    }

    /// Whether the term at `a` comes before the one at `b` in term order.
    func termPrecedes(_ a: Int, _ b: Int) -> Bool {
        if (a < base.count) == (b < base.count) { return a < b }
        return term(a).lexicographicallyPrecedes(term(b)) { $0.value < $1.value }
    }

    /// Whether no row holds the base term at `position` any more (its count was changed to 0).
    private func isRemoved(_ position: Int) -> Bool {
        adjustment(of: position).map { adjustedRows[$0] <= 0 } ?? false
    }

    /// The index of `position` in `adjustedPositions`, nil when its count is the base's.
    private func adjustment(of position: Int) -> Int? {
        guard !adjustedPositions.isEmpty else { return nil }
        let i = firstAdjustment(from: position)
        return i < adjustedPositions.count && adjustedPositions[i] == position ? i : nil
    }

    /// The index of the first adjusted position not below `position`.
    private func firstAdjustment(from position: Int) -> Int {
        var low = 0, high = adjustedPositions.count
        while low < high {
            let middle = (low + high) / 2
            if adjustedPositions[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: - Walks

    /// The terms within the automaton's budget of its word, in term order (see `TermList.matches`).
    func matches(_ automaton: EditAutomaton, firstLetterCostsTwo: Bool = true) -> [Match] {
        merged(base.matches(automaton, firstLetterCostsTwo: firstLetterCostsTwo).filter { !isRemoved($0.term) },
               added.matches(automaton, firstLetterCostsTwo: firstLetterCostsTwo)
                   .map { Match(term: base.count + $0.term, edits: $0.edits) },
               position: \.term)
    }

    /// The terms within the automaton's budget of the word's first `cut` scalars (see `TermList.alignedMatches`).
    func alignedMatches(_ automaton: EditAutomaton, tail: Int, firstLetterCostsTwo: Bool = true) -> [AlignedMatch] {
        merged(base.alignedMatches(automaton, tail: tail, firstLetterCostsTwo: firstLetterCostsTwo).filter { !isRemoved($0.term) },
               added.alignedMatches(automaton, tail: tail, firstLetterCostsTwo: firstLetterCostsTwo)
                   .map { AlignedMatch(term: base.count + $0.term, cut: $0.cut, edits: $0.edits) },
               position: \.term)
    }

    /// The shortest prefixes of terms within the budget of the automaton's word (see `TermList.prefixMatches`).
    ///
    /// Whether a walk reports a prefix depends on the prefix alone, so the prefixes of the base's walk and of the
    /// added terms' walk together are those of every term; a prefix only terms no row holds any more begin is
    /// dropped, and each one's rows are counted anew.
    func prefixMatches(_ automaton: EditAutomaton, firstLetterCostsTwo: Bool = true) -> [PrefixMatch] {
        let found = base.prefixMatches(automaton, firstLetterCostsTwo: firstLetterCostsTwo)
        guard !adjustedPositions.isEmpty || added.count > 0 else { return found }
        var seen: Set<[Unicode.Scalar]> = []
        return (found + added.prefixMatches(automaton, firstLetterCostsTwo: firstLetterCostsTwo))
            .filter { seen.insert($0.prefix).inserted }
            .compactMap { match in
                let rows = maxRows(beginningWith: match.prefix)
                return rows > 0 ? PrefixMatch(prefix: match.prefix, edits: match.edits, rows: rows) : nil
            }
            .sorted { $0.prefix.lexicographicallyPrecedes($1.prefix) { $0.value < $1.value } }
    }

    /// Two lists of terms, each in term order and without a term in common, as one in term order.
    private func merged<T>(_ first: [T], _ second: [T], position: (T) -> Int) -> [T] {
        guard !second.isEmpty else { return first }
        guard !first.isEmpty else { return second }
        var result: [T] = []
        result.reserveCapacity(first.count + second.count)
        var i = 0, j = 0
        while i < first.count || j < second.count {
            if j == second.count || (i < first.count && termPrecedes(position(first[i]), position(second[j]))) {
                result.append(first[i])
                i += 1
            } else {
                result.append(second[j])
                j += 1
            }
        }
        return result
    }

    // MARK: - Lookups

    /// The rows holding `term`, 0 when the index does not hold it.
    func rows(of term: [Unicode.Scalar]) -> Int64 {
        if let position = base.position(of: term) { return rows(at: position) }
        return added.rows(of: term)
    }

    /// The rows of the most frequent term beginning with `prefix`, 0 when none does.
    func maxRows(beginningWith prefix: [Unicode.Scalar]) -> Int64 {
        var best = added.maxRows(beginningWith: prefix)
        let range = base.positions(beginningWith: prefix)
        guard !range.isEmpty else { return best }
        let adjusted = firstAdjustment(from: range.lowerBound)..<firstAdjustment(from: range.upperBound)
        for i in adjusted { best = max(best, adjustedRows[i]) }
        // The most frequent base term whose count is the base's.
        for position in base.byRows(range) where adjustment(of: position) == nil {
            return max(best, base.rows[position])
        }
        return best
    }

    /// Whether some row holds a term beginning with `prefix`.
    func holdsTerm(beginningWith prefix: [Unicode.Scalar]) -> Bool {
        maxRows(beginningWith: prefix) > 0
    }

    /// The positions of the terms beginning with `prefix` (every term for an empty one) that some row holds, the
    /// most rows first (then term order), found one at a time: taking the first k costs O(k log count) beside the
    /// changed terms beginning with it.
    func byRows(beginningWith prefix: [Unicode.Scalar]) -> FrequencyOrder {
        let range = base.positions(beginningWith: prefix)
        var changed: [Int] = []
        if !range.isEmpty {
            for i in firstAdjustment(from: range.lowerBound)..<firstAdjustment(from: range.upperBound) where adjustedRows[i] > 0 {
                changed.append(adjustedPositions[i])
            }
        }
        changed += added.positions(beginningWith: prefix).map { base.count + $0 }
        changed.sort(by: precedes)
        return FrequencyOrder(dictionary: self, unchanged: base.byRows(range), changed: changed)
    }

    /// The terms beginning with a prefix, most rows first (see `byRows(beginningWith:)`): the base's own order
    /// without the changed terms, met with the changed ones, sorted.
    struct FrequencyOrder: Sequence, IteratorProtocol {
        let dictionary: TermDictionary
        fileprivate var unchanged: TermList.FrequencyOrder
        fileprivate let changed: [Int]
        private var upcoming: Int?
        private var taken = 0

        fileprivate init(dictionary: TermDictionary, unchanged: TermList.FrequencyOrder, changed: [Int]) {
            self.dictionary = dictionary
            self.unchanged = unchanged
            self.changed = changed
            upcoming = nextUnchanged()
        }

        private mutating func nextUnchanged() -> Int? {
            while let position = unchanged.next() {
                if dictionary.adjustment(of: position) == nil { return position }
            }
            return nil
        }

        mutating func next() -> Int? {
            if taken < changed.count, upcoming.map({ dictionary.precedes(changed[taken], $0) }) ?? true {
                taken += 1
                return changed[taken - 1]
            }
            guard let found = upcoming else { return nil }
            upcoming = nextUnchanged()
            return found
        }
    }
}

extension TermDictionary {
    /// One index's dictionary as kept: read at the FTS5 structure record `structure`, or brought to it by the
    /// writes of this process, whose row-count changes not applied yet are `changes` (see `applying(_:)`).
    struct Entry {
        let structure: [UInt8]
        let dictionary: TermDictionary
        var changes: TermChanges = [:]
    }

    /// Dictionaries per index (see `Entry` and `PhraseStatistics`).
    typealias Cache = [String: Entry]

    /// The terms of `index` from FTS5's `fts5vocab` (row form: each term with the rows holding it), kept in
    /// `settings` for as long as the index's structure record is the label of the entry: the writes of this process
    /// through the sync layer move the label with the dictionary (`TermDictionaryFollower`), any other write
    /// leaves it behind and the vocabulary is read again (counted in `termDictionaryReads`). Read anew (and not
    /// kept) inside a write transaction, whose pending rows FTS5 writes only at commit.
    static func of(_ index: String, in settings: FullTextSettings, on handle: Handle) throws -> TermDictionary {
        let cache = settings.termDictionaries
        let writing = sqlite3_txn_state(handle.raw, "main") == SQLITE_TXN_WRITE
        let structure = try FTSTableInfo.structureRecord(of: index, on: handle)
        if !writing, let structure, let kept = cache.withLock({ $0[index] }), kept.structure == structure {
            if kept.changes.isEmpty { return kept.dictionary }
            if let applied = kept.dictionary.applying(kept.changes) {
                cache.withLock { entries in
                    // Kept unless a write moved the entry meanwhile (its changes are then applied by the next search).
                    if let now = entries[index], now.structure == structure, now.dictionary === kept.dictionary {
                        entries[index] = Entry(structure: structure, dictionary: applied)
                    }
                }
                return applied
            }
        }
        // Inside a write transaction: the kept dictionary with what the transaction changed so far through this
        // connection's sync layer, when that is the index as the transaction sees it (not kept: it may roll back).
        if writing, let structure, let kept = cache.withLock({ $0[index] }),
           let pending = (handle.observer as? FullTextConnection)?.tracker.dictionaries
               .pendingChanges(of: index, keptAt: kept.structure, structure: structure) {
            let changes = TermDictionary.summing(kept.changes, pending)
            if changes.isEmpty { return kept.dictionary }
            if let applied = kept.dictionary.applying(changes) { return applied }
        }
        let dictionary: TermDictionary
        if let stored = try TermDictionaryStore.load(index, on: handle) {
            settings.termDictionaryLoads.withLock { $0 += 1 }
            dictionary = stored
        } else {
            settings.termDictionaryReads.withLock { $0 += 1 }
            dictionary = TermDictionary(terms: try FTSTableInfo.vocabulary(of: index, on: handle))
        }
        if !writing, let structure { cache.withLock { $0[index] = Entry(structure: structure, dictionary: dictionary) } }
        return dictionary
    }
}
