#!/usr/bin/env bash
# uring_vs_tiouring.sh - nvbench's io_uring path side by side with fio's
# t/io_uring (the reference for what a ring costs per I/O) and with fio:
#
#   nop    nvbench engine=io_uring io_uring.nop=1 qd 32 (latency tracked)
#          vs t/io_uring -N1 -d32 FILE (no latency tracked; fio's current
#          t/io_uring needs a file even for NOPs and makes each NOP resolve
#          it and a registered buffer, IORING_NOP_FILE|FIXED_FILE|
#          FIXED_BUFFER: a little more kernel work than nvbench's plain NOP)
#   cache  4 KiB buffered random reads of a cached FILE, qd 32, invalidate=0:
#          nvbench vs t/io_uring -O0 -p0 -d32, and nvbench vs fio
#          (ioengine=io_uring, fio as installed)
#
# Each comparison is PAIRS alternating pairs (odd pairs nvbench first, even
# pairs the other first) of RUNTIME seconds each; printed: both medians and
# the median of the pairs' ratios nvbench/other. With --callgrind, also
# user-space instructions per I/O (callgrind, ios=N2 minus ios=N1, so setup
# cancels) of nvbench's nop and cache runs, for this build and, with --base,
# another build: the total, and of it the own instructions of job_loop,
# uring_submit and uring_reap (each with what was inlined into it; the
# total also counts the result's JSON, which grows with the run's length).
#
#   tests/bench/uring_vs_tiouring.sh [--build DIR] [--base OTHER_BUILD]
#       [--pairs N] [--runtime S] [--file FILE] [--tiouring PATH]
#       [--fio-src DIR | FIO_GIT=/path/to/fio.git] [--callgrind]
#       [--only nop|cache|callgrind]   (callgrind: no pairs, --callgrind alone)
#
# t/io_uring comes from a fio source tree, never from this repository: give
# a built one with --tiouring, a source tree with --fio-src, or a fio git
# directory in FIO_GIT (its HEAD is extracted and built under BUILD/fio-t).
# A benchmark, not a test: never run by CTest. /usr/bin/python3 does the
# arithmetic and reads the JSON.
set -eu
BUILD=build
BASE=
PAIRS=5
RUNTIME=3
FILE=
TIOU=
FIO_SRC=
CALLGRIND=0
ONLY=
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --file) FILE=$2; shift 2 ;;
    --tiouring) TIOU=$2; shift 2 ;;
    --fio-src) FIO_SRC=$2; shift 2 ;;
    --callgrind) CALLGRIND=1; shift ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
NVB=$BUILD/examples/c/run_workload
[ -x "$NVB" ] || { echo "no $NVB: build it first" >&2; exit 2; }
PY=/usr/bin/python3

# t/io_uring: built from a fio source tree outside this repository's sources
if [ -z "$TIOU" ]; then
    TIOU=$BUILD/fio-t/t/io_uring
    if [ ! -x "$TIOU" ]; then
        if [ -z "$FIO_SRC" ]; then
            [ -n "${FIO_GIT:-}" ] || { echo "need --tiouring, --fio-src or FIO_GIT (fio's git dir)" >&2; exit 2; }
            mkdir -p "$BUILD/fio-t"
            git --git-dir="$FIO_GIT" archive HEAD | tar -x -C "$BUILD/fio-t"
            FIO_SRC=$BUILD/fio-t
        fi
        (cd "$FIO_SRC" && { [ -f config-host.h ] || ./configure >/dev/null; } && make -j2 t/io_uring >/dev/null)
        TIOU=$FIO_SRC/t/io_uring
    fi
fi
[ -x "$TIOU" ] || { echo "no t/io_uring at $TIOU" >&2; exit 2; }

SCRATCH=
if [ -z "$FILE" ]; then
    SCRATCH=$(mktemp -d)
    FILE=$SCRATCH/cache.dat
    head -c $((256 << 20)) /dev/urandom >"$FILE"
