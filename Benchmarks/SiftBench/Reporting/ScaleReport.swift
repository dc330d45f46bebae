import Foundation

/// One query kind's times (ms) in one search round of `scale`, for Sift and its references.
struct ScaleSearchRow {
    var kind: ScaleCorpus.QueryKind
    var sift: [Double] = []
    /// The same Sift searches without a total (`countTotal: false`, as Tantivy's are timed), and how many of them
    /// returned the very hits of the search with one.
    var siftTopOnly: [Double] = []
    var topOnlySame = 0
    /// FTS5 scoring every match with Sift's function (the reference of the exactness check).
    var exhaustive: [Double] = []
    /// Raw FTS5 with its own bm25.
    var raw: [Double] = []
    /// Sift results equal to the exhaustive ones, of `checked`; nil when nothing was checked.
    var exact: Int?
    var checked = 0
    var totals = 0
    var lowerBounds = 0
}

/// The milliseconds of each delete and each update (one transaction each) of one engine in the churn round, and
/// the rates they make: the median and the 90th percentile show what a rate hides (a first change that prepares the
/// connection's statements, a merge or a checkpoint that falls on a few changes).
struct ScaleChurnRates {
    var deleteMilliseconds: [Double]
    var updateMilliseconds: [Double]

    var deletes: Double { Self.rate(deleteMilliseconds) }
    var updates: Double { Self.rate(updateMilliseconds) }

    private static func rate(_ milliseconds: [Double]) -> Double {
        let total = milliseconds.reduce(0, +)
        return total > 0 ? Double(milliseconds.count) * 1e3 / total : 0
    }

    /// "median / p90" of `milliseconds`.
    static func spread(_ milliseconds: [Double]) -> String {
        guard !milliseconds.isEmpty else { return "-" }
        let percentiles = Percentiles(milliseconds)
        return String(format: "%.3f / %.3f", percentiles.p50, percentiles.p90)
    }
}

/// The tables `sift-bench scale` prints: each engine's figures, Tantivy's beside them (from its child's
/// report), and the ratio of each Sift figure to Tantivy's. Times and sizes: Sift / Tantivy (below 1, Sift
/// is faster or smaller); rates: Sift / Tantivy (above 1, Sift is faster).
enum ScaleReport {
    static func megabytes(_ bytes: Int) -> String { String(format: "%.0f MB", Double(bytes) / 1_048_576) }

    static func ratio(_ sift: Double, _ tantivy: Double) -> String {
        tantivy > 0 ? String(format: "%.2f", sift / tantivy) : "-"
    }

    /// The indexing table: one row a load, Tantivy's last, then Sift's (Codable) figures over Tantivy's.
    static func printIndexing(count: Int, loads: [ScaleIndexReport], tantivy: TantivyReport?) {
        guard !loads.isEmpty || tantivy?.loadSeconds != nil else { return }
        print("")
        print("| indexing \(count) docs | inserts s | docs/s | then optimize s | peak RSS (VmHWM) | file |")
        print("|---|---|---|---|---|---|")
        for load in loads {
            print(String(format: "| %@ | %.1f | %.0f | %.1f | %@ | %@ |", load.engine, load.seconds,
                         Double(count) / load.seconds, load.optimizeSeconds, megabytes(load.peakBytes),
                         megabytes(load.fileBytes)))
        }
        guard let tantivy, let seconds = tantivy.loadSeconds, let loaded = tantivy.loaded else { return }
        print(String(format: "| tantivy (1 thread, %d MB heap; then its merges) | %.1f | %.0f | %.1f | %@ | %@ |",
                     tantivy.heapMB, seconds, Double(loaded) / seconds, tantivy.mergeSeconds ?? 0,
                     megabytes(tantivy.loadPeakBytes ?? 0), megabytes(tantivy.indexBytes)))
        guard let sift = loads.first(where: { $0.engine == ScaleIndexCommand.Engine.sift.rawValue }) else { return }
        print("")
        print("Sift (Codable) / Tantivy: docs/s " + ratio(Double(count) / sift.seconds, Double(loaded) / seconds)
              + ", peak RSS " + ratio(Double(sift.peakBytes), Double(tantivy.loadPeakBytes ?? 0))
              + ", file " + ratio(Double(sift.fileBytes), Double(tantivy.indexBytes)))
    }

