import Foundation
import Sift
import SiftEvaluation

/// The errors the tools report to people: each names the file concerned and says what to do,
/// because the usual cause is a wrong path or flag rather than a bug.
public enum SiftToolError: Error, Sendable, CustomStringConvertible {
    /// A source or database file that does not exist.
    case missingFile(String)
    /// A file that is not an SQLite database at all.
    case notADatabase(String)
    /// An SQLite database that Sift did not create (or whose corpus tables are gone).
    case notACorpus(String, detail: String)
    /// Another process holds the database's write lock for longer than the busy timeout.
    case locked(String)
    /// `--tokenizer` differs from the one the corpus was built with; mixing them would make the index inconsistent.
    case tokenizerMismatch(path: String, existing: String, requested: String)
    /// A tokenizer that SQLite does not know, or bad tokenizer arguments.
    case unknownTokenizer(String, detail: String)
    /// A source whose format cannot be told from its name.
    case unknownFormat(String)
    /// A record file lacking a field the options name (for CSV/TSV, a header column).
    case missingColumn(file: String, column: String, available: [String])
    /// A bad option value.
    case invalidArgument(String)
    /// The first bad input in `--strict` mode.
    case badInput(InputError)
    /// A file that exists but cannot be read.
    case unreadable(String, detail: String)
    /// A folder file that is not text in any charset (`reason` says why, e.g. "binary content (NUL byte at offset 3)").
    case notText(String, reason: String)
    /// A `.gz` file whose data is truncated or damaged, or decompresses to more than the size limit (`problem` says which).
    case badArchive(String, problem: GzipProblem)
    /// Another indexing run holds the corpus's indexing lock (see `CorpusIndexer`).
    case indexingInProgress(String)
    /// The indexing lock file beside the corpus cannot be created or locked.
    case cannotLock(String, detail: String)
    /// A database this process may not write, for something that needs to (`detail` says what).
    case readOnly(String, detail: String)
    /// An output file that cannot be created or written (`detail` says why).
    case cannotWrite(String, detail: String)
    /// An encrypted database opened without its key or with a wrong one, a key for a plain file, or a page that
    /// fails authentication (`detail` says which).
    case encryption(String, failure: CipherFailure, detail: String)

    /// One line for standard error.
    public var description: String {
        switch self {
        case .missingFile(let path):
            return "\(path): no such file or directory"
        case .notADatabase(let path):
            return "\(path) is not a database (expected a Sift corpus created by `sift index`)"
        case .notACorpus(let path, let detail):
            return "\(path) is an SQLite database but not a Sift corpus (\(detail)); create one with `sift index <source> --db <new file>`"
        case .locked(let path):
            return "\(path) is locked by another process (is another `sift index` running?); try again when it has finished"
        case .tokenizerMismatch(let path, let existing, let requested):
            return "\(path) was built with tokenizer \"\(existing)\", not \"\(requested)\"; index into a new database to change tokenizers"
        case .unknownTokenizer(let name, let detail):
            return "unknown tokenizer \"\(name)\" (\(detail)); try sift_icu, unicode61, \"unicode61 remove_diacritics 2\", porter or trigram"
        case .unknownFormat(let path):
            return "cannot tell the format of \(path) from its name; use --format folder|jsonl|csv|tsv|beir"
        case .missingColumn(let file, let column, let available):
            return "\(file) has no field \"\(column)\" (it has: \(available.joined(separator: ", "))); choose one with --id-field, --title-field or --text-field"
        case .invalidArgument(let message):
            return message
        case .badInput(let error):
            return "\(error) (stopped because of --strict)"
        case .unreadable(let path, let detail):
            return "\(path): cannot read: \(detail)"
        case .notText(let path, let reason):
            return "\(path): \(reason)"
        case .badArchive(let path, let problem):
            return "\(path): \(problem)"
        case .indexingInProgress(let path):
            return "another `sift index` is running on \(path); run this one again when it has finished"
        case .cannotLock(let path, let detail):
            return "cannot lock \(path) for indexing: \(detail)"
        case .readOnly(let path, let detail):
            return "\(path) is read-only here: \(detail)"
        case .cannotWrite(let path, let detail):
            return "cannot write \(path): \(detail)"
        case .encryption(_, let failure, let detail):
            switch failure {
            case .wrongKey, .missingKey: return detail + " Give the key with --key-file FILE or the SIFT_KEY environment variable."
            case .notEncrypted: return detail + " Leave out --key-file and SIFT_KEY for a plain database."
            default: return detail
            }
        }
    }

