/// Word-segmentation quality as the SIGHAN bakeoff scores it: each sentence's segmentation becomes a set of
/// (start, end) character spans; precision, recall and F1 over all sentences, and recall on gold words that
/// are not in the training vocabulary (out-of-vocabulary recall).
public struct SegmentationScore: Sendable, Equatable, CustomStringConvertible {
    /// Predicted words that are gold words.
    public private(set) var matched = 0
    /// Predicted words.
    public private(set) var predicted = 0
    /// Gold words.
    public private(set) var gold = 0
    /// Gold words outside the training vocabulary, and how many of them were predicted exactly.
    public private(set) var goldOOV = 0
    public private(set) var matchedOOV = 0

    /// An empty score, to add sentences to.
    public init() {}

    /// Adds one sentence: the predicted and gold words as consecutive strings (their concatenations must be
    /// the same text, without separators); `vocabulary` tells in-vocabulary words.
    public mutating func add(predicted predictedWords: [String], gold goldWords: [String], vocabulary: Set<String>) {
        let predictedSpans = Set(SegmentationScore.spans(predictedWords))
        let goldSpans = SegmentationScore.spans(goldWords)
        predicted += predictedSpans.count
        gold += goldSpans.count
        for (span, word) in zip(goldSpans, goldWords) {
            let hit = predictedSpans.contains(span)
            if hit { matched += 1 }
            if !vocabulary.contains(word) {
                goldOOV += 1
                if hit { matchedOOV += 1 }
            }
        }
    }

    /// Character spans of consecutive words.
    static func spans(_ words: [String]) -> [Range<Int>] {
        var position = 0
        return words.map { word in
            let count = word.count
            defer { position += count }
            return position..<(position + count)
        }
    }

    /// Matched / predicted.
    public var precision: Double { predicted == 0 ? 0 : Double(matched) / Double(predicted) }
    /// Matched / gold.
    public var recall: Double { gold == 0 ? 0 : Double(matched) / Double(gold) }
    /// Harmonic mean of precision and recall.
    public var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
    /// Recall over gold words outside the training vocabulary.
    public var oovRecall: Double { goldOOV == 0 ? 0 : Double(matchedOOV) / Double(goldOOV) }

    public var description: String {
        "P \(precision.formatted3) R \(recall.formatted3) F1 \(f1.formatted3) OOV-R \(oovRecall.formatted3)"
    }
}

extension Double {
    var formatted3: String {
        let scaled = (self * 1000).rounded() / 1000
        return String(scaled)
    }
}
