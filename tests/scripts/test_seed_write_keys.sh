#!/usr/bin/env bash
# The C example seed_matrix adds to its write cells the keys the library maps
# from its options (nvb_seed_write_keys), as Python's and Lua's matrices do:
# --precondition and --steady-state/--ss-window on the write cells only, with
# ss.stop on; the read cells keep the defaults; a window without a metric and
# a bad precondition are refused, before any run, in the library's words.
#
#   bash test_seed_write_keys.sh BUILD_DIR SOURCE_DIR
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SEED=$BUILD/examples/c/seed_matrix
[ -x "$SEED" ] || { echo "skipped: the C examples are not built" >&2; exit 77; }

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/seedkeys.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILS=0

"$SEED" --runtime 300ms --interval 100ms --engines psync --size 4M --precondition 1 --steady-state iops \
    --ss-window 300ms --json "$TMP/out.json" "$TMP" > /dev/null 2> "$TMP/err" || { cat "$TMP/err"; exit 1; }
python3 - "$TMP/out.json" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
assert len(rs) == 8, len(rs)
writes = 0
for r in rs:
    w = r["workload"]
    write = "write" in w["rw"]
    writes += write
    ss = w["ss"]
    got = (w["precondition"], ss["metric"], ss["window_s"], ss["stop"])
    want = (1, "iops", 0.3, 1) if write else (0, "off", 0, 0)
    assert got == want, (w["rw"], got, want)
assert writes == 4
print("  ok: the write cells have precondition 1, ss.metric iops, ss.window 0.3 s, ss.stop; the reads none")
PY

# refused before any run, naming what is wrong as the bindings do
refused() { # NAME WORDS ARGS...
    local name=$1 words=$2
    shift 2
    if "$SEED" --runtime 100ms --engines psync "$@" "$TMP" > /dev/null 2> "$TMP/bad.err"; then
        echo "  FAIL: $name: ran"; FAILS=$((FAILS + 1))
    elif ! grep -qF "$words" "$TMP/bad.err" || grep -q "IOPS" "$TMP/bad.err"; then
        echo "  FAIL: $name:"; cat "$TMP/bad.err"; FAILS=$((FAILS + 1))
    else
        echo "  ok: $name refused: $(head -1 "$TMP/bad.err")"
    fi
}
refused "a window without a metric" "steady_state needs a metric" --ss-window 1s
refused "a bad precondition" "precondition" --precondition many
[ "$FAILS" = 0 ] || exit 1
echo "ok"
