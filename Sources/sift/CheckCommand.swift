import ArgumentParser
import Foundation
import Sift
import SiftTools

/// `sift check`: verifies that the index matches the documents and the file is sound.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify a corpus database: index and documents in sync, SQLite integrity.",
        discussion: """
            Exit status: 0 healthy (prints `ok: ...`); 1 damaged (prints one `problem: ...` line per \
            problem); 2 cannot check (prints `sift: cannot check: <reason>` on standard error: the \
            database is missing, not a corpus, locked by another process...), which says nothing about \
            its health. The check never changes the database; one this process may not write (a \
            read-only file or folder) is checked through a temporary copy. A damaged file (SQLite reports \
            it corrupt, or its integrity check fails) ends with the `sift recover` command that rebuilds it.
            """)

    @OptionGroup var database: DatabaseOptions

    /// A corrupt file, or an encrypted page that fails authentication (damage or tampering): `sift recover` applies.
    static func isDamage(_ error: Error) -> Bool {
        switch error {
        case let error as SiftError: return error.isCorruption
        case SiftToolError.encryption(_, failure: .authenticationFailed, _): return true
        default: return false
        }
    }

    func run() throws {
        let check: CorpusCheck
        do {
            check = try CorpusDatabase.check(at: database.db, key: database.key.passphrase())
        } catch let error where CheckCommand.isDamage(error) {
            print("problem: the database file is damaged: \(reason(error))")
            print("run: \(RecoverCommand.suggestion(for: database.db, keyFile: database.key.keyFile))")
            throw ExitCode(1)
        } catch {
            Terminal.error("sift: cannot check: \(reason(error))")
            // SQLite cannot tell a damaged header from a file that never was a database, nor (without a key) from
            // an encrypted one.
            let unreadable: Bool
            switch error {
            case SiftToolError.notADatabase: unreadable = true
            case SiftToolError.encryption(_, failure: .missingKey, _): unreadable = true
            default: unreadable = false
            }
            if unreadable {
                Terminal.error("if it was a Sift database, its header is damaged: run \(RecoverCommand.suggestion(for: database.db, keyFile: database.key.keyFile))")
            }
            throw ExitCode(2)
        }
        if check.isHealthy {
            print("ok: \(check.documents) documents, \(check.indexedRows) indexed")
            return
        }
        for problem in check.problems { print("problem: \(problem)") }
        if check.problems.contains(where: { $0.hasPrefix("integrity_check") }) {
            print("run: \(RecoverCommand.suggestion(for: database.db, keyFile: database.key.keyFile))")
        }
        throw ExitCode(1)
    }

    /// One line: the tools' own errors say what to do; SQLite's are given with their code.
    private func reason(_ error: Error) -> String {
        guard let error = error as? SiftError else { return "\(error)" }
        return "\(database.db): \(error.message) (SQLite code \(error.extendedCode ?? error.code.rawValue))"
    }
}
