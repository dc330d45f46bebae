import ArgumentParser

/// `sift-bench list`: the throughput suite's workloads, the names `--only` takes.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the throughput workloads (the names `throughput --only` takes).")

    func run() {
        for workload in Workloads.all() {
            print("\(workload.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(workload.title)")
        }
    }
}
