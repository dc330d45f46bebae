import ArgumentParser
import Foundation
import Sift
import SiftTools

/// Standard error and terminal handling shared by the commands.
enum Terminal {
    /// Progress and colour only make sense to a person watching; piped output stays plain.
    static let stderrIsTerminal = isatty(2) == 1
    /// Whether standard output is a terminal (matches are then shown in bold rather than in brackets).
    static let stdoutIsTerminal = isatty(1) == 1

    /// Writes one line to standard error.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Runs a command body: tool and database errors are printed as `sift: message` and end the
    /// process with status 2; an `ExitCode` passes through.
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            ProgressLine.clear()
            Terminal.error("sift: \(error)")
            throw ExitCode(2)
        }
    }

    /// Markers for matched words: bold on a terminal, brackets elsewhere.
    static var markers: SearchOptions.Markers {
        stdoutIsTerminal ? SearchOptions.Markers("\u{1B}[1m", "\u{1B}[0m") : SearchOptions.Markers("[", "]")
    }
}

/// `1 file`, `2 files`.
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// A one-line progress display on standard error, redrawn at most ten times a second, shown only
/// when standard error is a terminal.
final class ProgressLine {
    private let label: String
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    nonisolated(unsafe) private static var drawn = false  // only the main thread draws

    init(_ label: String, quiet: Bool) {
        self.label = label
        enabled = !quiet && Terminal.stderrIsTerminal
    }

    /// An observer for `CorpusIndexer.onProgress`, nil when nothing would be shown (saving the pre-scan).
    var observer: ((IndexProgress) -> Void)? {
        enabled ? { [weak self] in self?.update($0) } : nil
    }

    func update(_ progress: IndexProgress) {
        let now = Date()
        guard enabled, now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let rate = progress.elapsed > 0 ? Double(progress.bytes) / 1e6 / progress.elapsed : 0
        var text = "\(label): \(plural(progress.documents, "document"))"
        if progress.files > 1 { text += ", \(plural(progress.files, "file"))" }
        text += ", \(megabytes(progress.bytes))"
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(1, Double(progress.bytes) / Double(total))
            text += " of \(megabytes(total)) (\(Int(fraction * 100))%)"
            if rate > 0 { text += ", ETA \(duration(Double(total - progress.bytes) / 1e6 / rate))" }
        }
        text += String(format: ", %.1f MB/s", rate)
        FileHandle.standardError.write(Data(("\r" + text + "\u{1B}[K").utf8))
        Self.drawn = true
    }

    /// Erases the line so that what follows starts clean.
    static func clear() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }

    private func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

    private func duration(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded())
        return String(format: "%d:%02d", total / 60, total % 60)
    }
}

/// Ctrl-C during indexing: the first one lets the current batch commit and stops; a second one
/// quits at once (SQLite rolls back the open transaction, so the index stays consistent either way).
final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    private var source: DispatchSourceSignal?

    /// Starts catching SIGINT.
    init() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in self?.raise() }
        source.resume()
        self.source = source
    }

    deinit {
        source?.cancel()
        signal(SIGINT, SIG_DFL)
    }

    /// Whether Ctrl-C was pressed.
    var isRaised: Bool { lock.withLock { raised } }

    private func raise() {
        let again = lock.withLock { () -> Bool in
            defer { raised = true }
            return raised
        }
        if again { exit(130) }
        ProgressLine.clear()
        Terminal.error("sift: interrupted; committing the current batch (Ctrl-C again to quit now)")
    }
}
