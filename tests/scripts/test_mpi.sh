#!/usr/bin/env bash
# Runs across hosts under MPI, on one machine: `mpirun -n 4` of the C example
# examples/c/mpi_run, every rank on its own scratch directory.
#  (a) the merged totals are the exact sums of the ranks' own results, the
#      merged histogram is their bucket-by-bucket sum and its percentiles
#      are those of one histogram fed every sample (recomputed here), the
#      window spans the ranks' windows, and the JSON matches the schema;
#  (b) nvbench.merge (Python) gives the same figures as the C merge;
#  (c) a rank with a missing target ends the run at once, exit 2, with an
#      error naming the rank and its host;
#  (d) a rank whose run fails mid-way (an injected I/O error) stops the
#      others, and the error names it;
#  (e) SIGINT to mpirun stops every rank; the partial results are merged.
# Every mpirun is bounded by timeout(1): a hang is a failure, not a stall.
#
#   bash test_mpi.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
EXE=$BUILD/examples/c/mpi_run
PY=/usr/bin/python3
SCHEMA=$SRC/docs/result.schema.json

skip() { echo "SKIP: $*" >&2; exit 77; }
FAILS=()
bad() { echo "  FAIL: $*"; FAILS+=("$*"); }
ok() { echo "  ok: $*"; }

