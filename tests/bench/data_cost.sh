#!/usr/bin/env bash
# data_cost.sh - what fresh data in every written block costs: the same
# write workloads run by a build from before the change (buffers written
# unchanged), a build from after it (every block made fresh, core/data.c)
# and fio, in rotating order within each round so that a drift of the
# machine hits all three alike.
#
#   tests/bench/data_cost.sh --before BUILD_DIR [--after BUILD_DIR] [--rounds N]
#                            [--runtime S] [--dir DIR] [--case NAME]
#
# Cases (--case, default all):
#   null     engine null, 4 KiB randwrite, QD32: no I/O, the loop alone. The
#            null engine writes nothing anywhere, so it prepares no data:
#            the two builds should not differ.
#   psync    psync, 4 KiB randwrite, direct=0, a 256 MiB file in the page
#            cache (DIR, default /dev/shm: tmpfs, so no writeback to a
#            device ever throttles the loop): one write system call and a
#            4 KiB copy into the cache per I/O.
#   io_uring the same with io_uring at QD32.
# fio writes its buffers as it does by default (filled once, scramble_buffers
# changing a few bytes per 512 before each write). nvbench after the change
# runs with invalidate=0 (the file stays cached, as fio --invalidate=0).
#
# A benchmark, not a test: never run by CTest. Prints markdown: per case
# the median IOPS of each, the median of the per-round ratios after/before
# (the cost of the data: 1.00 is none), after/fio and before/fio, the
# spread (max/min) of the before build's own runs, which says how much two
# runs of the same thing differ on this machine right now, and the CPU
# time per I/O (nvbench: the process's; fio: its job thread's, usr + sys)
# with the median per-round ratio after/before. Needs fio and
# /usr/bin/python3.
set -u
ROUNDS=5
RUNTIME=3
BEFORE=""
AFTER=""
DIR=""
CASES="null psync io_uring"
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
while [ $# -gt 0 ]; do
    case $1 in
    --before) BEFORE=$2; shift 2 ;;
    --after) AFTER=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --case) CASES=$2; shift 2 ;;
    -h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "data_cost.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$BEFORE" ] || { echo "data_cost.sh: --before BUILD_DIR is needed (a build of the commit before)" >&2; exit 2; }
AFTER=${AFTER:-$SRC/build}
RB=$BEFORE/examples/c/run_workload
RA=$AFTER/examples/c/run_workload
PY=/usr/bin/python3
for x in "$RB" "$RA"; do [ -x "$x" ] || { echo "data_cost.sh: $x not built" >&2; exit 1; }; done
command -v fio >/dev/null || { echo "data_cost.sh: fio is not installed" >&2; exit 1; }
if [ -z "$DIR" ]; then
    DIR=/dev/shm
    [ -d "$DIR" ] && [ -w "$DIR" ] || DIR=${TMPDIR:-/var/tmp}
fi
F=$DIR/nvb-data-cost.$$.dat
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nvb-data-cost.XXXXXX") || exit 1
trap 'rm -rf "$TMP" "$F"' EXIT
trap 'exit 130' INT TERM
head -c $((256 << 20)) /dev/urandom >"$F" || exit 1

# "IOPS CPU_US_PER_IO" of a result (fio's CPU is its job thread's).
iops() {
    "$PY" - "$1" "$2" <<'EOF'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
text = open(path).read()
d = json.loads(text[text.index("{"):])
if kind == "fio":
    j = d["jobs"][0]
    ios = j["write"]["total_ios"]
    cpu_s = (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0
    print(j["write"]["iops"], cpu_s * 1e6 / ios if ios else 0)
else:
    print(d["write"]["iops"], d["cpu"]["cpu_us_per_io"])
EOF
}

# one TOOL OUT: the current case's run by before, after or fio.
one() {
    local tool=$1 out=$2
    case $tool in
    before) "$RB" "${NVB[@]}" runtime="${RUNTIME}s" >"$out" 2>"$out.err" ;;
    after) "$RA" "${NVB[@]}" "${NVB_AFTER[@]}" runtime="${RUNTIME}s" >"$out" 2>"$out.err" ;;
    fio) fio --name=cost "${FIO[@]}" --time_based --runtime="$RUNTIME" --output-format=json >"$out" 2>"$out.err" ;;
    esac || { echo "$tool failed: $(cat "$out.err")" >&2; return 1; }
    iops "$([ "$tool" = fio ] && echo fio || echo nvb)" "$out"
}

echo "## cost of fresh data per write ($(date -u +%Y-%m-%dT%H:%MZ))"
echo
echo "machine: $(nproc) CPUs, kernel $(uname -r), $(fio --version); before: $BEFORE, after: $AFTER; file in $DIR"
echo "rounds: $ROUNDS, runtime ${RUNTIME}s per run, order rotating (before after fio, after fio before, ...)"
echo
echo "| case | before IOPS | after IOPS | fio IOPS | after/before | after/fio | before/fio | before spread | CPU us/IO before / after / fio | CPU after/before |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in $CASES; do
    case $c in
    null)
        NVB=(engine=null rw=randwrite bs=4k qd=32)
        NVB_AFTER=()
        FIO=(--ioengine=null --size=1G --rw=randwrite --bs=4k --iodepth=32) ;;
    psync)
        NVB=(engine=psync rw=randwrite bs=4k direct=0 "$F")
        NVB_AFTER=(invalidate=0)
        FIO=(--filename="$F" --ioengine=psync --direct=0 --invalidate=0 --rw=randwrite --bs=4k --size=256M) ;;
    io_uring)
        NVB=(engine=io_uring rw=randwrite bs=4k qd=32 direct=0 "$F")
        NVB_AFTER=(invalidate=0)
        FIO=(--filename="$F" --ioengine=io_uring --direct=0 --invalidate=0 --rw=randwrite --bs=4k --iodepth=32
            --size=256M) ;;
    *) echo "unknown case '$c' (null, psync, io_uring)" >&2; exit 2 ;;
    esac
    one before "$TMP/warm" >/dev/null && one after "$TMP/warm" >/dev/null && one fio "$TMP/warm" >/dev/null || exit 1
    rows=()
    for ((i = 0; i < ROUNDS; i++)); do
        order=(before after fio)
        order=("${order[@]:i%3}" "${order[@]:0:i%3}")
        declare -A v=()
        for t in "${order[@]}"; do
            v[$t]=$(one "$t" "$TMP/$c.$i.$t") || exit 1
        done
        rows+=("${v[before]} ${v[after]} ${v[fio]}") # IOPS and CPU us/IO of each
        unset v
    done
    "$PY" - "$c" "${rows[@]}" <<'EOF'
import statistics as st, sys
case, six = sys.argv[1], [[float(x) for x in r.split()] for r in sys.argv[2:]]
rows = [(r[0], r[2], r[4]) for r in six]
cpu = [(r[1], r[3], r[5]) for r in six]
b, a, f = zip(*rows)
cb, ca, cf = zip(*cpu)
med = lambda xs: st.median(xs)
print("| %s | %s | %s | %s | **%.3f** | %.2f | %.2f | %.3f | %.3f / %.3f / %.3f | **%.3f** |" % (
    case, format(round(med(b)), ","), format(round(med(a)), ","), format(round(med(f)), ","),
    med([y / x for x, y, _ in rows]), med([y / z for _, y, z in rows]), med([x / z for x, _, z in rows]),
    max(b) / min(b), med(cb), med(ca), med(cf), med([y / x for x, y, _ in cpu if x > 0])))
EOF
done
