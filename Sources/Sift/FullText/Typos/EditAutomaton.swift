/// The Damerau-Levenshtein automaton of one word: which texts are within `maxEdits` edits of it, read one Unicode
/// scalar at a time.
///
/// The distance is the optimal string alignment form of Damerau-Levenshtein (insertions, deletions,
/// substitutions and transpositions of two adjacent scalars, each costing one; a transposed pair is not edited
/// again), the distance Lucene's `LevenshteinAutomata` with transpositions and Meilisearch's automata accept. A
/// state is one row of the dynamic program (the distance of the text read so far to each prefix of the word) with
/// the row before it and the last scalar read, which a transposition needs. Values are capped at `maxEdits + 1`:
/// nothing beyond the budget is told apart.
///
/// `canMatch` says whether any continuation of the text read so far can still end within the budget (the row's
/// smallest value is within it), so a walk over sorted terms skips every term that shares a hopeless prefix.
struct EditAutomaton: Sendable {
    let word: [Unicode.Scalar]
    let maxEdits: Int

    /// The state after some text: `row[j]` is the distance of that text to the word's first `j` scalars.
    struct State: Sendable, Equatable {
        fileprivate(set) var row: [Int]
        fileprivate var previous: [Int]
        fileprivate var last: Unicode.Scalar?
    }

    init(_ word: [Unicode.Scalar], maxEdits: Int) {
        self.word = word
        self.maxEdits = max(0, maxEdits)
    }

    init(_ word: String, maxEdits: Int) {
        self.init(Array(word.unicodeScalars), maxEdits: maxEdits)
    }

    /// The state before any text.
    var start: State {
        let cap = maxEdits + 1
        let row = (0...word.count).map { min($0, cap) }
        return State(row: row, previous: row, last: nil)
    }

    /// The state after `state`'s text followed by `scalar`.
    func step(_ state: State, _ scalar: Unicode.Scalar) -> State {
        var next = [Int](repeating: 0, count: state.row.count)
        state.row.withUnsafeBufferPointer { row in
            state.previous.withUnsafeBufferPointer { previous in
                next.withUnsafeMutableBufferPointer { next in
                    fill(next, after: row, before: state.last == nil ? nil : previous, last: state.last, scalar)
                }
            }
        }
        return State(row: next, previous: state.row, last: scalar)
    }

    /// Writes into `next` the row after `row`'s text followed by `scalar`, where `before` is the row before `row`
    /// and `last` the scalar between them (nil, with `before`, at the start): the one formula `step` and the term
    /// dictionary's walk use, without allocating.
    func fill(_ next: UnsafeMutableBufferPointer<Int>, after row: UnsafeBufferPointer<Int>,
              before: UnsafeBufferPointer<Int>?, last: Unicode.Scalar?, _ scalar: Unicode.Scalar) {
        let cap = maxEdits + 1
        next[0] = min(row[0] + 1, cap)
        guard row.count > 1 else { return }
        for j in 1..<row.count {
            var value = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (word[j - 1] == scalar ? 0 : 1))
            if j >= 2, let last, let before, word[j - 2] == scalar, word[j - 1] == last {
                value = min(value, before[j - 2] + 1)
            }
            next[j] = min(value, cap)
        }
    }

    /// The state after `text`.
    func state(after text: some Sequence<Unicode.Scalar>) -> State {
        text.reduce(start, step)
    }

    /// The distance of the text read to the whole word, or nil when it is more than `maxEdits`.
    func distance(_ state: State) -> Int? {
        let value = state.row[state.row.count - 1]
        return value <= maxEdits ? value : nil
    }

    /// Whether some text beginning with the text read is within `budget` (at most `maxEdits`) of the word.
    func canMatch(_ state: State, within budget: Int? = nil) -> Bool {
        let budget = min(budget ?? maxEdits, maxEdits)
        return state.row.contains { $0 <= budget }
    }
}
