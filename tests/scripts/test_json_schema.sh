#!/usr/bin/env bash
# The JSON result, end to end: run the example program run_workload over every
# engine that works here and a few special shapes (ios-bounded, two targets, a
# directory target, a ramp), validate every output against
# docs/result.schema.json, and check that the figures agree with each other
# (bytes = ios x bs, totals = sums, percentiles ordered, ...). Also checks
# that a refused workload exits 2 with a message and prints nothing on stdout.
#
#   bash test_json_schema.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
RUN=$BUILD/examples/c/run_workload
SCHEMA=$SRC/docs/result.schema.json
# Debian's interpreter: the python3 first on PATH may lack python3-jsonschema.
PY=/usr/bin/python3

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -x "$RUN" ] || skip "$RUN not built (NVB_BUILD_EXAMPLES=OFF?)"
[ -x "$PY" ] || skip "$PY not found"
"$PY" -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed for $PY"
[ -f "$SCHEMA" ] || fail "schema $SCHEMA missing"

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/json_schema.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

FILE_A=$TMP/a.dat
FILE_B=$TMP/b.dat
DIR=$TMP/scratchdir
dd if=/dev/urandom of="$FILE_A" bs=1M count=64 status=none
dd if=/dev/urandom of="$FILE_B" bs=1M count=16 status=none
mkdir "$DIR"
MANIFEST=$TMP/manifest.txt
: > "$MANIFEST"

# O_DIRECT is the default; a file system without it (tmpfs) gets direct=0.
DIRECT=1
if ! "$RUN" engine=psync rw=randread ios=16 "$FILE_A" > /dev/null 2> "$TMP/probe.err"; then
    if grep -q 'O_DIRECT' "$TMP/probe.err"; then
        echo "note: O_DIRECT not supported under $TMP; running with direct=0"
        DIRECT=0
    else
        cat "$TMP/probe.err" >&2
        fail "a plain psync run on $FILE_A failed"
    fi
fi

# run NAME EXPECT_JSON KEY=VALUE... TARGET...
# Runs one workload; the output goes to $TMP/NAME.json and is checked later
# against EXPECT_JSON (what the checker should insist on for this run).
# Returns 3 when the engine is not available here.
run() {
    local name=$1 expect=$2
    shift 2
    local rc=0
    "$RUN" direct=$DIRECT "$@" > "$TMP/$name.json" 2> "$TMP/$name.err" || rc=$?
    if [ "$rc" -eq 2 ] && grep -q 'is not available here' "$TMP/$name.err"; then
        echo "note: $(cat "$TMP/$name.err")"
        return 3
    fi
    if [ "$rc" -ne 0 ]; then
        cat "$TMP/$name.err" >&2
        fail "run $name ($*) exited with status $rc"
    fi
    [ -s "$TMP/$name.json" ] || fail "run $name ($*) printed nothing on stdout"
    printf '%s\t%s\t%s\n' "$name" "$TMP/$name.json" "$expect" >> "$MANIFEST"
    echo "ran $name: $*"
}

ENGINES=""
for eng in psync libaio io_uring null; do
    available=1
    for rw in randread randwrite randrw; do
        qde=8
        [ "$eng" = psync ] && qde=1
        # libaio completes buffered I/O inside io_submit: qd 1 with direct=0
        [ "$eng" = libaio ] && [ "$DIRECT" = 0 ] && qde=1
        exp="{\"engine\":\"$eng\",\"rw\":\"$rw\",\"bs\":4096,\"qd_effective\":$qde,\"targets\":[\"$FILE_A\"],\"runtime_s\":0.3"
        [ "$rw" = randrw ] && exp="$exp,\"rwmix\":70"
        exp="$exp}"
        rc=0
        run "$eng-$rw" "$exp" engine=$eng rw=$rw rwmix=70 bs=4k qd=8 runtime=300ms "$FILE_A" || rc=$?
        if [ "$rc" -eq 3 ]; then
            available=0
            break
        fi
    done
    [ "$available" -eq 1 ] && ENGINES="$ENGINES $eng"
done
echo "engines available:$ENGINES"
case " $ENGINES " in *" psync "*) ;; *) fail "psync, the engine that works everywhere, was not available" ;; esac

# The special shapes run on the best asynchronous engine there is.
ASYNC=psync
for eng in io_uring libaio; do
    case " $ENGINES " in *" $eng "*) ASYNC=$eng; break ;; esac
done
QDE=4
[ "$ASYNC" = psync ] && QDE=1
[ "$ASYNC" = libaio ] && [ "$DIRECT" = 0 ] && QDE=1

run ios-bounded "{\"engine\":\"$ASYNC\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":$QDE,\"total_ios\":1000,\"targets\":[\"$FILE_A\"]}" \
    engine=$ASYNC rw=randread bs=4k qd=4 jobs=3 ios=1000 "$FILE_A"
run two-targets "{\"engine\":\"$ASYNC\",\"rw\":\"randrw\",\"rwmix\":50,\"bs\":8192,\"qd_effective\":$QDE,\"targets\":[\"$FILE_A\",\"$FILE_B\"],\"runtime_s\":0.3,\"all_targets_busy\":true}" \
    engine=$ASYNC rw=randrw rwmix=50 bs=8k qd=4 jobs=2 runtime=300ms interval=100ms "$FILE_A" "$FILE_B"
