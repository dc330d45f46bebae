import Foundation

/// Turns file contents into a document's title and searchable text.
public enum TextExtraction {
    /// Decodes UTF-8 (a leading byte order mark dropped), or returns the 1-based line of the first
    /// invalid byte so the problem can be reported where an editor will find it.
    public static func decodeUTF8(_ data: Data) -> Result<String, LineNumber> {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(validating: bytes, as: UTF8.self) { return .success(text) }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            if scalar == "\n" { line += 1 }
        }
        return .failure(LineNumber(value: line))
    }

    /// A line number as an error, for `decodeUTF8`.
    public struct LineNumber: Error, Sendable, Hashable {
        /// 1-based.
        public var value: Int
    }

    /// The title of a Markdown file: its first `#` heading, if any.
    public static func markdownTitle(_ text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("# ") { return String(trimmed.dropFirst(2)).trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// The text of an HTML page and its `<title>`: tags removed, `<script>`, `<style>` and comments
    /// dropped, entities decoded, block elements turned into line breaks and runs of spaces collapsed.
    /// Works on UTF-8 bytes: every delimiter is ASCII, which never occurs inside a multi-byte character.
    public static func html(_ html: String) -> (title: String?, text: String) {
        let bytes = Array(html.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var title: String?
        var titleStart: Int?
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count, startsMarkup(bytes[i + 1]) else {
                out.append(bytes[i])
                i += 1
                continue
            }
            if matches(bytes, at: i, "<!--") {
                i = find(bytes, "-->", from: i + 4).map { $0 + 3 } ?? bytes.count
                continue
            }
            guard let close = find(bytes, ">", from: i) else { break }
            let tag = tagName(bytes[(i + 1)..<close])
            i = close + 1
            switch tag.name {
            case "script", "style":
                guard !tag.isClosing && !tag.isSelfClosing else { continue }
                let endTag = find(bytes, "</" + tag.name, from: i, caseInsensitive: true)
                i = endTag.flatMap { find(bytes, ">", from: $0) }.map { $0 + 1 } ?? bytes.count
            case "title":
                if tag.isClosing, let start = titleStart {
                    title = collapse(decodeEntities(String(decoding: out[start...], as: UTF8.self)))
                    // The title has its own column; keeping it in the body too would count its words twice.
                    out.removeSubrange(start...)
                    titleStart = nil
                } else if !tag.isClosing {
                    titleStart = out.count
                }
                out.append(0x0A)
            default:
                out.append(blockTags.contains(tag.name) ? 0x0A : 0x20)
            }
        }
        let text = decodeEntities(String(decoding: out, as: UTF8.self))
        let lines = text.split(separator: "\n").map { collapse(String($0)) }.filter { !$0.isEmpty }
        return (title.flatMap { $0.isEmpty ? nil : $0 }, lines.joined(separator: "\n"))
    }

    private static let blockTags: Set<String> = [
        "p", "div", "br", "li", "ul", "ol", "tr", "td", "th", "table", "h1", "h2", "h3", "h4", "h5", "h6",
        "section", "article", "header", "footer", "nav", "main", "aside", "blockquote", "pre", "hr", "dd", "dt",
        "figcaption", "body", "html", "head",
    ]

    /// `<` starts markup only before a letter, `/`, `!` or `?`; otherwise (`a < b`) it is text.
    private static func startsMarkup(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "?")
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func tagName(_ inside: ArraySlice<UInt8>) -> (name: String, isClosing: Bool, isSelfClosing: Bool) {
        let isClosing = inside.first == UInt8(ascii: "/")
        let name = inside.dropFirst(isClosing ? 1 : 0).prefix {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
        return (String(decoding: name, as: UTF8.self).lowercased(), isClosing, inside.last == UInt8(ascii: "/"))
    }

    private static func matches(_ bytes: [UInt8], at index: Int, _ marker: String, caseInsensitive: Bool = false) -> Bool {
        let marker = Array(marker.utf8)
        guard index + marker.count <= bytes.count else { return false }
        for (offset, expected) in marker.enumerated() {
            let byte = bytes[index + offset]
            if byte != expected && !(caseInsensitive && byte | 0x20 == expected | 0x20 && expected.isASCIILetter) { return false }
        }
        return true
    }

    private static func find(_ bytes: [UInt8], _ marker: String, from start: Int, caseInsensitive: Bool = false) -> Int? {
        guard let first = marker.utf8.first, start < bytes.count else { return nil }
        var index = start
        while index < bytes.count {
            if (bytes[index] == first || (caseInsensitive && bytes[index] | 0x20 == first | 0x20))
                && matches(bytes, at: index, marker, caseInsensitive: caseInsensitive) {
                return index
            }
            index += 1
        }
        return nil
    }

    private static func collapse(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    private static let entities: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "mdash": "—", "ndash": "–",
        "hellip": "…", "copy": "©", "reg": "®", "trade": "™", "laquo": "«", "raquo": "»", "lsquo": "‘", "rsquo": "’",
        "ldquo": "“", "rdquo": "”", "middot": "·", "deg": "°", "euro": "€", "pound": "£", "yen": "¥", "times": "×",
        "eacute": "é", "egrave": "è", "ecirc": "ê", "aacute": "á", "agrave": "à", "acirc": "â", "ccedil": "ç",
        "ouml": "ö", "uuml": "ü", "auml": "ä", "szlig": "ß", "ntilde": "ñ", "oacute": "ó", "iacute": "í", "uacute": "ú",
    ]

    /// Decodes `&name;`, `&#123;` and `&#x7B;`; anything unrecognised is left as written.
    public static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semicolon = after.prefix(12).firstIndex(of: ";"), let decoded = entity(after[..<semicolon]) {
                result += decoded
                rest = after[after.index(after: semicolon)...]
            } else {
                result += "&"
                rest = after
            }
        }
        return result + rest
    }

    private static func entity(_ name: Substring) -> String? {
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        return entities[name]
    }
}

private extension UInt8 {
    var isASCIILetter: Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self | 0x20) }
}
