import Foundation

/// What one run of a variant gets: a fresh temporary directory (deleted after the run), the shared fixtures, and
/// a stopwatch. Setup (creating tables, copying template databases, converting fixtures to model objects) goes
/// outside `measure`; only the work being compared goes inside.
final class RunContext {
    let directory: String
    let fixtures: Fixtures
    /// 0 for the warm-up run, then 1...runs.
    let round: Int
    private(set) var elapsed: Double?
    private(set) var metrics: [MetricSample] = []

    init(directory: String, fixtures: Fixtures, round: Int) {
        self.directory = directory
        self.fixtures = fixtures
        self.round = round
    }

    /// The warm-up run: a good place for expensive result checks (it is never timed).
    var isWarmUp: Bool { round == 0 }

    /// A fresh context for a sub-run in a new subdirectory of this run's directory (same fixtures and round).
    func subcontext(_ name: String) throws -> RunContext {
        let directory = path(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        return RunContext(directory: directory, fixtures: fixtures, round: round)
    }

    var scale: Int { fixtures.scale }
    var rowCount: Int { fixtures.rowCount }

    /// A file in this run's temporary directory.
    func path(_ name: String) -> String { directory + "/" + name }

    /// The run's main database file (does not exist until something opens it).
    var databasePath: String { path("bench.sqlite") }

    /// Set by report workloads that want the peak memory of the measured region (see `peakMemory`).
    var tracksPeakMemory = false
    /// With `tracksPeakMemory`: resident bytes just before the (last) measured region and the peak during it
    /// (`reset` is false when the kernel refused to reset the peak: it then covers the process lifetime), and
    /// the peak of SQLite's own allocations during it.
    private(set) var peakMemory: PeakMemory?

    struct PeakMemory {
        let residentBefore: Int
        let residentPeak: Int
        let reset: Bool
        let sqlitePeak: Int
    }

    /// Times `body` (ContinuousClock). Several calls in one run add up.
    @discardableResult
    func measure<T>(_ body: () throws -> T) rethrows -> T {
        var memory: (before: Int, reset: Bool)?
        if tracksPeakMemory {
            MemoryProbe.trimHeap()
            MemoryProbe.resetSQLitePeak()
            let reset = MemoryProbe.resetPeak()
            memory = (MemoryProbe.residentBytes(), reset)
        }
        let start = ContinuousClock.now
        let value = try body()
        elapsed = (elapsed ?? 0) + (ContinuousClock.now - start).seconds
        if let memory {
            peakMemory = PeakMemory(residentBefore: memory.before, residentPeak: MemoryProbe.peakBytes(),
                                    reset: memory.reset, sqlitePeak: MemoryProbe.sqlitePeakBytes())
        }
        return value
    }

    /// Records a value of a report-only workload.
    func record(_ name: String, _ value: Double, unit: String, higherIsBetter: Bool) {
        metrics.append(MetricSample(name: name, value: value, unit: unit, higherIsBetter: higherIsBetter))
    }

    /// Fails the run (and the benchmark) when a result is wrong: a fast wrong answer is no answer.
    func check(_ condition: @autoclosure () throws -> Bool, _ message: @autoclosure () -> String) throws {
        guard try condition() else { throw BenchError.checkFailed(message()) }
    }
}

struct MetricSample {
    let name: String
    let value: Double
    let unit: String
    let higherIsBetter: Bool
}

enum BenchError: Error, CustomStringConvertible {
    case checkFailed(String)
    case notMeasured(String)

    var description: String {
        switch self {
        case .checkFailed(let message): "check failed: \(message)"
        case .notMeasured(let name): "\(name) never called measure { }"
        }
    }
}

/// A goal for a candidate.
enum Target {
    /// The paired ratio candidate / baseline (median over rounds) must be at most this.
    case ratioAtMost(Double)
    /// The paired ratio other / candidate must be at least this: the candidate is `factor` times faster than
    /// the variant named `other` of the same workload.
    case fasterThan(String, factor: Double)

    var label: String {
        switch self {
        case .ratioAtMost(let limit): String(format: "<= %.2fx", limit)
        case .fasterThan(let other, let factor): String(format: ">= %.1fx faster than %@", factor, other)
        }
    }
}

/// One side of a comparison: a name, and a body that does the work inside `context.measure { }`.
struct Variant {
    typealias Body = @Sendable (RunContext) throws -> Void

