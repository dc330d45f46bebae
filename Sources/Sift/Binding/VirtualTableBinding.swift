/// The module and arguments of a virtual table declared in a model's binding (full-text search).
///
///     static var virtualTableBinding: VirtualTableBinding? {
///         VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61 remove_diacritics 2"))
///     }
public struct VirtualTableBinding: Sendable {
    /// A virtual-table module.
    public struct Module: RawRepresentable, Hashable, Sendable {
        /// The raw value.
        public let rawValue: String
        /// A value from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// SQLite's FTS5 full-text search.
        public static let fts5 = Module(rawValue: "fts5")
    }
    let module: Module
    let arguments: [ModuleArgument]
    /// Columns of the content table whose values searches of a synced index count (see ``withFacets(_:)``).
    public private(set) var facetColumns: [String] = []

    /// A virtual table using `module` with `arguments`.
    public init(with module: Module, and arguments: ModuleArgument...) {
        self.module = module
        self.arguments = arguments
    }

    /// A virtual table using `module` with `arguments`.
    public init(with module: Module, and arguments: [ModuleArgument]) {
        self.module = module
        self.arguments = arguments
    }

    /// This binding with `columns` of the content table as the facets of a synced index created from it: Sift keeps
    /// a compact structure of their values beside the index, in the same transaction as every write, so a search
    /// counts them over all of its matching rows fast (``SearchOptions/facets``, the "Facets and Synonyms" article).
    ///
    ///     static var virtualTableBinding: VirtualTableBinding? {
    ///         VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "sift_icu")).withFacets("category", "year")
    ///     }
    public func withFacets(_ columns: String...) -> VirtualTableBinding {
        var binding = self
        binding.facetColumns = columns
        return binding
    }
}

/// One `key=value` argument of a virtual table.
public struct ModuleArgument: Sendable, Hashable {
    let key: String
    let value: String

    /// The tokenizer and its arguments, e.g. `"unicode61 remove_diacritics 2"` or `"sift_icu"`.
    public init(withTokenize tokenize: String) { self.init(key: "tokenize", value: tokenize) }
    /// Prefix indexes for prefix queries of these lengths.
    public init(withPrefixes lengths: [Int]) { self.init(key: "prefix", value: lengths.map(String.init).joined(separator: " ")) }
    /// External content: the table that holds the text.
    public init(withContentTable table: String) { self.init(key: "content", value: table) }
    /// The integer primary key of the external content table.
    public init(withContentRowID column: String) { self.init(key: "content_rowid", value: column) }
    /// Whether FTS5 stores column sizes (bm25 needs them).
    public init(withColumnSize enabled: Bool) { self.init(key: "columnsize", value: enabled ? "1" : "0") }
    /// How much position detail the index keeps: `full`, `column` or `none`.
    public init(withDetail detail: Detail) { self.init(key: "detail", value: detail.rawValue) }

    /// FTS5's `detail` option.
    public enum Detail: String, Sendable { case full, column, none }

    init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// The argument as it appears in `CREATE VIRTUAL TABLE`, the value quoted as an SQL string.
    var sql: String { key + "=" + SQLBuilder.literal(FundamentalValue(value)) }
}
