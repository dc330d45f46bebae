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
/// `traditional_to_simplified 0|1` (臺灣 finds 台湾), `pinyin 0|1` (beijing and bj find 北京),
/// `stem LANGUAGE|none` (Snowball stemming: `running` finds `runs`; one of ``stemmerLanguages``).
///
/// Stemming applies to the words whose letters are of the script the language is written in (Latin for
/// `english`, Cyrillic for `russian`...), never to CJK or Thai, and not to the text of a prefix query (`conn*`).
/// Highlights and snippets mark the words as written. Sift declares an index with `tokenize: "sift_icu"` as
/// `sift_icu stem english` (``defaultDeclarationOptions``, written out in the declaration, see
/// `Database.setDeclarationDefaults(_:forTokenizer:)`); to index without stemming, declare
/// `sift_icu stem none`. A table declared with a bare `sift_icu` (by SQL, or by a Sift version without stemming)
/// is not stemmed: it keeps the meaning it was created with, so its unstemmed tokens stay searchable.
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

    /// The options Sift writes into the declaration of a `sift_icu` index that leaves them out: English stemming,
    /// the language most text Sift is used for shares, and the best measured on every English test collection;
    /// `stem none` when Sift was built without the `Stemming` trait (``isStemmingAvailable``).
    public static let defaultDeclarationOptions: [(name: String, value: String)] =
        [("stem", isStemmingAvailable ? "english" : "none")]

    /// Words a natural-language (`.anyTerm`) question on a `sift_icu stem english` (or `stem porter`) index leaves
    /// out: 123 English function words (pronouns, determiners, auxiliary verbs, prepositions, conjunctions and a
    /// few adverbs: "the", "of", "which", "were", "how"...), the kind of list IR toolkits apply to English text by
    /// default. They say nothing about what a question is about, on any collection. They are still indexed, so
    /// phrases and the other modes find them, and a question made of nothing else keeps them. Measured on the four
    /// English test collections against no list, Lucene's 33-word list and an idf cut-off (ignoring words in more
    /// than half the rows): this list raised nDCG@10 on cranfield, cisi and npl and left medline level, and
    /// questions run 2-3 times faster (`sift eval`). Other languages have no list: their questions keep every word.
    public static let englishStopwords: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
        "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "did", "do", "does",
        "doing", "don", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having",
        "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it",
        "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "not", "now", "of", "off", "on", "once",
        "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some",
        "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
        "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when",
        "where", "which", "while", "who", "whom", "why", "will", "with", "you", "your", "yours", "yourself",
        "yourselves",
    ]

    /// What a Japanese question leaves out: each kana as a piece on its own, the hiragana (U+3041-U+3096) and
    /// katakana (U+30A1-U+30FA) letters, the prolonged sound mark ー and the iteration marks ゝ ゞ ヽ ヾ. Kana
    /// spell sounds, not meanings: alone, a hiragana is grammar (the particles は が を に の で と か, endings
    /// such as た て い す) and a katakana is a syllable of a word (ラ of ラーメン), where a kanji alone is a
    /// morpheme. The character pairs a question is also searched by keep them (梅雨が, どこ, ラー, メン), so a word
    /// written in kana is still found, and a question of nothing else keeps them; Lucene's CJK analysis
    /// (`CJKBigramFilter`) likewise searches kana only in pairs. Hiragana are the most frequent tokens of Japanese
    /// text, so leaving them out also makes such questions faster (jsquad-valid: 79 -> 132 questions a second).
    /// jsquad-valid's nDCG@10: every character 0.9476, hiragana left out 0.9480, all kana 0.9490 (`sift eval`).
    public static let kanaStopwords: Set<String> = Set(
        (Array(0x3041...0x3096) + Array(0x30A1...0x30FA) + [0x30FC, 0x309D, 0x309E, 0x30FD, 0x30FE])
            .compactMap(Unicode.Scalar.init).map { String($0) })

    /// The question stopwords of an index declared `sift_icu` with `arguments` (name-value pairs) and a stemmer:
    /// ``kanaStopwords``, with ``englishStopwords`` when the stemmer is English. An index declared
    /// `stem none` processes no language: its questions keep every word.
    public static func queryStopwords(arguments: [String]) -> Set<String> {
        var language = "none"
        for i in stride(from: 0, to: arguments.count - 1, by: 2) where arguments[i] == "stem" { language = arguments[i + 1] }
        if language == "none" { return [] }
        return language == "english" || language == "porter" ? englishAndKanaStopwords : kanaStopwords
    }

    /// Made once: every search asks for its index's stopwords.
    private static let englishAndKanaStopwords = englishStopwords.union(kanaStopwords)

    /// Whether this build of Sift stems (the `Stemming` package trait, on by default). Without it, no library
    /// besides ICU is linked, ``stemmerLanguages`` is empty, and a `stem LANGUAGE` option other than `none` is an
    /// error: ``ICUTokenizer/init(arguments:)`` throws a `SiftError` that names the trait, and an FTS5 declaration
    /// with it fails (FTS5 reports "error in tokenizer constructor").
    public static var isStemmingAvailable: Bool { sift_icu_stemmer_languages()?.pointee != nil }

    /// The languages of the `stem` option (Snowball's stemmers, libstemmer's names), besides `none`; empty when
    /// Sift was built without the `Stemming` trait.
    public static var stemmerLanguages: [String] {
        var names: [String] = []
        var list = sift_icu_stemmer_languages()
        while let name = list?.pointee {
            names.append(String(cString: name))
            list = list?.successor()
        }
        return names
    }

    /// The ICU version in use.
    public static var icuVersion: String { String(cString: sift_icu_unicode_library_version()) }
}

extension Database {
    /// Registers the `sift_icu` FTS5 tokenizer on every connection of this database, current and future, and
    /// makes indexes Sift declares with it stem English unless their declaration says otherwise
    /// (``SiftICU/defaultDeclarationOptions``), with English question stopwords (``SiftICU/queryStopwords(arguments:)``).
    public func registerICUTokenizer() {
        setConfig(named: SiftICU.configName, with: { handle in try SiftICU.register(on: handle.sqliteConnection) }, orderBy: 100)
        setDeclarationDefaults(SiftICU.defaultDeclarationOptions, forTokenizer: SiftICU.tokenizerName)
        setQueryStopwords(forTokenizer: SiftICU.tokenizerName) { SiftICU.queryStopwords(arguments: $0) }
    }
}
