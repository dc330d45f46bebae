import Foundation
import Sift
import SiftEvaluation

/// The corruption suite: builds a corpus database with a synced full-text index, damages copies of it
/// in the ways files get damaged, and counts the documents recovered by `Database.recover(from:into:)` and by
/// SQLite's own `.recover` (the `sqlite3` shell) on the same damaged files. Run at full size by
/// `sift-bench corruption`, at a small size by the tests.
public enum CorruptionSuite {
    /// One way of damaging a file.
    public struct Damage: Sendable {
        /// A short name for the table.
        public let name: String
        /// Changes the file's bytes; pages are `pageSize` bytes, the generator is seeded.
        let apply: @Sendable (inout [UInt8], _ pageSize: Int, _ generator: inout SuiteGenerator) -> Void
    }

    /// What each tool recovered from one damaged copy.
    public struct Outcome: Sendable {
        /// The damage's name.
        public var damage: String
        /// Documents in the undamaged database.
        public var documents: Int
        /// Pages of the damaged file that Sift found unreadable or missing.
        public var lostPages: Int
        /// Documents Sift recovered, and how many of them are exactly the original (key and body).
        public var sift: Int
        /// See `sift`.
        public var siftExact: Int
        /// Documents Sift recovered in part (their overflow pages lost): their text is the original's beginning.
        public var siftPartial: Int
        /// Seconds Sift's recovery took.
        public var siftSeconds: Double
        /// Documents `.recover` put back into `documents` (nil when no working shell was given), and how many
        /// of them are exact.
        public var reference: Int?
        /// See `reference`.
        public var referenceExact: Int?
        /// Rows `.recover` could not attribute to a table (its `lost_and_found` table).
        public var referenceLostAndFound: Int?
        /// Seconds `.recover` took (dump and reload).
        public var referenceSeconds: Double?
        /// Whether Sift's index over the recovered documents passed `verify(index:)`.
        public var indexConsistent: Bool
    }

