import Foundation

/// What `Benchmarks/Tantivy/scale_tantivy.py` reports (one JSON line): its load, the searches before and after
/// the churn (every query's time, so that the percentiles are Sift's own `Percentiles`), and the churn's rates.
struct TantivyReport: Decodable {
    struct Kind: Decodable {
        var name: String
        var milliseconds: [Double]
        var meanMatches: Double
    }
    struct Round: Decodable {
        var kinds: [Kind]
        var segments: Int
        var documents: Int
    }
    struct Churn: Decodable {
        var deletes: Int
        var deleteSeconds: Double
        var updates: Int
        var updateSeconds: Double
        var mergeSeconds: Double
    }

    var version: String
    var heapMB: Int
    var reused: Bool?
    var loaded: Int?
    /// `add_document` calls and the final commit (not the file's parsing nor the Document objects).
    var loadSeconds: Double?
    /// Waiting for the merges the default merge policy started during the load.
    var mergeSeconds: Double?
    /// The child's VmHWM right after the load (the Python interpreter included).
    var loadPeakBytes: Int?
    var indexBytes: Int
    var searches: Round
    var churn: Churn?
    var searchesAfterChurn: Round?
    var peakBytes: Int

    /// The round's times of a query kind, by its name.
    func times(_ kind: ScaleCorpus.QueryKind, afterChurn: Bool) -> Kind? {
        (afterChurn ? searchesAfterChurn : searches)?.kinds.first { $0.name == kind.rawValue }
    }
}

/// Runs Tantivy on the `scale` workload through its Python bindings, in a child process
/// (`Benchmarks/Tantivy/scale_tantivy.py`): writes the documents once into a file (id TAB title TAB body) and
/// the queries and churn into a JSON plan, so that both engines index, search and change the same texts.
struct TantivyRunner {
    /// The Python interpreter (looked up on PATH when it has no slash).
    var python: String
    /// The writer's heap, MB (one indexing thread).
    var heapMB: Int
    /// The script, found beside this source file's package folder.
    var script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tantivy/scale_tantivy.py").path

    /// Nil when Tantivy can run, else why not (no script, no interpreter, or `import tantivy` fails).
    func unavailableReason() -> String? {
        guard FileManager.default.fileExists(atPath: script) else { return "no script at \(script)" }
        do {
            let output = try run(["--check"])
            if let line = try? JSONSerialization.jsonObject(with: output) as? [String: Any],
               let skipped = line["skipped"] as? String {
                return skipped + "; pip install -r Benchmarks/Tantivy/requirements.txt"
            }
            return nil
        } catch {
            return "\(python) \(script) --check failed: \(error)"
        }
    }

    /// Writes `corpus`'s documents to `path` (id TAB title TAB body, one a line), unless the file is there
    /// already with as many lines. Returns the seconds it took (0 when reused).
    static func writeDocuments(_ corpus: ScaleCorpus, to path: String) throws -> Double {
        if FileManager.default.fileExists(atPath: path), try lineCount(path) == corpus.count { return 0 }
        let start = DispatchTime.now().uptimeNanoseconds
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchError.checkFailed("cannot create \(path)")
        }
        defer { try? handle.close() }
        for batch in corpus.batches {
            var text = ""
            for document in corpus.documents(batch) {
                // The generated words are letters only: no tab nor newline to escape.
                text += "\(document.id)\t\(document.title)\t\(document.body)\n"
            }
            try handle.write(contentsOf: Data(text.utf8))
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    private static func lineCount(_ path: String) throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { return -1 }
        defer { try? handle.close() }
        var lines = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            lines += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return lines
    }

    /// Indexes the documents file into `index` (or reuses the index there when `reuse`), times `queries` of
    /// each kind, applies `churn` (`deleted` ids, then `updated` ids with the new texts), searches again.
    func run(documents: String, index: String, reuse: Bool, queries: [(ScaleCorpus.QueryKind, [String])],
             deleted: [Int64], updated: [(Int64, BenchDocument)], planPath: String) throws -> TantivyReport {
        let plan: [String: Any] = [
            "kinds": queries.map { kind, texts in ["name": kind.rawValue, "all": kind == .zipfAll, "queries": texts] },
            "deletes": deleted.map { Int($0) },
            "updates": updated.map { id, text in [Int(id), text.title, text.body] as [Any] },
        ]
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: planPath))
        var arguments = ["--documents", documents, "--plan", planPath, "--index", index, "--heap-mb", String(heapMB)]
        if reuse { arguments.append("--reuse") }
        let output = try run(arguments)
        guard let line = String(decoding: output, as: UTF8.self).split(separator: "\n").last else {
            throw BenchError.checkFailed("scale_tantivy.py printed nothing")
        }
        return try JSONDecoder().decode(TantivyReport.self, from: Data(line.utf8))
    }

    /// Runs the script with `arguments`; its standard error passes through, its standard output is returned.
    private func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError.checkFailed("\(python) scale_tantivy.py exited with \(process.terminationStatus)")
        }
        return output
    }
}
