import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A writer process: started, read line by line while it runs, killed with SIGKILL.
final class Child {
    let process = Process()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private(set) var isAtEOF = false

    init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        // stderr is inherited: a writer's error message shows up in the harness's own output.
        try process.run()
    }

    var pid: pid_t { process.processIdentifier }

    /// The complete lines that arrive before `deadline` (a `DispatchTime` uptime in nanoseconds), or until
    /// end of file; returns early after the first batch of lines when `returnOnLine` is set.
    func readLines(until deadline: UInt64, returnOnLine: Bool = false) -> [String] {
        var lines: [String] = []
        let fd = output.fileHandleForReading.fileDescriptor
        while !isAtEOF {
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline { break }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // poll takes milliseconds; round up so the deadline is not missed by a busy loop.
            let timeout = Int32(min(1000, (deadline - now + 999_999) / 1_000_000))
            let ready = poll(&descriptor, 1, timeout)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            lines += readAvailable(fd)
            if returnOnLine && !lines.isEmpty { break }
        }
        return lines
    }

    private func readAvailable(_ fd: Int32) -> [String] {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if count < 0 {
            if errno != EINTR && errno != EAGAIN { isAtEOF = true }
            return []
        }
        if count == 0 {
            isAtEOF = true
            return []
        }
        buffer += chunk[0..<count]
        var lines: [String] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
            buffer.removeSubrange(...newline)
        }
        return lines
    }

    /// SIGKILLs the writer, reads everything it wrote before dying, and waits for it.
    func kill() -> [String] {
        _ = sendSignal(SIGKILL, to: pid)
        return finish()
    }

    /// Reads to end of file and waits for the process to end.
    func finish() -> [String] {
        var lines: [String] = []
        let fd = output.fileHandleForReading.fileDescriptor
        while !isAtEOF { lines += readAvailable(fd) }
        process.waitUntilExit()
        try? output.fileHandleForReading.close()
        return lines
    }

    /// A part line the writer was killed in the middle of writing (it writes each line with one write(2), so
    /// there should never be one).
    var partialLine: String? { buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }

    var wasKilled: Bool { process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL }

    var exitDescription: String {
        process.terminationReason == .uncaughtSignal ? "signal \(process.terminationStatus)" : "exit status \(process.terminationStatus)"
    }
}

/// `kill(2)` (the method above hides the global name).
private func sendSignal(_ signal: Int32, to pid: pid_t) -> Int32 {
    #if canImport(Glibc)
    return Glibc.kill(pid, signal)
    #else
    return Darwin.kill(pid, signal)
    #endif
}
