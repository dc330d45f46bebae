#!/usr/bin/env bash
# Fails when a file names a work session or an issue by number, or the documents the project started from, where it
# should say what the code does or what was measured (the project's rules). Searches every file below the
# repository's root except .git, the build folders and .swiftpm, case-insensitively, binary files skipped.
#
# Usage: scripts/check-names.sh   (exit status 1, with the lines found, when any is found)
set -uo pipefail
cd "$(dirname "$0")/.."

# The bracket keeps the pattern from matching its own line.
pattern='(session|issue) #?[0-9]+|seed[ ]doc'
found=$(grep -rnIiE "$pattern" . \
    --exclude-dir=.git --exclude-dir=.build --exclude-dir='.build-*' --exclude-dir='.build_*' \
    --exclude-dir=.swiftpm)
status=$?
if [ "$status" -eq 0 ]; then
    echo "$found"
    echo "check-names: the lines above name a session, an issue or the starting documents; say what the code does"
    exit 1
elif [ "$status" -ne 1 ]; then
    echo "check-names: grep failed (status $status)"
    exit 2
fi
echo "check-names: ok"
