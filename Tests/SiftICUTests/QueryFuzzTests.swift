import Foundation
import XCTest
import Sift
import SiftICU

/// "Any text is a valid query", tested the way an attacker would: generated strings of FTS5 syntax, quotes,
/// combining marks, format characters, NUL, CJK and right-to-left text, searched in every mode with and without
/// column restrictions and exclusions, on four synced indexes of different tokenizers over one content table.
///
/// Every search must succeed, its rendered expression must keep user text inside FTS5 strings, and results must
/// respect the query's structure: a search restricted to a column only returns rows whose column holds a token
/// of the text, and `excluding:` never returns a row containing an excluded phrase.
///
/// A second generator draws text from each of Unicode's general categories (alone, in runs, next to words and CJK
/// text), so that characters no list names get searched too, and searches it in every mode on every index, with
/// rows that hold the text, so that each search has rows to rank and must find the row it was copied from.
///
/// Seeded and reproducible: `SIFT_FUZZ_SEED` picks the seed, `SIFT_FUZZ_STRINGS` the number of hostile strings
/// (default 2500, about two seconds; try 100000 for a long run) and, divided by 2500, the rounds of category text
/// (one round, 5,220 searches, by default).
final class QueryFuzzTests: XCTestCase {
    static let tokenizers = ["sift_icu", "unicode61 remove_diacritics 2", "trigram", "porter unicode61"]
    static let indexNames = ["fz_icu", "fz_unicode61", "fz_trigram", "fz_porter"]