run directory "{\"engine\":\"psync\",\"rw\":\"randwrite\",\"bs\":4096,\"qd_effective\":1,\"targets\":[\"$DIR\"],\"runtime_s\":0.3,\"scratch_in\":\"$DIR\",\"region_size\":16777216}" \
    engine=psync rw=randwrite bs=4k size=16M runtime=300ms "$DIR"
# Fault injection on the asynchronous engine: errors, short transfers and
# delayed completions, counted and carried on (continue_on_error=1).
run faults "{\"engine\":\"$ASYNC\",\"rw\":\"randrw\",\"bs\":4096,\"qd_effective\":$QDE,\"total_ios\":5000,\"targets\":[\"$FILE_A\"],\"faults\":true}" \
    engine=$ASYNC rw=randrw bs=4k qd=4 ios=5000 fault.rate=0.1 fault.errno=ENOSPC fault.short=0.1 \
    fault.delay=200us fault.delay_rate=0.05 continue_on_error=1 "$FILE_A"
# Data verification on a scratch file: laid out with valid blocks, written
# and read by three jobs at once; every read checked, none differs.
run verify "{\"engine\":\"$ASYNC\",\"rw\":\"randrw\",\"bs\":4096,\"qd_effective\":$QDE,\"targets\":[\"$DIR\"],\"runtime_s\":0.3,\"scratch_in\":\"$DIR\",\"region_size\":4194304,\"verify\":true}" \
    engine=$ASYNC rw=randrw bs=4k qd=4 jobs=3 size=4M runtime=300ms verify=1 "$DIR"
# A verify pass over blocks never written that way: every read a mismatch,
# the result still printed (and valid), then exit 1 (bad data is a failure,
# as fio exits 1; it was 0).
rc=0
"$RUN" direct=$DIRECT engine=psync rw=read bs=4k ios=16 verify=1 "$FILE_B" > "$TMP/verify-bad.json" 2> "$TMP/verify-bad.err" || rc=$?
[ "$rc" -eq 1 ] || fail "verify mismatches: exit status $rc, expected 1 ($(cat "$TMP/verify-bad.err"))"
grep -q 'verify failed: 16 blocks' "$TMP/verify-bad.err" || fail "verify mismatches not named on stderr: $(cat "$TMP/verify-bad.err")"
"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1]))["verify"]; assert v["mismatches"] == 16 and v["first_mismatches"][0]["field"] == "magic", v' \
    "$TMP/verify-bad.json" || fail "verify mismatches: the result does not describe them"
printf '%s\t%s\t%s\n' verify-bad "$TMP/verify-bad.json" \
    "{\"engine\":\"psync\",\"rw\":\"read\",\"bs\":4096,\"qd_effective\":1,\"total_ios\":16,\"targets\":[\"$FILE_B\"],\"verify_bad\":true}" >> "$MANIFEST"
echo "ran verify-bad: exit 1 with its result"
# Rate-limited, open loop (latency from intended starts) and closed loop.
run rate-open "{\"engine\":\"$ASYNC\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":$QDE,\"targets\":[\"$FILE_A\"],\"runtime_s\":0.3,\"rate\":\"open\"}" \
    engine=$ASYNC rw=randread bs=4k qd=4 rate_iops=2000 rate_process=poisson runtime=300ms "$FILE_A"
run rate-closed "{\"engine\":\"$ASYNC\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":$QDE,\"targets\":[\"$FILE_A\"],\"runtime_s\":0.3,\"rate\":\"closed\"}" \
    engine=$ASYNC rw=randread bs=4k qd=4 rate_iops=2000 rate_mode=closed runtime=300ms "$FILE_A"
# A block-size mix (per-size counts in each direction) with think time.
run bssplit "{\"engine\":\"$ASYNC\",\"rw\":\"randrw\",\"bs\":4096,\"qd_effective\":$QDE,\"total_ios\":2000,\"targets\":[\"$FILE_A\"]}" \
    engine=$ASYNC rw=randrw bs=4k qd=4 ios=2000 bssplit=4k/50:16k/30:64k,8k/100 thinktime=50 thinktime_blocks=16 "$FILE_A"
# Preconditioning and steady state: two passes over the region first (not
# in the figures), then the measured run judged over windows of 3 rounds.
run precondition-ss "{\"engine\":\"$ASYNC\",\"rw\":\"randwrite\",\"bs\":4096,\"qd_effective\":$QDE,\"targets\":[\"$FILE_B\"],\"runtime_s\":0.5,\"precondition\":2}" \
    engine=$ASYNC rw=randwrite bs=4k qd=4 runtime=500ms interval=100ms precondition=2 ss=iops ss.window=300ms \
    ss.excursion=100 ss.slope=100 "$FILE_B"
# What the targets held as the run began: a file read through a warm page
# cache kept on purpose (invalidate=0), and a file that is all holes.
cat "$FILE_B" > /dev/null
run warm-cache "{\"engine\":\"psync\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":1,\"targets\":[\"$FILE_B\"],\"runtime_s\":0.3,\"cached\":true}" \
    engine=psync rw=randread bs=4k runtime=300ms direct=0 invalidate=0 "$FILE_B"
