import CZlib
import Foundation

/// Why the data of a `.gz` file is not indexed (`SiftToolError.badArchive`); `description` is the reason reported.
public enum GzipProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file ends inside the compressed data, as an interrupted download or copy does.
    case truncated
    /// zlib rejects the data: not gzip at all, a bad block, or a checksum that does not match (zlib's reason).
    case damaged(String)
    /// The data decompresses to more than `limit` bytes, the size limit of a folder file (`IndexOptions.maxFileSize`):
    /// decompressing stops there, so a gzip bomb costs no more memory than a file at the limit.
    case tooLarge(limit: Int)

    /// e.g. "damaged gzip data (invalid block type)".
    public var description: String {
        switch self {
        case .truncated: return "truncated gzip data (the file ends inside the compressed stream)"
        case .damaged(let reason): return "damaged gzip data (\(reason))"
        case .tooLarge(let limit): return "decompresses to more than \(limit) bytes; not indexed"
        }
    }
}

/// Decompresses a gzip file (RFC 1952) as it is read: memory holds one 64 KiB chunk of the file and the
/// output asked for, never the whole file. Concatenated members (`cat a.gz b.gz > c.gz`) read as one stream;
/// bytes after a member that do not start another one (padding) end the data, as `gzip -d` ignores them.
///
/// Not `Sendable`: it owns a file descriptor and zlib's state. Use one reader per task.
final class GzipReader {
    /// The file.
    let path: String
    /// The most decompressed bytes `read(upToCount:)` returns before throwing `GzipProblem.tooLarge`; nil for no limit.
    let limit: Int?
    /// Decompressed bytes returned so far.
    private(set) var decompressed = 0

    private let descriptor: Int32
    /// zlib keeps a pointer back to its stream, so the stream must not move: it lives on the heap.
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableBufferPointer<UInt8>
    /// A member has begun and not ended: the file ending here is truncation.
    private var inMember = true
    private var finished = false
    /// What stopped decompressing after some output was produced: thrown by the next read, once that output is returned.
    private var deferredError: Error?

    static let chunkSize = 1 << 16