command -v mpirun > /dev/null 2>&1 || skip "mpirun not found (Debian: apt-get install openmpi-bin libopenmpi-dev)"
[ -x "$EXE" ] || skip "$EXE not built (CMake found no MPI C library: apt-get install libopenmpi-dev)"
[ -x "$PY" ] || skip "$PY not found"
command -v timeout > /dev/null 2>&1 || skip "timeout(1) not found"

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/mpi.XXXXXX")
MPIRUN_PID=
cleanup() {
    [ -z "$MPIRUN_PID" ] || kill -KILL "$MPIRUN_PID" 2> /dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
for r in 0 1 2 3; do mkdir -p "$TMP/r$r"; done
# Open MPI refuses root without this; oversubscribe: 4 ranks on fewer CPUs.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -n 4)
if [ -n "${NVB_SANITIZER:-}" ]; then
    # Open MPI's plugins, unloaded at MPI_Finalize, leak, and their stacks
    # name no module a suppression could match: leak checking stays with
    # the other suites; every other sanitizer check stays on in the ranks.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
HOST=$(hostname)
# Scratch files honour O_DIRECT where the file system has it; tmpfs does not.
DIRECT=1
if ! dd if=/dev/zero of="$TMP/probe" bs=4096 count=1 oflag=direct status=none 2> /dev/null; then DIRECT=0; fi
rm -f "$TMP/probe"

echo "(a) four ranks, exact sums and percentiles"
if timeout 60 "${MPIRUN[@]}" "$EXE" --quiet --json "$TMP/merged.json" --parts "$TMP/parts.json" \
        engine=psync rw=randrw bs=4k size=4M direct=$DIRECT ios=4000 align_interval=1 interval=50ms \
        "$TMP/r{rank}" > "$TMP/a.out" 2> "$TMP/a.err"; then
    ok "mpirun -n 4 mpi_run exited 0"
else
    bad "mpi_run failed (exit $?): $(tail -3 "$TMP/a.err")"
fi

"$PY" - "$TMP/merged.json" "$TMP/parts.json" "$SCHEMA" "$HOST" > "$TMP/a.check" 2>&1 <<'EOF' || bad "checks of the merged result: $(tail -5 "$TMP/a.check")"
import json, math, sys
merged = json.load(open(sys.argv[1]))
parts = json.load(open(sys.argv[2]))["results"]
schema = json.load(open(sys.argv[3]))
host = sys.argv[4]
assert len(parts) == 4, len(parts)

SUB_BITS, MAX_BITS = 6, 44
SUB = 1 << SUB_BITS
BUCKETS = (MAX_BITS - SUB_BITS + 1) * SUB
def low(i):
    if i < SUB: return i
    k = i // SUB + SUB_BITS - 1
    return (1 << k) + ((i % SUB) << (k - SUB_BITS))
def width(i):
    return 1 if i < SUB else 1 << (i // SUB + SUB_BITS - 1 - SUB_BITS)
def pct(buckets, count, mn, mx, p):
    # one histogram fed every sample: ceil(p/100*count)-th sample's bucket midpoint
    x = p * float(count) / 100.0
    x -= x * (8.0 * sys.float_info.epsilon)
    rank = min(max(math.ceil(x), 1), count)
    if rank == 1: return float(mn)
    if rank == count: return float(mx)
    seen = 0
    for i in sorted(buckets):
        if i >= BUCKETS - 1: break
        seen += buckets[i]
        if seen >= rank:
            return min(max(low(i) + (width(i) - 1) / 2.0, mn), mx)
    return float(mx)

for d in ("read", "write"):
    ios = sum(p[d]["ios"] for p in parts)
    assert merged[d]["ios"] == ios, (d, merged[d]["ios"], ios)
    assert merged[d]["bytes"] == sum(p[d]["bytes"] for p in parts)
    buckets = {}
    for p in parts:
        for i, n in p[d]["lat_hist"]["buckets"]:
            buckets[i] = buckets.get(i, 0) + n
    h = merged[d]["lat_hist"]
    assert {i: n for i, n in h["buckets"]} == buckets, "merged buckets are not the sum"
    count = sum(buckets.values())
    assert h["count"] == count == sum(p[d]["lat_hist"]["count"] for p in parts)
    assert h["sum"] == sum(p[d]["lat_hist"]["sum"] for p in parts)
    mn = min(p[d]["lat_ns"]["min"] for p in parts if p[d]["ios"])
    mx = max(p[d]["lat_ns"]["max"] for p in parts if p[d]["ios"])
    assert merged[d]["lat_ns"]["min"] == mn and merged[d]["lat_ns"]["max"] == mx
    for k in ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "p99.99", "p99.999"):
        want = pct(buckets, count, mn, mx, float(k[1:]))
        got = merged[d]["lat_ns"][k]
        assert math.isclose(got, want, rel_tol=1e-9), (d, k, got, want)
assert merged["total"]["ios"] == 4 * 4000 == sum(p["total"]["ios"] for p in parts)
assert merged["errors"]["count"] == sum(p["errors"]["count"] for p in parts)
# per host rows: each rank's own figures
assert [h["total"]["ios"] for h in merged["hosts"]] == [p["total"]["ios"] for p in parts]
assert all(h["host"] == host for h in merged["hosts"]), [h["host"] for h in merged["hosts"]]
assert [t["path"] for t in merged["per_target"]] == [p["per_target"][0]["path"] for p in parts]
# the window: earliest start to latest end; IOPS over it
w0 = min(p["start_unix_ns"] + round(p["ramp_s"] * 1e9) for p in parts)
w1 = max(p["end_unix_ns"] for p in parts)
assert merged["end_unix_ns"] == w1
assert abs(merged["duration_s"] - (w1 - w0) / 1e9) < 1e-9
assert math.isclose(merged["total"]["iops"], merged["total"]["ios"] / merged["duration_s"], rel_tol=1e-9)
# time series: aligned points add up to the totals
assert sum(s["read"]["ios"] + s["write"]["ios"] for s in merged["timeseries"]) == merged["total"]["ios"]
for p in parts:
    assert all(s["t_unix_ns"] % 50000000 == 0 for s in p["timeseries"][:-1]), "unaligned time series"
try:
    import jsonschema
except ImportError:
    print("(no jsonschema: schema not checked)")
else:
    jsonschema.validate(merged, schema)
    for p in parts:
        jsonschema.validate(p, schema)
print("merged result checked")
EOF
[ -s "$TMP/a.check" ] && grep -q "merged result checked" "$TMP/a.check" && ok "totals are the sums, percentiles those of the summed histogram, window and time series agree, schema valid"

echo "(b) the Python merge agrees with the C merge"
# nvbench.merge is the library's merge through the extension: the package
# the python test installs (the ranks' JSON parts go through the strict
# parser and back, and must give mpi_run's merged figures)
VENV_PY=$BUILD/tests/python-venv/bin/python
if [ -x "$VENV_PY" ] && "$VENV_PY" -c 'import nvbench._nvbench' 2> /dev/null; then
"$VENV_PY" - "$TMP/merged.json" "$TMP/parts.json" > "$TMP/b.check" 2>&1 <<'EOF' && ok "nvbench.merge gives the C figures" || bad "Python merge differs: $(tail -5 "$TMP/b.check")"
import json, math, sys
from nvbench.merge import merge
c = json.load(open(sys.argv[1]))
p = merge(json.load(open(sys.argv[2]))["results"]).data
def diff(a, b, path=""):
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (path, sorted(set(a) ^ set(b)))
        for k in a: diff(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)): diff(x, y, f"{path}.{i}")
    elif isinstance(a, (bool, str)) or a is None:
        assert a == b, (path, a, b)
    elif isinstance(a, int) and isinstance(b, int):
        assert a == b, (path, a, b)
    else:
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), (path, a, b)
diff(c, p)
print("same")
EOF
else
    echo "  note: $VENV_PY with the extension missing (the python test installs it): (b) not run"
fi

echo "(c) a rank with a missing target: clear error, no hang"
set +e
timeout 30 "${MPIRUN[@]}" "$EXE" engine=psync size=4M direct=$DIRECT runtime=5s "$TMP/r{rank}" \
    --targets-rank "2:$TMP/missing/target" > "$TMP/c.out" 2> "$TMP/c.err"
rc=$?
set -e
if [ $rc = 124 ]; then
    bad "mpirun hung with a missing target on rank 2"
elif grep -q "rank 2 (host $HOST): target '$TMP/missing/target' does not exist" "$TMP/c.err"; then
    ok "exit $rc, '$(grep -m1 'rank 2' "$TMP/c.err")'"