SPARSE=$TMP/sparse.dat
truncate -s 16M "$SPARSE"
run sparse "{\"engine\":\"psync\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":1,\"targets\":[\"$SPARSE\"],\"runtime_s\":0.3,\"sparse\":true}" \
    engine=psync rw=randread bs=4k runtime=300ms "$SPARSE"
# cpus=local: placement.local (the node used and its source) against the schema
run cpus-local "{\"engine\":\"psync\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":1,\"targets\":[\"$FILE_B\"],\"runtime_s\":0.3}" \
    engine=psync rw=randread bs=4k runtime=300ms cpus=local "$FILE_B"
# Compressible and duplicate data on purpose, echoed in the workload.
run data-keys "{\"engine\":\"psync\",\"rw\":\"randwrite\",\"bs\":4096,\"qd_effective\":1,\"targets\":[\"$FILE_B\"],\"runtime_s\":0.3,\"data_compress\":40,\"data_dedupe\":20}" \
    engine=psync rw=randwrite bs=4k runtime=300ms data_compress=40 data_dedupe=20 "$FILE_B"
# Trims (rw=trim, randtrim): a trim object beside read and write, on a scratch copy
TRIMF=$TMP/trim.dat
cp "$FILE_B" "$TRIMF"
run trim "{\"engine\":\"$ASYNC\",\"rw\":\"randtrim\",\"bs\":65536,\"qd_effective\":$QDE,\"targets\":[\"$TRIMF\"],\"runtime_s\":0.3}" \
    engine=$ASYNC rw=randtrim bs=64k qd=4 runtime=300ms interval=100ms "$TRIMF"
run ramp "{\"engine\":\"$ASYNC\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":$QDE,\"targets\":[\"$FILE_A\"],\"runtime_s\":0.3,\"ramp_s\":0.2}" \
    engine=$ASYNC rw=randread bs=4k qd=4 ramp=200ms runtime=300ms "$FILE_A"

# Cancelled from a signal handler: exit 130 and a partial result that is still
# consistent, marked cancelled with error ECANCELED. SIGINT is repeated: a
# background job ignores it until run_workload installs its handler.
rc=0
"$RUN" direct=$DIRECT engine=psync rw=randread bs=4k runtime=20s "$FILE_A" > "$TMP/cancelled.json" 2> "$TMP/cancelled.err" &
pid=$!
sleep 0.5
for _ in $(seq 100); do
    kill -INT "$pid" 2> /dev/null || break
    sleep 0.2
done
wait "$pid" || rc=$?
[ "$rc" -eq 130 ] || { cat "$TMP/cancelled.err" >&2; fail "cancelled run exited with $rc, expected 130"; }
[ -s "$TMP/cancelled.json" ] || fail "cancelled run printed no partial result"
printf '%s\t%s\t%s\n' cancelled "$TMP/cancelled.json" \
    "{\"engine\":\"psync\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":1,\"targets\":[\"$FILE_A\"],\"cancelled\":true}" >> "$MANIFEST"
echo "ran cancelled: SIGINT after about 0.5s"

