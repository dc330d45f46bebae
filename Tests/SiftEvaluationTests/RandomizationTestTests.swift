import SiftEvaluation
import XCTest

/// Fisher's paired randomization test against hand-computed p values (every sign assignment written out).
final class RandomizationTestTests: XCTestCase {
    func testExactPOfThreeQueries() {
        // Differences 1, 2, 3: sum 6. Of the 8 sign assignments only +++ (6) and --- (-6) reach |6|: p = 2/8.
        XCTAssertEqual(RandomizationTest.pValue([1, 2, 3], [0, 0, 0]), 0.25)
        // Differences 1, -1, 2: sum 2. The sums are +-1 +-1 +-2 = 4, 2, 2, 0, 0, -2, -2, -4; six reach |2|: p = 6/8.
        XCTAssertEqual(RandomizationTest.pValue([0.5, 0.25, 2.5], [-0.5, 1.25, 0.5]), 0.75)
        // The order of the arguments only flips the sign of every difference: the same p.
        XCTAssertEqual(RandomizationTest.pValue([0, 0, 0], [1, 2, 3]), 0.25)
    }

    func testNoDifferenceIsPOne() {
        XCTAssertEqual(RandomizationTest.pValue([0.3, 0.7], [0.3, 0.7]), 1)
        XCTAssertEqual(RandomizationTest.pValue([], []), 1)
    }

    func testSampledPIsSeededAndCloseToTheExactOne() {
        // 16 queries: more than the exact limit, so 10,000 sign assignments are drawn.
        let first: [Double] = [0.61, 0.42, 0.77, 0.35, 0.58, 0.49, 0.81, 0.27, 0.66, 0.53, 0.44, 0.71, 0.38, 0.62, 0.55, 0.47]
        let second: [Double] = [0.52, 0.47, 0.63, 0.31, 0.60, 0.41, 0.70, 0.29, 0.58, 0.50, 0.46, 0.62, 0.30, 0.57, 0.56, 0.40]
        let sampled = RandomizationTest.pValue(first, second)
        XCTAssertEqual(sampled, RandomizationTest.pValue(first, second), "the same seed draws the same assignments")
        XCTAssertNotEqual(sampled, RandomizationTest.pValue(first, second, seed: 99))

        // The exact p, from all 2^16 assignments.
        let differences = zip(first, second).map { $0 - $1 }
        let observed = abs(differences.reduce(0, +))
        var atLeast = 0
        for signs in 0..<(1 << differences.count) {
            let sum = differences.enumerated().reduce(0.0) { $0 + (signs & (1 << $1.offset) == 0 ? $1.element : -$1.element) }
            if abs(sum) >= observed - 1e-12 { atLeast += 1 }
        }
        let exact = Double(atLeast) / Double(1 << differences.count)
        // 10,000 draws: one standard error is at most 0.005; 0.02 is four.
        XCTAssertEqual(sampled, exact, accuracy: 0.02, "sampled \(sampled), exact \(exact)")
    }

    func testSampledPIsNeverZero() {
        // 13 equal differences: exactly 2 of the 8,192 assignments reach the observed sum (p = 0.000244); a sampled
        // p counts the observed assignment, so it is at least 1 / 10,001.
        let p = RandomizationTest.pValue(Array(repeating: 1, count: 13), Array(repeating: 0, count: 13))
        XCTAssertGreaterThanOrEqual(p, 1.0 / 10_001)
        XCTAssertLessThan(p, 0.002)
    }
}
