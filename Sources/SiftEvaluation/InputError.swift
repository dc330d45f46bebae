import Foundation

/// A problem with one line of an input file. It carries the path and line number because the fix is
/// almost always "open the file at that line", which a bare parser message does not let anyone do.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the line; separate from the location so tests and callers can match on it.
    public enum Kind: Sendable, Hashable {
        /// The bytes are not UTF-8; reported by us rather than left to the JSON parser so the error is the same everywhere.
        case invalidUTF8
        /// The line exceeds the reader's limit, which is what keeps memory bounded on a corrupt file with no newlines.
        case lineTooLong(limit: Int)
        /// The line is not a JSON object; the associated text is the parser's explanation.
        case malformedJSON(String)
        /// A required field (such as `_id`) is absent or has the wrong type.
        case missingField(String)
        /// A tab- or space-separated line (qrels, run file) does not have the expected shape.
        case malformedRecord(String)
    }

    /// What was wrong.
    public var kind: Kind
    /// 1-based, counting every line including blank and skipped ones, so it matches an editor's line numbers.
    public var line: Int
    /// The file being read, when there is one.
    public var path: String?

    /// Creates an error for `line` of `path`.
    public init(_ kind: Kind, line: Int, path: String? = nil) {
        self.kind = kind
        self.line = line
        self.path = path
    }

    /// `path:line: problem`, the form editors and terminals turn into a link.
    public var description: String {
        let place = "\(path ?? "<input>"):\(line)"
        switch kind {
        case .invalidUTF8: return "\(place): invalid UTF-8"
        case .lineTooLong(let limit): return "\(place): line longer than \(limit) bytes"
        case .malformedJSON(let detail): return "\(place): malformed JSON: \(detail)"
        case .missingField(let field): return "\(place): missing or invalid field \"\(field)\""
        case .malformedRecord(let detail): return "\(place): \(detail)"
        }
    }
}

/// What a reader does with a bad line. Strict is the default because a silently shortened corpus or
/// judgment file skews every metric computed from it; skipping exists for known-dirty dumps, and the
/// callback makes sure the caller still hears about every line that was dropped.
public enum MalformedLinePolicy {
    /// Throw the first `InputError`.
    case strict
    /// Report each bad line to the closure and carry on with the next one.
    case skip((InputError) -> Void)

    /// Skips bad lines without telling anyone; for throwaway tooling only.
    public static var skipSilently: MalformedLinePolicy { .skip { _ in } }

    func handle(_ error: InputError) throws {
        switch self {
        case .strict: throw error
        case .skip(let report): report(error)
        }
    }
}
