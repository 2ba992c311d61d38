#!/usr/bin/env bash
# Load: many targets x many jobs x a deep queue on two cores. Each shape
# runs as its own run_workload process (cpu.maxrss_kib is the process's
# peak), must complete, and must add up exactly: per-target ios and bytes
# sum to the totals, the time series sums to the totals, the histogram
# counts equal the I/O counts; no scratch file is left. Peak RSS must stay
# under a bound computed from what the run holds (buffers, histograms).
#
#   bash test_load.sh BUILD_DIR SOURCE_DIR       (exit 77: skipped)
# Environment: NVB_LOAD_RUNTIME (default 3s), NVB_LOAD_SHAPES (default
# "64x64"; "all" for the table in docs/reliability.md), NVB_LOAD_SIZE
# (scratch file per target, default 4M).
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
RUN=$BUILD/examples/c/run_workload
PY=/usr/bin/python3
RUNTIME=${NVB_LOAD_RUNTIME:-3s}
SIZE=${NVB_LOAD_SIZE:-4M}
SHAPES=${NVB_LOAD_SHAPES:-64x64}
[ "$SHAPES" = all ] && SHAPES="1x1 1x64 64x1 8x8 16x16 32x32 64x64"
QD=${NVB_LOAD_QD:-256}

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$RUN" ] || skip "$RUN not built"
[ -x "$PY" ] || skip "$PY not found"

ENGINE=psync
for e in io_uring libaio; do
    if "$RUN" engine=$e ios=1 size=64k "$BUILD" > /dev/null 2>&1 || \
       "$RUN" engine=$e ios=1 direct=0 size=64k "$BUILD" > /dev/null 2>&1; then
        ENGINE=$e
        break
    fi
done
[ "$ENGINE" = psync ] && echo "note: no asynchronous engine here: qd is 1 per job with psync"

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/load.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
DIRECT=1
"$RUN" engine=psync ios=1 size=64k "$TMP" > /dev/null 2>&1 || DIRECT=0

# Two CPUs, or the one there is.
CPUS=0-1
[ "$(nproc)" -lt 2 ] && CPUS=0

echo "shape    engine    qd  jobs targets  iops        maxrss_MiB  bound_MiB"
for shape in $SHAPES; do
    nt=${shape%x*}
    jobs=${shape#*x}
    targets=()
    for _ in $(seq "$nt"); do targets+=("$TMP"); done
    out=$TMP/$shape.json
    rc=0
    "$RUN" engine=$ENGINE direct=$DIRECT rw=randrw bs=4k qd="$QD" jobs="$jobs" size="$SIZE" runtime="$RUNTIME" \
        interval=1s cpus=$CPUS "${targets[@]}" > "$out" 2> "$TMP/$shape.err" || rc=$?
    [ "$rc" -eq 0 ] || { cat "$TMP/$shape.err" >&2; fail "$shape: exit status $rc"; }
    [ -z "$(ls -A "$TMP" | grep -v '\.json$\|\.err$')" ] || fail "$shape: scratch files left: $(ls -A "$TMP")"
    "$PY" - "$out" "$shape" "$nt" "$jobs" <<'EOF' || fail "$shape: figures do not add up"
import json, sys
path, shape, nt, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
r = json.load(open(path))
bad = []
pt = r["per_target"]
if len(pt) != nt:
    bad.append(f"{len(pt)} per_target entries for {nt} targets")
for d in ("read", "write"):
    for k in ("ios", "bytes"):
        s = sum(t[d][k] for t in pt)
        if s != r[d][k]:
            bad.append(f"per_target {d}.{k} sum {s} != {r[d][k]}")
        s = sum(x[d][k] for x in r["timeseries"])
        if s != r[d][k]:
            bad.append(f"timeseries {d}.{k} sum {s} != {r[d][k]}")
    if r[d]["lat_hist"]["count"] != r[d]["ios"]:
        bad.append(f"{d}.lat_hist.count != {d}.ios")
    if r[d]["bytes"] != 4096 * r[d]["ios"]:
        bad.append(f"{d}: bytes != 4096 x ios")
if r["total"]["ios"] == 0 or any(t["read"]["ios"] + t["write"]["ios"] == 0 for t in pt):
    bad.append("a target did no I/O")
if r["errors"]["count"] or r["error"] is not None:
    bad.append(f"errors: {r['errors']} {r['error']}")
if sum(1 for t in r["cpu"]["threads"] if t["name"].startswith("nvb-job-")) != jobs:
    bad.append("not every job thread in cpu.threads")
# What the run holds: qd buffers of 4 KiB per job; per job per target and
# direction three latency histograms (~20 KiB each: lat, slat and clat), per
# target the same again and the totals; plus the process's code, libc and
# thread stacks. Bound: twice that + 64 MiB.
qd = r["qd_effective"]
hist = 20 * 1024
kinds = 3  # lat_ns, slat_ns, clat_ns
held = jobs * qd * 4096 + (jobs + 1) * nt * 2 * kinds * hist + 2 * kinds * hist
bound = 2 * held + (64 << 20)
rss = r["cpu"]["maxrss_kib"] * 1024
if rss > bound:
    bad.append(f"peak RSS {rss >> 20} MiB above the bound {bound >> 20} MiB")
print(f"{shape:8} {r['engine']:9} {qd:4} {jobs:5} {nt:7}  {r['total']['iops']:10.0f}  {rss / 2**20:10.1f}  {bound / 2**20:9.1f}")
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
done
