#!/usr/bin/env bash
# loop_instructions.sh - the measurement loop's own cost in instructions per
# I/O, counted by callgrind (a count: a busy machine does not move it), on
# the null engine (no I/O at all: the loop, its clock reads and histograms).
# Per I/O = (instructions of ios=BIG - instructions of ios=SMALL) / (BIG -
# SMALL): setup, teardown and the result's JSON cancel out. Under valgrind
# the vDSO clock is a plain function, so its instructions are counted too
# (a few tens per read); the clock reads per I/O are printed beside.
#
#   tests/bench/loop_instructions.sh [--build DIR] [--qd "1 32"] [--big N]
#                                    [--small N] [--args "K=V ..."]
#
# A benchmark, not a test: never run by CTest.
set -eu
BUILD=build
QDS="1 32"
BIG=2000000
SMALL=200000
ARGS=
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --qd) QDS=$2; shift 2 ;;
    --big) BIG=$2; shift 2 ;;
    --small) SMALL=$2; shift 2 ;;
    --args) ARGS=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
BIN=$BUILD/examples/c/run_workload
[ -x "$BIN" ] || { echo "no $BIN: build it first" >&2; exit 2; }

# instructions of one run (Collected: the whole process)
ir() {
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" engine=null rw=randread bs=4k \
        qd="$1" ios="$2" $ARGS 2>&1 >/dev/null | sed -n 's/.*Collected : //p'
}
echo "engine=null rw=randread bs=4k $ARGS, ios=$BIG minus ios=$SMALL ($BUILD)"
echo "| qd | instructions per I/O |"
echo "|---|---|"
for qd in $QDS; do
    a=$(ir "$qd" "$BIG")
    b=$(ir "$qd" "$SMALL")
    /usr/bin/python3 -c "import sys; print(f'| $qd | {($a - $b) / ($BIG - $SMALL):.1f} |')"
done
