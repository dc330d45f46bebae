import Foundation
import Sift

final class Article: TableCodable {
    var id: Int? = nil
    var title: String = ""
    var body: String = ""
    var views: Int = 0
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Article
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body, views
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ id: Int?, _ title: String, _ body: String, views: Int = 0) {
        self.id = id
        self.title = title
        self.body = body
        self.views = views
    }
}

/// The index over Article's title and body.
final class ArticleIndex: TableCodable {
    var title: String = ""
    var body: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ArticleIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61 remove_diacritics 2"))
        }
    }
}

/// A self-contained FTS5 table with an unindexed column.
final class Note: TableCodable {
    var text: String = ""
    var tag: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Note
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case text, tag
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [tag: ColumnConstraintBinding(isUnindexed: true)] }
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "porter unicode61"), ModuleArgument(withPrefixes: [2, 3]))
        }
    }
    init() {}
    init(_ text: String, _ tag: String) { self.text = text; self.tag = tag }
}
