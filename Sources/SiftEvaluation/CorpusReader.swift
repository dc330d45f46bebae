import Foundation

/// Streams the documents of a `corpus.jsonl` one at a time. Corpora run to millions of lines while
/// queries and judgments are small, so only the corpus is streamed by default.
public final class CorpusReader {
    private let reader: JSONLinesReader

    /// Opens `url`; a line without `_id` or `text` counts as malformed and goes to `policy`.
    public init(url: URL, policy: MalformedLinePolicy = .strict) throws {
        reader = try JSONLinesReader(url: url, policy: policy)
    }

    /// The next document; `nil` at the end of the file.
    public func next() throws -> CorpusDocument? {
        while let (line, object) = try reader.nextFoundationObject() {
            do {
                return try CorpusDocument(object: object, line: line, path: reader.path)
            } catch {
                try reader.reject(error)
            }
        }
        return nil
    }

    /// Calls `body` for each remaining document, for callers that do not need to stop early.
    public func forEach(_ body: (CorpusDocument) throws -> Void) throws {
        while let document = try next() { try body(document) }
    }
}
