import Foundation
import Sift
import SiftEvaluation

/// How `CorpusIndexer` reads its sources.
public struct IndexOptions: Sendable {
    /// Forces one format for every source; nil detects it per source (`SourceFormat.detect`).
    public var format: SourceFormat?
    /// The fields of record files.
    public var fields: FieldNames
    /// Extensions read as plain text in folders, besides txt, md, html and htm (without dots).
    public var extraExtensions: [String]
    /// Stop at the first bad input instead of reporting and skipping it.
    public var strict: Bool
    /// Documents per transaction: each committed batch survives an interruption or a later error.
    public var batchSize: Int
    /// Larger files in a folder are skipped, which is what bounds memory: a file is read whole. A gzip file
    /// (`notes.txt.gz`) is decompressed only up to this size and skipped when its contents are larger
    /// (`GzipProblem.tooLarge`), so a gzip bomb is reported without being decompressed further.
    public var maxFileSize: Int
    /// The JSON Lines field holding each record's vector (an array of numbers), stored as the document's embedding
    /// (``CorpusDatabase/vectorIndex``); nil reads no vectors. A record without the field has none.
    public var vectorField: String?
    /// How a corpus's new vector index compares vectors (cosine when nil); an existing one must match.
    public var vectorMetric: VectorMetric?

    /// Detected formats, default fields, batches of 1,000, files up to 64 MiB, no vectors.
    public init(format: SourceFormat? = nil, fields: FieldNames = FieldNames(), extraExtensions: [String] = [],
                strict: Bool = false, batchSize: Int = 1000, maxFileSize: Int = 1 << 26,
                vectorField: String? = nil, vectorMetric: VectorMetric? = nil) {
        self.vectorField = vectorField
        self.vectorMetric = vectorMetric
        self.format = format
        self.fields = fields
        self.extraExtensions = extraExtensions
        self.strict = strict
        self.batchSize = max(1, batchSize)
        self.maxFileSize = maxFileSize
    }
}

/// Where indexing is, for a progress display.
public struct IndexProgress: Sendable, Hashable {
    /// Files read (a record file counts once, when finished).
    public var files: Int
    /// Documents read, written or found unchanged.
    public var documents: Int
    /// Input bytes consumed.
    public var bytes: Int
    /// All input bytes, when known (worked out only when progress is observed).
    public var totalBytes: Int?
    /// Seconds since indexing started.
    public var elapsed: Double
}

/// What an indexing run did.
public struct IndexReport: Sendable, Hashable {
    /// Documents added or replaced.
    public var written = 0
    /// Folder files skipped because their size and modification time had not changed.
    public var unchanged = 0
    /// Documents removed because their file is gone (folders) or their record is (record files).
    public var removed = 0
    /// Bad lines, records or files reported and skipped.
    public var skipped = 0
    /// Files read.
    public var files = 0
    /// Input bytes read.
    public var bytes = 0
    /// Wall-clock seconds.
    public var seconds = 0.0
    /// Whether `shouldStop` ended the run early (every batch read until then is committed).
    public var interrupted = false

    /// The documented exit status of `sift index`: 0 all indexed, 1 something was skipped, 130 interrupted.
    public var exitStatus: Int32 { interrupted ? 130 : skipped > 0 ? 1 : 0 }
}

/// Indexes folders and record files into a corpus, streaming: at most one batch of documents (and
/// one file or record) is in memory whatever the input's size.
///
/// Re-indexing a folder reads only files whose size or modification time changed and removes the
/// documents of files that are gone. Re-indexing a record file replaces its documents by key and
/// removes those whose records are gone. A document's key is unique across the corpus: the same
/// key from another source replaces it.
///
/// One indexing run at a time per corpus: `index(_:)` holds the corpus's indexing lock (an exclusive
/// `flock` on a file beside the database, see `IndexingLock`) from before it numbers the run until it
/// returns, and fails at once with `SiftToolError.indexingInProgress` when another run holds it.
/// Removing the stale documents of a record file relies on this: it deletes the file's documents that
/// carry an older run number than the current run, which is only "not in the file any more" when no
/// other run can write the same documents meanwhile (two overlapping runs would each delete the
/// documents the other had just rewritten). With runs serialized, every document of the file that the
/// current run read carries its number, so only documents whose records are gone are removed.
public final class CorpusIndexer {
    /// The corpus written to.
    public let corpus: CorpusDatabase
    /// How sources are read.
    public let options: IndexOptions
    /// Receives each skipped input as `path:line: problem`.
    public var onProblem: ((String) -> Void)?
    /// Receives progress after every document; set it only to display progress (it costs a pre-scan for totals).
    public var onProgress: ((IndexProgress) -> Void)?
    /// Polled before each document; returning true commits what was read and ends the run (Ctrl-C).
    public var shouldStop: (() -> Bool)?

