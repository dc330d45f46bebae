/// How many of a search's matching rows hold each value of one facet (a column of the content table): every row
/// that matched, not only the page of hits (``SearchOptions/facets``).
///
/// Values are counted as SQLite's `GROUP BY` groups them: one entry per distinct value of any storage class (the
/// integer 1 and the text "1" apart, the integer 1 and the real 1.0 together), NULL counted as one value of its own
/// (``FundamentalValue/null``), so the counts add up to the number of matching rows.
///
///     let results: SearchResults<Article> = try database.search("coffee", in: "articles_fts",
///                                                               options: SearchOptions(facets: ["category"]))
///     let category = results.facets["category"]
///     category?.counts["drinks"]          // 412
///     category?.top.first?.value          // "drinks": the most frequent value
///     category?.distinctCount             // 7 distinct categories among the matches
public struct FacetDistribution: Sendable, Hashable {
    /// One value and how many matching rows hold it.
    public struct ValueCount: Sendable, Hashable {
        /// The value, as stored (``FundamentalValue/null`` for NULL).
        public let value: FundamentalValue
        /// How many matching rows hold it (at least 1).
        public let count: Int
    }

    /// The facet's column.
    public let field: String
    /// The count of every value held by at least one matching row.
    public let counts: [FundamentalValue: Int]
    /// The most frequent values, at most ``SearchOptions/facetLimit`` of them: by count, largest first, ties in
    /// SQLite's order of the values (NULL, numbers, texts, blobs).
    public let top: [ValueCount]
    /// How many distinct values the matching rows hold (NULL included when one of them is NULL).
    public var distinctCount: Int { counts.count }
    /// Whether the counts came from the facet's structure (else from a `GROUP BY` over the matches).
    let countedFromStructure: Bool
    /// Whether the matching rows were read from the score bounds' postings (else through FTS5).
    let matchesFromPostings: Bool

    init(field: String, counts: [FundamentalValue: Int], limit: Int, countedFromStructure: Bool = false,
         matchesFromPostings: Bool = false) {
        self.countedFromStructure = countedFromStructure
        self.matchesFromPostings = matchesFromPostings
        self.field = field
        self.counts = counts
        top = Self.best(counts, limit: max(0, limit))
    }

    /// The `limit` entries that come first by count, then value, in that order, without sorting all of them (a
    /// facet of 10,000 values asked for its top 10 compares each value with the 10th best so far, about once).
    static func best(_ counts: [FundamentalValue: Int], limit: Int) -> [ValueCount] {
        func before(_ a: ValueCount, _ b: ValueCount) -> Bool { a.count != b.count ? a.count > b.count : precedes(a.value, b.value) }
        var best: [ValueCount] = []
        best.reserveCapacity(limit + 1)
        for (value, count) in counts {
            let entry = ValueCount(value: value, count: count)
            if best.count == limit, let last = best.last, !before(entry, last) { continue }
            var low = 0, high = best.count
            while low < high {
                let middle = (low + high) / 2
                if before(best[middle], entry) { low = middle + 1 } else { high = middle }
            }
            best.insert(entry, at: low)
            if best.count > limit { best.removeLast() }
        }
        return best
    }

    /// SQLite's order of values of any storage class: NULL, then numbers, then texts (byte order), then blobs.
    static func precedes(_ a: FundamentalValue, _ b: FundamentalValue) -> Bool {
        func rank(_ value: FundamentalValue) -> Int {
            switch value.storage {
            case .null: return 0
            case .integer, .float: return 1
            case .text: return 2
            case .blob: return 3
            }
        }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb }
        switch (a.storage, b.storage) {
        case (.text(let x), .text(let y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
        case (.blob(let x), .blob(let y)): return x.lexicographicallyPrecedes(y)
        case (.integer(let x), .integer(let y)): return x < y
        default: return a.doubleValue < b.doubleValue
        }
    }
}
