import SiftVector
import XCTest
@testable import Sift

/// The int8 kernels (every one this build and processor have) and the int8 scan against references written here:
/// dot products in 64-bit integers, word sums a byte at a time, on random codes and on the extremes, where a 16-bit
/// overflow or saturation would show.
final class VectorKernelTests: XCTestCase {
    static let dimensions = [1, 7, 16, 31, 32, 33, 63, 64, 65, 384, 4096]

    static var kernels: [Int32] {
        [SIFT_VECTOR_KERNEL_SCALAR, SIFT_VECTOR_KERNEL_NEON, SIFT_VECTOR_KERNEL_AVX2, SIFT_VECTOR_KERNEL_AVX_VNNI].map { Int32($0) }
            .filter { sift_vector_has_kernel($0) != 0 }
    }

    /// The codes' dot product, in 64 bits.
    static func dot(_ query: [Int8], _ slot: [UInt8]) -> Int64 {
        zip(query, slot).reduce(0) { $0 + Int64($1.0) * Int64(Int8(bitPattern: $1.1)) }
    }

    /// The slot's bytes as little-endian 32-bit words, modulo 2^32; a last partial word's bytes one by one.
    static func words(_ slot: [UInt8]) -> UInt32 {
        let whole = slot.count / 4 * 4
        var sum: UInt32 = 0
        for at in stride(from: 0, to: whole, by: 4) {
            sum &+= UInt32(slot[at]) | UInt32(slot[at + 1]) << 8 | UInt32(slot[at + 2]) << 16 | UInt32(slot[at + 3]) << 24
        }
        for byte in slot[whole...] { sum &+= UInt32(byte) }
        return sum
    }

    /// Query and slot codes of `dimension` (the slot followed by 8 more bytes, as a stored int8 slot is).
    static func cases(_ dimension: Int, _ generator: inout SplitMix) -> [(query: [Int8], slot: [UInt8])] {
        func slot(_ codes: [Int8]) -> [UInt8] { codes.map { UInt8(bitPattern: $0) } + (0..<8).map { UInt8(truncatingIfNeeded: $0 * 37 + 200) } }
        func constant(_ value: Int8) -> [Int8] { [Int8](repeating: value, count: dimension) }
        let randomQuery = (0..<dimension).map { _ in Int8.random(in: -127...127, using: &generator) }
        let randomSlot = (0..<dimension).map { _ in Int8.random(in: -128...127, using: &generator) }
        let alternating = (0..<dimension).map { Int8($0 % 2 == 0 ? 127 : -127) }
        return [
            (randomQuery, slot(randomSlot)),
            (constant(127), slot(constant(127))),      // the largest sum
            (constant(-127), slot(constant(127))),     // the smallest
            (constant(-127), slot(constant(-128))),    // -128: a code no quantizer writes, still exact
            (constant(127), slot(constant(-128))),
            (alternating, slot(alternating)),
            (alternating, slot(alternating.map { -$0 })),
            (randomQuery, slot(constant(0))),
        ]
    }

    func testInt8KernelsMatchTheReference() {
        var generator = SplitMix(seed: 8)
        XCTAssertTrue(Self.kernels.contains(Int32(SIFT_VECTOR_KERNEL_SCALAR)))
        for dimension in Self.dimensions {
            for (query, slot) in Self.cases(dimension, &generator) {
                let dot = Self.dot(query, slot), words = Self.words(slot)
                // At every offset from a 32-byte boundary a blob can start at.
                for offset in [0, 1, 3] {
                    let bytes = [UInt8](repeating: 0xA5, count: offset) + slot
                    for kernel in Self.kernels {
                        var found: UInt32 = 0
                        let value = bytes.withUnsafeBytes {
                            sift_vector_dot_i8(kernel, query, $0.baseAddress! + offset, Int32(dimension), slot.count, &found)
                        }
                        XCTAssertEqual(Int64(value), dot, "kernel \(kernel), dimension \(dimension), offset \(offset)")
                        XCTAssertEqual(found, words, "kernel \(kernel), dimension \(dimension), offset \(offset): word sum")
                    }
                }
            }
        }
    }

