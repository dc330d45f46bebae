import ArgumentParser
import Foundation
import Sift
import SiftTools

/// `sift suggest`: completions of the last word being typed, most frequent first, as text or JSON Lines.
struct SuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "Complete the last word of what is being typed, from a corpus's index.",
        discussion: """
            Completions are the index's words beginning with the last word, most frequent first, among those \
            found in a document together with the words before it; when none begins with it, those of its \
            variants within a typo or two (5 letters and more). Nothing is completed after a trailing space. \
            --json prints one object per suggestion with the fields text (the whole query), word (the completed \
            word), documents (how many hold it) and typos (forgiven in the typed part).
            """)

    @Argument(help: "What has been typed so far.")
    var prefix: String

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("The full-text index to complete from.", valueName: "name"))
    var index = CorpusDatabase.indexTable

    @Option(name: .shortAndLong, help: "Number of suggestions.")
    var limit = 10

    @Flag(help: "One JSON object per suggestion.")
    var json = false

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try Terminal.run {
            let corpus = try CorpusDatabase.open(at: database.db, key: database.key.passphrase())
            let suggestions = try corpus.database.suggestions(for: prefix, in: index, limit: limit)
            if json {
                for suggestion in suggestions {
                    let object: [String: Any] = ["text": suggestion.text, "word": suggestion.word,
                                                 "documents": suggestion.rowCount, "typos": suggestion.typos]
                    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                    print(String(decoding: data, as: UTF8.self))
                }
            } else if suggestions.isEmpty {
                print("no suggestions")
            } else {
                for suggestion in suggestions {
                    let typos = suggestion.typos > 0 ? ", \(plural(suggestion.typos, "typo")) forgiven" : ""
                    print("\(suggestion.text)  (\(plural(suggestion.rowCount, "document"))\(typos))")
                }
            }
        }
    }
}
