import ArgumentParser
import Foundation

/// `sift-bench vectors`: exact nearest-neighbour search over random vectors against the memory's pace and against
/// sqlite-vec, int8 scans with an exact re-rank (time and recall), filtered and hybrid searches, one-row writes,
/// the bytes a vector takes on disk, and the quantized scans' recall on real embeddings.
struct VectorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "Exact, int8 and binary vector search over random vectors, against a memory-bandwidth floor.",
        discussion: """
            Builds a database of --rows random vectors (uniform in -1..1, seeded) with a cosine vector index that \
            keeps int8 codes and a full-text index over six words a row, then times --queries searches of the top \
            --limit on one thread: exact float32, int8 with an exact re-rank of each --candidates count (recall \
            against the exact results), the same with a second index keeping binary codes, exact with where: \
            conditions 10% and 50% of the rows pass, and hybrid searches. The floor is a C loop summing the same float32 bytes. sqlite-vec runs the same exact searches \
            over the same vectors in a vec0 table (Benchmarks/Scripts/sqlite_vec_knn.py, run by --python; skipped \
            with the reason when it cannot load). Random vectors are the hard case for quantization: --embeddings \
            measures recall on real ones.
            """)

    @Option(help: ArgumentHelp("Vectors in the database.", valueName: "n"))
    var rows = 100_000

    @Option(help: ArgumentHelp("Values per vector.", valueName: "n"))
    var dimension = 384

    @Option(help: ArgumentHelp("Hits per search.", valueName: "k"))
    var limit = 20

    @Option(help: ArgumentHelp("Searches timed per variant.", valueName: "n"))
    var queries = 50

    @Option(help: ArgumentHelp("Candidates the int8 scans re-rank, comma-separated.", valueName: "list"))
    var candidates = "100,400"

    @Option(help: ArgumentHelp("Seed of the vectors.", valueName: "n"))
    var seed: UInt64 = 384

    @Option(name: .customLong("mmap-mb"), help: ArgumentHelp("SQLite's mmap_size for the searches, in MB (0: none).", valueName: "n"))
    var mmapMB = 0

    @Option(help: ArgumentHelp("The Python whose SQLite loads sqlite-vec (\"none\": skip the comparison).", valueName: "path"))
    var python = "/usr/bin/python3"

    @Option(name: .customLong("sqlite-vec-script"), help: ArgumentHelp("The sqlite-vec script.", valueName: "path"))
    var sqliteVecScript = SqliteVecBaseline.defaultScript

    @Option(help: ArgumentHelp("A corpus.jsonl of real embeddings ({\"_id\", \"vector\"} a line): recall of the int8 and binary "
                               + "scans on them, with the queries.jsonl beside it.", valueName: "path"))
    var embeddings: String?

    func validate() throws {
        guard rows >= 1, dimension >= 1, dimension <= 65_536, limit >= 1, queries >= 1, mmapMB >= 0 else {
            throw ValidationError("--rows, --dimension (up to 65,536), --limit and --queries take positive integers")
        }
        guard !candidateCounts.isEmpty, candidateCounts.allSatisfy({ $0 >= 1 }) else {
            throw ValidationError("--candidates takes positive integers, comma-separated")
        }
    }

    private var candidateCounts: [Int] { commaSeparated(candidates).compactMap { Int($0) } }

    func run() throws {
        try runCommand(measuring: "vectors") {
            let directory = NSTemporaryDirectory() + "sift-vectors-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let baseline = python == "none" ? nil : SqliteVecBaseline(python: python, script: sqliteVecScript)
            let workload = VectorWorkload(rows: rows, dimension: dimension, limit: limit, queries: queries,
                                          candidates: candidateCounts, seed: seed, mmapMB: mmapMB, sqliteVec: baseline)
            for line in try workload.run(in: directory) { print(line) }
            if let embeddings {
                let recall = EmbeddingRecall(corpus: embeddings, limit: limit, candidates: candidateCounts)
                for line in try recall.run(in: directory) { print(line) }
            }
        }
    }
}
