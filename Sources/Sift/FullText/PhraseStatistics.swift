import CSQLite

/// The collection statistics sift_rank and sift_inb2 need per phrase of a query, n (the rows holding it) and F (its
/// instances in them), kept between searches: counting them reads every row of the phrase, which for a frequent
/// word is most of a search's time (InB2's F reads its positions too).
///
/// One cache per database and index, valid for one state of the index: FTS5's structure record (the row with id 10
/// of `<index>_data`, which every write to the index rewrites and a rollback restores) is its key, compared as
/// bytes, never parsed. A search whose snapshot holds another structure counts anew and replaces the cache. Inside
/// a write transaction nothing is kept or used: FTS5 searches the transaction's pending rows before it writes them
/// (and with them the structure record) at commit. Only
/// the phrases of plain `.allTerms`/`.anyTerm` expressions are kept (a column filter, a prefix or NEAR changes what a
/// phrase counts).
struct PhraseStatistics {
    struct Counts: Hashable, Sendable {
        var rows: Int64
        var instances: Int64
    }

    /// Per index: the structure record the counts were taken at, and the counts by phrase text.
    typealias Cache = [String: (structure: [UInt8], counts: [String: Counts])]

    /// At most this many phrases are kept per index (then the cache starts again).
    static let capacity = 20_000

    /// The counts of the phrases of `tree` in FTS5's order (as `sift_rank_df` and `sift_inb2_df` take them), or nil
    /// (the function then counts them) when the expression is not a plain list of phrases and groups of phrases;
    /// see `counts(of:in:)`.
    ///
    /// A group (an OR of phrases inside the list) is one query word, first, with its corrected variants
    /// (``TypoTolerance``): each variant gets the counts of the group's most frequent member, as Lucene's fuzzy query
    /// blends its terms' document frequencies, so a rare variant does not outweigh the common word it stands for.
    /// The word as typed keeps its own counts: it scores as it would without typo tolerance.
    static func counts(of tree: FTS5Expression, in index: String, cache: Locked<Cache>, on handle: Handle) throws -> [Counts]? {
        var texts: [String] = [], groups: [Range<Int>] = []
        switch tree {
        case .string(let text): texts = [text]
        case .all(let operands), .any(let operands):
            for operand in operands {
                switch operand {
                case .string(let text): texts.append(text)
                case .any(let members):
                    let start = texts.count
                    for member in members {
                        guard case .string(let text) = member else { return nil }
                        texts.append(text)
                    }
                    groups.append(start..<texts.count)
                default: return nil
                }
            }
        default: return nil
        }
        guard let counts = try counts(ofPhrases: texts, in: index, cache: cache, on: handle) else { return nil }
        return sharing(counts, in: groups)
    }

    /// `counts` with each group's variants (every phrase of a group but its first, the word as typed) given the
    /// counts of the group's most frequent member: the one rule FTS5's plan and the pruned plan score groups by.
    static func sharing(_ counts: [Counts], in groups: some Sequence<Range<Int>>) -> [Counts] {
        var counts = counts
        for group in groups {
            guard let top = counts[group].max(by: { $0.rows < $1.rows }) else { continue }
            for i in group.dropFirst() { counts[i] = top }
        }
        return counts
    }

    /// The counts of each phrase (text searched as one quoted phrase, no column filter), or nil in a write
    /// transaction or when the index's structure cannot be read.
    static func counts(ofPhrases phrases: [String], in index: String, cache: Locked<Cache>, on handle: Handle) throws -> [Counts]? {
        guard sqlite3_txn_state(handle.raw, "main") != SQLITE_TXN_WRITE else { return nil }
        guard let structure = try FTSTableInfo.structureRecord(of: index, on: handle) else { return nil }
        var known = cache.withLock { cache in cache[index].flatMap { $0.structure == structure ? $0.counts : nil } } ?? [:]
        let missing = Array(Set(phrases.filter { known[$0] == nil })).sorted()
        if !missing.isEmpty {
            let q = SQLBuilder.quote(index)
            let sql = "SELECT sift_phrase_counts(\(q)) FROM \(q) WHERE \(q) MATCH ? LIMIT 1"
            let counted = try handle.withStatement(sql) { stmt -> [Counts]? in
                try handle.bind([FundamentalValue(missing.map(FTS5Expression.quote).joined(separator: " OR "))], to: stmt, sql: sql)
                guard try handle.step(stmt) else { return [] }
                return RawStatement.text(stmt, 0).split(separator: " ").compactMap { pair in
                    let numbers = pair.split(separator: "/").compactMap { Int64($0) }
                    return numbers.count == 2 ? Counts(rows: numbers[0], instances: numbers[1]) : nil
                }
            }
            // No row holds any of them: each is in no row. A phrase FTS5 tokenizes to nothing has no count here.
            guard let counted, counted.isEmpty || counted.count == missing.count else { return nil }
            for (i, phrase) in missing.enumerated() { known[phrase] = counted.isEmpty ? Counts(rows: 0, instances: 0) : counted[i] }
            let kept = known.count > capacity ? [:] : known
            cache.withLock { $0[index] = (structure, kept) }
        }
        return phrases.map { known[$0] ?? Counts(rows: 0, instances: 0) }
    }
}
