import Foundation
import SiftEvaluation

/// Streams the records of a CSV file (RFC 4180: comma-separated, fields optionally in double
/// quotes, `""` for a quote, line breaks allowed inside quotes) or of a TSV file (tab-separated,
/// no quoting, so a field cannot hold a tab or a line break). Memory is bounded by the longest record.
///
/// The first record is the header. A quoted field still open at the end of a line continues on the
/// next lines, but a stray quote must not swallow the rest of the file, so a record spanning lines is
/// kept only if it ends properly: its quoted field closes before the end of the file and before
/// `maxRecordLength` bytes, the closing quote is followed by a separator or the line end, and the record
/// has as many fields as the header. Otherwise the record's first line is reported as malformed and
/// reading resumes at the line right after it, so the lines the bad record had taken are read again as
/// records of their own: at most the line with the stray quote is lost.
public final class DelimitedReader {
    /// Quoted fields may span lines, but a stray quote must not swallow the rest of a large file.
    public static let maxRecordLength = 1 << 24

    private let lines: LineReader
    private let separator: Unicode.Scalar
    private let quoting: Bool
    private let policy: MalformedLinePolicy
    private let path: String
    /// The header's number of fields, once it has been read.
    private var headerFieldCount: Int?
    /// Lines read ahead for a record that did not end properly, to be read again; the next one is last.
    private var rereads: [(number: Int, text: String)] = []
    /// Bytes consumed so far, line endings counted as one byte: for progress, not for seeking.
    public private(set) var bytesRead = 0

    /// Opens `url` as CSV (`quoting` true, separator `,`) or TSV (`quoting` false, separator tab), decompressing
    /// it as it reads when its name ends in `.gz`. Bad records (and lines that are not UTF-8) go to `policy` with
    /// their line number. Throws `SiftToolError.unreadable` when the file cannot be opened, as `next()` does when
    /// it cannot be read.
    public init(url: URL, separator: Unicode.Scalar, quoting: Bool, policy: MalformedLinePolicy = .strict) throws {
        do {
            lines = try FileReading.lines(of: url, policy: policy)
        } catch {
            throw SiftToolError.unreadable(url.path, detail: FileReading.reason(error))
        }
        self.separator = separator
        self.quoting = quoting
        self.policy = policy
        path = url.path
    }

    /// The next record's fields and the line it starts on; `nil` at the end of the file. Blank lines are skipped.
    /// Throws `SiftToolError.unreadable` when reading the file fails, `SiftToolError.badArchive` when its gzip data
    /// is damaged or truncated, and with a `.strict` policy the first bad record's `InputError`.
    public func next() throws -> (line: Int, fields: [String])? {
        while let (number, text) = try nextLine() {
            if text.isEmpty { continue }
            if !quoting { return (number, text.split(separator: Character(separator), omittingEmptySubsequences: false).map(String.init)) }
            var parser = RecordParser(separator: separator)
            var outcome = parser.consume(text)
            var continuation: [(number: Int, text: String)] = []
            while case .needsMore = outcome {
                guard parser.length <= Self.maxRecordLength else {
                    outcome = .malformed("a quoted field runs past \(Self.maxRecordLength) bytes")
                    break
                }
                guard let more = try nextLine() else {
                    outcome = .malformed("a quoted field is never closed")
                    break
                }
                continuation.append(more)
                outcome = parser.consume(more.text)
            }
            if case .complete(let fields) = outcome {
                guard let expected = headerFieldCount else {
                    headerFieldCount = fields.count
                    return (number, fields)
                }
                if continuation.isEmpty || fields.count == expected { return (number, fields) }
                outcome = .malformed("a quoted field makes a record of \(fields.count) fields, not \(expected) as in the header")
            }
            guard case .malformed(var detail) = outcome else { continue }
            if let last = continuation.last {
                // Give the lines back: they are most likely records of their own after a stray quote.
                rereads.append(contentsOf: continuation.reversed())
                detail += " (the quoted field opened on this line runs on to line \(last.number)); "
                    + "the quote is probably stray, so only this line is skipped"
            }
            try reject(InputError(.malformedRecord(detail), line: number, path: path))
        }
        return nil
    }

    /// The next line to parse: one given back by a record that did not end properly, else the file's next.
    private func nextLine() throws -> (number: Int, text: String)? {
        if let line = rereads.popLast() { return line }
        let next: (number: Int, text: String)?
        do {
            next = try lines.nextLine()
        } catch let error as InputError {
            throw error
        } catch let error as SiftToolError {
            throw error
        } catch {
            throw SiftToolError.unreadable(path, detail: FileReading.reason(error))
        }
        guard let line = next else { return nil }
        bytesRead += line.text.utf8.count + 1
        return line
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
