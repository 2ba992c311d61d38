#!/usr/bin/env bash
# Interruption of the features that came after test_interrupt.sh's front
# doors, each the same promise (docs/reliability.md, "Interruption"): SIGINT
# and SIGTERM end the run cleanly, exit 130/143, the partial result printed
# (and parseable) where the door prints results, no scratch file left, no
# Python traceback. Each signal is sent once a condition shows the door is
# where the case wants it (a scratch file of the right step, a created file,
# reads or writes counted in /proc/PID/io), never after a guessed delay.
#   - nvbench run with job groups (--group), SIGTERM during the run;
#   - nvbench run --fio: a stonewalled job file, SIGTERM and SIGINT during
#     step 2 (a step of two concurrent jobs): step 1's result and step 2's
#     partial one;
#   - nvbench search, SIGTERM and SIGINT in its second run: the completed point(s) as
#     the partial search (--print-json parses), the cancelled run's file gone;
#   - a target created because it was missing (size=): SIGTERM during its
#     layout removes the half-made file; a file that existed before the run
#     is never removed (SIGTERM during the run on it);
#   - precondition=N with steady state, SIGTERM during the precondition;
#   - Python scripts: nvbench.search, nvbench.run_fio_job, nvbench.run_groups;
#   - Lua: nvb.search, nvb.run_groups, the fio job runner (fio_job.run);
#   - the C example seed_matrix, SIGINT and SIGTERM on a directory; SIGTERM
#     on its own temporary directory, during a run and during its layout
#     (before, the layout was not cancellable: the directory stayed).
#
#   bash test_interrupt_features.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
set -euo pipefail

# shellcheck source=interrupt_common.sh
. "$(dirname "$0")/interrupt_common.sh" "$@"

# wait_second_scratch DIR PID: until a scratch file other than the first one
# seen exists in DIR (a second run of a search or matrix is under way).
wait_second_scratch() {
    local first="" f
    for _ in $(seq 3000); do
        kill -0 "$2" 2> /dev/null || return 1
        for f in "$1"/.nvbench-scratch-*.tmp; do
            [ -e "$f" ] || continue
            [ -z "$first" ] && first=$f
            [ "$f" != "$first" ] && return 0
        done
        sleep 0.02
    done
    return 1
}

# wait_created DIR PID: until the file new.dat exists in DIR (the run has
# created its missing target and is laying it out).
wait_created() {
    for _ in $(seq 3000); do
        [ -e "$1/new.dat" ] && return 0
        kill -0 "$2" 2> /dev/null || return 1
        sleep 0.01
    done
    return 1
}

# io_count PID FIELD: syscr or syscw of PID so far.
io_count() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/io" 2> /dev/null; }

