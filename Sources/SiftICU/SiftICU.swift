import Foundation
import Sift
import SiftICUCore

/// Sift's ICU tokenizer: word segmentation for every script, CJK indexed character by character so any
/// substring is found and phrases match exactly, case folding, NFKC, diacritics folding.
///
///     let database = Database(withPath: path)
///     database.registerICUTokenizer()
///     // then, in a binding: ModuleArgument(withTokenize: "sift_icu")
///     // or from SQL:        CREATE VIRTUAL TABLE t USING fts5(body, tokenize='sift_icu')
///
/// Tokenizer arguments, as pairs: `cjk unigram|bigram|words`, `remove_diacritics 0|1`,
/// `traditional_to_simplified 0|1` (臺灣 finds 台湾), `pinyin 0|1` (beijing and bj find 北京).
public enum SiftICU {
    /// The name the tokenizer is registered under.
    public static let tokenizerName = "sift_icu"
    /// The config name under which the tokenizer is registered on every connection.
    public static let configName = "sift.icu"

    /// Registers the tokenizer on one raw `sqlite3*` connection (for code outside Sift's pool).
    public static func register(on connection: OpaquePointer) throws {
        let rc = sift_icu_register(connection, tokenizerName)
        if rc != 0 {
            throw SiftError(code: SiftError.Code(rawValue: rc), message: "Cannot register the ICU tokenizer.", operation: .config)
        }
    }

    /// The ICU version in use.
    public static var icuVersion: String { String(cString: sift_icu_unicode_library_version()) }
}

extension Database {
    /// Registers the `sift_icu` FTS5 tokenizer on every connection of this database, current and future.
    public func registerICUTokenizer() {
        setConfig(named: SiftICU.configName, with: { handle in try SiftICU.register(on: handle.sqliteConnection) }, orderBy: 100)
    }
}
