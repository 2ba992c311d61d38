#!/usr/bin/env bash
# test_kernel_counters.sh - the "truth" test: nvbench's I/O counts against the
# kernel's own.
#
#   test_kernel_counters.sh [BUILD_DIR] [SOURCE_DIR]
#
# For an ios-bounded run, every I/O nvbench counts as completed must be one
# request the block layer counted in /sys/block/NAME/stat (field 1 reads
# completed, 3 sectors read, 5 writes completed, 7 sectors written; 512-byte
# sectors), and nothing else may show up there. Checked for every available
# engine (psync, libaio, io_uring), randread / randwrite / randrw, jobs=1 and
# jobs=3 (with an ios count not divisible by 3), bs=4k and bs=64k, direct=1,
# on a loop device (direct I/O to a sparse file) and on zram0 when it is free.
#
# The devices are made quiet first, so that the deltas are nvbench's alone:
#  - scheduler "none" and nomerges=2: the block layer must not merge adjacent
#    requests (a merge makes the kernel count one request for two I/Os);
#  - a fresh loop device is probed once when it appears (blkid, partition
#    scan): we wait until its counters stop moving before measuring;
#  - direct=1, so there is no readahead and no page-cache writeback.
# Other processes can still read any block device (libblkid probing, e.g.
# nvb_devices_json() in a concurrent test): a kernel surplus is retried, see
# run_case.
#
# Also checks Little's law on a saturated libaio/io_uring run at qd=8:
# read.iops x mean latency is the mean number of I/Os in flight, which must
# be within 15% of 8 (a ratio of nvbench's own figures, not a timing bound).
#
# Needs root (loop devices, zram, /sys writes): exits 77 with the reason
# otherwise. Everything it creates is removed on exit, failure included.
set -u

BUILD=${1:-build}
RUNW=$BUILD/examples/c/run_workload
IOS1=1000        # jobs=1
IOS3=1000        # jobs=3: 1000 = 3 x 333 + 1, so the budgets split unevenly
LOOP_SIZE=256M
ZRAM_SIZE=256M

skip() { echo "SKIP: $*" >&2; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (creates a loop device and writes to it)"
command -v losetup >/dev/null 2>&1 || skip "losetup is missing (util-linux)"
[ -x "$RUNW" ] || skip "$RUNW is not built (configure with -DNVB_BUILD_EXAMPLES=ON)"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 2>/dev/null) || skip "python3 is needed to read the JSON result"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/nvb-kc.XXXXXX") || exit 1
LOOP=""
ZRAM_OWNED=0
ZRAM_LOCK_FD=""