    var database: Database!
    var directory: URL!
    var rows: [Int: (title: String, body: String)] = [:]

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sift-fuzz-\(UUID().uuidString)")
        database = Database(withPath: directory.appendingPathComponent("fuzz.db").path)
        database.registerICUTokenizer()
    }

    override func tearDownWithError() throws {
        database.close()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Generation

    /// Pieces hostile text is made of: FTS5 operators and punctuation, quotes, combining marks, zero-width and
    /// bidi controls, NUL, surrogate escapes as text, and words of several scripts (some of them in the corpus).
    static let pieces: [String] = [
        "\"", "\"\"", "'", "*", "^", ":", "(", ")", "{", "}", "[", "]", "+", "-", ",", ".", ";", "\\", "|", "/",
        "AND", "OR", "NOT", "NEAR", "NEAR(", "near", "and", "or", " ", "  ", "\t", "\n", "\r\n",
        "\u{301}", "\u{308}", "\u{20DD}", "\u{200D}", "\u{200B}", "\u{200C}", "\u{202E}", "\u{202A}", "\u{2066}", "\u{FEFF}",
        "\u{0}", "\\uD800", "\\udfff", "\u{FFFD}", "\u{10FFFF}", "\u{E000}",
        "alpha", "beta", "gamma", "secret", "sqlite", "search", "title", "body", "rank", "rowid", "a", "ab", "abc", "x1",
        "café", "CAFÉ", "naïve", "İstanbul", "ﬁle", "Ｆｕｌｌ", "running", "runs",
        "北京", "大学", "天安门", "北京大学生活", "東京", "タワー", "東京タワー", "서울", "서울특별시에서", "ไทย", "ภาษาไทย",
        "שלום", "مرحبا", "עברית", "👩‍💻", "🇫🇷", "1.5", "user@example.com", "0x1F",
    ]

    static func hostileString(_ random: inout SeededRandom) -> String {
        var text = ""
        for _ in 0..<random.int(1...10) {
            if random.int(0...9) == 0 {
                // Now and then any scalar at all (surrogate code points are not scalars: they come as escapes above).
                let value = UInt32(random.int(1...0x2FFFF))
                if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
            } else {
                text += pieces[random.int(0...pieces.count - 1)]
            }
        }
        return text
    }

    static let vocabulary = ["alpha", "beta", "gamma", "secret", "sqlite", "search", "café", "naïve", "running", "runs",
                             "北京", "大学", "天安门", "東京タワー", "서울특별시에서", "ภาษาไทย", "שלום", "مرحبا",
                             "title", "body", "ab\"\u{301}cd", "x1", "İstanbul"]

    private func makeCorpus(_ random: inout SeededRandom) throws {
        try database.create(table: "fz", of: FuzzDocument.self)
        for (name, tokenizer) in zip(Self.indexNames, Self.tokenizers) {
            try database.create(virtualTable: name, of: FuzzDocumentIndex.self, syncedWith: "fz", tokenizer: tokenizer)
        }
        var documents: [FuzzDocument] = []
        for id in 1...60 {
            func words(_ count: Int, _ random: inout SeededRandom) -> String {
                (0..<count).map { _ in
                    random.int(0...5) == 0 ? Self.hostileString(&random) : Self.vocabulary[random.int(0...Self.vocabulary.count - 1)]
                }.joined(separator: " ")
            }
            let document = FuzzDocument(id: id, title: words(random.int(1...3), &random), body: words(random.int(3...12), &random))
            rows[id] = (document.title, document.body)
            documents.append(document)
        }
        try database.insert(objects: documents, intoTable: "fz")
        try assertIndexesConsistent()
    }

    // MARK: - Unicode's general categories

    /// The 30 general categories by their short names, in Unicode's order. Cs (surrogate code points) has no
    /// `Unicode.Scalar`, so no Swift string holds one: it is listed and generates nothing.
    static let categories: [(name: String, category: Unicode.GeneralCategory)] = [
        ("Lu", .uppercaseLetter), ("Ll", .lowercaseLetter), ("Lt", .titlecaseLetter), ("Lm", .modifierLetter),
        ("Lo", .otherLetter), ("Mn", .nonspacingMark), ("Mc", .spacingMark), ("Me", .enclosingMark),
        ("Nd", .decimalNumber), ("Nl", .letterNumber), ("No", .otherNumber), ("Pc", .connectorPunctuation),
        ("Pd", .dashPunctuation), ("Ps", .openPunctuation), ("Pe", .closePunctuation), ("Pi", .initialPunctuation),
        ("Pf", .finalPunctuation), ("Po", .otherPunctuation), ("Sm", .mathSymbol), ("Sc", .currencySymbol),
        ("Sk", .modifierSymbol), ("So", .otherSymbol), ("Zs", .spaceSeparator), ("Zl", .lineSeparator),
        ("Zp", .paragraphSeparator), ("Cc", .control), ("Cf", .format), ("Cs", .surrogate), ("Co", .privateUse),
        ("Cn", .unassigned),
    ]

    /// The scalars of each general category by Swift's own Unicode tables (no ICU): the whole BMP and every 17th
    /// code point of the supplementary planes, so each plane's letters, symbols, private use and unassigned code
    /// points are sampled (125,169 scalars, enumerated once).
    static let scalarsByCategory: [Unicode.GeneralCategory: [Unicode.Scalar]] = {
        var table: [Unicode.GeneralCategory: [Unicode.Scalar]] = [:]
        for value in Array(0...0xFFFF) + Array(stride(from: 0x10000, through: 0x10FFFF, by: 17)) {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }  // a surrogate code point
            table[scalar.properties.generalCategory, default: []].append(scalar)
        }
        return table
    }()

    /// Words and CJK text the generated characters stand next to (some of them in the corpus).
    static let neighbourWords = ["alpha", "secret", "search", "café", "running", "x1", "İstanbul", "שלום", "مرحبا", "ภาษาไทย"]
    static let neighbourCJK = ["北京", "大学", "東京タワー", "서울", "天安门"]

    /// A category's scalars in a seeded random order, handed out in turn and again from the start: any n
    /// consecutive draws from a category of n scalars hold each of them once.
    struct CategoryCursor {
        let scalars: [Unicode.Scalar]
        private var position = 0

        init(_ scalars: [Unicode.Scalar], _ random: inout SeededRandom) {
            self.scalars = scalars.shuffled(using: &random)
        }

        mutating func next() -> Unicode.Scalar {
            defer { position = (position + 1) % scalars.count }
            return scalars[position]
        }
    }

    /// Text of one category: one character alone, a run, characters next to words and CJK text (apart and
    /// touching), and two texts of five doubled characters between words ("alpha ‿‿ x1 ﹏﹏ café ...", a separator
    /// typed twice). Each shape once, so every category gets every shape, and the doubled characters come from 10
    /// consecutive draws: a category of at most 10 characters is covered whole every time.
    static func categoryTexts(_ cursor: inout CategoryCursor, _ random: inout SeededRandom) -> [String] {
        func one() -> String { String(cursor.next()) }
        func run() -> String { (0..<random.int(2...4)).map { _ in one() }.joined() }
        func word() -> String { neighbourWords[random.int(0...neighbourWords.count - 1)] }
        func cjk() -> String { neighbourCJK[random.int(0...neighbourCJK.count - 1)] }
        func doubled() -> String {
            (0..<5).map { _ in
                let character = one()
                return word() + " " + character + character
            }.joined(separator: " ") + " " + word()
        }
        return [one(), run(), word() + " " + one(), word() + run(), run() + " " + word(), cjk() + " " + run(),
                cjk() + run() + cjk(), doubled(), doubled()]
    }

    private func assertIndexesConsistent() throws {
        for name in Self.indexNames {
            let verification = try database.verify(index: name)
            XCTAssertTrue(verification.isConsistent, "\(name): \(verification)")
        }
    }

    // MARK: - The tests

    static let modes: [SearchQuery.Mode?] = [.allTerms, .anyTerm, .phrase, .prefix, nil]  // nil: near
    static let columnChoices: [[String]] = [[], ["title"], ["body"], ["title", "body"]]

    /// `SIFT_FUZZ_SEED` and `SIFT_FUZZ_STRINGS`.
    static var settings: (seed: UInt64, strings: Int) {
        let environment = ProcessInfo.processInfo.environment
        return (environment["SIFT_FUZZ_SEED"].flatMap(UInt64.init) ?? 20261123,
                environment["SIFT_FUZZ_STRINGS"].flatMap(Int.init) ?? 2500)
    }

    func testHostileTextIsAlwaysAValidQueryThatKeepsItsStructure() throws {
        let (seed, count) = Self.settings
        var random = SeededRandom(seed: seed)
        try makeCorpus(&random)
        var tally = Tally()
        for _ in 0..<count {
            let text = Self.hostileString(&random)
            let mode = Self.modes[random.int(0...Self.modes.count - 1)]
            let columns = Self.columnChoices[random.int(0...Self.columnChoices.count - 1)]
            let excluding = random.int(0...2) == 0 ? Self.hostileString(&random) : nil
            let distance = mode == nil ? random.int(0...20) : 10
            for index in Self.indexNames.indices {
                try check(text, mode, distance: distance, columns: columns, excluding: excluding, on: index, seed: seed, &tally)
                if tally.failures.count > 20 { break }
            }
            if tally.failures.count > 20 { break }
        }
        // Bytes that are not UTF-8 are a typed error before any search.
        XCTAssertThrowsError(try SearchQuery(utf8: Data([0x61, 0xED, 0xA0, 0x80, 0x62]))) { error in
            XCTAssertEqual((error as? SiftError)?.operation, .query)
        }
        print("query fuzz: seed \(seed), \(count) strings, \(tally.searches) searches, \(tally.hits) hits checked, \(tally.failureCount) failures")
        XCTAssertEqual(tally.failures, [], tally.failures.prefix(20).joined(separator: "\n"))
        XCTAssertGreaterThan(tally.hits, 0, "the corpus should answer some of the searches")
    }

    /// Text from every general category (alone, in runs, next to words and CJK text) in every mode on every index,
    /// checked as the hostile strings are, each mode with its own columns and exclusion. Each text is also the title
    /// and body of a row, so the searches have rows to match and rank (a query that matches nothing never reaches
    /// the rank function), and a search for a row's text in `.allTerms`, `.anyTerm` or `.phrase` mode must find
    /// that row. One round is 9 texts a category, each searched in 5 modes on 4 indexes (180 searches a category,
    /// 5,220 in all); `SIFT_FUZZ_STRINGS` / 2500 rounds in a long run.
    func testTextOfEveryGeneralCategoryIsAValidQueryInEveryMode() throws {
        let (seed, count) = Self.settings
        var random = SeededRandom(seed: seed)
        try makeCorpus(&random)
        var tally = Tally(), perCategory: [String: (searches: Int, failures: Int)] = [:]
        var cursors = Self.categories.map { CategoryCursor(Self.scalarsByCategory[$0.category] ?? [], &random) }
        for round in 0..<max(1, count / 2500) {
            var texts: [(category: String, row: Int, text: String)] = []
            for ((name, _), position) in zip(Self.categories, cursors.indices) where !cursors[position].scalars.isEmpty {
                for text in Self.categoryTexts(&cursors[position], &random) {
                    texts.append((name, 1000 * (round + 1) + texts.count, text))
                }
            }
            try database.insert(objects: texts.map { FuzzDocument(id: $0.row, title: $0.text, body: $0.text) }, intoTable: "fz")
            for (_, row, text) in texts { rows[row] = (text, text) }
            try assertIndexesConsistent()
            for (name, row, text) in texts {
                let before = (tally.searches, tally.failureCount)
                for mode in Self.modes {
                    let columns = Self.columnChoices[random.int(0...Self.columnChoices.count - 1)]
                    let excluding = random.int(0...3) == 0 ? texts[random.int(0...texts.count - 1)].text : nil
                    let distance = random.int(0...20)
                    for index in Self.indexNames.indices {
                        try check(text, mode, distance: distance, columns: columns, excluding: excluding, on: index,
                                  seed: seed, context: "category \(name), ", source: row, &tally)
                    }
                }
                perCategory[name, default: (0, 0)].searches += tally.searches - before.0
                perCategory[name, default: (0, 0)].failures += tally.failureCount - before.1
            }
        }
        let counts = Self.categories.map { category in
            "\(category.name) \(perCategory[category.name]?.searches ?? 0) (\(Self.scalarsByCategory[category.category]?.count ?? 0) scalars)"
        }.joined(separator: ", ")
        let failing = Self.categories.compactMap { category in
            perCategory[category.name].flatMap { $0.failures > 0 ? "\(category.name) \($0.failures)" : nil }
        }
        print("category fuzz: seed \(seed), searches by category: \(counts); \(tally.searches) searches, \(tally.hits) hits checked, "
              + "\(tally.failureCount) failures" + (failing.isEmpty ? "" : " (\(failing.joined(separator: ", ")))"))
        XCTAssertEqual(tally.failures, [], tally.failures.prefix(20).joined(separator: "\n"))
        XCTAssertGreaterThan(tally.hits, 0, "the corpus should answer some of the searches")
    }

    /// What a run of searches found: the failures' descriptions (the first 40) and their count.
    struct Tally {
        var searches = 0, hits = 0, failureCount = 0
        var failures: [String] = []

        mutating func fail(_ description: String) {
            failureCount += 1
            if failures.count < 40 { failures.append(description) }
        }
    }

    /// Document tokens by index and row, for the checks of the hits.
    private var tokenCache: [String: [[String]]] = [:]
    /// Each index's tokenizer as declared (`sift_icu stem english`), split into arguments.
    private lazy var tokenizerArguments = Self.tokenizers.map { database.declaredTokenize($0).split(separator: " ").map(String.init) }

    /// Searches `text` in `mode` (nil: near) on the index at `index` and checks that the search succeeds, that its
    /// rendered expression keeps the text inside FTS5 strings, and that its hits respect the columns and exclusion;
    /// when `source` is the row whose columns hold the text, that an all-terms, any-term or phrase search without
    /// exclusion and with fewer hits than its limit returns that row.
    private func check(_ text: String, _ mode: SearchQuery.Mode?, distance: Int, columns: [String], excluding: String?,
                       on index: Int, seed: UInt64, context: String = "", source: Int? = nil, _ tally: inout Tally) throws {
        var query = mode.map { SearchQuery(text, mode: $0, columns: columns) } ?? SearchQuery.near(text, distance: distance, columns: columns)
        query.excluding = excluding
        let (name, tokenizer) = (Self.indexNames[index], Self.tokenizers[index])
        tally.searches += 1
        let label = "\(context)seed \(seed), index \(name), query \(String(reflecting: text)) mode \(mode.map { "\($0)" } ?? "near") "
            + "columns \(columns) excluding \(excluding.map { String(reflecting: $0) } ?? "nil")"
        do {
            let results: SearchResults<FuzzDocument> = try database.search(query, in: name, options: SearchOptions(limit: 100, typoTolerance: .off))
            guard let expression = results.expression else {
                // Nothing searchable in the text: no hits, no error.
                if !results.hits.isEmpty { tally.fail("\(label): hits for a query with nothing to search") }
                return
            }
            let structure = try FTS5Skeleton(expression)
            if let problem = structure.problem(columns: columns, input: text, excluding: excluding) {
                tally.fail("\(label): expression \(String(reflecting: expression)): \(problem)")
                return
            }
            tally.hits += results.hits.count
            // (The trigram index holds a value only up to its first NUL, see below.)
            if let source, mode == .allTerms || mode == .anyTerm || mode == .phrase, excluding == nil, results.hits.count < 100,
               tokenizer != "trigram" || !text.utf8.contains(0), !results.hits.contains(where: { $0.object.id == source }) {
                tally.fail("\(label): expression \(String(reflecting: expression)) does not find row \(source), which holds the text")
            }
            let arguments = tokenizerArguments[index]
            func tokens(_ text: String, _ reason: TokenizeReason) throws -> [String] {
                let clean = String(decoding: text.utf8.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
                return try database.tokenize(clean, with: arguments, reason: reason).filter { !$0.isColocated }.map(\.text)
            }
            func documentTokens(_ id: Int) throws -> [[String]] {
                let key = "\(name)#\(id)"
                if let cached = tokenCache[key] { return cached }
                let row = rows[id] ?? ("", "")
                // FTS5's trigram tokenizer stops indexing a value at its first NUL (SQLite 3.40; the others
                // treat NUL as a separator): what follows is not in that index, so it cannot exclude a row.
                func indexed(_ text: String) -> String {
                    guard tokenizer == "trigram", let nul = text.utf8.firstIndex(of: 0) else { return text }
                    return String(decoding: text.utf8[..<nul], as: UTF8.self)
                }
                let value = [try tokens(indexed(row.title), .document), try tokens(indexed(row.body), .document)]
                tokenCache[key] = value
                return value
            }
            let queryTokens = Set(try tokens(text, .query))
            let excludedPhrases = try structure.excludedStrings.map { try tokens($0, .query) }.filter { !$0.isEmpty }
            for hit in results.hits {
                let perColumn = try documentTokens(hit.object.id)
                if !columns.isEmpty {
                    let searched = columns.flatMap { $0 == "title" ? perColumn[0] : perColumn[1] }
                    let matches = searched.contains { token in
                        queryTokens.contains(token) || (mode == .prefix && queryTokens.contains { token.utf8.starts(with: $0.utf8) })
                    }
                    if !matches {
                        tally.fail("\(label): row \(hit.object.id) returned, but its \(columns) holds no token of the text")
                    }
                }
                for phrase in excludedPhrases where perColumn.contains(where: { Self.contains($0, phrase) }) {
                    tally.fail("\(label): expression \(String(reflecting: expression)): row \(hit.object.id) "
                               + "\(String(reflecting: rows[hit.object.id])) returned although it contains excluded \(phrase)")
                }
            }
        } catch {
            tally.fail("\(label): \(error)")
        }
    }

    // MARK: - Connector punctuation

    /// A word next to a token of connector punctuation only (general category Pc: `_`, `‿`, `⁀`, `＿`...) is a
    /// valid query in every mode with every tokenizer.
    ///
    /// sift_icu keeps "__" as a word after a word (ICU's word breaker) and drops it alone; FTS5 tokenizes each string of
    /// the expression alone, so `("hello" "__")` held an empty phrase, FTS5 left it out of the AND and the phrase
    /// weights no longer fit: "SQL logic error" in `.allTerms`, `.prefix` and `near`.
    func testConnectorPunctuationTokensAreValidQueriesInEveryMode() throws {
        try database.create(table: "fz", of: FuzzDocument.self)
        for (name, tokenizer) in zip(Self.indexNames, Self.tokenizers) {
            try database.create(virtualTable: name, of: FuzzDocumentIndex.self, syncedWith: "fz", tokenizer: tokenizer)
        }
        try database.insert(objects: [
            FuzzDocument(id: 1, title: "hello world", body: "snake_case and hello__there"),
            FuzzDocument(id: 2, title: "goodbye", body: "hello ‿ tie and ＿ fullwidth, hello __ there"),
            FuzzDocument(id: 3, title: "北京", body: "北京大学 hello"),
        ], intoTable: "fz")
        let connectors = ["_", "__", "‿", "‿‿", "⁀⁀", "⁔⁔", "︳︳", "︴︴", "﹍﹍", "﹎﹎", "﹏﹏", "＿＿", "_‿⁀⁔︳︴﹍﹎﹏＿"]
        let texts = connectors.flatMap { ["hello \($0)", "\($0) hello", "hello \($0) world", "北京 \($0)", $0] } + ["hello_ ‿‿", "hel‿lo"]
        let modes: [SearchQuery.Mode?] = [.allTerms, .anyTerm, .phrase, .prefix, nil]  // nil: near
        var failures: [String] = [], compared = 0
        for (index, tokenizer) in zip(Self.indexNames, Self.tokenizers) {
            for text in texts {
                for mode in modes {
                    let query = mode.map { SearchQuery(text, mode: $0) } ?? SearchQuery.near(text)
                    let label = "\(index) \(String(reflecting: text)) \(mode.map { "\($0)" } ?? "near")"
                    do {
                        let found = try ids(query, index)
                        // Connector punctuation without a token of its own adds no condition: the word alone finds
                        // the same rows. (sift_icu folds ︳ to _ and keeps "︳︳" as the token "__" even alone; trigram
                        // searches a short word together with its neighbour, as a substring.)
                        let arguments = database.declaredTokenize(tokenizer).split(separator: " ").map(String.init)
                        if tokenizer != "trigram", let mode, mode != .phrase,
                           let connector = connectors.first(where: { text == "hello \($0)" }),
                           try database.tokenize(connector, with: arguments, reason: .query).isEmpty {
                            XCTAssertEqual(found, try ids(SearchQuery("hello", mode: mode), index), label)
                            compared += 1
                        }
                    } catch {
                        failures.append("\(label): \(error)")
                    }
                }
            }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
        XCTAssertGreaterThan(compared, 40, "most connectors have no token of their own")
        // A phrase copied from a document finds it: the connector stays between its words.
        for index in Self.indexNames {
            XCTAssertTrue(try ids(SearchQuery("hello __ there", mode: .phrase), index).contains(2), index)
        }
    }

    private func ids(_ query: SearchQuery, _ index: String) throws -> [Int] {
        let results: SearchResults<FuzzDocument> = try database.search(query, in: index)
        return results.hits.map(\.object.id).sorted()
    }

    /// Whether `sequence` holds `phrase` as consecutive tokens.
    static func contains(_ sequence: [String], _ phrase: [String]) -> Bool {
        guard !phrase.isEmpty, phrase.count <= sequence.count else { return false }
        for start in 0...(sequence.count - phrase.count) where sequence[start..<start + phrase.count].elementsEqual(phrase) {
            return true
        }
        return false
    }

    /// The skeleton check on its own, without a database: the rendered expression of known hostile inputs.
    func testRenderedExpressionsKeepTextInsideStrings() throws {
        try database.create(table: "fz", of: FuzzDocument.self)
        try database.create(virtualTable: "fz_trigram", of: FuzzDocumentIndex.self, syncedWith: "fz", tokenizer: "trigram")
        let injected = "zzz\"\u{301}) OR (body:secret) OR (\"\u{301}zzz"
        let expression = try XCTUnwrap(try database.expression(for: SearchQuery(injected, columns: ["title"], excluding: "secret"),
                                                               in: "fz_trigram"))
        let skeleton = try FTS5Skeleton(expression)
        XCTAssertNil(skeleton.problem(columns: ["title"], input: injected, excluding: "secret"), expression)
        XCTAssertEqual(skeleton.structure, ["(", "{", "S", "}", ":", "(", "S", ")", ")", "NOT", "(", "S", ")"])
        XCTAssertEqual(skeleton.strings.first, "title")
        XCTAssertEqual(skeleton.excludedStrings, ["secret"])
        XCTAssertThrowsError(try FTS5Skeleton("\"unterminated"), "the checker itself must notice an open string")
    }
}

/// What a rendered FTS5 expression is made of: its strings (unquoted) and everything outside them.
struct FTS5Skeleton {
    /// Tokens outside strings, with each string written as "S".
    var structure: [String] = []
    /// The strings' contents, in order.
    var strings: [String] = []
    /// The strings after the top-level NOT.
    var excludedStrings: [String] = []

    struct Unterminated: Error {}

    init(_ expression: String) throws {
        let bytes = Array(expression.utf8)
        var i = 0, depth = 0, afterNot = false
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""):
                var content: [UInt8] = []
                i += 1
                while true {
                    guard i < bytes.count else { throw Unterminated() }
                    if bytes[i] == UInt8(ascii: "\"") {
                        if i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\"") { content.append(bytes[i]); i += 2; continue }
                        i += 1
                        break
                    }
                    content.append(bytes[i])
                    i += 1
                }
                let text = String(decoding: content, as: UTF8.self)
                strings.append(text)
                if afterNot { excludedStrings.append(text) }
                structure.append("S")
                continue
            case UInt8(ascii: " "):
                break
            case UInt8(ascii: "("), UInt8(ascii: "{"):
                depth += 1
                structure.append(String(UnicodeScalar(byte)))
            case UInt8(ascii: ")"), UInt8(ascii: "}"):
                depth -= 1
                structure.append(String(UnicodeScalar(byte)))
            case UInt8(ascii: ":"), UInt8(ascii: "*"), UInt8(ascii: ","):
                structure.append(String(UnicodeScalar(byte)))
            default:
                var word: [UInt8] = []
                while i < bytes.count, ![0x20, 0x22, 0x28, 0x29, 0x7B, 0x7D, 0x3A, 0x2A, 0x2C].contains(bytes[i]) {
                    word.append(bytes[i])
                    i += 1
                }
                let text = String(decoding: word, as: UTF8.self)
                if text == "NOT" && depth == 0 { afterNot = true }
                structure.append(text)
                continue
            }
            i += 1
        }
    }

    /// Why the expression does not have the shape Sift promises for this input, or nil.
    func problem(columns: [String], input: String, excluding: String?) -> String? {
        let allowed: Set<String> = ["S", "(", ")", "{", "}", ":", "*", ",", "OR", "NOT", "NEAR"]
        for token in structure where !allowed.contains(token) && Int(token) == nil {
            return "\(String(reflecting: token)) outside a string"
        }
        var depth = 0
        for token in structure {
            if token == "(" || token == "{" { depth += 1 }
            if token == ")" || token == "}" { depth -= 1 }
            if depth < 0 { return "unbalanced parentheses" }
        }
        if depth != 0 { return "unbalanced parentheses" }
        if structure.filter({ $0 == "NOT" }).count > 1 { return "more than one NOT" }
        if structure.contains("NOT") && excluding == nil { return "a NOT the query did not ask for" }
        if !columns.isEmpty {
            guard let open = structure.firstIndex(of: "{"), let close = structure.firstIndex(of: "}"), open <= 1 else {
                return "no column filter in front"
            }
            let names = Array(strings.prefix(close - open - 1))
            if names != columns { return "column filter \(names), expected \(columns)" }
            if structure.filter({ $0 == "{" }).count != 1 { return "more than one column filter" }
        } else if structure.contains("{") {
            return "a column filter the query did not ask for"
        }
        // Every string holds text of the input (or of the exclusion, or a column name), nothing else.
        let sources = [input, excluding ?? ""].map { String(decoding: $0.utf8.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self) }
        for string in strings where !columns.contains(string) {
            // Split on the byte: a space followed by a combining mark is one `Character`.
            for part in string.utf8.split(separator: 0x20) where !sources.contains(where: { $0.utf8.contains(part) }) {
                return "string \(String(reflecting: string)) holds text that is not in the input"
            }
        }
        return nil
    }
}

extension String.UTF8View {
    /// Whether these bytes contain `other`'s bytes consecutively.
    func contains(_ other: Substring.UTF8View) -> Bool {
        let haystack = Array(self), needle = Array(other)
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}

/// SplitMix64: a small seeded generator, so every failure can be replayed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}

struct FuzzDocument: TableCodable {
    var id: Int
    var title: String
    var body: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = FuzzDocument
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

struct FuzzDocumentIndex: TableCodable {
    var title: String
    var body: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = FuzzDocumentIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? { VirtualTableBinding(with: .fts5) }
    }
}
