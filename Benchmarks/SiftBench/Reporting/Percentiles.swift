import Foundation

/// The 50th, 90th and 99th percentiles of a list of times (nearest rank), shared by the latency tables.
struct Percentiles {
    let p50: Double, p90: Double, p99: Double

    init(_ times: [Double]) {
        let sorted = times.sorted()
        func at(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        }
        (p50, p90, p99) = (at(0.5), at(0.9), at(0.99))
    }

    /// "p50 / p90 / p99", one decimal each.
    var text: String { String(format: "%.1f / %.1f / %.1f", p50, p90, p99) }
}