cleanup() {
    local rc=$?
    if [ -n "$LOOP" ]; then
        losetup -d "$LOOP" 2>/dev/null || echo "warning: could not detach $LOOP" >&2
    fi
    if [ "$ZRAM_OWNED" = 1 ]; then
        echo 1 >/sys/block/zram0/reset 2>/dev/null || echo "warning: could not reset zram0" >&2
    fi
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------ helpers

# Prints "reads rsect writes wsect inflight" of /sys/block/$1/stat.
kstat() {
    local f
    read -r -a f <"/sys/block/$1/stat" || return 1
    echo "${f[0]} ${f[2]} ${f[4]} ${f[6]} ${f[8]}"
}

# Wait until the device's counters stop moving (udev/blkid probing of a new
# device, a partition scan) and nothing is in flight: 3 equal samples 100 ms
# apart, for at most 10 s.
settle() {
    local dev=$1 prev cur same=0 i
    if command -v udevadm >/dev/null 2>&1; then
        udevadm settle --timeout=10 2>/dev/null || true
    fi
    prev=$(kstat "$dev")
    for ((i = 0; i < 100; i++)); do
        sleep 0.1
        cur=$(kstat "$dev")
        if [ "$cur" = "$prev" ] && [ "${cur##* }" = 0 ]; then
            same=$((same + 1))
            [ $same -ge 2 ] && return 0
        else
            same=0
        fi
        prev=$cur
    done
    echo "warning: /sys/block/$dev/stat still moving after 10 s: $cur" >&2
    return 1
}

# Scheduler none (when writable), no merges of any kind.
quiet_queue() {
    local q=/sys/block/$1/queue
    if [ -w "$q/scheduler" ] && grep -qw none "$q/scheduler" 2>/dev/null; then
        echo none >"$q/scheduler" 2>/dev/null || echo "warning: cannot set $q/scheduler to none" >&2
    fi
    if ! echo 2 >"$q/nomerges" 2>/dev/null || [ "$(cat "$q/nomerges")" != 2 ]; then
        echo "warning: cannot set $q/nomerges to 2: merged requests would be counted once" >&2
    fi
}

# Extract "rios rbytes wios wbytes errors" from a result file.
jfields() {
    "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = lambda k, f: int(d.get(k, {}).get(f, 0))
print(g("read", "ios"), g("read", "bytes"), g("write", "ios"), g("write", "bytes"), g("errors", "count"))
' "$1"
}

FAILS=0
NCHECK=0
declare -a ROWS DETAILS
S0="" S1="" NR=0 NRB=0 NW=0 NWB=0 NERR=0 KR=0 KRS=0 KW=0 KWS=0

fmt_row() { printf '%-6s %-8s %-9s %4s %4s %6s | %6s %6s %10s %10s | %6s %6s %10s %10s | %s\n' "$@"; }

# One measured run: sets S0 S1 NR NRB NW NWB NERR KR KRS KW KWS, or returns
# run_workload's nonzero exit status.
measure() {
    local dev=$1 eng=$2 rw=$3 bs=$4 jobs=$5 ios=$6 name rc a b
    name=$(basename "$dev")
    local extra=()
    case $rw in *write | randrw | rw) extra=(allow_destructive=1) ;; esac
    settle "$name" || true
    S0=$(kstat "$name")
    "$RUNW" engine="$eng" rw="$rw" bs="$bs" qd=8 jobs="$jobs" ios="$ios" direct=1 seed=42 \
        "${extra[@]}" "$dev" >"$WORK/out.json" 2>"$WORK/err.txt"
    rc=$?
    S1=$(kstat "$name")
    [ $rc -eq 0 ] || return $rc
    read -r -a a <<<"$S0"
    read -r -a b <<<"$S1"
    read -r NR NRB NW NWB NERR < <(jfields "$WORK/out.json")
    KR=$((b[0] - a[0]))
    KRS=$((b[1] - a[1]))
    KW=$((b[2] - a[2]))
    KWS=$((b[3] - a[3]))
    return 0
}

