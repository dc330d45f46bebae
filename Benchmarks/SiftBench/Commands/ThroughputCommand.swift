import ArgumentParser
import Foundation

/// `sift-bench throughput`: runs the selected workloads, prints the table, writes JSON, Markdown and the ratio
/// chart, and regenerates the README's results section.
struct ThroughputCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "throughput",
        abstract: "Time Sift against hand-written raw SQLite C API code, in the same run.",
        discussion: """
            Every workload runs a raw C API baseline and its candidates: one warm-up run, then --runs timed runs \
            each, interleaved; it reports median, min and max seconds and each candidate's ratio (the median over \
            rounds of candidate / baseline). Progress goes to standard error, the table to standard output. \
            Writes throughput.json, .md and -ratios.svg (throughput-xN.* at --scale N) to --out, and after a \
            full run regenerates the results section of the README.
            """)

    @OptionGroup var data: DataScale

    @Option(help: ArgumentHelp("Timed runs per variant, after one warm-up.", valueName: "n"))
    var runs = 5

    @Option(help: ArgumentHelp("Run only these workloads (see `sift-bench list`).", valueName: "a,b,..."),
            transform: commaSeparated)
    var only: [String]?

    @OptionGroup var output: OutputOptions

    @Flag(help: "Exit with status 1 when a candidate misses its target.")
    var strict = false

    @Flag(help: "No progress lines on standard error.")
    var quiet = false

    func validate() throws {
        if runs < 1 { throw ValidationError("--runs takes a positive integer, not \(runs)") }
        try validateOnly(only, known: Workloads.all().map(\.name), kind: "workload")
    }

    func run() throws {
        try runCommand(measuring: "throughput") {
            let report = try measure(Workloads.all())
            if !report.errors.isEmpty || (strict && !report.failures.isEmpty) { throw ExitCode.failure }
        }
    }

    private func measure(_ workloads: [Workload]) throws -> ThroughputReport {
        let log: (String) -> Void = quiet ? { _ in } : { printError($0) }
        let machine = MachineInfo.current()
        log("sift-bench throughput: scale \(data.scale), \(runs) runs + warm-up; \(machine.summaryLine)")

        var template = Array((NSTemporaryDirectory() + "/sift-bench-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw BenchError.checkFailed("mkdtemp failed") }
        let temporaryRoot = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: temporaryRoot) }

        let fixtures = Fixtures(scale: data.scale, directory: temporaryRoot) { what, seconds in
            log(String(format: "  (generated %@ in %.2f s, untimed)", what, seconds))
        }
        let runner = Runner(runs: runs, fixtures: fixtures, temporaryRoot: temporaryRoot, log: log)
        let selected = workloads.filter { only?.contains($0.name) ?? true }
        var results: [WorkloadResult] = []
        for workload in selected {
            log("== \(workload.name): \(workload.title)")
            results.append(runner.run(workload))
        }

        let date = ISO8601DateFormatter().string(from: Date())
        let report = ThroughputReport(suite: "throughput", date: date, machine: machine, scale: data.scale,
                                      rows: fixtures.rowCount, runs: runs, only: only, workloads: results)
        print(ConsoleTable.render(report))
        for failure in report.failures {
            print("! \(failure.workload) / \(failure.variant) is worse than its target")
        }
        for error in report.errors {
            print("ERROR \(error.workload)\(error.variant.isEmpty ? "" : " / \(error.variant)"): \(error.error)")
        }
        try write(report, log: log)
        return report
    }

    private func write(_ report: ThroughputReport, log: (String) -> Void) throws {
        let out = URL(fileURLWithPath: output.out, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let stem = data.scale == 1 ? "throughput" : "throughput-x\(data.scale)"
        let json = out.appendingPathComponent("\(stem).json")
        let markdown = out.appendingPathComponent("\(stem).md")
        let chart = out.appendingPathComponent("\(stem)-ratios.svg")
        try JSONReport.render(report).write(to: json)
        try RatioChart.render(report).write(to: chart, atomically: true, encoding: .utf8)
        try MarkdownReport.render(report, chartPath: chart.lastPathComponent)
            .write(to: markdown, atomically: true, encoding: .utf8)
        print("wrote \(json.path), \(markdown.path), \(chart.path)")

        guard let readmePath = output.readmePath(fullRun: only == nil) else {
            log("README not updated" + (only != nil && !output.noReadme ? " (subset run; pass --readme PATH to force)" : ""))
            return
        }
        let readme = URL(fileURLWithPath: readmePath).standardizedFileURL
        let readmeDirectory = readme.deletingLastPathComponent().path + "/"
        let chartPath = chart.path.hasPrefix(readmeDirectory)
            ? String(chart.path.dropFirst(readmeDirectory.count)) : chart.path
        try MarkdownReport.updateSection(in: readme.path, with: MarkdownReport.render(report, chartPath: chartPath))
        print("updated \(readme.path)")
    }
}