    /// The suite's damages: 1%, 5% and 20% of the pages (page 1 aside) overwritten with garbage, the file
    /// truncated to 60% of its pages, the 100-byte header zeroed, and page 1 (the header and `sqlite_schema`)
    /// overwritten with garbage.
    public static let damages: [Damage] = [
        garbage(percent: 1), garbage(percent: 5), garbage(percent: 20),
        Damage(name: "truncated to 60%") { bytes, pageSize, _ in bytes.removeLast(bytes.count - bytes.count / pageSize * 6 / 10 * pageSize) },
        Damage(name: "zeroed header (100 bytes)") { bytes, _, _ in
            for i in 0..<min(100, bytes.count) { bytes[i] = 0 }
        },
        Damage(name: "sqlite_schema page (page 1) garbage") { bytes, pageSize, generator in
            for i in 0..<min(pageSize, bytes.count) { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
        },
    ]

    static func garbage(percent: Int) -> Damage {
        Damage(name: "\(percent)% of pages garbage") { bytes, pageSize, generator in
            let pages = bytes.count / pageSize
            var candidates = Array(2...max(2, pages))
            candidates.shuffle(using: &generator)
            for page in candidates.prefix(max(1, pages * percent / 100)) {
                for i in (page - 1) * pageSize..<min(page * pageSize, bytes.count) { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
            }
        }
    }

    /// Builds a corpus of `documents` generated documents at `path` (ICU-tokenized, synced index, its schema backed
    /// up as every new corpus is),
    /// closes it (so its WAL is checkpointed into the file) and returns each document's key and body by id.
    public static func buildCorpus(at path: String, documents: Int, seed: UInt64 = 16) throws -> [Int: (key: String, body: String)] {
        let corpus = try CorpusDatabase.openOrCreate(at: path)
        var generator = SuiteGenerator(seed: seed)
        let words = ["river", "lantern", "meadow", "copper", "violet", "granite", "willow", "ember", "tundra", "saffron",
                     "harbor", "quartz", "北京", "大学", "天气", "東京", "検索", "데이터", "orbit", "cinder", "marble", "fjord"]
        var originals: [Int: (key: String, body: String)] = [:]
        var batch: [StoredDocument] = []
        for id in 1...documents {
            // Mostly short documents, one in forty long enough to spill into overflow pages.
            let count = id % 40 == 0 ? 1_500 : 20 + Int(generator.next() % 60)
            let body = (0..<count).map { _ in words[Int(generator.next() % UInt64(words.count))] }.joined(separator: " ")
            let key = "doc-\(id)"
            var document = StoredDocument(key: key, title: "Document \(id)", body: body, origin: "/suite", source: "/suite/\(key)",
                                          size: body.utf8.count)
            document.id = id
            batch.append(document)
            originals[id] = (key, body)
            if batch.count == 10_000 || id == documents {
                try corpus.database.insert(objects: batch, intoTable: CorpusDatabase.documentsTable)
                batch.removeAll(keepingCapacity: true)
            }
        }
        corpus.database.close()
        return originals
    }

    /// Whether `shell` runs `.recover` on `path` (Debian 12's 3.40.1 shell fails on every database with
    /// `SQL logic error`); nil when it works, else why not.
    public static func referenceProblem(shell: String, on path: String) -> String? {
        let output = NSTemporaryDirectory() + "sift-recover-probe-\(UUID().uuidString).db"
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard let result = try? runRecover(shell: shell, damaged: path, into: output) else { return "\(shell) cannot be run" }
        if !result.errors.isEmpty { return "\(shell) .recover fails: \(result.errors.prefix(200))" }
        return nil
    }

    /// Runs the suite on copies of the corpus at `original` (built by `buildCorpus`), in `directory`; `shell` is
    /// an `sqlite3` shell with a working `.recover`, or nil to measure Sift alone.
    public static func run(original: String, originals: [Int: (key: String, body: String)], directory: String,
                           shell: String?, seed: UInt64 = 16, progress: (String) -> Void = { _ in }) throws -> [Outcome] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let pageSize = PageSizeReader.pageSize(of: bytes)
        var outcomes: [Outcome] = []
        for (number, damage) in damages.enumerated() {
            progress(damage.name)
            var damaged = bytes
            var generator = SuiteGenerator(seed: seed &+ UInt64(number))
            damage.apply(&damaged, pageSize, &generator)
            let damagedPath = directory + "/damaged-\(number).db"
            try Data(damaged).write(to: URL(fileURLWithPath: damagedPath))
            try? FileManager.default.removeItem(atPath: damagedPath + "-sift-backup")
            try FileManager.default.copyItem(atPath: original + "-sift-backup", toPath: damagedPath + "-sift-backup")

            let siftPath = directory + "/sift-\(number).db"
            let destination = Database(withPath: siftPath)
            destination.registerICUTokenizer()
            let start = Date()
            let report = try Database.recover(from: damagedPath, into: destination)
            let siftSeconds = Date().timeIntervalSince(start)
            let sift = try exactCount(in: destination, originals: originals)
            let consistent = (try? destination.verify(index: "documents_fts").isConsistent) ?? false
            destination.close()

            var outcome = Outcome(damage: damage.name, documents: originals.count, lostPages: report.lostPages.count,
                                  sift: sift.rows, siftExact: sift.exact,
                                  siftPartial: report.tables.first { $0.name == CorpusDatabase.documentsTable }?.partialRows ?? 0, siftSeconds: siftSeconds, indexConsistent: consistent)
            if let shell {
                let referencePath = directory + "/reference-\(number).db"
                let start = Date()
                _ = try runRecover(shell: shell, damaged: damagedPath, into: referencePath)
                outcome.referenceSeconds = Date().timeIntervalSince(start)
                let reference = Database(withPath: referencePath)
                reference.registerICUTokenizer()
                let counted = (try? exactCount(in: reference, originals: originals)) ?? (rows: 0, exact: 0)
                outcome.reference = counted.rows
                outcome.referenceExact = counted.exact
                outcome.referenceLostAndFound = (try? reference.getRows(sql: "SELECT count(*) FROM lost_and_found"))?.first?.first.map { Int($0.int64Value) } ?? 0
                reference.close()
            }
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// Rows of `documents` in `database`, and how many are exactly the original document with their id.
    static func exactCount(in database: Database, originals: [Int: (key: String, body: String)]) throws -> (rows: Int, exact: Int) {
        let rows = try database.getRows(sql: "SELECT id, key, body FROM documents")
        let exact = rows.filter { row in
            guard let original = originals[Int(row[0].int64Value)] else { return false }
            return original.key == row[1].stringValue && original.body == row[2].stringValue
        }.count
        return (rows.count, exact)
    }

    /// `shell damaged .recover | shell into`: the reference's way of rebuilding a database.
    static func runRecover(shell: String, damaged: String, into output: String) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let quote = { (s: String) in "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        process.arguments = ["-c", "\(quote(shell)) \(quote(damaged)) .recover 2>&1 >\(quote(output + ".sql")) | head -c 2000; "
                                   + "\(quote(shell)) \(quote(output)) < \(quote(output + ".sql")) >/dev/null 2>&1; rm -f \(quote(output + ".sql"))"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let errors = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, errors.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The outcomes as a Markdown table.
    public static func markdown(_ outcomes: [Outcome]) -> String {
        var lines = ["| damage | documents | pages lost | Sift rows (exact) | `.recover` rows (exact) | `.recover` lost_and_found | Sift s | `.recover` s |",
                     "|---|---|---|---|---|---|---|---|"]
        for o in outcomes {
            let reference = o.reference.map { "\($0) (\(o.referenceExact ?? 0))" } ?? "not run"
            lines.append("| \(o.damage) | \(o.documents) | \(o.lostPages) | \(o.sift) (\(o.siftExact))\(o.indexConsistent ? "" : " index inconsistent") | "
                         + "\(reference) | \(o.referenceLostAndFound.map(String.init) ?? "-") | \(String(format: "%.2f", o.siftSeconds)) | "
                         + "\(o.referenceSeconds.map { String(format: "%.2f", $0) } ?? "-") |")
        }
        return lines.joined(separator: "\n")
    }
}

/// The page size of an undamaged database file (its header), to damage it page by page.
enum PageSizeReader {
    static func pageSize(of bytes: [UInt8]) -> Int {
        guard bytes.count >= 18 else { return 4096 }
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        return raw == 1 ? 65536 : max(raw, 512)
    }
}

/// SplitMix64 (`SiftEvaluation`'s): a small seeded generator, so every run damages the same bytes.
public typealias SuiteGenerator = SplitMix64
