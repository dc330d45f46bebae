import CSQLite
import SiftRank

extension FacetStore {
    /// Gives the values of one facet their ordinals in its dictionary, adding the values it has not seen: 2 and up
    /// (ordinal 1 is NULL, never stored). A value equal to a stored one in SQLite's comparison (the integer 1 and the
    /// real 1.0, as `GROUP BY` groups them) gets the stored one's ordinal. What it remembers lasts until `forget()`
    /// (the writer calls it after each statement: a rollback may take entries away). The first value it adds in a
    /// statement gives the dictionary a new generation (`newGeneration()`), so searches read it anew.
    final class Ordinals {
        private let position: Int64
        private let lookup, insert, largest, renew: OpaquePointer
        private var known: [FundamentalValue: UInt32] = [:]
        private var next: Int64?
        private var renewed = false

        init(_ index: String, _ facet: Facet, on handle: Handle) throws {
            position = Int64(facet.position)
            let table = SQLBuilder.quote(valuesTable(index))
            var prepared: [OpaquePointer] = []
            do {
                for sql in ["SELECT ordinal FROM \(table) WHERE position = ?1 AND facet_value = ?2",
                            "INSERT INTO \(table)(position, ordinal, facet_value) VALUES(?1, ?2, ?3)",
                            "SELECT max(ordinal) FROM \(table) WHERE position = ?1",
                            "UPDATE \(SQLBuilder.quote(metaTable(index))) SET generation = ?2 WHERE position = ?1"] {
                    prepared.append(try handle.prepareUnmanaged(sql))
                }
            } catch {
                prepared.forEach { sqlite3_finalize($0) }
                throw error
            }
            (lookup, insert, largest, renew) = (prepared[0], prepared[1], prepared[2], prepared[3])
        }

        deinit { [lookup, insert, largest, renew].forEach { sqlite3_finalize($0) } }

        func forget() {
            known.removeAll(keepingCapacity: true)
            next = nil
            renewed = false
        }

        /// The ordinal of column `column` of the row `stmt` is on.
        func ordinal(of stmt: OpaquePointer, column: Int32, on handle: Handle) throws -> UInt32 {
            guard sqlite3_column_type(stmt, column) != SQLITE_NULL else { return 1 }
            let value = RawStatement.value(stmt, column)
            if let ordinal = known[value] { return ordinal }
            defer { sqlite3_reset(lookup) }
            sqlite3_bind_int64(lookup, 1, position)
            sqlite3_bind_value(lookup, 2, sqlite3_column_value(stmt, column))
            if try handle.stepUnobserved(lookup) {
                let stored = sqlite3_column_int64(lookup, 0)
                guard stored >= 2, stored < Int64(maxOrdinals) else {
                    throw SiftError(code: .corrupt, message: "A facet dictionary holds the ordinal \(stored).", operation: .step)
                }
                known[value] = UInt32(stored)
                return UInt32(stored)
            }
            if next == nil {
                defer { sqlite3_reset(largest) }
                sqlite3_bind_int64(largest, 1, position)
                next = try handle.stepUnobserved(largest) && sqlite3_column_type(largest, 0) == SQLITE_INTEGER
                    ? sqlite3_column_int64(largest, 0) + 1 : 2
            }
            guard let ordinal = next, ordinal >= 2, ordinal < Int64(maxOrdinals) else {
                throw SiftError(code: .corrupt, message: "A facet dictionary is full or damaged.", operation: .step)
            }
            if !renewed {
                defer { sqlite3_reset(renew) }
                sqlite3_bind_int64(renew, 1, position)
                sqlite3_bind_int64(renew, 2, newGeneration())
                while try handle.stepUnobserved(renew) {}
                renewed = true
            }
            defer { sqlite3_reset(insert) }
            sqlite3_bind_int64(insert, 1, position)
            sqlite3_bind_int64(insert, 2, ordinal)
            sqlite3_bind_value(insert, 3, sqlite3_column_value(stmt, column))
            while try handle.stepUnobserved(insert) {}
            next = ordinal + 1
            known[value] = UInt32(ordinal)
            return UInt32(ordinal)
        }
    }

