extension Database {
    /// Observes the value `fetch` reads, refetched after each committed transaction that wrote one of `tables`
    /// (the tables `fetch` reads; names as in the schema, any case). See ``DatabaseObservation``.
    ///
    ///     for try await samples in database.observe(tables: ["sampleTable"], fetch: { db -> [Sample] in
    ///         try db.getObjects(fromTable: "sampleTable")
    ///     }) {
    ///         print(samples.count)
    ///     }
    public func observe<Value: Sendable>(tables: [String],
                                         fetch: @escaping @Sendable (Database) throws -> Value) -> DatabaseObservation<Value> {
        DatabaseObservation(database: self, region: { _ in tables }, fetch: fetch)
    }

    /// An observation whose tables are found on first fetch (a layer above knows them only from the schema).
    func observe<Value: Sendable>(region: @escaping @Sendable (Database) throws -> [String],
                                  fetch: @escaping @Sendable (Database) throws -> Value) -> DatabaseObservation<Value> {
        DatabaseObservation(database: self, region: region, fetch: fetch)
    }
}
