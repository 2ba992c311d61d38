# shellcheck shell=bash disable=SC2034  # sourced: the variables are the callers'
# Shared by test_interrupt.sh and test_interrupt_features.sh (sourced, not a
# test of its own): the paths, the helpers that start a front door, wait for
# a condition, send one signal and check what is left, and the probes of the
# file system (O_DIRECT, room for a long layout).
#
#   . interrupt_common.sh BUILD_DIR SOURCE_DIR     (sets BUILD SRC RUN PY VENV_PY LUA_MOD TMP ...)
BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
RUN=$BUILD/examples/c/run_workload
PY=/usr/bin/python3
VENV_PY=$BUILD/tests/python-venv/bin/python
LUA_MOD=$BUILD/bindings/lua
# Seconds allowed from the signal to the exit. Stopping promptly is the
# point, but the bound must hold on a shared, loaded machine: runs stop in
# 0.03-0.9 s here, and anything not stopped within 10 s would have run on
# for its whole 60 s (the property tested is "the signal ends the run").
LIMIT=${NVB_INTERRUPT_LIMIT:-10}

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$RUN" ] || skip "$RUN not built (NVB_BUILD_EXAMPLES=OFF?)"
[ -x "$PY" ] || skip "$PY not found"

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/interrupt.XXXXXX")
PIDS=()
cleanup() {
    for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -KILL "$p" 2> /dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT

# A background job of a non-interactive shell starts with SIGINT ignored,
# and Python then never installs its handler: start commands with the
# default disposition, as a terminal would.
spawn() {
    exec "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

now() { date +%s.%N; }
elapsed() { "$PY" -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }
le() { "$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" "$1" "$2"; }

# wait_scratch DIR PID: until a scratch file exists in DIR (the run has got
# past the checks); fails when PID dies first.
wait_scratch() {
    for _ in $(seq 600); do
        compgen -G "$1/.nvbench-scratch-*.tmp" > /dev/null && return 0
        kill -0 "$2" 2> /dev/null || return 1
        sleep 0.02
    done
    return 1
}

# open_as PID GLOB MODE: the path of a file PID has open whose path matches
# GLOB, opened write-only (MODE w: a layout only writes) or not (MODE r: a
# run reads it); status 1 when there is none.
open_as() {
    local fd f flags wo
    for fd in /proc/"$1"/fd/*; do
        f=$(readlink "$fd" 2> /dev/null) || continue
        # shellcheck disable=SC2053 # GLOB is a pattern
        [[ $f == $2 ]] || continue
        flags=$(awk '/^flags:/ {print $2}' "/proc/$1/fdinfo/${fd##*/}" 2> /dev/null) || continue
        [ -n "$flags" ] || continue
        wo=$([ $((8#$flags & 3)) -eq 1 ] && echo w || echo r)
        [ "$wo" = "$3" ] && { echo "$f"; return 0; }
    done
    return 1
}

# wait_matrix_run DIR PID: until PID has the scratch file of its matrix
# directory in DIR (nvbench-matrix-PID-*/scratch) open other than
# write-only: a run has it open, the layout only writes it. Fails when PID
# dies first. Bounded generously (60 s): the layout may be slow on a busy disk.
wait_matrix_run() {
    for _ in $(seq 3000); do
        kill -0 "$2" 2> /dev/null || return 1
        open_as "$2" "$1/nvbench-matrix-$2-*/scratch" r > /dev/null && return 0
        sleep 0.02
    done
    return 1
}

# check_partial FILE: the partial result parses and says it was cancelled.
check_partial() {
    "$PY" - "$1" <<'EOF' || fail "partial result $1 is not a cancelled result"
import json, sys
text = open(sys.argv[1]).read()
# python -m nvbench run prints the JSON; a progress bar never goes to stdout
r = json.loads(text)
assert r["cancelled"] is True, r["cancelled"]
assert r["error"]["name"] == "ECANCELED", r["error"]
EOF
}

# interrupt NAME SIGNAL WHEN DIR CMD...: start CMD, wait until it is in the
# run ($WAIT DIR PID: by default until its scratch file exists in DIR), then
# WHEN seconds, send SIGNAL once; expect exit 130 (INT) or 143 (TERM) within
# LIMIT seconds (or $STOP_LIMIT), no Python traceback on stderr, and an
# empty DIR afterwards (or exactly the names in $LEFT, one per line).
# stdout goes to $TMP/NAME.out.
interrupt() {
    local name=$1 sig=$2 when=$3 dir=$4
    shift 4
    local want=130 limit=${STOP_LIMIT:-$LIMIT}
    [ "$sig" = TERM ] && want=143
    spawn "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" &
    local pid=$!
    PIDS+=("$pid")
    "${WAIT:-wait_scratch}" "$dir" "$pid" || { cat "$TMP/$name.err" >&2; fail "$name: never got into the run in $dir"; }
    sleep "$when"
    local t0 t1 rc=0
    t0=$(now)
    kill "-$sig" "$pid"
    wait "$pid" || rc=$?
    t1=$(now)
    local took
    took=$(elapsed "$t0" "$t1")
    [ "$rc" -eq "$want" ] || { cat "$TMP/$name.err" >&2; fail "$name: exit status $rc after SIG$sig, expected $want"; }
    le "$took" "$limit" || fail "$name: took ${took}s to stop after SIG$sig (limit ${limit}s)"
    ! grep -q 'Traceback (most recent call last)' "$TMP/$name.err" || { cat "$TMP/$name.err" >&2; fail "$name: a Python traceback"; }
    [ "$(ls -A "$dir")" = "${LEFT:-}" ] ||
        { ls -la "$dir" >&2; fail "$name: $dir holds other than '${LEFT:-}' after the interrupted run"; }
    echo "ok $name: SIG$sig ${when}s into the run, stopped in ${took}s, exit $want, left in $dir: '${LEFT:-}'"
    echo "$name $sig $took" >> "$TMP/timings"
}

# A layout large enough to take seconds: a quarter of the free space, at
# most 16 GiB (fallocate reserves it at once; only what is written before
# the signal costs time).
avail_kib=$(df -Pk "$TMP" | awk 'NR == 2 {print $4}')
big=$((avail_kib / 4 / 1024))
[ "$big" -gt 16384 ] && big=16384
LAYOUT_OK=1
if [ "$big" -lt 2048 ]; then
    echo "note: only $((avail_kib / 1024)) MiB free under $TMP: the layout cases are not run"
    LAYOUT_OK=0
fi

# O_DIRECT is the default; a file system without it gets direct=0.
DIRECT=1
mkdir "$TMP/probe"
if ! "$RUN" engine=psync size=1M ios=4 "$TMP/probe" > /dev/null 2> "$TMP/probe.err"; then
    grep -q 'O_DIRECT' "$TMP/probe.err" || { cat "$TMP/probe.err" >&2; fail "a plain run failed"; }
    DIRECT=0
fi

