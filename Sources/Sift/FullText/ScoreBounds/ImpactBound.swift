import CSQLite
import Foundation
import SiftRank

/// The upper bound of one term's contribution to a row's score (sift_rank's BM25F or sift_inb2's InB2, see
/// ``Ranking``) in any row of a block, from the block's impacts (`ImpactBlock`): computed in C by
/// `sift_bound_block` (sift_bound.h) with the arithmetic that scores rows, so the bound and the score come from one
/// formula.
///
/// Both score a term as weight * qtf * P / (k + P) (BM25F: k = k1 and the idf as weight; InB2: k = 1 and
/// In * (F + 1) / n), with P a sum over columns of a(c, len) * count(c), where a(c, len) shrinks as the column's
/// length len grows. A row of the block holds the term at most T(c) times in column c and at most S times in all,
/// and a column holding it is at least L(c) tokens long, so its count in c weighs at most a(c) = a(c, L(c)) and P
/// is at most the largest sum of a(c) * x(c) over 0 <= x(c) <= T(c) with the x(c) summing to at most S: filling
/// the columns of the largest a(c) first. As x / (k + x) grows with x, the contribution is at most
/// weight * qtf * P / (k + P) for that bound P; and always below weight * qtf (the free universal bound, used when
/// a count is too large to store). The search treats bounds within a relative 1e-9 of the k-th score as ties.
final class ImpactBound {
    /// `.bm25f` or `.inB2`.
    let ranking: Ranking.Kind
    /// The C side's description of the ranking, over copies of the weights and average lengths this bound owns.
    private var described: sift_bound_ranking

    init(_ ranking: Ranking.Kind, weights: [Double], averageLengths: [Double]) {
        self.ranking = ranking
        let (inb2, k1, b, c): (Int32, Double, Double, Double) = switch ranking {
        case .inB2(let c): (1, 1, 0, c)
        case .bm25f(let k1, let b): (0, k1, b, 0)
        case .bm25: (0, 1.2, 0.75, 0)
        }
        let columns = min(weights.count, averageLengths.count)
        let copies = UnsafeMutablePointer<Double>.allocate(capacity: max(1, 2 * columns))
        copies.initialize(from: Array(weights.prefix(columns)) + averageLengths.prefix(columns), count: 2 * columns)
        described = sift_bound_ranking(inb2: inb2, k1: k1, b: b, c: c, columns: Int32(columns), weights: copies,
                                       avglen: copies + columns)
    }

    deinit { UnsafeMutablePointer(mutating: described.weights)?.deallocate() }

    /// The bound for a term of query weight `qtf` and `idf` in the block whose impact bytes start at `bytes`;
    /// 0 when the term is in no row of the block.
    func contribution(_ bytes: UnsafePointer<UInt8>, qtf: Double, idf: Double) -> Double {
        if case .bm25 = ranking { return 0 }
        return sift_bound_block(&described, bytes, qtf, idf)
    }

    /// A term's weight as sift_rank computes it (Lucene's idf) or sift_inb2 (In * (F + 1) / n), from the rows, the
    /// rows holding it and its instances in them.
    func idf(rows: Double, having: Double, instances: Double) -> Double {
        sift_bound_idf(&described, rows, having, instances)
    }
}
