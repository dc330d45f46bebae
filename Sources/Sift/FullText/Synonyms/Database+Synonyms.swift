import CSQLite

extension Database {
    /// Adds synonym rules to a full-text index's list, in one write transaction; rules already in it stay once.
    ///
    /// The list is kept in the database (table `sift_synonyms`) and applied when a query is built, so the next search
    /// uses it: nothing is reindexed. Searches expand every word of `.allTerms`, `.anyTerm` and `.prefix` queries,
    /// and a `.phrase` query equal to an entry (see ``SearchOptions/usesSynonyms``).
    ///
    ///     try database.addSynonyms([.equivalent(["car", "automobile", "auto"]),
    ///                               .oneWay(from: ["nyc"], to: ["new york city"])], to: "articles_fts")
    ///     try database.search("nyc", in: "articles_fts")   // also finds "New York City", ranked below "NYC"
    ///
    /// - Throws: ``SiftError`` when `index` is not an FTS5 table; with code `.misuse` when a rule is invalid (see
    ///   ``SynonymRule/canonical()``), an entry holds no word the index's tokenizer keeps (`"!!!"`), or the index
    ///   would hold more than 100,000 rules. Nothing is added then.
    public func addSynonyms(_ rules: [SynonymRule], to index: String) throws {
        try write { handle in
            let (name, canonical) = try checkedSynonyms(rules, index, on: handle)
            try SynonymStore.add(canonical, to: name, on: handle)
        }
    }

    /// Removes synonym rules from a full-text index's list (each as added, in any order of its entries), in one write
    /// transaction; returns how many were in the list.
    ///
    ///     try database.removeSynonyms([.oneWay(from: ["nyc"], to: ["new york city"])], from: "articles_fts")
    ///
    /// - Throws: ``SiftError`` when `index` is not an FTS5 table or a rule is invalid.
    @discardableResult
    public func removeSynonyms(_ rules: [SynonymRule], from index: String) throws -> Int {
        try write { handle in
            let name = try ftsInfo(index, on: handle).name
            return try SynonymStore.remove(try rules.map { try $0.canonical() }, from: name, on: handle)
        }
    }

    /// Replaces a full-text index's whole synonym list with `rules` (empty: none), in one write transaction.
    ///
    ///     try database.replaceSynonyms(in: "articles_fts", with: SynonymRule.solrRules(fileText))
    ///
    /// - Throws: as ``addSynonyms(_:to:)``; the list is unchanged then.
    public func replaceSynonyms(in index: String, with rules: [SynonymRule]) throws {
        try write { handle in
            let (name, canonical) = try checkedSynonyms(rules, index, on: handle)
            try SynonymStore.removeEveryRule(from: name, on: handle)
            if !canonical.isEmpty { try SynonymStore.add(canonical, to: name, on: handle) }
        }
    }

    /// A full-text index's synonym rules in canonical form, sorted by their lines (``SynonymRule/description``).
    ///
    ///     for rule in try database.synonyms(in: "articles_fts") { print(rule) }   // "car, automobile, auto" ...
    ///
    /// - Throws: ``SiftError`` when `index` is not an FTS5 table or the database cannot be read.
    public func synonyms(in index: String) throws -> [SynonymRule] {
        try read { handle in
            try SynonymStore.rules(of: try ftsInfo(index, on: handle).name, on: handle)
        }
    }

    /// The index's name and `rules` in canonical form, each entry checked to hold a token of the index's tokenizer.
    private func checkedSynonyms(_ rules: [SynonymRule], _ index: String, on handle: Handle) throws
        -> (index: String, rules: [SynonymRule]) {
        let info = try ftsInfo(index, on: handle)
        let tokenizer = try handle.tokenizer(info.tokenizer)
        return (info.name, try rules.map { rule in
            let canonical = try rule.canonical()
            for entry in canonical.allEntries where try tokenizer.queryTokens(of: entry).isEmpty {
                throw SynonymRule.invalid("The synonym entry \(entry.debugDescription) holds no word \(index)'s tokenizer keeps.")
            }
            return canonical
        })
    }

    /// Finds the synonyms of a query's words on the index `info`, or nil when its list is empty. The normalized list is
    /// kept per index and generation, except inside a write transaction (which may yet roll back).
    func synonymFinder(_ info: FTSTableInfo, _ tokenizer: TokenizerInstance, on handle: Handle) throws -> SynonymSet.Finder? {
        let generation = try SynonymStore.generation(of: info.name, on: handle)
        guard generation > 0 else { return nil }
        let cache = pool.attachment(FullTextSettings.init).synonymSets
        let set: SynonymSet
        if let kept = cache.withLock({ $0[info.name] }), kept.generation == generation, kept.tokenizer == info.tokenizer {
            set = kept.set
        } else {
            set = try SynonymSet(try SynonymStore.rules(of: info.name, on: handle), tokenize: tokenizer.queryTokens)
            if sqlite3_txn_state(handle.raw, "main") != SQLITE_TXN_WRITE {
                cache.withLock { $0[info.name] = (generation, info.tokenizer, set) }
            }
        }
        guard !set.isEmpty else { return nil }
        return { segments in try set.matches(in: segments, tokenizer.queryTokens) }
    }
}
