import Foundation

// sift-bench: Sift's benchmark suites. `throughput` measures every workload against hand-written raw SQLite
// C API code; `relevance` measures ranking quality on real test collections. See Benchmarks/README.md.

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

#if DEBUG
printError("warning: sift-bench was built in debug mode; its figures are meaningless. "
    + "Use: swift run -c release sift-bench throughput")
#endif

let arguments = CommandLine.arguments.dropFirst()
let workloads = Workloads.all()

switch arguments.first {
case "throughput":
    do {
        let options = try ThroughputOptions.parse(arguments.dropFirst(), workloadNames: workloads.map(\.name))
        let report = try ThroughputCommand.run(options, workloads: workloads)
        exit(!report.errors.isEmpty || (options.strict && !report.failures.isEmpty) ? 1 : 0)
    } catch BenchError.usage(let message) {
        printError("sift-bench: \(message)\n\n\(ThroughputOptions.usage)")
        exit(2)
    } catch {
        printError("sift-bench: \(error)")
        exit(1)
    }
case "fixture":
    // Writes a template database or the query list, to inspect the data with the sqlite3 shell.
    do {
        let rest = Array(arguments.dropFirst())
        guard rest.count == 2 || rest.count == 4, rest.count == 2 || rest[2] == "--scale",
              let scale = rest.count == 4 ? Int(rest[3]) : 1, scale > 0 else {
            throw BenchError.usage("usage: sift-bench fixture items|search|queries PATH [--scale N]")
        }
        let fixtures = Fixtures(scale: scale, directory: NSTemporaryDirectory()) { _, _ in }
        switch rest[0] {
        case "items": try fixtures.copyItemsDatabase(to: rest[1])
        case "search": try fixtures.copySearchDatabase(to: rest[1])
        case "queries": try (fixtures.queries.joined(separator: "\n") + "\n").write(toFile: rest[1], atomically: true, encoding: .utf8)
        default: throw BenchError.usage("usage: sift-bench fixture items|search|queries PATH [--scale N]")
        }
        fixtures.removeTemplates()
    } catch {
        printError("sift-bench: \(error)")
        exit(2)
    }
case "relevance":
    do {
        exit(try RelevanceCommand.run(arguments.dropFirst()))
    } catch BenchError.usage(let message) {
        printError("sift-bench: \(message)\n\n\(RelevanceCommand.usage)")
        exit(2)
    } catch {
        printError("sift-bench: \(error)")
        exit(1)
    }
case "list":
    for workload in workloads { print("\(workload.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(workload.title)") }
case "-h", "--help", "help":
    print(ThroughputOptions.usage)
case let other:
    printError((other.map { "sift-bench: unknown command '\($0)'\n\n" } ?? "") + ThroughputOptions.usage)
    exit(2)
}
