import Foundation

/// One line of a full-text index's synonym list: words that find each other, or words that also find others.
///
/// An entry is a word or several (a multi-word entry matches as a phrase), in any script. Searches normalize
/// entries with the index's own tokenizer, as they do the words typed, so case, diacritics, stemming and CJK
/// segmentation apply to both alike: `"Car"` and `"cars"` are the entry `car` on an English-stemmed index.
///
///     let rules: [SynonymRule] = [
///         .equivalent(["car", "automobile", "auto"]),       // each finds the others
///         .oneWay(from: ["nyc"], to: ["new york city"]),    // "nyc" also finds "new york city", not the reverse
///         .equivalent(["資料庫", "数据库"]),                    // traditional and simplified Chinese
///     ]
///     try database.addSynonyms(rules, to: "articles_fts")
///
/// A rule is kept in canonical form: each entry trimmed, its white space runs made one space, duplicates removed
/// and the entries sorted, so `.equivalent(["auto", "car"])` and `.equivalent(["car", " auto "])` are one rule.
/// ``description`` writes it as a line of Solr's synonyms format (`car, automobile, auto`, `nyc => new york city`).
public enum SynonymRule: Sendable, Hashable, CustomStringConvertible {
    /// Each entry finds every other (a two-way group, Solr's `a, b, c`).
    case equivalent([String])
    /// Each entry of `from` also finds each entry of `to`, not the reverse (Solr's `a => b`).
    case oneWay(from: [String], to: [String])

    /// At most this many UTF-8 bytes in an entry.
    public static let maxEntryBytes = 256
    /// At most this many entries in one rule (both sides of a one-way rule together).
    public static let maxEntries = 1_000

    /// The rule in canonical form (see the type's discussion), or a ``SiftError`` (code `.misuse`) when an entry
    /// is empty, longer than ``maxEntryBytes``, or holds a control character, when a rule has more than
    /// ``maxEntries`` entries, a two-way group fewer than two different entries, or a one-way rule an empty side
    /// (after its `to` entries that are also `from` entries are dropped).
    public func canonical() throws -> SynonymRule {
        switch self {
        case .equivalent(let entries):
            let group = try SynonymRule.canonical(entries)
            guard group.count >= 2 else {
                throw SynonymRule.invalid("A two-way synonym group needs at least two different entries: \(entries).")
            }
            return .equivalent(group)
        case .oneWay(let from, let to):
            let typed = try SynonymRule.canonical(from)
            let found = try SynonymRule.canonical(to).filter { !typed.contains($0) }
            guard !typed.isEmpty, !found.isEmpty else {
                throw SynonymRule.invalid("A one-way synonym rule needs entries on both sides: \(from) => \(to).")
            }
            guard typed.count + found.count <= SynonymRule.maxEntries else {
                throw SynonymRule.invalid("A synonym rule holds at most \(SynonymRule.maxEntries) entries.")
            }
            return .oneWay(from: typed, to: found)
        }
    }

    /// Every entry of the rule.
    public var allEntries: [String] {
        switch self {
        case .equivalent(let entries): return entries
        case .oneWay(let from, let to): return from + to
        }
    }

    /// The entries typed and the entries they find: a two-way group's entries on both sides (each finds the
    /// others), a one-way rule's `from` and `to`.
    var sides: (typed: [String], found: [String]) {
        switch self {
        case .equivalent(let entries): return (entries, entries)
        case .oneWay(let from, let to): return (from, to)
        }
    }

    /// The rule as a line of Solr's synonyms format, with `\` escaping a comma, a backslash, `=>` and a leading `#`
    /// inside an entry: `car, automobile, auto`, `nyc => new york city`. ``solrRules(_:)`` reads it back.
    public var description: String {
        func line(_ entries: [String]) -> String { entries.map(SynonymRule.escaped).joined(separator: ", ") }
        switch self {
        case .equivalent(let entries): return line(entries)
        case .oneWay(let from, let to): return line(from) + " => " + line(to)
        }
    }

    private static func canonical(_ entries: [String]) throws -> [String] {
        guard entries.count <= maxEntries else { throw invalid("A synonym rule holds at most \(maxEntries) entries.") }
        var kept = Set<String>()
        for entry in entries {
            guard entry.utf8.count <= maxEntryBytes else {
                throw invalid("A synonym entry is at most \(maxEntryBytes) bytes: \(entry.prefix(40))….")
            }
            guard !entry.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !$0.properties.isWhitespace })
            else { throw invalid("A synonym entry holds a control character: \(entry.debugDescription).") }
            let words = entry.split(whereSeparator: \.isWhitespace)
            guard !words.isEmpty else { throw invalid("A synonym entry is empty.") }
            kept.insert(words.joined(separator: " "))
        }
        return kept.sorted()
    }

    private static func escaped(_ entry: String) -> String {
        var text = ""
        let scalars = Array(entry.unicodeScalars)
        for (i, scalar) in scalars.enumerated() {
            let next = i + 1 < scalars.count ? scalars[i + 1] : nil
            if scalar == "\\" || scalar == "," || (scalar == "=" && next == ">") || (scalar == "#" && i == 0) {
                text.unicodeScalars.append("\\")
            }
            text.unicodeScalars.append(scalar)
        }
        return text
    }

    static func invalid(_ message: String) -> SiftError {
        SiftError.misuse(message, operation: .query)
    }
}
