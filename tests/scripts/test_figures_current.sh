#!/usr/bin/env bash
# The result's figures are described once, in libnvbench/core/figures.c: the
# writer and the reader follow that table, and docs/result.schema.json and
# the tables of docs/json-schema.md are generated from it
# (tools/gen_figures.py, `make figures`). Fails, with the difference, when
# the checked-in schema or tables are not what the table gives; and checks
# that the table covers every key the schema lists for the objects it owns
# (the generator rewrites those objects whole, so a key documented by hand
# there would show up as a difference).
#
#   bash test_figures_current.sh BUILD_DIR SOURCE_DIR
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
DUMP=$BUILD/tests/nvb_figures_dump

[ -x "$DUMP" ] || { echo "SKIP: $DUMP not built" >&2; exit 77; }
command -v python3 > /dev/null || { echo "SKIP: no python3" >&2; exit 77; }

mkdir -p "$BUILD/tests/tmp"
TABLE=$(mktemp "$BUILD/tests/tmp/figures.XXXXXX")
trap 'rm -f "$TABLE"' EXIT
"$DUMP" > "$TABLE"
python3 - "$TABLE" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
keys = [(r["sec"], r["key"]) for r in rows]
dup = {k for k in keys if keys.count(k) > 1}
assert not dup, "keys twice in one object of the table: %s" % sorted(dup)
print("table: %d figures in %d objects" % (len(rows), len({r["sec"] for r in rows})))
PY
python3 "$SRC/tools/gen_figures.py" "$TABLE" "$SRC" --check
# docs/architecture.md's list of what a figure touches names files that exist
# (and the table among them)
SECTION=$(sed -n '/^## How to add a figure/,/^## /p' "$SRC/docs/architecture.md")
[ -n "$SECTION" ] || { echo "FAIL: docs/architecture.md has no 'How to add a figure'" >&2; exit 1; }
grep -q 'libnvbench/core/figures.c' <<< "$SECTION" || { echo "FAIL: the section does not name the table" >&2; exit 1; }
for f in $(grep -o '`[A-Za-z0-9_./-]*`' <<< "$SECTION" | tr -d '`' | grep /); do
    [ -e "$SRC/$f" ] || { echo "FAIL: docs/architecture.md names $f, which does not exist" >&2; exit 1; }
done
echo "docs/result.schema.json and docs/json-schema.md are current"
