import Foundation
import Sift

/// The user table of AHDataModel's migration examples as it shipped first (version 0): `sex`, separate names.
final class UserV0: TableCodable {
    var id: Int? = nil
    var sex: String? = nil
    var firstName: String? = nil
    var lastName: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = UserV0
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, sex, firstName, lastName
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ id: Int, _ sex: String?, _ firstName: String?, _ lastName: String?) {
        self.id = id; self.sex = sex; self.firstName = firstName; self.lastName = lastName
    }
}

/// Version 1: `sex` became `gender`.
final class UserV1: TableCodable {
    var id: Int? = nil
    var gender: String? = nil
    var firstName: String? = nil
    var lastName: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = UserV1
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, gender, firstName, lastName
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// Version 2: `fullName` ("last, first").
final class UserV2: TableCodable {
    var id: Int? = nil
    var gender: String? = nil
    var firstName: String? = nil
    var lastName: String? = nil
    var fullName: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = UserV2
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, gender, firstName, lastName, fullName
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// Version 3, the current model: `msgCount`, each user's number of chat messages.
final class User: TableCodable {
    var id: Int? = nil
    var gender: String? = nil
    var firstName: String? = nil
    var lastName: String? = nil
    var fullName: String? = nil
    var msgCount: Int = 0
    enum CodingKeys: String, CodingTableKey {
        typealias Root = User
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, gender, firstName, lastName, fullName, msgCount
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
            [id: ColumnConstraintBinding(isPrimary: true), msgCount: ColumnConstraintBinding(isNotNull: true, defaultTo: 0)]
        }
    }
}

final class Chat: TableCodable {
    var id: Int? = nil
    var userId: Int = 0
    var text: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Chat
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, userId, text
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
    init() {}
    init(_ userId: Int, _ text: String) { self.userId = userId; self.text = text }
}

/// An item whose `score` was text and which carried a `legacy` column and an index on `name`.
final class ItemV0: TableCodable {
    var id: Int? = nil
    var name: String = ""
    var score: String = ""
    var legacy: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ItemV0
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, name, score, legacy
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
        static var indexBindings: [IndexBinding.Subfix: IndexBinding]? { ["_name": IndexBinding(indexesBy: name)] }
    }
    init() {}
    init(_ id: Int, _ name: String, _ score: String, _ legacy: String?) {
        self.id = id; self.name = name; self.score = score; self.legacy = legacy
    }
}

/// The item now: `score` is an integer, `name` is unique, `legacy` is gone.
final class Item: TableCodable {
    var id: Int? = nil
    var name: String = ""
    var score: Int = 0
    enum CodingKeys: String, CodingTableKey {
        typealias Root = Item
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, name, score
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
            [id: ColumnConstraintBinding(isPrimary: true), name: ColumnConstraintBinding(isNotNull: true, isUnique: true)]
        }
        static var indexBindings: [IndexBinding.Subfix: IndexBinding]? { ["_name": IndexBinding(indexesBy: name)] }
    }
}

/// A row that refers to an item.
final class ItemTag: TableCodable {
    var id: Int? = nil
    var itemId: Int = 0
    var tag: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ItemTag
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, itemId, tag
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
        static var tableConstraintBindings: [TableConstraintBinding.Name: TableConstraintBinding]? {
            ["itemFK": ForeignKeyBinding(itemId, foreignTable: "item", foreignColumns: Item.CodingKeys.id, onDelete: .cascade)]
        }
    }
    init() {}
    init(_ itemId: Int, _ tag: String) { self.itemId = itemId; self.tag = tag }
}

/// Article after a migration renamed `body` to `text` and made `views` text.
final class ArticleV2: TableCodable {
    var id: Int? = nil
    var title: String = ""
    var text: String = ""
    var views: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ArticleV2
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, text, views
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// Article after a migration dropped `title`.
final class ArticleV3: TableCodable {
    var id: Int? = nil
    var text: String = ""
    var views: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ArticleV3
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, text, views
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// Article after a migration added `summary`, which its index covers too.
final class ArticleWithSummary: TableCodable {
    var id: Int? = nil
    var title: String = ""
    var body: String = ""
    var views: Int = 0
    var summary: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ArticleWithSummary
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case id, title, body, views, summary
        static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? { [id: ColumnConstraintBinding(isPrimary: true)] }
    }
}

/// The index over title, body and the new summary.
final class ArticleSummaryIndex: TableCodable {
    var title: String = ""
    var body: String = ""
    var summary: String = ""
    enum CodingKeys: String, CodingTableKey {
        typealias Root = ArticleSummaryIndex
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case title, body, summary
        static var virtualTableBinding: VirtualTableBinding? {
            VirtualTableBinding(with: .fts5, and: ModuleArgument(withTokenize: "unicode61 remove_diacritics 2"))
        }
    }
}
