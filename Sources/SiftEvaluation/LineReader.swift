import Foundation

/// Reads a text file (or input handed over in chunks, see `init(path:policy:chunkSize:maxLineLength:source:)`) line
/// by line in fixed-size chunks, so memory is bounded by the longest line and
/// not by the file. Accepts `\n` and `\r\n` endings, a last line without a newline and a leading
/// UTF-8 byte order mark; every line is checked to be UTF-8 before anyone sees it.
///
/// Not `Sendable`: it owns a file position. Use one reader per task.
public final class LineReader {
    /// 64 KiB: large enough that system calls do not dominate, small enough to be irrelevant next to the data.
    public static let defaultChunkSize = 1 << 16
    /// 64 MiB: far above any real document line, low enough that a file with no newlines cannot exhaust memory.
    public static let defaultMaxLineLength = 1 << 26

    /// The file being read.
    public let url: URL
    /// `url.path`, computed once: it is not free and every error message needs it.
    let path: String
    /// The file, when the reader opened it itself (closed with the reader).
    private let handle: FileHandle?
    /// The next bytes of the input, at most the count asked for; nil or empty at the end.
    private let source: (Int) throws -> Data?
    private let policy: MalformedLinePolicy
    private let chunkSize: Int
    private let maxLineLength: Int

    private var buffer: [UInt8] = []
    private var start = 0        // first byte of the current, unreturned line
    private var scanned = 0      // no newline in buffer[start..<scanned]
    private var reachedEnd = false
    private var discarding = false
    private var lineNumber = 0

    /// Opens `url`. Lines that are not UTF-8 or longer than `maxLineLength` bytes go to `policy`.
    public convenience init(url: URL, policy: MalformedLinePolicy = .strict,
                            chunkSize: Int = LineReader.defaultChunkSize,
                            maxLineLength: Int = LineReader.defaultMaxLineLength) throws {
        let handle = try FileHandle(forReadingFrom: url)
        self.init(url: url, path: url.path, handle: handle, policy: policy, chunkSize: chunkSize, maxLineLength: maxLineLength) {
            try handle.read(upToCount: $0)
        }
    }

    /// Reads the lines of input that is not a plain file, such as a file decompressed as it is read: `source`
    /// returns the next bytes, at most the count it is given, and nil or empty data at the end (as
    /// `FileHandle.read(upToCount:)` does). `nextLine()` throws what `source` throws; `path` names the input in
    /// `InputError`s. Lines that are not UTF-8 or longer than `maxLineLength` bytes go to `policy`.
    ///
    /// ```swift
    /// let handle = try FileHandle(forReadingFrom: url)
    /// let lines = LineReader(path: url.path) { try handle.read(upToCount: $0) }
    /// ```
    public convenience init(path: String, policy: MalformedLinePolicy = .strict,
                            chunkSize: Int = LineReader.defaultChunkSize,
                            maxLineLength: Int = LineReader.defaultMaxLineLength,
                            source: @escaping (Int) throws -> Data?) {
        self.init(url: URL(fileURLWithPath: path), path: path, handle: nil, policy: policy, chunkSize: chunkSize,
                  maxLineLength: maxLineLength, source: source)
    }

    private init(url: URL, path: String, handle: FileHandle?, policy: MalformedLinePolicy, chunkSize: Int, maxLineLength: Int,
                 source: @escaping (Int) throws -> Data?) {
        precondition(chunkSize > 0 && maxLineLength > 0, "chunk size and line limit must be positive")
        self.url = url
        self.path = path
        self.handle = handle
        self.source = source
        self.policy = policy
        self.chunkSize = chunkSize
        self.maxLineLength = maxLineLength
    }

    deinit { try? handle?.close() }

    /// The next line (without its line ending) and its 1-based number; `nil` at the end of the file.
    public func nextLine() throws -> (number: Int, text: String)? {
        try nextValidLine { number, bytes in (number, String(decoding: bytes, as: UTF8.self)) }
    }