    let name: String
    let targets: [Target]
    let body: Body

    init(_ name: String, targets: [Target] = [], body: @escaping Body) {
        self.name = name
        self.targets = targets
        self.body = body
    }
}

/// A named benchmark: either a comparison (a raw C API baseline against candidates, reported as ratios) or a
/// report-only measurement (its body records metrics such as reads/s or MB/s).
struct Workload {
    enum Kind {
        case comparison(baseline: Variant, candidates: [Variant])
        case report(Variant.Body)
    }

    let name: String
    let title: String
    let kind: Kind

    static func comparison(_ name: String, _ title: String, baseline: Variant, candidates: [Variant]) -> Workload {
        Workload(name: name, title: title, kind: .comparison(baseline: baseline, candidates: candidates))
    }

    static func report(_ name: String, _ title: String, body: @escaping Variant.Body) -> Workload {
        Workload(name: name, title: title, kind: .report(body))
    }
}

/// Runs workloads: per variant one warm-up run, then `runs` timed runs; the variants of a comparison are
/// interleaved run by run (baseline, candidate 1, candidate 2, baseline, ...) so machine noise spreads evenly.
struct Runner {
    let runs: Int
    let fixtures: Fixtures
    let temporaryRoot: String
    let log: (String) -> Void

    /// Runs every variant of `workload`. A variant that throws (a failed check, an SQLite error) is recorded as
    /// an error and not run again; the others go on. If the baseline fails, no ratio can be computed.
    func run(_ workload: Workload) -> WorkloadResult {
        switch workload.kind {
        case .comparison(let baseline, let candidates):
            let variants = [baseline] + candidates
            var samples = Array(repeating: [Double](), count: variants.count)
            var errors = Array(repeating: String?.none, count: variants.count)
            for round in 0...runs {
                for (index, variant) in variants.enumerated() where errors[index] == nil {
                    do {
                        let context = try runOnce("\(workload.name) / \(variant.name)", round: round, variant.body)
                        guard let seconds = context.elapsed else { throw BenchError.notMeasured(variant.name) }
                        if round > 0 { samples[index].append(seconds) }  // round 0 is the warm-up
                        log(String(format: "  %@ / %@ %@: %.3f s", workload.name, variant.name,
                                   round == 0 ? "warm-up" : "run \(round)", seconds))
                    } catch {
                        errors[index] = String(describing: error)
                        samples[index] = []
                        log("  \(workload.name) / \(variant.name): ERROR \(error)")
                    }
                }
            }
            return WorkloadResult.comparison(workload, variants: variants, samples: samples, errors: errors)
        case .report(let body):
            var collected: [(sample: MetricSample, values: [Double])] = []
            for round in 0...runs {
                let context: RunContext
                do {
                    context = try runOnce(workload.name, round: round, body)
                } catch {
                    log("  \(workload.name): ERROR \(error)")
                    return WorkloadResult.report(workload, metrics: [], error: String(describing: error))
                }
                log("  \(workload.name) \(round == 0 ? "warm-up" : "run \(round)"): "
                    + context.metrics.map { "\($0.name) \(Format.number($0.value)) \($0.unit)" }
                        .joined(separator: ", "))
                guard round > 0 else { continue }
                for sample in context.metrics {
                    if let index = collected.firstIndex(where: { $0.sample.name == sample.name }) {
                        collected[index].values.append(sample.value)
                    } else {
                        collected.append((sample, [sample.value]))
                    }
                }
            }
            return WorkloadResult.report(workload, metrics: collected, error: nil)
        }
    }

    /// One run in a fresh temporary directory, removed afterwards whatever happens.
    private func runOnce(_ label: String, round: Int, _ body: Variant.Body) throws -> RunContext {
        var template = Array((temporaryRoot + "/run-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw BenchError.checkFailed("mkdtemp failed in \(temporaryRoot) for \(label)")
        }
        let directory = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let context = RunContext(directory: directory, fixtures: fixtures, round: round)
        try body(context)
        return context
    }
}
