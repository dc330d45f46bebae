import CSQLite
import Foundation

/// Why an encrypted database (or one thought plain) could not be read; see ``SiftError/cipherFailure``.
public enum CipherFailure: Sendable, Equatable {
    /// Page 1 does not authenticate with the key: a wrong key or page size (or a damaged first page).
    case wrongKey
    /// The file looks encrypted and no key was set (``Database/setCipherKey(_:pageSize:)``).
    case missingKey
    /// A key was set but the file is a plain SQLite database.
    case notEncrypted
    /// A page's HMAC does not match: the file was tampered with or damaged there.
    case authenticationFailed(page: Int)
    /// OpenSSL's libcrypto failed, or SQLite wrote pages the format cannot hold.
    case cryptoFailure
    /// This build of Sift has no encryption: it was built without the `Encryption` package trait (see the README's
    /// package traits), so it links no cryptographic library and cannot read or write an encrypted file.
    case unavailable
}

/// The key of an encrypted database file, in either form ``Database/setCipherKey(_:pageSize:)`` and
/// ``Database/setCipherKey(rawKey:salt:pageSize:)`` take, for reading a file that is not opened as a `Database`
/// (``Database/recover(from:into:key:backup:)``).
///
///     let passphrase = CipherKeyMaterial.passphrase(Data("correct horse battery staple".utf8))
///     let raw = CipherKeyMaterial.rawKey(key, salt: salt)   // 32 bytes, and the file's 16-byte salt
public enum CipherKeyMaterial: Sendable {
    /// A passphrase (PBKDF2-HMAC-SHA512 with the salt from the file's first 16 bytes; `x'<hex>'` is a raw key).
    case passphrase(Data, pageSize: Int = 4096)
    /// A raw 32-byte AES key (no key derivation), and optionally the file's 16-byte salt: with it, a file whose
    /// first bytes (where the salt is kept) are destroyed can still be read.
    case rawKey(Data, salt: Data? = nil, pageSize: Int = 4096)
}

/// A key for SiftCipher's VFS: the C key context, which caches the derived keys (the KDF runs once per salt).
/// Every call into SiftCipher goes through ``CipherEngine``.
final class CipherKey: @unchecked Sendable {
    /// The `sift_cipher` context; immutable from Swift, internally locked.
    let context: OpaquePointer
    let pageSize: Int

    private init(context: OpaquePointer, pageSize: Int) {
        self.context = context
        self.pageSize = pageSize
    }

    deinit { CipherEngine.release(context) }

    static func make(passphrase: Data, pageSize: Int) throws -> CipherKey {
        try requireEngine()
        try validate(pageSize: pageSize)
        guard !passphrase.isEmpty else { throw SiftError.misuse("A cipher key cannot be empty.", operation: .open) }
        guard passphrase.count <= 1 << 20 else {
            throw SiftError.misuse("A cipher key is at most 1 MB, not \(passphrase.count) bytes.", operation: .open)
        }
        let context = passphrase.withUnsafeBytes { CipherEngine.create(passphrase: $0, pageSize: pageSize) }
        guard let context else { throw SiftError.misuse("Cannot create a cipher key.", operation: .open) }
        return CipherKey(context: context, pageSize: pageSize)
    }

    static func make(rawKey: Data, salt: Data?, pageSize: Int) throws -> CipherKey {
        try requireEngine()
        try validate(pageSize: pageSize)
        guard rawKey.count == CipherEngine.keySize else {
            throw SiftError.misuse("A raw cipher key is \(CipherEngine.keySize) bytes, not \(rawKey.count).", operation: .open)
        }
        if let salt, salt.count != CipherEngine.saltSize {
            throw SiftError.misuse("A cipher salt is \(CipherEngine.saltSize) bytes, not \(salt.count).", operation: .open)
        }
        let context = rawKey.withUnsafeBytes { key in
            (salt ?? Data()).withUnsafeBytes { saltBytes in
                CipherEngine.create(rawKey: key, salt: salt == nil ? nil : saltBytes, pageSize: pageSize)
            }
        }
        guard let context else { throw SiftError.misuse("Cannot create a cipher key.", operation: .open) }
        return CipherKey(context: context, pageSize: pageSize)
    }