# wait_io DIR PID FIELD N: until a scratch file or DIR/data.bin is open in
# PID and FIELD (syscr, syscw) has grown by N since it was first seen open:
# the run is doing its I/O (or, for syscw, a phase that writes bs-sized
# blocks: a layout writes 1 MiB chunks, far fewer calls).
wait_io() {
    local base="" fd f
    for _ in $(seq 3000); do
        kill -0 "$2" 2> /dev/null || return 1
        if [ -z "$base" ]; then
            for fd in /proc/"$2"/fd/*; do
                f=$(readlink "$fd" 2> /dev/null) || continue
                case "$f" in "$1"/.nvbench-scratch-*|"$1"/data.bin) base=$(io_count "$2" "$3"); break ;; esac
            done
        elif [ "$(io_count "$2" "$3")" -ge $((base + $4)) ]; then
            return 0
        fi
        sleep 0.02
    done
    return 1
}
wait_reads() { wait_io "$1" "$2" syscr 2000; }
wait_writes() { wait_io "$1" "$2" syscw 2000; }

# wait_seed_scratch MODE _ PID: until PID has the scratch file of its own
# temporary directory ($TMPDIR or /tmp: nvbench-matrix-PID-*/scratch) open, write-only (MODE
# w: it is laying it out) or not (MODE r: a run); SEED_DIR is set to it.
wait_seed_scratch() {
    local f
    for _ in $(seq 3000); do
        kill -0 "$3" 2> /dev/null || return 1
        if f=$(open_as "$3" "${TMPDIR:-/tmp}/nvbench-matrix-$3-*/scratch" "$1"); then
            SEED_DIR=${f%/scratch}
            return 0
        fi
        sleep 0.01
    done
    return 1
}
seed_in_layout() { wait_seed_scratch w "$@"; }
seed_in_run() { wait_seed_scratch r "$@"; }

# ---- C example seed_matrix, on a directory (each run's scratch file there)
# and on its own temporary directory, during a run and during its layout
SEED=$BUILD/examples/c/seed_matrix
if [ -x "$SEED" ] && [ "$DIRECT" = 1 ]; then
    for sig in INT TERM; do
        d=$TMP/c-seed-$sig
        mkdir "$d"
        interrupt "c-seed-$sig" "$sig" 0 "$d" "$SEED" --engines psync --runtime 60s --size 16M "$d"
        grep -q 'Random 4K' "$TMP/c-seed-$sig.out" || fail "c-seed-$sig: no table of what was done"
    done
    d=$TMP/c-seed-own
    mkdir "$d"
    WAIT=seed_in_run interrupt c-seed-own TERM 0 "$d" "$SEED" --engines psync --runtime 60s --size 16M
    [ ! -e "$SEED_DIR" ] || { ls -la "$SEED_DIR" >&2; fail "c-seed-own: $SEED_DIR left behind"; }
    # SIGKILL leaves its directory; the next seed_matrix removes it (its pid
    # is gone), not a dead pid's directory holding anything besides scratch
    "$SEED" --engines psync --runtime 60s --size 16M > /dev/null 2>&1 &
    kpid=$!
    seed_in_run _ "$kpid" || fail "c-seed-kill: seed_matrix never ran on its scratch file"
    kill -KILL "$kpid"
    wait "$kpid" 2> /dev/null || true
    [ -f "$SEED_DIR/scratch" ] || fail "c-seed-kill: SIGKILL left no $SEED_DIR/scratch to sweep"
    keep=${TMPDIR:-/tmp}/nvbench-matrix-$kpid-keep_me0
    mkdir "$keep" && touch "$keep/not-scratch"
    "$SEED" --engines null --runtime 100ms --size 1M > /dev/null 2> "$TMP/c-seed-sweep.err" ||
        { cat "$TMP/c-seed-sweep.err" >&2; fail "c-seed-kill: the next seed_matrix failed"; }
    [ ! -e "$SEED_DIR" ] || { rm -rf "$SEED_DIR" "$keep"; fail "c-seed-kill: the dead matrix's $SEED_DIR was not swept"; }
    grep -q 'removed [0-9]* temporary director' "$TMP/c-seed-sweep.err" || { rm -rf "$keep"; fail "c-seed-kill: no word of the sweep"; }
    [ -e "$keep/not-scratch" ] || fail "c-seed-kill: a directory holding something else was removed"
    rm -rf "$keep"
    echo "ok c-seed-kill: SIGKILL left $SEED_DIR; the next seed_matrix removed it and kept $keep"
    # its directory is under /tmp: a layout of a quarter of the room there, at most 4 GiB
    tmp_mib=$(($(df -Pk /tmp | awk 'NR == 2 {print $4}') / 4 / 1024))
    [ "$tmp_mib" -gt 4096 ] && tmp_mib=4096
    if [ "$tmp_mib" -ge 1024 ]; then
        WAIT=seed_in_layout interrupt c-seed-layout TERM 0 "$d" "$SEED" --engines psync --runtime 60s \
            --size "${tmp_mib}M"
        [ ! -e "$SEED_DIR" ] || { ls -la "$SEED_DIR" >&2; fail "c-seed-layout: $SEED_DIR left behind"; }
    fi
fi

# The rest needs the package the 'python' test installs (and, for Lua's fio
# case, the job file written below): without it, only the C cases ran.
if ! { [ -x "$VENV_PY" ] && "$VENV_PY" -c 'import nvbench' 2> /dev/null; }; then
    echo "note: no Python venv with nvbench at $VENV_PY (the 'python' test makes it): Python and Lua cases not run"
    exit 0
fi
NVB=("$VENV_PY" -m nvbench)

# ---- nvbench run --group
d=$TMP/groups
mkdir "$d"
interrupt groups TERM 0 "$d" "${NVB[@]}" run --no-progress direct=$DIRECT engine=psync size=16M runtime=60s \
    interval=1s --group name=reader rw=randread "$d" --group name=other rw=randread "$d"
check_partial "$TMP/groups.out"
"$PY" - "$TMP/groups.out" <<'EOF' || fail "groups: the partial result lacks its two groups"
import json, sys
r = json.load(open(sys.argv[1]))
assert [g["workload"]["name"] for g in r["groups"]] == ["reader", "other"], r.get("groups")
assert all(g["cancelled"] for g in r["groups"])
EOF

# ---- nvbench run --fio: a stonewalled job file, SIGTERM during step 2
d=$TMP/fio
mkdir "$d" "$d/one" "$d/two" "$d/three"
cat > "$TMP/two-steps.fio" <<EOF
[global]
ioengine=psync
direct=$DIRECT
bs=4k
size=16M
rw=randread
time_based

[one]
directory=$d/one
runtime=200ms

[two]
stonewall
directory=$d/two
runtime=60

[three]
directory=$d/three
runtime=60
EOF
for sig in TERM INT; do
    word=$([ "$sig" = TERM ] && echo "terminated (SIGTERM)" || echo interrupted)
    WAIT=wait_reads interrupt "fio-$sig" "$sig" 0 "$d/two" "${NVB[@]}" run --no-progress --fio "$TMP/two-steps.fio"
    [ -z "$(ls -A "$d/one")$(ls -A "$d/three")" ] || { ls -laR "$d" >&2; fail "fio-$sig: scratch files left"; }
    "$PY" - "$TMP/fio-$sig.out" <<'EOF' || fail "fio-$sig: not step 1's result and step 2's partial one"
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
assert len(rs) == 2, len(rs)
assert rs[0]["cancelled"] is False and rs[0]["read"]["ios"] > 0, rs[0]["cancelled"]
assert rs[1]["cancelled"] is True and rs[1]["error"]["name"] == "ECANCELED", rs[1]["error"]
assert [g["workload"]["name"] for g in rs[1]["groups"]] == ["two", "three"], rs[1].get("groups")
EOF
    grep -qF "$word in step 2 of 2" "$TMP/fio-$sig.err" || { cat "$TMP/fio-$sig.err" >&2; fail "fio-$sig: stderr does not name the step"; }
done

# ---- nvbench search: SIGTERM or SIGINT in its second run
for sig in TERM INT; do
    word=$([ "$sig" = TERM ] && echo "terminated (SIGTERM)" || echo interrupted)
    d=$TMP/search-$sig
    mkdir "$d"
    WAIT=wait_second_scratch interrupt "search-$sig" "$sig" 0 "$d" "${NVB[@]}" search --latency 'p99<=10s' \
        --print-json direct=$DIRECT engine=psync rw=randread size=16M runtime=300ms "$d"
    "$PY" - "$TMP/search-$sig.out" "$word" <<'EOF' || fail "search-$sig: no partial search on stdout"
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s["points"]) >= 1 and s["points"][0]["qd"] == 1, s["points"]
assert s["answer"] is not None and s["answer"]["ok"], s["answer"]
assert any(sys.argv[2] in w for w in s["warnings"]), s["warnings"]
EOF
    grep -q 'the search below is partial' "$TMP/search-$sig.err" || { cat "$TMP/search-$sig.err" >&2; fail "search-$sig: stderr says nothing"; }
