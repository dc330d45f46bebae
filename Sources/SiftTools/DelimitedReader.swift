import Foundation
import SiftEvaluation

/// Streams the records of a CSV file (RFC 4180: comma-separated, fields optionally in double
/// quotes, `""` for a quote, line breaks allowed inside quotes) or of a TSV file (tab-separated,
/// no quoting, so a field cannot hold a tab or a line break). Memory is bounded by the longest record.
public final class DelimitedReader {
    /// Quoted fields may span lines, but a stray quote must not swallow the rest of a large file.
    public static let maxRecordLength = 1 << 24

    private let lines: LineReader
    private let separator: Unicode.Scalar
    private let quoting: Bool
    private let policy: MalformedLinePolicy
    private let path: String
    /// Bytes consumed so far, line endings counted as one byte: for progress, not for seeking.
    public private(set) var bytesRead = 0

    /// Opens `url` as CSV (`quoting` true, separator `,`) or TSV (`quoting` false, separator tab).
    /// Bad records (and lines that are not UTF-8) go to `policy` with their line number.
    public init(url: URL, separator: Unicode.Scalar, quoting: Bool, policy: MalformedLinePolicy = .strict) throws {
        lines = try LineReader(url: url, policy: policy)
        self.separator = separator
        self.quoting = quoting
        self.policy = policy
        path = url.path
    }

    /// The next record's fields and the line it starts on; `nil` at the end of the file. Blank lines are skipped.
    public func next() throws -> (line: Int, fields: [String])? {
        while let (number, text) = try lines.nextLine() {
            bytesRead += text.utf8.count + 1
            if text.isEmpty { continue }
            if !quoting { return (number, text.split(separator: Character(separator), omittingEmptySubsequences: false).map(String.init)) }
            var parser = RecordParser(separator: separator)
            var outcome = parser.consume(text)
            while case .needsMore = outcome {
                guard let (_, more) = try lines.nextLine() else {
                    outcome = .malformed("a quoted field is never closed")
                    break
                }
                bytesRead += more.utf8.count + 1
                outcome = parser.length > Self.maxRecordLength
                    ? .malformed("a quoted field runs past \(Self.maxRecordLength) bytes; is a closing quote missing?")
                    : parser.consume(more)
            }
            switch outcome {
            case .complete(let fields): return (number, fields)
            case .malformed(let detail): try reject(InputError(.malformedRecord(detail), line: number, path: path))
            case .needsMore: continue
            }
        }
        return nil
    }

    /// Reports a record that cannot be used (say, with the wrong number of fields) through the reader's policy.
    public func reject(_ error: InputError) throws {
        switch policy {
        case .strict: throw error
        case .skip(let report): report(error)
        }
    }
}

/// The RFC 4180 state machine, fed one line at a time so a multi-line record is scanned once.
private struct RecordParser {
    enum Outcome {
        case complete([String])
        case needsMore
        case malformed(String)
    }

    private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }

    let separator: Unicode.Scalar
    private var state = State.fieldStart
    private var fields: [String] = []
    private var field = String.UnicodeScalarView()
    private(set) var length = 0

    init(separator: Unicode.Scalar) {
        self.separator = separator
    }

    mutating func consume(_ line: String) -> Outcome {
        length += line.utf8.count + 1
        for scalar in line.unicodeScalars {
            switch state {
            case .fieldStart where scalar == "\"":
                state = .quoted
            case .fieldStart, .unquoted:
                if scalar == separator { endField() } else { field.append(scalar); state = .unquoted }
            case .quoted:
                if scalar == "\"" { state = .quoteInQuoted } else { field.append(scalar) }
            case .quoteInQuoted:
                if scalar == "\"" {
                    field.append(scalar)
                    state = .quoted
                } else if scalar == separator {
                    endField()
                } else {
                    return .malformed("unexpected \"\(scalar)\" after a closing quote (quotes inside a field must be doubled)")
                }
            }
        }
        if state == .quoted {
            field.append("\n")
            return .needsMore
        }
        endField()
        return .complete(fields)
    }

    private mutating func endField() {
        fields.append(String(field))
        field = String.UnicodeScalarView()
        state = .fieldStart
    }
}
