import CSQLite
import Foundation
import SiftRank

extension TopKImpacts {
    /// Keeps the impacts in step with a bulk insert into the index, in its transaction: the sync layer makes one
    /// before FTS5 indexes the new rows (`rowids`, sorted; in the content table already), calls `willIndex` before
    /// each piece of them and `finish` after. New rows above the watermark are counted into the impacts, piece by
    /// piece on a worker thread while FTS5 indexes the same piece (see `ImpactsCollector`); a row from rowid 1 up
    /// to it clears `valid` (rows at rowid 0 or below are the low tail). An index without impacts gets them once it holds `automaticRows`: when the rows indexed
    /// so far reach it, their frequent terms are listed from FTS5's vocabulary and the rest of the insert counts
    /// them as above. (Terms that become frequent later are listed by the next `rebuild(index:)` or
    /// `optimize(index:)` of stale or loose impacts; until then their rows are scored one by one.)
    final class Follower {
        private let index: SyncedIndex
        private let top: Int64
        private var collector: ImpactsCollector?
        /// New rows FTS5 must have indexed for the impacts to be built here; nil when the index has them (or
        /// does not get them from this insert).
        private var buildAt: Int?
        private var indexed = 0

        deinit { collector?.close() }

        init(bulkInsertOf rowids: [Int64], into index: SyncedIndex, on handle: Handle) throws {
            self.index = index
            guard !rowids.isEmpty, index.mode == .explicit, try ScoreBounds.unsupportedReason(index.index, on: handle) == nil else {
                top = 0
                return
            }
            top = max(rowids.last ?? 0, try maxRowid(index.index, on: handle))
            guard let meta = try meta(index.index, on: handle) else {
                guard coverable(top, block: blockSize(on: handle), columns: index.columns.count) else { return }
                let needed = automaticRows(on: handle) - (try rowCount(index.index, on: handle))
                if needed <= rowids.count { buildAt = max(0, needed) }
                return
            }
            guard meta.valid else { return }
            guard meta.columns == index.columns.count, coverable(top, block: meta.block, columns: meta.columns) else {
                try ScoreBounds.markStale(index.index, on: handle)
                return
            }
            // Rows at rowid 0 or below are the low tail, which the impacts leave to every search.
            if let low = rowids.first(where: { $0 >= 1 }), low <= meta.watermark {
                try handle.execute(invalidateSQL(index.index), [FundamentalValue(low)])
            } else {
                do {
                    collector = try ImpactsCollector(index, top: top, overlapping: true, on: handle)
                } catch is Stale {
                    try ScoreBounds.markStale(index.index, on: handle)  // damaged chunks: rebuilt by optimize(index:)
                }
            }
        }

        /// Before FTS5 indexes `rows` (a piece of `count` new rows): counts them, on the worker when there is one.
        func willIndex(_ rows: ClosedRange<Int64>, count: Int, on handle: Handle) throws {
            if let buildAt, indexed >= buildAt, indexed > 0 {
                self.buildAt = nil
                let terms = try create(index, on: handle)
                collector = try ImpactsCollector(index, listing: terms, top: top, overlapping: true, on: handle)
            }
            try collector?.add(through: rows.upperBound, on: handle)
            indexed += count
        }

        /// After FTS5 indexed every new row: counts what is left and writes the impacts.
        func finish(on handle: Handle) throws {
            if buildAt != nil, try rowCount(index.index, on: handle) >= automaticRows(on: handle) {
                buildAt = nil
                try build(index, on: handle)
            }
            try collector?.finish(on: handle)
        }
    }
}