# run_case DEV ENGINE RW BS JOBS
#
# Other processes may read any block device at any moment: libblkid probing
# (nvbench's own device listing, nvb_devices_json(), probes every device's
# signature, and other test sessions call it), lsblk, udev. Such foreign
# I/O can only ADD to the kernel's counts, so a run where the kernel saw
# more than nvbench (and nvbench's own totals are right) is repeated, up to
# 3 attempts. A kernel count below nvbench's, wrong totals, or a surplus
# that persists over 3 attempts fail at once.
run_case() {
    local dev=$1 eng=$2 rw=$3 bs=$4 jobs=$5
    local ios=$IOS1 name rc attempt why bsb verdict retried=""
    [ "$jobs" -gt 1 ] && ios=$IOS3
    name=$(basename "$dev")
    case $bs in *k) bsb=$((${bs%k} * 1024)) ;; *) bsb=$bs ;; esac
    NCHECK=$((NCHECK + 1))
    for attempt in 1 2 3; do
        measure "$dev" "$eng" "$rw" "$bs" "$jobs" "$ios"
        rc=$?
        if [ $rc -ne 0 ]; then
            FAILS=$((FAILS + 1))
            ROWS+=("$(fmt_row "$name" "$eng" "$rw" "$bs" "$jobs" "$ios" - - - - - - - - "FAIL(rc=$rc)")")
            DETAILS+=("$name $eng $rw bs=$bs jobs=$jobs: run_workload exited $rc: $(tr '\n' ' ' <"$WORK/err.txt")")
            return
        fi
        local kbr=$((KRS * 512)) kbw=$((KWS * 512))
        why=()
        # nvbench's own accounting: exactly `ios` I/Os of bs bytes, no errors.
        local own=()
        [ $((NR + NW)) = "$ios" ] || own+=("nvbench completed $((NR + NW)) I/Os, ios=$ios was asked")
        [ $((NRB + NWB)) = $(((NR + NW) * bsb)) ] || own+=("nvbench bytes $((NRB + NWB)) != ios x bs")
        [ "$NERR" = 0 ] || own+=("nvbench counted $NERR I/O errors")
        case $rw in
        randread) [ "$NW" = 0 ] || own+=("writes in a read-only run") ;;
        randwrite) [ "$NR" = 0 ] || own+=("reads in a write-only run") ;;
        randrw) { [ "$NR" -gt 0 ] && [ "$NW" -gt 0 ]; } || own+=("randrw did not do both reads and writes") ;;
        esac
        [ "$NR" = "$KR" ] || why+=("read ios: nvbench $NR, kernel $KR")
        [ "$NRB" = "$kbr" ] || why+=("read bytes: nvbench $NRB, kernel $kbr ($KRS sectors)")
        [ "$NW" = "$KW" ] || why+=("write ios: nvbench $NW, kernel $KW")
        [ "$NWB" = "$kbw" ] || why+=("write bytes: nvbench $NWB, kernel $kbw ($KWS sectors)")
        [ ${#why[@]} -eq 0 ] && [ ${#own[@]} -eq 0 ] && break
        # only a surplus on the kernel's side may be someone else's I/O
        if [ ${#own[@]} -eq 0 ] && [ "$KR" -ge "$NR" ] && [ "$KW" -ge "$NW" ] &&
            [ "$kbr" -ge "$NRB" ] && [ "$kbw" -ge "$NWB" ] && [ $attempt -lt 3 ]; then
            retried+=" attempt $attempt: kernel +$((KR - NR)) reads +$((KW - NW)) writes;"
            echo "note: $name $eng $rw bs=$bs jobs=$jobs: the kernel saw $((KR - NR)) reads and $((KW - NW)) writes" \
                "more than nvbench: foreign I/O? repeating" >&2
            continue
        fi
        why+=("${own[@]}")
        break
    done
    verdict=ok
    [ -n "$retried" ] && [ ${#why[@]} -eq 0 ] && verdict="ok(retried)"
    if [ ${#why[@]} -gt 0 ]; then
        verdict=MISMATCH
        FAILS=$((FAILS + 1))
        local hint=""
        if { [ "$KR" -lt "$NR" ] && [ "$kbr" = "$NRB" ]; } || { [ "$KW" -lt "$NW" ] && [ "$kbw" = "$NWB" ]; }; then
            hint=" (same bytes, fewer kernel requests: the block layer merged requests; check queue/nomerges)"
        elif [ "$KR" -gt "$NR" ] || [ "$KW" -gt "$NW" ]; then
            hint=" (the kernel saw more I/O than nvbench reports in 3 attempts: nvbench lost completions, or another process keeps using $name)"
        fi
        local all
        all=$(printf '%s; ' "${why[@]}")
        DETAILS+=("$name $eng $rw bs=$bs jobs=$jobs ios=$ios: ${all%; }$hint; stat before [$S0] after [$S1]${retried:+; earlier:$retried}")
    fi
    ROWS+=("$(fmt_row "$name" "$eng" "$rw" "$bs" "$jobs" "$ios" "$NR" "$KR" "$NRB" "$kbr" "$NW" "$KW" "$NWB" "$kbw" "$verdict")")
}

run_matrix() {
    local dev=$1 eng rw bs jobs
    for eng in "${ENGINES[@]}"; do
        for rw in randread randwrite randrw; do
            for bs in 4k 64k; do
                for jobs in 1 3; do
                    run_case "$dev" "$eng" "$rw" "$bs" "$jobs"
                done
            done
        done
    done
}

# ------------------------------------------------------------ loop device

truncate -s "$LOOP_SIZE" "$WORK/loop.img" || exit 1
LOOP=$(losetup --direct-io=on -f --show "$WORK/loop.img") || { LOOP=""; skip "losetup could not create a loop device"; }
LNAME=$(basename "$LOOP")
if [ "$(cat "/sys/block/$LNAME/loop/dio" 2>/dev/null)" != 1 ]; then
    echo "note: $LOOP is not using direct I/O to its backing file (the counts are checked all the same)" >&2
fi
quiet_queue "$LNAME"
settle "$LNAME" || true

# Which engines work here: a one-I/O read of the loop device.
ENGINES=()
for eng in psync libaio io_uring; do
    if "$RUNW" engine=$eng rw=randread bs=4k ios=1 "$LOOP" >/dev/null 2>"$WORK/probe.txt"; then
        ENGINES+=("$eng")
    else
        echo "engine $eng skipped: $(tr '\n' ' ' <"$WORK/probe.txt")" >&2
    fi
done
[ ${#ENGINES[@]} -gt 0 ] || { echo "FAIL: no engine could read $LOOP" >&2; exit 1; }
echo "engines: ${ENGINES[*]}"

run_matrix "$LOOP"

# ------------------------------------------------------------ zram0

zram_skip=""
if [ ! -b /dev/zram0 ] || [ ! -d /sys/block/zram0 ]; then
    zram_skip="/dev/zram0 does not exist"
elif ! exec {ZRAM_LOCK_FD}>"${TMPDIR:-/tmp}/nvbench-zram0.lock" || ! flock -n "$ZRAM_LOCK_FD"; then
    zram_skip="another nvbench test holds zram0"
elif [ "$(cat /sys/block/zram0/disksize)" != 0 ]; then
    zram_skip="zram0 is in use (disksize $(cat /sys/block/zram0/disksize))"
elif grep -q '^/dev/zram0 ' /proc/mounts || grep -q '^/dev/zram0 ' /proc/swaps; then
    zram_skip="zram0 is mounted or used as swap"
elif [ -n "$(ls -A /sys/block/zram0/holders 2>/dev/null)" ]; then
    zram_skip="zram0 has holders"
fi
if [ -z "$zram_skip" ]; then
    if echo 1 >/sys/block/zram0/reset 2>/dev/null && echo "$ZRAM_SIZE" >/sys/block/zram0/disksize 2>/dev/null; then
        ZRAM_OWNED=1
        quiet_queue zram0
        run_matrix /dev/zram0
    else
        zram_skip="cannot configure zram0 (reset/disksize refused)"
    fi
fi
[ -n "$zram_skip" ] && echo "zram0 skipped: $zram_skip"

# ------------------------------------------------------------ report

echo
fmt_row dev engine rw bs jobs ios "nvb.r" "kern.r" "nvb.rB" "kern.rB" "nvb.w" "kern.w" "nvb.wB" "kern.wB" result
for r in "${ROWS[@]}"; do echo "$r"; done

# ------------------------------------------------------------ Little's law

echo
echo "Little's law on $LOOP (randread 4k, qd=8, jobs=1, runtime=1s): iops x mean latency = I/Os in flight"
for eng in "${ENGINES[@]}"; do
    [ "$eng" = psync ] && continue
    NCHECK=$((NCHECK + 1))
    if ! "$RUNW" engine="$eng" rw=randread bs=4k qd=8 jobs=1 runtime=1s direct=1 "$LOOP" >"$WORK/ll.json" 2>"$WORK/ll.txt"; then
        FAILS=$((FAILS + 1))
        DETAILS+=("little's law $eng: run_workload failed: $(tr '\n' ' ' <"$WORK/ll.txt")")
        continue
    fi
    line=$("$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))["read"]
n = r["iops"] * r["lat_ns"]["mean"] / 1e9
print("%.0f %.0f %.3f %s" % (r["iops"], r["lat_ns"]["mean"], n, "ok" if abs(n - 8) <= 0.15 * 8 else "FAIL"))
' "$WORK/ll.json")
    read -r iops mean n verdict <<<"$line"
    printf '  %-8s iops %10s  mean lat %8s ns  in flight %6s (want 8 +-15%%)  %s\n' "$eng" "$iops" "$mean" "$n" "$verdict"
    if [ "$verdict" != ok ]; then
        FAILS=$((FAILS + 1))
        DETAILS+=("little's law $eng: iops $iops x mean $mean ns = $n in flight, not within 15% of qd 8")
    fi
done

echo
if [ $FAILS -gt 0 ]; then
    echo "FAIL: $FAILS of $NCHECK checks failed:"
    for d in "${DETAILS[@]}"; do echo "  - $d"; done
    exit 1
fi
echo "PASS: $NCHECK checks; nvbench's counts equal the kernel's"
exit 0
