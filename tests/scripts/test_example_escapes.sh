#!/usr/bin/env bash
# The C examples show what a terminal would obey escaped: a path or a
# backing-file name holding ESC [2J (clear screen), a raw C1 CSI (0x9b as
# UTF-8) or a right-to-left override (U+202E) reaches stderr as \x1b[2J,
# \x9b and \u202e, as the Python CLI writes them (examples/c/example_print.h).
#
#   bash test_example_escapes.sh BUILD_DIR SOURCE_DIR
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
RUN=$BUILD/examples/c/run_workload
SEED=$BUILD/examples/c/seed_matrix
[ -x "$RUN" ] && [ -x "$SEED" ] || { echo "skipped: the C examples are not built" >&2; exit 77; }

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/escapes.XXXXXX")
LOOP=""
cleanup() {
    [ -n "$LOOP" ] && losetup -d "$LOOP" 2> /dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

BAD=$(printf 'a\033[2Jb\302\233c\342\200\256d')
SHOWN='a\x1b[2Jb\x9bc\u202ed'
FAILS=0
# check NAME FILE: FILE (a program's stderr) holds SHOWN and none of the raw characters
check() {
    if LC_ALL=C grep -q $'\033\|\302\233\|\342\200\256' "$2"; then
        echo "  FAIL: $1 printed raw control characters:"; cat -v "$2"; FAILS=$((FAILS + 1))
    elif ! grep -qF "$SHOWN" "$2"; then
        echo "  FAIL: $1 does not show the name escaped:"; cat -v "$2"; FAILS=$((FAILS + 1))
    else
        echo "  ok: $1"
    fi
}

# a path: a missing target, as each example names it
"$RUN" engine=psync rw=read bs=4k "$TMP/$BAD" 2> "$TMP/run.err" > /dev/null && { echo "FAIL: ran"; exit 1; }
check "run_workload, a missing target" "$TMP/run.err"
"$SEED" --runtime 100ms --engines psync "$TMP/$BAD" 2> "$TMP/seed.err" > /dev/null || true
check "seed_matrix, a missing target" "$TMP/seed.err"
"$SEED" --runtime 100ms --engines psync --json "$TMP/no-dir/$BAD.json" "$TMP" 2> "$TMP/seedjson.err" > /dev/null || true
check "seed_matrix, --json it cannot open (perror)" "$TMP/seedjson.err"

# a backing file: the guard names the file behind a loop device
if [ "$(id -u)" = 0 ] && command -v losetup > /dev/null; then
    truncate -s 4M "$TMP/$BAD"
    if LOOP=$(losetup -f --show "$TMP/$BAD" 2> /dev/null); then
        "$RUN" engine=psync rw=write bs=4k ios=1 "$TMP/$BAD" 2> "$TMP/backing.err" > /dev/null && { echo "FAIL: wrote"; exit 1; }
        check "run_workload, the backing file of $LOOP" "$TMP/backing.err"
    else
        echo "  (no loop device free: backing-file case not run)"
    fi
else
    echo "  (not root: backing-file case not run)"
fi
[ "$FAILS" = 0 ] || exit 1
echo "ok"
