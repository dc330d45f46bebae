import Foundation

/// Command-line options of `sift-bench throughput`, parsed by hand (no dependencies, quick to build).
struct ThroughputOptions {
    var scale = 1
    var runs = 5
    var outDirectory = "Benchmarks/results"
    var only: [String]?
    /// nil: `Benchmarks/README.md` on full runs, untouched on `--only` runs.
    var readmePath: String?
    var updateReadme: Bool?
    var strict = false
    var quiet = false

    static let usage = """
        usage: sift-bench throughput [options]
               sift-bench list

        Throughput suite: every workload runs a hand-written raw SQLite C API baseline and Sift's candidates
        (one warm-up run, then --runs timed runs each) and reports median/min/max and median ratios.

        options:
          --scale N        rows per workload = 100,000 x N (1 or 10; 10 = 1M rows)       [default 1]
          --runs N         timed runs per variant, after one warm-up                       [default 5]
          --out DIR        where throughput.json / .md / -ratios.svg go     [default Benchmarks/results]
          --only A,B,...   run only these workloads (see `sift-bench list`)
          --readme PATH    regenerate the results section of this README       [Benchmarks/README.md]
          --no-readme      do not touch the README (the default for --only runs)
          --strict         exit with status 1 when a candidate misses its target
          --quiet          no progress lines on stderr
          -h, --help       this text
        """

    static func parse(_ arguments: ArraySlice<String>, workloadNames: [String]) throws -> ThroughputOptions {
        var options = ThroughputOptions()
        var iterator = arguments.makeIterator()
        func value(for flag: String) throws -> String {
            guard let value = iterator.next(), !value.hasPrefix("--") else {
                throw BenchError.usage("\(flag) needs a value")
            }
            return value
        }
        func positive(_ flag: String) throws -> Int {
            let text = try value(for: flag)
            guard let number = Int(text), number > 0 else {
                throw BenchError.usage("\(flag) takes a positive integer, not '\(text)'")
            }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--scale": options.scale = try positive(argument)
            case "--runs": options.runs = try positive(argument)
            case "--out": options.outDirectory = try value(for: argument)
            case "--only":
                let names = try value(for: argument).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                let unknown = names.filter { !workloadNames.contains($0) }
                guard unknown.isEmpty, !names.isEmpty else {
                    throw BenchError.usage("unknown workload(s) \(unknown.joined(separator: ", ")); "
                        + "known: \(workloadNames.joined(separator: ", "))")
                }
                options.only = names
            case "--readme":
                options.readmePath = try value(for: argument)
                options.updateReadme = true
            case "--no-readme": options.updateReadme = false
            case "--strict": options.strict = true
            case "--quiet": options.quiet = true
            default: throw BenchError.usage("unknown option '\(argument)'")
            }
        }
        return options
    }
}
