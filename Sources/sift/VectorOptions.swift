import ArgumentParser
import Sift

/// `--fusion`, shared by `search` and `eval`: how a hybrid search fuses its text and vector rankings.
enum FusionChoice: String, ExpressibleByArgument, CaseIterable {
    /// ``HybridFusion/default``: each side's scores normalized, then blended.
    case blend
    /// Reciprocal rank fusion with k = 60.
    case rrf

    static let help = ArgumentHelp("""
        blend: each side's scores normalized to 0...1 and averaged (the library's default); rrf: reciprocal rank \
        fusion (k 60), ranks only.
        """, valueName: "blend|rrf")

    /// The library's fusion.
    var value: HybridFusion {
        switch self {
        case .blend: return .default
        case .rrf: return .reciprocalRank(k: 60)
        }
    }
}
