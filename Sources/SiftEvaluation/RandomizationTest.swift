/// Fisher's paired randomization test, the significance test Smucker, Allan and Carterette recommend for comparing
/// two rankings on one set of queries ("A Comparison of Statistical Significance Tests for Information Retrieval
/// Evaluation", 2007).
///
/// Under the null hypothesis the two systems are interchangeable, so each query's difference is as likely to have
/// either sign. The test flips the signs of the per-query differences and counts how often the mean difference is
/// at least as far from 0 as the one observed (two-sided). With at most ``exactLimit`` queries every one of the
/// 2^n sign assignments is counted, which gives the exact p; with more, `permutations` random assignments from a
/// generator seeded with `seed` are drawn, so a run repeats its p exactly.
///
///     let p = RandomizationTest.pValue(hybrid.map(\.ndcgAt10), text.map(\.ndcgAt10))
///     if p < 0.05 { print("hybrid and text differ") }
public enum RandomizationTest {
    /// The permutations drawn by default: a p of 0.05 is then known to about +-0.004 (one standard error).
    public static let defaultPermutations = 10_000
    /// The seed drawn from by default.
    public static let defaultSeed: UInt64 = 0x5157_4654
    /// Up to this many queries, all 2^n sign assignments are enumerated (4,096 at most) and p is exact.
    public static let exactLimit = 12

    /// The two-sided p of the mean of `first[i] - second[i]`: the share of sign assignments (the observed one
    /// included, so p is never 0) whose mean difference is at least as large in magnitude. Returns 1 when there
    /// are no queries or every difference is 0.
    ///
    /// - Precondition: `first` and `second` hold one score per query, in the same order, as many each; a
    ///   `permutations` of at least 1.
    public static func pValue(_ first: [Double], _ second: [Double], permutations: Int = defaultPermutations,
                              seed: UInt64 = defaultSeed) -> Double {
        precondition(first.count == second.count, "paired scores need as many on each side")
        precondition(permutations >= 1, "at least one permutation")
        let differences = zip(first, second).map { $0 - $1 }
        let observed = abs(differences.reduce(0, +))
        guard !differences.isEmpty, observed > 0 else { return 1 }
        // Sums compared with a tolerance: a flipped assignment equal to the observed one must count, whatever the
        // order of the additions.
        let threshold = observed - 1e-12 * max(1, differences.reduce(0) { $0 + abs($1) })
        if differences.count <= exactLimit {
            let assignments = 1 << differences.count
            var atLeast = 0
            for signs in 0..<assignments {
                var sum = 0.0
                for (bit, difference) in differences.enumerated() { sum += signs & (1 << bit) == 0 ? difference : -difference }
                if abs(sum) >= threshold { atLeast += 1 }
            }
            return Double(atLeast) / Double(assignments)
        }
        var generator = SplitMix64(seed: seed)
        var atLeast = 0
        for _ in 0..<permutations {
            var sum = 0.0
            var bits: UInt64 = 0, left = 0
            for difference in differences {
                if left == 0 { bits = generator.next(); left = 64 }
                sum += bits & 1 == 0 ? difference : -difference
                bits >>= 1
                left -= 1
            }
            if abs(sum) >= threshold { atLeast += 1 }
        }
        // The observed assignment counts once more: p = (b + 1) / (m + 1) (Phipson and Smyth, 2010), never 0.
        return Double(atLeast + 1) / Double(permutations + 1)
    }
}

/// Steele, Lea and Flood's SplitMix64: a small generator whose stream is fixed by its seed on every platform, so a
/// seeded test or damage suite repeats exactly.
///
///     var generator = SplitMix64(seed: 7)
///     let coin = generator.next() & 1
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator from its seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
