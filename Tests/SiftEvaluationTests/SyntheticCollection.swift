import SiftEvaluation

/// A small made-up run and judgments that exercise everything trec_eval is particular about: graded
/// relevance, long runs of tied scores (across the @10 and @100 cut-offs), relevant documents never
/// retrieved, a judged query with no results, a query with nothing relevant, a query absent from the
/// judgments, a negative grade, a first relevant document just past rank 10, and IDs whose byte order differs from their numeric order.
/// `PytrecEvalCrossCheckTests` holds what pytrec_eval computed for exactly this data.
enum SyntheticCollection {
    static var qrels: Qrels {
        var judgments: [String: [String: Int]] = [:]
        // q1: d0, d7, d14, ... are relevant with grades 1-3; d11, d22, ... (not multiples of 7) judged 0.
        // d154 ... d196 are relevant but beyond the 150 documents retrieved.
        for i in 0..<200 {
            if i % 7 == 0 {
                judgments["q1", default: [:]]["d\(i)"] = i % 3 + 1
            } else if i % 11 == 0 {
                judgments["q1", default: [:]]["d\(i)"] = 0
            }
        }
        judgments["q2"] = ["a": 3, "b": 0, "c": 1, "e": 2, "z": -1]
        judgments["q3"] = ["x": 1, "y": 2]            // judged, but the run has no results for it
        judgments["q4"] = ["a": 0, "b": 0]            // nothing relevant: not averaged
        judgments["10"] = ["d3": 1, "d5": 1]
        judgments["q6"] = ["n1": -1, "n2": 2, "n3": 1]
        judgments["q7"] = ["p12": 1]                  // first relevant at rank 12: outside MRR@10
        return Qrels(judgments)
    }

    static var run: Run {
        var results: [String: [ScoredDocument]] = [:]
        // Scores in quarters from 0 to 12.25: every score is shared by three documents.
        results["q1"] = (0..<150).map { ScoredDocument(id: "d\($0)", score: Double(($0 * 37) % 50) / 4) }
        results["q2"] = [("a", 1.0), ("b", 1.0), ("c", 2.0), ("d", 2.0), ("e", 0.5), ("z", 2.0)]
            .map { ScoredDocument(id: $0.0, score: $0.1) }
        results["q4"] = [ScoredDocument(id: "a", score: 1), ScoredDocument(id: "b", score: 0.5)]
        results["q5"] = [ScoredDocument(id: "a", score: 1)]   // not in the judgments
        // Twelve tied documents: trec_eval orders them d9 d8 ... d2 d12 d11 d10 d1 (bytes, descending).
        results["10"] = (1...12).map { ScoredDocument(id: "d\($0)", score: 1) }
        results["q6"] = [ScoredDocument(id: "n1", score: 3), ScoredDocument(id: "n2", score: 2),
                         ScoredDocument(id: "n3", score: 1)]
        results["q7"] = (1...15).map { ScoredDocument(id: "p\($0)", score: Double(16 - $0)) }
        return Run(tag: "synthetic", results: results)
    }
}
