/// The SQL of one full-text search: the one place it is rendered.
///
/// It selects the content table's columns (or the index's own, without external content), the rowid, the
/// rank, highlighted columns and snippets, from the index joined with its content table; filters by `MATCH`
/// (the expression is always a bound value), by a rank function (`rank MATCH 'bm25(...)'` or
/// `rank MATCH 'sift_rank(...)'`, which keeps FTS5's own `ORDER BY rank`) and by an optional condition; and
/// orders by rank with a limit and an offset. With `countsOnly` it renders `SELECT count(*)` over the same rows.
///
///     SearchStatement(index: "notes_fts", columns: ["id", "body"], expression: "(\"coffee\")", limit: 20).description
///     // SELECT notes_fts.id, notes_fts.body, notes_fts.rowid, notes_fts.rank FROM notes_fts
///     //   WHERE notes_fts MATCH '("coffee")' ORDER BY notes_fts.rank LIMIT 20 OFFSET 0
struct SearchStatement: RenderedStatement {
    /// A column returned with the matched words marked (`highlight()`), by its position in the index.
    struct Highlight: Hashable {
        let column: Int
        let open: String
        let close: String
    }
    /// A fragment of a column around the matched words (`sift_snippet()`), by its position in the index.
    struct Snippet: Hashable {
        let column: Int
        let open: String
        let close: String
        let ellipsis: String
        /// The fragment's length in characters, 1 to 100,000 (clamped).
        let characters: Int
    }

    /// The rank function in place of FTS5's default (`bm25()`, every column weighing 1).
    enum Rank: Hashable {
        /// FTS5's `bm25()` with a weight per index column, in the index's column order.
        case bm25(weights: [Double])
        /// Sift's `sift_rank()` (see `sift_rank.h`) with a weight per index column, in the index's column order,
        /// and per phrase of the expression, in FTS5's phrase order, passed as one text (nil: every phrase weighs 1).
        /// With `counts` (one per phrase, with phrase weights), `sift_rank_df()`: the phrases' rows are not counted.
        case siftRank(k1: Double, b: Double, weights: [Double], phraseWeights: [Double]?, counts: [PhraseStatistics.Counts]? = nil)
        /// Sift's `sift_inb2()`, with the same weights as `siftRank` (and `sift_inb2_df()` with `counts`).
        case siftInB2(c: Double, weights: [Double], phraseWeights: [Double]?, counts: [PhraseStatistics.Counts]? = nil)

        /// A phrase weight as sift_rank reads it: a plain decimal, never an exponent (`2`, `0.0833333333`); 0 for a
        /// negative or non-finite value.
        static func decimal(_ value: Double) -> String {
            guard value.isFinite, value > 0 else { return "0" }
            if value == value.rounded(), value < 1e15 { return String(Int64(value)) }
            var text = String(format: "%.10f", value)
            while text.hasSuffix("0") { text.removeLast() }
            return text.hasSuffix(".") ? String(text.dropLast()) : text
        }

        /// The function call FTS5 evaluates (its arguments as SQL literals), bound as a value.
        var call: String {
            func number(_ value: Double, _ fallback: Double) -> String { String(value.isFinite ? value : fallback) }
            switch self {
            case .bm25(let weights):
                return "bm25(" + weights.map { number($0, 1) }.joined(separator: ", ") + ")"
            case .siftRank(let k1, let b, let weights, let phraseWeights, let counts):
                return Self.call("sift_rank", [number(k1, Ranking.defaultK1), number(b, Ranking.defaultB)], weights, phraseWeights, counts)
            case .siftInB2(let c, let weights, let phraseWeights, let counts):
                return Self.call("sift_inb2", [number(c, Ranking.defaultC)], weights, phraseWeights, counts)
            }
        }

