#!/usr/bin/env bash
# groups_cost.sh - what running as job groups costs: the same I/O as one
# workload of two jobs, and as two groups of one job each (nvb_run_groups),
# on the null engine, in alternating order. The measurement loop is the
# same code either way; what differs is per run (a plan, a hold and a
# sampler per group, the calling thread's watch), so the figures should
# agree within the machine's spread.
#
#   tests/bench/groups_cost.sh [--nvbench PATH] [--pairs N] [--runtime S] [--qd "1 32"]
#
# A benchmark, not a test: never run by CTest. Prints per queue depth both
# forms' median total IOPS and CPU us per I/O and the median of the pairs'
# ratios groups/one. /usr/bin/python3 does the arithmetic.
set -eu
NVB=.venv/bin/nvbench
PAIRS=5
RUNTIME=2
QDS="1 32"
while [ $# -gt 0 ]; do
    case $1 in
    --nvbench) NVB=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --qd) QDS=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
T=$(mktemp)  # the null engine does no I/O, but its target must exist
trap 'rm -f "$T"' EXIT
fig() {  # total IOPS and cpu_us_per_io of one run's JSON on stdin
    /usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["total"]["iops"], d["cpu"]["cpu_us_per_io"])'
}
one() { "$NVB" run engine=null rw=randread bs=4k qd="$1" jobs=2 runtime="${RUNTIME}s" "$T" --print-json --no-progress 2>/dev/null | fig; }
two() { "$NVB" run engine=null rw=randread bs=4k qd="$1" runtime="${RUNTIME}s" "$T" --group name=a --group name=b \
            --print-json --no-progress 2>/dev/null | fig; }
echo "engine=null rw=randread bs=4k runtime=${RUNTIME}s: jobs=2 in one workload vs two groups of jobs=1"
echo "| qd | one workload: IOPS, CPU us/IO (medians) | two groups: IOPS, CPU us/IO (medians) | ratio groups/one: IOPS, CPU us/IO (median of pairs) |"
echo "|---|---|---|---|"
for qd in $QDS; do
    rows=()
    for p in $(seq 1 "$PAIRS"); do
        if [ $((p % 2)) = 1 ]; then a=$(one "$qd"); b=$(two "$qd"); else b=$(two "$qd"); a=$(one "$qd"); fi
        rows+=("$a $b")
    done
    printf '%s\n' "${rows[@]}" | /usr/bin/python3 -c '
import statistics as st, sys
r = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
m = lambda k: st.median(x[k] for x in r)
ri = st.median(x[2] / x[0] for x in r); rc = st.median(x[3] / x[1] for x in r)
print(f"| '"$qd"' | {m(0):,.0f}, {m(1):.3f} | {m(2):,.0f}, {m(3):.3f} | {ri:.3f}, {rc:.3f} ({len(r)}) |")'
done
