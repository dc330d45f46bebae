import Foundation

/// A hand-written SVG bar chart of ratios against the baseline: one bar per candidate, a line at 1.0 (the raw
/// C API), a tick at each candidate's target; bars green when the targets are met, red when not, grey when
/// the candidate has no target; candidates without a ratio (they failed, or their baseline did) have no bar.
enum RatioChart {
    private struct Bar {
        let label: String
        let ratio: Double?
        let limits: [Double]
        let verdict: Verdict
    }

    static func render(_ report: ThroughputReport) -> String {
        let bars = report.workloads.flatMap { workload in
            workload.variants.filter { $0.role == "candidate" }.map { variant in
                Bar(label: "\(workload.name) · \(variant.name)",
                    ratio: variant.seconds == nil ? nil : variant.ratio,
                    limits: variant.targets.filter { $0.kind == "ratioAtMost" }.map(\.limit),
                    verdict: variant.verdict)
            }
        }
        let labelWidth = 380.0, plotWidth = 440.0, rowHeight = 24.0, top = 44.0, bottom = 46.0
        let width = labelWidth + plotWidth + 70
        let height = top + Double(max(bars.count, 1)) * rowHeight + bottom
        let largest = bars.flatMap { [$0.ratio ?? 0] + $0.limits }.max() ?? 1
        let axisMax = niceCeiling(max(largest * 1.08, 1.5))
        let step = axisMax <= 2 ? 0.25 : axisMax <= 5 ? 0.5 : 1.0
        func x(_ ratio: Double) -> Double { labelWidth + plotWidth * min(ratio, axisMax) / axisMax }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="10" y="18" font-size="14" font-weight="bold">Time relative to the raw SQLite C API \
            (median; lower is better)</text>
            <text x="10" y="34" fill="#555">\(escape(report.date)) · scale \(report.scale) · \(report.runs) runs · \
            \(escape(report.machine.cpu)), \(report.machine.cores) cores</text>

            """
        let plotBottom = top + Double(bars.count) * rowHeight
        var tick = 0.0
        while tick <= axisMax + 1e-9 {
            let isBaseline = abs(tick - 1) < 1e-9
            svg += line(x(tick), top - 4, x(tick), plotBottom, stroke: isBaseline ? "#222" : "#ddd",
                        width: isBaseline ? 1.5 : 1)
            svg += "<text x=\"\(fmt(x(tick)))\" y=\"\(fmt(plotBottom + 16))\" text-anchor=\"middle\" "
                + "fill=\"#444\">\(String(format: "%g", tick))x</text>\n"
            tick += step
        }
        for (index, bar) in bars.enumerated() {
            let y = top + Double(index) * rowHeight
            svg += "<text x=\"\(fmt(labelWidth - 8))\" y=\"\(fmt(y + rowHeight / 2 + 4))\" "
                + "text-anchor=\"end\">\(escape(bar.label))</text>\n"
            if let ratio = bar.ratio {
                svg += "<rect x=\"\(fmt(labelWidth))\" y=\"\(fmt(y + 4))\" width=\"\(fmt(x(ratio) - labelWidth))\" "
                    + "height=\"\(fmt(rowHeight - 8))\" fill=\"\(color(bar.verdict))\"/>\n"
                svg += "<text x=\"\(fmt(x(ratio) + 4))\" y=\"\(fmt(y + rowHeight / 2 + 4))\">"
                    + "\(String(format: "%.2fx", ratio))\(bar.verdict == .fail ? " FAIL" : "")</text>\n"
            } else {
                let isError = bar.verdict == .error
                svg += "<text x=\"\(fmt(labelWidth + 6))\" y=\"\(fmt(y + rowHeight / 2 + 4))\" "
                    + "fill=\"\(isError ? "#c62828" : "#999")\" font-style=\"italic\">"
                    + "\(isError ? "error" : "no ratio")</text>\n"
            }
            for limit in bar.limits {
                svg += line(x(limit), y + 1, x(limit), y + rowHeight - 1, stroke: "#000", width: 2.5,
                            dash: "3,2")
            }
        }
        let legendY = height - 8
        svg += "<text x=\"10\" y=\"\(fmt(legendY))\" fill=\"#555\">dashed tick: target · green: met · red: "
            + "missed · grey: no target (context)</text>\n"
        return svg + "</svg>\n"
    }

    private static func color(_ verdict: Verdict) -> String {
        switch verdict {
        case .ok: "#2e7d32"
        case .fail: "#c62828"
        default: "#90a4ae"
        }
    }

    private static func niceCeiling(_ value: Double) -> Double {
        for candidate in [1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100] where value <= candidate {
            return candidate
        }
        return value.rounded(.up)
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String,
                             width: Double, dash: String? = nil) -> String {
        "<line x1=\"\(fmt(x1))\" y1=\"\(fmt(y1))\" x2=\"\(fmt(x2))\" y2=\"\(fmt(y2))\" stroke=\"\(stroke)\" "
            + "stroke-width=\"\(fmt(width))\"\(dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")/>\n"
    }

    private static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
