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
            the value; repeat it to require several.
            """)

    @Argument(help: "What to search for (plain text; quotes and operators are just text).")
    var query: String

    @OptionGroup var database: DatabaseOptions

    @Option(name: .shortAndLong, help: "Number of hits.")
    var limit = 10

    @Option(help: "Hits to skip, for paging.")
    var offset = 0

    @Option(help: "all: every word; any: any word, more is better; phrase: the words in order; prefix: search as you type.")
    var mode: Mode = .all

    @Option(name: .customLong("where"), help: ArgumentHelp("Only hits whose field equals a value.", valueName: "field=value"))
    var filters: [String] = []

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
            let results = try corpus.search(query, options: searchOptions)
            if json {
                for hit in results.hits { print(try HitPrinter.json(hit)) }
            } else {
                HitPrinter.printText(results, offset: offset)
                if results.totalCount == 0, let correction = try corpus.correction(for: query) { print("Did you mean: \(correction)") }
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
