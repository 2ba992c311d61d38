#!/usr/bin/env bash
# vs_fio.sh - nvbench and fio side by side on the same target and workload.
#
#   tests/bench/vs_fio.sh [--pairs N] [--runtime S] [--case NAME] [--build DIR]
#                         [--dir DIR] [--keep] [--raw DIR]
#                         [--nvb-args "K=V ..."] [--fio-args "--opt=v ..."]
#
# A benchmark, not a test: it is never run by CTest, and nothing here is a
# pass/fail timing threshold inside the unit tests. The machine it runs on is
# usually noisy and shared, so absolute numbers are worth little; what it
# reports are ratios of runs made back to back on the same target:
#   - after one warm-up run of each tool (not counted), N pairs are run in
#     alternating order (nvbench fio, fio nvbench, nvbench fio, ...), so a
#     drift in the machine's state hits both tools alike;
#   - each pair gives one ratio nvbench/fio; the median ratio is the answer;
#   - fio's own spread (max/min of its N runs) says how much two runs of the
#     *same* tool differ here: a ratio inside that spread is no difference.
#
# Cases (--case, default all):
#   loop    (a) loop efficiency: io_uring, 4 KiB random buffered reads
#               (direct=0) of a fully page-cached 1 GiB file, QD32, 1 job
#               (invalidate=0 for both tools: the cache stays warm).
#               The device does nothing; the figure is per-I/O CPU cost of
#               the submission/completion loop. Target: nvbench >= 1.5x fio.
#   null    (b) overhead: the null engine, QD32 4 KiB randread: the
#               framework alone. Target: nvbench >= 2x fio's null engine.
#   agree   (c) agreement: O_DIRECT 4 KiB random reads of a 1 GiB scratch
#               file at QD1 and QD32, libaio and io_uring. Device-bound:
#               the two tools should agree (IOPS and mean latency ratio ~1).
#               One cell alone: agree-ENGINE-qdN (agree-libaio-qd1).
# Extra cases, not part of "all" (no target; context for (a) and (b)):
#   loop-tuned  (a) against fio tuned for speed: batched submit/complete,
#               fixedbufs, registerfiles, norandommap, gtod_reduce (so fio
#               reports no latency).
#   null-tuned  (b) against fio's null engine with norandommap, gtod_reduce.
#
# --nvb-args / --fio-args append settings to every run of that tool (e.g.
# --nvb-args submit_batch=1 to submit one I/O per system call as fio does by
# default). --dir holds the 1 GiB data files (default: a new directory under
# $TMPDIR or /var/tmp, removed at the end unless --keep); --raw DIR keeps
# every JSON result. Needs fio and /usr/bin/python3 (to read both tools'
# JSON). Prints markdown on stdout.
set -u

PAIRS=3
RUNTIME=3
CASES=all
BUILD=""
DIR=""
KEEP=0
RAW=""
NVB_EXTRA=()
FIO_EXTRA=()
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)

usage() {
    sed -n '2,44p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

while [ $# -gt 0 ]; do
    case $1 in
    --pairs) PAIRS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --case) CASES=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --raw) RAW=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --nvb-args) read -r -a NVB_EXTRA <<<"$2"; shift 2 ;;
    --fio-args) read -r -a FIO_EXTRA <<<"$2"; shift 2 ;;
    -h | --help) usage 0 ;;
    *) echo "vs_fio.sh: unknown argument '$1'" >&2; usage 2 ;;
    esac
done
case $PAIRS in '' | *[!0-9]* | 0) echo "--pairs wants a positive integer" >&2; exit 2 ;; esac
case $RUNTIME in '' | *[!0-9]* | 0) echo "--runtime wants whole seconds (> 0)" >&2; exit 2 ;; esac
[ "$CASES" = all ] && CASES="loop null agree"
for c in $CASES; do
    case $c in
    loop | null | agree | loop-tuned | null-tuned | agree-libaio-qd[0-9]* | agree-io_uring-qd[0-9]*) ;;
    *) echo "unknown case '$c' (loop, null, agree, agree-ENGINE-qdN, loop-tuned, null-tuned, all)" >&2; exit 2 ;;
    esac
done

RUNW=${BUILD:-$SRC/build}/examples/c/run_workload
PY=/usr/bin/python3
[ -x "$RUNW" ] || { echo "vs_fio.sh: $RUNW not built (cmake --build build)" >&2; exit 1; }
command -v fio >/dev/null || { echo "vs_fio.sh: fio is not installed" >&2; exit 1; }
[ -x "$PY" ] || { echo "vs_fio.sh: /usr/bin/python3 is needed" >&2; exit 1; }

