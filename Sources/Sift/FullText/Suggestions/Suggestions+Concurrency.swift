extension Database {
    /// ``suggestions(for:in:limit:typoTolerance:)`` on one of Sift's threads, without blocking the caller (see
    /// ``read(_:)``): from the main actor, as each keystroke arrives.
    ///
    ///     let suggestions = try await database.suggestions(for: searchText, in: "articles_fts")
    public func suggestions(for text: String, in index: String, limit: Int = 10,
                            typoTolerance: TypoTolerance = .default) async throws -> [Suggestion] {
        try await perform { try self.suggestions(for: text, in: index, limit: limit, typoTolerance: typoTolerance) }
    }

    /// ``correction(for:in:typoTolerance:)`` on one of Sift's threads, without blocking the caller.
    ///
    ///     let corrected = try await database.correction(for: "aeroelastc", in: "articles_fts")  // "aeroelastic"
    public func correction(for text: String, in index: String, typoTolerance: TypoTolerance = .default) async throws -> String? {
        try await perform { try self.correction(for: text, in: index, typoTolerance: typoTolerance) }
    }
}
