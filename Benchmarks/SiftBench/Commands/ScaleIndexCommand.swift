import ArgumentParser
import Foundation
import Sift

/// What one indexing child reports (one JSON line on its standard output).
struct ScaleIndexReport: Codable {
    var engine: String
    /// The inserts (with Sift, the score bounds its bulk inserts build and extend included).
    var seconds: Double
    /// The optimize that follows (FTS5's merge into one segment; with Sift, `optimize(index:)`).
    var optimizeSeconds: Double = 0
    var peakBytes: Int
    var fileBytes: Int
    /// `scale-index --verify`: "consistent" or the first problem.
    var outcome: String?
}

/// `sift-bench scale-index`: the indexing half of `scale`, run as a child process so that its peak RSS is its own.
struct ScaleIndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "scale-index", shouldDisplay: false)

    enum Engine: String, CaseIterable, ExpressibleByArgument {
        case raw, sift
        /// Sift's sync layer with a `@TableRowCoding` model (no Encodable): timed, not searched.
        case siftRowCoding = "sift-rowcoding"
    }

    @Option var engine: Engine
    @Option var path: String
    @Option var documents: Int
    /// Times `verify(index:)` of the Sift database at `path` instead of indexing.
    @Flag var verify = false
    /// Times `rebuild(index:)` of the Sift database at `path` instead of indexing, then verifies it (untimed).
    @Flag var rebuild = false

    func run() throws {
        if verify || rebuild {
            func timed<T>(_ body: () throws -> T) rethrows -> (T, seconds: Double) {
                let start = DispatchTime.now().uptimeNanoseconds
                let value = try body()
                return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            let database = Database(withPath: path)
            // The rebuild's own time and peak RSS; the verification after it is untimed.
            let rebuildSeconds = try rebuild ? timed { try database.rebuild(index: "fts") }.seconds : 0
            let rebuildPeak = MemoryProbe.peakBytes()
            let (report, verifySeconds) = try timed { try database.verify(index: "fts") }
            try database.close {}
            let outcome = report.isConsistent ? "consistent" : "problem: \(report.problems.first ?? "?")"
            print(String(decoding: try JSONEncoder().encode(ScaleIndexReport(engine: engine.rawValue,
                seconds: rebuild ? rebuildSeconds : verifySeconds,
                peakBytes: rebuild ? rebuildPeak : MemoryProbe.peakBytes(), fileBytes: 0, outcome: outcome)), as: UTF8.self))
            return
        }
        let corpus = ScaleCorpus(count: documents)
        var seconds = 0.0
        var optimizeSeconds = 0.0
        func timed(_ body: () throws -> Void) rethrows {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        switch engine {
        case .raw:
            let db = try RawDatabase(path: path)
            try RawBaselines.createDocsTables(db)
            for batch in corpus.batches {
                let documents = corpus.documents(batch)
                try timed { try RawBaselines.insertDocumentsExplicit(documents, into: db) }
            }
            let inserts = seconds
            try timed { try db.execute("INSERT INTO fts(fts) VALUES('optimize')") }
            optimizeSeconds = seconds - inserts
            seconds = inserts
        case .sift, .siftRowCoding:
            let database = Database(withPath: path)
            try database.create(table: "docs", of: Doc.self)
            try database.create(virtualTable: "fts", of: DocIndex.self, syncedWith: "docs")
            func load<Model: TableEncodable>(_ model: (BenchDocument) -> Model) throws {
                for batch in corpus.batches {
                    let documents = corpus.documents(batch).map(model)
                    try timed { try database.insert(objects: documents, intoTable: "docs") }
                }
            }
            if engine == .sift { try load(Doc.init) } else { try load(DirectDoc.init) }
            // What a large load is followed by: FTS5's merge into one segment (the score bounds of pruned searches
            // are built by the bulk insert that crosses 20,000 rows and extended by the later ones), timed apart.
            let inserts = seconds
            try timed { try database.optimize(index: "fts") }
            optimizeSeconds = seconds - inserts
            seconds = inserts
            try database.close {}
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let report = ScaleIndexReport(engine: engine.rawValue, seconds: seconds, optimizeSeconds: optimizeSeconds,
                                      peakBytes: MemoryProbe.peakBytes(),
                                      fileBytes: size ?? 0)
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
    }

    /// Runs `scale-index --verify` on `path` in a child process: its report's `seconds` time `verify(index:)`,
    /// and its `outcome` says "consistent" or the first problem.
    static func spawnVerify(path: String) throws -> ScaleIndexReport {
        try run(["scale-index", "--engine", Engine.sift.rawValue, "--path", path, "--documents", "0", "--verify"])
    }

    /// Runs `scale-index --rebuild` on a copy of `path` (made untimed, deleted after) in a child process: its
    /// report's `seconds` time `rebuild(index:)`, and its `outcome` is the verification after it.
    static func spawnRebuild(path: String) throws -> ScaleIndexReport {
        let copy = path + ".rebuild"
        try? FileManager.default.removeItem(atPath: copy)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return try run(["scale-index", "--engine", Engine.sift.rawValue, "--path", copy, "--documents", "0", "--rebuild"])
    }

    /// Runs `scale-index` for `engine` in a child process and returns its report.
    static func spawn(_ engine: Engine, path: String, documents: Int) throws -> ScaleIndexReport {
        try run(["scale-index", "--engine", engine.rawValue, "--path", path, "--documents", String(documents)])
    }

    private static func run(_ arguments: [String]) throws -> ScaleIndexReport {
        let process = Process()
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { throw BenchError.checkFailed("cannot find this executable") }
        process.executableURL = URL(fileURLWithPath: String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = String(decoding: output, as: UTF8.self)
            .split(separator: "\n").last else {
            throw BenchError.checkFailed("\(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(ScaleIndexReport.self, from: Data(line.utf8))
    }
}
