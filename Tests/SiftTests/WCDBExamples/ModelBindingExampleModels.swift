import Foundation
import Sift

// The models of WCDB Swift's model-binding documentation, verbatim except for their namespace.

enum FieldMapping {
    class Sample: TableCodable {
        var identifier: Int? = nil
        var description: String? = nil
        var offset: Int = 0
        var debugDescription: String? = nil
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Sample
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case identifier = "id"
            case description
            case offset = "db_offset"
        }
    }
}

enum ColumnConstraints {
    class Sample: TableCodable {
        var identifier: Int? = nil
        var description: String? = nil
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Sample
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case identifier
            case description
            static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
                return [
                    identifier: ColumnConstraintBinding(isPrimary: true),
                    description: ColumnConstraintBinding(isNotNull: true, defaultTo: "defaultDescription"),
                ]
            }
        }
        var isAutoIncrement: Bool = false
        var lastInsertedRowID: Int64 = 0
    }
}

enum Indexes {
    class Sample: TableCodable {
        var identifier: Int? = nil
        var description: String? = nil
        var multiIndexPart1: Int = 0
        var multiIndexPart2: Int = 0
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Sample
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case identifier
            case description
            case multiIndexPart1
            case multiIndexPart2
            static var indexBindings: [IndexBinding.Subfix: IndexBinding]? {
                return [
                    "_uniqueIndex": IndexBinding(isUnique: true, indexesBy: identifier),
                    "_descendingIndex": IndexBinding(indexesBy: description.asIndex(orderBy: .descending)),
                    "_multiIndex": IndexBinding(indexesBy: multiIndexPart1, multiIndexPart2.asIndex(orderBy: .ascending)),
                ]
            }
        }
    }
}

enum TableConstraints {
    class Sample: TableCodable {
        var identifier: Int? = nil
        var multiPrimaryKeyPart1: Int = 0
        var multiPrimaryKeyPart2: Int = 0
        var multiUniquePart1: Int = 0
        var multiUniquePart2: Int = 0
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Sample
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case identifier
            case multiPrimaryKeyPart1
            case multiPrimaryKeyPart2
            case multiUniquePart1
            case multiUniquePart2
            static var tableConstraintBindings: [TableConstraintBinding.Name: TableConstraintBinding]? {
                let multiPrimaryBinding =
                    MultiPrimaryBinding(indexesBy: multiPrimaryKeyPart1.asIndex(orderBy: .descending), multiPrimaryKeyPart2)
                let multiUniqueBinding =
                    MultiUniqueBinding(indexesBy: multiUniquePart1, multiUniquePart2.asIndex(orderBy: .ascending))
                return [
                    "MultiPrimaryConstraint": multiPrimaryBinding,
                    "MultiUniqueConstraint": multiUniqueBinding,
                ]
            }
        }
    }
}

enum UpgradeV1 {
    class Sample: TableCodable {
        var identifier: Int? = nil
        var description: String? = nil
        var createDate: Date? = nil
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Sample
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case identifier
            case description
            case createDate
        }
    }
}

enum UpgradeV2 {
    class Sample: TableCodable {
        var identifier: Int? = nil
        var content: String? = nil
        var title: String? = nil
        enum CodingKeys: String, CodingTableKey {
            typealias Root = Sample
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case identifier
            case content = "description"
            case title
            // WCDB's text declares this beside CodingKeys, where `title` is not in scope: its evident place is here.
            static var indexBindings: [IndexBinding.Subfix: IndexBinding]? {
                return [
                    "_index": IndexBinding(indexesBy: title)
                ]
            }
        }
    }
}

enum CRUD {
    class Sample: TableCodable {
        var identifier: Int? = nil
        var description: String? = nil

        enum CodingKeys: String, CodingTableKey {
            typealias Root = Sample
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case identifier
            case description

            static var columnConstraintBindings: [CodingKeys: ColumnConstraintBinding]? {
                return [
                    identifier: ColumnConstraintBinding(isPrimary: true),
                ]
            }
        }
    }

    class PartialSample: TableCodable {
        var identifier: Int? = nil
        var description: String = ""

        enum CodingKeys: String, CodingTableKey {
            typealias Root = PartialSample
            static let objectRelationalMapping = TableBinding(CodingKeys.self)
            case identifier
            case description
        }
    }
}
