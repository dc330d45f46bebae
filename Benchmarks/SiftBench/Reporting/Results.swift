import Foundation

/// Median, minimum and maximum of a set of samples.
struct Summary: Codable {
    let median: Double
    let min: Double
    let max: Double
    let samples: [Double]

    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
        self.samples = samples
    }
}

/// Whether a candidate meets its targets.
enum Verdict: String, Codable {
    case baseline   // the reference itself
    case ok         // every target met
    case fail       // some target missed: flagged in every output
    case info       // measured, no target (context, e.g. the trigger-synced variant)
    case unchecked  // measured, but a target compares with a variant that failed (the baseline, or `fasterThan`'s)
    case error      // the variant threw (see `error`); for a baseline, its candidates get no ratio
}

struct TargetResult: Codable {
    let target: String
    /// "ratioAtMost" (limit: the largest ratio to baseline) or "fasterThan" (limit: the smallest speed-up).
    let kind: String
    let limit: Double
    /// The value the target is checked against (a ratio or a speed-up); nil when it cannot be computed yet.
    let value: Double?
    let met: Bool?
}

struct VariantResult: Codable {
    let name: String
    let role: String            // "baseline" or "candidate"
    let seconds: Summary?       // nil: the variant failed
    /// median(this) / median(baseline).
    let ratio: Double?
    let targets: [TargetResult]
    let verdict: Verdict
    let error: String?
}

struct MetricResult: Codable {
    let name: String
    let unit: String
    let higherIsBetter: Bool
    let summary: Summary
}

struct WorkloadResult: Codable {
    let name: String
    let title: String
    let kind: String            // "comparison" or "report"
    let variants: [VariantResult]
    let metrics: [MetricResult]
    /// A report-only workload that threw.
    let error: String?

    static func comparison(_ workload: Workload, variants: [Variant], samples: [[Double]],
                           errors: [String?]) -> WorkloadResult {
        let summaries = samples.map(Summary.init)
        // Ratios are paired: the median over rounds of this variant's time over the other's in the same round.
        // Rounds interleave the variants, and this host's timings are bimodal (disk, neighbours), so a ratio of
        // medians could set a fast-mode baseline against a slow-mode candidate.
        func pairedRatio(_ index: Int, over other: Int) -> Double? {
            guard summaries[index] != nil, summaries[other] != nil else { return nil }
            let ratios = zip(samples[index], samples[other]).compactMap { $1 > 0 ? $0 / $1 : nil }
            return Summary(ratios)?.median
        }
        let results = variants.enumerated().map { index, variant -> VariantResult in
            let summary = summaries[index]
            let ratio = pairedRatio(index, over: 0)
            let targets = variant.targets.map { target -> TargetResult in
                switch target {
                case .ratioAtMost(let limit):
                    return TargetResult(target: target.label, kind: "ratioAtMost", limit: limit, value: ratio,
                                        met: ratio.map { $0 <= limit })
                case .fasterThan(let other, let factor):
                    let speedup = variants.firstIndex { $0.name == other }.flatMap { pairedRatio($0, over: index) }
                    return TargetResult(target: target.label, kind: "fasterThan", limit: factor, value: speedup,
                                        met: speedup.map { $0 >= factor })
                }
            }
            let verdict: Verdict =
                errors[index] != nil ? .error
                : index == 0 ? .baseline
                : targets.isEmpty ? .info
                : targets.contains { $0.met == false } ? .fail
                : targets.contains { $0.met == nil } ? .unchecked
                : .ok
            return VariantResult(name: variant.name, role: index == 0 ? "baseline" : "candidate",
                                 seconds: summary, ratio: index == 0 ? 1 : ratio,
                                 targets: targets, verdict: verdict, error: errors[index])
        }
        return WorkloadResult(name: workload.name, title: workload.title, kind: "comparison",
                              variants: results, metrics: [], error: nil)
    }

    static func report(_ workload: Workload, metrics: [(sample: MetricSample, values: [Double])],
                       error: String?) -> WorkloadResult {
        let results = metrics.compactMap { entry in
            Summary(entry.values).map {
                MetricResult(name: entry.sample.name, unit: entry.sample.unit,
                             higherIsBetter: entry.sample.higherIsBetter, summary: $0)
            }
        }
        return WorkloadResult(name: workload.name, title: workload.title, kind: "report",
                              variants: [], metrics: results, error: error)
    }
}

/// Everything one invocation measured, as written to JSON.
struct ThroughputReport: Codable {
    let suite: String
    let date: String
    let machine: MachineInfo
    let scale: Int
    let rows: Int
    let runs: Int
    let only: [String]?
    let workloads: [WorkloadResult]

    /// Every variant or report workload that threw, with its error.
    var errors: [(workload: String, variant: String, error: String)] {
        workloads.flatMap { workload in
            workload.variants.compactMap { variant in variant.error.map { (workload.name, variant.name, $0) } }
                + (workload.error.map { [(workload.name, "", $0)] } ?? [])
        }
    }

    var failures: [(workload: String, variant: String)] {
        workloads.flatMap { workload in
            workload.variants.filter { $0.verdict == .fail }.map { (workload.name, $0.name) }
        }
    }
}
