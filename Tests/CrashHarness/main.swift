import Foundation

// sift-crash: kill -9 a Sift writer at random moments and check that every reported batch survived,
// that no batch is half there, and that the synced FTS5 index still matches its content table.
//
//     swift run sift-crash --kills 200 --seed 42
//     swift build -c release --product sift-crash && .build/release/sift-crash --kills 200

let usage = """
    usage: sift-crash [--kills N] [--seed S] [--path P] [--min-delay-ms N] [--max-delay-ms N]
                      [--bulk-threshold N] [--sample N] [--verbose]
           sift-crash writer --path P --workload-seed S [--bulk-threshold N] [--batches N]

    The first form (the checker) starts writers on one database file, SIGKILLs each after a random delay
    and checks the database after every kill; the second is the writer it starts.

      --kills N          writers to kill (default 20)
      --seed S           seed of the kill delays, the samples and the workload (default: random, printed)
      --path P           database file, which must not exist yet (default: a new temporary folder, removed on success)
      --min-delay-ms N   shortest time a writer runs after it is ready (default 2)
      --max-delay-ms N   longest (default 250)
      --bulk-threshold N the writers' fullTextBulkThreshold; bulk batches insert N+1 to 2N rows (default 20)
      --sample N         random rows checked one by one after each kill, besides the recent batches (default 25)
      --verbose          one line per kill
      --sabotage MODE    harness self-check: a writer that breaks atomicity on purpose (split-index)
    """

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("sift-crash: \(message)\n".utf8))
    exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let isWriter = arguments.first == "writer"
if isWriter || arguments.first == "check" { arguments.removeFirst() }

var options: [String: String] = [:]
var flags: Set<String> = []
var index = 0
while index < arguments.count {
    let argument = arguments[index]
    switch argument {
    case "--verbose", "-v": flags.insert("verbose")
    case "--help", "-h":
        print(usage)
        exit(0)
    case let name where name.hasPrefix("--"):
        guard index + 1 < arguments.count else { fail("\(name) needs a value\n\(usage)") }
        options[String(name.dropFirst(2))] = arguments[index + 1]
        index += 1
    default:
        fail("unexpected argument \(argument)\n\(usage)")
    }
    index += 1
}

@MainActor func intOption(_ name: String, _ defaultValue: Int?, range: ClosedRange<Int>) -> Int? {
    guard let text = options.removeValue(forKey: name) else { return defaultValue }
    guard let value = Int(text), range.contains(value) else { fail("--\(name) takes a number in \(range.lowerBound)...\(range.upperBound)") }
    return value
}

@MainActor func seedOption(_ name: String) -> UInt64? {
    guard let text = options.removeValue(forKey: name) else { return nil }
    guard let value = UInt64(text) else { fail("--\(name) takes an unsigned 64-bit number") }
    return value
}

let sabotage: Writer.Sabotage? = options.removeValue(forKey: "sabotage").map { name in
    guard let mode = Writer.Sabotage(rawValue: name) else { fail("unknown --sabotage mode \(name)") }
    return mode
}
let bulkThreshold = intOption("bulk-threshold", 20, range: 1...400)!

if isWriter {
    guard let path = options.removeValue(forKey: "path"), let seed = seedOption("workload-seed") else {
        fail("the writer needs --path and --workload-seed\n\(usage)")
    }
    let batches = intOption("batches", nil, range: 0...Int.max)
    if let unknown = options.keys.first { fail("unknown option --\(unknown)") }
    do {
        try Writer(path: path, workload: Workload(seed: seed, bulkThreshold: bulkThreshold), lastBatch: batches, sabotage: sabotage).run()
    } catch {
        fail("writer: \(error)", status: 3)
    }
    exit(0)
}

var harness = Harness()
harness.kills = intOption("kills", 20, range: 1...1_000_000)!
if let seed = seedOption("seed") { harness.seed = seed }
harness.path = options.removeValue(forKey: "path")
harness.minDelayMs = intOption("min-delay-ms", 2, range: 0...600_000)!
harness.maxDelayMs = intOption("max-delay-ms", max(250, harness.minDelayMs), range: harness.minDelayMs...600_000)!
harness.bulkThreshold = bulkThreshold
harness.sampleSize = intOption("sample", 25, range: 0...100_000)!
harness.verbose = flags.contains("verbose")
harness.sabotage = sabotage
if let unknown = options.keys.first { fail("unknown option --\(unknown)") }
do {
    exit(try harness.run())
} catch {
    fail("\(error)")
}
