import CSQLite
import Foundation
import Sift

/// `sift-bench scale --compress`: turns zstd compression on for the `docs` table's title and body of Sift's scale
/// database (`enableCompression`, a dictionary trained per column, `compressRows` in batches, then `VACUUM`), and
/// prints the file and the table's bytes before and after, the time of each step, and the time to fetch objects by
/// id before and after (the searches that follow run on the compressed database).
enum ScaleCompression {
    static func run(path: String, documents: Int, level: Int = 3, dictionaryKB: Int = 64) throws {
        let database = Database(withPath: path)
        defer { try? database.close {} }
        var rng = SystemRandomNumberGenerator()
        let ids = (0..<2_000).map { _ in Int64.random(in: 1...Int64(max(1, documents)), using: &rng) }
        // The plain database, vacuumed too, so that both sizes count pages in use only.
        var seconds = try timed { try database.exec(sql: "VACUUM") }
        let before = try sizes(database, path: path)
        let plainFetch = try fetchMilliseconds(database, ids)
        var lines = [String(format: "VACUUM of the plain database: %.1f s", seconds)]

        seconds = try timed { try database.enableCompression(.zstd(level: level), forColumns: ["title", "body"], inTable: "docs") }
        lines.append(String(format: "enableCompression (points the index at the decompressing view, rebuilds it): %.1f s", seconds))
        var dictionaries: [String] = []
        seconds = try timed {
            for column in ["title", "body"] {
                let id = try database.trainCompressionDictionary(forColumn: column, inTable: "docs", maximumSize: dictionaryKB * 1_024)
                dictionaries.append("\(column) \(id.map(String.init) ?? "none")")
            }
        }
        lines.append(String(format: "trainCompressionDictionary x2 (at most %d KB; %@): %.1f s, level %d", dictionaryKB,
                                   dictionaries.joined(separator: ", "), seconds, level))
        var batches = 0
        seconds = try timed { while try !database.compressRows(ofTable: "docs", batchSize: 10_000) { batches += 1 } }
        lines.append(String(format: "compressRows, %d batches of 10,000: %.1f s", batches, seconds))
        seconds = try timed { try database.exec(sql: "VACUUM") }
        lines.append(String(format: "VACUUM: %.1f s", seconds))
        let after = try sizes(database, path: path)
        let compressedFetch = try fetchMilliseconds(database, ids)
        let verification = try database.verify(index: "fts")

        print("")
        print("| \(documents) docs, zstd on docs.title and docs.body | file MB | docs table MB | fetch 2,000 objects by id, ms |")
        print("|---|---|---|---|")
        func megabytes(_ bytes: Int?) -> String { bytes.map { String(format: "%.1f", Double($0) / 1_048_576) } ?? "n/a" }
        print("| plain (vacuumed) | \(megabytes(before.file)) | \(megabytes(before.table)) | \(String(format: "%.1f", plainFetch)) |")
        print("| compressed (vacuumed) | \(megabytes(after.file)) | \(megabytes(after.table)) | \(String(format: "%.1f", compressedFetch)) |")
        for line in lines { print("  " + line) }
        print("  verify(index:) after compression: \(verification)")
    }

    private static func timed(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// The file's bytes, and the `docs` table's (its b-tree's pages, from SQLite's dbstat table when it has one).
    private static func sizes(_ database: Database, path: String) throws -> (file: Int?, table: Int?) {
        let file = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let table = try? database.getRows(sql: "SELECT sum(pgsize) FROM dbstat WHERE name = 'docs'")[row: 0, column: 0].int64Value
        return (file, table.map { Int($0) })
    }

    /// Milliseconds to fetch `ids` one object at a time through the binding.
    private static func fetchMilliseconds(_ database: Database, _ ids: [Int64]) throws -> Double {
        var characters = 0
        let seconds = try timed {
            for id in ids {
                let doc: Doc? = try database.getObject(fromTable: "docs", where: Column(named: "id") == id)
                characters += doc?.body.utf8.count ?? 0
            }
        }
        guard characters > 0 else { throw BenchError.checkFailed("fetched no document") }
        return seconds * 1000
    }
}
