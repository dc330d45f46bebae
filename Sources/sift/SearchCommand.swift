import ArgumentParser
import Foundation
import Sift
import SiftTools

/// `sift search`: ranked results with highlighted snippets, as text or JSON Lines.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search a corpus database.",
        discussion: """
            --json prints one object per hit with the fields id, key, title, score, snippet, source and \
            fields (the source's other fields); matched words are marked [like this]. --where field=value \
            keeps hits whose title, key, source or stored field (a JSON Lines field or CSV column) equals \
            the value; repeat it to require several. --facet field counts the values of a field named with \
            `sift index --facet` over all hits (printed after them; with --json, one last object \
            {"facets": {field: {"distinct": n, "values": [{"value": v, "count": n}, ...]}}}). \
            --vector-file Q.json (a JSON array of numbers, the query embedded by the model that embedded the \
            documents, see `sift index --vector-field`) searches by meaning: fused with the text's ranking when \
            there is text (--fusion), alone when there is none.
            """)

    @Argument(help: "What to search for (plain text; quotes and operators are just text). Optional with --vector-file.")
    var query: String?

    @Option(name: .customLong("vector-file"), help: ArgumentHelp("A JSON file holding the query's vector (an array of numbers).",
                                                                  valueName: "file"))
    var vectorFile: String?

    @Option(help: FusionChoice.help)
    var fusion: FusionChoice = .blend

    @OptionGroup var database: DatabaseOptions

    @Option(name: .shortAndLong, help: "Number of hits.")
    var limit = 10

    @Option(help: "Hits to skip, for paging.")
    var offset = 0

    @Option(help: "all: every word; any: any word, more is better; phrase: the words in order; prefix: search as you type.")
    var mode: Mode = .all

    @Option(name: .customLong("where"), help: ArgumentHelp("Only hits whose field equals a value.", valueName: "field=value"))
    var filters: [String] = []

    @Option(name: .customLong("facet"), help: ArgumentHelp("Count a facet field's values over all hits (see `sift index --facet`).",
                                                           valueName: "field"))
    var facets: [String] = []

    @Option(name: .customLong("facet-limit"), help: "Most frequent values shown per facet.")
    var facetLimit = 10

    @OptionGroup var rankingOptions: RankingOptions

    @Flag(help: "One JSON object per hit.")
    var json = false

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case all, any, phrase, prefix
        var searchMode: SearchQuery.Mode {
            switch self {
            case .all: return .allTerms
            case .any: return .anyTerm
            case .phrase: return .phrase
            case .prefix: return .prefix
            }
        }
    }

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
        if offset < 0 { throw ValidationError("--offset cannot be negative") }
        if facetLimit < 1 { throw ValidationError("--facet-limit must be at least 1") }
        if query == nil && vectorFile == nil { throw ValidationError("give what to search for, or --vector-file") }
        if vectorFile != nil && !facets.isEmpty { throw ValidationError("--facet counts text matches; leave it out with --vector-file") }
    }

    func run() throws {
        try Terminal.run {
            let corpus = try CorpusDatabase.open(at: database.db, key: database.key.passphrase())
            let options = CorpusSearchOptions(mode: mode.searchMode, limit: limit, offset: offset,
                                              filters: try filters.map(FieldFilter.init(parsing:)),
                                              markers: json ? SearchOptions.Markers("[", "]") : Terminal.markers,
                                              titleWeight: rankingOptions.titleWeight, ranking: rankingOptions.value)
            var searchOptions = options
            searchOptions.feedback = rankingOptions.feedbackValue
            searchOptions.search.typoTolerance = rankingOptions.typoTolerance
            searchOptions.search.usesSynonyms = rankingOptions.synonymWeightValue != nil
            searchOptions.search.synonymWeight = rankingOptions.synonymWeight
            searchOptions.search.facets = facets
            searchOptions.search.facetLimit = facetLimit
            searchOptions.vector = try vectorFile.map(CorpusDatabase.queryVector(contentsOf:))
            searchOptions.fusion = fusion.value
            let query = query ?? ""
            let results = try corpus.search(query, options: searchOptions)
            if json {
                for hit in results.hits { print(try HitPrinter.json(hit)) }
                if !facets.isEmpty { print(try FacetPrinter.json(results.facets, fields: facets)) }
            } else {
                HitPrinter.printText(results, offset: offset)
                FacetPrinter.printText(results.facets, fields: facets)
                if results.totalCount == 0, !query.isEmpty, let correction = try corpus.correction(for: query) { print("Did you mean: \(correction)") }
            }
        }
    }
}

/// How hits are shown, shared by `search` and `demo`.
enum HitPrinter {
    static func printText(_ results: CorpusSearchResults, offset: Int, indent: String = "") {
        if results.hits.isEmpty {
            print(indent + "no results")
            return
        }
        let last = offset + results.hits.count
        print(indent + "\(offset + 1)–\(last) of \(results.totalCount) results")
        for (rank, hit) in results.hits.enumerated() {
            print(indent + "\(offset + rank + 1). \(hit.title)  (\(hit.key), score \(String(format: "%.2f", hit.score)))")
            if !hit.snippet.isEmpty { print(indent + "   " + hit.snippet.replacingOccurrences(of: "\n", with: " ")) }
        }
    }

    static func json(_ hit: CorpusHit) throws -> String {
        let fields = (try? JSONSerialization.jsonObject(with: Data(hit.fields.utf8))) ?? [String: Any]()
        let object: [String: Any] = ["id": hit.id, "key": hit.key, "title": hit.title, "score": hit.score,
                                     "snippet": hit.snippet, "source": hit.source, "fields": fields]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}

/// How facet counts are shown: one line a field in text, one JSON object after the hits with --json.
enum FacetPrinter {
    static func printText(_ facets: [String: FacetDistribution], fields: [String]) {
        for field in fields {
            guard let facet = facets[field] else { continue }
            let values = facet.top.map { "\(label($0.value)) \($0.count)" }.joined(separator: ", ")
            print("\(field): " + (values.isEmpty ? "no values" : values) + " (\(facet.distinctCount) distinct)")
        }
    }

    static func json(_ facets: [String: FacetDistribution], fields: [String]) throws -> String {
        var object: [String: Any] = [:]
        for field in fields {
            guard let facet = facets[field] else { continue }
            object[field] = ["distinct": facet.distinctCount,
                             "values": facet.top.map { ["value": value($0.value), "count": $0.count] as [String: Any] }] as [String: Any]
        }
        let data = try JSONSerialization.data(withJSONObject: ["facets": object], options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// NULL (a record without the field) reads as "(none)".
    private static func label(_ value: FundamentalValue) -> String { value.isNull ? "(none)" : value.description }

    private static func value(_ value: FundamentalValue) -> Any {
        switch value.type {
        case .null: return NSNull()
        case .integer32, .integer64: return value.int64Value
        case .float: return value.doubleValue
        default: return value.stringValue
        }
    }
}
