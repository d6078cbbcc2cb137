#!/usr/bin/env bash
# Download the wheels benchmarks/gpu_check.sh carries to the GPU machine into .whl/ (ignored
# by git; pass it in the device call's carry), exactly as benchmarks/wheels.lock names them,
# and check each file's sha256 against the lock.
#
#   bash benchmarks/fetch_wheels.sh            # fetch what is missing, verify everything
#   bash benchmarks/fetch_wheels.sh --verify   # verify only (no network)
#
# The download line is the device notes' one: Python 3.12 (the image's), binary wheels only,
# no dependencies (each needed one is listed in the lock itself).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOCK="$ROOT/benchmarks/wheels.lock"
DEST="$ROOT/.whl"
PY="${PYTHON:-python3}"
VERIFY_ONLY=0
[ "${1:-}" = "--verify" ] && VERIFY_ONLY=1
mkdir -p "$DEST"
status=0
while read -r name version sha; do
    case "$name" in ""|\#*) continue ;; esac
    norm="$(echo "$name" | tr '-' '_')"
    file="$(ls "$DEST"/"$norm"-"$version"-*.whl 2>/dev/null | head -1 || true)"
    if [ -z "$file" ] && [ "$VERIFY_ONLY" = 0 ]; then
        "$PY" -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
            --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -q -d "$DEST" "$name==$version"
        file="$(ls "$DEST"/"$norm"-"$version"-*.whl 2>/dev/null | head -1 || true)"
    fi
    if [ -z "$file" ]; then
        echo "missing: $name $version (run benchmarks/fetch_wheels.sh)"; status=1; continue
    fi
    got="$(sha256sum "$file" | cut -d' ' -f1)"
    if [ "$got" != "$sha" ]; then
        echo "sha256 mismatch: $(basename "$file"): $got, the lock says $sha"; status=1; continue
    fi
    echo "ok: $(basename "$file") $got"
done < "$LOCK"
exit "$status"
