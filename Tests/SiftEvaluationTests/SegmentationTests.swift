import XCTest
@testable import SiftEvaluation

final class SegmentationTests: XCTestCase {
    func testSpansPrecisionRecallAndOOV() {
        var score = SegmentationScore()
        // gold: 我 / 爱 / 北京 / 天安门 ; predicted: 我 / 爱 / 北 / 京 / 天安门
        score.add(predicted: ["我", "爱", "北", "京", "天安门"], gold: ["我", "爱", "北京", "天安门"], vocabulary: ["我", "爱", "北京"])
        XCTAssertEqual(score.matched, 3)      // 我, 爱, 天安门
        XCTAssertEqual(score.predicted, 5)
        XCTAssertEqual(score.gold, 4)
        XCTAssertEqual(score.precision, 0.6, accuracy: 1e-12)
        XCTAssertEqual(score.recall, 0.75, accuracy: 1e-12)
        XCTAssertEqual(score.f1, 2 * 0.6 * 0.75 / 1.35, accuracy: 1e-12)
        XCTAssertEqual(score.goldOOV, 1)      // 天安门
        XCTAssertEqual(score.oovRecall, 1)
        score.add(predicted: ["南京市长", "江大桥"], gold: ["南京市", "长江", "大桥"], vocabulary: [])
        XCTAssertEqual(score.matched, 3)
        XCTAssertEqual(score.gold, 7)
        XCTAssertEqual(score.goldOOV, 4)
        XCTAssertEqual(score.oovRecall, 0.25, accuracy: 1e-12)
    }
}
