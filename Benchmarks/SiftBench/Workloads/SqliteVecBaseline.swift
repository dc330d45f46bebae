import Foundation

/// sqlite-vec's exact top-k over the same vectors, run by Debian's Python (its SQLite loads extensions) in a child
/// process: `Benchmarks/Scripts/sqlite_vec_knn.py` loads the vectors into a vec0 table and times the queries.
struct SqliteVecBaseline {
    /// What the script measured.
    struct Report: Decodable {
        let version: String
        let rows: Int
        let load_seconds: Double
        let file_bytes: Int
        let times_ms: [Double]
        let found: [[Int64]]
    }

    /// The script beside this source file's folder: Benchmarks/Scripts/sqlite_vec_knn.py.
    static var defaultScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/sqlite_vec_knn.py").path
    }

    let python: String
    let script: String

    /// Writes `vectors` (row i gets rowid i + 1) and `queries` as little-endian float32 files in `directory`, runs
    /// the script over them and returns its report, or why it could not run.
    func run(vectors: (Int) -> [Float], rows: Int, queries: [[Float]], dimension: Int, limit: Int,
             in directory: String) -> Result<Report, BenchError> {
        guard FileManager.default.isExecutableFile(atPath: python) else { return .failure(.checkFailed("no \(python)")) }
        guard FileManager.default.fileExists(atPath: script) else { return .failure(.checkFailed("no \(script)")) }
        let vectorPath = directory + "/vectors.f32", queryPath = directory + "/queries.f32"
        do {
            try Self.write(rows, vectors, to: vectorPath)
            try Self.write(queries.count, { queries[$0] }, to: queryPath)
        } catch {
            return .failure(.checkFailed("cannot write the vectors: \(error)"))
        }
        defer { for path in [vectorPath, queryPath, directory + "/vec0.db"] { try? FileManager.default.removeItem(atPath: path) } }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "--vectors", vectorPath, "--queries", queryPath, "--dimension", String(dimension),
                             "--limit", String(limit), "--database", directory + "/vec0.db"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { return .failure(.checkFailed("cannot start \(python): \(error)")) }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let reason = message.split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
            return .failure(.checkFailed(reason))
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: data) else {
            return .failure(.checkFailed("the script's output is not its report"))
        }
        return .success(report)
    }

    /// Writes vectors 0..<count as little-endian float32, one after another.
    private static func write(_ count: Int, _ vector: (Int) -> [Float], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BenchError.checkFailed("cannot create \(path)")
        }
        defer { try? file.close() }
        var chunk = Data()
        for i in 0..<count {
            vector(i).withUnsafeBytes { chunk.append(contentsOf: $0) }  // little-endian on every platform Sift runs on
            if chunk.count >= 1 << 22 {
                try file.write(contentsOf: chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        try file.write(contentsOf: chunk)
    }
}
