# The README's commands. Each installs the Debian packages Sift links first (scripts/install-deps.sh).
.PHONY: demo test tsan asan fuzz docs minimal deps

deps:
	@scripts/install-deps.sh

# Indexes the bundled multilingual sample corpus and runs example searches.
demo: deps
	swift run sift demo

# The folder-dependency check (scripts/check-layers.py), the names check (scripts/check-names.sh: no session or
# issue numbers in files), then the whole test suite (CI runs this through .ci/run).
test: deps
	scripts/check-layers.py
	scripts/check-names.sh
	swift test

# The library's tests (the concurrency tests among them) under Thread Sanitizer, in a build folder of its own.
tsan: deps
	swift test --sanitize=thread --scratch-path .build-tsan --filter 'SiftTests\.'

# The library's tests under AddressSanitizer (the C targets compiled with it too: SiftRank's decoders, SiftSnippet,
# SiftCipher), in a build folder of its own. Memory errors only: on Linux XCTest keeps every test case (and what they
# hold) and Foundation's file reads keep their buffers, so LeakSanitizer would report theirs; `make fuzz` checks the
# C decoders for leaks.
asan: deps
	ASAN_OPTIONS=detect_leaks=0 swift test --sanitize=address --scratch-path .build-asan --filter 'SiftTests\.'

# libFuzzer targets for SiftRank's decoders (Tests/Fuzz), each run for a bounded time under ASan and UBSan.
fuzz: deps
	Tests/Fuzz/run.sh

# The DocC documentation of Sift and SiftICU (Sources/*/*.docc), warnings as errors, into .build/plugins/Swift-DocC.
# Browse it with `swift package --disable-sandbox preview-documentation --target Sift`.
docs: deps
	swift package --disable-sandbox generate-documentation --target Sift --target SiftICU --warnings-as-errors

# Every optional package trait off (no Encryption, no Stemming, no Compression: the Sift library then needs SQLite
# alone), in a build
# folder of its own: the whole suite (tests that need a trait skip themselves; about 3 minutes on 2 cores, after a
# 5-minute build), then a check with ldd that the test binary, every target of the package linked in, links none of
# libcrypto, libstemmer and libzstd.
minimal: deps
	swift build --build-tests --disable-default-traits --scratch-path .build-minimal
	swift test --skip-build --disable-default-traits --scratch-path .build-minimal
	@binary="$$(swift build --disable-default-traits --scratch-path .build-minimal --show-bin-path)/SiftPackageTests.xctest"; \
	libraries=$$(ldd "$$binary") || { echo "minimal: cannot read the libraries of $$binary"; exit 1; }; \
	if echo "$$libraries" | grep -E 'libcrypto|libstemmer|libzstd'; then \
		echo "minimal: $$binary links the libraries above with every optional trait off"; exit 1; \
	fi; \
	echo "minimal: $$binary links none of libcrypto, libstemmer and libzstd"
