import Foundation

extension ScaleCommand {
    /// Runs Tantivy on the same documents, queries and churn (in a child process), or prints why it is skipped
    /// and returns nil. The documents file and the index stay in `directory` (reused with --keep).
    func tantivyPhase(_ corpus: ScaleCorpus, directory: String, changes: ScaleCorpus.Churn) throws -> TantivyReport? {
        guard tantivy else { return nil }
        let runner = TantivyRunner(python: python, heapMB: tantivyHeap)
        if let reason = runner.unavailableReason() {
            print("  tantivy: skipped (\(reason))")
            return nil
        }
        let documentsPath = directory + "/documents-\(corpus.count).tsv"
        printError("writing \(corpus.count) documents to \(documentsPath) ...")
        let written = try TantivyRunner.writeDocuments(corpus, to: documentsPath)
        if written > 0 { printError(String(format: "  written in %.1f s", written)) }
        let index = directory + "/tantivy"
        let reuse = keep != nil && FileManager.default.fileExists(atPath: index + "/meta.json")
        printError(reuse ? "tantivy: reusing \(index), searching ..." : "tantivy: indexing, searching, churn ...")
        if !reuse { try? FileManager.default.removeItem(atPath: index) }
        let report = try runner.run(
            documents: documentsPath, index: index, reuse: reuse,
            queries: ScaleCorpus.QueryKind.allCases.map { ($0, corpus.queries($0, count: queries)) },
            deleted: changes.deleted, updated: Array(zip(changes.updated, changes.texts)),
            planPath: directory + "/tantivy-plan.json")
        print("  tantivy: \(report.version), \(report.searches.segments) segments"
              + (report.reused == true ? ", reusing \(index)" : ""))
        return report
    }
}
