import ArgumentParser
import Foundation
import SiftTools

/// `sift stats`: what a corpus database holds.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Show a corpus database's documents, sizes, tokenizer and sources.")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        try Terminal.run {
            let stats = try CorpusDatabase.open(at: database.db, key: database.key.passphrase()).stats()
            func mb(_ bytes: Int) -> String { String(format: "%.2f MB", Double(bytes) / 1e6) }
            print("documents  \(stats.documents)")
            print("tokenizer  \(stats.tokenizer)")
            print("database   \(mb(stats.databaseBytes)) (full-text index data \(mb(stats.indexBytes)))")
            if let created = stats.created { print("created    \(created)") }
            print("sources")
            for source in stats.sources { print("  \(source.documents)\t\(source.origin)") }
        }
    }
}
