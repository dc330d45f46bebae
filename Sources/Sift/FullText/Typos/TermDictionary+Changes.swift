/// Rows gained per term (negative: rows lost), each term by its UTF-8 bytes: not by `String`, which compares
/// by canonical equivalence, where FTS5 keeps "é" and "e\u{301}" as two terms.
typealias TermChanges = [[UInt8]: Int64]

extension TermDictionary {
    /// The changes a dictionary keeps beside its base before merging them into one list: a sixteenth of the base's
    /// terms, and at least this many (a merge costs a pass over every term; a walk, one over the changed ones too).
    static let minimumMergeThreshold = 1_024

    /// `changes` and `more` (term to rows gained) summed, without the terms whose sum is 0.
    static func summing(_ changes: TermChanges, _ more: TermChanges) -> TermChanges {
        var sum = changes
        add(more, to: &sum)
        return sum
    }

    /// Adds `more` (term to rows gained) to `changes` in place, dropping the terms whose sum is 0: a cost in the
    /// size of `more`, however many changes `changes` holds (when nothing else holds them).
    static func add(_ more: TermChanges, to changes: inout TermChanges) {
        for (term, change) in more where change != 0 {
            let total = changes[term, default: 0] + change
            changes[term] = total == 0 ? nil : total
        }
    }

    /// This dictionary with the row counts of terms changed by `changes` (term to rows gained, negative for rows
    /// lost), as FTS5's vocabulary would count them after the writes they sum up; a term whose count reaches 0 is no
    /// longer found. Nil when a change takes a count below 0: the changes do not follow from this dictionary's
    /// terms, and the vocabulary must be read again.
    ///
    /// The changed terms stay beside the base (see ``TermDictionary``) until they number more than
    /// `mergeThreshold` (a sixteenth of the base by default), when base and changes become one list.
    func applying(_ changes: TermChanges, mergeThreshold: Int? = nil) -> TermDictionary? {
        var adjusted = Dictionary(uniqueKeysWithValues: zip(adjustedPositions, adjustedRows))
        var addedRows: [Int: Int64] = [:]  // positions in `added` whose count changed (0: gone)
        var new: [([Unicode.Scalar], Int64)] = []
        var letters = self.letters
        func count(_ term: some Collection<Unicode.Scalar>, from old: Int64, to now: Int64) {
            guard (old > 0) != (now > 0) else { return }
            for scalar in term where TermList.isLetter(scalar) { letters[scalar, default: 0] += now > 0 ? 1 : -1 }
        }
        for (text, change) in changes where change != 0 {
            let term = Array(String(decoding: text, as: UTF8.self).unicodeScalars)
            if let position = base.position(of: term) {
                let old = adjusted[position] ?? base.rows[position], now = old + change
                guard now >= 0 else { return nil }
                adjusted[position] = now == base.rows[position] ? nil : now
                count(term, from: old, to: now)
            } else if let position = added.position(of: term) {
                let old = addedRows[position] ?? added.rows[position], now = old + change
                guard now >= 0 else { return nil }
                addedRows[position] = now
                count(term, from: old, to: now)
            } else {
                guard change > 0 else { return nil }
                new.append((term, change))
                count(term, from: 0, to: change)
            }
        }
        new.sort { $0.0.lexicographicallyPrecedes($1.0) { $0.value < $1.value } }
        letters = letters.filter { $0.value > 0 }
        let threshold = mergeThreshold ?? max(Self.minimumMergeThreshold, base.count / 16)
        let addedCount = added.count + new.count - addedRows.values.filter { $0 <= 0 }.count
        if adjusted.count + addedCount > threshold {
            return TermDictionary(base: merged(adjusted: adjusted, addedRows: addedRows, new: new), added: TermList(TermList.Builder()),
                                  adjusted: [], letters: letters)
        }
        // The added terms and the new ones, in term order.
        var builder = TermList.Builder()
        appendAdded(addedRows: addedRows, new: new, to: &builder)
        return TermDictionary(base: base, added: TermList(builder),
                              adjusted: adjusted.sorted { $0.key < $1.key }.map { (position: $0.key, rows: $0.value) },
                              letters: letters)
    }

    /// The terms of `added` with their counts now (`addedRows`) and the `new` ones (in term order), in term order,
    /// each some row holds, appended to `builder`.
    private func appendAdded(addedRows: [Int: Int64], new: [([Unicode.Scalar], Int64)], to builder: inout TermList.Builder) {
        var j = 0
        for position in 0..<added.count {
            let term = added.term(position)
            while j < new.count && new[j].0.lexicographicallyPrecedes(term, by: { $0.value < $1.value }) {
                builder.append(new[j].0, rows: new[j].1)
                j += 1
            }
            let rows = addedRows[position] ?? added.rows[position]
            if rows > 0 { builder.append(term, rows: rows) }
        }
        for (term, rows) in new[j...] { builder.append(term, rows: rows) }
    }

    /// Base, added and new terms as one list in term order, without the terms no row holds.
    private func merged(adjusted: [Int: Int64], addedRows: [Int: Int64], new: [([Unicode.Scalar], Int64)]) -> TermList {
        var others = TermList.Builder()
        appendAdded(addedRows: addedRows, new: new, to: &others)
        let rest = TermList(others)
        var builder = TermList.Builder()
        var j = 0
        for position in 0..<base.count {
            let term = base.term(position)
            while j < rest.count && rest.term(j).lexicographicallyPrecedes(term, by: { $0.value < $1.value }) {
                builder.append(rest.term(j), rows: rest.rows[j])
                j += 1
            }
            let rows = adjusted[position] ?? base.rows[position]
            if rows > 0 { builder.append(term, rows: rows) }
        }
        while j < rest.count {
            builder.append(rest.term(j), rows: rest.rows[j])
            j += 1
        }
        return TermList(builder)
    }
}
