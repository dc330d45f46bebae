import ArgumentParser
import Foundation
import Sift

/// A document of the facet workload: the scale corpus's title and body, a `color` of 10 text values and a `brand`
/// of 10,000 integer values, each drawn uniformly by a hash of the id. Every body ends with the word `allrows`,
/// and that of one document in ten (by another hash) with `tenthrows` too: the two queries of the workload.
struct FacetDoc: TableCodable {
    var id: Int64
    var title: String
    var body: String
    var color: String
    var brand: Int64
    enum CodingKeys: String, CodingTableKey {
        typealias Root = FacetDoc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body, color, brand
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }

    init(_ document: BenchDocument) {
        id = document.id
        title = document.title
        let tenth = Self.mix(UInt64(bitPattern: document.id) ^ 0x7E47) % 10 == 0
        body = document.body + " allrows" + (tenth ? " tenthrows" : "")
        color = "color-\(Self.mix(UInt64(bitPattern: document.id)) % 10)"
        brand = Int64(Self.mix(UInt64(bitPattern: document.id) &+ 0xB4A7D) % 10_000)
    }

    /// SplitMix64's finalizer: a well-spread hash of the id.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `sift-bench facets`: facet counts over every match of a query (`Database.facets(for:in:where:options:)`, from
/// the facet structures Sift keeps beside a synced index) against a plain SQL `GROUP BY` joining the content rows of
/// the same matches, alternated in one run, for a query matching a tenth of the rows and one matching them all.
struct FacetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facets",
        abstract: "Facet counts over all matches: Sift's facet structures against SQL GROUP BY.",
        discussion: """
            Indexes --documents documents of the scale corpus (a facet of 10 text values and one of 10,000 \
            integers each), then times counting each facet, and both at once, over a query matching ~10% of the \
            rows and one matching every row, each run alternated with the GROUP BY that counts the same matches; \
            every count is checked equal to GROUP BY's. Times in milliseconds (p50 / p90 / p99).
            """)

    @Option(help: ArgumentHelp("Documents.", valueName: "n"))
    var documents = 100_000

    @Option(help: ArgumentHelp("Timed runs of each count (after 2 untimed ones).", valueName: "n"))
    var runs = 50

    @Option(help: ArgumentHelp("Keep the database in this folder (reused when already built).", valueName: "dir"))
    var keep: String?

    func validate() throws {
        if documents < 10 { throw ValidationError("--documents takes at least 10") }
        if runs < 1 { throw ValidationError("--runs takes a positive integer") }
    }

    func run() throws {
        try runCommand(measuring: "facets") {
            let directory = keep ?? NSTemporaryDirectory() + "/sift-facets-\(ProcessInfo.processInfo.processIdentifier)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { if keep == nil { try? FileManager.default.removeItem(atPath: directory) } }
            let path = directory + "/facets-\(documents).sqlite"
            print("sift-bench facets: \(documents) documents, \(runs) runs; \(MachineInfo.current().summaryLine)")
            let database = Database(withPath: path)
            defer { database.close() }
            if try database.isTableExists("docs") {
                print("  reusing \(path)")
                try database.optimize(index: "fts")  // rebuilds bounds or facets of an earlier layout
            } else {
                try load(database)
            }
            try measure(database)
        }
    }

    private func load(_ database: Database) throws {
        let start = DispatchTime.now().uptimeNanoseconds
        try database.create(table: "docs", of: FacetDoc.self)
        try database.create(virtualTable: "fts", of: DocIndex.self, syncedWith: "docs", facets: ["color", "brand"])
        let corpus = ScaleCorpus(count: documents)
        for batch in corpus.batches {
            try database.insert(objects: corpus.documents(batch).map(FacetDoc.init), intoTable: "docs")
        }
        try database.optimize(index: "fts")
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(String(format: "  indexed in %.1f s (bulk inserts of %d, then optimize(index:))", seconds, ScaleCorpus.batchSize))
    }

    private func measure(_ database: Database) throws {
        func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
            let start = DispatchTime.now().uptimeNanoseconds
            let value = try body()
            return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        print("")
        print("| query | matches | facet | Sift (ms) | GROUP BY (ms) | p50 ratio | exact |")
        print("|---|---:|---|---:|---:|---:|---:|")
        for query in ["tenthrows", "allrows"] {
            for facets in [["color"], ["brand"], ["color", "brand"]] {
                var sift: [Double] = [], plain: [Double] = []
                var exact = 0, matches = 0
                for run in 0..<(runs + 2) {
                    let (counted, siftTime) = try timed {
                        try database.facets(for: SearchQuery(query), in: "fts", options: SearchOptions(typoTolerance: .off, facets: facets))
                    }
                    var grouped: [String: [FundamentalValue: Int]] = [:]
                    var plainTime = 0.0
                    for facet in facets {
                        let (rows, time) = try timed {
                            try database.getRows(sql: "SELECT d.\(facet), count(*) FROM fts JOIN docs d ON d.id = fts.rowid "
                                                     + "WHERE fts MATCH ? GROUP BY 1", values: [query])
                        }
                        plainTime += time
                        grouped[facet] = Dictionary(uniqueKeysWithValues: rows.map { ($0[0], Int($0[1].int64Value)) })
                    }
                    matches = grouped[facets[0]]?.values.reduce(0, +) ?? 0
                    if run < 2 { continue }
                    sift.append(siftTime)
                    plain.append(plainTime)
                    if facets.allSatisfy({ counted[$0]?.counts == grouped[$0] }) { exact += 1 }
                }
                let (s, p) = (Percentiles(sift), Percentiles(plain))
                print("| \(query) | \(matches) | \(facets.joined(separator: " + ")) | \(s.text) | \(p.text) | "
                      + String(format: "%.1fx", p.p50 / max(s.p50, 1e-9)) + " | \(exact)/\(runs) |")
                if exact != runs { throw BenchError.checkFailed("facet counts differ from GROUP BY for \(query) \(facets)") }
            }
        }
    }
}
