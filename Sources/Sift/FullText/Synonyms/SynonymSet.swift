/// An index's synonym list normalized by the index's tokenizer, as searches match it against the words of a query.
///
/// Each entry typed becomes its query tokens (folded, stemmed, CJK segmented as the tokenizer does a query), and
/// maps to the entries it also finds, as written: a search puts those in the query as FTS5 strings, which FTS5
/// tokenizes with the same tokenizer, so a multi-word entry is a phrase.
struct SynonymSet: Sendable {
    /// Where a query's words hold an entry: the segments it covers and the entries it also finds.
    struct Match: Equatable {
        let segments: Range<Int>
        let synonyms: [String]
    }

    /// Finds the entries a query's segments hold (see ``matches(in:_:)``).
    typealias Finder = ([SearchQuery.Segment]) throws -> [Match]

    /// Each word or run of words finds at most this many synonyms (the first in the list's order): a two-way group of
    /// a thousand entries makes a query of 33 phrases per word, not of a thousand.
    static let maxSynonyms = 32

    /// The entries each normalized entry finds, without those that normalize to the entry itself.
    private let found: [[String]: [String]]
    /// The most tokens an entry typed has.
    private let longest: Int

    /// The set of `rules` under `tokenize` (an entry's query tokens); entries without tokens are left out.
    init(_ rules: [SynonymRule], tokenize: (String) throws -> [String]) throws {
        var tokens: [String: [String]] = [:]
        func normalized(_ entry: String) throws -> [String] {
            if let known = tokens[entry] { return known }
            let found = try tokenize(entry)
            tokens[entry] = found
            return found
        }
        var found: [[String]: [String]] = [:], seen: [[String]: Set<[String]>] = [:]
        var longest = 0
        for rule in rules {
            let (typedSide, foundSide) = rule.sides
            for typed in typedSide {
                let key = try normalized(typed)
                guard !key.isEmpty else { continue }
                // Stops at the cap, so a group of n entries costs n * maxSynonyms steps, not n * n.
                for other in foundSide where found[key, default: []].count < Self.maxSynonyms {
                    let value = try normalized(other)
                    guard !value.isEmpty, key != value, seen[key, default: []].insert(value).inserted else { continue }
                    found[key, default: []].append(other)
                    longest = max(longest, key.count)
                }
            }
        }
        self.found = found
        self.longest = longest
    }

    var isEmpty: Bool { found.isEmpty }

    /// The entries `segments` hold, left to right, each the longest that starts at its segment, never overlapping:
    /// a run of whole segments whose tokens (`tokenize`) are an entry's. A CJK run is one segment, so an entry in
    /// Chinese or Japanese matches a run typed alone or between spaces (`資料庫`), not part of a longer run.
    func matches(in segments: [SearchQuery.Segment], _ tokenize: (String) throws -> [String]) throws -> [Match] {
        guard !found.isEmpty else { return [] }
        let tokens = try segments.map { try tokenize($0.text) }
        var matches: [Match] = []
        var i = 0
        while i < segments.count {
            var matched: Match?
            var key: [String] = []
            var ends: [(end: Int, key: [String])] = []
            for j in i..<segments.count {
                key += tokens[j]
                guard key.count <= longest else { break }
                ends.append((j + 1, key))
            }
            for (end, key) in ends.reversed() {
                if let synonyms = found[key] { matched = Match(segments: i..<end, synonyms: synonyms); break }
            }
            if let matched {
                matches.append(matched)
                i = matched.segments.upperBound
            } else {
                i += 1
            }
        }
        return matches
    }
}
