import ArgumentParser
import Foundation
import Sift
import SiftTools

/// `sift synonyms`: a corpus index's synonym list, in Solr's synonyms format.
struct SynonymsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synonyms",
        abstract: "Add, remove, list or import the synonyms a corpus's searches use.",
        discussion: """
            Rules are lines of Solr's synonyms format: "car, automobile, auto" (each finds the others), \
            "nyc => new york city" (nyc also finds the phrase, not the reverse); a backslash escapes a comma. \
            `sift search` and `sift eval` use the list from the next search on, without reindexing.
            """,
        subcommands: [Add.self, Remove.self, List.self, Import.self])

    /// `--db`, the key and `--index`, shared by the subcommands.
    struct Target: ParsableArguments {
        @OptionGroup var database: DatabaseOptions

        @Option(help: ArgumentHelp("The full-text index whose synonyms to change.", valueName: "name"))
        var index = CorpusDatabase.indexTable

        func open() throws -> Database {
            try CorpusDatabase.open(at: database.db, key: database.key.passphrase()).database
        }
    }

    /// The rules given on the command line, each a line of Solr's format.
    struct Rules: ParsableArguments {
        @Argument(help: "Rules, e.g. 'car, automobile, auto' or 'nyc => new york city'.")
        var rules: [String]

        func validate() throws {
            if rules.isEmpty { throw ValidationError("give at least one rule") }
        }

        func parsed() throws -> [SynonymRule] { try rules.flatMap { try SynonymRule.solrRules($0) } }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add synonym rules, each a line of Solr's format.",
            discussion: "Example: sift synonyms add 'car, automobile, auto' 'nyc => new york city' --db corpus.db")

        @OptionGroup var rules: Rules
        @OptionGroup var target: Target

        func run() throws {
            try Terminal.run {
                let parsed = try rules.parsed()
                try target.open().addSynonyms(parsed, to: target.index)
                print("added \(plural(parsed.count, "rule"))")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove synonym rules (as listed, entries in any order).")

        @OptionGroup var rules: Rules
        @OptionGroup var target: Target

        func run() throws {
            try Terminal.run {
                print("removed \(plural(try target.open().removeSynonyms(try rules.parsed(), from: target.index), "rule"))")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the synonym rules, one line each in Solr's format (what `import` reads).")

        @OptionGroup var target: Target

        func run() throws {
            try Terminal.run {
                for rule in try target.open().synonyms(in: target.index) { print(rule) }
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the rules of a file in Solr's synonyms format (# starts a comment line).",
            discussion: """
                Every line is checked before anything is written: a bad line stops the import, naming its \
                number, and the list is unchanged. --replace makes the file the whole list.
                """)

        /// Larger files are refused before they are read.
        static let maxFileBytes = 64 << 20

        @Argument(help: ArgumentHelp("The synonyms file (UTF-8).", valueName: "file"))
        var file: String

        @OptionGroup var target: Target

        @Flag(help: "Replace the whole list with the file's rules.")
        var replace = false

        /// The text of a synonyms file: at most `maxFileBytes`, UTF-8.
        static func text(of file: String) throws -> String {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= maxFileBytes else { throw ValidationError("\(file) is larger than \(maxFileBytes >> 20) MiB") }
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw ValidationError("cannot read \(file): \(error.localizedDescription)")
            }
            guard data.count <= maxFileBytes, let text = String(data: data, encoding: .utf8) else {
                throw ValidationError("\(file) is not a UTF-8 text file of at most \(maxFileBytes >> 20) MiB")
            }
            return text
        }

        func run() throws {
            try Terminal.run {
                let rules = try SynonymRule.solrRules(try Self.text(of: file))
                let database = try target.open()
                if replace {
                    try database.replaceSynonyms(in: target.index, with: rules)
                } else {
                    try database.addSynonyms(rules, to: target.index)
                }
                print("\(replace ? "replaced the list with" : "added") \(plural(rules.count, "rule"))")
            }
        }
    }
}
