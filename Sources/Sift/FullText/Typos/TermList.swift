import CSQLite

/// Terms in sorted order (Unicode scalar order, which is FTS5's byte order of UTF-8), with the rows holding
/// each, in flat arrays, walked with an ``EditAutomaton`` to find the terms within a few edits of a word: the
/// storage of a `TermDictionary` (its base, and the terms added since it was read).
///
/// The walk goes through the terms in order and keeps the automaton's state for each scalar of the current
/// term, so a term shares the states of its common prefix with the term before it; when a prefix can no longer
/// match within the budget, every term beginning with it is skipped at once (found by binary search). The cost
/// is that of the states on the paths the automaton can still follow, never an edit distance per term.
///
/// The terms' scalars are kept end to end in one array (with each term's start), not as an array per term: a
/// vocabulary of millions of terms then costs a few bytes per scalar and per term, not an allocation each.
final class TermList: Sendable {
    /// Every term's scalars, in term order.
    private let scalars: [Unicode.Scalar]
    /// Where each term starts in `scalars`, and its end as the last element.
    private let termOffsets: [UInt32]
    /// The rows holding each term (FTS5's `doc` count).
    let rows: [Int64]
    /// A max tree over `rows` (the iterative segment tree: leaf `count + i` is term `i`, each inner node the
    /// better of its two children), holding positions: the term of most rows in any range of positions in
    /// O(log count), so the terms beginning with a prefix come most frequent first without sorting them all.
    private let mostRows: [UInt32]

    /// The most scalars a term has.
    private let longestTerm: Int

    /// How many terms there are.
    var count: Int { rows.count }

    /// The scalars of the term at `position` (0 ..< count), in sorted order.
    func term(_ position: Int) -> ArraySlice<Unicode.Scalar> {
        scalars[Int(termOffsets[position])..<Int(termOffsets[position + 1])]
    }

    /// One term found by a walk: its position (see `term(_:)`) and the edits it costs (with the first letter's rule).
    struct Match: Equatable, Sendable {
        let term: Int
        let edits: Int
    }

    /// A term found by an aligned walk: the term is within `edits` of the word's first `cut` scalars, the rest of
    /// the word (its last `count - cut` scalars) left over as a stemmer's suffix would be.
    struct AlignedMatch: Equatable, Sendable {
        let term: Int
        let cut: Int
        let edits: Int
    }

    /// A prefix found by a prefix walk: every term beginning with `prefix` matches with `edits`.
    struct PrefixMatch: Equatable, Sendable {
        let prefix: [Unicode.Scalar]
        let edits: Int
        /// The rows of the most frequent term beginning with the prefix.
        let rows: Int64
    }

    /// Terms given in any order; duplicates keep their first row count.
    convenience init(terms given: [(term: String, rows: Int64)]) {
        var sorted = given.map { (Array($0.term.unicodeScalars), $0.rows) }
        sorted.sort { $0.0.lexicographicallyPrecedes($1.0) { $0.value < $1.value } }
        var builder = Builder()
        var last: [Unicode.Scalar]?
        for (term, count) in sorted where last != term {
            builder.append(term, rows: count)
            last = term
        }
        self.init(builder)
    }

    /// Terms appended in sorted order, each once: what a `TermList` is made of.
    struct Builder {
        fileprivate var scalars: [Unicode.Scalar] = []
        fileprivate var termOffsets: [UInt32] = [0]
        fileprivate var rows: [Int64] = []

        /// Appends a term, which must follow every term appended before in term order.
        mutating func append(_ term: some Collection<Unicode.Scalar>, rows count: Int64) {
            scalars += term
            termOffsets.append(UInt32(truncatingIfNeeded: scalars.count))
            rows.append(count)
        }
    }

    /// The terms of `builder`, in the order they were appended.
    init(_ builder: Builder) {
        let (scalars, termOffsets, rows) = (builder.scalars, builder.termOffsets, builder.rows)
        self.longestTerm = zip(termOffsets.dropFirst(), termOffsets).map { Int($0 - $1) }.max() ?? 0
        self.scalars = scalars
        self.termOffsets = termOffsets
        self.rows = rows
        var mostRows = [UInt32](repeating: 0, count: 2 * rows.count)
        for i in rows.indices { mostRows[rows.count + i] = UInt32(truncatingIfNeeded: i) }
        for node in stride(from: rows.count - 1, to: 0, by: -1) {
            let (left, right) = (mostRows[2 * node], mostRows[2 * node + 1])
            mostRows[node] = TermList.precedes(left, right, rows) ? left : right
        }
        self.mostRows = mostRows
    }

    /// How many terms each letter is written in, counted once per occurrence (alphabetic scalars, not CJK ones,
    /// whose words are never corrected): what a dictionary's alphabet is chosen from.
    func letterCounts() -> [Unicode.Scalar: Int] {
        var letters: [Unicode.Scalar: Int] = [:]
        for scalar in scalars where TermList.isLetter(scalar) { letters[scalar, default: 0] += 1 }
        return letters
    }