# Stopped at an I/O error: the file shrinks under the run (once the job has
# done its first read), reads past the new end come back short, the run stops at the
# first one: exit 1, a message naming the target, and a result carrying
# error EIO and the error counts.
# The event waited for is the job's first read (its thread's read count in
# /proc/PID/task/TID/io), not the first descriptor of the file: the hold's
# lock opens it while the run is planned, and a truncation then landed
# before the sparse check and the CPU window (allocated_pct 6.25, CPU parts
# summing to 0) whenever the machine was loaded.
if [ -d /proc/self/fd ] && [ -r /proc/self/io ]; then
    SHRINK=$TMP/shrink.dat
    cp "$FILE_B" "$SHRINK"
    rc=0
    "$RUN" direct=$DIRECT engine=psync rw=randread bs=4k runtime=10s "$SHRINK" > "$TMP/io-error.json" 2> "$TMP/io-error.err" &
    pid=$!
    reading=0
    for _ in $(seq 2000); do
        for task in /proc/"$pid"/task/*; do
            [ "$(cat "$task/comm" 2> /dev/null)" = nvb-job-0 ] || continue
            syscr=$(sed -n 's/^syscr: //p' "$task/io" 2> /dev/null)
            [ "${syscr:-0}" -gt 0 ] && reading=1
        done
        [ "$reading" -eq 1 ] && break
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.025
    done
    [ "$reading" -eq 1 ] || { kill "$pid" 2> /dev/null; wait "$pid" || true; fail "io-error: never saw the job thread read (its run ended first)"; }
    truncate -s 1M "$SHRINK"
    wait "$pid" || rc=$?
    [ "$rc" -eq 1 ] || { cat "$TMP/io-error.err" >&2; fail "run stopped at an I/O error exited with $rc, expected 1"; }
    grep -qF "$SHRINK" "$TMP/io-error.err" || fail "I/O error message does not name the target: $(cat "$TMP/io-error.err")"
    [ -s "$TMP/io-error.json" ] || fail "run stopped at an I/O error printed no result"
    printf '%s\t%s\t%s\n' io-error "$TMP/io-error.json" \
        "{\"engine\":\"psync\",\"rw\":\"randread\",\"bs\":4096,\"qd_effective\":1,\"targets\":[\"$SHRINK\"],\"io_error\":\"EIO\"}" >> "$MANIFEST"
    echo "ran io-error: $(cat "$TMP/io-error.err")"
else
    echo "note: no /proc/self/fd or /proc/self/io: the I/O error case is not run"
fi

# The library deletes the scratch file it created in the directory target.
if [ -n "$(ls -A "$DIR")" ]; then
    ls -la "$DIR" >&2
    fail "directory target $DIR is not empty after the run: the scratch file was left behind"
fi

# Refused workloads: exit 2, a message naming the culprit, nothing on stdout.
refused() {
    local name=$1 needle=$2
    shift 2
    local rc=0
    "$RUN" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" || rc=$?
    [ "$rc" -eq 2 ] || fail "$name ($*): exit status $rc, expected 2"
    [ ! -s "$TMP/$name.out" ] || fail "$name ($*): printed on stdout: $(head -c 200 "$TMP/$name.out")"
    grep -qF -- "$needle" "$TMP/$name.err" || fail "$name ($*): stderr does not name '$needle': $(cat "$TMP/$name.err")"
    echo "refused $name as expected: $(cat "$TMP/$name.err")"
}
refused missing-target "$TMP/does-not-exist" engine=psync rw=randread runtime=300ms "$TMP/does-not-exist"
refused bad-value "banana" engine=psync bs=banana "$FILE_A"
ln "$FILE_B" "$TMP/b-link.dat"
refused named-twice "targets 0 '$FILE_B' and 1 '$TMP/b-link.dat' are the same file" engine=psync rw=randwrite ios=4 "$FILE_B" "$TMP/b-link.dat"

cat > "$TMP/check.py" <<'EOF'
import json
import math
import sys

import jsonschema

schema_path, manifest = sys.argv[1], sys.argv[2]
with open(schema_path) as f:
    schema = json.load(f)
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)

PCTS = ["p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "p99.99", "p99.999"]
problems = []


def close(a, b, rel=1e-6, tol=1e-9):
    return abs(a - b) <= max(tol, rel * max(abs(a), abs(b)))


def check_dir(where, d, bs, dur, with_hist, hist_rel_error, open_rate=False):
    say = lambda msg: problems.append(f"{where}: {msg}")
    ios, nbytes = d["ios"], d["bytes"]
    bsc = d.get("bs_counts")
    if bsc is not None:  # bssplit: the sizes' counts make the I/Os and bytes exactly
        if sum(bsc.values()) != ios or sum(int(k) * v for k, v in bsc.items()) != nbytes:
            say(f"bs_counts {bsc} do not add up to ios {ios} and bytes {nbytes}")
    elif nbytes != ios * bs:
        say(f"bytes {nbytes} != ios {ios} x bs {bs}")
    if dur > 0:
        if not close(d["iops"], ios / dur):
            say(f"iops {d['iops']} != ios/duration_s {ios / dur}")
        if not close(d["bw_bytes_s"], nbytes / dur):
            say(f"bw_bytes_s {d['bw_bytes_s']} != bytes/duration_s {nbytes / dur}")
    if not close(d["bw_gib_s"], d["bw_bytes_s"] / 2**30):
        say(f"bw_gib_s {d['bw_gib_s']} != bw_bytes_s / 2^30")
    lat = d["lat_ns"]
    if ios == 0:
        if any(v != 0 for v in lat.values()):
            say(f"no I/O but nonzero latency figures {lat}")
    else:
        seq = [lat["min"]] + [lat[p] for p in PCTS] + [lat["max"]]
        for a, b, ka, kb in zip(seq, seq[1:], ["min"] + PCTS, PCTS + ["max"]):
            if a > b:
                say(f"lat_ns.{ka} {a} > lat_ns.{kb} {b}: not monotone")
        if not (lat["min"] <= lat["mean"] <= lat["max"]):
            say(f"lat_ns.mean {lat['mean']} outside [min {lat['min']}, max {lat['max']}]")
        if lat["min"] <= 0:
            say(f"lat_ns.min is {lat['min']} with {ios} I/Os")
    if with_hist:
        h = d["lat_hist"]
        nb = (h["max_bits"] - h["sub_bits"] + 1) << h["sub_bits"]
        if h["count"] != ios:
            say(f"lat_hist.count {h['count']} != ios {ios}")
        if sum(c for _, c in h["buckets"]) != h["count"]:
            say(f"lat_hist bucket counts sum to {sum(c for _, c in h['buckets'])}, count is {h['count']}")
        idx = [i for i, _ in h["buckets"]]
        if idx != sorted(set(idx)):
            say("lat_hist bucket indices are not strictly ascending")
        if idx and idx[-1] >= nb:
            say(f"lat_hist bucket index {idx[-1]} >= {nb} buckets")
        if not close(h["rel_error"], 1.0 / (2 << h["sub_bits"])) or h["rel_error"] != hist_rel_error:
            say(f"lat_hist.rel_error {h['rel_error']} disagrees with sub_bits {h['sub_bits']} / hist_rel_error {hist_rel_error}")
        if ios and not close(h["sum"] / ios, lat["mean"]):
            say(f"lat_hist.sum/count {h['sum'] / ios} != lat_ns.mean {lat['mean']}")
        check_split(where, d, open_rate)


def check_split(where, d, open_rate):
    """clat counts the I/Os lat counts, slat every I/O submitted (at least
    those); per I/O lat = slat + clat (closed loop; open loop adds the wait
    for the intended start), exactly in the sums when slat counted no more."""
    say = lambda msg: problems.append(f"{where}: {msg}")
    lat, clat, slat = d["lat_hist"], d["clat_hist"], d["slat_hist"]
    if clat is None:
        say("clat_hist is null: every engine's clat is measured")
        return
    if clat["count"] != lat["count"]:
        say(f"clat_hist.count {clat['count']} != lat_hist.count {lat['count']}")
    if (d["slat_ns"] is None) != (slat is None):
        say("slat_ns and slat_hist disagree on being null")
    parts = clat["sum"] + (slat["sum"] if slat else 0)
    exact = slat is None or slat["count"] == lat["count"]
    if open_rate:
        if exact and lat["sum"] < parts:
            say(f"open loop: lat sum {lat['sum']} < slat + clat sums {parts}")
    elif lat["sum"] > parts or (exact and lat["sum"] != parts):
        say(f"lat sum {lat['sum']} vs slat + clat sums {parts} (slat counts {slat and slat['count']})")


def check(name, path, exp):
    with open(path) as f:
        try:
            r = json.load(f)
        except ValueError as e:
            problems.append(f"{name}: not JSON: {e}")
            return
    errs = sorted(validator.iter_errors(r), key=lambda e: list(e.absolute_path))
    for e in errs:
        loc = "/".join(str(p) for p in e.absolute_path) or "(top)"
        problems.append(f"{name}: schema: at {loc}: {e.message}")
    if errs:
        return  # the figures below assume the shape is right
    say = lambda msg: problems.append(f"{name}: {msg}")
    bs, dur = exp["bs"], r["duration_s"]
    cancelled = exp.get("cancelled", False)
    io_error = exp.get("io_error")
    partial = cancelled or bool(io_error)
    if io_error:
        e, errs_ = r["error"], r["errors"]
        if e is None or e["name"] != io_error or r["cancelled"]:
            say(f"run stopped at an I/O error: error {e}, cancelled {r['cancelled']}")
        if errs_["count"] < 1 or errs_["by_errno"].get(io_error, 0) < 1:
            say(f"run stopped at an I/O error counts none: {errs_}")
        # the file was cut short after the run examined it: its holes were measured whole
        for t in r["per_target"]:
            if t.get("allocated_pct") is not None and t["allocated_pct"] < 90:
                say(f"run stopped at an I/O error: allocated_pct {t['allocated_pct']}: the file was cut before "
                    f"the run examined it, not during the run")
    elif cancelled:
        if not r["cancelled"] or r["error"] is None or r["error"]["name"] != "ECANCELED":
            say(f"cancelled run: cancelled {r['cancelled']}, error {r['error']}")
    elif r["error"] is not None or r["cancelled"]:
        say(f"error {r['error']} / cancelled {r['cancelled']} on a run that succeeded")
    if r["engine"] != exp["engine"] or r["workload"]["engine"] != exp["engine"]:
        say(f"engine {r['engine']} / workload.engine {r['workload']['engine']}, expected {exp['engine']}")
    w = r["workload"]
    for k in ("rw", "bs", "targets", "rwmix", "runtime_s", "ramp_s"):
        if k in exp and w[k] != exp[k]:
            say(f"workload.{k} is {w[k]!r}, expected {exp[k]!r}")
    if r["qd_effective"] != exp["qd_effective"]:
        say(f"qd_effective {r['qd_effective']}, expected {exp['qd_effective']}")
    if exp["qd_effective"] < w["qd"] and not any("synchronous" in x for x in r["warnings"]):
        say(f"qd {w['qd']} ran as {r['qd_effective']} without a warning")
    if dur <= 0 and not partial:
        say(f"duration_s {dur} <= 0")
    if "runtime_s" in exp and not close(dur, exp["runtime_s"], tol=1e-6):
        say(f"duration_s {dur} of a time-bounded run is not the runtime {exp['runtime_s']}")
    if not close(r["ramp_s"], exp.get("ramp_s", 0)):
        say(f"ramp_s {r['ramp_s']}, expected {exp.get('ramp_s', 0)}")

    rate = r["rate"]
    open_rate = rate is not None and rate["mode"] == "open"
    if (rate is None) != ("rate" not in exp) or (rate and rate["mode"] != exp["rate"]):
        say(f"rate {rate}, expected mode {exp.get('rate')}")
    if r["engine"] in ("psync", "wsync") and r["read"]["slat_ns"] is not None:
        say("an engine that completes I/O inside submit reports a slat")
    sub_ = r["submissions"]
    if not partial and sub_["ios"] < r["total"]["ios"]:
        say(f"submissions.ios {sub_['ios']} < I/Os counted {r['total']['ios']}")
    if sub_["calls"] > sub_["ios"]:
        say(f"submissions: {sub_['calls']} calls for {sub_['ios']} I/Os")
    # the directions: read and write, and trim in (only in) the results of workloads that trim
    dirs = ("read", "write", "trim") if "trim" in r else ("read", "write")
    if ("trim" in r) != (w["rw"] in ("trim", "randtrim")):
        say(f"rw={w['rw']} with a trim object: {'trim' in r}")
    # slat count = submissions.ios = the I/Os that reached the engine: an
    # I/O fault.rate failed before it is neither (fault.injected counts it),
    # so an ios-bounded run submits what it issued less the injected faults
    if r["read"]["slat_hist"] is not None:
        nslat = sum(r[dn]["slat_hist"]["count"] for dn in dirs if r[dn]["slat_hist"] is not None)
        if nslat != sub_["ios"]:
            say(f"slat counts {nslat} I/Os, submissions.ios is {sub_['ios']}")
    if "total_ios" in exp and not partial and sub_["ios"] != exp["total_ios"] - r["fault"]["injected"]:
        say(f"submissions.ios {sub_['ios']} != {exp['total_ios']} issued - {r['fault']['injected']} injected")
    for dn in dirs:
        check_dir(f"{name}: {dn}", r[dn], bs, dur, True, r["hist_rel_error"], open_rate)
    rd, wr, tot = r["read"], r["write"], r["total"]
    dsum = lambda k: sum(r[dn][k] for dn in dirs)
    if tot["ios"] != dsum("ios") or tot["bytes"] != dsum("bytes"):
        say(f"total {tot['ios']} ios / {tot['bytes']} bytes != the directions' sum")
    if not close(tot["iops"], dsum("iops")) or not close(tot["bw_bytes_s"], dsum("bw_bytes_s")):
        say("total.iops / total.bw_bytes_s != the directions' sum")
    if tot["ios"] == 0 and not partial:
        say("no I/O at all")
    if "total_ios" in exp and tot["ios"] != exp["total_ios"] and not exp.get("faults"):
        say(f"ios-bounded run did {tot['ios']} I/Os, expected exactly {exp['total_ios']}")
    rw = w["rw"]
    if rw in ("read", "randread") and wr["ios"]:
        say(f"rw={rw} but {wr['ios']} writes")
    if rw in ("write", "randwrite", "trim", "randtrim") and rd["ios"]:
        say(f"rw={rw} but {rd['ios']} reads")
    if rw in ("trim", "randtrim") and wr["ios"]:
        say(f"rw={rw} but {wr['ios']} writes")
    if rw in ("randrw", "rw") and tot["ios"] >= 1000:
        share = rd["ios"] / tot["ios"]
        want = w["rwmix"] / 100
        if abs(share - want) > 0.1:
            say(f"read share {share:.3f} far from rwmix {w['rwmix']}%")

    # per target: exact sums, the same arithmetic as the totals
    pt = r["per_target"]
    if len(pt) != len(exp["targets"]):
        say(f"{len(pt)} per_target entries for {len(exp['targets'])} targets")
    for i, t in enumerate(pt):
        if i < len(exp["targets"]) and t["path"] != exp["targets"][i]:
            say(f"per_target.{i}.path {t['path']!r}, expected {exp['targets'][i]!r}")
        if t["logical_block_size"] < 1 or t["region_size"] < bs:
            say(f"per_target.{i}: logical_block_size {t['logical_block_size']}, region_size {t['region_size']}")
        for dn in dirs:
            check_dir(f"{name}: per_target.{i}.{dn}", t[dn], bs, dur, False, None)
            tl, al = t[dn]["lat_ns"], r[dn]["lat_ns"]
            if t[dn]["ios"] and (tl["min"] < al["min"] or tl["max"] > al["max"]):
                say(f"per_target.{i}.{dn} latency range [{tl['min']}, {tl['max']}] outside the total's")
        if exp.get("all_targets_busy") and sum(t[dn]["ios"] for dn in dirs) == 0:
            say(f"per_target.{i} did no I/O")
    for dn in dirs:
        for k in ("ios", "bytes"):
            s = sum(t[dn][k] for t in pt)
            if s != r[dn][k]:
                say(f"per_target {dn}.{k} sum to {s}, total {dn}.{k} is {r[dn][k]}")
    if sum(t["errors"] for t in pt) != r["errors"]["count"]:
        say("per_target errors do not sum to errors.count")
    errs_ = r["errors"]
    if sum(errs_["by_errno"].values()) != errs_["count"]:
        say(f"errors.by_errno sums to {sum(errs_['by_errno'].values())}, errors.count is {errs_['count']}")
    if errs_["short"] > errs_["by_errno"].get("EIO", 0):
        say(f"{errs_['short']} short transfers but only {errs_['by_errno'].get('EIO', 0)} EIO")
    if sum(errs_[dn] for dn in dirs) != errs_["count"]:
        say(f"errors by direction do not sum to errors.count: {errs_}")
    fl = r["fault"]
    for k in ("injected", "short", "delayed"):
        if sum(fl[dn][k] for dn in dirs) != fl[k]:
            say(f"fault by direction .{k} do not sum to fault.{k}: {fl}")
    if sum(fl["by_errno"].values()) != fl["injected"]:
        say(f"fault.by_errno does not sum to fault.injected: {fl}")
    if exp.get("faults"):
        # every I/O is counted once: as done, or as failed (injected or not)
        if tot["ios"] + errs_["count"] != 5000:
            say(f"{tot['ios']} done + {errs_['count']} failed != the 5000 issued")
        if not fl["enabled"] or fl["injected"] == 0 or fl["short"] == 0 or fl["delayed"] == 0:
            say(f"fault injection did not inject every kind: {fl}")
        if errs_["count"] != fl["injected"] + fl["short"] or errs_["short"] != fl["short"]:
            say(f"errors {errs_} are not the injected faults {fl}")
        if errs_["by_errno"].get("ENOSPC", 0) != fl["injected"]:
            say(f"errors.by_errno.ENOSPC {errs_['by_errno']} != fault.injected {fl['injected']}")
        for dn in ("read", "write"):
            if errs_[dn] != fl[dn]["injected"] + fl[dn]["short"]:
                say(f"errors.{dn} {errs_[dn]} != fault.{dn} injected + short {fl[dn]}")
    v = r["verify"]
    if sum(v["by_field"].values()) != v["mismatches"] or len(v["first_mismatches"]) != min(8, v["mismatches"]):
        say(f"verify figures disagree: {v}")
    if exp.get("verify_bad"):  # blocks never written that way: every read checked and a mismatch
        if not v["enabled"] or v["checked"] != rd["ios"] or v["mismatches"] != v["checked"] or v["unchecked"]:
            say(f"verify run over foreign data: {v}, {rd['ios']} reads")
    elif exp.get("verify"):
        if not v["enabled"] or v["checked"] != rd["ios"] or v["checked"] == 0 or v["mismatches"]:
            say(f"verify run: {v}, {rd['ios']} reads")
    elif v["enabled"] or v["checked"]:
        say(f"verify figures on a run without verify=1: {v}")
    if exp.get("faults"):
        pass
    elif fl["enabled"] or fl["injected"] or fl["short"] or fl["delayed"]:
        say(f"fault figures on a run without fault.* keys: {fl}")
    if not io_error and not exp.get("faults") and (errs_["count"] or errs_["by_errno"]):
        say(f"I/O errors on a clean run: {errs_}")
    # what the targets held as the run began (per_target[].page_cache, allocated_pct)
    for i, t in enumerate(pt):
        pc = t["page_cache"]
        if w["engine"] == "null" and (pc is not None or t["allocated_pct"] is not None):
            say(f"per_target.{i}: the null engine examined a target: {pc}, {t['allocated_pct']}")
        if pc is not None and pc["invalidated"] != bool(w["invalidate"]):
            say(f"per_target.{i}.page_cache.invalidated {pc['invalidated']} with invalidate={w['invalidate']}")
        if pc is not None and (pc["cached_pct"] is None) != bool(w["direct"]):
            say(f"per_target.{i}.page_cache.cached_pct {pc['cached_pct']} with direct={w['direct']}")
    if exp.get("cached"):
        pc = pt[0]["page_cache"]
        if pc is None or pc["cached_pct"] is None or pc["cached_pct"] < 50 or pc["examined_bytes"] != pt[0]["region_size"]:
            say(f"warm-cache run: page_cache {pc}")
        if not any("in the page cache as the run began" in x for x in r["warnings"]):
            say(f"warm-cache run without the warning: {r['warnings']}")
    if exp.get("sparse"):
        if pt[0]["allocated_pct"] != 0 or not any(x.startswith("SPARSE TARGET") for x in r["warnings"]):
            say(f"sparse run: allocated_pct {pt[0]['allocated_pct']}, warnings {r['warnings']}")
    elif w["engine"] != "null" and pt and pt[0]["kind"] in ("file", "scratch") and pt[0]["allocated_pct"] != 100:
        say(f"per_target.0.allocated_pct {pt[0]['allocated_pct']} of a file written whole")
    for k in ("data_compress", "data_dedupe"):
        if w[k] != exp.get(k, 0):
            say(f"workload.{k} is {w[k]}, expected {exp.get(k, 0)}")
    if "scratch_in" in exp:
        t = pt[0]
        if t["kind"] != "scratch" or not t["file"].startswith(exp["scratch_in"].rstrip("/") + "/"):
            say(f"directory target: kind {t['kind']!r}, file {t['file']!r}")
        if t["region_size"] != exp["region_size"]:
            say(f"scratch region_size {t['region_size']}, expected {exp['region_size']}")

    # time series: intervals partition the measured window
    ts = r["timeseries"]
    if not ts and not partial:
        say("empty timeseries")
    for a, b in zip(ts, ts[1:]):
        if not b["t_s"] > a["t_s"]:
            say(f"timeseries t_s not increasing: {a['t_s']} then {b['t_s']}")
    if sum(x["errors"] for x in ts) != errs_["count"]:
        say(f"timeseries errors sum to {sum(x['errors'] for x in ts)}, errors.count is {errs_['count']}")
    for dn in dirs:
        for k in ("ios", "bytes"):
            s = sum(x[dn][k] for x in ts)
            if s != r[dn][k]:
                say(f"timeseries {dn}.{k} sum to {s}, total {dn}.{k} is {r[dn][k]}")

    # precondition and steady state: outside the figures, and consistent
    pre, ss, wss = r["precondition"], r["steady_state"], w["ss"]
    if exp.get("precondition"):
        want = None if pre is None else exp["precondition"] * sum(t["region_size"] // pre["bs"] * pre["bs"] for t in pt)
        if pre is None or pre["passes"] != exp["precondition"] or pre["bytes"] != want:
            say(f"precondition {pre}: expected {exp['precondition']} passes writing {want} bytes")
    elif pre is not None:
        say(f"precondition {pre} on a run without precondition=N")
    if (ss is None) != (wss["metric"] == "off"):
        say(f"steady_state {ss} with ss={wss['metric']}")
    if ss is not None:
        if ss["reached"] != (ss["at_s"] is not None):
            say(f"steady_state reached {ss['reached']} but at_s {ss['at_s']}")
        if ss["reached"] and not (ss["at_s"] <= dur + 1e-9 and ss["max_excursion_pct"] <= wss["excursion_pct"]
                                  and ss["slope_pct"] <= wss["slope_pct"]):
            say(f"steady_state {ss} reached outside its limits {wss} or after the run ({dur} s)")
        if not close(ss["window_s"], ss["rounds"] * w["interval_s"]):
            say(f"steady_state window_s {ss['window_s']} != rounds x interval_s")
        if ss["stopped"] and not (ss["reached"] and wss["stop"]):
            say(f"steady_state stopped without being reached with ss.stop=1: {ss}")

    # CPU: the parts add up
    c = r["cpu"]
    if c["per_cpu_pct"] and len(c["per_cpu_pct"]) != c["ncpus"]:
        say(f"{len(c['per_cpu_pct'])} per_cpu_pct entries for ncpus {c['ncpus']}")
    if c["ncpus"] < 1:
        say("cpu.ncpus < 1")
    share_keys = ("system_pct", "user_pct", "sys_pct", "irq_pct", "iowait_pct", "steal_pct", "idle_pct",
                  "background_pct", "raised_pct", "nvbench_pct")
    if c["system_pct"] is None:
        # not measured: every share null, and the reason names the tick (too few of them)
        if any(c[k] is not None for k in share_keys) or c["per_cpu_pct"]:
            say(f"cpu.system_pct null but not its parts: {[(k, c[k]) for k in share_keys]}")
        why = c.get("system_null_reason") or ""
        if "USER_HZ" not in why and "could not be read" not in why:
            say(f"cpu.system_pct null without a reason naming the tick: {why!r}")
    else:
        if not close(c["system_pct"], c["user_pct"] + c["sys_pct"] + c["irq_pct"], rel=1e-6, tol=1e-6):
            say(f"cpu.system_pct {c['system_pct']} != user + sys + irq")
        parts = c["system_pct"] + c["iowait_pct"] + c["steal_pct"] + c["idle_pct"]
        if not close(parts, 100, tol=1e-6):
            say(f"system + iowait + steal + idle = {parts}, not 100")
        if c["ticks_per_cpu"] is not None and c["ticks_per_cpu"] < 10:
            say(f"cpu.system_pct {c['system_pct']} from {c['ticks_per_cpu']} ticks per CPU")
        # this process's share is part of the machine's busy share
        if c["nvbench_pct"] > c["system_pct"] + 1e-9:
            say(f"cpu.nvbench_pct {c['nvbench_pct']} above system_pct {c['system_pct']}")
        if not close(c["background_pct"], c["system_pct"] - c["nvbench_pct"], tol=1e-6):
            say(f"background_pct {c['background_pct']} != system_pct - nvbench_pct")
    cpu_s = c["process_user_s"] + c["process_sys_s"]
    # the CPU read at the edges of its window, over the span between the reads (matching edges)
    win = c["window_s"]
    if (c["process_cores"] is None) != (win == 0) or (win and not close(c["process_cores"], cpu_s / win)):
        say(f"process_cores {c['process_cores']} != cpu seconds / window_s {win}")
    if not partial and c["window_s"] < 0.9 * dur:
        say(f"cpu.window_s {c['window_s']} shorter than duration_s {dur}")
    # null, not 0, where there is nothing to divide by
    if (c["cpu_us_per_io"] is None) != (tot["ios"] == 0) or (
            tot["ios"] and not close(c["cpu_us_per_io"], cpu_s * 1e6 / tot["ios"])):
        say(f"cpu_us_per_io {c['cpu_us_per_io']} != cpu seconds x 1e6 / total.ios ({tot['ios']})")
    if (c["iops_per_core"] is None) != (tot["ios"] == 0 or cpu_s == 0) or (
            c["iops_per_core"] is not None and not close(c["iops_per_core"], tot["ios"] / cpu_s)):
        say(f"iops_per_core {c['iops_per_core']} != total.ios / cpu seconds")
    if not any(th["name"].startswith("nvb-job-") for th in c["threads"]):
        say("no nvb-job-* thread in cpu.threads")


n = 0
with open(manifest) as f:
    for line in f:
        name, path, exp = line.rstrip("\n").split("\t")
        check(name, path, json.loads(exp))
        n += 1
if problems:
    print(f"{len(problems)} problem(s) in {n} results:")
    for p in problems:
        print("  " + p)
    sys.exit(1)
print(f"{n} results valid against {schema_path} and consistent")
EOF

"$PY" "$TMP/check.py" "$SCHEMA" "$MANIFEST" || fail "results do not match the schema or are inconsistent (see above)"
echo "PASS"
