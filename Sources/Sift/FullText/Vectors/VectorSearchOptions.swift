/// How a nearest-neighbour search (``Database/search(nearest:in:of:where:options:)``) scans and pages.
public struct VectorSearchOptions: Sendable, Hashable {
    /// What a search reads.
    public enum Scan: Sendable, Hashable {
        /// Every float32 vector, scored exactly (the default).
        case exact
        /// The index's int8 or binary codes (its ``VectorQuantization``), then the `candidates` best of them
        /// re-ranked with the exact float scores of the rows' own vectors: fewer bytes to scan, and a hit missed
        /// when the codes rank it below `candidates` others. Needs an index declared with codes.
        case quantized(candidates: Int)
    }

    /// At most this many hits.
    public var limit: Int = 20
    /// Hits to skip (for paging).
    public var offset: Int = 0
    /// What the search reads (``Scan/exact`` by default).
    public var scan: Scan = .exact

    /// Default options: the 20 nearest, exact.
    public init(limit: Int = 20, offset: Int = 0, scan: Scan = .exact) {
        self.limit = limit
        self.offset = offset
        self.scan = scan
    }
}
