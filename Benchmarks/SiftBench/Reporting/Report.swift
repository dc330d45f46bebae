import Foundation

enum Format {
    /// A readable number: thousands separated when large, 3 significant digits or so when small.
    static func number(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 10_000 {
            let digits = String(Int(value.rounded()).magnitude)
            var grouped = ""
            for (index, digit) in digits.enumerated() {
                if index > 0 && (digits.count - index) % 3 == 0 { grouped += "," }
                grouped.append(digit)
            }
            return (value < 0 ? "-" : "") + grouped
        }
        if magnitude >= 100 { return String(format: "%.0f", value) }
        if magnitude >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
    static func ratio(_ value: Double) -> String { String(format: "%.2fx", value) }

    static func status(_ verdict: Verdict) -> String {
        switch verdict {
        case .baseline: "baseline"
        case .ok: "ok"
        case .fail: "FAIL !"
        case .info: "info"
        case .unchecked: "unchecked"
        case .error: "ERROR"
        }
    }
}

/// The rows every rendering shares: one per variant of a comparison and one per metric of a report.
struct ReportRow {
    var workload: String
    var item: String
    var median: String
    var min: String
    var max: String
    var ratio: String
    var target: String
    var status: String

    static let header = ReportRow(workload: "workload", item: "variant / metric", median: "median", min: "min",
                                 max: "max", ratio: "ratio", target: "target", status: "status")

    var cells: [String] { [workload, item, median, min, max, ratio, target, status] }

    static func rows(_ report: ThroughputReport) -> [ReportRow] {
        var rows: [ReportRow] = []
        for workload in report.workloads {
            var first = true
            func name() -> String {
                defer { first = false }
                return first ? workload.name : ""
            }
            for variant in workload.variants {
                let targets = variant.targets.map { target in
                    guard target.kind == "fasterThan", let value = target.value else { return target.target }
                    return "\(target.target): \(Format.ratio(value))"
                }
                rows.append(ReportRow(
                    workload: name(), item: variant.name,
                    median: variant.seconds.map { Format.seconds($0.median) } ?? "-",
                    min: variant.seconds.map { Format.seconds($0.min) } ?? "-",
                    max: variant.seconds.map { Format.seconds($0.max) } ?? "-",
                    ratio: variant.role == "baseline" ? "1.00x" : variant.ratio.map(Format.ratio) ?? "-",
                    target: targets.joined(separator: "; "),
                    status: Format.status(variant.verdict)))
            }
            if let error = workload.error {
                rows.append(ReportRow(workload: name(), item: "error: \(error)", median: "", min: "", max: "",
                                     ratio: "", target: "", status: "ERROR"))
            }
            for metric in workload.metrics {
                rows.append(ReportRow(
                    workload: name(), item: metric.name,
                    median: "\(Format.number(metric.summary.median)) \(metric.unit)",
                    min: Format.number(metric.summary.min), max: Format.number(metric.summary.max),
                    ratio: "", target: "", status: "report"))
            }
        }
        return rows
    }
}

enum ConsoleTable {
    static func render(_ report: ThroughputReport) -> String {
        let rows = [ReportRow.header] + ReportRow.rows(report)
        let columns = ReportRow.header.cells.count
        let widths = (0..<columns).map { column in rows.map { $0.cells[column].count }.max() ?? 0 }
        let rightAligned: Set<Int> = [2, 3, 4, 5]
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return rightAligned.contains(index) ? padding + cell : cell + padding
            }.joined(separator: "  ").replacingOccurrences(of: " +$", with: "", options: .regularExpression)
        }
        var text = line(rows[0].cells) + "\n"
        text += String(repeating: "-", count: widths.reduce(0, +) + 2 * (columns - 1)) + "\n"
        for row in rows.dropFirst() {
            if !row.workload.isEmpty && row.workload != rows[1].workload { text += "\n" }
            text += line(row.cells) + "\n"
        }
        return text
    }
}

enum MarkdownReport {
    /// The results as Markdown: a header (date, machine, settings), the table, the ratio chart, the flags.
    static func render(_ report: ThroughputReport, chartPath: String) -> String {
        var text = """
            Measured \(report.date) on \(report.machine.summaryLine).
            Scale \(report.scale) (\(Format.number(Double(report.rows))) rows/documents), \(report.runs) runs \
            after a warm-up; seconds are medians (min, max) and ratios are the median over rounds of candidate / \
            baseline in the same round, both measured in the same invocation.\(report.only.map { " Subset: \($0.joined(separator: ", "))." } ?? "")

            | workload | variant / metric | median | min | max | ratio | target | status |
            |---|---|--:|--:|--:|--:|---|---|

            """
        for row in ReportRow.rows(report) {
            let cells = row.cells.enumerated().map { index, cell in
                index == 0 && !cell.isEmpty ? "`\(cell)`" : index == 7 && cell == "FAIL !" ? "**FAIL**" : cell
            }
            text += "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ")
                + " |\n"
        }
        text += "\n![Ratios against the raw C API](\(chartPath))\n"
        for error in report.errors {
            text += "\n**Error** in `\(error.workload)`\(error.variant.isEmpty ? "" : " / \(error.variant)"): "
                + error.error + "\n"
        }
        let failures = report.failures
        if !failures.isEmpty {
            text += "\n**Worse than target:** "
                + failures.map { "`\($0.workload)` / \($0.variant)" }.joined(separator: ", ") + "\n"
        }
        return text
    }

    /// Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in `path` (appending the
    /// markers if missing); NAME is the suite that generated it.
    static func updateSection(in path: String, named name: String = "throughput", with content: String) throws {
        let begin = "<!-- \(name):begin -->", end = "<!-- \(name):end -->"
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let section = "\(begin)\n<!-- Generated by `sift-bench \(name)`; edits here are overwritten. -->\n"
            + content + "\(end)"
        if let start = text.range(of: begin), let finish = text.range(of: end, range: start.upperBound..<text.endIndex) {
            text.replaceSubrange(start.lowerBound..<finish.upperBound, with: section)
        } else {
            text += (text.isEmpty || text.hasSuffix("\n") ? "" : "\n") + "\n" + section + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

enum JSONReport {
    static func render(_ report: ThroughputReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(report)
    }
}