    /// Opens the gzip file at `path`. Throws `FileReading.Failure` when it cannot be opened.
    init(path: String, limit: Int? = nil) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileReading.Failure(path: path, reason: systemReason(errno)) }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = sift_inflate_init_gzip(stream)
        guard status == Z_OK else {
            close(descriptor)
            stream.deallocate()
            throw FileReading.Failure(path: path, reason: "zlib cannot start decompressing (status \(status))")
        }
        self.path = path
        self.limit = limit
        self.descriptor = descriptor
        self.stream = stream
        input = .allocate(capacity: Self.chunkSize)
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
        close(descriptor)
    }

    /// Up to `count` decompressed bytes, fewer only at the end of the data; empty once it has all been read.
    /// Throws `SiftToolError.badArchive` for truncated or damaged data and past `limit`, and
    /// `FileReading.Failure` when the file cannot be read. What was decompressed before such an error is
    /// returned first (as `gzip -d` writes it), the error by the call after.
    func read(upToCount count: Int) throws -> Data {
        if let limit, decompressed > limit { throw SiftToolError.badArchive(path, problem: .tooLarge(limit: limit)) }
        if let deferredError { throw deferredError }
        guard !finished, count > 0 else { return Data() }
        // One byte past the limit is enough to know it is exceeded.
        let wanted = limit.map { min(count, $0 - decompressed + 1) } ?? count
        var output = Data(count: wanted)
        let produced = try output.withUnsafeMutableBytes { try decompress(into: $0.bindMemory(to: UInt8.self)) }
        output.count = produced
        decompressed += produced
        if let limit, decompressed > limit { throw SiftToolError.badArchive(path, problem: .tooLarge(limit: limit)) }
        return output
    }

    /// The whole decompressed contents of the gzip file at `path`, which may not exceed `limit` bytes. Throws as
    /// `read(upToCount:)` does.
    static func contents(of path: String, limit: Int) throws -> Data {
        let reader = try GzipReader(path: path, limit: limit)
        var data = Data()
        while true {
            let chunk = try reader.read(upToCount: chunkSize)
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// The decompressed size the gzip file at `path` records in its last 4 bytes (modulo 4 GiB, and of its last
    /// member only): an estimate for progress, nothing to rely on. Nil when the file cannot be read.
    static func recordedSize(of path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd(), end >= 4, (try? handle.seek(toOffset: end - 4)) != nil,
              let trailer = try? handle.read(upToCount: 4), trailer.count == 4 else { return nil }
        return trailer.reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// Fills `output` as far as the data goes; returns the number of bytes written.
    private func decompress(into output: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        stream.pointee.next_out = output.baseAddress
        stream.pointee.avail_out = UInt32(clamping: output.count)
        func produced() -> Int { output.count - Int(stream.pointee.avail_out) }
        do {
            try decompressMore()
        } catch where produced() > 0 {
            deferredError = error
        }
        return produced()
    }

    /// Inflates into zlib's output buffer until it is full or the data ends.
    private func decompressMore() throws {
        while stream.pointee.avail_out > 0 && !finished {
            if stream.pointee.avail_in == 0 {
                try refill()
                if stream.pointee.avail_in == 0 {
                    if inMember { throw SiftToolError.badArchive(path, problem: .truncated) }
                    finished = true
                    break
                }
            }
            if !inMember {
                // Another member starts with the gzip magic byte; anything else is trailing padding.
                guard stream.pointee.next_in.pointee == 0x1F else {
                    finished = true
                    break
                }
                inflateReset(stream)
                inMember = true
            }
            switch inflate(stream, Z_NO_FLUSH) {
            case Z_OK, Z_BUF_ERROR:
                continue
            case Z_STREAM_END:
                inMember = false
            case let status:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw SiftToolError.badArchive(path, problem: .damaged(reason))
            }
        }
    }

    /// Reads the next chunk of the file into zlib's input; none at the end of the file.
    private func refill() throws {
        while true {
            let count = readBytes(descriptor, input.baseAddress, input.count)
            if count >= 0 {
                stream.pointee.next_in = input.baseAddress
                stream.pointee.avail_in = UInt32(count)
                return
            }
            if errno != EINTR { throw FileReading.Failure(path: path, reason: systemReason(errno)) }
        }
    }
}

/// The system's `read`, which `GzipReader.read(upToCount:)` hides inside the class.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// Compresses into gzip data chunk by chunk, so the input need not be in memory at once (the tests write
/// their `.gz` inputs with it, a 200 MB gzip bomb among them).
enum GzipWriter {
    /// `chunks` compressed as one gzip member at zlib's `level` (0-9, or `Z_DEFAULT_COMPRESSION`). Throws
    /// `SiftToolError.cannotWrite` when zlib fails (out of memory).
    static func compress(_ chunks: some Sequence<Data>, level: Int32 = Z_DEFAULT_COMPRESSION) throws -> Data {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard sift_deflate_init_gzip(stream, level) == Z_OK else {
            throw SiftToolError.cannotWrite("gzip data", detail: "zlib cannot start compressing")
        }
        defer { deflateEnd(stream) }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: GzipReader.chunkSize)
        /// Deflates what `stream` holds, appending to `output` until zlib needs more input (or, finishing, is done).
        func drain(_ flush: Int32) throws {
            var status = Z_OK
            repeat {
                status = buffer.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    return deflate(stream, flush)
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw SiftToolError.cannotWrite("gzip data", detail: "zlib status \(status)")
                }
                output.append(contentsOf: buffer[0..<(buffer.count - Int(stream.pointee.avail_out))])
            } while stream.pointee.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END)
        }
        for chunk in chunks {
            try chunk.withUnsafeBytes { bytes in
                // zlib only reads its input, but its header does not say so (`z_const`).
                stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.bindMemory(to: Bytef.self).baseAddress)
                stream.pointee.avail_in = UInt32(bytes.count)
                try drain(Z_NO_FLUSH)
            }
        }
        try drain(Z_FINISH)
        return output
    }
}
