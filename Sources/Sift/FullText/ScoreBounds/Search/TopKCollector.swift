import SiftRank

/// The C side of a pruned search's scoring (`sift_topk_collector`, see sift_topk.h): the best `capacity` rows
/// seen, and copies of the terms' impact blocks for its row bounds. Owned by one search; `release()` frees it.
struct TopKCollector {
    let pointer: UnsafeMutablePointer<sift_topk_collector>

    /// `matches`: where the postings evaluator appends the rowid of every row it matches (owned by the caller).
    /// `topOnly`: the search needs the best rows and no count of the matches, so the postings evaluator may pass
    /// over the blocks whose bounds cannot beat the k-th score unread (`sift_topk_collector.top_only`).
    init(capacity: Int, blocks: [[UInt8]?], meta: TopKImpacts.Meta, columns: Int, blockBounds: [Double]?,
         matches: UnsafeMutablePointer<sift_facet_rowids>? = nil, topOnly: Bool = false) {
        let capacity = max(0, capacity)
        pointer = .allocate(capacity: 1)
        let rowids = UnsafeMutablePointer<Int64>.allocate(capacity: max(1, capacity))
        let scores = UnsafeMutablePointer<Double>.allocate(capacity: max(1, capacity))
        let copies = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: max(1, blocks.count))
        let sizes = UnsafeMutablePointer<Int>.allocate(capacity: max(1, blocks.count))
        for (t, bytes) in blocks.enumerated() {
            sizes[t] = bytes?.count ?? 0
            copies[t] = bytes.map { bytes in
                let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
                copy.initialize(from: bytes, count: bytes.count)
                return UnsafePointer(copy)
            }
        }
        let bounds = blockBounds.map { bounds in
            let copy = UnsafeMutablePointer<Double>.allocate(capacity: max(1, bounds.count))
            copy.initialize(from: bounds, count: bounds.count)
            return UnsafePointer(copy)
        }
        pointer.initialize(to: sift_topk_collector(
            capacity: Int32(clamping: capacity), count: 0, rowids: rowids, scores: scores, terms: Int32(blocks.count),
            blocks: copies, bytes: sizes, block: meta.block, watermark: meta.watermark,
            stride: Int32(ImpactBlock.stride(columns: columns)), matched: 0, scored: 0, block_bounds: bounds,
            block_count: Int64(blockBounds?.count ?? 0), matches: matches, top_only: topOnly ? 1 : 0))
    }

    /// The k-th score once `capacity` rows are held.
    var threshold: Double? {
        let top = pointer.pointee
        return top.capacity > 0 && top.count >= top.capacity ? top.scores[Int(top.capacity) - 1] : nil
    }

    /// The rows held, best first.
    var rows: [TopKSearch.Scored] {
        let top = pointer.pointee
        return (0..<Int(top.count)).map { TopKSearch.Scored(rowid: top.rowids[$0], score: top.scores[$0]) }
    }

    func release() {
        let top = pointer.pointee
        for t in 0..<Int(top.terms) { top.blocks[t].map { UnsafeMutablePointer(mutating: $0).deallocate() } }
        top.blocks.deallocate()
        top.block_bounds.map { UnsafeMutablePointer(mutating: $0).deallocate() }
        top.bytes.deallocate()
        top.rowids.deallocate()
        top.scores.deallocate()
        pointer.deallocate()
    }
}