if [ -z "$DIR" ]; then
    DIR=$(mktemp -d "${TMPDIR:-/var/tmp}/nvb-vsfio.XXXXXX") || exit 1
    OWN_DIR=1
else
    mkdir -p "$DIR" || exit 1
    OWN_DIR=0
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nvb-vsfio-out.XXXXXX") || exit 1
[ -n "$RAW" ] && mkdir -p "$RAW"
cleanup() {
    rm -rf "$TMP"
    if [ "$KEEP" = 0 ]; then
        rm -f "$DIR/cached.dat" "$DIR/direct.dat"
        [ "$OWN_DIR" = 1 ] && rmdir "$DIR" 2>/dev/null
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ helpers

# Prints "iops mean_lat_ns" of a result: nvb FILE | fio FILE.
metrics() {
    "$PY" - "$1" "$2" <<'EOF'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
text = open(path).read()
# fio may print notes before its JSON document
d = json.loads(text[text.index("{"):])
if kind == "fio":
    r = d["jobs"][0]["read"]
    print("%.1f %.1f" % (r["iops"], r["lat_ns"]["mean"]))
else:
    r = d["read"]
    print("%.1f %.1f" % (r["iops"], r["lat_ns"]["mean"]))
EOF
}

# A file of SIZE bytes of incompressible data, written through to the disk.
make_file() {
    local f=$1 size=$2
    if [ -f "$f" ] && [ "$(stat -c %s "$f")" = "$size" ]; then
        return 0
    fi
    echo "laying out $f ($size bytes)..." >&2
    if ! head -c "$size" /dev/urandom >"$f.tmp" || ! mv "$f.tmp" "$f"; then
        rm -f "$f.tmp"
        echo "vs_fio.sh: cannot write $f" >&2
        exit 1
    fi
    sync "$f" 2>/dev/null || sync
}

# The kernel's view of the device under the data file, when it has one: its
# /sys/block stat before and after each run gives the device-side mean read
# latency and the mean number of reads in the block layer (field 4 read ticks
# ms, field 1 reads, field 11 weighted ms). Whatever else uses the disk adds
# to them a little.
KSTAT=""
kstat_of() {
    local dev
    dev=$(stat -c '%Hd:%Ld' "$1" 2>/dev/null) || return 0
    [ -r "/sys/dev/block/$dev/stat" ] && KSTAT=/sys/dev/block/$dev/stat
}

# Prints "kernel_mean_read_lat_ns mean_in_queue" for a run (or "0 0").
kmetrics() {
    local out=$1 rt=$2
    if [ ! -s "$out.k0" ] || [ ! -s "$out.k1" ]; then
        echo "0 0"
        return
    fi
    local a b
    read -r -a a <"$out.k0"
    read -r -a b <"$out.k1"
    local n=$((b[0] - a[0])) t=$((b[3] - a[3])) wq=$((b[10] - a[10]))
    if [ "$n" -le 0 ]; then echo "0 0"; return; fi
    "$PY" -c "print('%.0f %.2f' % ($t * 1e6 / $n, $wq / ($rt * 1000.0)))"
}

# run_one TOOL RUNTIME OUTFILE: the current case's command for nvb or fio.
run_one() {
    local tool=$1 rt=$2 out=$3
    rm -f "$out.k0" "$out.k1"
    [ -n "$KSTAT" ] && cat "$KSTAT" >"$out.k0"
    if [ "$tool" = nvb ]; then
        "$RUNW" "${NVB_ARGS[@]}" ${NVB_EXTRA[@]+"${NVB_EXTRA[@]}"} runtime="${rt}s" >"$out" 2>"$out.err" ||
            { echo "nvbench failed: $(cat "$out.err")" >&2; return 1; }
    else
        fio --name=vsfio "${FIO_ARGS[@]}" ${FIO_EXTRA[@]+"${FIO_EXTRA[@]}"} --time_based --runtime="$rt" --output-format=json \
            >"$out" 2>"$out.err" || { echo "fio failed: $(cat "$out.err")" >&2; return 1; }
    fi
    [ -n "$KSTAT" ] && cat "$KSTAT" >"$out.k1"
    return 0
}

# Say how much of FILE is in the page cache (case (a) must be all of it).
cached_note() {
    command -v fincore >/dev/null 2>&1 || return 0
    local res size
    read -r res size < <(fincore --bytes --noheadings --output RES,SIZE "$1" 2>/dev/null) || return 0
    echo "page cache: $res of $size bytes of $1 resident before the runs"
    echo
}

# bench LABEL TARGET_RATIO: warm-up, then PAIRS alternating pairs.
bench() {
    local label=$1 target=$2 i first second n_iops n_lat f_iops f_lat
    local -a rows=()
    local tag
    tag=$(echo "$label" | tr -c 'A-Za-z0-9_\n-' '_')
    echo "### $label"
    echo
    echo '```'
    echo "nvbench: run_workload ${NVB_ARGS[*]} ${NVB_EXTRA[*]+${NVB_EXTRA[*]} }runtime=${RUNTIME}s"
    echo "fio:     fio --name=vsfio ${FIO_ARGS[*]} ${FIO_EXTRA[*]+${FIO_EXTRA[*]} }--time_based --runtime=$RUNTIME --output-format=json"
    echo '```'
    echo
    # warm-up: one short run of each, not counted (page cache, CPU frequency,
    # the device's own caches, fio's file layout check)
    run_one nvb 1 "$TMP/warm.nvb" || return 1
    run_one fio 1 "$TMP/warm.fio" || return 1
    local n_kl n_kq f_kl f_kq
    for ((i = 1; i <= PAIRS; i++)); do
        if ((i % 2)); then first=nvb second=fio; else first=fio second=nvb; fi
        run_one $first "$RUNTIME" "$TMP/$i.$first" || return 1
        run_one $second "$RUNTIME" "$TMP/$i.$second" || return 1
        read -r n_iops n_lat < <(metrics nvb "$TMP/$i.nvb")
        read -r f_iops f_lat < <(metrics fio "$TMP/$i.fio")
        if [ -n "$RAW" ]; then
            cp "$TMP/$i.nvb" "$RAW/$tag.$i.nvbench.json"
            cp "$TMP/$i.fio" "$RAW/$tag.$i.fio.json"
        fi
        read -r n_kl n_kq < <(kmetrics "$TMP/$i.nvb" "$RUNTIME")
        read -r f_kl f_kq < <(kmetrics "$TMP/$i.fio" "$RUNTIME")
        rows+=("$i|$first,$second|$n_iops|$f_iops|$n_lat|$f_lat|$n_kl|$f_kl|$n_kq|$f_kq")
    done
    "$PY" - "$label" "$target" "${rows[@]}" <<'EOF'
import statistics, sys
label, target = sys.argv[1], float(sys.argv[2])
rows = [r.split("|") for r in sys.argv[3:]]
kern = any(float(r[6]) > 0 for r in rows)
head = "| pair | order | nvbench IOPS | fio IOPS | IOPS ratio | nvbench mean lat (us) | fio mean lat (us) | lat ratio |"
rule = "|---|---|---:|---:|---:|---:|---:|---:|"
if kern:
    # the kernel's view of the same runs (device under the data file)
    head += " kernel lat nvb / fio (us) | in block layer nvb / fio |"
    rule += "---:|---:|"
print(head)
print(rule)
ir, lr, fi, ni = [], [], [], []
for i, order, n, f, nl, fl, nkl, fkl, nkq, fkq in rows:
    n, f, nl, fl = float(n), float(f), float(nl), float(fl)
    ir.append(n / f); fi.append(f); ni.append(n)
    if fl > 0:
        lr.append(nl / fl)
    line = "| %s | %s | %s | %s | %.2f | %.2f | %s | %s |" % (
        i, order.replace(",", " then "), format(round(n), ","), format(round(f), ","),
        n / f, nl / 1e3, "%.2f" % (fl / 1e3) if fl > 0 else "n/a", "%.2f" % (nl / fl) if fl > 0 else "n/a")
    if kern:
        line += " %.1f / %.1f | %s / %s |" % (float(nkl) / 1e3, float(fkl) / 1e3, nkq, fkq)
    print(line)
med = statistics.median(ir)
lmed = statistics.median(lr) if lr else float("nan")
fsp, nsp = max(fi) / min(fi), max(ni) / min(ni)
print()
lmed_s = "%.2f" % lmed if lr else "n/a (fio measured no latency)"
print("median IOPS ratio nvbench/fio: **%.2f**; median mean-latency ratio: %s; "
      "fio spread (max/min of its runs): %.3f; nvbench spread: %.3f" % (med, lmed_s, fsp, nsp))
# target > 0: a speed target; 0: agreement (compare with fio's spread); < 0: context only
if target > 0:
    verdict = "met" if med >= target else "NOT met"
    print("target nvbench >= %.1fx fio: **%s**" % (target, verdict))
elif target == 0:
    verdict = "inside fio spread" if 1 / fsp <= med <= fsp else "outside fio spread"
    print("agreement: the IOPS ratio is %s fio's own run-to-run spread" % verdict.split()[0])
else:
    verdict = "(context)"
print()
# one summary line for the caller: label|median|lat median|fio spread|nvb spread|target|verdict
print("SUMMARY|%s|%.2f|%s|%.3f|%.3f|%s|%s" % (label, med, "%.2f" % lmed if lr else "n/a", fsp, nsp, ("%.1fx" % target) if target > 0 else "-", verdict), file=sys.stderr)
EOF
}

echo "## nvbench vs fio ($(date -u +%Y-%m-%dT%H:%MZ))"
echo
NVB_VER=$("$RUNW" engine=null ios=1 2>/dev/null | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["version"])')
echo "machine: $(nproc) CPUs ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)), kernel $(uname -r); $(fio --version); nvbench $NVB_VER"
echo "pairs: $PAIRS, runtime: ${RUNTIME}s per run"
echo

FAILED=0
for c in $CASES; do
    case $c in
    loop)
        F=$DIR/cached.dat
        make_file "$F" $((1 << 30))
        cat "$F" >/dev/null # into the page cache
        cached_note "$F"
        NVB_ARGS=(engine=io_uring rw=randread bs=4k qd=32 jobs=1 direct=0 invalidate=0 "$F")
        FIO_ARGS=(--filename="$F" --ioengine=io_uring --direct=0 --invalidate=0 --rw=randread --bs=4k
            --iodepth=32 --size=1G)
        bench "(a) loop efficiency: io_uring 4K randread, buffered, page-cached 1 GiB, QD32" 1.5 2>>"$TMP/summary" || FAILED=1
        ;;
    null)
        NVB_ARGS=(engine=null rw=randread bs=4k qd=32 jobs=1)
        FIO_ARGS=(--ioengine=null --size=1G --rw=randread --bs=4k --iodepth=32)
        bench "(b) overhead: null engine 4K randread, QD32" 2 2>>"$TMP/summary" || FAILED=1
        ;;
    loop-tuned)
        F=$DIR/cached.dat
        make_file "$F" $((1 << 30))
        cat "$F" >/dev/null
        cached_note "$F"
        NVB_ARGS=(engine=io_uring rw=randread bs=4k qd=32 jobs=1 direct=0 invalidate=0 "$F")
        FIO_ARGS=(--filename="$F" --ioengine=io_uring --direct=0 --invalidate=0 --rw=randread --bs=4k
            --iodepth=32 --size=1G --iodepth_batch_submit=32 --iodepth_batch_complete_min=1
            --iodepth_batch_complete_max=32 --fixedbufs --registerfiles --norandommap --randrepeat=0
            --gtod_reduce=1)
        bench "(a') loop efficiency vs fio tuned: io_uring 4K randread, buffered, page-cached, QD32" -1 2>>"$TMP/summary" || FAILED=1
        ;;
    null-tuned)
        NVB_ARGS=(engine=null rw=randread bs=4k qd=32 jobs=1)
        FIO_ARGS=(--ioengine=null --size=1G --rw=randread --bs=4k --iodepth=32 --norandommap --randrepeat=0
            --gtod_reduce=1)
        bench "(b') overhead vs fio tuned: null engine 4K randread, QD32" -1 2>>"$TMP/summary" || FAILED=1
        ;;
    agree*)
        F=$DIR/direct.dat
        make_file "$F" $((1 << 30))
        kstat_of "$F"
        cells="libaio:1 libaio:32 io_uring:1 io_uring:32"
        if [ "$c" != agree ]; then
            cells=${c#agree-}        # ENGINE-qdN
            cells=${cells%-qd*}:${cells##*-qd}
        fi
        for cell in $cells; do
            eng=${cell%:*} qd=${cell#*:}
            NVB_ARGS=(engine=$eng rw=randread bs=4k qd=$qd jobs=1 direct=1 "$F")
            FIO_ARGS=(--filename="$F" --ioengine=$eng --direct=1 --rw=randread --bs=4k --iodepth=$qd --size=1G)
            bench "(c) agreement: $eng O_DIRECT 4K randread, QD$qd" 0 2>>"$TMP/summary" || FAILED=1
        done
        KSTAT=""
        ;;
    esac
done

echo "## Summary"
echo
echo "| case | median IOPS ratio nvbench/fio | median mean-lat ratio | fio spread | nvbench spread | target | verdict |"
echo "|---|---:|---:|---:|---:|---|---|"
grep '^SUMMARY|' "$TMP/summary" | while IFS='|' read -r _ label med lmed fsp nsp target verdict; do
    echo "| $label | $med | $lmed | $fsp | $nsp | $target | $verdict |"
done
grep -v '^SUMMARY|' "$TMP/summary" >&2
exit $FAILED
