import Foundation

/// Vector blocks kept in memory between searches, shared by a database's connections, up to a byte limit
/// (``Database/vectorCacheLimit``; 0, the default, keeps none).
///
/// A scan reads each block's record (count, checksum, rowids and stamp) from the snapshot it searches, and scores a
/// kept copy of the block's vectors (or codes) only when the copy has the stamp that record holds: every write of a
/// block gives it a new random stamp (`VectorStore`), so a copy is never used for a block that changed since, in
/// this process or another, and none comes back after a rollback or a rebuild. A block not kept is read from the
/// file as without the cache, into a copy that is kept when its checksum is right and the limit leaves room: the
/// first scan fills the cache and the next ones read memory, without a copy out of SQLite's pages.
final class VectorBlockCache: Sendable {
    /// One block's data as read and checked: `bytes` bytes at `base`, for `count` slots, at `stamp`.
    final class Block: @unchecked Sendable {
        let stamp: Int64
        let count: Int
        let bytes: Int
        let base: UnsafeMutableRawPointer

        init(stamp: Int64, count: Int, bytes: Int) {
            self.stamp = stamp
            self.count = count
            self.bytes = bytes
            base = .allocate(byteCount: max(bytes, 1), alignment: 64)
        }

        deinit { base.deallocate() }
    }

    struct Key: Hashable {
        let index: String
        let codes: Bool
        let block: Int64
    }

    private struct State {
        var limit = 0
        var used = 0
        var blocks: [Key: Block] = [:]
        /// Per index and reading, above the highest block kept since the last sweep (`drop(_:codes:from:)`): a scan
        /// that ends below it sweeps, the others need not look.
        var reach: [String: Int64] = [:]
        /// Scans that used a kept block, and blocks kept (for the tests and the benchmarks).
        var hits = 0
        var fills = 0
    }

    private let state = Locked(State())

    /// The byte limit; lowering it below what is kept drops every kept block.
    var limit: Int {
        get { state.withLock { $0.limit } }
        set {
            state.withLock {
                $0.limit = max(0, newValue)
                if $0.used > $0.limit { ($0.blocks, $0.used, $0.reach) = ([:], 0, [:]) }
            }
        }
    }

    /// Bytes kept now, and how many times a kept block was scored and a block was kept.
    var usage: (bytes: Int, hits: Int, fills: Int) { state.withLock { ($0.used, $0.hits, $0.fills) } }

    /// The kept copy of `key` when it has `stamp`, `count` slots and `bytes` bytes; nil otherwise.
    func block(_ key: Key, stamp: Int64, count: Int, bytes: Int) -> Block? {
        state.withLock {
            guard let kept = $0.blocks[key], kept.stamp == stamp, kept.count == count, kept.bytes == bytes else { return nil }
            $0.hits += 1
            return kept
        }
    }

    /// A new copy to read `key` into, when the limit leaves room for `bytes` more (the copy it replaces counted
    /// out); nil when it does not, or the cache is off.
    func room(for key: Key, stamp: Int64, count: Int, bytes: Int) -> Block? {
        state.withLock {
            let freed = $0.blocks[key]?.bytes ?? 0
            guard $0.limit > 0, $0.used - freed + bytes <= $0.limit else { return nil }
            return Block(stamp: stamp, count: count, bytes: bytes)
        }
    }

    /// Keeps `block`, read and checked, for `key` (replacing an older copy), when the limit still leaves room.
    func keep(_ block: Block, for key: Key) {
        state.withLock {
            let freed = $0.blocks[key]?.bytes ?? 0
            guard $0.limit > 0, $0.used - freed + block.bytes <= $0.limit else { return }
            $0.blocks[key] = block
            $0.used += block.bytes - freed
            $0.fills += 1
            let index = Self.reachKey(key.index, codes: key.codes)
            $0.reach[index] = max($0.reach[index] ?? 0, key.block + 1)
        }
    }

    /// Drops the copies of `index`'s blocks from `first` on (blocks a scan found gone); looks through the kept blocks
    /// only when one that far was kept since the last time.
    func drop(_ index: String, codes: Bool, from first: Int64) {
        state.withLock {
            let reachKey = Self.reachKey(index, codes: codes)
            guard let reach = $0.reach[reachKey], reach > first else { return }
            $0.reach[reachKey] = first
            for (key, block) in $0.blocks where key.index == index && key.codes == codes && key.block >= first {
                $0.blocks[key] = nil
                $0.used -= block.bytes
            }
        }
    }

    private static func reachKey(_ index: String, codes: Bool) -> String { (codes ? "c" : "v") + index }

    /// Drops the copy of one block.
    func drop(_ index: String, codes: Bool, block: Int64) {
        state.withLock {
            if let kept = $0.blocks.removeValue(forKey: Key(index: index, codes: codes, block: block)) { $0.used -= kept.bytes }
        }
    }
}

extension Database {
    /// Bytes of vector index blocks kept in memory between searches, shared by this database's connections: 0 (the
    /// default) keeps none, and each search copies every block out of SQLite's pages.
    ///
    /// With a limit, the first search of an index keeps the blocks it reads (until the limit is reached) and the
    /// next searches score those in memory, at the memory's pace: 100,000 vectors of 384 float32 values take
    /// 153.6 MB (their int8 codes, for ``VectorSearchOptions/Scan/quantized(candidates:)``, 39.2 MB; binary codes
    /// 4.8 MB). A quantized search re-ranks its candidates from the float32 blocks kept. Results are the same
    /// with or without: a kept block is used only while the snapshot searched holds that very block (each write of
    /// a block, by any connection or process, gives it a new stamp), and a changed block is read again.
    ///
    ///     database.vectorCacheLimit = 512 << 20  // up to 512 MiB of blocks
    ///
    /// Lowering the limit below what is kept drops every kept block.
    public var vectorCacheLimit: Int {
        get { pool.attachment(VectorBlockCache.init).limit }
        set { pool.attachment(VectorBlockCache.init).limit = newValue }
    }
}
