#!/usr/bin/env bash
# Builds each libFuzzer target of this folder (fuzz_*.c, each compiling the C files it tests directly) with the Swift
# toolchain's clang under AddressSanitizer and UndefinedBehaviorSanitizer, runs it for FUZZ_SECONDS seconds (30) and
# prints its executions. Fails when a target does not build or the fuzzer reports (a crash, a sanitizer report, a
# failed check, a leak); the input that did it is left in the build folder (FUZZ_BUILD, .build-fuzz).
#
#   Tests/Fuzz/run.sh                      every target
#   FUZZ_SECONDS=300 Tests/Fuzz/run.sh rank   one target, longer
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-30}
build=${FUZZ_BUILD:-.build-fuzz}
# The toolchain's clang ships libFuzzer; its lld links without ld.gold's warnings about the sanitizer runtimes.
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
clang=$toolchain/clang
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld
       -ISources/SiftRank/include -ISources/SiftSnippet/include -ISources/SiftZstd/include $(pkg-config --cflags sqlite3))
libs=($(pkg-config --libs sqlite3) -lzstd -lm)

# Each target and the C files it compiles.
declare -A sources=(
    [postings_decode]="Sources/SiftRank/sift_postings.c Sources/SiftRank/sift_topk.c Sources/SiftRank/sift_facet.c Sources/SiftRank/sift_bound.c"
    [topk_postings]="Sources/SiftRank/sift_postings.c Sources/SiftRank/sift_topk.c Sources/SiftRank/sift_facet.c Sources/SiftRank/sift_bound.c"
    [rank]="Sources/SiftRank/sift_rank.c Sources/SiftRank/sift_topk.c Sources/SiftRank/sift_postings.c Sources/SiftRank/sift_facet.c Sources/SiftRank/sift_bound.c"
    [topk_terms]="Sources/SiftRank/sift_topk.c"
    [snippet]="Sources/SiftSnippet/sift_snippet.c"
    [bound]="Sources/SiftRank/sift_bound.c"
    [zstd]="Sources/SiftZstd/sift_zstd.c"
)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(postings_decode topk_postings rank topk_terms snippet bound zstd)

mkdir -p "$build"
failed=0
summary=()
for target in "${targets[@]}"; do
    if [ -z "${sources[$target]:-}" ]; then
        echo "no fuzz target $target (targets: ${!sources[*]})"
        exit 2
    fi
    binary=$build/fuzz_$target
    # shellcheck disable=SC2086
    if ! "$clang" "${flags[@]}" -o "$binary" "Tests/Fuzz/fuzz_$target.c" ${sources[$target]} "${libs[@]}"; then
        echo "fuzz $target: does not build"
        failed=1
        continue
    fi
    corpus=$build/corpus_$target
    mkdir -p "$corpus"
    log=$build/fuzz_$target.log
    echo "+ $binary -max_total_time=$seconds $corpus"
    (cd "$build" && "./fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        "corpus_$target") >"$log" 2>&1
    status=$?
    runs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" | awk '{print $2}')
    if [ "$status" -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
        tail -n 60 "$log"
        summary+=("fuzz $target: FAILED after ${runs:-?} executions (log: $log)")
        failed=1
    else
        summary+=("fuzz $target: ${runs:-?} executions in ${seconds} s, no report ($(ls "$corpus" | wc -l) inputs in the corpus)")
    fi
done
printf '%s\n' "${summary[@]}"
exit "$failed"
