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
        subcommands: [DemoCommand.self, IndexCommand.self, SearchCommand.self, EvalCommand.self,
                      StatsCommand.self, CheckCommand.self, OptimizeCommand.self, ExportCommand.self, RecoverCommand.self])
}

/// `--db`, shared by the commands that work on an existing corpus.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The corpus database file.", valueName: "file"))
    var db: String
}
