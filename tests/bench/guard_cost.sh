#!/usr/bin/env bash
# guard_cost.sh - what the write guard's per-run work costs: opening and
# holding each target, the identity check, the OFD lock and the storage-stack
# scan happen once per target before the run, never per I/O. Measured as the
# wall time of many one-I/O runs (where that setup is all there is), of this
# build beside another (the commit before the hold, say), in alternating
# order, on a regular file and on a loop device.
#
#   tests/bench/guard_cost.sh --base OTHER_BUILD [--build DIR] [--runs N] [--rounds N]
#
# A benchmark, not a test: never run by CTest. Needs root (losetup) for the
# block-device case; /usr/bin/python3 for the arithmetic.
set -eu
BUILD=build
BASE=
RUNS=200
ROUNDS=5
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$BASE" ] || { echo "--base OTHER_BUILD is required" >&2; exit 2; }
NEW=$BUILD/examples/c/run_workload
OLD=$BASE/examples/c/run_workload
for b in "$NEW" "$OLD"; do [ -x "$b" ] || { echo "no $b: build it first" >&2; exit 2; }; done
DIR=$(mktemp -d "${TMPDIR:-/var/tmp}/nvb-guard-bench.XXXXXX")
LOOP=
cleanup() { [ -n "$LOOP" ] && losetup -d "$LOOP"; rm -rf "$DIR"; }
trap cleanup EXIT
dd if=/dev/zero of="$DIR/f.dat" bs=1M count=16 status=none
truncate -s 64M "$DIR/dev.img"
[ "$(id -u)" = 0 ] && LOOP=$(losetup -f --show "$DIR/dev.img")

# seconds for RUNS one-I/O write runs of BINARY on TARGET
batch() {
    local bin=$1 tgt=$2 t0 t1
    t0=$(date +%s.%N)
    for _ in $(seq "$RUNS"); do
        "$bin" engine=psync rw=write bs=4k ios=1 allow_destructive=1 "$tgt" >/dev/null
    done
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{print $2 - $1}'
}

for tgt in "$DIR/f.dat" ${LOOP:+"$LOOP"}; do
    new=() old=()
    for r in $(seq 0 "$ROUNDS"); do
        if [ $((r % 2)) = 0 ]; then a=$(batch "$NEW" "$tgt"); b=$(batch "$OLD" "$tgt");
        else b=$(batch "$OLD" "$tgt"); a=$(batch "$NEW" "$tgt"); fi
        [ "$r" = 0 ] && continue # warm-up round
        new+=("$a"); old+=("$b")
    done
    /usr/bin/python3 - "$tgt" "$RUNS" "${new[*]}" "${old[*]}" <<'PY'
import statistics, sys
tgt, runs = sys.argv[1], int(sys.argv[2])
new, old = [float(x) for x in sys.argv[3].split()], [float(x) for x in sys.argv[4].split()]
ratios = [a / b for a, b in zip(new, old)]
print(f"{tgt}: per run this build {1e3 * statistics.median(new) / runs:.2f} ms, base "
      f"{1e3 * statistics.median(old) / runs:.2f} ms (spread of base x{max(old) / min(old):.3f}); "
      f"ratio median x{statistics.median(ratios):.3f} (rounds {' '.join(f'{r:.3f}' for r in ratios)})")
PY
done