    static func make(_ material: CipherKeyMaterial) throws -> CipherKey {
        switch material {
        case .passphrase(let passphrase, let pageSize): return try make(passphrase: passphrase, pageSize: pageSize)
        case .rawKey(let key, let salt, let pageSize): return try make(rawKey: key, salt: salt, pageSize: pageSize)
        }
    }

    /// Whether the key came with the file's salt (a raw key with its salt), so it does not need the file's.
    var hasSalt: Bool { CipherEngine.hasSalt(context) }

    /// Throws ``CipherFailure/unavailable`` when this build of Sift has no encryption (the `Encryption` trait off).
    static func requireEngine() throws {
        guard CipherEngine.isAvailable else {
            var error = SiftError(code: .misuse, message: "Sift was built without the `Encryption` trait: it cannot "
                                  + "encrypt or read an encrypted database (enable the trait to use a cipher key).",
                                  operation: .config)
            error.cipherFailure = .unavailable
            throw error
        }
    }

    private static func validate(pageSize: Int) throws {
        guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0 else {
            throw SiftError.misuse("The cipher page size must be a power of two from 512 to 65536, not \(pageSize).",
                                   operation: .open)
        }
    }

    /// The VFS that encrypts, registered on first use.
    static func vfsName() throws -> String {
        try requireEngine()
        guard let name = CipherEngine.vfsName() else {
            throw SiftError(code: .error, message: "Cannot register the sift-cipher VFS.", operation: .open)
        }
        return name
    }

    /// The URI filename that opens `path` through the VFS with this key (the key itself never appears in it).
    func uri(for path: String, query: String = "") -> String {
        CipherKey.fileURI(path, query: "sift_cipher=\(CipherEngine.id(context))" + query)
    }

    /// `path` as a `file:` URI with `query`.
    static func fileURI(_ path: String, query: String) -> String {
        let encoded = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
        return "file:\(encoded)?\(query)"
    }

    /// Sets up a fresh connection before it reads anything: pages keep room for IV and HMAC, the page size is
    /// the key's, and temporary tables and indices stay in memory (the VFS keeps any other temporary file there).
    static func prepare(_ db: OpaquePointer, pageSize: Int) -> Int32 {
        let rc = sqlite3_exec(db, "PRAGMA page_size=\(pageSize); PRAGMA temp_store=MEMORY", nil, nil, nil)
        // After the page size, which resets the requested reserve. An existing database keeps the reserve it has.
        var reserve = Int32(CipherEngine.reserve)
        _ = sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve)
        return rc
    }

    /// An error about the file at `path` carrying `failure`.
    static func error(_ failure: CipherFailure, code: SiftError.Code, message: String, path: String) -> SiftError {
        var error = SiftError(code: code, message: message, path: path, operation: .file)
        error.cipherFailure = failure
        return error
    }

    /// Forgets what the VFS recorded on this thread (before an open; after a close, whose errors nobody sees).
    static func clearFailure() { _ = CipherEngine.takeFailure() }

    /// `error` with what the VFS recorded on this thread (wrong key, tampering, ...), when it recorded anything.
    static func explain(_ error: SiftError, path: String) -> SiftError {
        let (failure, page) = CipherEngine.takeFailure()
        var error = error
        // Only an error of the kind the VFS returns for that failure is explained by it (a failure recorded
        // where SQLite swallowed the error, say while closing, must not relabel an unrelated one).
        switch failure {
        case .wrongKey, .notEncrypted:
            guard error.code == .notADatabase else { return error }
        case .authentication, .crypto, .layout:
            guard error.code == .ioError || error.code == .corrupt else { return error }
        case .none:
            return error
        }
        switch failure {
        case .wrongKey:
            error.cipherFailure = .wrongKey
            error.code = .notADatabase
            error.message = "Wrong key for \(path) (or wrong page size; or its first page is damaged)."
        case .notEncrypted:
            error.cipherFailure = .notEncrypted
            error.code = .notADatabase
            error.message = "\(path) is not encrypted, but a cipher key was set."
        case .authentication:
            error.cipherFailure = .authenticationFailed(page: Int(page))
            error.code = .corrupt
            error.message = "Page \(page) of \(path) (or of its WAL or journal) fails authentication: "
                + "the file was tampered with or damaged."
        case .crypto, .layout:
            error.cipherFailure = .cryptoFailure
            error.message = "Encryption failed on \(path) (libcrypto error or a page layout without room for the "
                + "cipher's reserve): \(error.message)"
        case .none:
            break
        }
        return error
    }

    /// `error` as a missing-key error when `path` looks encrypted: SQLite found no database header, and the
    /// file holds at least one page.
    static func explainUnkeyed(_ error: SiftError, path: String) -> SiftError {
        guard error.code == .notADatabase,
              let handle = FileHandle(forReadingAtPath: path) else { return error }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 512), head.count == 512,
              !head.starts(with: Array("SQLite format 3\0".utf8)) else { return error }
        var error = error
        error.cipherFailure = .missingKey
        error.message = "\(path) is encrypted (or not a database), and no key was given."
        return error
    }
}

