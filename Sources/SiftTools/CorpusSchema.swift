import Foundation
import Sift

/// One row of a corpus database's `documents` table: the text that is searched and what is needed
/// to show it, find it again in its source and tell whether the source has changed since.
public struct StoredDocument: TableCodable, Sendable, Hashable {
    /// The rowid, which is also the full-text index's rowid; nil until inserted.
    public var id: Int?
    /// The document's identity across re-indexing: the source's id field, or the path relative to the folder.
    public var key: String
    /// Searched with the body; may be empty.
    public var title: String
    /// The text that is searched (HTML already reduced to text).
    public var body: String
    /// The folder or file given to `sift index`, as an absolute path: re-indexing it replaces exactly its documents.
    public var origin: String
    /// The file the document came from, as an absolute path.
    public var source: String
    /// The source's other fields as a JSON object, for display and `--where`.
    public var fields: String
    /// The source file's size in bytes (folders), or the text's length in UTF-8 bytes (record files).
    public var size: Int
    /// The source file's modification time in seconds since 1970 (folders); 0 for record files.
    public var mtime: Double
    /// The indexing run that last wrote the row; rows of a re-read file left with an older run are stale.
    public var run: Int

    /// A document not yet inserted.
    public init(key: String, title: String, body: String, origin: String, source: String, fields: String = "{}",
                size: Int, mtime: Double = 0, run: Int = 0) {
        self.key = key
        self.title = title
        self.body = body
        self.origin = origin
        self.source = source
        self.fields = fields
        self.size = size
        self.mtime = mtime
        self.run = run
    }

    /// The columns of `documents`.
    public enum CodingKeys: String, CodingTableKey {
        /// The model the columns belong to.
        public typealias Root = StoredDocument
        /// The binding, computed once.
        public static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, key, title, body, origin, source, fields, size, mtime, run
        /// `id` is the rowid (and the index's); `key` is unique, so a key is one document corpus-wide.
        public static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
            [id: ColumnConstraintBinding(isPrimary: true), key: ColumnConstraintBinding(isNotNull: true, isUnique: true)]
        }
        /// Re-indexing looks documents up by origin (what is there) and by source (what is stale).
        public static var indexBindings: [IndexBinding.Subfix: IndexBinding]? {
            ["_origin": IndexBinding(indexesBy: origin), "_source": IndexBinding(indexesBy: source)]
        }
    }
}

/// The full-text index over a corpus's titles and bodies. The tokenizer declared here is a default
/// only: the one chosen at creation time is recorded in `sift_meta` and passed explicitly.
struct StoredDocumentIndex: TableCodable {
    var title: String
    var body: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = StoredDocumentIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: CorpusDatabase.defaultTokenizer))
        }
    }
}

/// What a search shows of a document: everything but the body, which a snippet stands in for.
struct DocumentSummary: TableDecodable {
    var key: String
    var title: String
    var source: String
    var fields: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = DocumentSummary
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case key, title, source, fields
    }
}

/// Only the key, for evaluation: decoding 1,000 bodies per query would dominate query time.
struct DocumentKey: TableDecodable {
    var key: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = DocumentKey
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case key
    }
}

/// One setting in `sift_meta`; the table's presence is what marks a file as a Sift corpus.
struct MetaEntry: TableCodable {
    var name: String
    var value: String
    enum CodingKeys: String, CodingTableKey {
        typealias Root = MetaEntry
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case name, value
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
            [name: ColumnConstraintBinding(isPrimary: true)]
        }
    }
}
