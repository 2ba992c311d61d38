#!/usr/bin/env bash
# The ABI promise (README, "What is stable"): libnvbench.so.0 as built now
# is compared with the recorded ABI of release 0.1.0
# (tests/abi/libnvbench.so.0.abi, written by abidw from abigail-tools over
# the public header only). abidiff's exit status is a bit set: 1 and 2 are
# its own errors, 4 an ABI change (such as an added function), 8 an
# incompatible one (a function removed, a signature or a public type
# changed). An incompatible change fails unless the SONAME changed with it;
# an added function must be bound to a version node of its own in
# libnvbench/libnvbench.map, after the 0.1.0 node.
#
# The check proves it can fail: a function removed from a copy of the
# current ABI must be reported as incompatible.
#
#   bash test_abi_compat.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
#
# To record a new baseline at a release:
#   abidw --headers-dir include --drop-private-types --no-corpus-path --no-show-locs \
#         --out-file tests/abi/libnvbench.so.0.abi build/libnvbench.so.0.*.*
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
BASE=${NVB_ABI_BASELINE:-$SRC/tests/abi/libnvbench.so.0.abi}
MAP=$SRC/libnvbench/libnvbench.map
skip() { echo "SKIP: $*" >&2; exit 77; }
command -v abidw > /dev/null && command -v abidiff > /dev/null || skip "abidw/abidiff missing (apt-get install abigail-tools)"
[ -z "${NVB_SANITIZER:-}" ] || skip "a sanitized build: its ABI is the same code with instrumentation"
lib=$(find "$BUILD" -maxdepth 1 -name 'libnvbench.so.0.*' -type f | head -1)
[ -n "$lib" ] || skip "no shared library in $BUILD"
sections=$(readelf -S "$lib")   # whole, not piped into grep -q: pipefail would see readelf's SIGPIPE
grep -q '\.debug_info' <<< "$sections" || skip "$lib has no debug information (build RelWithDebInfo or Debug)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

abidw --headers-dir "$SRC/include" --drop-private-types --no-corpus-path --no-show-locs --out-file "$TMP/cur.abi" "$lib"
rc=0
abidiff "$BASE" "$TMP/cur.abi" > "$TMP/diff.txt" 2>&1 || rc=$?
soname() { sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$1" | head -1; }
fails=0
if [ $((rc & 3)) -ne 0 ]; then
    cat "$TMP/diff.txt"
    echo "FAIL: abidiff could not compare (status $rc)"
    fails=1
elif [ $((rc & 8)) -ne 0 ] && [ "$(soname "$BASE")" = "$(soname "$TMP/cur.abi")" ]; then
    cat "$TMP/diff.txt"
    echo "FAIL: an incompatible ABI change with the same SONAME $(soname "$BASE"): bump the SONAME and the version script, or undo it"
    fails=1
elif [ $((rc & 4)) -ne 0 ]; then
    # additions: each added function must sit in a node after the first
    first=$(grep -m1 -o '^[A-Za-z0-9_.]*[[:space:]]*{' "$MAP" | tr -d '{ \t')
    added=$(sed -n "s/.*\[A\] '[^']* \(nvb_[a-z0-9_]*\)(.*/\1/p" "$TMP/diff.txt" | sort -u)
    for f in $added; do
        node=$(awk -v f="$f" '/^[A-Za-z0-9_.]+[ \t]*\{/ {n=$1} $0 ~ "[ \t]"f";" {print n}' "$MAP" | tr -d '{')
        if [ -z "$node" ] || [ "$node" = "$first" ]; then
            echo "FAIL: $f was added but is not bound to a new version node (after $first) in libnvbench.map"
            fails=1
        else
            echo "  ok: $f added in $node"
        fi
    done
    [ $fails = 0 ] && echo "ok: compatible additions to the 0.1.0 ABI"
else
    echo "ok: the ABI of $(basename "$lib") is the recorded 0.1.0 ABI ($(grep -c '<elf-symbol ' "$BASE") symbols)"
fi

# The check can fail: drop one public function from a copy of the current
# ABI and the comparison must call that incompatible.
victim=nvb_strerror
grep -v "<elf-symbol name='$victim'" "$TMP/cur.abi" > "$TMP/broken.abi"
rc2=0
abidiff "$TMP/cur.abi" "$TMP/broken.abi" > /dev/null 2>&1 || rc2=$?
if [ $((rc2 & 8)) -eq 0 ]; then
    echo "FAIL: removing $victim was not reported as incompatible (abidiff status $rc2): this check cannot fail"
    fails=1
else
    echo "ok: removing $victim is reported as incompatible (abidiff status $rc2)"
fi
[ $fails = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
