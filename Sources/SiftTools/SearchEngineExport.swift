import Foundation
import Sift
import SiftICU

/// Moving a corpus to OpenSearch or Elasticsearch: the documents as a `_bulk` NDJSON stream and an index
/// definition (settings and mappings for `PUT /<index>`) whose analyzers follow the corpus's tokenizer as
/// closely as the engines' analysis modules allow (the ICU analysis plugin for `sift_icu` corpora).
///
/// What cannot be reproduced exactly is listed in `IndexDefinition.notes`, meant to be shown to people.
public enum SearchEngineExport {
    /// The analyzer title and body are indexed and searched with.
    public static let analyzerName = "sift_text"
    /// The analyzer of the `pinyin` sub-fields (corpora built with `sift_icu` `pinyin 1`).
    public static let pinyinAnalyzerName = "sift_pinyin"
    /// Documents read from the corpus per page (one query each): memory stays bounded whatever the corpus size.
    public static let defaultPageSize = 500
    /// Elasticsearch and OpenSearch reject `_id`s longer than this many UTF-8 bytes.
    public static let maximumIDBytes = 512

    /// Which tokenizer a `sift_icu cjk words` corpus is exported with: ICU's dictionary segmentation (the
    /// same as sift_icu's), or a language-specific plugin for a corpus that is mostly one language.
    public enum WordTokenizer: String, CaseIterable, Sendable {
        /// `icu_tokenizer` (analysis-icu): ICU's dictionaries, the ones sift_icu uses.
        case icu
        /// `smartcn_tokenizer` (analysis-smartcn): Chinese only.
        case smartcn
        /// `kuromoji_tokenizer` (analysis-kuromoji): Japanese only.
        case kuromoji
    }

    /// An index definition: the JSON body of `PUT /<index>` and what it does not reproduce.
    public struct IndexDefinition: Sendable {
        /// `{"settings": {"analysis": ...}, "mappings": {...}}`, UTF-8, keys sorted, pretty-printed.
        public var json: Data
        /// The engine plugins the definition needs (`analysis-icu`, ...), sorted.
        public var plugins: [String]
        /// Differences from the corpus's own tokenizer and search, one sentence each.
        public var notes: [String]
    }

    /// What `CorpusDatabase.exportBulk(index:pageSize:write:)` wrote.
    public struct BulkSummary: Sendable, Hashable {
        /// Documents written (one action line and one source line each).
        public var documents: Int
        /// Bytes written.
        public var bytes: Int
        /// Keys longer than `maximumIDBytes`: the engine will reject these documents.
        public var overlongKeys: [String]
        /// Keys whose stored `fields` were not a JSON object; they were exported with empty `fields`.
        public var unreadableFields: [String]
    }

    // MARK: - Index names

