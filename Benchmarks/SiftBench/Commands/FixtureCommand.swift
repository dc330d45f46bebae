import ArgumentParser
import Foundation

/// `sift-bench fixture`: writes a template database or the query list of the throughput suite, to inspect the
/// data with the sqlite3 shell.
struct FixtureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixture",
        abstract: "Write the data the throughput workloads use: a template database or the query list.",
        discussion: """
            items: the `items` table of the ORM and concurrent-read workloads; search: `docs` and its FTS5 index \
            `fts` (the search workload); queries: the searches, one a line.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case items, search, queries
    }

    @Argument(help: "What to write.")
    var kind: Kind

    @Argument(help: ArgumentHelp("The file to write.", valueName: "path"))
    var path: String

    @OptionGroup var data: DataScale

    func run() throws {
        try runCommand {
            let fixtures = Fixtures(scale: data.scale, directory: NSTemporaryDirectory()) { _, _ in }
            defer { fixtures.removeTemplates() }
            switch kind {
            case .items: try fixtures.copyItemsDatabase(to: path)
            case .search: try fixtures.copySearchDatabase(to: path)
            case .queries:
                try (fixtures.queries.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
    }
}
