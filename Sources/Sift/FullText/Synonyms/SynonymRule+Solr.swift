extension SynonymRule {
    /// The rules of a text in Solr's synonyms format, one rule a line, in canonical form (see ``canonical()``).
    ///
    ///     # vehicles                      a comment: a line whose first non-blank character is #
    ///     car, automobile, auto           a two-way group
    ///     nyc, big apple => new york city each entry on the left also finds each on the right
    ///     1\,000, one thousand            a backslash escapes the next character (a comma, \, =, #)
    ///
    /// Blank lines are skipped. A line with more than one `=>`, an empty side or entry, or an invalid entry is a
    /// ``SiftError`` (code `.misuse`) naming its line number; ``description`` writes a rule back as such a line.
    public static func solrRules(_ text: String) throws -> [SynonymRule] {
        var rules: [SynonymRule] = []
        var number = 0
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            number += 1
            var scalars = Substring(line).unicodeScalars.drop { $0.properties.isWhitespace }
            if number == 1 && scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst().drop { $0.properties.isWhitespace } }
            guard let first = scalars.first, first != "#" else { continue }
            do {
                let sides = split(Array(scalars), on: "=>")
                let rule: SynonymRule
                switch sides.count {
                case 1: rule = .equivalent(try sideEntries(sides[0]))
                case 2: rule = .oneWay(from: try sideEntries(sides[0]), to: try sideEntries(sides[1]))
                default: throw invalid("More than one => on a line.")
                }
                rules.append(try rule.canonical())
            } catch let error as SiftError {
                throw invalid("Synonyms line \(number): \(error.message)")
            }
        }
        return rules
    }

    /// The entries of one side of a line, unescaped; an empty one is an error.
    private static func sideEntries(_ side: [Unicode.Scalar]) throws -> [String] {
        try split(side, on: ",").map { raw in
            var text = ""
            var escaped = false
            for scalar in raw {
                if !escaped && scalar == "\\" { escaped = true; continue }
                escaped = false
                text.unicodeScalars.append(scalar)
            }
            guard text.contains(where: { !$0.isWhitespace }) else { throw invalid("An entry is empty.") }
            return text
        }
    }

    /// `scalars` split at each `separator` that no backslash escapes (the escapes are kept, for `sideEntries`).
    private static func split(_ scalars: [Unicode.Scalar], on separator: String) -> [[Unicode.Scalar]] {
        let mark = Array(separator.unicodeScalars)
        var parts: [[Unicode.Scalar]] = [[]]
        var i = 0
        while i < scalars.count {
            if scalars[i] == "\\" {
                parts[parts.count - 1].append(contentsOf: scalars[i..<min(i + 2, scalars.count)])
                i += 2
            } else if scalars[i...].starts(with: mark) {
                parts.append([])
                i += mark.count
            } else {
                parts[parts.count - 1].append(scalars[i])
                i += 1
            }
        }
        return parts
    }
}
