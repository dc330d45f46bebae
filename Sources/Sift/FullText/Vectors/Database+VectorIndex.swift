extension Database {
    /// Creates a vector index over `contentTable`'s embedding column and records it in the database, so every later
    /// `Database` on this file keeps it exact: each insert, update, delete, REPLACE and bulk insert through Sift
    /// writes it in the row's transaction, a migration step of the table rebuilds it, and recovery rebuilds it.
    /// Rows already in the table are indexed. The column holds each row's ``Embedding`` (NULL: the row has none). A
    /// vector of the wrong dimension, or holding NaN or an infinity (or, under cosine, all zeros), is refused: its
    /// statement fails with a ``SiftError`` whose ``SiftError/vectorFailure`` says why, and the row is not written.
    /// An index that exists with the same declaration is kept as it is; with another one it is made anew.
    ///
    ///     try database.create(table: "articles", of: Article.self)
    ///     try database.create(vectorIndex: "articles_vectors",
    ///                         with: VectorIndexBinding(column: "embedding", dimension: 384, metric: .cosine),
    ///                         syncedWith: "articles")
    ///
    /// - Throws: ``SiftError`` when the table or column does not exist, the dimension is out of range (1 to
    ///   ``VectorIndexBinding/maximumDimension``), the name is taken by another table, or a row's vector is refused.
    public func create(vectorIndex name: String, with binding: VectorIndexBinding, syncedWith contentTable: String) throws {
        try write { handle in
            guard (1...VectorIndexBinding.maximumDimension).contains(binding.dimension) else {
                throw pool.report(SiftError.misuse("A vector index takes 1 to \(VectorIndexBinding.maximumDimension) dimensions, "
                                                   + "not \(binding.dimension).", operation: .schema))
            }
            guard !name.isEmpty, try handle.schemaType(of: name) == nil else {
                throw pool.report(SiftError.misuse("The name \"\(name)\" is taken (or empty): a vector index needs its own.",
                                                   operation: .schema))
            }
            guard try handle.schemaType(of: contentTable) == "table" else {
                throw pool.report(SiftError(code: .error, message: "The content table \(contentTable) does not exist.",
                                            path: path, tag: tag, operation: .schema))
            }
            guard try handle.columnNames(of: contentTable).contains(binding.column) else {
                throw pool.report(SiftError(code: .error, message: "\(contentTable) has no column \(binding.column) to index.",
                                            path: path, tag: tag, operation: .schema))
            }
            let index = VectorIndex(name: name, content: contentTable, rowidColumn: try handle.integerPrimaryKey(of: contentTable) ?? "rowid",
                                    column: binding.column, dimension: binding.dimension, metric: binding.metric,
                                    quantization: binding.quantization, blockRows: VectorIndex.defaultBlockRows)
            let recorded = try VectorIndex.load(name, on: handle)
            if recorded == index { return }
            // The derived tables' names must not be the application's tables (making them drops what is there).
            if recorded == nil, let taken = try index.tables.first(where: { try handle.schemaType(of: $0) != nil }) {
                throw pool.report(SiftError.misuse("The table \(taken) exists: the vector index \(name) needs that name.",
                                                   operation: .schema))
            }
            let store = VectorStore(index, on: handle)
            try store.create()
            do {
                try store.rebuild(strict: true)
            } catch let error as SiftError {
                throw pool.report(error)
            }
        }
    }

    /// Drops a vector index: its derived tables and its record (the content table and its embeddings stay).
    public func drop(vectorIndex name: String) throws {
        try write { handle in try VectorStore.drop(name, on: handle) }
    }

    /// Rebuilds a vector index from its content table's rows, in one transaction: after damage, or after rows were
    /// written by a program that is not Sift. A row whose vector the index refuses is left out (searches never see
    /// it); ``verify(vectorIndex:)`` counts them.
    public func rebuild(vectorIndex name: String) throws {
        try write { handle in
            let index = try recordedVectorIndex(name, on: handle)
            try VectorStore(index, on: handle).rebuild(strict: false)
        }
    }

    /// Checks a vector index against its content rows: every block's counts and checksums, and every row's vector
    /// (present, in its recorded slot, with the same values); nothing is changed. Empty when the index is exact.
    ///
    ///     let problems = try database.verify(vectorIndex: "articles_vectors")
    ///     if !problems.isEmpty { try database.rebuild(vectorIndex: "articles_vectors") }
    public func verify(vectorIndex name: String) throws -> [String] {
        try read { handle in
            let index = try recordedVectorIndex(name, on: handle)
            return try handle.inSnapshot { try VectorStore(index, on: handle).problems() }
        }
    }

    /// The vector indexes recorded in this database, with their declarations.
    public func vectorIndexes() throws -> [(index: String, contentTable: String, binding: VectorIndexBinding)] {
        try read { handle in
            try VectorIndex.load(on: handle).map {
                ($0.name, $0.content, VectorIndexBinding(column: $0.column, dimension: $0.dimension, metric: $0.metric,
                                                         quantization: $0.quantization))
            }
        }
    }

    func recordedVectorIndex(_ name: String, on handle: Handle) throws -> VectorIndex {
        guard let index = try VectorIndex.load(name, on: handle) else {
            throw pool.report(SiftError.misuse("There is no vector index named \(name).", operation: .query))
        }
        return index
    }
}