fi
trap '[ -n "$SCRATCH" ] && rm -rf "$SCRATCH"; rm -f "${CPUT:-}"' EXIT
cat "$FILE" >/dev/null # in the page cache before any run

# Each run prints "IOPS IOS CPU_S": its IOPS, the I/Os it made and the CPU
# time (user + system, /usr/bin/time) its processes used. On a machine
# shared with other work the IOPS follow the CPU share the scheduler gave
# each side as much as its cost; CPU time per I/O does not.
CPUT=$(mktemp)
cpu_s() { $PY -c 'import sys; u, s = open(sys.argv[1]).read().split()[-2:]; print(float(u) + float(s))' "$CPUT"; }
nvb_iops() { # BINARY ARGS...: one nvbench run
    local b=$1 r
    shift
    r=$(/usr/bin/time -f "%U %S" -o "$CPUT" "$b" "$@" 2>/dev/null |
        $PY -c 'import json, sys; t = json.load(sys.stdin)["total"]; print(t["iops"], t["ios"])')
    echo "$r $(cpu_s)"
}
# t/io_uring prints one "IOPS=..." line per second; the median of the
# seconds after the first (the ramp) is its figure. It says not how many
# I/Os it made (its lines do not cover the whole run): IOS 0, no CPU per I/O
tiou_iops() {
    local r
    r=$(/usr/bin/time -f "%U %S" -o "$CPUT" "$TIOU" "$@" -r "$RUNTIME" 2>&1 | $PY -c '
import re, statistics, sys
v = []
for line in sys.stdin:
    m = re.search(r"IOPS=([0-9.]+)([KM]?),", line)
    if m and not line.startswith("Maximum"):
        v.append(float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)])
print(statistics.median(v[1:] if len(v) > 1 else v), 0)')
    echo "$r $(cpu_s)"
}
fio_iops() {
    local r
    r=$(/usr/bin/time -f "%U %S" -o "$CPUT" fio --name=pc --ioengine=io_uring --rw=randread --bs=4k --iodepth=32 \
        --direct=0 --invalidate=0 --time_based --runtime="$RUNTIME" --filename="$FILE" --output-format=json |
        $PY -c 'import json, sys; r = json.load(sys.stdin)["jobs"][0]["read"]; print(r["iops"], r["total_ios"])')
    echo "$r $(cpu_s)"
}

NOP_ARGS="engine=io_uring io_uring.nop=1 rw=randread bs=4k qd=32"
CACHE_ARGS="engine=io_uring rw=randread bs=4k qd=32 direct=0 invalidate=0"

# LABEL CMD_A CMD_B: PAIRS alternating pairs of two commands printing
# "IOPS IOS CPU_S": the medians and the median of the pairs' ratios of IOPS
# (nvbench/other), and of CPU time per I/O (other/nvbench: above 1, the
# other spends more per I/O)
pairs() {
    local label=$1 a=$2 b=$3 out="" x y
    for i in $(seq 1 "$PAIRS"); do
        if [ $((i % 2)) = 1 ]; then x=$(eval "$a"); y=$(eval "$b"); else y=$(eval "$b"); x=$(eval "$a"); fi
        out="$out $x $y"
    done
    $PY - "$label" $out <<'EOF'
import statistics, sys
label, v = sys.argv[1], [float(x) for x in sys.argv[2:]]
runs = [v[i:i + 3] for i in range(0, len(v), 3)]
a, b = runs[0::2], runs[1::2]
r = [x[0] / y[0] for x, y in zip(a, b)]
med = statistics.median
ca = [x[2] / x[1] * 1e6 for x in a]
cpu = f"; CPU per I/O nvbench {med(ca):.3f} us"
if all(y[1] for y in b):
    cb = [y[2] / y[1] * 1e6 for y in b]
    c = [y / x for x, y in zip(ca, cb)]
    cpu += f", other {med(cb):.3f} us, other/nvbench median {med(c):.2f} (pairs {min(c):.2f}..{max(c):.2f})"
print(f"{label}: nvbench {med(x[0] for x in a)/1e6:.3f} M IOPS, other {med(y[0] for y in b)/1e6:.3f} M IOPS, "
      f"ratio median {med(r):.3f} (pairs {min(r):.3f}..{max(r):.3f}){cpu}")
EOF
}

