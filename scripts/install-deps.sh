#!/usr/bin/env bash
# Installs the Debian packages Sift links against, when missing. Used by `make demo`, `make test` and `.ci/run`.
# As root it runs apt-get itself; otherwise it uses sudo when that needs no password, and else prints the
# exact command to run and fails.
set -euo pipefail

packages=(libsqlite3-dev libicu-dev libstemmer-dev libssl-dev libzstd-dev zlib1g-dev pkg-config)

missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command=(apt-get install -y -qq "${missing[@]}")
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -eq 0 ]; then
    echo "sift: installing ${missing[*]}" >&2
    apt-get update -qq && "${command[@]}"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "sift: installing ${missing[*]} (sudo)" >&2
    sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive "${command[@]}"
else
    echo "sift: these Debian packages are missing: ${missing[*]}" >&2
    echo "sift: install them with: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
