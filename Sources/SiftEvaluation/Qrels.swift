import Foundation

/// Relevance judgments: query ID → document ID → grade. As in trec_eval, a grade of at least
/// `relevanceThreshold` is relevant, 0 is judged non-relevant, and a negative grade counts as not
/// judged at all; graded collections (Cranfield) use the grade itself as the nDCG gain.
public struct Qrels: Sendable, Hashable {
    /// trec_eval's default `relevance_level`; pytrec_eval and BEIR use it too.
    public static let relevanceThreshold = 1

    /// Query ID → document ID → grade, as read; queries without any relevant document are kept.
    public var judgments: [String: [String: Int]]

    /// Wraps judgments built in memory.
    public init(_ judgments: [String: [String: Int]] = [:]) {
        self.judgments = judgments
    }

    /// The judgments for one query; empty when it has none.
    public subscript(queryID: String) -> [String: Int] {
        judgments[queryID] ?? [:]
    }

    /// How many documents are relevant to the query: the denominator of recall and average precision.
    public func relevantCount(for queryID: String) -> Int {
        judgments[queryID]?.values.reduce(0) { $0 + ($1 >= Self.relevanceThreshold ? 1 : 0) } ?? 0
    }

    /// Queries with at least one relevant document, in `sortedQueryIDs` order. These are the
    /// queries averages run over; a query with only non-relevant judgments cannot score anything.
    public var judgedQueryIDs: [String] {
        sortedQueryIDs(judgments.keys.filter { relevantCount(for: $0) > 0 })
    }

    /// The number of (query, document) judgments.
    public var count: Int {
        judgments.values.reduce(0) { $0 + $1.count }
    }

    /// Reads judgments from a file with one `query-id<TAB>corpus-id<TAB>grade` a line (BEIR), after an
    /// optional header line; TREC's `query-id 0 doc-id grade` is accepted too. A repeated pair keeps its last grade.
    public init(contentsOf url: URL, policy: MalformedLinePolicy = .strict) throws {
        let reader = try LineReader(url: url, policy: policy)
        var judgments: [String: [String: Int]] = [:]
        var sawRecord = false
        while let (number, text) = try reader.nextLine() {
            if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            var fields = text.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count != 3 {
                fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            }
            let gradeField: Substring? = fields.count == 3 || fields.count == 4 ? fields.last : nil
            guard let gradeField, let grade = Int(gradeField.trimmingCharacters(in: .whitespaces)) else {
                if !sawRecord, fields.count == 3 {   // the header
                    sawRecord = true
                    continue
                }
                let detail = "expected query-id<TAB>corpus-id<TAB>integer grade, got \(fields.count) field(s): \(text.prefix(200))"
                try policy.handle(InputError(.malformedRecord(detail), line: number, path: url.path))
                continue
            }
            sawRecord = true
            let queryID = fields[0].trimmingCharacters(in: .whitespaces)
            let documentID = fields[fields.count == 4 ? 2 : 1].trimmingCharacters(in: .whitespaces)
            guard !queryID.isEmpty, !documentID.isEmpty else {
                try policy.handle(InputError(.malformedRecord("empty query or document ID"), line: number, path: url.path))
                continue
            }
            judgments[queryID, default: [:]][documentID] = grade
        }
        self.judgments = judgments
    }
}

/// Numeric IDs in numeric order ("2" before "10"), then the rest by their UTF-8 bytes: reports read
/// naturally for the classic collections and stay deterministic for everything else.
func sortedQueryIDs<S: Sequence>(_ ids: S) -> [String] where S.Element == String {
    ids.sorted { a, b in
        switch (Int(a), Int(b)) {
        case let (x?, y?): return x != y ? x < y : a.utf8.lexicographicallyPrecedes(b.utf8)
        case (_?, nil): return true
        case (nil, _?): return false
        case (nil, nil): return a.utf8.lexicographicallyPrecedes(b.utf8)
        }
    }
}
