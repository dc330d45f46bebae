import ArgumentParser
import Foundation

/// `sift-bench`: Sift's benchmark suites. `throughput` measures every workload against hand-written raw SQLite
/// C API code; `relevance` measures ranking quality on real test collections. See Benchmarks/README.md.
@main
struct SiftBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sift-bench",
        abstract: "Sift's benchmarks: throughput against the raw SQLite C API, relevance on test collections.",
        discussion: """
            Run from the repository root, with a release build: `swift run -c release sift-bench throughput`. \
            A debug build prints a warning and its figures mean nothing. Method and results: \
            Benchmarks/README.md. Exit status: 0 success; 1 a failed run (a variant's check or an error, or \
            with --strict a missed target); 64 a usage error.
            """,
        subcommands: [ThroughputCommand.self, RelevanceCommand.self, ScaleCommand.self, ScaleIndexCommand.self, FacetCommand.self,
                      ListCommand.self, FixtureCommand.self, CorruptionCommand.self, SuggestCommand.self, VectorsCommand.self,
                      TypoWritesCommand.self])
}

/// `--scale`, shared by the commands that generate the throughput suite's data.
struct DataScale: ParsableArguments {
    @Option(help: ArgumentHelp("Rows per workload = 100,000 x N (10: 1M rows).", valueName: "n"))
    var scale = 1

    func validate() throws {
        if scale < 1 { throw ValidationError("--scale takes a positive integer, not \(scale)") }
    }
}

/// Where a suite's results go: `--out`, `--readme`, `--no-readme`, shared by `throughput` and `relevance`.
struct OutputOptions: ParsableArguments {
    static let defaultReadme = "Benchmarks/README.md"

    @Option(help: ArgumentHelp("Folder for the result files.", valueName: "dir"))
    var out = "Benchmarks/results"

    @Option(help: ArgumentHelp("Regenerate the results section of this README, also after an --only run "
                               + "(default: \(defaultReadme), after full runs only).", valueName: "path"))
    var readme: String?

    @Flag(name: .customLong("no-readme"), help: "Do not touch the README.")
    var noReadme = false

    func validate() throws {
        if noReadme && readme != nil { throw ValidationError("--readme and --no-readme exclude each other") }
    }

    /// The README whose results section a run regenerates, if any.
    func readmePath(fullRun: Bool) -> String? {
        noReadme ? nil : readme ?? (fullRun ? Self.defaultReadme : nil)
    }
}

/// `--only a,b` as a list of names.
func commaSeparated(_ text: String) -> [String] {
    text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

/// Rejects `--only` names that are not among `known`.
func validateOnly(_ names: [String]?, known: [String], kind: String) throws {
    guard let names else { return }
    let unknown = names.filter { !known.contains($0) }
    guard unknown.isEmpty, !names.isEmpty else {
        throw ValidationError((unknown.isEmpty ? "--only names no \(kind)" : "unknown \(kind)(s) \(unknown.joined(separator: ", "))")
            + "; known: \(known.joined(separator: ", "))")
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Runs a command's body. A command that measures (`measuring` is its name) first warns on a debug build that
/// its figures mean nothing. An error other than an exit status is printed as `sift-bench: message` and ends
/// the process with status 1.
func runCommand(measuring command: String? = nil, _ body: () throws -> Void) throws {
    if let command, MachineInfo.isDebugBuild {
        printError("warning: sift-bench was built in debug mode; its figures are meaningless. "
            + "Use: swift run -c release sift-bench \(command)")
    }
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError("sift-bench: \(error)")
        throw ExitCode.failure
    }
}
