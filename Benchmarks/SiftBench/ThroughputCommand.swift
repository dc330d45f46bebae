import Foundation

/// `sift-bench throughput`: runs the selected workloads, prints the table, writes JSON, Markdown and the ratio
/// chart, and regenerates the README's results section.
enum ThroughputCommand {
    static func run(_ options: ThroughputOptions, workloads: [Workload]) throws -> ThroughputReport {
        let log: (String) -> Void = options.quiet ? { _ in } : { printError($0) }
        let machine = MachineInfo.current()
        log("sift-bench throughput: scale \(options.scale), \(options.runs) runs + warm-up; \(machine.summaryLine)")

        var template = Array((NSTemporaryDirectory() + "/sift-bench-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw BenchError.checkFailed("mkdtemp failed") }
        let temporaryRoot = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: temporaryRoot) }

        let fixtures = Fixtures(scale: options.scale, directory: temporaryRoot) { what, seconds in
            log(String(format: "  (generated %@ in %.2f s, untimed)", what, seconds))
        }
        let runner = Runner(runs: options.runs, fixtures: fixtures, temporaryRoot: temporaryRoot, log: log)
        let selected = workloads.filter { options.only?.contains($0.name) ?? true }
        var results: [WorkloadResult] = []
        for workload in selected {
            log("== \(workload.name): \(workload.title)")
            results.append(runner.run(workload))
        }

        let date = ISO8601DateFormatter().string(from: Date())
        let report = ThroughputReport(suite: "throughput", date: date, machine: machine, scale: options.scale,
                                      rows: fixtures.rowCount, runs: options.runs, only: options.only,
                                      workloads: results)
        print(ConsoleTable.render(report))
        for failure in report.failures {
            print("! \(failure.workload) / \(failure.variant) is worse than its target")
        }
        for error in report.errors {
            print("ERROR \(error.workload)\(error.variant.isEmpty ? "" : " / \(error.variant)"): \(error.error)")
        }
        try write(report, options: options, log: log)
        return report
    }

    private static func write(_ report: ThroughputReport, options: ThroughputOptions,
                              log: (String) -> Void) throws {
        let out = URL(fileURLWithPath: options.outDirectory, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let stem = options.scale == 1 ? "throughput" : "throughput-x\(options.scale)"
        let json = out.appendingPathComponent("\(stem).json")
        let markdown = out.appendingPathComponent("\(stem).md")
        let chart = out.appendingPathComponent("\(stem)-ratios.svg")
        try JSONReport.render(report).write(to: json)
        try RatioChart.render(report).write(to: chart, atomically: true, encoding: .utf8)
        try MarkdownReport.render(report, chartPath: chart.lastPathComponent)
            .write(to: markdown, atomically: true, encoding: .utf8)
        print("wrote \(json.path), \(markdown.path), \(chart.path)")

        let readme = URL(fileURLWithPath: options.readmePath ?? "Benchmarks/README.md").standardizedFileURL
        guard options.updateReadme ?? (options.only == nil) else {
            log("README not updated (subset run; pass --readme PATH to force)")
            return
        }
        let readmeDirectory = readme.deletingLastPathComponent().path + "/"
        let chartPath = chart.path.hasPrefix(readmeDirectory)
            ? String(chart.path.dropFirst(readmeDirectory.count)) : chart.path
        try MarkdownReport.updateSection(in: readme.path, with: MarkdownReport.render(report, chartPath: chartPath))
        print("updated \(readme.path)")
    }
}
