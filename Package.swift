// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Sift",
    products: [
        .library(name: "Sift", targets: ["Sift"]),
    ],
    targets: [
        // The system SQLite (Debian's libsqlite3-dev has FTS5); a shim header supplies what Swift cannot import.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "Sift", dependencies: ["CSQLite"]),
        // Test-collection loading and relevance metrics, shared by `sift eval` and the relevance benchmark.
        .target(name: "SiftEvaluation"),
        .executableTarget(name: "sift-bench", dependencies: ["CSQLite"], path: "Benchmarks/SiftBench"),
        .testTarget(name: "SiftTests", dependencies: ["Sift", "CSQLite"]),
        .testTarget(name: "SiftEvaluationTests", dependencies: ["SiftEvaluation"]),
    ]
)
