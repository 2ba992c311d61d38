#!/usr/bin/env bash
# rss_scale.sh - peak RSS of a run at scale and of a single job: 64 jobs
# over 64 sparse 64 MiB files (null engine, randread 4k, qd 4, 1 s) and one
# job on one of them, by /usr/bin/time -f %M, with the result JSON's size;
# this build alternating with another (BASE) when given.
#
#   [BUILD=build] [BASE=OTHER_BUILD] [RUNS=3] [DIR=SCRATCH] tests/bench/rss_scale.sh
#
# A benchmark, not a test: never run by CTest (how many pages a run touches
# depends on how far a busy machine spreads the latencies). Prints each run
# and the medians, in MB (10^6 bytes) and KB.
set -eu
# settings from the environment, so that a run reads as one line
BUILD=${BUILD:-build} BASE=${BASE:-} RUNS=${RUNS:-3} DIR=${DIR:-}
own=
if [ -z "$DIR" ]; then
    DIR=$(mktemp -d /tmp/rss_scale.XXXXXX)
    own=1
fi
out=$(mktemp /tmp/rss_scale_out.XXXXXX)
cleanup() { rm -f "$out" "$out.t"; [ -z "$own" ] || rm -rf "$DIR"; }
trap cleanup EXIT
for i in $(seq 64); do truncate -s 64M "$DIR/t$i"; done
ARGS="engine=null rw=randread bs=4k qd=4 runtime=1s"

# one run: "peak_MB json_KB"
one() {
    local build=$1 shape=$2 targets
    if [ "$shape" = scale ]; then
        targets=$(printf '%s ' "$DIR"/t*)
        set -- jobs=64
    else
        targets="$DIR/t1"
        set -- jobs=1
    fi
    # shellcheck disable=SC2086
    /usr/bin/time -f %M -o "$out.t" "$build/examples/c/run_workload" $ARGS "$@" $targets >"$out" 2>/dev/null
    echo "$(( $(tail -1 "$out.t") * 1024 / 1000000 )).$(( $(tail -1 "$out.t") * 1024 % 1000000 / 100000 )) $(( $(stat -c %s "$out") / 1000 ))"
}

for shape in scale single; do
    new=() old=()
    for _ in $(seq 1 "$RUNS"); do
        new+=("$(one "$BUILD" $shape)")
        [ -z "$BASE" ] || old+=("$(one "$BASE" $shape)")
    done
    /usr/bin/python3 - "$shape" "$BUILD" "$(printf '%s,' "${new[@]}")" "$BASE" "$(printf '%s,' "${old[@]+"${old[@]}"}")" <<'PY'
import statistics, sys
shape, build, new, base, old = sys.argv[1:6]
what = "64 jobs x 64 targets" if shape == "scale" else "1 job, 1 target"
for name, runs in ((build, new), (base, old)):
    rows = [r.split() for r in runs.split(",") if r.strip()]
    if not rows:
        continue
    mb = [float(r[0]) for r in rows]
    kb = [int(r[1]) for r in rows]
    print(f"{what}, {name}: peak RSS MB", " ".join(f"{x:.1f}" for x in mb),
          f"median {statistics.median(mb):.1f}; result JSON KB", " ".join(map(str, kb)))
PY
done
