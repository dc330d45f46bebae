import CSQLite

/// The small questions suggestions ask an index: which rows (at most a few) an expression matches, each with
/// its columns marked where the expression matched, and how a document writes a term.
///
/// Every question is one `MATCH ... LIMIT n` statement without ranking, so FTS5 stops at the n-th row in rowid
/// order: a check that a word leads to hits costs a few page reads, not a scored search. The marks come from
/// FTS5's `highlight()`, computed only for the rows returned.
struct IndexProbe {
    let info: FTSTableInfo
    let tokenizer: TokenizerInstance
    let handle: Handle

    /// Marks around matched words: control characters no document or tokenizer treats as part of a word.
    private static let open = "\u{2}", close = "\u{3}"

    /// The columns of one row, marked or not; nil for a column without text (an index without content).
    typealias MarkedRow = [String?]

    /// The rows `expression` matches, at most `limit`, in rowid order, with their columns: marked where the
    /// expression matched when `marked`, else as stored.
    func rows(matching expression: FTS5Expression, limit: Int, marked: Bool = true) throws -> [MarkedRow] {
        let index = SQLBuilder.quote(info.name)
        let columns = info.columns.indices.map { marked ? "highlight(\(index), \($0), ?1, ?2)" : SQLBuilder.quote(info.columns[$0]) }
        let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(index) WHERE \(index) MATCH ?3 LIMIT ?4"
        return try handle.withStatement(sql) { stmt in
            // ?1 and ?2 are bound whether the statement uses them or not (SQLite numbers every parameter up to ?4).
            try handle.bind([FundamentalValue(Self.open), FundamentalValue(Self.close), FundamentalValue(expression.rendered),
                             FundamentalValue(max(0, limit))], to: stmt, sql: sql)
            var rows: [MarkedRow] = []
            while try handle.step(stmt) {
                rows.append(columns.indices.map { column in
                    sqlite3_column_type(stmt, Int32(column)) == SQLITE_NULL ? nil : RawStatement.text(stmt, Int32(column))
                })
            }
            return rows
        }
    }

    /// The first row `expression` matches, marked, or nil when it matches none.
    func firstRow(matching expression: FTS5Expression) throws -> MarkedRow? {
        try rows(matching: expression, limit: 1).first
    }

    /// The marked words of a row, in column order.
    static func markedWords(_ row: MarkedRow) -> [Substring] {
        var words: [Substring] = []
        for case let column? in row {
            var rest = column[...]
            while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
                words.append(rest[start.upperBound..<end.lowerBound])
                rest = rest[end.upperBound...]
            }
        }
        return words
    }

    /// How `row` writes `term`: the first marked word whose query token is the term (or, with `isPrefix`, begins
    /// with it), lower-cased with `lowercased`; nil when no marked word is.
    func writtenForm(of term: String, in row: MarkedRow, isPrefix: Bool = false, lowercased: Bool) throws -> String? {
        for word in Self.markedWords(row) {
            guard let token = try tokenizer.queryToken(of: String(word)) else { continue }
            if token == term || (isPrefix && token.unicodeScalars.starts(with: term.unicodeScalars)) {
                return lowercased ? word.lowercased() : String(word)
            }
        }
        return nil
    }

    /// The expression that finds `term` as written (a string), or every term beginning with it when a query of
    /// the term would find another (a stemmer's form that stems again): then it is a prefix.
    func expression(finding term: String) throws -> (expression: FTS5Expression, isPrefix: Bool) {
        try tokenizer.queryToken(of: term) == term ? (.string(term), false) : (.prefix(term), true)
    }
}

/// The work suggestions or a correction may spend on `LIMIT 1` checks, in postings FTS5 reads, so that a query
/// whose candidates mostly fail (words before that are rare, candidates that never meet them) stays within a few
/// milliseconds and returns what it found by then.
///
/// A check that finds a row costs ``perCheck`` (FTS5 stops at its first row); one that finds none costs that
/// plus the rows of its rarest word, every one of which FTS5 looked up in the other words' postings to learn it.
/// Reading a row's text and tokenizing it costs ``rowRead(tokens:)``. Measured at a million rows of 35 words
/// (`sift-bench suggest`, unicode61): about 0.5 µs a posting, a check some 50 µs beside its postings, a row read
/// some 7 µs; the budget is then about 3 ms.
struct CheckBudget {
    /// The postings all checks may read together.
    static let postings = 6_000
    /// The cost of one check beside the postings it reads.
    static let perCheck = 100
    /// The cost of reading one row of `tokens` tokens (the index's average) and tokenizing it: 4 postings and
    /// one for every 4 tokens.
    static func rowRead(tokens: Double) -> Int { 4 + Int(min(1e9, max(0, tokens)) / 4) }

    private(set) var remaining = CheckBudget.postings

    /// Whether no more checks may run.
    var isSpent: Bool { remaining <= 0 }

    /// Charges one check that found a row or not, `smallest` being the rows of its rarest word, and returns the
    /// cost.
    @discardableResult
    mutating func charge(found: Bool, smallest: Int64) -> Int {
        let cost = Self.perCheck + (found ? 0 : Int(clamping: max(0, smallest)))
        remaining -= cost
        return cost
    }
}
