#!/usr/bin/env bash
# Installs the reference SQLCipher 4 (PyPI sqlcipher3-binary 0.6.0: SQLCipher 4.12 with FTS5, statically linked)
# into a Python virtual environment under the build folder, once, and prints the path of a python3 that can
# `import sqlcipher3`. The encryption interoperability tests run it; they skip when it fails (no network).
#
#     scripts/sqlcipher-reference.sh            # prints e.g. .build/sqlcipher-reference/bin/python3
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${SIFT_SQLCIPHER_PREFIX:-$root/.build/sqlcipher-reference}"
package="sqlcipher3-binary==0.6.0"
check='import sqlcipher3; v = sqlcipher3.connect(":memory:").execute("PRAGMA cipher_version").fetchone()[0]; assert v.startswith("4."), v'

works() { "$1" -c "$check" >/dev/null 2>&1; }

# A virtual environment when python3 can make one; else pip --target behind a small wrapper.
if works "$prefix/bin/python3"; then echo "$prefix/bin/python3"; exit 0; fi
if works "$prefix/python3"; then echo "$prefix/python3"; exit 0; fi

command -v python3 >/dev/null || { echo "sqlcipher-reference: python3 is missing" >&2; exit 1; }
mkdir -p "$prefix"
if python3 -m venv "$prefix" >&2 && "$prefix/bin/python3" -m pip install --quiet "$package" >&2 \
    && works "$prefix/bin/python3"; then
    echo "$prefix/bin/python3"
    exit 0
fi
echo "sqlcipher-reference: no virtual environment, trying pip install --target" >&2
python3 -m pip install --quiet --target "$prefix/site" "$package" >&2
cat > "$prefix/python3" <<WRAPPER
#!/bin/sh
PYTHONPATH="$prefix/site\${PYTHONPATH:+:\$PYTHONPATH}" exec python3 "\$@"
WRAPPER
chmod +x "$prefix/python3"
works "$prefix/python3" || { echo "sqlcipher-reference: sqlcipher3 does not import" >&2; exit 1; }
echo "$prefix/python3"
