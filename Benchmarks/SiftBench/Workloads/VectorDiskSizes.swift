import CSQLite
import Foundation

/// Bytes per table of a database file, from SQLite's dbstat when this SQLite has it.
struct VectorDiskSizes {
    let bytes: [String: Int64]

    init(_ path: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        var bytes: [String: Int64] = [:]
        if sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK {
            var stmt: OpaquePointer?
            defer { sqlite3_finalize(stmt) }
            if sqlite3_prepare_v2(db, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name", -1, &stmt, nil) == SQLITE_OK {
                while sqlite3_step(stmt) == SQLITE_ROW {
                    bytes[String(cString: sqlite3_column_text(stmt, 0))] = sqlite3_column_int64(stmt, 1)
                }
            }
        }
        self.bytes = bytes
    }

    /// The vector index's tables per vector (float32 blocks, int8 codes, the binary index's codes, slots, block headers), then the others.
    func lines(rows: Int) -> [String] {
        guard !bytes.isEmpty else { return ["(no dbstat in this SQLite: no per-table sizes)"] }
        func perVector(_ name: String) -> Double { Double(bytes[name] ?? 0) / Double(max(rows, 1)) }
        var lines = [String(format: "  bytes per vector on disk: float32 %.0f, int8 codes %.0f, binary codes %.0f, slot %.0f, block headers %.0f",
                            perVector("rows_vectors_vectors"), perVector("rows_vectors_codes"), perVector("rows_binary_codes"),
                            perVector("rows_vectors_slots"), perVector("rows_vectors_blocks"))]
        for (name, size) in bytes.sorted(by: { $0.value > $1.value }) where size > 1_000_000 {
            lines.append(String(format: "  %@: %.1f MB (%.0f bytes per row)", name, Double(size) / 1e6, Double(size) / Double(max(rows, 1))))
        }
        return lines
    }
}
