import Foundation

/// One corpus document. Named apart from anything in `Sift` so both modules can be imported together.
public struct CorpusDocument: Sendable, Hashable {
    /// BEIR's `_id`; numeric IDs are turned into their decimal text, as BEIR's own loader does.
    public var id: String
    /// Empty when the line has no title (Medline and NPL have none).
    public var title: String
    /// The body; indexed together with the title.
    public var text: String
    /// Every other field on the line (BEIR's `metadata`, URLs), kept so loading loses nothing.
    public var fields: [String: JSONValue]

    /// Creates a document; `title` and `fields` default to empty.
    public init(id: String, title: String = "", text: String, fields: [String: JSONValue] = [:]) {
        self.id = id
        self.title = title
        self.text = text
        self.fields = fields
    }
}

/// One test query (a "topic" in TREC terms).
public struct EvaluationQuery: Sendable, Hashable {
    /// Matches the query IDs in the judgments and in run files.
    public var id: String
    /// What the user typed, in the collection's language.
    public var text: String
    /// Every field other than `_id` and `text`.
    public var fields: [String: JSONValue]

    /// Creates a query; `fields` defaults to empty.
    public init(id: String, text: String, fields: [String: JSONValue] = [:]) {
        self.id = id
        self.text = text
        self.fields = fields
    }
}

extension CorpusDocument {
    private static let knownFields: Set<String> = ["_id", "title", "text"]

    /// `_id` and `text` are required; a missing or `null` title is an empty title.
    init(object: [String: Any], line: Int, path: String) throws(InputError) {
        id = try requiredID(object, line: line, path: path)
        text = try requiredString(object, "text", line: line, path: path)
        let rawTitle = object["title"]
        title = try optionalString(rawTitle, "title", line: line, path: path)
        let known = 2 + (rawTitle == nil ? 0 : 1)
        fields = object.count > known ? extraFields(object, excluding: Self.knownFields) : [:]
    }
}

extension EvaluationQuery {
    private static let knownFields: Set<String> = ["_id", "text"]

    /// `_id` and `text` are required.
    init(object: [String: Any], line: Int, path: String) throws(InputError) {
        id = try requiredID(object, line: line, path: path)
        text = try requiredString(object, "text", line: line, path: path)
        fields = object.count > 2 ? extraFields(object, excluding: Self.knownFields) : [:]
    }
}

// Casts are tried in the order the data almost always has, because each failed `as?` on `Any` costs.
private func requiredID(_ object: [String: Any], line: Int, path: String) throws(InputError) -> String {
    let value = object["_id"]
    if let id = value as? String { return id }
    if let number = value.map(JSONValue.init(foundation:)), case .integer(let id) = number { return String(id) }
    throw InputError(.missingField("_id"), line: line, path: path)
}

private func requiredString(_ object: [String: Any], _ key: String, line: Int, path: String) throws(InputError) -> String {
    guard let value = object[key] as? String else { throw InputError(.missingField(key), line: line, path: path) }
    return value
}

private func optionalString(_ value: Any?, _ key: String, line: Int, path: String) throws(InputError) -> String {
    guard let value else { return "" }
    if let string = value as? String { return string }
    guard value is NSNull else { throw InputError(.missingField(key), line: line, path: path) }
    return ""
}

private func extraFields(_ object: [String: Any], excluding known: Set<String>) -> [String: JSONValue] {
    var fields: [String: JSONValue] = [:]
    for (key, value) in object where !known.contains(key) {
        fields[key] = JSONValue(foundation: value)
    }
    return fields
}