    /// The scan (the best kernel) gives each slot the score of its dot product and the block checksum of its slots'
    /// own sums, skips what the mask zeroes, and keeps the best.
    func testInt8ScanScoresAndChecksum() {
        var generator = SplitMix(seed: 9)
        for dimension in Self.dimensions {
            let count = 37, first = 5, stride = dimension + 8
            let query = (0..<dimension).map { _ in Int8.random(in: -127...127, using: &generator) }
            let queryScale: Float = 0.0125, queryNorm2: Float = 3.5
            var blob: [UInt8] = [], expected: [(score: Float, l2: Float, rowid: Int64)] = []
            var checksum: UInt64 = 0
            let rowids = (0..<count).map { Int64($0 * 7919 - 100) }
            let mask = (0..<count).map { UInt8($0 % 5 == 3 ? 0 : 1) }
            for i in 0..<count {
                let codes = (0..<dimension).map { _ in Int8.random(in: i == 0 ? 127...127 : -127...127, using: &generator) }
                let scale = Float.random(in: 0.001...0.02, using: &generator), norm2 = Float.random(in: 0.5...2, using: &generator)
                let slot = codes.map { UInt8(bitPattern: $0) } + withUnsafeBytes(of: scale, Array.init) + withUnsafeBytes(of: norm2, Array.init)
                blob += slot
                let term = slot.withUnsafeBytes { sift_vector_slot_sum($0.baseAddress, stride, rowids[i]) }
                checksum &+= UInt64(first + i + 1) &* UInt64(term)
                guard mask[i] == 1 else { continue }
                let product = queryScale * scale * Float(Self.dot(query, slot))
                expected.append((product, -(queryNorm2 + norm2 - 2 * product), rowids[i]))
            }
            for metric in [SIFT_VECTOR_DOT, SIFT_VECTOR_L2].map({ Int32($0) }) {
                let top = TopK(expected.count)
                defer { top.deallocate() }
                let found = blob.withUnsafeBytes { slots in
                    rowids.withUnsafeBytes { ids in
                        sift_vector_scan_i8(query, queryScale, queryNorm2, slots.baseAddress, ids.baseAddress, mask, Int32(first),
                                            Int32(count), Int32(dimension), metric, &top.state)
                    }
                }
                XCTAssertEqual(found, checksum, "dimension \(dimension): checksum")
                let want = expected.map { (metric == Int32(SIFT_VECTOR_L2) ? $0.l2 : $0.score, $0.rowid) }
                    .sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
                let got = top.sorted()
                XCTAssertEqual(got.map(\.rowid), want.map(\.1), "dimension \(dimension), metric \(metric)")
                XCTAssertEqual(got.map(\.score), want.map(\.0), "dimension \(dimension), metric \(metric)")
            }
        }
    }
    /// A row's blob scored in C for the re-rank gives the very score of the Swift path (the blob read and checked
    /// by `VectorIndex.vector`, scaled to unit length under cosine, scored by `sift_vector_score_f32`), and NAN
    /// exactly where that path refuses the blob.
    func testBlobScoresMatchTheCheckedVectors() {
        var generator = SplitMix(seed: 10)
        for dimension in [1, 7, 384, 1500] {
            for metric in [VectorMetric.cosine, .dot, .l2] {
                let index = VectorIndex(name: "v", content: "t", rowidColumn: "rowid", column: "e", dimension: dimension,
                                        metric: metric, quantization: .none, blockRows: 256)
                guard case .success(let query) = index.prepared(randomVector(dimension, &generator)) else { return XCTFail("query") }
                var blobs = (0..<20).map { _ in VectorStore.bytes(of: randomVector(dimension, &generator)) }
                blobs.append(VectorStore.bytes(of: [Float](repeating: 0, count: dimension)))
                blobs.append(VectorStore.bytes(of: [Float](repeating: 0, count: dimension - 1) + [.nan]))
                blobs.append(VectorStore.bytes(of: [.infinity] + [Float](repeating: 1, count: dimension - 1)))
                blobs.append(VectorStore.bytes(of: randomVector(dimension + 1, &generator)))
                blobs.append(Array(VectorStore.bytes(of: randomVector(dimension, &generator)).dropLast()))
                let cMetric = metric == .l2 ? Int32(SIFT_VECTOR_L2) : Int32(SIFT_VECTOR_DOT)
                for blob in blobs {
                    let found = blob.withUnsafeBytes {
                        sift_vector_score_blob(query, $0.baseAddress, $0.count, Int32(dimension), cMetric, metric == .cosine ? 1 : 0)
                    }
                    switch blob.withUnsafeBytes({ index.vector($0) }) {
                    case .success(let vector):
                        let expected = vector.withUnsafeBytes { sift_vector_score_f32(query, $0.baseAddress, Int32(dimension), cMetric) }
                        XCTAssertEqual(found.bitPattern, expected.bitPattern, "\(metric), dimension \(dimension)")
                    case .failure:
                        XCTAssertTrue(found.isNaN, "\(metric), dimension \(dimension), \(blob.count) bytes")
                    }
                }
            }
        }
    }

    /// The re-rank's batch scores (`sift_vector_score_f32_many`) are, bit for bit, the ones `sift_vector_score_f32`
    /// gives one vector at a time (and so the rows' own, `sift_vector_score_blob`), at every dimension and metric.
    func testBatchScoresMatchOneAtATime() {
        var generator = SplitMix(seed: 11)
        for dimension in Self.dimensions {
            for metric in [Int32(SIFT_VECTOR_DOT), Int32(SIFT_VECTOR_L2)] {
                let query = randomVector(dimension, &generator)
                let vectors = (0..<9).map { _ in randomVector(dimension, &generator) }
                let pointers = vectors.map { vector -> UnsafeMutableRawPointer in
                    let pointer = UnsafeMutableRawPointer.allocate(byteCount: 4 * dimension + 1, alignment: 4)
                    // One byte off an aligned address, as a blob may lie.
                    vector.withUnsafeBytes { (pointer + 1).copyMemory(from: $0.baseAddress!, byteCount: 4 * dimension) }
                    return pointer
                }
                defer { pointers.forEach { $0.deallocate() } }
                var scores = [Float](repeating: .nan, count: vectors.count)
                let bases: [UnsafeRawPointer?] = pointers.map { UnsafeRawPointer($0 + 1) }
                sift_vector_score_f32_many(query, bases, Int32(vectors.count), Int32(dimension), metric, &scores)
                for (i, base) in bases.enumerated() {
                    let one = sift_vector_score_f32(query, base, Int32(dimension), metric)
                    XCTAssertEqual(scores[i].bitPattern, one.bitPattern, "dimension \(dimension), metric \(metric)")
                }
            }
        }
    }
}
