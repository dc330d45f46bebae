import Foundation
import XCTest

/// Runs the `sift-crash` executable: writers SIGKILLed at random moments, the database checked after each kill.
final class CrashHarnessTests: XCTestCase {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
        var all: String { stdout + stderr }
    }

    /// The `sift-crash` binary SwiftPM built next to the test bundle (this target depends on it).
    static func executable() throws -> URL {
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                          Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for directory in candidates {
            let url = directory.appendingPathComponent("sift-crash")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        // Not a skip: a reliability check that silently does not run is worse than a failing one.
        throw NotFound(description: "the sift-crash executable was not found next to the tests (looked in \(candidates.map(\.path)))")
    }

    func runHarness(_ arguments: [String], timeout: TimeInterval = 120, environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // A hung harness fails the test instead of hanging the suite.
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        // Read before waiting: a full pipe would otherwise block the harness forever.
        let stderrData = Collected()
        let stderrDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            stderrData.set(err.fileHandleForReading.readDataToEndOfFile())
            stderrDone.signal()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        stderrDone.wait()
        process.waitUntilExit()
        watchdog.cancel()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                       stderr: String(decoding: stderrData.data, as: UTF8.self))
    }

    /// The summary line's numbers: kills, batches committed, checks passed, failures.
    func summary(_ outcome: Outcome) -> [Int]? {
        guard let line = outcome.stdout.split(separator: "\n").last(where: { $0.hasPrefix("kills: ") }) else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 4 ? numbers : nil
    }

    func testTwentyKillsLoseNothingAndLeaveNoHalfBatches() throws {
        let started = Date()
        let outcome = try runHarness(["--kills", "20", "--seed", "20240601", "--max-delay-ms", "100"])
        XCTAssertEqual(outcome.status, 0, outcome.all)
        let numbers = try XCTUnwrap(summary(outcome), outcome.all)
        XCTAssertEqual(numbers[0], 20, outcome.all)
        XCTAssertGreaterThan(numbers[1], 20, "the writers committed batches: \(outcome.all)")
        XCTAssertGreaterThan(numbers[2], 1000, outcome.all)
        XCTAssertEqual(numbers[3], 0, outcome.all)
        XCTAssertTrue(outcome.stdout.contains("final check:"), outcome.all)
        print(outcome.stdout.split(separator: "\n").suffix(3).joined(separator: "\n")
              + "\n(\(String(format: "%.1f", Date().timeIntervalSince(started))) s)")
    }

    /// The same on an encrypted database (the writers and the checker get the key from the environment): a WAL
    /// left by SIGKILL is recovered through the cipher, nothing committed is lost, and the file stays encrypted.
    func testKillsOnAnEncryptedDatabaseLoseNothing() throws {
#if !Encryption
        try XCTSkipIf(true, "Sift was built without the Encryption trait")
#endif
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sift-crash-cipher-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("crash.db").path
        let outcome = try runHarness(["--kills", "10", "--seed", "20261123", "--max-delay-ms", "100", "--path", path],
                                     environment: ["SIFT_CRASH_KEY": String(repeating: "3c", count: 32)])
        XCTAssertEqual(outcome.status, 0, outcome.all)
        let numbers = try XCTUnwrap(summary(outcome), outcome.all)
        XCTAssertEqual(numbers[0], 10, outcome.all)
        XCTAssertGreaterThan(numbers[1], 10, "the writers committed batches: \(outcome.all)")
        XCTAssertEqual(numbers[3], 0, outcome.all)
        let header = try XCTUnwrap(FileHandle(forReadingAtPath: path)?.read(upToCount: 16))
        XCTAssertNotEqual(header, Data("SQLite format 3\0".utf8), "the harness's database is encrypted")
    }

    /// The harness notices a writer that commits a batch's content and its index entries in two transactions.
    func testHarnessCatchesAWriterThatSplitsContentAndIndex() throws {
        // A failing run keeps its database: give it one in a folder this test removes.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sift-crash-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try runHarness(["--kills", "10", "--seed", "7", "--max-delay-ms", "60", "--sabotage", "split-index",
                                      "--path", folder.appendingPathComponent("crash.db").path])
        XCTAssertEqual(outcome.status, 1, outcome.all)
        let numbers = try XCTUnwrap(summary(outcome), outcome.all)
        XCTAssertGreaterThan(numbers[3], 0, outcome.all)
        XCTAssertTrue(outcome.stdout.contains("FAILURE: "), outcome.all)
    }
}

private struct NotFound: Error, CustomStringConvertible {
    let description: String
}

/// Data handed from the stderr reader to the test thread.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Data()
    func set(_ data: Data) { lock.lock(); value = data; lock.unlock() }
    var data: Data { lock.lock(); defer { lock.unlock() }; return value }
}
