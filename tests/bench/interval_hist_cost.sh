#!/usr/bin/env bash
# interval_hist_cost.sh - what the per-interval latency histograms (timeseries
# p50/p99/p99.9) cost: the sampler thread's CPU per tick of this build beside
# another build (one without them), alternating, on the null engine at the
# shortest interval with latencies spread by fault.delay (more buckets to
# scan). The jobs' loop is unchanged (the sampler differences their
# cumulative histograms); loop_cost.sh --args "interval=10ms jobs=2" shows
# the loop's side.
#
#   tests/bench/interval_hist_cost.sh --base OTHER_BUILD [--build DIR] [--pairs N] [--jobs N]
#
# A benchmark, not a test: never run by CTest. Prints each run's sampler CPU
# per tick and the medians.
set -eu
BUILD=build
BASE=
PAIRS=5
JOBS=8
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$BASE" ] || { echo "--base OTHER_BUILD is required" >&2; exit 2; }
ARGS="engine=null rw=randrw qd=16 jobs=$JOBS runtime=2s interval=10ms fault.delay=50us fault.delay_rate=0.5"
echo "$ARGS"
# the calling thread is the sampler: its CPU over the window per time-series point, in us
per_tick() {
    # shellcheck disable=SC2086
    "$1/examples/c/run_workload" $ARGS 2>/dev/null | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["cpu"]["threads"][0]["cpu_s"] / len(d["timeseries"]) * 1e6)'
}
new=() old=()
for _ in $(seq 1 "$PAIRS"); do
    new+=("$(per_tick "$BUILD")")
    old+=("$(per_tick "$BASE")")
done
/usr/bin/python3 - "${new[*]}" "${old[*]}" <<'PY'
import statistics, sys
new, old = ([float(x) for x in a.split()] for a in sys.argv[1:3])
print("this build, sampler us per tick:", " ".join(f"{x:.0f}" for x in new), "median", f"{statistics.median(new):.0f}")
print("other build, sampler us per tick:", " ".join(f"{x:.0f}" for x in old), "median", f"{statistics.median(old):.0f}")
PY
