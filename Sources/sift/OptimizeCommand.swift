import ArgumentParser
import Foundation
import SiftTools

/// `sift optimize`: merges the index for the fastest searches.
struct OptimizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "optimize",
        abstract: "Merge the full-text index into one segment, for the fastest searches.")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        try Terminal.run {
            let corpus = try CorpusDatabase.open(at: database.db, key: database.key.passphrase())
            let start = Date()
            try corpus.optimize()
            print(String(format: "optimized %@ in %.2f s", database.db, Date().timeIntervalSince(start)))
        }
    }
}