extension Database {
    /// Encrypts the database with `key` (a passphrase), or, with `nil`, opens it as a plain file again.
    ///
    /// Set it before first use: open connections are closed and every connection opened afterwards reads and
    /// writes through the key. The file is SQLCipher 4 compatible (its defaults: PBKDF2-HMAC-SHA512 with 256,000
    /// iterations, AES-256-CBC with an HMAC-SHA512 per page, `pageSize` 4096), so SQLCipher opens it with
    /// `PRAGMA key` and the same passphrase, and Sift opens SQLCipher's files. The main file, the WAL and the
    /// rollback journal are encrypted; temporary files are kept in memory (`PRAGMA temp_store=MEMORY` on every
    /// connection; do not change it). The key derivation runs once per `Database` and salt, not per connection.
    ///
    /// A passphrase of the form `x'<64 hex digits>'` (or `x'<96 hex digits>'`, key then salt) is a raw key, as
    /// in SQLCipher. Errors name the path and carry a ``SiftError/cipherFailure``: a wrong key, a key for a
    /// plain file, a missing key, a page that fails authentication. Nothing is written on a failed open.
    ///
    ///     let database = Database(withPath: path)
    ///     try database.setCipherKey(Data("correct horse battery staple".utf8))
    ///     try database.create(table: "notes", of: Note.self)
    public func setCipherKey(_ key: Data?, pageSize: Int = 4096) throws {
        try setCipher(key.map { try CipherKey.make(passphrase: $0, pageSize: pageSize) })
    }

    /// Encrypts the database with a raw 32-byte AES key (no key derivation), and optionally the 16-byte salt the
    /// file uses, like SQLCipher's `PRAGMA key = "x'...'"`. See ``setCipherKey(_:pageSize:)``.
    public func setCipherKey(rawKey: Data, salt: Data? = nil, pageSize: Int = 4096) throws {
        try setCipher(CipherKey.make(rawKey: rawKey, salt: salt, pageSize: pageSize))
    }

    /// Whether a cipher key is set.
    public var isEncrypted: Bool { pool.cipher != nil }

    /// Whether this build of Sift can encrypt: it was built with the `Encryption` package trait (on by default).
    /// Without it Sift links no cryptographic library, and ``setCipherKey(_:pageSize:)``, ``rekey(_:pageSize:)``
    /// to a key and recovery with a key throw a ``SiftError`` whose ``SiftError/cipherFailure`` is
    /// ``CipherFailure/unavailable``.
    public static var isEncryptionAvailable: Bool { CipherEngine.isAvailable }