done

# ---- a created target: removed when its layout is cut short; a file that
# existed before is kept
if [ "$LAYOUT_OK" = 1 ]; then
    d=$TMP/created
    mkdir "$d"
    WAIT=wait_created interrupt created TERM 0 "$d" "${NVB[@]}" run --no-progress direct=$DIRECT engine=psync \
        rw=randread size=${big}M runtime=60s "$d/new.dat"
    check_partial "$TMP/created.out"
fi
d=$TMP/existing
mkdir "$d"
head -c $((16 << 20)) /dev/urandom > "$d/data.bin"
sum=$(md5sum < "$d/data.bin")
ino=$(stat -c %i "$d/data.bin")
WAIT=wait_reads LEFT=data.bin interrupt existing TERM 0 "$d" "${NVB[@]}" run --no-progress direct=$DIRECT \
    engine=psync rw=randread size=16M runtime=60s "$d/data.bin"
check_partial "$TMP/existing.out"
[ "$(stat -c %i "$d/data.bin")" = "$ino" ] && [ "$(md5sum < "$d/data.bin")" = "$sum" ] ||
    fail "existing: the target that existed before the run was changed"

# ---- precondition and steady state: SIGTERM during the precondition's writes
d=$TMP/precond
mkdir "$d"
WAIT=wait_writes interrupt precond TERM 0 "$d" "${NVB[@]}" run --no-progress direct=$DIRECT engine=psync \
    rw=randwrite bs=4k size=64M precondition=4 ss=iops runtime=60s interval=200ms "$d"
check_partial "$TMP/precond.out"

