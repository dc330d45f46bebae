import ArgumentParser
import Foundation
import SiftTools

/// `sift-bench corruption`: the corruption suite at full size: documents recovered by Sift and by
/// SQLite's `.recover` from the same damaged copies of a synced corpus.
struct CorruptionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corruption",
        abstract: "Damage copies of a synced corpus and count the documents Sift and sqlite3's .recover get back.",
        discussion: """
            Damages: 1%, 5%, 20% of pages overwritten with garbage (seeded), the file truncated to 60%, the header \
            zeroed, page 1 (sqlite_schema) overwritten. `.recover` needs a shell where it works: Debian 12's 3.40.1 \
            fails on every database; build SQLite 3.50's shell.c with -DSQLITE_ENABLE_DBPAGE_VTAB (see \
            ../shared/notes) and pass it with --sqlite3.
            """)

    @Option(help: ArgumentHelp("Documents in the corpus.", valueName: "n"))
    var documents = 100_000

    @Option(help: ArgumentHelp("The sqlite3 shell to compare with (default: sqlite3 on PATH, when its .recover works).", valueName: "path"))
    var sqlite3: String?

    @Option(help: ArgumentHelp("Seed of the damage.", valueName: "n"))
    var seed: UInt64 = 16

    @Option(help: ArgumentHelp("Also write the Markdown table to this file.", valueName: "path"))
    var out: String?

    func run() throws {
        try runCommand(measuring: "corruption") { try measure() }
    }

    private func measure() throws {
        let directory = NSTemporaryDirectory() + "sift-corruption-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = directory + "/original.db"
        printError("building a corpus of \(documents) documents")
        let originals = try CorruptionSuite.buildCorpus(at: original, documents: documents)
        var shell = sqlite3 ?? "sqlite3"
        if let problem = CorruptionSuite.referenceProblem(shell: shell, on: original) {
            if sqlite3 != nil { throw ValidationError(problem) }
            printError("not comparing with .recover: \(problem)")
            shell = ""
        }
        let outcomes = try CorruptionSuite.run(original: original, originals: originals, directory: directory,
                                               shell: shell.isEmpty ? nil : shell, seed: seed) { printError("damage: \($0)") }
        let table = CorruptionSuite.markdown(outcomes)
        print(table)
        if let out { try (table + "\n").write(toFile: out, atomically: true, encoding: .utf8) }
    }
}
