import Foundation
import SiftICU

/// Turns file contents into a document's title and searchable text.
public enum TextExtraction {
    /// A file's text and the charset it was read as.
    public struct DecodedText: Sendable, Hashable {
        /// The text, a leading byte order mark dropped.
        public var text: String
        /// "UTF-8" for valid UTF-8, else the charset ICU read it as (see `SiftICU.TextDecoding`).
        public var charset: String
    }

    /// Why a file's bytes are not taken as text; `description` is the reason given when it is skipped.
    public enum NotText: Error, Sendable, Hashable, CustomStringConvertible {
        /// NUL bytes in the first 8 KB (no text charset but UTF-16/32 has them, and those need a byte order mark).
        case nulBytes(offset: Int)
        /// Mostly control characters in the first 8 KB.
        case controlCharacters(percent: Int)
        /// No charset fits well enough; `guess` is ICU's best, with its confidence.
        case unknownCharset(guess: String?, confidence: Int)

        /// e.g. "binary content (NUL byte at offset 3)".
        public var description: String {
            switch self {
            case .nulBytes(let offset): return "binary content (NUL byte at offset \(offset))"
            case .controlCharacters(let percent): return "binary content (\(percent)% control characters)"
            case .unknownCharset(let guess?, let confidence):
                return "binary content or unknown charset (best guess \(guess), \(confidence)% confident)"
            case .unknownCharset(nil, _): return "binary content or unknown charset (no charset fits)"
            }
        }
    }

    /// How far the binary checks and the search for a charset declaration look.
    static let binaryProbeLength = 8192, declarationProbeLength = 1024

    /// Decodes a text file in any charset. A UTF-16 or UTF-32 byte order mark selects that encoding. Anything
    /// else is binary when its first 8 KB hold a NUL byte or are over 10% control characters (other than tab,
    /// line and page breaks, backspace, escape and SUB), even if it is valid UTF-8. Valid UTF-8 (with or
    /// without a byte order mark) is taken as it is, without ICU. Other text is read in the charset that an HTML
    /// `<meta charset>` or `<meta http-equiv="Content-Type">` or an XML declaration in the first 1 KB names
    /// (looked for when the file starts with `<` or `isMarkup` is set), else in the one ICU detects.
    public static func decode(_ data: Data, isMarkup: Bool = false) -> Result<DecodedText, NotText> {
        let bytes = data[...]
        for (mark, charset) in byteOrderMarks where bytes.starts(with: mark) {
            // ICU's UTF-16 and UTF-32 converters read the byte order from the mark and drop it.
            if let converted = TextDecoding.convert(data, from: charset) {
                return .success(DecodedText(text: converted.text, charset: charset + (mark.first == 0xFF ? "LE" : "BE")))
            }
        }
        let probe = bytes.prefix(binaryProbeLength)
        if let nul = probe.firstIndex(of: 0) { return .failure(.nulBytes(offset: nul - bytes.startIndex)) }
        let controls = probe.count { $0 < 0x20 && !allowedControls.contains($0) || $0 == 0x7F }
        if controls * 10 > probe.count { return .failure(.controlCharacters(percent: controls * 100 / probe.count)) }
        if let text = String(validating: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes, as: UTF8.self) {
            return .success(DecodedText(text: text, charset: "UTF-8"))
        }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let declared = isMarkup || first == UInt8(ascii: "<") ? declaredCharset(bytes.prefix(declarationProbeLength)) : nil
        if let decoded = TextDecoding.decode(data, declared: declared) {
            return .success(DecodedText(text: decoded.text, charset: decoded.charset))
        }
        let guess = TextDecoding.detectCharset(data)
        return .failure(.unknownCharset(guess: guess?.charset, confidence: guess?.confidence ?? 0))
    }

    /// UTF-32 first: its little-endian mark starts with UTF-16's.
    private static let byteOrderMarks: [([UInt8], String)] = [
        ([0xFF, 0xFE, 0x00, 0x00], "UTF-32"), ([0x00, 0x00, 0xFE, 0xFF], "UTF-32"), ([0xFF, 0xFE], "UTF-16"), ([0xFE, 0xFF], "UTF-16"),
    ]

    /// Backspace (nroff's overstrike bold), tab, line feed, vertical tab, form feed, carriage return, SUB (DOS end
    /// of file) and escape (terminal colours, ISO-2022 charsets).
    private static let allowedControls: Set<UInt8> = [0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1A, 0x1B]

    /// The charset an HTML `<meta charset=...>`, `<meta http-equiv="Content-Type" content="...; charset=...">`
    /// or XML declaration `<?xml ... encoding="..."?>` names in `bytes` (lowercased), which are read as ASCII (as in
    /// every charset such a declaration can be written in).
    public static func declaredCharset<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        // Lowercased: charset names and HTML are case-insensitive.
        let lower = String(decoding: bytes.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self).lowercased()
        let head = lower.drop { $0.isWhitespace }
        if head.hasPrefix("<?xml"), let end = head.range(of: "?>"), let value = attribute("encoding", in: head[..<end.lowerBound]) {
            return value
        }
        var rest = lower[...]
        while let meta = rest.range(of: "<meta") {
            let tagEnd = rest[meta.upperBound...].firstIndex(of: ">") ?? rest.endIndex
            let tag = rest[meta.upperBound..<tagEnd]
            if let value = attribute("charset", in: tag) { return value }
            if let content = attribute("content", in: tag), let range = content.range(of: "charset=") {
                let value = content[range.upperBound...].prefix { !";, \"'".contains($0) }
                if !value.isEmpty { return String(value) }
            }
            rest = rest[tagEnd...]
        }
        return nil
    }

    /// The value of `name=value`, `name="value"` or `name='value'` in `tag`.
    private static func attribute(_ name: String, in tag: Substring) -> String? {
        var search = tag
        while let found = search.range(of: name) {
            search = search[found.upperBound...]
            // A whole attribute name: not the tail of another (http-equiv="content-type" holds "content").
            if found.lowerBound > tag.startIndex, !" \t\n\r\"'/".contains(tag[tag.index(before: found.lowerBound)]) { continue }
            var rest = tag[found.upperBound...].drop { $0 == " " }
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop { $0 == " " }
            let value: Substring
            if let quote = rest.first, quote == "\"" || quote == "'" {
                value = rest.dropFirst().prefix { $0 != quote }
            } else {
                value = rest.prefix { !" \t\n\r>/;\"'".contains($0) }
            }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
        return nil
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
