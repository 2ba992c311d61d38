#!/usr/bin/env bash
# bsmix_cost.sh - what a block-size mix (bssplit) and think time's hooks
# cost per I/O on the null engine (no I/O: the loop alone), side by side in
# one build: fixed bs=4k, then each case, in rotating order, at each queue
# depth given. Each case's median IOPS, its spread (max/min of its own
# runs), the median ns per I/O of one job, and the median of the rounds'
# ratios case/fixed.
#
#   tests/bench/bsmix_cost.sh [--build DIR] [--rounds N] [--runtime S] [--qd "1 32"]
#                             [--icount [--base OTHER_BUILD]]
#
# --icount: instead of timing, the instructions each case executes per I/O,
# counted by valgrind (cachegrind, no cache simulation) as the difference
# between runs of 100000 and 300000 I/Os over 200000: exact and the same on
# a busy machine, where the timings spread widely. With --base, the plain
# bs=4k case of OTHER_BUILD too (the loop before bssplit and thinktime).
#
# A benchmark, not a test: never run by CTest. /usr/bin/python3 does the
# arithmetic. (Zero think time against the loop before it: loop_cost.sh
# --base OTHER_BUILD, the same loop with and without the hooks.)
set -eu
BUILD=build
ROUNDS=5
RUNTIME=2
QDS="1 32"
ICOUNT=
BASE=
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --qd) QDS=$2; shift 2 ;;
    --icount) ICOUNT=1; shift ;;
    --base) BASE=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
BIN=$BUILD/examples/c/run_workload
[ -x "$BIN" ] || { echo "no $BIN: build it first" >&2; exit 2; }

CASES=("bs=4k" "bssplit=4k/100" "bssplit=4k/50:8k/30:16k/20" "bssplit=4k/50:8k/30:16k/20 rw=randrw" "bs=4k rw=randrw"
       "bssplit=4k/50:8k/30:16k/20 rw=read")
# instructions per I/O of BINARY at QD with ARGS
ipio() {
    local a b
    # shellcheck disable=SC2086
    a=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$1" engine=null rw=randread \
        runtime=0 qd="$2" ios=100000 $3 2>&1 >/dev/null | awk '/I *refs/ {gsub(",", ""); print $NF}')
    # shellcheck disable=SC2086
    b=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$1" engine=null rw=randread \
        runtime=0 qd="$2" ios=300000 $3 2>&1 >/dev/null | awk '/I *refs/ {gsub(",", ""); print $NF}')
    echo $(( (b - a) / 200000 ))
}
if [ -n "$ICOUNT" ]; then
    echo "engine=null rw=randread: instructions per I/O (valgrind cachegrind, 300000 - 100000 I/Os)"
    echo "| qd | case | instructions per I/O |"
    echo "|---|---|---|"
    for qd in $QDS; do
        [ -n "$BASE" ] && echo "| $qd | \`bs=4k\`, other build | $(ipio "$BASE/examples/c/run_workload" "$qd" bs=4k) |"
        for c in "${CASES[@]}"; do echo "| $qd | \`$c\` | $(ipio "$BIN" "$qd" "$c") |"; done
    done
    exit 0
fi
iops() {
    # shellcheck disable=SC2086
    "$BIN" engine=null rw=randread qd="$1" runtime="${RUNTIME}s" $2 |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["iops"])'
}
echo "engine=null rw=randread runtime=${RUNTIME}s, $ROUNDS rounds after a warm-up round"
echo "| qd | case | median IOPS (spread) | ns per I/O | ratio to bs=4k, median of rounds |"
echo "|---|---|---|---|---|"
for qd in $QDS; do
    res=()
    for r in $(seq 0 "$ROUNDS"); do
        line=()
        n=${#CASES[@]}
        for k in $(seq 0 $((n - 1))); do
            i=$(( (k + r) % n ))
            line[$i]=$(iops "$qd" "${CASES[$i]}")
        done
        [ "$r" = 0 ] && continue
        res+=("${line[*]}")
    done
    ROWS=$(printf '%s;' "${res[@]}") /usr/bin/python3 - "$qd" "${CASES[@]}" <<'PY'
import os, statistics, sys
qd, cases = sys.argv[1], sys.argv[2:]
rows = [[float(x) for x in l.split()] for l in os.environ["ROWS"].split(";") if l.strip()]
for i, c in enumerate(cases):
    col = [r[i] for r in rows]
    ratio = statistics.median(r[i] / r[0] for r in rows)
    m = statistics.median(col)
    print(f"| {qd} | `{c}` | {m / 1e6:.2f} M (x{max(col) / min(col):.3f}) | {1e9 / m:.1f} | x{ratio:.3f} |")
PY
done