    private var report = IndexReport()
    private var pending: [StoredDocument] = []
    private var pendingIndex: [String: Int] = [:]
    /// The vectors of pending documents, by key.
    private var pendingVectors: [String: [Float]] = [:]
    /// The corpus's vector declaration, once known (read at the start of a run with `vectorField`, or set by the
    /// first vector of a corpus that has none).
    private var vectorBinding: VectorIndexBinding?
    private var run = 0
    private var documents = 0
    private var totalBytes: Int?
    private var baseBytes = 0
    private var start = Date()

    /// An indexer for `corpus`.
    public init(corpus: CorpusDatabase, options: IndexOptions = IndexOptions()) {
        self.corpus = corpus
        self.options = options
    }

    private struct Stop: Error {}

    /// Indexes `sources` in order. Throws `SiftToolError` for a missing or unrecognised source,
    /// `SiftToolError.indexingInProgress` when another run is indexing into the corpus (nothing is
    /// written then) and, with `strict`, for the first bad input or unreadable file or folder; batches
    /// committed before an error stay committed. Without `strict`, a file or folder that cannot be read is
    /// reported to `onProblem` as `path: cannot read: <reason>` and skipped, and its documents are kept.
    public func index(_ sources: [URL]) throws -> IndexReport {
        report = IndexReport()
        start = Date()
        let resolved = try sources.map { url in (url.standardizedFileURL, try options.format ?? SourceFormat.detect(url)) }
        if options.vectorField != nil, let other = resolved.first(where: { $0.1 != .jsonl && $0.1 != .beir }) {
            throw SiftToolError.invalidArgument("--vector-field reads JSON Lines records; \(other.0.path) is \(other.1.rawValue)")
        }
        let lock = try corpus.lockForIndexing()
        defer { lock.release() }
        if options.vectorField != nil {
            vectorBinding = try corpus.vectorBinding()
            if let vectorBinding, let metric = options.vectorMetric, metric != vectorBinding.metric {
                throw SiftToolError.invalidArgument("the corpus's vectors are compared by \(vectorBinding.metric.rawValue), not \(metric.rawValue)")
            }
        }
        if onProgress != nil { totalBytes = resolved.reduce(0) { $0 + inputSize($1.0, $1.1) } }
        run = try corpus.beginRun()
        do {
            for (url, format) in resolved {
                do {
                    switch format {
                    case .folder: try indexFolder(url)
                    case .jsonl: try indexJSONLines(url, origin: url)
                    case .beir: try indexJSONLines(url.appendingPathComponent("corpus.jsonl"), origin: url)
                    case .csv: try indexDelimited(url, separator: ",", quoting: true)
                    case .tsv: try indexDelimited(url, separator: "\t", quoting: false)
                    }
                } catch let failure as FileReading.Failure {
                    // The record file is skipped from where reading failed; its documents are not swept as stale.
                    try skip(failure)
                } catch let error as SiftToolError {
                    // A gzip record file's data is damaged or truncated: skipped from there, as above.
                    guard case .badArchive = error else { throw error }
                    try skip(file: error)
                }
            }
            try flush()
        } catch is Stop {
            try flush()
            report.interrupted = true
        } catch {
            // What was read before the error is good input: keep it, as Ctrl-C would.
            try? flush()
            throw error
        }
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    // MARK: - Batches

    private func add(_ document: StoredDocument, vector: [Float]? = nil) throws {
        if shouldStop?() == true { throw Stop() }
        var document = document
        document.run = run
        pendingVectors[document.key] = vector
        if let existing = pendingIndex[document.key] {
            pending[existing] = document
        } else {
            pendingIndex[document.key] = pending.count
            pending.append(document)
        }
        documents += 1
        if pending.count >= options.batchSize { try flush() }
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        let batch = pending
        try corpus.translatingErrors {
            let database = corpus.database
            try database.run(transaction: {
                // Deleting first, rather than INSERT OR REPLACE, makes the index drop the old text explicitly.
                try database.delete(fromTable: CorpusDatabase.documentsTable,
                                    where: StoredDocument.Properties.key.in(batch.map(\.key)))
                try database.insert(objects: batch, intoTable: CorpusDatabase.documentsTable)
                try corpus.writeVectors(batch.compactMap { document in pendingVectors[document.key].map { (document.key, $0) } })
            })
        }
        report.written += batch.count
        pending.removeAll(keepingCapacity: true)
        pendingIndex.removeAll(keepingCapacity: true)
        pendingVectors.removeAll(keepingCapacity: true)
    }

    /// Reports a source file that cannot be read and goes on, or with `strict` stops on it.
    private func skip(_ failure: FileReading.Failure) throws {
        try skip(file: .unreadable(failure.path, detail: failure.reason))
    }

    /// Reports a file that is skipped (unreadable, not text, a bad gzip archive) and goes on, or with `strict` stops on it.
    private func skip(file error: SiftToolError) throws {
        if options.strict { throw error }
        report.skipped += 1
        onProblem?(error.description)
    }

    private func skip(_ error: InputError) throws {
        if options.strict { throw SiftToolError.badInput(error) }
        report.skipped += 1
        onProblem?(error.description)
    }

    private var policy: MalformedLinePolicy {
        // The reader's callback cannot throw, so strict mode lets the reader throw and translates below.
        options.strict ? .strict : .skip { [weak self] error in
            self?.report.skipped += 1
            self?.onProblem?(error.description)
        }
    }

    private func progress(bytes: Int) {
        guard let onProgress else { return }
        onProgress(IndexProgress(files: report.files, documents: documents, bytes: baseBytes + bytes,
                                 totalBytes: totalBytes, elapsed: Date().timeIntervalSince(start)))
    }

    /// Runs a reader, turning the strict-mode `InputError` into the tool's error.
    private func reading(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as InputError {
            throw SiftToolError.badInput(error)
        }
    }

    // MARK: - Folders

    private static let textExtensions: Set<String> = ["txt", "md", "markdown", "html", "htm"]
    /// Files whose charset declaration (`<meta charset>`, `<?xml encoding>`) is looked for even when they do not start with `<`.
    private static let markupExtensions: Set<String> = ["html", "htm", "xhtml", "xml", "svg"]

    /// A file whose extension, or whose name inside for a gzip file (`notes.txt.gz`), is one read in folders.
    private func isCandidate(_ url: URL) -> Bool {
        let ext = FileReading.contentExtension(url)
        return Self.textExtensions.contains(ext) || options.extraExtensions.contains { $0.lowercased() == ext }
    }

    private static let fileKeys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]

