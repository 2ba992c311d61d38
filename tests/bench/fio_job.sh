#!/usr/bin/env bash
# fio_job.sh - one fio job file run by fio and by nvbench (nvbench run --fio), side by side.
#
#   tests/bench/fio_job.sh [--pairs N] [--runtime S] [--job FILE] [--python PY] [--dir DIR]
#
# A benchmark, not a test. For every job of the file it prints the IOPS of each tool per
# pair, the median ratio nvbench/fio and fio's own spread (max/min of its runs): a ratio
# inside that spread is no measured difference. Pairs alternate their order (nvbench
# first, then fio first, ...). The default job file (tests/bench/fio_job.fio) holds a
# null-engine job and a page-cached io_uring job (direct=0 invalidate=0 on both tools,
# docs/benchmarks.md "Page-cached comparisons"); its NVB_BENCH_FILE is a 256 MiB file of
# random data made under DIR (default /var/tmp) and read once to warm the cache.
# PY is a python with nvbench installed (default: .venv/bin/python of the source tree).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
PAIRS=3 RUNTIME=3 JOB=$HERE/fio_job.fio PY=$SRC/.venv/bin/python DIR=/var/tmp
while [ $# -gt 0 ]; do
    case $1 in
        --pairs) PAIRS=$2; shift 2 ;;
        --runtime) RUNTIME=$2; shift 2 ;;
        --job) JOB=$2; shift 2 ;;
        --python) PY=$2; shift 2 ;;
        --dir) DIR=$2; shift 2 ;;
        *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
command -v fio >/dev/null || { echo "fio not found" >&2; exit 2; }
work=$(mktemp -d "$DIR/nvb-fiojob.XXXXXX")
trap 'rm -rf "$work"' EXIT
export NVB_BENCH_FILE=$work/cached.dat NVB_BENCH_RUNTIME=$RUNTIME
head -c $((256 << 20)) /dev/urandom > "$NVB_BENCH_FILE"
cat "$NVB_BENCH_FILE" > /dev/null
run_fio() { fio --output-format=json "$JOB" > "$work/fio.$1.json"; }
run_nvb() { "$PY" -m nvbench run --fio "$JOB" --print-json --no-progress > "$work/nvb.$1.json" 2>/dev/null; }
for i in $(seq 1 "$PAIRS"); do
    if [ $((i % 2)) -eq 1 ]; then run_nvb "$i"; run_fio "$i"; else run_fio "$i"; run_nvb "$i"; fi
done
"$PY" - "$work" "$PAIRS" "$JOB" <<'PYEOF'
import json, statistics, sys
work, pairs, job = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def iops(d, name):
    return d["read"]["iops"] + d["write"]["iops"]
rows = {}
for i in range(1, pairs + 1):
    fio = {j["jobname"]: j["read"]["iops"] + j["write"]["iops"] for j in json.load(open(f"{work}/fio.{i}.json"))["jobs"]}
    nvb = {r["workload"]["name"]: r["read"]["iops"] + r["write"]["iops"] for r in json.load(open(f"{work}/nvb.{i}.json"))["results"]}
    for name in fio:
        rows.setdefault(name, []).append((nvb[name], fio[name]))
print(f"job file: {job}, {pairs} pairs\n")
print("| job | nvbench IOPS | fio IOPS | median ratio nvbench/fio | fio spread |")
print("|---|---|---|---|---|")
for name, ps in rows.items():
    ratio = statistics.median(n / f for n, f in ps)
    fs = [f for _, f in ps]
    print(f"| {name} | {' '.join(f'{n:.3g}' for n, _ in ps)} | {' '.join(f'{f:.3g}' for f in fs)} "
          f"| {ratio:.2f}x | {max(fs) / min(fs):.2f} |")
PYEOF