        /// The pruned search's scoring call on `index` (sift_topk.h): `sift_topk(index, k1, b, ...)` for `siftRank`,
        /// `sift_topk_inb2(index, c, ...)` for `siftInB2`, with the rank function's weights, phrase weights and
        /// counts (rows, and for InB2 instances), after `ignored` leading phrases that weigh nothing (counted '-'),
        /// and the collector as the last argument, a parameter (`sift_topk_bind`). Nil for `bm25` or without counts
        /// for every phrase.
        ///
        ///     Rank.siftRank(k1: 1.2, b: 0.75, weights: [1, 1], phraseWeights: [1], counts: [.init(rows: 9, instances: 12)])
        ///         .topKCall(on: "notes_fts", ignoring: 0)
        ///     // sift_topk("notes_fts", 1.2, 0.75, 2, 1.0, 1.0, '1', '9', 0, ?)
        func topKCall(on index: String, ignoring ignored: Int) -> String? {
            func number(_ value: Double, _ fallback: Double) -> String { String(value.isFinite ? value : fallback) }
            let function: String, parameters: [String], weights: [Double], phraseWeights: [Double]?, counts: [String]?
            switch self {
            case .bm25: return nil
            case .siftRank(let k1, let b, let w, let p, let c):
                (function, parameters, weights, phraseWeights) = ("sift_topk", [number(k1, Ranking.defaultK1), number(b, Ranking.defaultB)], w, p)
                counts = c?.map { String($0.rows) }
            case .siftInB2(let c, let w, let p, let n):
                (function, parameters, weights, phraseWeights) = ("sift_topk_inb2", [number(c, Ranking.defaultC)], w, p)
                counts = n?.map { "\($0.rows)/\($0.instances)" }
            }
            guard let phraseWeights, let counts, counts.count == phraseWeights.count else { return nil }
            let arguments = [SQLBuilder.quote(index)] + parameters + [String(weights.count)] + weights.map { number($0, 1) }
                + ["'" + (Array(repeating: "0", count: ignored) + phraseWeights.map(Self.decimal)).joined(separator: " ") + "'",
                   "'" + (Array(repeating: "-", count: ignored) + counts).joined(separator: " ") + "'", String(ignored), "?"]
            return function + "(" + arguments.joined(separator: ", ") + ")"
        }

        /// `function(parameters, ncolumns, weights[, 'phrase weights'])`, or `function_df(..., 'phrase weights',
        /// 'n/F ...')` with counts for every phrase. The phrase weights are one text ('2 1 0'): a query can have more
        /// phrases than SQLite's 127 arguments.
        private static func call(_ function: String, _ parameters: [String], _ weights: [Double], _ phraseWeights: [Double]?,
                                 _ counts: [PhraseStatistics.Counts]?) -> String {
            let phrases = phraseWeights.map { "'" + $0.map(Self.decimal).joined(separator: " ") + "'" }
            var arguments = parameters + [String(weights.count)] + weights.map { String($0.isFinite ? $0 : 1) } + (phrases.map { [$0] } ?? [])
            guard let phraseWeights, let counts, counts.count == phraseWeights.count else {
                return function + "(" + arguments.joined(separator: ", ") + ")"
            }
            arguments.append("'" + counts.map { "\($0.rows)/\($0.instances)" }.joined(separator: " ") + "'")
            return function + "_df(" + arguments.joined(separator: ", ") + ")"
        }
    }

    var index: String
    /// The external content table and its rowid column, when the index has one.
    var content: (table: String, rowid: String)?
    /// The columns selected from the content table (or from the index without one).
    var columns: [String]
    /// The FTS5 expression, bound as a value.
    var expression: String
    var highlights: [Highlight] = []
    var snippets: [Snippet] = []
    /// The rank function; nil for FTS5's default ranking.
    var rank: Rank?
    var condition: SQLExpression?
    var limit = 20
    var offset = 0
    /// Renders `SELECT count(*)` of the matching rows instead.
    var countsOnly = false
    /// What to select instead of the hits (nil: the hits): the matching rows' rowids, or a column of the source
    /// and how many matching rows hold each of its values (`GROUP BY`), for facet counts.
    var aggregate: Aggregate?

