import ArgumentParser
import Foundation
import Sift
import SiftICU
import SiftTools

/// `sift recover`: rebuilds a damaged database into a new file, table by table.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Rebuild a damaged database into a new file, salvaging every row that can be read.",
        discussion: """
            Reads the damaged file page by page where SQLite cannot, uses the schema backup beside it \
            (<damaged>-sift-backup, written by Database.backup()) when its own schema page is unreadable, and \
            rebuilds the full-text index from the recovered documents. The damaged file is never changed. An \
            encrypted database is read with its key (--key-file or SIFT_KEY), page by page authenticated, and the \
            new file is encrypted with the same key. \
            Exit status: 0 everything was recovered; 1 recovered, but pages or schema objects were lost (listed); \
            2 nothing could be done (missing file, --to exists, unreadable backup...).
            """)

    @Argument(help: ArgumentHelp("The damaged database file.", valueName: "damaged"))
    var damaged: String

    @Option(name: .customLong("to"), help: ArgumentHelp("The new database file to create (must not exist).", valueName: "new"))
    var destination: String

    @Option(help: ArgumentHelp("The schema backup to use (default: <damaged>-sift-backup when it exists).", valueName: "file"))
    var backup: String?

    /// The damaged file's key; the recovered database is encrypted with it too.
    @OptionGroup var key: KeyOptions

    /// The command that recovers `path`, quoted for a shell, as `sift check` suggests it.
    static func suggestion(for path: String, keyFile: String? = nil) -> String {
        let ext = (path as NSString).pathExtension
        let target = (path as NSString).deletingPathExtension + "-recovered." + (ext.isEmpty ? "db" : ext)
        return "sift recover \(shellQuoted(path)) --to \(shellQuoted(target))"
            + (keyFile.map { " --key-file \(shellQuoted($0))" } ?? "")
    }

    private static func shellQuoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+=:,@".contains($0) } ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    func run() throws {
        try Terminal.run {
            guard FileManager.default.fileExists(atPath: damaged) else { throw SiftToolError.missingFile(damaged) }
            guard !FileManager.default.fileExists(atPath: destination) else {
                throw SiftToolError.invalidArgument("\(destination) exists; recover into a new file")
            }
            let passphrase = try key.passphrase()
            let target = Database(withPath: destination)
            target.registerICUTokenizer()
            if let passphrase { try target.setCipherKey(passphrase) }
            let start = Date()
            let report: RecoveryReport
            do {
                report = try passphrase.map { try Database.recover(from: damaged, into: target, key: .passphrase($0), backup: backup) }
                    ?? Database.recover(from: damaged, into: target, backup: backup)
            } catch {
                target.close()
                for file in [destination, destination + "-wal", destination + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
                if let error = error as? SiftError, let failure = error.cipherFailure {
                    throw SiftToolError.encryption(damaged, failure: failure, detail: error.message)
                }
                throw error
            }
            target.close()
            print("read \(report.method == .sqlite ? "through SQLite (the file is sound)" : "page by page")"
                  + (report.usedBackup ? ", with the schema from the backup" : ""))
            for table in report.tables {
                var details = [String]()
                if table.partialRows > 0 { details.append("\(table.partialRows) cut short by lost overflow pages") }
                if table.rowsFromOrphanPages > 0 { details.append("\(table.rowsFromOrphanPages) from pages cut off from their table") }
                if table.rowsRejected > 0 { details.append("\(table.rowsRejected) refused by constraints") }
                print("\(table.name): \(plural(table.rowsRecovered, "row"))" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"))
            }
            for index in report.rebuiltIndexes { print("rebuilt full-text index \(index)") }
            if report.unassignedRows > 0 { print("\(plural(report.unassignedRows, "row")) matched no table and were left out") }
            for problem in report.problems { print("problem: \(problem)") }
            print("pages lost: \(report.lostPages.count) of \(report.pageCount)")
            print(String(format: "recovered %@ into %@ in %.2f s", plural(report.rowsRecovered, "row"), destination, Date().timeIntervalSince(start)))
            if !report.lostPages.isEmpty || !report.problems.isEmpty || report.unassignedRows > 0 { throw ExitCode(1) }
        }
    }
}
