import Foundation

/// A test collection in the BEIR layout: `corpus.jsonl`, `queries.jsonl` and `qrels.tsv` in one folder.
/// Queries and judgments are loaded whole (they are small); the corpus is streamed unless asked for.
public struct TestCollection: Sendable, Hashable {
    /// The files a collection needs, named as they appear on disk.
    public enum File: String, Sendable, Hashable, CaseIterable {
        /// The documents, one JSON object a line.
        case corpus = "corpus.jsonl"
        /// The queries, one JSON object a line.
        case queries = "queries.jsonl"
        /// The relevance judgments, tab-separated with a header.
        case qrels = "qrels.tsv"
    }

    /// The collection's folder.
    public let folder: URL

    /// The folder's name, which is how collections are referred to in reports ("cranfield", "npl").
    public var name: String { folder.lastPathComponent }

    /// Points at `folder`; nothing is read until asked, so this cannot fail.
    public init(folder: URL) {
        self.folder = folder
    }

    /// Where `file` lives. For judgments, a plain BEIR download keeps them in `qrels/test.tsv`; that is
    /// used when `qrels.tsv` is absent, so such a download works without renaming.
    public func url(for file: File) -> URL {
        let direct = folder.appendingPathComponent(file.rawValue)
        if file == .qrels, !isFile(direct) {
            let beir = folder.appendingPathComponent("qrels").appendingPathComponent("test.tsv")
            if isFile(beir) { return beir }
        }
        return direct
    }

    /// The required files that are not there, in `File.allCases` order; empty when the collection is complete.
    public func missingFiles() -> [File] {
        File.allCases.filter { !isFile(url(for: $0)) }
    }

    /// Throws a `TestCollectionError` naming every missing file at once, so a half-copied
    /// collection is fixed in one go instead of one file per attempt.
    public func validate() throws {
        let missing = missingFiles()
        guard missing.isEmpty else {
            throw TestCollectionError(folder: folder, missing: missing, folderExists: isDirectory(folder))
        }
    }

    /// All queries in file order.
    public func loadQueries(policy: MalformedLinePolicy = .strict) throws -> [EvaluationQuery] {
        try requireFile(.queries)
        return try loadQueries(from: url(for: .queries), policy: policy)
    }

    /// Queries in the layout of `queries.jsonl` from another file, such as the collection's `queries-typos.jsonl`
    /// (the same queries misspelled), in file order.
    public func loadQueries(from file: URL, policy: MalformedLinePolicy = .strict) throws -> [EvaluationQuery] {
        let reader = try JSONLinesReader(url: file, policy: policy)
        var queries: [EvaluationQuery] = []
        while let (line, object) = try reader.nextFoundationObject() {
            do {
                queries.append(try EvaluationQuery(object: object, line: line, path: reader.path))
            } catch {
                try reader.reject(error)
            }
        }
        return queries
    }

    /// The relevance judgments.
    public func loadQrels(policy: MalformedLinePolicy = .strict) throws -> Qrels {
        try requireFile(.qrels)
        return try Qrels(contentsOf: url(for: .qrels), policy: policy)
    }

    /// A streaming reader over the corpus.
    public func corpus(policy: MalformedLinePolicy = .strict) throws -> CorpusReader {
        try requireFile(.corpus)
        return try CorpusReader(url: url(for: .corpus), policy: policy)
    }

    /// The whole corpus in memory, for small collections and tests; prefer `corpus(policy:)` for anything large.
    public func loadCorpus(policy: MalformedLinePolicy = .strict) throws -> [CorpusDocument] {
        var documents: [CorpusDocument] = []
        try corpus(policy: policy).forEach { documents.append($0) }
        return documents
    }

    private func requireFile(_ file: File) throws {
        guard isFile(url(for: file)) else {
            throw TestCollectionError(folder: folder, missing: [file], folderExists: isDirectory(folder))
        }
    }
}

/// A collection folder that is missing, or missing files; the message lists all of them and says
/// what the layout should be, since the usual cause is a wrong path or a partial copy.
public struct TestCollectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The folder that was looked at.
    public var folder: URL
    /// Every required file that is not there.
    public var missing: [TestCollection.File]
    /// False when the folder itself is absent, which usually means a wrong path rather than a partial copy.
    public var folderExists: Bool

    /// Creates the error; normally thrown by `TestCollection`.
    public init(folder: URL, missing: [TestCollection.File], folderExists: Bool) {
        self.folder = folder
        self.missing = missing
        self.folderExists = folderExists
    }

    /// Names the folder and every missing file.
    public var description: String {
        let expected = TestCollection.File.allCases.map(\.rawValue).joined(separator: ", ")
        guard folderExists else {
            return "no test collection at \(folder.path): the folder does not exist (expected \(expected) in it)"
        }
        let names = missing.map(\.rawValue).joined(separator: ", ")
        return "test collection at \(folder.path) is missing \(names) (a BEIR-layout folder needs \(expected))"
    }
}

private func isFile(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
}

private func isDirectory(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
}
