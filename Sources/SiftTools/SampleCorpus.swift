import Foundation

/// The multilingual sample collection shipped in `Corpora/sample`, which `sift demo` indexes.
public enum SampleCorpus {
    /// The example searches of `sift demo`: one per language, each showing something plain
    /// tokenizers get wrong (diacritics, CJK without spaces).
    public static let demoQueries: [(language: String, query: String)] = [
        ("English", "coffee"),
        ("English, diacritics folded", "sao paulo"),
        ("Chinese", "天安门"),
        ("Japanese", "東京タワー"),
        ("Korean", "김치"),
    ]

    /// Finds `Corpora/sample` (a folder holding `corpus.jsonl`) in each of `starts` or up to five of
    /// its parents: the repository root is found from the current directory and from `.build/<config>/sift`.
    public static func locate(from starts: [URL]) -> URL? {
        for start in starts {
            var folder = start.standardizedFileURL
            for _ in 0..<6 {
                let candidate = folder.appendingPathComponent("Corpora/sample")
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("corpus.jsonl").path) { return candidate }
                let parent = folder.deletingLastPathComponent()
                if parent.path == folder.path { break }
                folder = parent
            }
        }
        return nil
    }

    /// Where to look by default: the current directory, then the executable's folder.
    public static var defaultStarts: [URL] {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
        return [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), executable.deletingLastPathComponent()]
    }

    /// A few documents covering the demo queries, for a `sift` installed away from the repository.
    /// Written for this project, like the sample collection.
    public static let embeddedJSONLines = """
        {"_id": "en-1", "title": "Espresso", "text": "Espresso is made by forcing hot water through finely ground coffee. A good shot is topped with a golden crema.", "lang": "en"}
        {"_id": "en-2", "title": "Coffee houses of Vienna", "text": "A traditional Viennese café serves coffee on a small tray with a glass of water.", "lang": "en"}
        {"_id": "en-3", "title": "São Paulo", "text": "São Paulo is the most populous city in Brazil, known for Avenida Paulista and its museums.", "lang": "en"}
        {"_id": "en-4", "title": "Tokyo Tower", "text": "Tokyo Tower is a 333-metre lattice tower in Minato, completed in 1958.", "lang": "en"}
        {"_id": "zh-1", "title": "天安门", "text": "天安门位于北京市中心，1949年10月1日开国大典在天安门城楼上举行。", "lang": "zh-Hans"}
        {"_id": "zh-2", "title": "天安门广场", "text": "天安门广场位于天安门南侧，是世界上最大的城市广场之一。", "lang": "zh-Hans"}
        {"_id": "zh-3", "title": "咖啡", "text": "咖啡在中国的大城市越来越受欢迎，许多年轻人每天喝一杯拿铁。", "lang": "zh-Hans"}
        {"_id": "ja-1", "title": "東京タワー", "text": "東京タワーは東京都港区にある高さ333メートルの電波塔で、1958年に完成した。", "lang": "ja"}
        {"_id": "ja-2", "title": "京都", "text": "京都は千年以上都が置かれた街で、清水寺や金閣寺などの寺が多い。", "lang": "ja"}
        {"_id": "ko-1", "title": "김치", "text": "김치는 배추를 소금에 절인 뒤 양념해 발효시킨 한국의 대표 음식이다.", "lang": "ko"}
        {"_id": "ko-2", "title": "김치찌개", "text": "김치찌개는 잘 익은 김치와 돼지고기, 두부를 넣고 끓인 찌개이다.", "lang": "ko"}
        """
}
