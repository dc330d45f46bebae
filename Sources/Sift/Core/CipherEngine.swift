#if Encryption
import SiftCipher
#endif

/// The one seam between Sift and its page cipher: every call into SiftCipher (the encrypting VFS and the page
/// reader of recovery, C) goes through here, and no other Swift file imports it.
///
/// Built with the `Encryption` package trait (on by default), this calls SiftCipher, which does its cryptography
/// with OpenSSL's libcrypto. Built without it, Sift links no cryptographic library: ``isAvailable`` is false,
/// ``CipherKey`` refuses to make a key (``CipherFailure/unavailable``), so none of the other functions is reached.
enum CipherEngine {
    /// How an operation of the cipher VFS failed on this thread (SiftCipher's `sift_cipher_failure`).
    enum Failure {
        case none, wrongKey, notEncrypted, authentication, crypto, layout
    }

#if Encryption
    /// Whether this build of Sift can encrypt (the `Encryption` trait).
    static let isAvailable = true
    /// Bytes reserved at the end of every encrypted page (IV + HMAC-SHA512).
    static let reserve = Int(SIFT_CIPHER_RESERVE)
    /// Size of the key-derivation salt at the start of an encrypted file.
    static let saltSize = Int(SIFT_CIPHER_SALT_SIZE)
    /// Size of a raw AES-256 key.
    static let keySize = Int(SIFT_CIPHER_KEY_SIZE)

    static func create(passphrase: UnsafeRawBufferPointer, pageSize: Int) -> OpaquePointer? {
        sift_cipher_create(passphrase.baseAddress, Int32(passphrase.count), Int32(pageSize))
    }

    static func create(rawKey: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer?, pageSize: Int) -> OpaquePointer? {
        sift_cipher_create_raw(rawKey.baseAddress, Int32(rawKey.count), salt?.baseAddress, Int32(salt?.count ?? 0),
                               Int32(pageSize))
    }

    static func release(_ context: OpaquePointer) { sift_cipher_release(context) }
    static func hasSalt(_ context: OpaquePointer) -> Bool { sift_cipher_has_salt(context) != 0 }
    static func id(_ context: OpaquePointer) -> UInt64 { sift_cipher_id(context) }
    static func derivations(_ context: OpaquePointer) -> Int { Int(sift_cipher_derivations(context)) }

    /// The encrypting VFS's name, registering it on first use; nil when SQLite refused it.
    static func vfsName() -> String? { sift_cipher_vfs_name().map { String(cString: $0) } }

    /// What the VFS recorded on this thread since the last call, and the page it concerned; clears it.
    static func takeFailure() -> (failure: Failure, page: UInt32) {
        var page: UInt32 = 0
        let failure: Failure
        switch sift_cipher_take_failure(&page) {
        case SIFT_CIPHER_WRONG_KEY: failure = .wrongKey
        case SIFT_CIPHER_NOT_ENCRYPTED: failure = .notEncrypted
        case SIFT_CIPHER_AUTHENTICATION: failure = .authentication
        case SIFT_CIPHER_CRYPTO: failure = .crypto
        case SIFT_CIPHER_LAYOUT: failure = .layout
        default: failure = .none
        }
        return (failure, page)
    }

    /// A reader of the pages of a file encrypted with `context` whose first bytes are `head` (the salt); nil when
    /// libcrypto fails.
    static func pageReader(_ context: OpaquePointer, head: UnsafeRawPointer?) -> OpaquePointer? {
        sift_cipher_pages_create(context, head)
    }

    static func freePageReader(_ reader: OpaquePointer) { sift_cipher_pages_free(reader) }

    /// Authenticates and decrypts page `page` at `pointer` in place: 0 when it did, 1 when the page fails
    /// authentication, negative when libcrypto fails.
    static func decrypt(_ reader: OpaquePointer, page: UInt32, at pointer: UnsafeMutableRawPointer) -> Int32 {
        sift_cipher_pages_decrypt(reader, page, pointer, pointer)
    }
#else
    /// Whether this build of Sift can encrypt: it was built without the `Encryption` trait.
    static let isAvailable = false
    // SQLCipher 4's layout, for the messages and recovery's page arithmetic; no key can be made in this build.
    static let reserve = 80
    static let saltSize = 16
    static let keySize = 32

    static func create(passphrase: UnsafeRawBufferPointer, pageSize: Int) -> OpaquePointer? { nil }
    static func create(rawKey: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer?, pageSize: Int) -> OpaquePointer? { nil }
    static func release(_ context: OpaquePointer) {}
    static func hasSalt(_ context: OpaquePointer) -> Bool { false }
    static func id(_ context: OpaquePointer) -> UInt64 { 0 }
    static func derivations(_ context: OpaquePointer) -> Int { 0 }
    static func vfsName() -> String? { nil }
    static func takeFailure() -> (failure: Failure, page: UInt32) { (.none, 0) }
    static func pageReader(_ context: OpaquePointer, head: UnsafeRawPointer?) -> OpaquePointer? { nil }
    static func freePageReader(_ reader: OpaquePointer) {}
    static func decrypt(_ reader: OpaquePointer, page: UInt32, at pointer: UnsafeMutableRawPointer) -> Int32 { -1 }
#endif
}