    /// Hands the bytes of the next UTF-8-valid line to `body` without copying them first.
    func nextValidLine<T>(_ body: (Int, UnsafeBufferPointer<UInt8>) throws -> T) throws -> T? {
        while let (number, range) = try nextRawLine() {
            let result: T? = try buffer.withUnsafeBufferPointer { whole in
                let line = UnsafeBufferPointer(rebasing: whole[range])
                return isValidUTF8(line) ? try body(number, line) : nil
            }
            if let result { return result }
            try policy.handle(InputError(.invalidUTF8, line: number, path: path))
        }
        return nil
    }

    /// Finds the next line terminator, reading more of the file as needed. The range is valid until the next call.
    private func nextRawLine() throws -> (Int, Range<Int>)? {
        while true {
            if let newline = findNewline() {
                lineNumber += 1
                let range = trimmed(start..<newline)
                start = newline + 1
                scanned = start
                if discarding {
                    discarding = false
                    continue
                }
                if range.count > maxLineLength {
                    try policy.handle(InputError(.lineTooLong(limit: maxLineLength), line: lineNumber, path: path))
                    continue
                }
                return (lineNumber, range)
            }
            if discarding {
                buffer.removeAll(keepingCapacity: true)
                start = 0
                scanned = 0
            } else if buffer.count - start > maxLineLength {
                lineNumber += 1
                try policy.handle(InputError(.lineTooLong(limit: maxLineLength), line: lineNumber, path: path))
                discarding = true
                lineNumber -= 1   // counted again when its newline (or the end of the file) arrives
                continue
            }
            if reachedEnd {
                guard start < buffer.count else {
                    if discarding { discarding = false; lineNumber += 1 }
                    return nil
                }
                lineNumber += 1
                let range = trimmed(start..<buffer.count)
                start = buffer.count
                scanned = start
                return (lineNumber, range)
            }
            try fill()
        }
    }

    /// Drops a trailing `\r` and, on the first line only, a byte order mark.
    private func trimmed(_ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        if upper > lower, buffer[upper - 1] == 0x0D { upper -= 1 }
        if lineNumber == 1, upper - lower >= 3,
           buffer[lower] == 0xEF, buffer[lower + 1] == 0xBB, buffer[lower + 2] == 0xBF {
            lower += 3
        }
        return lower..<upper
    }

    private func findNewline() -> Int? {
        let found: Int? = buffer.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, scanned < bytes.count,
                  let hit = memchr(base + scanned, 0x0A, bytes.count - scanned) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
        }
        if found == nil { scanned = buffer.count }
        return found
    }

    /// Moves the unfinished line to the front and appends the next chunk of the file.
    private func fill() throws {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        guard let data = try source(chunkSize), !data.isEmpty else {
            reachedEnd = true
            return
        }
        buffer.append(contentsOf: data)
    }
}

/// Strict UTF-8 validation (Unicode 15, table 3-7): rejects overlong forms, surrogates and code
/// points above U+10FFFF, which `String(decoding:)` would otherwise silently replace.
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let count = bytes.count
    var i = 0
    @inline(__always) func continuation(_ index: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
        index < count && range.contains(base[index])
    }
    while i < count {
        // Most corpus text is ASCII; check eight bytes at a time until a high bit shows up.
        while i + 8 <= count,
              UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
            i += 8
        }
        guard i < count else { break }
        let lead = base[i]
        switch lead {
        case 0x00...0x7F:
            i += 1
        case 0xC2...0xDF:
            guard continuation(i + 1) else { return false }
            i += 2
        case 0xE0...0xEF:
            let second: ClosedRange<UInt8> = lead == 0xE0 ? 0xA0...0xBF : lead == 0xED ? 0x80...0x9F : 0x80...0xBF
            guard continuation(i + 1, second), continuation(i + 2) else { return false }
            i += 3
        case 0xF0...0xF4:
            let second: ClosedRange<UInt8> = lead == 0xF0 ? 0x90...0xBF : lead == 0xF4 ? 0x80...0x8F : 0x80...0xBF
            guard continuation(i + 1, second), continuation(i + 2), continuation(i + 3) else { return false }
            i += 4
        default:
            return false
        }
    }
    return true
}