else
    bad "no error naming rank 2 and its host (exit $rc): $(head -3 "$TMP/c.err")"
fi
[ $rc != 0 ] || bad "exit status 0 although rank 2 could not run"
grep -q "rank 0\|rank 1\|rank 3" "$TMP/c.err" && bad "ranks that could run were named: $(cat "$TMP/c.err")"

echo "(d) a rank failing mid-run stops the others"
# Rank 1 alone gets injected I/O errors: its first one ends its run
# (continue_on_error=0), and it tells the others to stop.
t0=$(date +%s)
set +e
timeout 60 "${MPIRUN[@]}" "$EXE" --quiet --json "$TMP/d.json" engine=psync size=4M direct=$DIRECT runtime=30s \
    --set-rank 1:fault.rate=1/3000 "$TMP/r{rank}" > "$TMP/d.out" 2> "$TMP/d.err"
rc=$?
set -e
took=$(( $(date +%s) - t0 ))
if [ $rc = 124 ]; then
    bad "mpirun hung after rank 1 failed"
elif ! grep -q "rank 1 (host $HOST): .*injected" "$TMP/d.err"; then
    bad "no error naming rank 1 and its host (exit $rc): $(head -3 "$TMP/d.err")"
elif [ $took -ge 20 ]; then
    bad "the other ranks ran on for ${took}s after rank 1 failed"
else
    ok "exit $rc after ${took}s: '$(grep -m1 'rank 1' "$TMP/d.err")'"
fi
[ $rc != 0 ] || bad "exit status 0 although rank 1 failed"
if [ -s "$TMP/d.json" ]; then
    "$PY" - "$TMP/d.json" <<'EOF2' || bad "the merged result of the failed run is not as expected"
import json, sys
m = json.load(open(sys.argv[1]))
h = m["hosts"]
assert len(h) == 4 and h[1]["error"] and "injected" in h[1]["error"], h[1]
assert all(x["cancelled"] for i, x in enumerate(h) if i != 1), [x["cancelled"] for x in h]
assert m["error"]["name"] == "EIO" and m["cancelled"], m["error"]
EOF2
else
    bad "no merged result after rank 1 failed"
fi

echo "(e) SIGINT to mpirun stops every rank; the partial results are merged"
set +e
timeout 60 "${MPIRUN[@]}" "$EXE" --quiet --json "$TMP/e.json" engine=psync size=4M direct=$DIRECT runtime=60s \
    "$TMP/r{rank}" > "$TMP/e.out" 2> "$TMP/e.err" &
MPIRUN_PID=$!
set -e
# wait until every rank is in its measured window, whatever the machine's
# load: its read system calls (psync's preads) climb far past the few its
# setup makes (a scratch file is written, not read); at most 60 s
for _ in $(seq 600); do
    busy=0
    for p in $(pgrep -x mpi_run || true); do
        r=$(awk '/^syscr/ {print $2}' "/proc/$p/io" 2> /dev/null || true)
        [ "${r:-0}" -ge 2000 ] && busy=$((busy + 1))
    done
    [ "$busy" -ge 4 ] && break
    sleep 0.1
done
t0=$(date +%s)
# timeout(1) is mpirun's parent: signal mpirun itself, as Ctrl-C would
kill -INT "$(pgrep -P "$MPIRUN_PID" -x mpirun || echo "$MPIRUN_PID")"
set +e
wait "$MPIRUN_PID"
rc=$?
set -e
MPIRUN_PID=
took=$(( $(date +%s) - t0 ))
if [ $rc = 124 ]; then
    bad "mpirun did not stop after SIGINT"
elif [ $took -ge 20 ]; then
    bad "stopping took ${took}s after SIGINT"
else
    ok "stopped ${took}s after SIGINT (exit $rc)"
fi
if [ -s "$TMP/e.json" ]; then
    "$PY" - "$TMP/e.json" <<'EOF2' && ok "partial results of all 4 ranks merged, each cancelled" || bad "the merged result after SIGINT is not as expected"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["cancelled"] and len(m["hosts"]) == 4, (m["cancelled"], len(m["hosts"]))
assert all(h["cancelled"] and h["total"]["ios"] > 0 for h in m["hosts"])
assert m["duration_s"] < 30
EOF2
else
    bad "no merged result after SIGINT: $(tail -3 "$TMP/e.err")"
fi
sleep 0.5
left=$(pgrep -f "$EXE" || true)
[ -z "$left" ] || bad "processes left running after SIGINT: $left"
# the scratch files are dot files (.nvbench-scratch-PID-HEX.tmp): ls would
# not list them, and the directories' own names may hold "nvbench"
left=$(find "$TMP"/r0 "$TMP"/r1 "$TMP"/r2 "$TMP"/r3 -name '.nvbench-scratch-*' 2> /dev/null | wc -l)
[ "$left" = 0 ] || bad "$left scratch files left behind"

if [ ${#FAILS[@]} -gt 0 ]; then
    echo "FAILED: ${#FAILS[@]} check(s)"
    exit 1
fi
echo "all MPI checks passed"
