import CSQLite
import Foundation

/// The one error type Sift throws: where it came from, how bad it is, and what was running.
///
/// Errors from SQLite keep SQLite's primary and extended result codes; errors Sift raises
/// itself (bad input, schema mismatch, misuse) reuse the closest SQLite code so that a single
/// `switch error.code` handles both.
public struct SiftError: Error, CustomStringConvertible, Sendable {
    /// How serious the error is.
    public enum Level: Int, Sendable, Comparable {
        case ignore, debug, notice, warning, error, fatal
        /// Orders levels by severity.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What Sift was doing when the error happened.
    public enum Operation: String, Sendable {
        case open, close, config, prepare, bind, step, exec, transaction, encode, decode, schema, query, tokenize, file, migration, other
    }

    /// A SQLite primary result code (or the closest one for errors Sift raises itself).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The raw value.
        public let rawValue: Int32
        /// A value from its raw value.
        public init(rawValue: Int32) { self.rawValue = rawValue & 0xFF }

        /// SQLITE_ERROR.
        public static let error = Code(rawValue: SQLITE_ERROR)
        /// SQLITE_INTERNAL.
        public static let `internal` = Code(rawValue: SQLITE_INTERNAL)
        /// SQLITE_PERM.
        public static let permission = Code(rawValue: SQLITE_PERM)
        /// SQLITE_ABORT.
        public static let abort = Code(rawValue: SQLITE_ABORT)
        /// SQLITE_BUSY.
        public static let busy = Code(rawValue: SQLITE_BUSY)
        /// SQLITE_LOCKED.
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        /// SQLITE_NOMEM.
        public static let noMemory = Code(rawValue: SQLITE_NOMEM)
        /// SQLITE_READONLY.
        public static let readonly = Code(rawValue: SQLITE_READONLY)
        /// SQLITE_INTERRUPT.
        public static let interrupt = Code(rawValue: SQLITE_INTERRUPT)
        /// SQLITE_IOERR.
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        /// SQLITE_CORRUPT.
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        /// SQLITE_NOTFOUND.
        public static let notFound = Code(rawValue: SQLITE_NOTFOUND)
        /// SQLITE_FULL.
        public static let full = Code(rawValue: SQLITE_FULL)
        /// SQLITE_CANTOPEN.
        public static let cantOpen = Code(rawValue: SQLITE_CANTOPEN)
        /// SQLITE_PROTOCOL.
        public static let `protocol` = Code(rawValue: SQLITE_PROTOCOL)
        /// SQLITE_SCHEMA.
        public static let schema = Code(rawValue: SQLITE_SCHEMA)
        /// SQLITE_TOOBIG.
        public static let tooBig = Code(rawValue: SQLITE_TOOBIG)
        /// SQLITE_CONSTRAINT.
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        /// SQLITE_MISMATCH.
        public static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        /// SQLITE_MISUSE.
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
        /// SQLITE_AUTH.
        public static let auth = Code(rawValue: SQLITE_AUTH)
        /// SQLITE_RANGE.
        public static let range = Code(rawValue: SQLITE_RANGE)
        /// SQLITE_NOTADB.
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)

        /// A readable rendering.
        public var description: String { String(cString: sqlite3_errstr(rawValue)) + " (\(rawValue))" }
    }

    /// How serious the error is.
    public var level: Level
    /// The primary result code.
    public var code: Code
    /// SQLite's extended result code, when SQLite produced the error.
    public var extendedCode: Int32?
    /// A human-readable explanation.
    public var message: String
    /// The SQL being run, if any (with `?` placeholders: bound values are never included).
    public var sql: String?
    /// The database file.
    public var path: String?
    /// The database's tag, if one was set.
    public var tag: Int?
    /// What Sift was doing.
    public var operation: Operation
    /// For a failed migration step (``Operation/migration``), the version that step was migrating to; the
    /// table kept the version and data it had before that step.
    public var migrationVersion: Int?
    /// For an encrypted database (or one opened without its key), what went wrong with the key or a page.
    public var cipherFailure: CipherFailure?
    /// For an embedding a vector index refused (wrong dimension, NaN or infinity), why.
    public var vectorFailure: VectorFailure?
    /// For a compressed column's value that could not be read or written (damaged, an unknown dictionary, too
    /// large), or compression declared in a build without it, why.
    public var compressionFailure: CompressionFailure?
    /// Whether the database file is damaged (``Code/corrupt``, SQLite's 11) or is not a database at all
    /// (``Code/notADatabase``, 26): the errors after which ``Database/recover(from:into:backup:)`` salvages what
    /// the file still holds into a new database. A wrong key, or a key given for a plain file, is not corruption
    /// (see ``cipherFailure``): the key is the problem. A file that is unreadable without a key counts: it may be
    /// encrypted, or damaged, and recovering it loses nothing.
    ///
    ///     do { try database.insert(objects: messages, intoTable: "messages") }
    ///     catch let error as SiftError where error.isCorruption { /* close it, then Database.recover(...) */ }
    public var isCorruption: Bool {
        switch cipherFailure {
        case .wrongKey, .notEncrypted, .unavailable: return false
        case .missingKey, .authenticationFailed, .cryptoFailure, nil: return code == .corrupt || code == .notADatabase
        }
    }
    /// Whether the error tracer has seen this error: each error is reported once, where it leaves Sift.
    var isReported = false

    /// Creates an error; Sift's own code uses this for errors that do not come from SQLite.
    public init(level: Level = .error, code: Code, extendedCode: Int32? = nil, message: String,
                sql: String? = nil, path: String? = nil, tag: Int? = nil, operation: Operation) {
        self.level = level
        self.code = code
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.path = path
        self.tag = tag
        self.operation = operation
    }

    /// A readable rendering.
    public var description: String {
        var parts = ["[\(level)] \(operation): \(message)", "code: \(code)"]
        if let extendedCode, extendedCode != code.rawValue { parts.append("extended code: \(extendedCode)") }
        if let migrationVersion { parts.append("migration step: version \(migrationVersion)") }
        if let cipherFailure { parts.append("cipher: \(cipherFailure)") }
        if let vectorFailure { parts.append("vector: \(vectorFailure)") }
        if let compressionFailure { parts.append("compression: \(compressionFailure)") }
        if let sql { parts.append("SQL: \(sql)") }
        if let path { parts.append("path: \(path)") }
        if let tag { parts.append("tag: \(tag)") }
        return parts.joined(separator: "; ")
    }
}

extension SiftError {
    /// Sift's own errors for bad arguments, so callers can tell them from SQLite failures.
    static func misuse(_ message: String, operation: Operation = .other, sql: String? = nil) -> SiftError {
        SiftError(code: .misuse, message: message, sql: sql, operation: operation)
    }
}

extension SiftError: LocalizedError {
    /// The readable description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
