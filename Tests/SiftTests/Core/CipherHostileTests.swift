import Foundation
import XCTest
@testable import Sift
#if Encryption
import SiftCipher
#endif

/// SiftCipher's key derivations on files it did not write: a WAL beside an encrypted file whose frames carry page 1
/// with salts of their own must not make the context run the KDF (256,000 PBKDF2 iterations) once per frame, and
/// the context keeps the keys of a few salts only.
final class CipherHostileTests: SiftTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireEncryption()
    }

    typealias Sample = CRUD.Sample

    /// A write-ahead log of `frames` frames labelled page 1, each page random bytes (so its first 16, the salt,
    /// are random), none a commit frame. The checksums hold for pages of zeros: what the VFS hands SQLite's WAL
    /// recovery for a frame that fails authentication, so recovery reads every frame.
    static func walOfForeignPageOnes(frames: Int, pageSize: Int = 4096) -> Data {
        var wal: [UInt8] = []
        func put(_ value: UInt32) { wal += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        // SQLite's WAL checksum, big-endian words (magic 0x377f0683).
        func checksum(_ bytes: ArraySlice<UInt8>, _ sums: (UInt32, UInt32)) -> (UInt32, UInt32) {
            var (s0, s1) = sums
            var i = bytes.startIndex
            func word(_ at: Int) -> UInt32 {
                UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
            }
            while i < bytes.endIndex {
                s0 = s0 &+ word(i) &+ s1
                s1 = s1 &+ word(i + 4) &+ s0
                i += 8
            }
            return (s0, s1)
        }
        let salts = (UInt32.random(in: 1...UInt32.max), UInt32.random(in: 1...UInt32.max))
        put(0x377F_0683); put(3_007_000); put(UInt32(pageSize)); put(0); put(salts.0); put(salts.1)
        var sums = checksum(wal[0..<24], (0, 0))
        put(sums.0); put(sums.1)
        let zeros = [UInt8](repeating: 0, count: pageSize)
        for _ in 0..<frames {
            let start = wal.count
            put(1); put(0); put(salts.0); put(salts.1)
            sums = checksum(zeros[...], checksum(wal[start..<start + 8], sums))
            put(sums.0); put(sums.1)
            wal += (0..<pageSize).map { _ in UInt8.random(in: 0...255) }
        }
        return Data(wal)
    }

    func testWALFramesOfPageOneWithForeignSaltsRunNoKeyDerivation() throws {
        let passphrase = Data("correct horse battery staple".utf8)
        let database = makeDatabase()
        try database.setCipherKey(passphrase)
        try database.create(table: "sampleTable", of: Sample.self)
        try database.insert(objects: (1...20).map { i in let s = Sample(); s.identifier = i; s.description = "row \(i)"; return s },
                            intoTable: "sampleTable")
        database.close()
        try? FileManager.default.removeItem(atPath: path() + "-shm")
        try Self.walOfForeignPageOnes(frames: 40).write(to: URL(fileURLWithPath: path() + "-wal"))

        let reopened = makeDatabase()
        try reopened.setCipherKey(passphrase)
        // The log holds no commit frame: the database reads as it was, rows and all.
        XCTAssertEqual(try reopened.getRows(sql: "SELECT count(*) FROM sampleTable")[row: 0, column: 0].int64Value, 20)
        // One derivation, for the file's salt; none for the 40 salts of the frames.
        XCTAssertEqual(reopened.cipherKeyDerivations, 1)
    }

#if Encryption
    /// A raw key without its salt derives an HMAC key per salt (2 iterations: cheap), so 100 salts can be met.
    func testKeyCacheKeepsAFewSaltsAndEvictsTheLeastRecentlyUsed() throws {
        let key = [UInt8](repeating: 0xA5, count: 32)
        let context = try XCTUnwrap(sift_cipher_create_raw(key, 32, nil, 0, 4096))
        defer { sift_cipher_release(context) }
        func read(salt byte: Int) throws {
            let salt = [UInt8](repeating: UInt8(byte), count: 16)
            let pages = try XCTUnwrap(sift_cipher_pages_create(context, salt))
            sift_cipher_pages_free(pages)
        }
        for byte in 0..<100 { try read(salt: byte) }
        XCTAssertEqual(sift_cipher_derivations(context), 100)
        XCTAssertEqual(sift_cipher_cached_keys(context), SIFT_CIPHER_KEY_CACHE)
        // The salts met last are kept; the first one was evicted and is derived again.
        try read(salt: 99)
        try read(salt: 100 - Int(SIFT_CIPHER_KEY_CACHE))
        XCTAssertEqual(sift_cipher_derivations(context), 100)
        try read(salt: 0)
        XCTAssertEqual(sift_cipher_derivations(context), 101)
        XCTAssertEqual(sift_cipher_cached_keys(context), SIFT_CIPHER_KEY_CACHE)
    }
#endif
}
