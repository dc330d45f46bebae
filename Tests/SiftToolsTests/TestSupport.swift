import Foundation
import XCTest
import SiftTools

/// A temporary folder per test, removed afterwards, and helpers to write inputs and run `sift`.
class ToolTestCase: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sift-tools-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A path inside the test's folder.
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Writes `text` (UTF-8) to `name` inside the test's folder, creating subfolders.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url
    }

    /// The repository's `Corpora/sample`.
    static let sampleCollection = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpora/sample")

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the built `sift` executable with `arguments` in the test's folder.
    func sift(_ arguments: String...) throws -> Outcome {
        try sift(arguments)
    }

    /// Runs the built `sift` executable with `arguments` in the test's folder.
    func sift(_ arguments: [String]) throws -> Outcome {
        try run(try Self.executable(), arguments)
    }

    /// The user file permissions are tested as: `nobody` when the tests run as root (root reads and writes
    /// whatever a file's mode says), else nil for the current user.
    static let unprivilegedUser: (uid: String, gid: String)? = geteuid() == 0 ? ("65534", "65534") : nil
    static let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")

    /// Runs `sift` as a user that file permissions apply to: the current one, or `nobody` (through setpriv)
    /// when the tests run as root. Skips the test when running as root without setpriv.
    func siftUnprivileged(_ arguments: [String]) throws -> Outcome {
        try unprivileged(try Self.executable(), arguments)
    }

    /// Runs `executable` as ``siftUnprivileged(_:)`` runs `sift`.
    func unprivileged(_ executable: URL, _ arguments: [String]) throws -> Outcome {
        guard let user = Self.unprivilegedUser else { return try run(executable, arguments) }
        guard FileManager.default.isExecutableFile(atPath: Self.setpriv.path) else {
            throw XCTSkip("running as root, and \(Self.setpriv.path) is missing to run sift as an unprivileged user")
        }
        return try run(Self.setpriv, ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", executable.path] + arguments)
    }

    /// Whether the unprivileged user of ``siftUnprivileged(_:)`` can read the file at `path`.
    func unprivilegedCanRead(_ path: String) throws -> Bool {
        guard Self.unprivilegedUser != nil else { return access(path, R_OK) == 0 }
        return try unprivileged(URL(fileURLWithPath: "/usr/bin/test"), ["-r", path]).status == 0
    }

    /// Runs `executable` with `arguments` in the test's folder and waits for it.
    func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = folder
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting: a full pipe would otherwise block the child forever.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                       stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A `sift` process started by ``startSift(_:)``, still running or finished.
    struct RunningSift {
        let process: Process
        let stdout: URL
        let stderr: URL

        /// Waits for the process to end and returns its exit status and output.
        func finish() throws -> Outcome {
            process.waitUntilExit()
            return Outcome(status: process.terminationStatus,
                           stdout: String(decoding: try Data(contentsOf: stdout), as: UTF8.self),
                           stderr: String(decoding: try Data(contentsOf: stderr), as: UTF8.self))
        }
    }

    /// Starts the built `sift` executable with `arguments` in the test's folder and returns without waiting,
    /// so that several can run at once. Output goes to files, which cannot fill up and block the child as a pipe can.
    func startSift(_ arguments: [String]) throws -> RunningSift {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let id = UUID().uuidString
        let out = folder.appendingPathComponent("sift-\(id).out"), err = folder.appendingPathComponent("sift-\(id).err")
        try Data().write(to: out)
        try Data().write(to: err)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        return RunningSift(process: process, stdout: out, stderr: err)
    }

    /// The `sift` binary SwiftPM built next to the test bundle.
    static func executable() throws -> URL {
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                          Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for directory in candidates {
            let url = directory.appendingPathComponent("sift")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw XCTSkip("the sift executable was not found next to the tests (looked in \(candidates.map(\.path)))")
    }

    /// A new corpus in the test's folder.
    func makeCorpus(_ name: String = "corpus.db", tokenizer: String? = nil) throws -> CorpusDatabase {
        try CorpusDatabase.openOrCreate(at: path(name), tokenizer: tokenizer)
    }

    /// The keys of the documents matching `query` (all terms), sorted.
    func keys(_ corpus: CorpusDatabase, _ query: String) throws -> [String] {
        try corpus.search(query, options: CorpusSearchOptions(limit: 100)).hits.map(\.key).sorted()
    }
}
