import Foundation
import Sift

/// A document whose title, body and payload are stored compressed.
final class PackedDoc: TableCodable, Equatable {
    var id: Int? = nil
    var title: String = ""
    var body: String = ""
    var payload: Data? = nil
    var category: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = PackedDoc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body, payload, category
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
        static var columnCompressionBindings: [CodingKeys: ColumnCompression]? { [title: .zstd, body: .zstd, payload: .zstd(level: 5)] }
    }
    init() {}
    init(_ id: Int?, _ title: String, _ body: String, payload: Data? = nil, category: String = "") {
        self.id = id
        self.title = title
        self.body = body
        self.payload = payload
        self.category = category
    }
    static func == (a: PackedDoc, b: PackedDoc) -> Bool {
        a.id == b.id && a.title == b.title && a.body == b.body && a.payload == b.payload && a.category == b.category
    }
}

/// The same columns as `PackedDoc`, none compressed: the plain twin of the differential tests.
final class PlainDoc: TableCodable {
    var id: Int? = nil
    var title: String = ""
    var body: String = ""
    var payload: Data? = nil
    var category: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = PlainDoc
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body, payload, category
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ doc: PackedDoc) {
        id = doc.id
        title = doc.title
        body = doc.body
        payload = doc.payload
        category = doc.category
    }
}

/// The index over a document's title and body.
final class PackedDocIndex: TableCodable {
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = PackedDocIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61"))
        }
    }
}

/// `PackedDoc` after a migration step that renames `body` to `text` and drops `payload`: title and text compressed.
final class PackedDocRenamed: TableCodable {
    var id: Int? = nil
    var title: String = ""
    var text: String = ""
    var category: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = PackedDocRenamed
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, text, category
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
        static var columnCompressionBindings: [CodingKeys: ColumnCompression]? { [title: .zstd, text: .zstd] }
    }
}
