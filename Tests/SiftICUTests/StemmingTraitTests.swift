import Foundation
import XCTest
import Sift
import SiftICU

/// A build without the `Stemming` trait: no stemmer, `stem none` declared by default, and a `stem LANGUAGE` option
/// refused with an error that names the trait. Skipped in a build with the trait (StemmingTests covers it).
final class StemmingTraitTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipIf(SiftICU.isStemmingAvailable, "built with the Stemming trait: StemmingTests cover stemming")
    }

    func testStemOptionNamesTheTraitAndStemNoneStillWorks() throws {
        XCTAssertEqual(SiftICU.stemmerLanguages, [])
        XCTAssertThrowsError(try ICUTokenizer(arguments: ["stem", "english"])) { error in
            let message = (error as? SiftError)?.message ?? "\(error)"
            XCTAssertTrue(message.contains("`Stemming` trait"), message)
        }
        XCTAssertEqual(try ICUTokenizer(arguments: ["stem", "none"]).tokenize("running").map(\.text), ["running"])
    }

    func testSiftDeclaresSiftICUWithoutStemming() throws {
        XCTAssertEqual(SiftICU.defaultDeclarationOptions.map(\.value), ["none"])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-nostem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = Database(withPath: directory.appendingPathComponent("s.db").path)
        database.registerICUTokenizer()
        XCTAssertEqual(database.declaredTokenize("sift_icu"), "sift_icu stem none")
        try database.exec(sql: "CREATE VIRTUAL TABLE plain USING fts5(body, tokenize='sift_icu stem none')")
        XCTAssertThrowsError(try database.exec(sql: "CREATE VIRTUAL TABLE stemmed USING fts5(body, tokenize='sift_icu stem english')"))
    }
}
