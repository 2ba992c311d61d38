#!/bin/bash
# The Linux half of the round trip: the two Windows files win_dist wrote
# (OUT_DIR) beside a Linux run made here, through the nvbench command:
#   test_dist_compare.sh OUT_DIR
# NVB_PYTHON: a Python with the nvbench package of this checkout (make
# test-win passes the venv's); without it, exit 77 (skipped).
# - nvbench compare --table prints the four published columns for every
#   cell, with CPU per I/O and IOPS per core under Total CPU Usage, and
#   --report writes the HTML report holding all four and the published
#   figures;
# - the files in the wrong places are refused, naming the file.
set -euo pipefail
out=$1
py=${NVB_PYTHON:-}
if [ -z "$py" ] || ! "$py" -c 'import nvbench' 2>/dev/null; then
    echo "NVB_PYTHON is not a Python with nvbench (make test-win sets it): the Linux half was not tested"
    exit 77
fi
native=$out/win-windows-native.json nonnative=$out/win-windows-non-native.json
[ -f "$native" ] && [ -f "$nonnative" ] || { echo "FAIL: win_dist's files are missing in $out"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/nvb-dist-cmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
engines=$("$py" -c 'import nvbench; print(",".join(e for e in ("libaio", "io_uring") if e in nvbench.available_engines()))')
[ -n "$engines" ] || { echo "neither libaio nor io_uring works here"; exit 77; }
mkdir "$work/scratch"
"$py" -m nvbench matrix --engines "$engines" --runtime 100ms --size 8M --no-progress \
    --target "$work/scratch" --json "$work/linux.json" >/dev/null

"$py" -m nvbench compare --table "$work/linux.json" "$native" "$nonnative" --report "$work/seed.html" >"$work/table.txt"
"$py" - "$work/table.txt" "$work/seed.html" "$engines" <<'PY'
import sys
table, html, engines = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3].split(",")
cols = ["Win non-native", "Win native"] + ["Linux " + e for e in engines]
blocks = [b for b in table.split("\n\n") if b.strip() and not b.startswith("report:")]
assert len(blocks) == 8, table
for b in blocks:
    head = b.splitlines()[0]
    pos = [head.index(c) for c in cols]
    assert pos == sorted(pos), f"columns out of the published order: {head}"
    rows = [l.split("  ")[0].strip() for l in b.splitlines()[2:]]
    t = rows.index("Total CPU Usage (%)")
    assert {"CPU per I/O (us)", "IOPS per core"} <= set(rows[t + 1:]), rows
for c in cols + ["windows_native", "linux_io_uring", "CPU per I/O (us)", "IOPS per core"]:
    assert c in html, f"the report lacks {c!r}"
print(f"  ok: the four-column table ({', '.join(cols)}) and the report")
PY
# swapped Windows files: refused, naming the file
if "$py" -m nvbench compare --table "$work/linux.json" "$nonnative" "$native" >/dev/null 2>"$work/err.txt"; then
    echo "FAIL: swapped Windows files were accepted"; exit 1
fi
grep -q "$(basename "$nonnative").*windows_non_native stack" "$work/err.txt" || { echo "FAIL: unclear refusal:"; cat "$work/err.txt"; exit 1; }
# a Windows file as the Linux one: refused
if "$py" -m nvbench compare --table "$native" "$native" "$nonnative" >/dev/null 2>&1; then
    echo "FAIL: a Windows file was taken as the Linux run"; exit 1
fi
echo "  ok: files in the wrong places are refused"
echo "1 passed, 0 failed"
