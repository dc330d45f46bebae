import Foundation

/// Vectors by id from a JSON Lines file, one `{"_id": "...", "vector": [0.1, -0.2, ...]}` a line: what
/// `scripts/embed-collection.py` writes for a collection's corpus and queries. Every vector must hold finite
/// numbers, as many as the first one, and at most ``maximumDimension``; a bad line is an ``InputError`` naming it.
///
///     let queries = try VectorFile.load(URL(fileURLWithPath: "/tmp/sift-embeddings/cisi/queries.jsonl"))
///     print(queries.dimension, queries.vectors["1"]?.count ?? 0)
public struct VectorFile: Sendable, Hashable {
    /// The vectors by `_id`; a repeated id keeps its last vector.
    public var vectors: [String: [Float]]
    /// The number of values of every vector (0 for an empty file).
    public var dimension: Int

    /// The largest dimension read (that of a vector index, 65,536): a longer array is refused before it is kept.
    public static let maximumDimension = 65_536

    /// Reads `url` whole (blank lines are skipped); `field` names the array of each line.
    public static func load(_ url: URL, field: String = "vector") throws -> VectorFile {
        let reader = try JSONLinesReader(url: url)
        var file = VectorFile(vectors: [:], dimension: 0)
        while let (line, object) = try reader.nextFoundationObject() {
            guard let id = object["_id"] as? String ?? (object["_id"] as? Int).map(String.init) else {
                throw InputError(.missingField("_id"), line: line, path: reader.path)
            }
            let vector = try values(object[field], field: field, line: line, path: reader.path)
            if file.dimension == 0 { file.dimension = vector.count }
            guard vector.count == file.dimension else {
                throw InputError(.malformedRecord("\"\(field)\" has \(vector.count) values; the file's first vector has \(file.dimension)"),
                                 line: line, path: reader.path)
            }
            file.vectors[id] = vector
        }
        return file
    }

    /// The floats of a JSON array of finite numbers, 1 to ``maximumDimension`` of them, or an ``InputError`` saying
    /// what is wrong with `value` (the `field` of line `line` of `path`).
    public static func values(_ value: Any?, field: String, line: Int, path: String?) throws(InputError) -> [Float] {
        guard let array = value as? [Any] else { throw InputError(.missingField(field), line: line, path: path) }
        guard (1...maximumDimension).contains(array.count) else {
            throw InputError(.malformedRecord("\"\(field)\" holds \(array.count) values; a vector takes 1 to \(maximumDimension)"),
                             line: line, path: path)
        }
        var vector: [Float] = []
        vector.reserveCapacity(array.count)
        for (position, element) in array.enumerated() {
            // JSONSerialization reads every JSON number as an NSNumber; so are true and false (type code "c" or
            // "B"), which are refused.
            guard let number = element as? NSNumber, !["c", "B"].contains(String(cString: number.objCType)),
                  Float(number.doubleValue).isFinite else {
                throw InputError(.malformedRecord("\"\(field)\"[\(position)] is not a finite number"), line: line, path: path)
            }
            vector.append(Float(number.doubleValue))
        }
        return vector
    }
}