echo "machine: $(nproc) CPUs, $(uname -r); pairs=$PAIRS runtime=${RUNTIME}s; t/io_uring: $TIOU"
if [ -z "$ONLY" ] || [ "$ONLY" = nop ]; then
    # shellcheck disable=SC2086
    pairs "nop qd32: nvbench vs t/io_uring -N1 -d32" \
        "nvb_iops $NVB $NOP_ARGS runtime=${RUNTIME}s" "tiou_iops -N1 -d32 -n1 $FILE"
fi
if [ -z "$ONLY" ] || [ "$ONLY" = cache ]; then
    # shellcheck disable=SC2086
    pairs "page cache 4k randread qd32: nvbench vs t/io_uring -O0 -p0 -d32" \
        "nvb_iops $NVB $CACHE_ARGS runtime=${RUNTIME}s $FILE" "tiou_iops -O0 -p0 -d32 -n1 $FILE"
    pairs "page cache 4k randread qd32: nvbench vs $(fio --version)" \
        "nvb_iops $NVB $CACHE_ARGS runtime=${RUNTIME}s $FILE" "fio_iops"
fi

[ "$ONLY" = callgrind ] && CALLGRIND=1
if [ "$CALLGRIND" = 1 ]; then
    command -v valgrind >/dev/null || { echo "no valgrind" >&2; exit 2; }
    N1=200000
    N2=2000000 # the shape of check 21 and loop_instructions.sh: 2M minus 200k
    # BINARY ARGS...: instructions (Ir) of one run under callgrind, as
    # "TOTAL job_loop=N uring_submit=N uring_reap=N" (a function's own
    # instructions, with what the compiler inlined into it from any file)
    ir() {
        local f
        f=$(mktemp)
        if valgrind --tool=callgrind --callgrind-out-file="$f" "$@" >/dev/null 2>&1; then
            callgrind_annotate --threshold=100 "$f" 2>/dev/null | $PY -c '
import re, sys
tot, fn = None, {"job_loop": 0, "uring_submit": 0, "uring_reap": 0}
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+)\s+\(.*?\)\s+(\S+)", line)
    if not m:
        continue
    n, what = int(m.group(1).replace(",", "")), m.group(2)
    if what == "PROGRAM":
        tot = n
    elif ":" in what and what.rsplit(":", 1)[1] in fn:
        fn[what.rsplit(":", 1)[1]] += n
if tot is not None:
    print(tot, " ".join(f"{k}={v}" for k, v in fn.items()))'
        fi
        rm -f "$f"
    }
    per_io() { # BINARY ARGS...: per I/O, the total and the functions'
        local bin=$1 a b
        shift
        a=$(ir "$bin" ios=$N1 "$@")
        b=$(ir "$bin" ios=$N2 "$@")
        if [ -n "$a" ] && [ -n "$b" ]; then
            $PY -c '
import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
d = int(sys.argv[4]) - int(sys.argv[3])
parts = []
for x, y in zip(a[1:], b[1:]):
    k, u = x.split("=")
    parts.append("%s %.1f" % (k, (int(y.split("=")[1]) - int(u)) / d))
print("%.1f (%s)" % ((int(b[0]) - int(a[0])) / d, ", ".join(parts)))' "$a" "$b" $N1 $N2
        else
            echo "n/a (the run failed)"
        fi
    }
    for b in "$NVB" ${BASE:+"$BASE/examples/c/run_workload"}; do
        # shellcheck disable=SC2086
        echo "callgrind $b: nop qd32 $(per_io "$b" $NOP_ARGS) instructions/I/O"
        # shellcheck disable=SC2086
        echo "callgrind $b: page cache qd32 $(per_io "$b" $CACHE_ARGS "$FILE") instructions/I/O"
    done
fi