    /// Whether `scalar` counts in a dictionary's alphabet.
    static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic && !SearchQuery.isCJK(scalar)
    }

    /// The position of `term`, nil when the list does not hold it.
    func position(of term: some Collection<Unicode.Scalar>) -> Int? {
        let first = lowerBound(term)
        return first < count && self.term(first).elementsEqual(term) ? first : nil
    }

    /// Whether term `a` comes before term `b` in frequency order: more rows, then term order.
    static func precedes(_ a: UInt32, _ b: UInt32, _ rows: [Int64]) -> Bool {
        rows[Int(a)] != rows[Int(b)] ? rows[Int(a)] > rows[Int(b)] : a < b
    }

    /// The term at `position` as a string.
    func text(_ position: Int) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: term(position))
        return text
    }

    /// The terms within the automaton's budget of its word, in term order. With `firstLetterCostsTwo`, a term
    /// whose first scalar differs from the word's costs one edit more than its distance (Meilisearch's rule: a
    /// typo on the first letter counts twice), so within a budget of one edit the first letter must match.
    func matches(_ automaton: EditAutomaton, firstLetterCostsTwo: Bool = true) -> [Match] {
        var found: [Match] = []
        walk(automaton, firstLetterCostsTwo: firstLetterCostsTwo) { position, row, depth, extra in
            guard depth == length(position), row[row.count - 1] + extra <= automaton.maxEdits else { return false }
            found.append(Match(term: position, edits: row[row.count - 1] + extra))
            return false
        }
        return found
    }

    /// The terms within the automaton's budget of the word's first `cut` scalars, for every `cut` that leaves at most
    /// `tail` scalars of the word over (a cut of the whole word included), each term with its cuts in increasing
    /// order and the same first letter's rule as `matches`. This is how a typed word meets the stem of the word it
    /// stands for: "traning" is one edit from the stem "train" followed by "ing".
    func alignedMatches(_ automaton: EditAutomaton, tail: Int, firstLetterCostsTwo: Bool = true) -> [AlignedMatch] {
        var found: [AlignedMatch] = []
        let wordLength = automaton.word.count
        let cuts = max(1, wordLength - max(0, tail))...max(1, wordLength)
        walk(automaton, firstLetterCostsTwo: firstLetterCostsTwo) { position, row, depth, extra in
            guard depth == length(position) else { return false }
            for cut in cuts where cut < row.count && row[cut] + extra <= automaton.maxEdits {
                found.append(AlignedMatch(term: position, cut: cut, edits: row[cut] + extra))
            }
            return false
        }
        return found
    }

    /// The shortest prefixes of terms within the budget of the automaton's word that are neither a prefix of the
    /// word nor begin with it (those the exact prefix covers), each with the edits it costs: a prefix search
    /// with typos on its typed part. Every term beginning with a prefix found is covered by it, and no prefix
    /// found begins with another.
    func prefixMatches(_ automaton: EditAutomaton, firstLetterCostsTwo: Bool = true) -> [PrefixMatch] {
        var found: [PrefixMatch] = []
        let word = automaton.word
        walk(automaton, firstLetterCostsTwo: firstLetterCostsTwo) { position, row, depth, extra in
            let distance = row[row.count - 1]
            guard distance + extra <= automaton.maxEdits else { return false }
            let prefix = Array(term(position).prefix(depth))
            if prefix.starts(with: word) { return true }  // the exact prefix covers these terms
            if word.starts(with: prefix) { return false }
            let end = self.end(ofPrefix: prefix, from: position)
            found.append(PrefixMatch(prefix: prefix, edits: distance + extra, rows: rows[position..<end].max() ?? 0))
            return true
        }
        return found
    }

    /// Walks the terms with shared-prefix states. `visit(term, row, depth, extra)` is called for each state
    /// reached along a term (depth scalars read, `row` the automaton's row after them; `extra` the first letter's
    /// added cost) that can still match, and returns true to skip every term beginning with those scalars.
    ///
    /// The rows of the current path are kept end to end in one buffer (a row per depth), the path's scalars in
    /// another: a term visited costs no allocation, only the rows past the prefix it shares with the term before.
    private func walk(_ automaton: EditAutomaton, firstLetterCostsTwo: Bool,
                      _ visit: (Int, UnsafeBufferPointer<Int>, Int, Int) -> Bool) {
        let word = automaton.word
        let width = word.count + 1
        let longest = longestTerm
        var rows = [Int](repeating: 0, count: width * (longest + 1))
        for (j, value) in automaton.start.row.enumerated() { rows[j] = value }
        var path: [Unicode.Scalar] = []
        path.reserveCapacity(longest)
        let budget = automaton.maxEdits
        rows.withUnsafeMutableBufferPointer { rows in
            func row(_ depth: Int) -> UnsafeMutableBufferPointer<Int> {
                UnsafeMutableBufferPointer(rebasing: rows[(depth * width)..<(depth * width + width)])
            }
            var position = 0
            while position < count {
                let start = Int(termOffsets[position]), length = Int(termOffsets[position + 1]) - start
                // The rows of the prefix this term shares with the one before are kept; the rest are computed anew.
                var common = 0
                while common < path.count && common < length && path[common] == scalars[start + common] { common += 1 }
                path.removeLast(path.count - common)
                var skipped = false
                while path.count < length {
                    let depth = path.count, scalar = scalars[start + depth]
                    let next = row(depth + 1)
                    automaton.fill(next, after: UnsafeBufferPointer(row(depth)),
                                   before: depth > 0 ? UnsafeBufferPointer(row(depth - 1)) : nil,
                                   last: depth > 0 ? path[depth - 1] : nil, scalar)
                    path.append(scalar)
                    let extra = firstLetterCostsTwo && !word.isEmpty && path[0] != word[0] ? 1 : 0
                    let reached = UnsafeBufferPointer(next)
                    if !reached.contains(where: { $0 <= budget - extra }) || visit(position, reached, depth + 1, extra) {
                        skipped = true
                        break
                    }
                }
                if skipped {
                    position = end(ofPrefix: path[...], from: position)
                } else {
                    position += 1
                }
            }
        }
    }

    /// The number of scalars of the term at `position`.
    private func length(_ position: Int) -> Int {
        Int(termOffsets[position + 1] - termOffsets[position])
    }

    /// The rows holding `term`, 0 when the index does not hold it.
    func rows(of term: [Unicode.Scalar]) -> Int64 {
        position(of: term).map { rows[$0] } ?? 0
    }

    /// The rows of the most frequent term beginning with `prefix`, 0 when none does.
    func maxRows(beginningWith prefix: [Unicode.Scalar]) -> Int64 {
        let first = lowerBound(prefix)
        guard first < count, term(first).starts(with: prefix) else { return 0 }
        return rows[first..<end(ofPrefix: prefix, from: first)].max() ?? 0
    }

    /// The positions of the terms beginning with `prefix` (every term for an empty prefix).
    func positions(beginningWith prefix: [Unicode.Scalar]) -> Range<Int> {
        let first = lowerBound(prefix)
        guard first < count, term(first).starts(with: prefix) else { return first..<first }
        return first..<end(ofPrefix: prefix, from: first)
    }

    /// The position of the term of most rows in `range` (the first in term order among equals); nil when empty.
    private func mostFrequent(in range: Range<Int>) -> Int? {
        var best: UInt32?
        var low = range.lowerBound + count, high = range.upperBound + count
        func take(_ node: Int) {
            let candidate = mostRows[node]
            if best.map({ TermList.precedes(candidate, $0, rows) }) ?? true { best = candidate }
        }
        while low < high {
            if low & 1 == 1 { take(low); low += 1 }
            if high & 1 == 1 { high -= 1; take(high) }
            low >>= 1
            high >>= 1
        }
        return best.map(Int.init)
    }

    /// The positions in `range`, the most rows first (then term order), found one at a time: taking the first
    /// k costs O(k log count), however many terms the range holds.
    func byRows(_ range: Range<Int>) -> FrequencyOrder {
        FrequencyOrder(dictionary: self, range: range.clamped(to: 0..<count))
    }

    /// The terms of a range of positions, most rows first (see `byRows(_:)`): a heap of sub-ranges, each keyed by
    /// its most frequent term; taking a term splits its range in two around it.
    struct FrequencyOrder: Sequence, IteratorProtocol {
        let dictionary: TermList
        /// Sub-ranges still to take from, with their most frequent term: a binary heap on that term's order.
        private var heap: [(best: Int, range: Range<Int>)] = []

        init(dictionary: TermList, range: Range<Int>) {
            self.dictionary = dictionary
            push(range)
        }

        mutating func next() -> Int? {
            guard let top = heap.first else { return nil }
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
            push(top.range.lowerBound..<top.best)
            push((top.best + 1)..<top.range.upperBound)
            return top.best
        }

        private func before(_ a: Int, _ b: Int) -> Bool {
            TermList.precedes(UInt32(heap[a].best), UInt32(heap[b].best), dictionary.rows)
        }

        private mutating func push(_ range: Range<Int>) {
            guard let best = dictionary.mostFrequent(in: range) else { return }
            heap.append((best, range))
            var child = heap.count - 1
            while child > 0, case let parent = (child - 1) / 2, before(child, parent) {
                heap.swapAt(child, parent)
                child = parent
            }
        }

        private mutating func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var best = parent
                if left < heap.count && before(left, best) { best = left }
                if right < heap.count && before(right, best) { best = right }
                if best == parent { return }
                heap.swapAt(parent, best)
                parent = best
            }
        }
    }

    /// The position of the first term not before `text`.
    func lowerBound(_ text: some Collection<Unicode.Scalar>) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if term(middle).lexicographicallyPrecedes(text, by: { $0.value < $1.value }) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The position after the last term beginning with `prefix`, searching from `start` (a term that begins with it).
    func end(ofPrefix prefix: some Collection<Unicode.Scalar>, from start: Int) -> Int {
        var low = start + 1, high = count
        while low < high {
            let middle = (low + high) / 2
            if term(middle).starts(with: prefix) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
