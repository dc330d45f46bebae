import Foundation

/// The TREC run format, `qid Q0 docid rank score tag` a line, so Sift's results can be scored by
/// trec_eval or pytrec_eval and compared with other systems' runs.
public enum TRECRunFile {
    /// TREC's customary depth; deeper results do not change any measure reported here except MAP, marginally.
    public static let defaultDepth = 1000

    /// The file's text: queries in `sortedQueryIDs` order, each with its first `depth` results in
    /// trec_eval order and ranks from 1. Scores are written in Swift's shortest round-trip form, so
    /// reading the file back reproduces the ranking exactly, ties included.
    public static func format(_ run: Run, depth: Int = defaultDepth) throws -> String {
        var text = ""
        try forEachQuery(of: run, depth: depth) { text += $0 }
        return text
    }

    /// Writes `run` to `url` (replacing it) one query at a time, so a large run is never held as one string.
    public static func write(_ run: Run, to url: URL, depth: Int = defaultDepth) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try forEachQuery(of: run, depth: depth) { try handle.write(contentsOf: Data($0.utf8)) }
    }

    /// Reads a run file. The rank column is ignored (trec_eval ignores it too: order comes from the
    /// scores), the tag is taken from the first line, and blank lines are skipped.
    public static func read(from url: URL, policy: MalformedLinePolicy = .strict) throws -> Run {
        let reader = try LineReader(url: url, policy: policy)
        var run = Run(tag: "")
        var sawTag = false
        while let (number, text) = try reader.nextLine() {
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty { continue }
            guard fields.count == 6, let score = Double(fields[4]) else {
                let detail = fields.count == 6
                    ? "score \"\(fields[4])\" is not a number"
                    : "expected 6 fields (qid Q0 docid rank score tag), got \(fields.count)"
                try policy.handle(InputError(.malformedRecord(detail), line: number, path: url.path))
                continue
            }
            if !sawTag {
                run.tag = String(fields[5])
                sawTag = true
            }
            run.results[String(fields[0]), default: []].append(ScoredDocument(id: String(fields[2]), score: score))
        }
        return run
    }

    private static func forEachQuery(of run: Run, depth: Int, _ emit: (String) throws -> Void) throws {
        try check(run.tag, "run tag")
        for queryID in sortedQueryIDs(run.results.keys) {
            try check(queryID, "query ID")
            var block = ""
            for (index, document) in run.ranking(for: queryID).prefix(max(depth, 0)).enumerated() {
                try check(document.id, "document ID")
                block += "\(queryID) Q0 \(document.id) \(index + 1) \(document.score) \(run.tag)\n"
            }
            try emit(block)
        }
    }

    /// Fields are separated by whitespace, so an ID containing any would shift every later column.
    private static func check(_ value: String, _ what: String) throws {
        if value.isEmpty || value.unicodeScalars.contains(where: { $0.properties.isWhitespace }) {
            throw TRECRunFileError.unwritableField(what: what, value: value)
        }
    }
}

/// A run that cannot be written as a TREC run file.
public enum TRECRunFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An empty field or one containing whitespace, which the format cannot represent.
    case unwritableField(what: String, value: String)

    /// Says which field and value could not be written.
    public var description: String {
        switch self {
        case .unwritableField(let what, let value):
            return "cannot write \(what) \"\(value)\" to a TREC run file: it is empty or contains whitespace"
        }
    }
}
