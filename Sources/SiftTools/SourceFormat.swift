import Foundation

/// The kinds of input `sift index` reads (see Corpora/README.md).
public enum SourceFormat: String, Sendable, CaseIterable {
    /// A folder read recursively: .txt, .md and .html files, plus extensions asked for.
    case folder
    /// JSON Lines: one object a line.
    case jsonl
    /// Comma-separated values with a header row, RFC 4180 quoting.
    case csv
    /// Tab-separated values with a header row, no quoting.
    case tsv
    /// A BEIR-layout folder: its `corpus.jsonl` is read as JSON Lines.
    case beir

    /// Tells the format from the path: a folder holding `corpus.jsonl` is BEIR, any other folder is a
    /// folder; files go by extension, that of the name inside for gzip files (`data.jsonl.gz` is JSON Lines,
    /// decompressed as it is read).
    public static func detect(_ url: URL) throws -> SourceFormat {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw SiftToolError.missingFile(url.path)
        }
        if isDirectory.boolValue {
            let corpus = url.appendingPathComponent("corpus.jsonl").path
            return FileManager.default.fileExists(atPath: corpus) ? .beir : .folder
        }
        switch FileReading.contentExtension(url) {
        case "jsonl", "ndjson": return .jsonl
        case "csv": return .csv
        case "tsv", "tab": return .tsv
        default: throw SiftToolError.unknownFormat(url.path)
        }
    }
}

/// Which fields of a record file (JSON Lines, CSV, TSV) hold a document's id, title and text.
public struct FieldNames: Sendable, Hashable {
    /// nil: `_id`, or `id` when a record has no `_id` (BEIR files use the first, most CSV files the second).
    public var id: String?
    /// Optional in each record: a record without it has an empty title.
    public var title: String
    /// Required in each record.
    public var text: String

    /// The defaults of Corpora/README.md: `_id` (or `id`), `title`, `text`.
    public init(id: String? = nil, title: String = "title", text: String = "text") {
        self.id = id
        self.title = title
        self.text = text
    }

    /// The id field to use given the fields a file or record has.
    func idField(among names: some Sequence<String>) -> String {
        if let id { return id }
        return names.contains("_id") || !names.contains("id") ? "_id" : "id"
    }
}
