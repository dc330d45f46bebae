/// An FTS5 query as a tree, so that a query's structure is fixed before any text is put into it.
///
/// User text only ever enters as the payload of a string (or of a column name), and ``rendered`` writes every
/// payload as an FTS5 string through `SQLBuilder.enclose`, which doubles quotes byte by byte. Whatever the text
/// holds (quotes, combining marks, `OR`, `:`, `NEAR(`, parentheses, NUL), it stays inside its string: the
/// rendered expression always has exactly the operators of the tree.
indirect enum FTS5Expression: Hashable, Sendable {
    /// One FTS5 string: the index's tokenizer turns it into a phrase.
    case string(String)
    /// A string whose last token matches as a prefix (`"text"*`).
    case prefix(String)
    /// Every operand must match (FTS5's implicit AND).
    case all([FTS5Expression])
    /// Any operand may match.
    case any([FTS5Expression])
    /// Rows matching the first operand and not the second.
    case excluding(FTS5Expression, FTS5Expression)
    /// The strings within `distance` tokens of each other.
    case near([String], distance: Int)
    /// The operand, matched in these columns only.
    case columns([String], FTS5Expression)
    /// FTS5 syntax from a trusted caller (``SearchQuery/advanced(_:)``), passed through as written.
    case trusted(String)

    /// The expression in FTS5's query syntax.
    var rendered: String {
        switch self {
        case .columns, .excluding, .trusted: return bare
        default: return operand
        }
    }

    /// How many phrases FTS5 numbers in the expression (each string and prefix is one, excluded ones too), or
    /// nil when it holds trusted syntax Sift does not parse.
    var phraseCount: Int? {
        switch self {
        case .string, .prefix: return 1
        case .all(let operands), .any(let operands):
            return operands.reduce(0 as Int?) { total, operand in total.flatMap { total in operand.phraseCount.map { total + $0 } } }
        case .excluding(let kept, let excluded): return kept.phraseCount.flatMap { kept in excluded.phraseCount.map { kept + $0 } }
        case .near(let strings, _): return strings.count
        case .columns(_, let operand): return operand.phraseCount
        case .trusted: return nil
        }
    }

    /// The node without surrounding parentheses.
    private var bare: String {
        switch self {
        case .string(let text): return FTS5Expression.quote(text)
        case .prefix(let text): return FTS5Expression.quote(text) + "*"
        case .all(let operands):
            // FTS5 joins phrases by juxtaposition (implicit AND) but a parenthesized group only by an explicit AND.
            let phrasesOnly = operands.allSatisfy { if case .string = $0 { true } else if case .prefix = $0 { true } else { false } }
            return operands.map(\.operand).joined(separator: phrasesOnly ? " " : " AND ")
        case .any(let operands): return operands.map(\.operand).joined(separator: " OR ")
        case .excluding(let kept, let excluded): return kept.operand + " NOT " + excluded.operand
        case .near(let strings, let distance):
            return "NEAR(" + strings.map(FTS5Expression.quote).joined(separator: " ") + ", \(max(0, distance)))"
        case .columns(let names, let operand):
            return "{" + names.map(FTS5Expression.quote).joined(separator: " ") + "} : " + operand.operand
        case .trusted(let text): return text
        }
    }

    /// The node as the operand of another: strings stand alone, everything else is parenthesized.
    private var operand: String {
        switch self {
        case .string, .prefix: return bare
        default: return "(" + bare + ")"
        }
    }

    /// An FTS5 string: everything inside is text.
    static func quote(_ text: String) -> String {
        SQLBuilder.enclose(text, in: UInt8(ascii: "\""))
    }
}
