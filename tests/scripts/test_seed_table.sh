#!/usr/bin/env bash
# One table, one format: the same results (tests/data/seed_table/results.json)
# printed by the three front doors' seed-table printers must be byte for byte
# tests/data/seed_table/table.txt:
#   - C: examples/c/seed_matrix --from-json;
#   - Lua: nvbench.matrix's format_seed(rows_from_results(...)), lua5.4 with the
#     module of this build;
#   - Python: nvbench.load(...).table(), in the venv the python test installs.
# Then the properties the layout promises, on the golden text itself: every
# block has the same width and the same column edges.
#
#   bash test_seed_table.sh BUILD_DIR SOURCE_DIR     (exit 77: a printer's runtime missing)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
DATA=$SRC/tests/data/seed_table
SEED=$BUILD/examples/c/seed_matrix
VENV_PY=${NVB_VENV_PY:-$BUILD/tests/python-venv/bin/python}
LUA=$(command -v lua5.4 || true)

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/seed_table.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

FAILS=()
SKIPS=()
check() { # NAME FILE: FILE must be the golden table
    if cmp -s "$DATA/table.txt" "$2"; then
        echo "  ok: $1 prints the golden table"
    else
        echo "  FAIL: $1 differs from tests/data/seed_table/table.txt:"
        diff -u "$DATA/table.txt" "$2" | head -n 40 || true
        FAILS+=("$1")
    fi
}

# The three printers of FILE into $TMP/{c,lua,py}-NAME.txt (a printer
# whose runtime is missing adds to SKIPS once).
HAVE_LUA=0
[ -n "$LUA" ] && [ -f "$BUILD/bindings/lua/nvbench.so" ] && [ -z "${NVB_SANITIZER:-}" ] && HAVE_LUA=1
HAVE_PY=0
[ -x "$VENV_PY" ] && "$VENV_PY" -c 'import nvbench._nvbench, pandas' 2> /dev/null && HAVE_PY=1
print_all() { # NAME FILE
    [ -x "$SEED" ] && "$SEED" --from-json "$2" > "$TMP/c-$1.txt"
    if [ "$HAVE_LUA" = 1 ]; then
        NVB_RESULTS=$2 LUA_CPATH="$BUILD/bindings/lua/?.so;;" LUA_PATH="$SRC/bindings/lua/?.lua;;" "$LUA" -e '
            local nvb = require "nvbench"
            local m = require "nvbench.matrix"
            local f = assert(io.open(os.getenv("NVB_RESULTS"), "rb"))
            local results = assert(nvb.decode_json(f:read("a")))
            f:close()
            io.write(m.format_seed(assert(m.rows_from_results(results))))' > "$TMP/lua-$1.txt"
    fi
    if [ "$HAVE_PY" = 1 ]; then
        (cd "$TMP" && "$VENV_PY" -c '
import sys, nvbench
sys.stdout.write(nvbench.load(sys.argv[1]).table())' "$2") > "$TMP/py-$1.txt"
    fi
}

print_all golden "$DATA/results.json"
if [ -x "$SEED" ]; then
    check "C (seed_matrix --from-json)" "$TMP/c-golden.txt"
    # Bad input: named, nothing printed, exit 2.
    printf '[{"schema":"nvbench.result/1"}]' > "$TMP/bad.json"
    if "$SEED" --from-json "$TMP/bad.json" > "$TMP/bad.out" 2> "$TMP/bad.err"; then
        FAILS+=("C accepted a result without figures")
    elif ! grep -q "bad.json: item 0" "$TMP/bad.err" || [ -s "$TMP/bad.out" ]; then
        FAILS+=("C's refusal does not name the file and item, or printed a table: $(cat "$TMP/bad.err")")
    fi
else
    SKIPS+=("$SEED not built")
fi
[ "$HAVE_LUA" = 1 ] && check "Lua (nvbench.matrix.format_seed)" "$TMP/lua-golden.txt" ||
    SKIPS+=("lua5.4 or the Lua module missing (or a sanitizer build)")
[ "$HAVE_PY" = 1 ] && check "Python (ResultSet.table)" "$TMP/py-golden.txt" ||
    SKIPS+=("$VENV_PY with nvbench and pandas missing (the python test installs it)")

# The same runs asked at qd 8: a synchronous engine ran at qd 1, and every
# door heads its column "psync (qd 1)" (never its figures under "qd 8").
/usr/bin/python3 - "$DATA/results.json" "$TMP/qd8.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))
for r in rs:
    r["workload"]["qd"] = 8
    r["qd_effective"] = 1 if r["engine"] == "psync" else 8
json.dump(rs, open(sys.argv[2], "w"))
PY
print_all qd8 "$TMP/qd8.json"
for f in "$TMP"/*-qd8.txt; do
    [ "$(grep -c 'psync (qd 1)' "$f")" = 8 ] || FAILS+=("$(basename "$f"): psync's 8 columns are not headed 'psync (qd 1)'")
    grep -q 'libaio (qd' "$f" && FAILS+=("$(basename "$f"): libaio ran at the qd asked, yet is marked")
    cmp -s "$f" "$TMP/c-qd8.txt" || FAILS+=("$(basename "$f") differs from the C printer's at qd 8")
done

# The golden text keeps its promises: blocks of equal width whose columns
# start at the same places, eight blocks of ten lines.
if ! /usr/bin/python3 - "$DATA/table.txt" <<'PY'
import sys
blocks = open(sys.argv[1], encoding="utf-8").read().rstrip("\n").split("\n\n")
assert len(blocks) == 8 and all(len(b.splitlines()) == 10 for b in blocks), "8 blocks of 10 lines"
rules = {b.splitlines()[1] for b in blocks}
assert len(rules) == 1, f"blocks of different widths or column edges: {sorted(rules)}"
widths = {max(len(l) for l in b.splitlines()) for b in blocks}
assert len(widths) == 1, f"blocks of different widths: {widths}"
PY
then
    FAILS+=("the golden table's blocks differ in width")
fi

if [ "${#FAILS[@]}" -gt 0 ]; then
    printf 'FAIL: %s\n' "${FAILS[@]}"
    exit 1
fi
if [ "${#SKIPS[@]}" -gt 0 ]; then
    printf 'SKIP: %s\n' "${SKIPS[@]}" >&2
    exit 77
fi
echo "PASS: C, Lua and Python print the same seed table"