    enum Aggregate: Hashable {
        case rowids
        case groupCounts(column: String)
    }
    /// Renders only the row with this rowid (bound last), without the rank column, rank function, condition,
    /// order or limit: the object and markup of a hit whose score the caller computed (a pruned search). FTS5's
    /// rank would count every matching row to compute one score. Without highlights or snippets, the row is read
    /// from the content table alone (the expression is not bound).
    var rowid: Int64?

    init(index: String, content: (table: String, rowid: String)? = nil, columns: [String], expression: String,
         limit: Int = 20, offset: Int = 0) {
        self.index = index
        self.content = content
        self.columns = columns
        self.expression = expression
        self.limit = limit
        self.offset = offset
    }

    /// The table the selected columns and the condition's unqualified columns come from.
    var source: String { content?.table ?? index }

    func render(into builder: inout SQLBuilder) {
        let q = SQLBuilder.quote, index = q(self.index)
        // One row without markup: the content table's row alone. FTS5 would seek every phrase's rows to that rowid
        // (at 1,000,000 rows, 20 such rows of a frequent pair took 0.9-1.6 ms against 0.1-0.2 ms).
        if let rowid, let content, highlights.isEmpty, snippets.isEmpty, !countsOnly {
            let table = q(content.table), key = table + "." + q(content.rowid)
            builder.append("SELECT " + (columns.map { table + "." + q($0) } + [key]).joined(separator: ", "))
            builder.append(" FROM \(table) WHERE \(key) = ")
            builder.appendValue(FundamentalValue(rowid))
            return
        }
        if countsOnly {
            builder.append("SELECT count(*)")
        } else if let aggregate {
            switch aggregate {
            case .rowids: builder.append("SELECT \(index).rowid")
            case .groupCounts(let column): builder.append("SELECT \(q(source)).\(q(column)), count(*)")
            }
        } else {
            builder.append("SELECT ")
            builder.append(columns.map { q(source) + "." + q($0) }.joined(separator: ", "))
            builder.append(", \(index).rowid" + (rowid == nil ? ", \(index).rank" : ""))
            // The markers and the ellipsis are bound values: they are the caller's text.
            func call(_ function: String, _ column: Int, _ texts: [String], _ tail: String = "") {
                builder.append(", \(function)(\(index), \(column)")
                for text in texts {
                    builder.append(", ")
                    builder.appendValue(FundamentalValue(text))
                }
                builder.append(tail + ")")
            }
            for highlight in highlights { call("highlight", highlight.column, [highlight.open, highlight.close]) }
            for snippet in snippets {
                call("sift_snippet", snippet.column, [snippet.open, snippet.close, snippet.ellipsis],
                     ", \(min(100_000, max(1, snippet.characters)))")
            }
        }
        builder.append(" FROM \(index)")
        // The matching rowids alone need no content row, unless a condition reads one.
        if let content, aggregate != .rowids || condition != nil {
            builder.append(" JOIN \(q(content.table)) ON \(q(content.table)).\(q(content.rowid)) = \(index).rowid")
        }
        builder.append(" WHERE \(index) MATCH ")
        builder.appendValue(FundamentalValue(expression))
        if let rowid {
            builder.append(" AND \(index).rowid = ")
            builder.appendValue(FundamentalValue(rowid))
            return
        }
        if let rank {
            builder.append(" AND \(index).rank MATCH ")
            builder.appendValue(FundamentalValue(rank.call))
        }
        if let condition {
            builder.append(" AND (")
            var filter = SQLBuilder(inlineValues: builder.inlineValues, defaultTable: source)
            condition.render(into: &filter)
            builder.append(filter.sql)
            builder.values += filter.values
            builder.append(")")
        }
        if case .groupCounts = aggregate { builder.append(" GROUP BY 1") }
        guard !countsOnly, aggregate == nil else { return }
        builder.append(" ORDER BY \(index).rank LIMIT ")
        builder.appendValue(FundamentalValue(max(0, limit)))
        builder.append(" OFFSET ")
        builder.appendValue(FundamentalValue(max(0, offset)))
    }
}