    /// The folder's candidate files with their size and modification time, lazily. A folder (the folder
    /// itself included) that cannot be listed goes to `unreadable`, which returns whether to go on.
    private func files(in folder: URL, unreadable: ((URL, Error) -> Bool)? = nil) -> AnySequence<(url: URL, size: Int, mtime: Double)> {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: Self.fileKeys,
                                                        options: [.skipsHiddenFiles],
                                                        errorHandler: { url, error in unreadable?(url, error) ?? true })
        return AnySequence(AnyIterator {
            while let url = enumerator?.nextObject() as? URL {
                guard self.isCandidate(url), let values = try? url.resourceValues(forKeys: Set(Self.fileKeys)),
                      values.isRegularFile == true else { continue }
                return (url, values.fileSize ?? 0, values.contentModificationDate?.timeIntervalSince1970 ?? 0)
            }
            return nil
        })
    }

    private func indexFolder(_ folder: URL) throws {
        let origin = folder.path
        // Size and mtime of what is indexed from this folder; whatever is left after the walk is gone.
        var known: [String: (size: Int, mtime: Double)] = [:]
        try corpus.translatingErrors {
            let rows = try corpus.database.getRows(sql: "SELECT source, size, mtime FROM documents WHERE origin = ?", values: [origin])
            for row in rows { known[row[0].stringValue] = (Int(row[1].int64Value), row[2].doubleValue) }
        }
        let prefix = origin.hasSuffix("/") ? origin : origin + "/"
        var bytes = 0
        // Folders that cannot be listed: their files are not gone, so their documents stay.
        var unlisted: [String] = []
        var stop: FileReading.Failure?
        let walk = files(in: folder) { [options, weak self] url, error in
            let failure = FileReading.Failure(path: url.standardizedFileURL.path, reason: FileReading.reason(error))
            unlisted.append(failure.path)
            if options.strict {
                stop = failure
                return false
            }
            try? self?.skip(failure)
            return true
        }
        for file in walk {
            let path = file.url.standardizedFileURL.path
            let previous = known.removeValue(forKey: path)
            report.files += 1
            bytes += file.size
            defer { progress(bytes: bytes) }
            if let previous, previous.size == file.size, previous.mtime == file.mtime {
                report.unchanged += 1
                documents += 1
                continue
            }
            let key = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : file.url.lastPathComponent
            guard let document = try readFile(file.url, path: path, key: key, origin: origin, size: file.size, mtime: file.mtime) else {
                continue
            }
            report.bytes += file.size
            try add(document)
        }
        if let stop { throw SiftToolError.unreadable(stop.path, detail: stop.reason) }
        baseBytes += bytes
        try flush()
        let gone = known.keys.filter { source in !unlisted.contains { source.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") } }
        try remove(sources: Array(gone))
    }

    /// Reads one file of a folder; nil (after reporting it) when it cannot be used.
    private func readFile(_ url: URL, path: String, key: String, origin: String, size: Int, mtime: Double) throws -> StoredDocument? {
        guard size <= options.maxFileSize else {
            try skip(InputError(.malformedRecord("file larger than \(options.maxFileSize) bytes; not indexed"), line: 1, path: path))
            return nil
        }
        let data: Data
        do {
            data = try FileReading.isGzip(url) ? GzipReader.contents(of: path, limit: options.maxFileSize) : FileReading.contents(of: path)
        } catch let failure as FileReading.Failure {
            try skip(failure)
            return nil
        } catch let error as SiftToolError {
            try skip(file: error)
            return nil
        }
        let ext = FileReading.contentExtension(url)
        let text: String
        switch TextExtraction.decode(data, isMarkup: Self.markupExtensions.contains(ext)) {
        case .success(let decoded): text = decoded.text
        case .failure(let reason):
            try skip(file: .notText(path, reason: reason.description))
            return nil
        }
        var title: String?
        var body = text
        switch ext {
        case "html", "htm":
            (title, body) = TextExtraction.html(text)
        case "md", "markdown":
            title = TextExtraction.markdownTitle(text)
        default:
            break
        }
        return StoredDocument(key: key, title: title ?? url.lastPathComponent, body: body, origin: origin, source: path,
                              size: size, mtime: mtime)
    }

    /// Removes the documents of `sources` (files that are gone), a batch per transaction.
    private func remove(sources: [String]) throws {
        for start in stride(from: 0, to: sources.count, by: options.batchSize) {
            let chunk = Array(sources[start..<min(start + options.batchSize, sources.count)])
            try corpus.translatingErrors {
                try corpus.database.delete(fromTable: CorpusDatabase.documentsTable, where: StoredDocument.Properties.source.in(chunk))
            }
            report.removed += chunk.count
        }
    }

    /// Removes the documents of a fully read record file that this run did not write: their records are gone.
    private func removeStale(source: String) throws {
        try flush()
        let stale = StoredDocument.Properties.source == source && StoredDocument.Properties.run < run
        try corpus.translatingErrors {
            let count = try corpus.database.getValue(on: Column.all.count(), fromTable: CorpusDatabase.documentsTable, where: stale)
            guard count.int64Value > 0 else { return }
            try corpus.database.delete(fromTable: CorpusDatabase.documentsTable, where: stale)
            report.removed += Int(count.int64Value)
        }
    }

    // MARK: - Record files

    private func indexJSONLines(_ url: URL, origin: URL) throws {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { throw SiftToolError.missingFile(path) }
        let fields = options.fields
        try FileReading.checkReadable(path)
        let lines: LineReader
        do {
            lines = try FileReading.lines(of: url, policy: policy)
        } catch {
            throw FileReading.Failure(path: path, reason: FileReading.reason(error))
        }
        var bytes = 0
        try reading {
            while let (number, text) = try nextLine(lines, path: path) {
                bytes += text.utf8.count + 1
                defer { progress(bytes: bytes) }
                if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                let parsed: Any
                do {
                    parsed = try JSONSerialization.jsonObject(with: Data(text.utf8))
                } catch {
                    try skip(InputError(.malformedJSON(Self.explain(error)), line: number, path: path))
                    continue
                }
                guard let object = parsed as? [String: Any] else {
                    try skip(InputError(.malformedJSON("not a JSON object"), line: number, path: path))
                    continue
                }
                let idField = fields.idField(among: object.keys)
                guard let id = Self.identifier(object[idField]) else {
                    try skip(InputError(.missingField(idField), line: number, path: path))
                    continue
                }
                guard let body = object[fields.text] as? String else {
                    try skip(InputError(.missingField(fields.text), line: number, path: path))
                    continue
                }
                let title = object[fields.title] as? String ?? ""
                var extra = object
                for used in [idField, fields.title, fields.text] { extra[used] = nil }
                var vector: [Float]?
                if let vectorField = options.vectorField, let value = extra.removeValue(forKey: vectorField), !(value is NSNull) {
                    do {
                        vector = try checkedVector(value, field: vectorField, line: number, path: path)
                    } catch let error as InputError {
                        try skip(error)
                        continue
                    }
                }
                try add(StoredDocument(key: id, title: title, body: body, origin: origin.path, source: path,
                                       fields: Self.json(extra), size: body.utf8.count), vector: vector)
            }
        }
        report.files += 1
        report.bytes += bytes
        baseBytes += bytes
        try removeStale(source: path)
    }

    /// The vector of a record's `field`: finite numbers, as many as the corpus's vectors (the first vector of a
    /// corpus without any declares them, with its length), and not all zeros under cosine.
    private func checkedVector(_ value: Any, field: String, line: Int, path: String) throws -> [Float] {
        let vector = try VectorFile.values(value, field: field, line: line, path: path)
        if vectorBinding == nil { vectorBinding = try corpus.declareVectors(dimension: vector.count, metric: options.vectorMetric) }
        if let vectorBinding, let problem = CorpusDatabase.problem(with: vector, for: vectorBinding) {
            throw InputError(.malformedRecord("\"\(field)\": \(problem)"), line: line, path: path)
        }
        return vector
    }

    /// The next line of a record file; a file that cannot be read any further is a `FileReading.Failure`, damaged
    /// gzip data a `SiftToolError.badArchive`.
    private func nextLine(_ lines: LineReader, path: String) throws -> (number: Int, text: String)? {
        do {
            return try lines.nextLine()
        } catch let error as InputError {
            throw error
        } catch let error as SiftToolError {
            throw error
        } catch {
            throw FileReading.Failure(path: path, reason: FileReading.reason(error))
        }
    }

    private func indexDelimited(_ url: URL, separator: Unicode.Scalar, quoting: Bool) throws {
        let path = url.path
        try FileReading.checkReadable(path)
        do {
            try indexRecords(url, separator: separator, quoting: quoting)
        } catch SiftToolError.unreadable(let unreadable, let reason) where unreadable == path {
            throw FileReading.Failure(path: path, reason: reason)
        }
    }

    private func indexRecords(_ url: URL, separator: Unicode.Scalar, quoting: Bool) throws {
        let path = url.path
        let reader = try DelimitedReader(url: url, separator: separator, quoting: quoting, policy: policy)
        try reading {
            guard let (_, header) = try reader.next() else { return }
            let fields = options.fields
            let idField = fields.idField(among: header)
            guard let idColumn = header.firstIndex(of: idField) else {
                throw SiftToolError.missingColumn(file: path, column: idField, available: header)
            }
            guard let textColumn = header.firstIndex(of: fields.text) else {
                throw SiftToolError.missingColumn(file: path, column: fields.text, available: header)
            }
            let titleColumn = header.firstIndex(of: fields.title)
            while let (number, row) = try reader.next() {
                defer { progress(bytes: reader.bytesRead) }
                guard row.count == header.count else {
                    try reader.reject(InputError(.malformedRecord("expected \(header.count) fields as in the header, found \(row.count)"),
                                                 line: number, path: path))
                    continue
                }
                guard !row[idColumn].isEmpty else {
                    try reader.reject(InputError(.missingField(idField), line: number, path: path))
                    continue
                }
                var extra: [String: Any] = [:]
                for (column, name) in header.enumerated() where ![idColumn, textColumn, titleColumn].contains(column) {
                    extra[name] = row[column]
                }
                try add(StoredDocument(key: row[idColumn], title: titleColumn.map { row[$0] } ?? "", body: row[textColumn],
                                       origin: path, source: path, fields: Self.json(extra), size: row[textColumn].utf8.count))
            }
        }
        report.files += 1
        report.bytes += reader.bytesRead
        baseBytes += reader.bytesRead
        try removeStale(source: path)
    }

    private static func identifier(_ value: Any?) -> String? {
        if let string = value as? String { return string.isEmpty ? nil : string }
        if let number = value as? Int { return String(number) }
        return nil
    }

    private static func json(_ fields: [String: Any]) -> String {
        guard !fields.isEmpty,
              let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func explain(_ error: Error) -> String {
        let nsError = error as NSError
        return nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? nsError.localizedDescription
    }

    private func inputSize(_ url: URL, _ format: SourceFormat) -> Int {
        func size(_ url: URL) -> Int { (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0 }
        switch format {
        case .folder: return files(in: url).reduce(0) { $0 + $1.size }
        case .beir: return size(url.appendingPathComponent("corpus.jsonl"))
        case .jsonl, .csv, .tsv:
            // Progress counts the bytes of lines read, so the total of a gzip file is its decompressed size.
            return FileReading.isGzip(url) ? GzipReader.recordedSize(of: url.path) ?? size(url) : size(url)
        }
    }
}