# ---- Python scripts: search, run_fio_job, run_groups under SIGTERM
cat > "$TMP/features.py" <<'EOF'
import json, sys
import nvbench
what, d, direct = sys.argv[1], sys.argv[2], int(sys.argv[3])
keys = dict(engine="psync", rw="randread", size="16M", direct=direct)
try:
    if what == "search":
        nvbench.search(dict(keys, targets=[d], runtime="300ms"), target="p99<=10s")
    elif what == "fio":
        nvbench.run_fio_job(sys.argv[4])
    else:
        nvbench.run_groups([{"targets": [d], "name": "a"}, {"targets": [d], "name": "b"}], runtime=60, **keys)
except nvbench.Terminated as e:
    out = {"partial": e.result.data if e.result is not None else None}
    if hasattr(e, "search"):
        out["points"] = len(e.search.points)
    if hasattr(e, "results"):
        out["done"] = len(e.results)
    print(json.dumps(out))
    raise
sys.exit(1)
EOF
check_script() {
    "$PY" - "$@" <<'EOF' || fail "$2: the script did not get the partial result"
import json, sys
out = json.load(open(sys.argv[1]))
assert out["partial"]["cancelled"] is True, out["partial"]
for k, want in (a.split("=") for a in sys.argv[3:]):
    assert out[k] >= int(want), (k, out[k])
EOF
}
d=$TMP/py-search
mkdir "$d"
WAIT=wait_second_scratch interrupt py-search TERM 0 "$d" "$VENV_PY" "$TMP/features.py" search "$d" "$DIRECT"
check_script "$TMP/py-search.out" py-search points=1
d=$TMP/py-groups
mkdir "$d"
interrupt py-groups TERM 0 "$d" "$VENV_PY" "$TMP/features.py" groups "$d" "$DIRECT"
check_script "$TMP/py-groups.out" py-groups
d=$TMP/fio
WAIT=wait_reads interrupt py-fio TERM 0 "$d/two" "$VENV_PY" "$TMP/features.py" fio "$d" "$DIRECT" \
    "$TMP/two-steps.fio"
check_script "$TMP/py-fio.out" py-fio done=1

# ---- Lua: nvb.search, nvb.run_groups and the fio job runner under SIGTERM
LUA=$(command -v lua5.4 || true)
if [ -n "$LUA" ] && [ -f "$LUA_MOD/nvbench.so" ] && [ -z "${NVB_SANITIZER:-}" ]; then
    export LUA_CPATH="$LUA_MOD/?.so;;" LUA_PATH="$SRC/bindings/lua/?.lua;;"
    cat > "$TMP/features.lua" <<'EOF'
local nvb = require "nvbench"
local what, dir, direct, job = arg[1], arg[2], arg[3], arg[4]
local ok, err = pcall(function()
  if what == "search" then
    local search = require "nvbench.search"
    search.search({ targets = { dir }, engine = "psync", rw = "randread", size = "16M", runtime = "300ms",
                    direct = direct }, { target = "p99<=10s" })
  elseif what == "groups" then
    assert(nvb.run_groups({ { targets = { dir }, name = "a" }, { targets = { dir }, name = "b" },
                            engine = "psync", rw = "randread", size = "16M", runtime = "60s", direct = direct }))
  else
    assert(require("nvbench.fio_job").run(job))
  end
end)
if not ok then
  io.stderr:write(tostring(err), "\n")
  local r = nvb.interrupted_result()
  if r then io.write(r:json()) end
  error(err, 0)
end
os.exit(1)
EOF
    d=$TMP/lua-search
    mkdir "$d"
    WAIT=wait_second_scratch interrupt lua-search TERM 0 "$d" "$LUA" "$TMP/features.lua" search "$d" "$DIRECT"
    check_partial "$TMP/lua-search.out"
    d=$TMP/lua-groups
    mkdir "$d"
    interrupt lua-groups TERM 0 "$d" "$LUA" "$TMP/features.lua" groups "$d" "$DIRECT"
    check_partial "$TMP/lua-groups.out"
    d=$TMP/fio
    WAIT=wait_reads interrupt lua-fio TERM 0 "$d/two" "$LUA" "$TMP/features.lua" fio "$d" "$DIRECT" \
        "$TMP/two-steps.fio"
    check_partial "$TMP/lua-fio.out"
    for sub in one three; do
        [ -z "$(ls -A "$d/$sub")" ] || { ls -la "$d/$sub" >&2; fail "lua-fio: $d/$sub not empty"; }
    done
else
    echo "note: lua5.4 or $LUA_MOD/nvbench.so missing (or a sanitizer build): Lua cases not run"
fi

echo "timings (signal to exit, seconds):"
cat "$TMP/timings"