    /// Writes whole chunks of facets from the content table: all of them (a rebuild) or those of rowid ranges (a bulk
    /// load), every content row of a chunk read again, so a written chunk is exactly its rows' values.
    final class ChunkWriter {
        private let facets: [Facet]
        private let ordinals: [Ordinals]
        private let scanAll, scanRange: OpaquePointer
        private let replace, delete: [OpaquePointer]

        init(_ index: String, _ synced: SyncedIndex, _ facets: [Facet], on handle: Handle) throws {
            self.facets = facets
            let q = SQLBuilder.quote, rowid = q(synced.rowidColumn)
            let select = "SELECT \(rowid), " + facets.map { q($0.column) }.joined(separator: ", ") + " FROM \(q(synced.readSource))"
            var prepared: [OpaquePointer] = []
            do {
                ordinals = try facets.map { try Ordinals(index, $0, on: handle) }
                for sql in [select + " ORDER BY \(rowid)", select + " WHERE \(rowid) BETWEEN ? AND ? ORDER BY \(rowid)"] {
                    prepared.append(try handle.prepareUnmanaged(sql))
                }
                for facet in facets {
                    let chunks = q(chunksTable(index, facet.position))
                    prepared.append(try handle.prepareUnmanaged("INSERT OR REPLACE INTO \(chunks)(chunk, ordinals) VALUES(?, ?)"))
                    prepared.append(try handle.prepareUnmanaged("DELETE FROM \(chunks) WHERE chunk BETWEEN ? AND ?"))
                }
            } catch {
                prepared.forEach { sqlite3_finalize($0) }
                throw error
            }
            (scanAll, scanRange) = (prepared[0], prepared[1])
            replace = stride(from: 2, to: prepared.count, by: 2).map { prepared[$0] }
            delete = stride(from: 3, to: prepared.count, by: 2).map { prepared[$0] }
        }

        /// Finalizes the statements (a writer lives for one rebuild or bulk load).
        func close() {
            ([scanAll, scanRange] + replace + delete).forEach { sqlite3_finalize($0) }
        }

        /// Writes the chunks `chunks` covers (nil: every row of the content table; chunks of no rows are deleted).
        func write(range chunks: ClosedRange<Int64>?, on handle: Handle) throws {
            let scan = chunks == nil ? scanAll : scanRange
            defer {
                sqlite3_reset(scan)
                ordinals.forEach { $0.forget() }
            }
            if let chunks {
                for stmt in delete {
                    sqlite3_bind_int64(stmt, 1, chunks.lowerBound)
                    sqlite3_bind_int64(stmt, 2, chunks.upperBound)
                    defer { sqlite3_reset(stmt) }
                    while try handle.stepUnobserved(stmt) {}
                }
                sqlite3_bind_int64(scan, 1, chunks.lowerBound << FacetStore.chunkShift)
                sqlite3_bind_int64(scan, 2, (chunks.upperBound << FacetStore.chunkShift) + (FacetStore.chunkRows - 1))
            }
            var current: Int64?
            var buffers = [[UInt32]](repeating: [UInt32](repeating: 0, count: Int(FacetStore.chunkRows)), count: facets.count)
            func flush() throws {
                guard let chunk = current else { return }
                for f in facets.indices {
                    let stmt = replace[f]
                    defer { sqlite3_reset(stmt) }
                    sqlite3_bind_int64(stmt, 1, chunk)
                    _ = buffers[f].withUnsafeBytes { sqlite3_bind_blob(stmt, 2, $0.baseAddress, Int32($0.count), sift_sqlite_transient()) }
                    while try handle.stepUnobserved(stmt) {}
                    for i in buffers[f].indices { buffers[f][i] = 0 }
                }
            }
            while try handle.stepUnobserved(scan) {
                let rowid = sqlite3_column_int64(scan, 0), chunk = rowid >> FacetStore.chunkShift
                if chunk != current {
                    try flush()
                    current = chunk
                }
                let slot = Int(rowid & (FacetStore.chunkRows - 1))
                for f in facets.indices {
                    buffers[f][slot] = try ordinals[f].ordinal(of: scan, column: Int32(f + 1), on: handle).littleEndian
                }
            }
            try flush()
        }
    }
}
