// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Sift",
    products: [
        .library(name: "Sift", targets: ["Sift"]),
        .library(name: "SiftICU", targets: ["SiftICU"]),
        .library(name: "SiftMacros", targets: ["SiftMacros"]),
        .executable(name: "sift", targets: ["sift"]),
    ],
    // The library needs SQLite alone; each trait adds a feature and the one library it links. All are on by default
    // (so `make demo`, `make test` and the CLI have everything); `make minimal` builds and tests with all off.
    traits: [
        .trait(name: "Encryption", description: "SQLCipher 4 compatible encryption (setCipherKey, SiftCipher), "
               + "with OpenSSL's libcrypto. Off: a cipher key throws SiftError (CipherFailure.unavailable)."),
        .trait(name: "Stemming", description: "Snowball stemming in the sift_icu tokenizer (`stem LANGUAGE`), with "
               + "libstemmer. Off: only `stem none`, the default declaration then."),
        .trait(name: "Compression", description: "Column compression with zstd and dictionaries trained on a "
               + "column's values (ColumnCompression), with libzstd. Off: declaring compression throws SiftError "
               + "(CompressionFailure.unavailable)."),
        .default(enabledTraits: ["Encryption", "Stemming", "Compression"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.0"..<"700.0.0"),
        // `swift package generate-documentation` (the DocC catalogs in Sources/Sift and Sources/SiftICU); build-time only.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.4.0"),
    ],
    targets: [
        // The system SQLite (Debian's libsqlite3-dev has FTS5); a shim header supplies what Swift cannot import.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        // The system ICU, link-only: its headers clash with Foundation's bundled ICU (see Sources/CICU).
        .systemLibrary(name: "CICU", path: "Sources/CICU", pkgConfig: "icu-i18n",
                       providers: [.apt(["libicu-dev"])]),
        // The CJK character table shared by Sift's query builder and the sift_icu tokenizer (C, no ICU, no SQLite).
        .target(name: "SiftText"),
        // sift_rank(), Sift's BM25F ranking function for FTS5 (C, no ICU), registered on every connection.
        .target(name: "SiftRank", dependencies: ["CSQLite"], linkerSettings: [.linkedLibrary("m")]),
        // Exact nearest-neighbour scans over blocks of vectors (C, loops the compiler vectorizes; no SQLite).
        .target(name: "SiftVector", linkerSettings: [.linkedLibrary("m")]),
        // sift_snippet(), fragments around matched words sized in characters, registered on every connection.
        .target(name: "SiftSnippet", dependencies: ["CSQLite"]),
        // OpenSSL's libcrypto (Debian's libssl-dev): every cryptographic operation of SiftCipher (sift_cipher_openssl.c).
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // SQLCipher 4 compatible encryption of database, WAL and journal pages: a VFS shim (C, libcrypto), used by
        // Sift with the Encryption trait only (through Sources/Sift/Core/CipherEngine.swift).
        .target(name: "SiftCipher", dependencies: ["CSQLite", "COpenSSL"], linkerSettings: [.linkedLibrary("crypto")]),
        // Debian's libzstd (libzstd-dev): every zstd call of Sift (sift_zstd.c), behind an include of ours; used by
        // Sift with the Compression trait only (through Sources/Sift/Core/CompressionEngine.swift).
        .target(name: "SiftZstd", dependencies: ["CSQLite"], linkerSettings: [.linkedLibrary("zstd")]),
        .target(name: "Sift", dependencies: [
            "CSQLite", "SiftText", "SiftRank", "SiftSnippet", "SiftVector",
            .target(name: "SiftCipher", condition: .when(traits: ["Encryption"])),
            .target(name: "SiftZstd", condition: .when(traits: ["Compression"])),
        ]),
        // `@TableRowCoding`, in its own product so that only its users build swift-syntax.
        .macro(name: "SiftMacrosPlugin", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ]),
        .target(name: "SiftMacros", dependencies: ["Sift", "SiftMacrosPlugin"]),
        // Every ICU call lives in these C files, behind an ICU-free header.
        // Snowball's stemmers (sift_icu_stem.c, with the Stemming trait) come from Debian's libstemmer-dev
        // (scripts/install-deps.sh), which ships no pkg-config file; a module map's `link` is not honoured for C
        // targets on Linux, so the library is linked here.
        .target(name: "SiftICUCore", dependencies: ["CICU", "CSQLite", "SiftText"],
                cSettings: [.define("SIFT_ICU_STEMMING", .when(traits: ["Stemming"]))],
                linkerSettings: [.linkedLibrary("stemmer", .when(traits: ["Stemming"]))]),
        .target(name: "SiftICU", dependencies: ["Sift", "SiftICUCore", "CSQLite"]),
        // zlib (Debian's zlib1g-dev): `sift index` reads `.gz` files through it. SiftTools only, not the library.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // Test-collection loading and relevance metrics, shared by `sift eval` and the relevance benchmark.
        .target(name: "SiftEvaluation"),
        // Corpus indexing and evaluation behind the `sift` command and the benchmarks.
        .target(name: "SiftTools", dependencies: ["Sift", "SiftICU", "SiftEvaluation", "CZlib"]),
        .executableTarget(name: "sift", dependencies: [
            "SiftTools", "Sift", "SiftICU", "SiftEvaluation",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "sift-bench", dependencies: [
            "CSQLite", "Sift", "SiftMacros", "SiftICU", "SiftEvaluation", "SiftTools", "SiftRank", "SiftVector",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Benchmarks/SiftBench"),
        // Kills Sift writers with SIGKILL and checks durability, atomicity and index consistency (Tests/CrashHarness).
        .executableTarget(name: "sift-crash", dependencies: ["Sift"], path: "Tests/CrashHarness"),
        .testTarget(name: "SiftTests", dependencies: ["Sift", "CSQLite", "SiftRank", "SiftVector"]),
        .testTarget(name: "SiftMacrosTests", dependencies: ["SiftMacros", "Sift"]),
        .testTarget(name: "SiftICUTests", dependencies: ["SiftICU", "Sift"]),
        .testTarget(name: "SiftEvaluationTests", dependencies: ["SiftEvaluation"]),
        .testTarget(name: "SiftToolsTests", dependencies: ["SiftTools", "sift"]),
        // Runs the built sift-crash executable; the dependency makes `swift test` build it.
        .testTarget(name: "CrashHarnessTests", dependencies: ["sift-crash"]),
    ]
)