    /// An index name from a corpus file name: `Notes Corpus.sift` becomes `notes-corpus`.
    public static func defaultIndexName(forDatabase path: String) -> String {
        let base = ((path as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
        var name = String(base.unicodeScalars.map { scalar -> Character in
            let allowed = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" || scalar == "."
            return allowed ? Character(scalar) : "-"
        })
        while let first = name.first, "-_+.".contains(first) { name.removeFirst() }
        if name.count > 255 { name = String(name.prefix(255)) }  // ASCII only by now
        return name.isEmpty ? "sift" : name
    }

    /// Throws `SiftToolError.invalidArgument` unless `name` is a valid index name for both engines: lower
    /// case, no `\ / * ? " < > | , #`, spaces or colons, not starting with `-`, `_` or `+`, not `.` or
    /// `..`, at most 255 bytes.
    public static func validateIndexName(_ name: String) throws {
        func fail(_ reason: String) -> SiftToolError {
            .invalidArgument("invalid index name \"\(name)\": \(reason)")
        }
        if name.isEmpty { throw fail("it is empty") }
        if name == "." || name == ".." { throw fail("it cannot be . or ..") }
        if name.lowercased() != name { throw fail("it must be lower case") }
        if let first = name.first, "-_+".contains(first) { throw fail("it cannot start with -, _ or +") }
        if let bad = name.first(where: { "\\/*?\"<>|,#: ".contains($0) || $0.isNewline }) {
            throw fail("it cannot contain \"\(bad)\"")
        }
        if name.utf8.count > 255 { throw fail("it is longer than 255 bytes") }
    }

    // MARK: - Tokenizers

    /// An FTS5 `tokenize=` value split into words, honouring FTS5's quoting ('…', "…", `…`, […]).
    static func words(ofTokenizer tokenizer: String) -> [String] {
        var words: [String] = []
        var characters = Array(tokenizer)[...]
        while let first = characters.first {
            if first.isWhitespace { characters.removeFirst(); continue }
            let close: Character? = ["'": "'", "\"": "\"", "`": "`", "[": "]"][first]
            var word = ""
            if let close {
                characters.removeFirst()
                while let c = characters.popFirst() {
                    if c == close {
                        if close != "]", characters.first == close { characters.removeFirst(); word.append(c); continue }
                        break
                    }
                    word.append(c)
                }
            } else {
                while let c = characters.first, !c.isWhitespace { word.append(c); characters.removeFirst() }
            }
            words.append(word)
        }
        return words
    }

    /// The index definition for a corpus built with `tokenizer` (FTS5 `tokenize=` syntax, as recorded in
    /// `sift_meta`). `wordTokenizer` applies to `sift_icu cjk words` corpora only; asking for smartcn or
    /// kuromoji for any other tokenizer throws `SiftToolError.invalidArgument`, as does a `sift_icu` option
    /// the tokenizer itself would reject.
    public static func indexDefinition(forTokenizer tokenizer: String, wordTokenizer: WordTokenizer = .icu) throws -> IndexDefinition {
        var words = words(ofTokenizer: tokenizer)
        let name = words.isEmpty ? "unicode61" : words.removeFirst().lowercased()
        var builder: AnalysisBuilder
        switch name {
        case "sift_icu":
            builder = try siftICU(options: words, wordTokenizer: wordTokenizer, tokenizer: tokenizer)
        case "porter", "unicode61", "ascii", "trigram":
            if wordTokenizer != .icu {
                throw SiftToolError.invalidArgument("--word-tokenizer \(wordTokenizer.rawValue) applies to sift_icu corpora built with \"cjk words\"; this corpus uses \"\(tokenizer)\"")
            }
            builder = fts5Builtin(name: name, options: words)
        default:
            throw SiftToolError.invalidArgument("cannot export the analysis of tokenizer \"\(tokenizer)\": only sift_icu, unicode61, ascii, porter and trigram are known")
        }
        builder.notes += commonNotes
        return try builder.definition()
    }

    /// Pairs of option names and values; a trailing name without a value is returned with an empty value.
    private static func pairs(_ words: [String]) -> [(String, String)] {
        stride(from: 0, to: words.count, by: 2).map { (words[$0].lowercased(), $0 + 1 < words.count ? words[$0 + 1] : "") }
    }

    private static func siftICU(options words: [String], wordTokenizer: WordTokenizer, tokenizer: String) throws -> AnalysisBuilder {
        var cjk = "unigram", removeDiacritics = true, traditionalToSimplified = false, pinyin = false
        var stem = "none"
        func flag(_ name: String, _ value: String) throws -> Bool {
            switch value {
            case "0": return false
            case "1": return true
            default: throw SiftToolError.invalidArgument("tokenizer \"\(tokenizer)\": bad value \"\(value)\" for \(name) (0 or 1)")
            }
        }
        for (name, value) in pairs(words) {
            switch name {
            case "cjk":
                guard ["unigram", "bigram", "words"].contains(value) else {
                    throw SiftToolError.invalidArgument("tokenizer \"\(tokenizer)\": bad value \"\(value)\" for cjk (unigram, bigram or words)")
                }
                cjk = value
            case "remove_diacritics": removeDiacritics = try flag(name, value)
            case "traditional_to_simplified": traditionalToSimplified = try flag(name, value)
            case "pinyin": pinyin = try flag(name, value)
            case "stem":
                guard value == "none" || SiftICU.stemmerLanguages.contains(value) else {
                    let accepted = SiftICU.isStemmingAvailable
                        ? "none or one of \(SiftICU.stemmerLanguages.joined(separator: ", "))"
                        : "only none: Sift was built without the `Stemming` trait"
                    throw SiftToolError.invalidArgument("tokenizer \"\(tokenizer)\": bad value \"\(value)\" for stem (\(accepted))")
                }
                stem = value
            default: throw SiftToolError.invalidArgument("tokenizer \"\(tokenizer)\": unknown sift_icu option \"\(name)\"")
            }
        }
        if wordTokenizer != .icu && cjk != "words" {
            throw SiftToolError.invalidArgument("--word-tokenizer \(wordTokenizer.rawValue) applies to corpora built with \"sift_icu cjk words\"; this one indexes CJK as \(cjk)s (\"\(tokenizer)\")")
        }

        var b = AnalysisBuilder()
        b.plugins.insert("analysis-icu")
        var analyzer: [String: Any] = ["type": "custom"]
        var filters: [String] = []
        switch cjk {
        case "unigram":
            // sift_icu indexes every Han, kana and Hangul character as a token of its own. A char filter
            // puts a space after each, so that icu_tokenizer (whatever its dictionaries say) emits them one by one.
            b.charFilters["sift_cjk_characters"] = [
                "type": "pattern_replace",
                "pattern": "([\\p{IsHan}\\p{IsHiragana}\\p{IsKatakana}\\p{IsHangul}])",
                "replacement": "$1 ",
            ]
            analyzer["char_filter"] = ["sift_cjk_characters"]
            analyzer["tokenizer"] = "icu_tokenizer"
            b.notes.append("CJK is indexed one character per token, as sift_icu does, through a pattern_replace char filter before icu_tokenizer. Sift turns a CJK query into a phrase of its characters by itself; in OpenSearch/Elasticsearch use match_phrase (or multi_match with \"type\": \"phrase\") for CJK text, since a plain match query ORs (or ANDs) the characters in any order and place.")
            b.notes.append("The char filter lengthens the text it tokenizes, so highlight offsets for CJK text may be off by a character or two.")
        case "bigram":
            analyzer["tokenizer"] = "icu_tokenizer"
            filters.append("cjk_bigram")
            b.notes.append("CJK is indexed as overlapping bigrams (cjk_bigram after icu_tokenizer; a lone character stays a unigram). sift_icu also indexes the last character of each CJK run as a unigram at the same position; cjk_bigram does not, so a one-character query at the end of a run may match fewer documents.")
        default:
            switch wordTokenizer {
            case .icu:
                analyzer["tokenizer"] = "icu_tokenizer"
                b.notes.append("CJK is segmented into words by icu_tokenizer with ICU's dictionaries, as sift_icu's \"cjk words\" does; the engine's ICU version may segment some words differently.")
            case .smartcn:
                b.plugins.insert("analysis-smartcn")
                analyzer["tokenizer"] = "smartcn_tokenizer"
                b.notes.append("smartcn_tokenizer replaces ICU's segmentation: better for Chinese, but it segments other scripts (Japanese, Korean, Thai) poorly, and its words differ from sift_icu's, so results differ.")
            case .kuromoji:
                b.plugins.insert("analysis-kuromoji")
                analyzer["tokenizer"] = "kuromoji_tokenizer"
                b.notes.append("kuromoji_tokenizer replaces ICU's segmentation: better for Japanese, but it is for Japanese only, and its words differ from sift_icu's, so results differ.")
            }
        }
        if traditionalToSimplified {
            b.filters["sift_traditional_to_simplified"] = ["type": "icu_transform", "id": "Traditional-Simplified"]
            filters.append("sift_traditional_to_simplified")
        }
        b.filters["sift_nfkc_cf"] = ["type": "icu_normalizer", "name": "nfkc_cf"]
        filters.append("sift_nfkc_cf")
        if stem != "none" {
            // Lucene's snowball filter knows these of libstemmer's languages, by capitalized name.
            let lucene: Set<String> = ["arabic", "armenian", "basque", "catalan", "danish", "dutch", "english", "finnish", "french",
                                       "german", "hungarian", "irish", "italian", "lithuanian", "norwegian", "porter",
                                       "portuguese", "romanian", "russian", "spanish", "swedish", "turkish"]
            if lucene.contains(stem) {
                b.filters["sift_stem"] = ["type": "snowball", "language": stem.prefix(1).uppercased() + stem.dropFirst()]
                filters.append("sift_stem")
                b.notes.append("Words are stemmed by the snowball filter (\(stem)) before diacritics are removed, as sift_icu does; sift_icu only stems words of the language's script, and its Snowball version may differ from the engine's in a few words.")
            } else {
                b.notes.append("sift_icu stems \(stem) words; the engine's snowball filter has no \(stem) stemmer, so this analyzer does not stem.")
            }
            if SiftICU.queryStopwords(arguments: ["stem", stem]).isSuperset(of: SiftICU.englishStopwords) {
                b.notes.append("Sift leaves 123 English function words (SiftICU.englishStopwords) out of any-term questions; use a search analyzer with a stop filter for similar behaviour.")
            }
            if !SiftICU.queryStopwords(arguments: ["stem", stem]).isDisjoint(with: SiftICU.kanaStopwords) {
                b.notes.append("Sift leaves kana standing alone (hiragana particles and endings such as の, は, た, katakana syllables) out of Japanese any-term questions, searching them only inside their character pairs; this analyzer searches them.")
            }
        }
        if removeDiacritics {
            // sift_icu removes diacritics from Latin, Greek and Cyrillic letters only; icu_folding alone
            // would also apply the rest of UTR #30's foldings to every script.
            b.filters["sift_remove_diacritics"] = [
                "type": "icu_folding", "unicode_set_filter": "[[:Latin:][:Greek:][:Cyrillic:]]",
            ]
            filters.append("sift_remove_diacritics")
            b.notes.append("Diacritics are removed by icu_folding limited to Latin, Greek and Cyrillic letters; icu_folding also applies UTR #30's other foldings to those letters (ß to ss, ligatures), which sift_icu does not.")
        }
        analyzer["filter"] = filters
        b.analyzers[analyzerName] = analyzer
        if pinyin {
            b.filters["sift_pinyin"] = ["type": "icu_transform", "id": "Han-Latin; Latin-ASCII; [:Zs:] Remove"]
            var pinyinFilters = traditionalToSimplified ? ["sift_traditional_to_simplified"] : []
            pinyinFilters += ["sift_pinyin", "lowercase"]
            b.analyzers[pinyinAnalyzerName] = [
                "type": "custom",
                "tokenizer": wordTokenizer == .smartcn ? "smartcn_tokenizer" : "icu_tokenizer",
                "filter": pinyinFilters,
            ]
            b.pinyinField = true
            b.notes.append("Pinyin goes to the sub-fields title.pinyin and body.pinyin (icu_transform Han-Latin per word, tones removed: 北京 is beijing); query them with the main fields (multi_match). sift_icu puts pinyin in the same field at the same positions, and also indexes each word's initials (bj for 北京), which no ICU filter produces: the analysis-pinyin community plugin does.")
        }
        return b
    }

    private static func fts5Builtin(name: String, options words: [String]) -> AnalysisBuilder {
        var b = AnalysisBuilder()
        var words = words
        var porter = false
        var base = name
        if name == "porter" {
            porter = true
            base = words.isEmpty ? "unicode61" : words.removeFirst().lowercased()
        }
        var removeDiacritics = base != "ascii"
        var caseSensitive = false
        var unmapped: [String] = []
        for (option, value) in pairs(words) {
            switch option {
            case "remove_diacritics": removeDiacritics = value != "0"
            case "case_sensitive" where base == "trigram": caseSensitive = value == "1"
            default: unmapped.append("\(option) \(value)")
            }
        }
        var filters: [String] = []
        var analyzer: [String: Any] = ["type": "custom"]
        if base == "trigram" {
            b.tokenizers["sift_trigram"] = ["type": "ngram", "min_gram": 3, "max_gram": 3, "token_chars": [String]()]
            analyzer["tokenizer"] = "sift_trigram"
            b.notes.append("trigram: every 3-character sequence is a token (ngram tokenizer, min_gram = max_gram = 3, spaces and punctuation included), as in FTS5. FTS5 answers LIKE/GLOB and substrings with it; in OpenSearch/Elasticsearch use match_phrase for a substring, and, as in FTS5, text shorter than 3 characters matches nothing.")
        } else {
            analyzer["tokenizer"] = "standard"
            b.notes.append("\(base): the standard tokenizer (Unicode word boundaries) stands in for FTS5's \(base), which splits at every character that is not a letter or digit: standard keeps can't and 3.14 as one token where FTS5 splits them, and emits each CJK ideograph as a token where \(base) keeps a whole CJK run as one token.")
        }
        if !caseSensitive { filters.append("lowercase") }
        if removeDiacritics {
            filters.append("asciifolding")
            b.notes.append("Diacritics: asciifolding folds more than FTS5's remove_diacritics (ß to ss, æ to ae, ø to o, and symbols to ASCII).")
        }
        if porter {
            filters.append("porter_stem")
            b.notes.append("porter_stem is the same Porter algorithm as FTS5's porter tokenizer.")
        }
        if !unmapped.isEmpty {
            b.notes.append("Not mapped: the tokenizer options \(unmapped.joined(separator: ", ")) (FTS5 tokenchars/separators/categories have no counterpart in the standard tokenizer).")
        }
        analyzer["filter"] = filters
        b.analyzers[analyzerName] = analyzer
        return b
    }

    private static let commonNotes = [
        "Ranking: FTS5's bm25() scores title and body as one document with per-column weights, and sift's default inB2 (DFR; Lucene's DFRSimilarity with In, B and H2 comes closest) and its bm25f normalize each column's length before one saturation; Lucene's BM25 (k1 1.2, b 0.75) scores each field separately and multi_match combines the field scores (the best one by default), so scores and the order of close hits differ. Boost the title with multi_match \"fields\": [\"title^10\", \"body\"] to approach sift's weights.",
        "Highlighting: sift highlights and cuts snippets at its tokenizer's byte offsets; the engines' highlighters use their own analysis and character offsets, so marked spans and snippet lengths differ.",
        "Queries: sift's query parsing (any text is valid, modes all/any/phrase/prefix) maps to match with \"operator\": \"and\" / \"or\", match_phrase and match_phrase_prefix; FTS5 query syntax (NEAR, column filters) is not translated.",
        "Extra fields go under \"fields\" with dynamic mapping: each field's type is guessed from the first document that has it, and a later document with another type for it is rejected.",
    ]

    /// Collects the parts of the `analysis` settings.
    private struct AnalysisBuilder {
        var analyzers: [String: Any] = [:]
        var tokenizers: [String: Any] = [:]
        var filters: [String: Any] = [:]
        var charFilters: [String: Any] = [:]
        var plugins: Set<String> = []
        var notes: [String] = []
        var pinyinField = false

        func definition() throws -> IndexDefinition {
            var analysis: [String: Any] = ["analyzer": analyzers]
            if !tokenizers.isEmpty { analysis["tokenizer"] = tokenizers }
            if !filters.isEmpty { analysis["filter"] = filters }
            if !charFilters.isEmpty { analysis["char_filter"] = charFilters }
            func text() -> [String: Any] {
                var field: [String: Any] = ["type": "text", "analyzer": SearchEngineExport.analyzerName]
                if pinyinField {
                    field["fields"] = ["pinyin": ["type": "text", "analyzer": SearchEngineExport.pinyinAnalyzerName]]
                }
                return field
            }
            let keyword: [String: Any] = ["type": "keyword"]
            let body: [String: Any] = [
                "settings": ["analysis": analysis],
                "mappings": [
                    "properties": [
                        "key": keyword, "title": text(), "body": text(), "origin": keyword, "source": keyword,
                        "fields": ["type": "object", "dynamic": true] as [String: Any],
                    ] as [String: Any],
                ],
            ]
            var json = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            json.append(0x0A)
            return IndexDefinition(json: json, plugins: plugins.sorted(), notes: notes)
        }
    }

    /// The two NDJSON lines of one document, each ending in a newline.
    static func bulkLines(index: String, document: ExportedDocument) throws -> (Data, [String: Any]?) {
        var fields: [String: Any]? = nil
        if let object = try? JSONSerialization.jsonObject(with: Data(document.fields.utf8)) as? [String: Any] { fields = object }
        let action: [String: Any] = ["index": ["_index": index, "_id": document.key]]
        let source: [String: Any] = [
            "key": document.key, "title": document.title, "body": document.body, "origin": document.origin,
            "source": document.source, "fields": fields ?? [String: Any](),
        ]
        var data = try JSONSerialization.data(withJSONObject: action, options: [.sortedKeys, .withoutEscapingSlashes])
        data.append(0x0A)
        data.append(try JSONSerialization.data(withJSONObject: source, options: [.sortedKeys, .withoutEscapingSlashes]))
        data.append(0x0A)
        return (data, fields)
    }

    /// The columns of a document that are exported.
    struct ExportedDocument {
        var key, title, body, origin, source, fields: String
    }
}

extension CorpusDatabase {
    /// Writes every document as an OpenSearch/Elasticsearch `_bulk` request body: for each document an
    /// action line `{"index":{"_id":KEY,"_index":INDEX}}` and a source line with key, title, body, origin,
    /// source and the extra fields (`fields`, a JSON object), each line one JSON object ending in a newline.
    ///
    /// Documents are read in pages of `pageSize` in rowid order (each page one query, keyed on the last rowid
    /// seen), and `write` receives one page's lines at a time, so memory stays bounded. Documents added while
    /// exporting may or may not be included; none is written twice. Throws `SiftToolError` for database
    /// problems and whatever `write` throws.
    public func exportBulk(index: String, pageSize: Int = SearchEngineExport.defaultPageSize,
                           write: (Data) throws -> Void) throws -> SearchEngineExport.BulkSummary {
        try SearchEngineExport.validateIndexName(index)
        var summary = SearchEngineExport.BulkSummary(documents: 0, bytes: 0, overlongKeys: [], unreadableFields: [])
        var last = Int64.min
        while true {
            let rows = try translatingErrors {
                try database.getRows(sql: "SELECT id, key, title, body, origin, source, fields FROM \(Self.documentsTable) WHERE id > ? ORDER BY id LIMIT ?",
                                     values: [last, max(1, pageSize)])
            }
            guard let final = rows.last else { break }
            var page = Data()
            for row in rows {
                let document = SearchEngineExport.ExportedDocument(
                    key: row[1].stringValue, title: row[2].stringValue, body: row[3].stringValue,
                    origin: row[4].stringValue, source: row[5].stringValue, fields: row[6].stringValue)
                let (lines, fields) = try SearchEngineExport.bulkLines(index: index, document: document)
                if fields == nil { summary.unreadableFields.append(document.key) }
                if document.key.utf8.count > SearchEngineExport.maximumIDBytes { summary.overlongKeys.append(document.key) }
                page.append(lines)
                summary.documents += 1
            }
            summary.bytes += page.count
            try write(page)
            last = final[0].int64Value
        }
        return summary
    }
}

extension SearchEngineExport {
    /// Writes `definition` to `path`, replacing it. Throws `SiftToolError.cannotWrite`.
    public static func write(_ definition: IndexDefinition, to path: String) throws {
        do {
            try definition.json.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw SiftToolError.cannotWrite(path, detail: FileReading.reason(error))
        }
    }
}

extension CorpusDatabase {
    /// Writes the `_bulk` stream of `exportBulk(index:pageSize:write:)` to the file at `path`, or to
    /// standard output when `path` is nil. A file is written beside its final name and renamed into place
    /// when complete, so a failed export never leaves a truncated stream that looks whole. Throws
    /// `SiftToolError.cannotWrite` when the file cannot be written, and refuses to overwrite the corpus.
    public func exportBulk(index: String, toFile path: String?,
                           pageSize: Int = SearchEngineExport.defaultPageSize) throws -> SearchEngineExport.BulkSummary {
        guard let path else {
            let output = FileHandle.standardOutput
            return try exportBulk(index: index, pageSize: pageSize) { data in
                do { try output.write(contentsOf: data) } catch {
                    throw SiftToolError.cannotWrite("standard output", detail: FileReading.reason(error))
                }
            }
        }
        let target = URL(fileURLWithPath: path)
        let corpusFiles = database.paths.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
        if corpusFiles.contains(target.resolvingSymlinksInPath().path) {
            throw SiftToolError.invalidArgument("\(path) is the corpus database (or one of its files); choose another --out")
        }
        let partial = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw SiftToolError.cannotWrite(path, detail: "cannot create a file in \(target.deletingLastPathComponent().path)")
        }
        var moved = false
        defer { if !moved { try? FileManager.default.removeItem(at: partial) } }
        let handle: FileHandle
        do { handle = try FileHandle(forWritingTo: partial) } catch {
            throw SiftToolError.cannotWrite(path, detail: FileReading.reason(error))
        }
        let summary: SearchEngineExport.BulkSummary
        do {
            defer { try? handle.close() }
            summary = try exportBulk(index: index, pageSize: pageSize) { data in
                do { try handle.write(contentsOf: data) } catch {
                    throw SiftToolError.cannotWrite(path, detail: FileReading.reason(error))
                }
            }
            try handle.synchronize()
        } catch let error as SiftToolError {
            throw error
        } catch let error as SiftError {
            throw error
        } catch {
            throw SiftToolError.cannotWrite(path, detail: FileReading.reason(error))
        }
        do {
            if FileManager.default.fileExists(atPath: target.path) {
                _ = try FileManager.default.replaceItemAt(target, withItemAt: partial)
            } else {
                try FileManager.default.moveItem(at: partial, to: target)
            }
            moved = true
        } catch {
            throw SiftToolError.cannotWrite(path, detail: FileReading.reason(error))
        }
        return summary
    }
}