    /// The same error about `path` instead of `copy`, for errors met on a temporary copy of a file.
    func replacingPath(_ copy: String, with path: String) -> SiftToolError {
        func fix(_ text: String) -> String { text == copy ? path : text.replacingOccurrences(of: copy, with: path) }
        switch self {
        case .missingFile(let p): return .missingFile(fix(p))
        case .notADatabase(let p): return .notADatabase(fix(p))
        case .notACorpus(let p, let detail): return .notACorpus(fix(p), detail: detail)
        case .locked(let p): return .locked(fix(p))
        case .tokenizerMismatch(let p, let existing, let requested): return .tokenizerMismatch(path: fix(p), existing: existing, requested: requested)
        case .unreadable(let p, let detail): return .unreadable(fix(p), detail: fix(detail))
        case .notText(let p, let reason): return .notText(fix(p), reason: reason)
        case .badArchive(let p, let problem): return .badArchive(fix(p), problem: problem)
        case .indexingInProgress(let p): return .indexingInProgress(fix(p))
        case .cannotLock(let p, let detail): return .cannotLock(fix(p), detail: fix(detail))
        case .readOnly(let p, let detail): return .readOnly(fix(p), detail: fix(detail))
        case .cannotWrite(let p, let detail): return .cannotWrite(fix(p), detail: fix(detail))
        case .encryption(let p, let failure, let detail): return .encryption(fix(p), failure: failure, detail: fix(detail))
        case .unknownTokenizer, .unknownFormat, .missingColumn, .invalidArgument, .badInput: return self
        }
    }
}

extension SiftToolError {
    /// Turns the database errors people can act on into tool errors about `path`; others pass through.
    static func translating(_ error: Error, path: String) -> Error {
        guard let error = error as? SiftError else { return error }
        if let failure = error.cipherFailure { return SiftToolError.encryption(path, failure: failure, detail: error.message) }
        switch error.code {
        case .notADatabase: return SiftToolError.notADatabase(path)
        case .busy, .locked: return SiftToolError.locked(path)
        case .cantOpen: return SiftToolError.unreadable(path, detail: error.message)
        case .readonly: return SiftToolError.readOnly(path, detail: readOnlyReason(error))
        default: return error
        }
    }

    /// SQLITE_READONLY_RECOVERY, SQLITE_READONLY_CANTINIT and SQLITE_READONLY_DIRECTORY.
    private static let readOnlyRecovery: Int32 = 8 | 1 << 8, readOnlyCannotInit: Int32 = 8 | 5 << 8, readOnlyDirectory: Int32 = 8 | 6 << 8

    private static func readOnlyReason(_ error: SiftError) -> String {
        switch error.extendedCode {
        case readOnlyCannotInit, readOnlyDirectory:
            return "a WAL database is read through its -shm file, which does not exist, and its folder is not writable to create it"
        case readOnlyRecovery:
            return "its write-ahead log needs recovering, which needs write access"
        default:
            return error.message
        }
    }
}

/// The system's explanation of an `errno` value, as people read it in a sentence: "permission denied".
func systemReason(_ code: Int32) -> String {
    let text = String(cString: strerror(code))
    return text.prefix(1).lowercased() + text.dropFirst()
}
