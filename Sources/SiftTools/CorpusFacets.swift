import Foundation
import Sift

/// Facets of a corpus: record fields (JSON Lines fields, CSV columns) whose values searches count over all of their
/// matches. Each is a column `facet_<field>` of `documents`, filled from the document's stored fields with
/// `json_extract` (numbers stay numbers, a missing field is NULL), and declared as a facet of `documents_fts`, so
/// Sift keeps its counts exact as documents come and go.
extension CorpusDatabase {
    static let facetPrefix = "facet_"

    /// The column of `documents` that holds facet `field`.
    static func facetColumn(_ field: String) -> String { facetPrefix + field }

    /// The corpus's facet fields, in the order they were added.
    public func facetFields() throws -> [String] {
        try translatingErrors {
            try database.getRows(sql: "SELECT name FROM pragma_table_info(?) WHERE substr(name, 1, ?) = ? ORDER BY cid",
                                 values: [Self.documentsTable, Self.facetPrefix.count, Self.facetPrefix])
                .map { String($0[0].stringValue.dropFirst(Self.facetPrefix.count)) }
        }
    }

    /// Makes `fields` facets of the corpus (those that are not yet), and fills every facet from the documents'
    /// stored fields: after an indexing run, the new and changed documents get their values.
    public func updateFacets(adding fields: [String]) throws {
        for field in fields where field.isEmpty || field.contains("\"") {
            throw SiftToolError.invalidArgument("--facet takes a field name without double quotes, not \"\(field)\"")
        }
        let existing = try facetFields()
        let added = fields.filter { !existing.contains($0) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let all = existing + added
        guard !all.isEmpty else { return }
        try translatingErrors {
            try database.run(transaction: {
                for field in added {
                    try database.exec(sql: "ALTER TABLE \(Self.documentsTable) ADD COLUMN \"\(Self.facetColumn(field))\"")
                }
                for field in all {
                    let column = "\"\(Self.facetColumn(field))\"", path = "$.\"" + field + "\""
                    // Only rows whose value differs are written: an update of a facet column alone leaves the
                    // full-text index as it is, and Sift's facet structures follow it.
                    try database.exec(sql: "UPDATE \(Self.documentsTable) SET \(column) = json_extract(fields, ?1) "
                                           + "WHERE \(column) IS NOT json_extract(fields, ?1)", values: [path])
                }
                if !added.isEmpty {
                    try database.create(virtualTable: Self.indexTable, of: StoredDocumentIndex.self, syncedWith: Self.documentsTable,
                                        tokenizer: tokenizer, facets: all.map(Self.facetColumn))
                }
            })
        }
    }
}