    /// How many times the current key's derivation ran (once per salt; for tests of the KDF's cost).
    var cipherKeyDerivations: Int { pool.cipher.map { CipherEngine.derivations($0.context) } ?? 0 }

    /// Re-encrypts the database with `key`, or with `nil` writes it as a plain file; also adds a key to a plain
    /// database. The current key (if any) must be set. The database is exported to a new file beside it
    /// (`VACUUM INTO`), which then replaces the original; other threads wait meanwhile. On failure the original
    /// stays as it was. Needs free space for a second copy.
    ///
    ///     try database.rekey(Data("new passphrase".utf8))
    public func rekey(_ key: Data?, pageSize: Int = 4096) throws {
        try rekey(to: key.map { try CipherKey.make(passphrase: $0, pageSize: pageSize) }, pageSize: pageSize)
    }

    /// Re-encrypts the database with a raw 32-byte key and optional salt; see ``rekey(_:pageSize:)``.
    public func rekey(rawKey: Data, salt: Data? = nil, pageSize: Int = 4096) throws {
        try rekey(to: CipherKey.make(rawKey: rawKey, salt: salt, pageSize: pageSize), pageSize: pageSize)
    }

    private func setCipher(_ key: CipherKey?) throws {
        if key != nil { _ = try pool.reporting { try CipherKey.vfsName() } }
        try close(onClosed: { pool.cipher = key })
    }

    private func rekey(to key: CipherKey?, pageSize: Int) throws {
        // A new name each time: VACUUM INTO needs a file that does not exist, and nothing of the user's is replaced.
        let target = path + ".rekey-" + UUID().uuidString
        try pool.reporting {
            try close(onClosed: {
                do {
                    try export(to: target, key: key, pageSize: pageSize)
                    try replace(with: target)
                } catch {
                    try? FileManager.default.removeItem(atPath: target)
                    throw error
                }
                pool.cipher = key
            })
        }
    }

    /// Writes the whole database to `target` (a new file) with `key` through a connection of its own.
    private func export(to target: String, key: CipherKey?, pageSize: Int) throws {
        let source = try Handle(path: path, pool: pool, cipher: pool.cipher, uri: true)
        defer { source.close() }
        try source.exec(sql: "PRAGMA page_size=\(pageSize)")
        // VACUUM INTO gives the copy the reserve the source asks for (at least what it has); asked after the page
        // size, which resets it.
        var reserve = key == nil ? Int32(0) : Int32(CipherEngine.reserve)
        _ = sqlite3_file_control(source.raw, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve)
        // A plain copy goes through whichever VFS the source uses: without a key, the cipher VFS passes it through.
        let uri = try key.map { try $0.uri(for: target, query: "&vfs=" + CipherKey.vfsName()) } ?? target
        try source.exec(sql: "VACUUM INTO '\(uri.replacingOccurrences(of: "'", with: "''"))'")
        // The copy is complete and synced before it replaces anything.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: target))
        try handle.synchronize()
        try handle.close()
    }

    /// Moves `target` over the database file; the WAL was checkpointed and removed when the connections closed.
    private func replace(with target: String) throws {
        for companion in [path + "-wal", path + "-journal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: companion))?[.size] as? Int, size > 0 {
                throw SiftError(code: .busy, message: "\(companion) still holds changes (another process has the database "
                                + "open?): not replaced.", path: path, operation: .file)
            }
        }
        guard rename(target, path) == 0 else {
            throw SiftError(code: .ioError, message: "Cannot move \(target) to \(path): \(String(cString: strerror(errno)))",
                            path: path, operation: .file)
        }
        for companion in [path + "-wal", path + "-shm", path + "-journal"] {
            try? FileManager.default.removeItem(atPath: companion)
        }
    }
}
