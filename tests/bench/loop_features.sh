#!/usr/bin/env bash
# loop_features.sh - each feature's cost in the measurement loop, in
# instructions per I/O (callgrind, as loop_instructions.sh counts them) on
# the null engine, randread 4k, for one build or two side by side: a plain
# run, then one feature at a time. A count: the machine's load does not
# move it. The null engine does no I/O on files, so verify and written
# contents (which need files) are not among these.
#
#   tests/bench/loop_features.sh [--build DIR] [--base DIR] [--qd "1 32"]
#                                [--big N] [--small N] [--targets "F1 F2"]
#
# --targets: two files (any size) for the two-target row; without it that
# row is left out. A benchmark, not a test: never run by CTest.
set -eu
BUILD=build
BASE=
QDS="1 32"
BIG=400000
SMALL=100000
TARGETS=
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --qd) QDS=$2; shift 2 ;;
    --big) BIG=$2; shift 2 ;;
    --small) SMALL=$2; shift 2 ;;
    --targets) TARGETS=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)

# name|extra arguments
FEATURES=(
    "plain|"
    "watchdog off (io_timeout=0)|io_timeout=0"
    "rw=randrw (two directions)|rw=randrw"
    "rate_iops=1G (closed)|rate_iops=1000000000 rate_mode=closed"
    "rate_iops=1G (open)|rate_iops=1000000000 rate_mode=open"
    "thinktime=1us every 1M I/Os|thinktime=1 thinktime_blocks=1000000"
    "bssplit=4k/50:8k/50|bssplit=4k/50:8k/50"
    "random_distribution=zipf:1.2|random_distribution=zipf:1.2"
    "fault.rate=1e-5, continue_on_error|fault.rate=0.00001 continue_on_error=1"
)
[ -n "$TARGETS" ] && FEATURES+=("two targets|$TARGETS")

per_io() { # build qd args -> instructions per I/O
    "$HERE/loop_instructions.sh" --build "$1" --qd "$2" --big "$BIG" --small "$SMALL" --args "$3" |
        sed -n 's/^| [0-9]* | \([0-9.]*\) |$/\1/p'
}

for qd in $QDS; do
    echo
    if [ -n "$BASE" ]; then
        echo "qd $qd: $BASE | $BUILD"
        echo "| feature | before | after |"
        echo "|---|---:|---:|"
    else
        echo "qd $qd: $BUILD"
        echo "| feature | instructions per I/O |"
        echo "|---|---:|"
    fi
    for f in "${FEATURES[@]}"; do
        name=${f%%|*}
        args=${f#*|}
        a=$(per_io "$BUILD" "$qd" "$args")
        if [ -n "$BASE" ]; then
            b=$(per_io "$BASE" "$qd" "$args")
            echo "| $name | $b | $a |"
        else
            echo "| $name | $a |"
        fi
    done
done
