import Foundation
import XCTest

/// Test inputs are written to a per-test temporary folder, removed afterwards, so tests never depend
/// on the shared datasets.
class TemporaryFilesTestCase: XCTestCase {
    private(set) var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("SiftEvaluationTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes raw bytes, so tests can produce BOMs, CRLFs and invalid UTF-8 exactly.
    @discardableResult
    func file(_ name: String, bytes: [UInt8]) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return url
    }

    @discardableResult
    func file(_ name: String, _ text: String) throws -> URL {
        try file(name, bytes: Array(text.utf8))
    }
}
