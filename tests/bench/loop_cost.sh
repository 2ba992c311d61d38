#!/usr/bin/env bash
# loop_cost.sh - what a change to the measurement loop costs per I/O: the
# null engine (no I/O at all: the loop, its time stamps and histograms) of
# this build beside another build, in alternating order, at each queue depth
# given. At qd 1 every I/O is its own submit call, so a per-batch cost is a
# per-I/O cost there; at qd 32 it is shared by the batch. With --target, the
# page-cache loop instead: 4 KiB buffered random reads of FILE (keep it
# cached: a file smaller than memory, read once before) with --engine.
# With --rw "A B", one build's rw=A beside its (or --base's) rw=B, e.g.
# --base build --rw "randtrim randwrite": what a trim costs beside a write.
#
#   tests/bench/loop_cost.sh --base OTHER_BUILD [--build DIR] [--pairs N]
#                            [--runtime S] [--qd "1 32"] [--args "K=V ..."]
#                            [--target FILE --engine io_uring] [--rw "A B"]
#
# A benchmark, not a test: never run by CTest. Prints, per queue depth, both
# builds' median IOPS, each build's spread (max/min of its own runs: how much
# the same build differs on this machine now) and the median of the pairs'
# ratios this/other. /usr/bin/python3 does the arithmetic.
set -eu
BUILD=build
BASE=
PAIRS=5
RUNTIME=2
QDS="1 32"
ARGS=
TARGET=
ENGINE=io_uring
RW_NEW=randread
RW_OLD=randread
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --qd) QDS=$2; shift 2 ;;
    --args) ARGS=$2; shift 2 ;;
    --target) TARGET=$2; shift 2 ;;
    --engine) ENGINE=$2; shift 2 ;;
    --rw) RW_NEW=${2%% *}; RW_OLD=${2##* }; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$BASE" ] || { echo "--base OTHER_BUILD is required" >&2; exit 2; }
NEW=$BUILD/examples/c/run_workload
OLD=$BASE/examples/c/run_workload
for b in "$NEW" "$OLD"; do [ -x "$b" ] || { echo "no $b: build it first" >&2; exit 2; }; done

WHAT="engine=null"
[ -n "$TARGET" ] && WHAT="engine=$ENGINE direct=0"

# IOPS of one run of BINARY at QD with RW
iops() {
    # shellcheck disable=SC2086
    "$1" $WHAT rw="$3" bs=4k qd="$2" runtime="${RUNTIME}s" $ARGS ${TARGET:+"$TARGET"} |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["iops"])'
}
echo "$WHAT rw=$RW_NEW (this) vs rw=$RW_OLD (other) bs=4k runtime=${RUNTIME}s $ARGS $TARGET"

echo "| qd | this build, median IOPS (spread) | other build, median IOPS (spread) | ratio this/other, median of pairs (pairs) |"
echo "|---|---|---|---|"
for qd in $QDS; do
    new=() old=()
    for p in $(seq 0 "$PAIRS"); do
        if [ $((p % 2)) = 0 ]; then a=$(iops "$NEW" "$qd" "$RW_NEW"); b=$(iops "$OLD" "$qd" "$RW_OLD");
        else b=$(iops "$OLD" "$qd" "$RW_OLD"); a=$(iops "$NEW" "$qd" "$RW_NEW"); fi
        [ "$p" = 0 ] && continue # warm-up pair
        new+=("$a"); old+=("$b")
    done
    /usr/bin/python3 - "$qd" "${new[*]}" "${old[*]}" <<'PY'
import statistics, sys
qd, new, old = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
ratios = [a / b for a, b in zip(new, old)]
fmt = lambda v: f"{v / 1e6:.2f} M"
print(f"| {qd} | {fmt(statistics.median(new))} (x{max(new) / min(new):.3f}) | "
      f"{fmt(statistics.median(old))} (x{max(old) / min(old):.3f}) | "
      f"x{statistics.median(ratios):.3f} ({' '.join(f'{r:.3f}' for r in ratios)}) |")
PY
done
