import Foundation
import SiftEvaluation

/// Reads input files, saying why one cannot be read the way the system does ("permission denied",
/// "is a directory") instead of with Foundation's error dump.
enum FileReading {
    /// A source file (not the database) that cannot be read: the indexer reports and skips it, or
    /// stops on it with `strict` (as `SiftToolError.unreadable`).
    struct Failure: Error {
        /// The file.
        let path: String
        /// Why, e.g. "permission denied".
        let reason: String
    }

    /// The whole file at `path`. Throws `Failure` when it cannot be opened or read.
    static func contents(of path: String) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, reason: systemReason(errno)) }
        defer { close(descriptor) }
        var data = Data()
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_size > 0 { data.reserveCapacity(Int(info.st_size)) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                return data
            } else if errno != EINTR {
                throw Failure(path: path, reason: systemReason(errno))
            }
        }
    }

    /// Throws `Failure` unless `path` can be opened for reading and is not a directory. Reads nothing,
    /// so a pipe loses no data to the check.
    static func checkReadable(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw Failure(path: path, reason: systemReason(errno)) }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw Failure(path: path, reason: systemReason(EISDIR))
        }
    }

    /// Whether the file at `url` is gzip-compressed, going by its name: `notes.txt.gz` is `notes.txt` compressed.
    static func isGzip(_ url: URL) -> Bool { url.pathExtension.lowercased() == "gz" }

    /// The extension that says what a file holds: `txt` for `notes.txt` and for `notes.txt.gz`.
    static func contentExtension(_ url: URL) -> String {
        (isGzip(url) ? url.deletingPathExtension() : url).pathExtension.lowercased()
    }

    /// The lines of the record file at `url`, decompressed as they are read when it is gzip (`isGzip(_:)`).
    /// Throws `Failure` or a Foundation error when the file cannot be opened.
    static func lines(of url: URL, policy: MalformedLinePolicy) throws -> LineReader {
        guard isGzip(url) else { return try LineReader(url: url, policy: policy) }
        // No limit on the decompressed size: lines stream, so memory is bounded by the longest line, as for a plain file.
        let gzip = try GzipReader(path: url.path)
        return LineReader(path: url.path, policy: policy) { try gzip.read(upToCount: $0) }
    }

    /// The reason a Foundation file operation failed: the system's, when the error carries a POSIX cause (a
    /// `Failure`'s own reason for a `Failure`).
    static func reason(_ error: Error) -> String {
        if let failure = error as? Failure { return failure.reason }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return systemReason(Int32(truncatingIfNeeded: nsError.code)) }
        if let cause = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, cause.domain == NSPOSIXErrorDomain {
            return systemReason(Int32(truncatingIfNeeded: cause.code))
        }
        return nsError.localizedDescription
    }
}
