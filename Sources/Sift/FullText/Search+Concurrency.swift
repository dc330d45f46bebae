extension Database {
    /// ``search(_:in:of:where:options:)`` on one of Sift's threads, without blocking the caller (see
    /// ``read(_:)``): from an actor or the main actor.
    ///
    ///     let results: SearchResults<Article> = try await database.search(SearchQuery("sqlite"), in: "articles_fts")
    public func search<Object: TableDecodable & Sendable>(_ query: SearchQuery, in index: String,
                                                          of type: Object.Type = Object.self,
                                                          where condition: Condition? = nil,
                                                          options: SearchOptions = SearchOptions()) async throws
        -> SearchResults<Object> {
        try await perform { try self.search(query, in: index, of: type, where: condition, options: options) }
    }

    /// Searches with user text, without blocking the caller: `try await database.search("quick fox", in: "notes")`.
    public func search<Object: TableDecodable & Sendable>(_ text: String, mode: SearchQuery.Mode = .allTerms,
                                                          in index: String, of type: Object.Type = Object.self,
                                                          where condition: Condition? = nil,
                                                          options: SearchOptions = SearchOptions()) async throws
        -> SearchResults<Object> {
        try await search(SearchQuery(text, mode: mode), in: index, of: type, where: condition, options: options)
    }

    /// Observes a search: its results first, then fresh results after each committed transaction that wrote the
    /// index or its content table (see ``DatabaseObservation``).
    ///
    ///     for try await results in database.observeSearch(SearchQuery("coffee"), in: "notes_fts", of: Note.self) {
    ///         print(results.hits.map(\.object.title))
    ///     }
    public func observeSearch<Object: TableDecodable & Sendable>(_ query: SearchQuery, in index: String,
                                                                 of type: Object.Type = Object.self,
                                                                 where condition: Condition? = nil,
                                                                 options: SearchOptions = SearchOptions())
        -> DatabaseObservation<SearchResults<Object>> {
        observe(region: { db in
            // The index itself (written directly, or by trigger sync) and its content table (Sift's sync writes the
            // index with statements of its own, so the content table's writes stand for both).
            let info = try db.read { handle in try db.ftsInfo(index, on: handle) }
            // The synonym list too: a change to it changes the results.
            return [info.name, SynonymStore.table] + (info.content.map { [$0.table] } ?? [])
        }, fetch: { db in
            try db.search(query, in: index, of: type, where: condition, options: options)
        })
    }
}
