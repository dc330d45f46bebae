/// A completion of what a person is typing in a search box: the query with its last word completed.
///
///     for suggestion in try database.suggestions(for: "sqlite se", in: "articles_fts") {
///         print(suggestion.text, suggestion.rowCount)  // "sqlite search" 120, "sqlite segment" 14, ...
///     }
public struct Suggestion: Sendable, Hashable {
    /// The whole query to put in the search box: the text before the last word as it was typed, then ``word``.
    public let text: String
    /// The completed last word, as a document holding it writes it (lower-cased when the typed part has no
    /// upper-case letter): on an index that stems, the word a person would type, not the stem the index keeps.
    public let word: String
    /// How many rows of the index hold the word (its document frequency): completions come most frequent first.
    public let rowCount: Int
    /// The typos forgiven in the typed part of the word: 0 for a completion of the word as typed, 1 or 2 for a
    /// typo-tolerant one (offered only when the word as typed completes to nothing).
    public let typos: Int

    /// A suggestion: `text` for the search box, its completed `word`, the rows holding it and the typos forgiven.
    public init(text: String, word: String, rowCount: Int, typos: Int = 0) {
        self.text = text
        self.word = word
        self.rowCount = rowCount
        self.typos = typos
    }
}
