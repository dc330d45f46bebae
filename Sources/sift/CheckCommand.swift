import ArgumentParser
import Foundation
import SiftTools

/// `sift check`: verifies that the index matches the documents and the file is sound.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify a corpus database: index and documents in sync, SQLite integrity. Exit status 1 on a problem.")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        try Terminal.run {
            let check = try CorpusDatabase.open(at: database.db).check()
            if check.isHealthy {
                print("ok: \(check.documents) documents, \(check.indexedRows) indexed")
                return
            }
            for problem in check.problems { print("problem: \(problem)") }
            throw ExitCode(1)
        }
    }
}
