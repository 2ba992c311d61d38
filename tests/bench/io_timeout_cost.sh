#!/usr/bin/env bash
# io_timeout_cost.sh - what the watchdog's bounded waits cost: the same
# workload with io_timeout=0 (waits unbounded, no age scan) and with the
# default io_timeout=60s (waits of at most 100 ms, a scan of the in-flight
# slots every 100 ms), run back to back in alternating order.
#
#   tests/bench/io_timeout_cost.sh [--pairs N] [--runtime S] [--build DIR] [--dir DIR]
#
# A benchmark, not a test: never run by CTest. Prints, per engine, the median
# IOPS of each setting and the median of the per-pair ratios (default/off);
# the spread of the io_timeout=0 runs (max/min) says how much two runs of
# the same setting differ on this machine. Needs /usr/bin/python3.
set -eu
PAIRS=5
RUNTIME=3
BUILD=build
DIR=
while [ $# -gt 0 ]; do
    case $1 in
    --pairs) PAIRS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
RUNW=$BUILD/examples/c/run_workload
[ -x "$RUNW" ] || { echo "no $RUNW: build first (make build)" >&2; exit 2; }
OWN=0
if [ -z "$DIR" ]; then
    DIR=$(mktemp -d "${TMPDIR:-/var/tmp}/nvb-bench.XXXXXX")
    OWN=1
fi
trap '[ $OWN = 1 ] && rm -rf "$DIR"' EXIT
FILE=$DIR/data
# a 1 GiB file of real blocks, so that O_DIRECT reads reach the device
[ -s "$FILE" ] || dd if=/dev/zero of="$FILE" bs=1M count=1024 oflag=direct status=none

iops() { /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["read"]["iops"])'; }
for eng in io_uring libaio; do
    off=() on=()
    for i in $(seq 0 "$PAIRS"); do
        for t in $( [ $((i % 2)) = 0 ] && echo "0 60s" || echo "60s 0"); do
            v=$("$RUNW" engine=$eng rw=randread bs=4k qd=32 direct=1 runtime=${RUNTIME}s io_timeout=$t "$FILE" | iops)
            [ "$i" = 0 ] && continue # warm-up pair
            if [ "$t" = 0 ]; then off+=("$v"); else on+=("$v"); fi
        done
    done
    /usr/bin/python3 - "$eng" "${off[*]}" "${on[*]}" <<'PY'
import statistics, sys
eng, off, on = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
ratios = [b / a for a, b in zip(off, on)]
print(f"{eng:9s} io_timeout=0: median {statistics.median(off):9.0f} IOPS (spread x{max(off) / min(off):.3f}); "
      f"io_timeout=60s: median {statistics.median(on):9.0f} IOPS; "
      f"ratio 60s/0 median x{statistics.median(ratios):.3f} (pairs {' '.join(f'{r:.3f}' for r in ratios)})")
PY
done
