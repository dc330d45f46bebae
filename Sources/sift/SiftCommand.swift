import ArgumentParser
import Foundation

/// The `sift` command: index corpora into Sift databases, search them, evaluate relevance.
@main
struct SiftCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sift",
        abstract: "Full-text search on SQLite: index a corpus, search it, evaluate relevance.",
        discussion: """
            Start with `sift demo`. Exit status: 0 success; 1 some input was skipped (reported on \
            standard error) or `check` found a problem; 2 a fatal error (missing file, not a Sift \
            database, locked database, another `sift index` running on it, bad input under --strict); 64 a usage error; 130 interrupted \
            (every batch committed before Ctrl-C is kept and the index is consistent).
            """,
        subcommands: [DemoCommand.self, IndexCommand.self, SearchCommand.self, SuggestCommand.self, EvalCommand.self,
                      SynonymsCommand.self, StatsCommand.self, CheckCommand.self, OptimizeCommand.self, ExportCommand.self, RecoverCommand.self])
}

/// `--db` and the key, shared by the commands that work on an existing corpus.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The corpus database file.", valueName: "file"))
    var db: String

    @OptionGroup var key: KeyOptions
}

/// The key of an encrypted database: from a file or the environment, never from the command line (which other
/// users can see in the process list).
struct KeyOptions: ParsableArguments {
    /// The environment variable that holds the key when `--key-file` is not given.
    static let environmentVariable = "SIFT_KEY"

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "Encrypt the database with the passphrase in this file (one trailing newline is dropped; x'<64 hex digits>' "
            + "is a raw key). Without it, the SIFT_KEY environment variable is used when set.", valueName: "file"))
    var keyFile: String?

    /// The passphrase, or nil for a plain database.
    func passphrase() throws -> Data? {
        var key: Data
        if let keyFile {
            do {
                key = try Data(contentsOf: URL(fileURLWithPath: keyFile))
            } catch {
                throw ValidationError("cannot read --key-file \(keyFile): \(error.localizedDescription)")
            }
        } else if let value = ProcessInfo.processInfo.environment[Self.environmentVariable] {
            key = Data(value.utf8)
        } else {
            return nil
        }
        if key.last == UInt8(ascii: "\n") { key.removeLast() }
        if key.last == UInt8(ascii: "\r") { key.removeLast() }
        guard !key.isEmpty else {
            throw ValidationError(keyFile.map { "--key-file \($0) is empty" } ?? "\(Self.environmentVariable) is empty")
        }
        return key
    }
}
