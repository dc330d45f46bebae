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
    /// One block's data as read and checked: `bytes` bytes at `base`, for `count` slots, at `stamp`; the slots'
    /// rowids (8 bytes each, as stored) at `rowids`, and the checksum the block's record held (`recordChecksum`), so that a
    /// scan finding every block kept at the stamps and checksums their records hold reads no record one by one.
    final class Block: @unchecked Sendable {
        let stamp: Int64
        let count: Int
        let bytes: Int
        let base: UnsafeMutableRawPointer
        let rowids: UnsafeMutableRawPointer
        var recordChecksum: UInt64 = 0

        init(stamp: Int64, count: Int, bytes: Int) {
            self.stamp = stamp
            self.count = count
            self.bytes = bytes
            base = .allocate(byteCount: max(bytes, 1), alignment: 64)
            rowids = .allocate(byteCount: max(8 * count, 1), alignment: 8)
        }

        deinit {
            base.deallocate()
            rowids.deallocate()
        }

        /// What the copy takes of the limit: its data and its rowids.
        var footprint: Int { bytes + 8 * count }

        /// Whether this copy is of the block a snapshot records with `stamp`, `count` slots and `bytes` bytes.
        func matches(stamp: Int64, count: Int, bytes: Int) -> Bool {
            self.stamp == stamp && self.count == count && self.bytes == bytes
        }
    }

    struct Key: Hashable {
        let index: String
        let codes: Bool
        let block: Int64
    }

    private struct State {
        var limit = 0
        var used = 0
        /// Per index and reading (`listKey`), the kept blocks by block number (nil: not kept): a scan takes its list
        /// once, not a lookup a block.
        var lists: [String: [Block?]] = [:]
        /// Scans that used a kept block, blocks kept, and scans that took every block from memory without reading
        /// their records (for the tests and the benchmarks).
        var hits = 0
        var fills = 0
        var wholeScans = 0
    }

    private let state = Locked(State())

    /// Block numbers a list holds at most: more than any index has blocks (a scan reads blocks 0, 1, 2... in order).
    private static let maximumBlock: Int64 = 1 << 31

    private static func listKey(_ index: String, codes: Bool) -> String { (codes ? "c" : "v") + index }

    /// The byte limit; lowering it below what is kept drops every kept block.
    var limit: Int {
        get { state.withLock { $0.limit } }
        set {
            state.withLock {
                $0.limit = max(0, newValue)
                if $0.used > $0.limit { ($0.lists, $0.used) = ([:], 0) }
            }
        }
    }

    /// Bytes kept now, and how many times a kept block was scored and a block was kept.
    var usage: (bytes: Int, hits: Int, fills: Int) { state.withLock { ($0.used, $0.hits, $0.fills) } }

    /// The blocks of `index` kept for `codes` (or the float32 vectors), by block number, as they are now: what a scan
    /// checks each block's record against (`Block.matches`).
    func kept(_ index: String, codes: Bool) -> [Block?] {
        state.withLock { $0.lists[Self.listKey(index, codes: codes)] ?? [] }
    }

    /// Scans that took every block from memory without reading their records (`VectorStore.keptWhole`).
    var wholeScans: Int { state.withLock { $0.wholeScans } }

    /// Counts a scan that took every block from memory without reading their records.
    func recordWholeScan() {
        state.withLock { $0.wholeScans += 1 }
    }

    /// Counts `count` blocks scored from their kept copies.
    func recordHits(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.hits += count }
    }

    /// The kept copy of `key` when it has `stamp`, `count` slots and `bytes` bytes; nil otherwise.
    func block(_ key: Key, stamp: Int64, count: Int, bytes: Int) -> Block? {
        state.withLock {
            guard let list = $0.lists[Self.listKey(key.index, codes: key.codes)], key.block >= 0, key.block < list.count,
                  let kept = list[Int(key.block)], kept.matches(stamp: stamp, count: count, bytes: bytes) else { return nil }
            $0.hits += 1
            return kept
        }
    }

    /// A new copy to read `key` into, when the limit leaves room for its `bytes` and its rowids (the copy it replaces
    /// counted out); nil when it does not, or the cache is off.
    func room(for key: Key, stamp: Int64, count: Int, bytes: Int) -> Block? {
        state.withLock {
            let freed = Self.kept(key, in: $0)?.footprint ?? 0
            guard $0.limit > 0, $0.used - freed + bytes + 8 * count <= $0.limit, key.block >= 0, key.block < Self.maximumBlock
            else { return nil }
            return Block(stamp: stamp, count: count, bytes: bytes)
        }
    }

    private static func kept(_ key: Key, in state: State) -> Block? {
        guard let list = state.lists[listKey(key.index, codes: key.codes)], key.block >= 0, key.block < list.count else { return nil }
        return list[Int(key.block)]
    }

    /// Keeps `block`, read and checked, for `key` (replacing an older copy), when the limit still leaves room.
    func keep(_ block: Block, for key: Key) {
        state.withLock {
            let freed = Self.kept(key, in: $0)?.footprint ?? 0
            guard $0.limit > 0, $0.used - freed + block.footprint <= $0.limit, key.block >= 0, key.block < Self.maximumBlock
            else { return }
            let listKey = Self.listKey(key.index, codes: key.codes), at = Int(key.block)
            var list = $0.lists.removeValue(forKey: listKey) ?? []
            if list.count <= at { list += [Block?](repeating: nil, count: at + 1 - list.count) }
            list[at] = block
            $0.lists[listKey] = list
            $0.used += block.footprint - freed
            $0.fills += 1
        }
    }

    /// Drops the copies of `index`'s blocks from `first` on (blocks a scan found gone).
    func drop(_ index: String, codes: Bool, from first: Int64) {
        state.withLock {
            let listKey = Self.listKey(index, codes: codes)
            guard var list = $0.lists[listKey], first < list.count else { return }
            $0.lists[listKey] = nil
            for block in list[Int(max(0, first))...] { $0.used -= block?.footprint ?? 0 }
            list.removeSubrange(Int(max(0, first))...)
            if !list.isEmpty { $0.lists[listKey] = list }
        }
    }

    /// Drops the copy of one block.
    func drop(_ index: String, codes: Bool, block: Int64) {
        state.withLock {
            let listKey = Self.listKey(index, codes: codes)
            guard var list = $0.lists[listKey], block >= 0, block < list.count, let kept = list[Int(block)] else { return }
            $0.lists[listKey] = nil
            list[Int(block)] = nil
            $0.lists[listKey] = list
            $0.used -= kept.footprint
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
    /// 4.8 MB), and their rowids 0.8 MB beside each. A quantized search re-ranks its candidates from the float32 blocks kept. Results are the same
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
