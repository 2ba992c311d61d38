#!/usr/bin/env bash
# dist_cost.sh - what each offset generator (random_distribution,
# random_map) costs per I/O against the uniform draw: the null engine (no
# I/O: the loop, its time stamps and histograms, and the draw) of one
# build, rw=randread bs=4k over a 1 TiB region (2^28 blocks), every case
# in each round, in an order rotating from round to round, so that a drift
# of the machine hits all alike.
#
#   tests/bench/dist_cost.sh [--build DIR] [--rounds N] [--runtime S] [--qd "1 32"]
#   tests/bench/dist_cost.sh --instructions [--build DIR] [--qd 32]
#
# --instructions: instead of time, the instructions each I/O executes,
# counted by valgrind's cachegrind (a count, not a clock: the same on a busy
# machine): (instructions of 3*10^6 I/Os - of 10^6 I/Os) / 2*10^6, so what
# every run does once cancels out.
#
# A benchmark, not a test: never run by CTest. Prints markdown: per queue
# depth and case the median IOPS, the median of the rounds' ratios
# case/random (1.00: costs nothing) and the median of the rounds' added
# time per I/O (1/IOPS of the case minus 1/IOPS of random, in ns; one
# thread, so that is the draw's cost). The spread (max/min of random's own
# runs) says how much two runs of the same thing differ on this machine
# right now. /usr/bin/python3 does the arithmetic.
set -eu
BUILD=build
ROUNDS=5
RUNTIME=2
QDS="1 32"
INSTR=0
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --qd) QDS=$2; shift 2 ;;
    --instructions) INSTR=1; shift ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "dist_cost.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
RUN=$BUILD/examples/c/run_workload
[ -x "$RUN" ] || { echo "dist_cost.sh: no $RUN: build it first" >&2; exit 2; }
CASES=("random_distribution=random" "random_distribution=zipf:1.2" "random_distribution=pareto:0.2"
    "random_distribution=normal:10" "random_distribution=zoned:60/10:30/20:10/70" "random_map=1")

# IOPS of one run of case $1 at qd $2
iops() {
    "$RUN" engine=null rw=randread bs=4k size=1T qd="$2" runtime="${RUNTIME}s" "$1" 2>/dev/null |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["iops"])'
}

# instructions of N I/Os of case $1 at qd $2
instr() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$RUN" engine=null rw=randread \
        bs=4k size=1T qd="$2" ios="$3" runtime=0 "$1" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}
if [ "$INSTR" = 1 ]; then
    command -v valgrind >/dev/null || { echo "dist_cost.sh: --instructions needs valgrind" >&2; exit 2; }
    echo "engine=null rw=randread bs=4k size=1T, instructions per I/O (cachegrind), $(date -u +%Y-%m-%dT%H:%MZ)"
    echo
    echo "| qd | case | instructions per I/O | added to random |"
    echo "|---|---|---:|---:|"
    for qd in $QDS; do
        base=
        for c in "${CASES[@]}"; do
            a=$(instr "$c" "$qd" 1000000) b=$(instr "$c" "$qd" 3000000)
            per=$(/usr/bin/python3 -c "print(f'{($b - $a) / 2e6:.1f}')")
            base=${base:-$per}
            echo "| $qd | \`$c\` | $per | $(/usr/bin/python3 -c "print(f'{$per - $base:+.1f}')") |"
        done
    done
    exit 0
fi

echo "engine=null rw=randread bs=4k size=1T runtime=${RUNTIME}s, $ROUNDS rounds, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| qd | case | median IOPS | ratio case/random (median of rounds) | added ns per I/O (median) |"
echo "|---|---|---:|---:|---:|"
n=${#CASES[@]}
for qd in $QDS; do
    iops "${CASES[0]}" "$qd" >/dev/null # warm-up
    rows=()
    for ((r = 0; r < ROUNDS; r++)); do
        declare -a v=()
        for ((k = 0; k < n; k++)); do
            c=$(((k + r) % n))
            v[$c]=$(iops "${CASES[$c]}" "$qd")
        done
        rows+=("${v[*]}")
        unset v
    done
    /usr/bin/python3 - "$qd" "$(IFS='|'; echo "${CASES[*]}")" "${rows[@]}" <<'PY'
import statistics as st, sys
qd, cases, rows = sys.argv[1], sys.argv[2].split("|"), [[float(x) for x in r.split()] for r in sys.argv[3:]]
base = [r[0] for r in rows]
for k, c in enumerate(cases):
    col = [r[k] for r in rows]
    ratio = st.median([a / b for a, b in zip(col, base)])
    added = st.median([1e9 / a - 1e9 / b for a, b in zip(col, base)])
    extra = f" (spread x{max(base) / min(base):.3f})" if k == 0 else ""
    print(f"| {qd} | `{c}`{extra} | {st.median(col) / 1e6:.2f} M | x{ratio:.3f} | {added:+.1f} |")
PY
done
