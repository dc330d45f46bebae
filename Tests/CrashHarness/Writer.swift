import Foundation
import Sift

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one line to standard output with a single `write(2)` (no buffering): once it returns the
/// parent can read the line even if this process is killed right after.
func emitLine(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += written
    }
}

/// The last batch the database holds: the larger of the progress row (transactional batches) and the
/// newest batch with rows (every batch inserts at least one row, and later batches only change earlier ones).
func committedBatch(_ database: Database) throws -> (batch: Int, progress: Int, newestRows: Int) {
    let tables = Set(try database.getRows(sql: "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0].stringValue })
    let progress = tables.contains(Names.progress)
        ? Int(try database.getRows(sql: "SELECT coalesce(max(batch), 0) FROM progress").first?[0].int64Value ?? 0) : 0
    // Row ids are batch * 1000 + row, so the largest id (a rowid lookup, not a scan) names the newest batch.
    let newest = tables.contains(Names.content)
        ? Int(try database.getRows(sql: "SELECT coalesce(max(id), 0) / 1000 FROM docs").first?[0].int64Value ?? 0) : 0
    return (max(progress, newest), progress, newest)
}

/// Opens (or creates) the database, then commits batches until killed (or until `lastBatch`), writing each
/// batch's number to standard output once its transaction has committed.
struct Writer {
    let path: String
    let workload: Workload
    let lastBatch: Int?
    let sabotage: Sabotage?

    enum Sabotage: String {
        /// Harness self-check: each transactional batch commits its content (and progress row) with the new
        /// rows' index entries removed again, then adds those entries in a second transaction, so a kill
        /// between the two leaves content the index does not have. The checker must report it.
        case splitIndex = "split-index"
    }

    private struct RollBack: Error {}

    func run() throws {
        let database = openDatabase(path)
        database.fullTextBulkThreshold = workload.bulkThreshold
        // Idempotent: a writer killed during setup leaves the next one to finish it.
        try database.create(table: Names.content, of: Doc.self)
        try database.create(virtualTable: Names.index, of: DocIndex.self, syncedWith: Names.content)
        try database.create(table: Names.progress, of: Progress.self)
        var number = try committedBatch(database).batch
        emitLine("ready \(number)")
        while lastBatch.map({ number < $0 }) ?? true {
            number += 1
            try write(workload.batch(number), to: database)
            emitLine("\(number)")
            // Incremental merge work now and then, as a long-running writer would do (outside any batch).
            if number % 64 == 0 { try database.merge(index: Names.index, pages: 64) }
        }
    }

    private func write(_ batch: Batch, to database: Database) throws {
        let docs = batch.insertedIDs.map { Workload.doc($0, version: 0) }
        guard batch.kind == .transaction else {
            try database.insert(objects: docs, intoTable: Names.content)
            return
        }
        try database.run(transaction: {
            if batch.rolledBackSavepoint {
                do {
                    try database.run(transaction: {
                        var doc = Workload.doc(batch.rolledBackID, version: 0)
                        doc.title += " rolled back"
                        try database.insert(objects: doc, intoTable: Names.content)
                        if let victim = batch.savepointVictim {
                            try database.delete(fromTable: Names.content, where: Doc.Properties.id == victim)
                        }
                        throw RollBack()
                    })
                } catch is RollBack {}
            }
            switch batch.style {
            case .oneCall:
                try database.insert(objects: docs, intoTable: Names.content)
            case .perRow:
                for doc in docs { try database.insert(objects: doc, intoTable: Names.content) }
            }
            for change in batch.changes { try apply(change, batch.number, database) }
            try database.insertOrReplace(objects: Progress(batch: batch.number), intoTable: Names.progress)
            if sabotage == .splitIndex {
                for doc in docs {
                    try database.exec(sql: "INSERT INTO docs_fts(docs_fts, rowid, title, body) VALUES('delete', ?, ?, ?)",
                                      values: [doc.id!, doc.title, doc.body])
                }
            }
        })
        if sabotage == .splitIndex {
            usleep(2000)
            try database.run(transaction: {
                for doc in docs {
                    try database.exec(sql: "INSERT INTO docs_fts(rowid, title, body) VALUES(?, ?, ?)", values: [doc.id!, doc.title, doc.body])
                }
            })
        }
    }

    private func apply(_ change: Batch.Change, _ number: Int, _ database: Database) throws {
        switch change {
        case .updateBody(let id, let viaSQL):
            let body = Workload.body(id, version: number)
            if viaSQL {
                try database.exec(sql: "UPDATE docs SET body = ? WHERE id = ?", values: [body, id])
            } else {
                try database.update(table: Names.content, on: Doc.Properties.body, with: [body], where: Doc.Properties.id == id)
            }
        case .touchViews(let id):
            try database.update(table: Names.content, on: Doc.Properties.views, with: [number], where: Doc.Properties.id == id)
        case .replace(let id):
            try database.insertOrReplace(objects: Workload.doc(id, version: number), intoTable: Names.content)
        case .delete(let id):
            try database.delete(fromTable: Names.content, where: Doc.Properties.id == id)
        case .deleteRange(let low, let high):
            try database.delete(fromTable: Names.content, where: Doc.Properties.id.between(low, high))
        }
    }
}
