import Foundation
import Sift

/// The parent: starts writers on one database file, SIGKILLs each after a random time, and checks the
/// database after every kill and once more, completely, at the end.
struct Harness {
    var kills = 20
    var seed = UInt64.random(in: 1...999_999_999)
    var path: String?
    var minDelayMs = 2
    var maxDelayMs = 250
    var bulkThreshold = 20
    var sampleSize = 25
    var verbose = false
    var sabotage: Writer.Sabotage?

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Returns the process exit status: 0 when every check passed.
    func run() throws -> Int32 {
        let started = Harness.now()
        let workload = Workload(seed: seed, bulkThreshold: bulkThreshold)
        let ownsFolder = path == nil
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sift-crash-\(seed)-\(UUID().uuidString)")
        let path = self.path ?? folder.appendingPathComponent("crash.db").path
        if FileManager.default.fileExists(atPath: path) {
            throw HarnessError("\(path) already exists: the checker must see every batch from the first, give a new path")
        }
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        print("sift-crash: seed \(seed), kills \(kills), kill delay \(minDelayMs)-\(maxDelayMs) ms, bulk threshold \(bulkThreshold)"
              + (sabotage.map { ", SABOTAGED writer (\($0.rawValue))" } ?? ""))
        print("database: \(path)")
        print("after each kill: reported batches against the database (durability; at most one committed batch unreported),"
              + " the progress row, totals over every content row, verify(index:), and row by row (content, search(),"
              + " the index's own entries, earlier words gone) the last 4 batches, the next batch, the rows they change"
              + " and \(sampleSize) random rows; at the end: every row of every batch")

        let checker = Checker(path: path, workload: workload)
        // Kill delays and row samples come from separate streams, so a seed always gives the same delays.
        var rng = SplitMix(seed: seed)
        var sampler = SplitMix(seed: seed ^ 0x5DEE_CE66_D1CE_4E5B)
        var committed = 0
        var startupKills = 0, unreportedCommits = 0, reportedTotal = 0, rounds = 0
        var startupMs = 20  // time from spawn to "ready", measured on every kill among batches
        let writerArguments = ["writer", "--path", path, "--workload-seed", "\(seed)", "--bulk-threshold", "\(bulkThreshold)"]
            + (sabotage.map { ["--sabotage", $0.rawValue] } ?? [])
        let progressEvery = verbose ? 1 : max(1, kills / 10)

        for round in 1...max(1, kills) {
            rounds = round
            // One kill in eight is aimed at startup (process start, opening, WAL recovery, schema setup): timed
            // from the spawn, within the last measured time to "ready". The others land among the batches,
            // timed from the writer's "ready" line.
            let duringStartup = rng.below(8) == 0
            let delayMs = duringStartup ? rng.below(startupMs + 1) : minDelayMs + rng.below(maxDelayMs - minDelayMs + 1)
            let spawned = Harness.now()
            let child = try Child(executable: executable, arguments: writerArguments)
            var lines: [String] = []
            if duringStartup {
                startupKills += 1
                lines += child.readLines(until: spawned + UInt64(delayMs) * 1_000_000)
            } else {
                let patience = spawned + 60_000_000_000
                while !child.isAtEOF && !lines.contains(where: { $0.hasPrefix("ready") }) && Harness.now() < patience {
                    lines += child.readLines(until: patience, returnOnLine: true)
                }
                startupMs = max(1, Int((Harness.now() - spawned) / 1_000_000))
                checker.check(lines.contains(where: { $0.hasPrefix("ready") }) || child.isAtEOF,
                              "round \(round): the writer was not ready after 60 s")
                lines += child.readLines(until: Harness.now() + UInt64(delayMs) * 1_000_000)
            }
            lines += child.isAtEOF ? child.finish() : child.kill()

            let prefix = "round \(round): "
            checker.check(child.wasKilled, prefix + "the writer ended with \(child.exitDescription) before it was killed")
            checker.check(child.partialLine == nil, prefix + "the writer left a partial line: \(child.partialLine ?? "")")
            var reported: [Int] = []
            for line in lines {
                if line.hasPrefix("ready ") {
                    checker.check(Int(line.dropFirst(6)) == committed, prefix + "the writer resumed after batch \(line.dropFirst(6)), the last committed batch is \(committed)")
                } else if let number = Int(line) {
                    reported.append(number)
                } else {
                    checker.check(false, prefix + "unexpected writer output: \(line)")
                }
            }
            if !reported.isEmpty {
                checker.check(reported == Array((committed + 1)...(committed + reported.count)),
                              prefix + "reported batches \(reported.first!)...\(reported.last!) do not follow batch \(committed) one by one")
            }
            reportedTotal += reported.count
            let lastReported = reported.last ?? committed
            let result = checker.checkRound(round, previous: committed, reported: reported, sampleSize: sampleSize, rng: &sampler)
            if result.committed > lastReported { unreportedCommits += 1 }
            committed = result.committed

            if round % progressEvery == 0 || round == kills || !checker.failures.isEmpty {
                let when = duringStartup ? "\(delayMs) ms after spawn (startup)" : "\(delayMs) ms after ready (\(startupMs) ms to ready)"
                let span = reported.isEmpty ? "none" : "\(reported.first!)-\(reported.last!)"
                print("round \(round)/\(kills): killed \(when); reported \(span); committed \(committed)"
                      + (result.committed > lastReported ? " (1 unreported)" : "")
                      + "; \(result.rows) rows; index \(result.index); \(result.sampledRows) rows checked one by one")
            }
            if !checker.failures.isEmpty { break }
        }

        var finalRows = 0
        if checker.failures.isEmpty {
            let finalStarted = Harness.now()
            finalRows = checker.checkEverything(committed: committed)
            print("final check: the whole content table against the replay, totals, verify(index:), and the words of"
                  + " \(finalRows) rows of \(committed + 1) batches one by one (search(), the index's own entries)"
                  + String(format: " (%.1f s)", Double(Harness.now() - finalStarted) / 1e9))
        }
        let seconds = Double(Harness.now() - started) / 1e9
        print("kill timing: \(startupKills) during startup, \(rounds - startupKills) among batches; \(unreportedCommits) kills"
              + " left a committed batch unreported; \(reportedTotal) batches reported; \(checker.expected.rows.count) rows live;"
              + " \(checker.rowsChecked) row checks, \(checker.groupsChecked) batch checks; \(String(format: "%.1f", seconds)) s")
        for failure in checker.failures.prefix(40) { print("FAILURE: \(failure)") }
        if checker.failures.count > 40 { print("FAILURE: ... and \(checker.failures.count - 40) more") }
        print("kills: \(rounds), batches committed: \(committed), checks passed: \(checker.passed), failures: \(checker.failures.count)")
        if checker.failures.isEmpty {
            if ownsFolder { try? FileManager.default.removeItem(at: folder) }
            return 0
        }
        FileHandle.standardError.write(Data(("sift-crash: FAILED (\(checker.failures.count) failures, seed \(seed));"
                                            + " the database is kept at \(path)\n").utf8))
        return 1
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