    /// A search round's table: Sift, the exhaustive reference, raw FTS5, Tantivy, Sift / Tantivy per percentile,
    /// the exactness check and the mean totals (Sift's `totalCount`, Tantivy's counted matches).
    static func printSearches(_ rows: [ScaleSearchRow], header: String, tantivy: TantivyReport.Round?) {
        print("")
        print("| \(header), ms | Sift p50 / p90 / p99 | exhaustive p50 / p90 / p99 | raw FTS5 bm25 p50 / p90 / p99 "
              + "| Tantivy bm25 p50 / p90 / p99 | Sift / Tantivy p50, p90, p99 | Sift exact | Sift total (mean) "
              + "| Tantivy matches (mean) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for row in rows {
            let sift = Percentiles(row.sift)
            let other = tantivy?.kinds.first { $0.name == row.kind.rawValue }
            let theirs = other.map { Percentiles($0.milliseconds) }
            let ratios = theirs.map { "\(ratio(sift.p50, $0.p50)), \(ratio(sift.p90, $0.p90)), \(ratio(sift.p99, $0.p99))" }
            let mean = Double(row.totals) / Double(max(1, row.sift.count))
            let exact: String = row.exact.map { "\($0)/\(row.checked)" } ?? "not checked"
            let bounds: String = row.lowerBounds > 0 ? " (\(row.lowerBounds) lower bounds)" : ""
            let matches: String = other.map { String(format: "%.0f", $0.meanMatches) } ?? "-"
            let cells: [String] = [row.kind.rawValue, sift.text, text(row.exhaustive), text(row.raw), theirs?.text ?? "-",
                                   ratios ?? "-", exact, String(format: "%.0f", mean) + bounds, matches]
            print("| " + cells.joined(separator: " | ") + " |")
            guard !row.siftTopOnly.isEmpty else { continue }
            let top = Percentiles(row.siftTopOnly)
            let topRatios = theirs.map { "\(ratio(top.p50, $0.p50)), \(ratio(top.p90, $0.p90)), \(ratio(top.p99, $0.p99))" }
            print("| " + [row.kind.rawValue + ", no total (`countTotal: false`)", top.text, "-", "-", theirs?.text ?? "-",
                          topRatios ?? "-", "same hits \(row.topOnlySame)/\(row.siftTopOnly.count)", "-", matches]
                .joined(separator: " | ") + " |")
        }
    }

    private static func text(_ times: [Double]) -> String { times.isEmpty ? "-" : Percentiles(times).text }

    /// The churn table: deletes and updates per second of raw FTS5, Sift's sync layer and Tantivy.
    /// `rawOnSift`: raw FTS5's statements on a copy of Sift's database, whose FTS5 segments (and so merges) are Sift's.
    static func printChurn(count: Int, raw: ScaleChurnRates, rawOnSift: ScaleChurnRates, sift: ScaleChurnRates,
                           tantivy: TantivyReport.Churn?) {
        print("")
        print("| \(count) deletes, then \(count) updates, one transaction (Tantivy: commit) each | deletes/s | updates/s "
              + "| ms a delete, median / p90 | ms an update, median / p90 |")
        print("|---|---|---|---|---|")
        func row(_ name: String, _ rates: ScaleChurnRates) {
            print(String(format: "| %@ | %.0f | %.0f | ", name, rates.deletes, rates.updates)
                  + "\(ScaleChurnRates.spread(rates.deleteMilliseconds)) | \(ScaleChurnRates.spread(rates.updateMilliseconds)) |")
        }
        row("raw", raw)
        row("raw, on a copy of Sift's database (its FTS5 segments)", rawOnSift)
        row("Sift (score bounds kept exact)", sift)
        print("| Sift / raw on the copy | \(ratio(sift.deletes, rawOnSift.deletes)) | \(ratio(sift.updates, rawOnSift.updates)) | | |")
        guard let tantivy else { return }
        let deletes = Double(tantivy.deletes) / tantivy.deleteSeconds, updates = Double(tantivy.updates) / tantivy.updateSeconds
        print(String(format: "| tantivy (delete by an id term query; update: delete, add) | %.0f | %.0f | | |", deletes, updates))
        print("| Sift / Tantivy | \(ratio(sift.deletes, deletes)) | \(ratio(sift.updates, updates)) | | |")
    }

    /// The wall time of each phase of the run, to size larger runs.
    static func printPhases(_ phases: [(name: String, seconds: Double)]) {
        print("")
        print("Wall time per phase: " + phases.map { String(format: "%@ %.0f s", $0.name, $0.seconds) }
            .joined(separator: "; "))
    }
}
