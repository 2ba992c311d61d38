#!/usr/bin/env bash
# Interruption, end to end, for each way of running nvbench. Every front
# door exits 128 + the signal (130 SIGINT, 143 SIGTERM) after a clean stop:
#   - SIGINT and SIGTERM to run_workload (C example) during the run: the
#     exit status within one interval, the partial result printed and
#     parseable (cancelled, ECANCELED), the scratch file gone;
#   - SIGINT while a large scratch file is being laid out: the same, at once;
#   - python -m nvbench run (the venv the python test installs, if present),
#     SIGINT and SIGTERM during the run, SIGINT during the layout (the poll
#     hook reaches the layout);
#   - a Python script calling nvbench.run (SIGTERM: nvbench.Terminated with
#     the partial result) and one calling nvbench.seed_matrix;
#   - nvbench matrix, SIGTERM and SIGINT during a run: its temporary
#     directory removed, the partial result in --json;
#   - a lua5.4 script (when lua5.4 and the module are there), which saves
#     nvb.interrupted_result() as the partial result: SIGINT (lua5.4's
#     "interrupted!") and SIGTERM (the module's); examples/lua/seed_matrix.lua
#     under SIGTERM prints the table of what it did;
#   - SIGKILL leaves the scratch file behind; the next run in that directory
#     removes it, and only it (not a live process's, not look-alikes);
#     likewise a killed nvbench matrix's temporary directory and the next
#     nvbench matrix.
#
#   bash test_interrupt.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
set -euo pipefail

# shellcheck source=interrupt_common.sh
. "$(dirname "$0")/interrupt_common.sh" "$@"

# ---- C example
for sig in INT TERM; do
    d=$TMP/c-$sig
    mkdir "$d"
    interrupt "c-run-$sig" "$sig" 1.2 "$d" "$RUN" direct=$DIRECT engine=psync rw=randrw size=64M runtime=60s \
        interval=1s "$d"
    check_partial "$TMP/c-run-$sig.out"
done
if [ "$LAYOUT_OK" = 1 ]; then
    d=$TMP/c-layout
    mkdir "$d"
    interrupt c-layout INT 0.3 "$d" "$RUN" direct=$DIRECT engine=psync size=${big}M runtime=60s "$d"
    check_partial "$TMP/c-layout.out"
fi

# ---- Python: the installed package, if the python test has made its venv
if [ -x "$VENV_PY" ] && "$VENV_PY" -c 'import nvbench' 2> /dev/null; then
    d=$TMP/py-run
    mkdir "$d"
    interrupt py-run INT 1.2 "$d" "$VENV_PY" -m nvbench run --no-progress direct=$DIRECT engine=psync rw=randread \
        size=64M runtime=60s interval=1s "$d"
    check_partial "$TMP/py-run.out"
    grep -q 'cancelled: interrupted by SIGINT' "$TMP/py-run.out" || fail "py-run: the partial result does not name SIGINT"
    d=$TMP/py-run-term
    mkdir "$d"
    interrupt py-run-term TERM 1.2 "$d" "$VENV_PY" -m nvbench run --no-progress direct=$DIRECT engine=psync \
        rw=randread size=64M runtime=60s interval=1s "$d"
    check_partial "$TMP/py-run-term.out"
    grep -q 'cancelled: terminated by SIGTERM' "$TMP/py-run-term.out" || fail "py-run-term: the partial result does not name SIGTERM"
    grep -q 'terminated' "$TMP/py-run-term.err" || fail "py-run-term: stderr does not say it was terminated"

    # A script: nvbench.run turns SIGTERM into nvbench.Terminated (exit 143
    # once uncaught) carrying the partial result.
    cat > "$TMP/run.py" <<'EOF'
import json, sys
import nvbench
try:
    nvbench.run(sys.argv[1], engine="psync", rw="randread", size="64M", runtime=60, interval=1,
                direct=int(sys.argv[2]))
except nvbench.Terminated as e:
    print(json.dumps(e.result.data))
    raise
sys.exit(1)
EOF
    d=$TMP/py-script
    mkdir "$d"
    interrupt py-script TERM 1.2 "$d" "$VENV_PY" "$TMP/run.py" "$d" "$DIRECT"
    check_partial "$TMP/py-script.out"

    # A script calling seed_matrix: its temporary directory (under TMPDIR)
    # goes too; Terminated is not caught, the status is still 143.
    cat > "$TMP/seed.py" <<'EOF'
import sys
import nvbench
nvbench.seed_matrix(engines=["psync"], runtime=60, size="16M", direct=int(sys.argv[1]))
sys.exit(1)
EOF
    d=$TMP/py-seed
    mkdir "$d"
    WAIT=wait_matrix_run STOP_LIMIT=30 TMPDIR=$d interrupt py-seed TERM 0.5 "$d" "$VENV_PY" "$TMP/seed.py" "$DIRECT"

    # nvbench matrix (no direct=0 option: only where O_DIRECT works). The
    # bound is looser: the partial result is written through nvbench.results.
    if [ "$DIRECT" = 1 ]; then
        for sig in TERM INT; do
            d=$TMP/py-matrix-$sig
            mkdir "$d"
            WAIT=wait_matrix_run STOP_LIMIT=30 TMPDIR=$d interrupt "py-matrix-$sig" "$sig" 0.5 "$d" \
                "$VENV_PY" -m nvbench matrix --engines psync --runtime 60s --size 16M --no-progress \
                --json "$TMP/py-matrix-$sig.json"
            "$PY" - "$TMP/py-matrix-$sig.json" <<'EOF' || fail "nvbench matrix: no cancelled partial result in --json"
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
assert rs and rs[-1]["cancelled"] is True and rs[-1]["error"]["name"] == "ECANCELED", rs
EOF
        done

        # SIGKILL: the matrix's directory stays; the next matrix in that
        # TMPDIR removes it (and a fake dead one), and nothing else.
        d=$TMP/py-matrix-kill
        mkdir "$d"
        TMPDIR=$d spawn "$VENV_PY" -m nvbench matrix --engines psync --runtime 60s --size 8M --no-progress \
            > /dev/null 2>&1 &
        pid=$!
        PIDS+=("$pid")
        wait_matrix_run "$d" "$pid" || fail "matrix-kill: never got into the run"
        kill -KILL "$pid"
        wait "$pid" 2> /dev/null || true
        compgen -G "$d/nvbench-matrix-$pid-*/scratch" > /dev/null || fail "matrix-kill: SIGKILL left nothing to sweep"
        sleep 600 &
        live=$!
        PIDS+=("$live")
        sh -c 'exit 0' &
        dead=$!
        wait "$dead" || true
        mkdir "$d/nvbench-matrix-$dead-zz_9x8y7" "$d/nvbench-matrix-$live-abcd1234" \
              "$d/nvbench-matrix-$dead-abcd123" "$d/nvbench-matrix-$dead-abcd1234.bak" \
              "$d/.nvbench-matrix-$dead-abcd1234" "$d/nvbench-matrix-$dead-keep5678" "$d/elsewhere"
        head -c 65536 /dev/zero > "$d/nvbench-matrix-$dead-zz_9x8y7/scratch"
        touch "$d/nvbench-matrix-$live-abcd1234/scratch" "$d/nvbench-matrix-$dead-keep5678/scratch" \
              "$d/nvbench-matrix-$dead-keep5678/notes.txt" "$d/elsewhere/scratch"
        ln -s elsewhere "$d/nvbench-matrix-$dead-link5678"
        before=$(ls -A "$d" | wc -l)
        TMPDIR=$d "$VENV_PY" -m nvbench matrix --engines psync --runtime 50ms --size 4M --no-progress \
            > /dev/null 2> "$TMP/matrix-sweep.err" || { cat "$TMP/matrix-sweep.err" >&2; fail "the matrix after the kill failed"; }
        grep -q 'left by nvbench matrices that were killed' "$TMP/matrix-sweep.err" ||
            { cat "$TMP/matrix-sweep.err" >&2; fail "the matrix after the kill did not report the removal"; }
        compgen -G "$d/nvbench-matrix-$pid-*" > /dev/null && fail "matrix-kill: the killed matrix's directory was not removed"
        [ ! -e "$d/nvbench-matrix-$dead-zz_9x8y7" ] || fail "matrix-kill: a dead pid's directory was not removed"
        after=$(ls -A "$d" | wc -l)
        [ "$after" -eq $((before - 2)) ] || { ls -la "$d" >&2; fail "matrix-kill: $before entries before, $after after"; }
        for keep in "nvbench-matrix-$live-abcd1234/scratch" "nvbench-matrix-$dead-keep5678/scratch" \
                    "nvbench-matrix-$dead-keep5678/notes.txt" "elsewhere/scratch"; do
            [ -e "$d/$keep" ] || fail "matrix-kill: $keep was removed"
        done
        kill "$live" 2> /dev/null || true
        echo "ok matrix-kill: the next matrix removed the killed matrix's directory and a dead one, left $after look-alikes"
    else
        echo "note: no O_DIRECT under $TMP: the nvbench matrix cases are not run"
    fi
    if [ "$LAYOUT_OK" = 1 ]; then
        d=$TMP/py-layout
        mkdir "$d"
        interrupt py-layout INT 0.3 "$d" "$VENV_PY" -m nvbench run --no-progress direct=$DIRECT engine=psync \
            size=${big}M runtime=60s "$d"
        check_partial "$TMP/py-layout.out"
    fi
else
    echo "note: no Python venv with nvbench at $VENV_PY (the 'python' test makes it): Python cases not run"
fi

# ---- Lua: lua5.4's Ctrl-C and SIGTERM both end the script by the signal
LUA=$(command -v lua5.4 || true)
if [ -n "$LUA" ] && [ -f "$LUA_MOD/nvbench.so" ] && [ -z "${NVB_SANITIZER:-}" ]; then
    cat > "$TMP/interrupt.lua" <<'EOF'
local nvb = require "nvbench"
local dir, direct, size = arg[1], arg[2], arg[3]
local ok, err = pcall(nvb.run, { targets = { dir }, engine = "psync", rw = "randread", size = size,
                                 runtime = "60s", interval = "1s", direct = direct })
if not ok then
  io.stderr:write(tostring(err), "\n")
  local r = nvb.interrupted_result()
  if r then io.write(r:json()) end
  -- lua5.4's Ctrl-C ("interrupted!") and SIGTERM alike: the error goes on
  -- and the module ends the process by the signal (130, 143) when Lua closes
  error(err, 0)
end
print(ok, err)
os.exit(1)
EOF
    export LUA_CPATH="$LUA_MOD/?.so;;"
    d=$TMP/lua-run
    mkdir "$d"
    interrupt lua-run INT 1.2 "$d" "$LUA" "$TMP/interrupt.lua" "$d" "$DIRECT" 64M
    check_partial "$TMP/lua-run.out"
    d=$TMP/lua-run-term
    mkdir "$d"
    interrupt lua-run-term TERM 1.2 "$d" "$LUA" "$TMP/interrupt.lua" "$d" "$DIRECT" 64M
    check_partial "$TMP/lua-run-term.out"
    grep -q 'terminated by SIGTERM' "$TMP/lua-run-term.err" || fail "lua-run-term: no 'terminated by SIGTERM' error"
    # The example scenario (O_DIRECT only: it has no direct option): the
    # table of what was done is printed on the way out.
    if [ "$DIRECT" = 1 ]; then
        d=$TMP/lua-seed
        mkdir "$d"
        LUA_PATH="$SRC/bindings/lua/?.lua;;" interrupt lua-seed TERM 1.2 "$d" "$LUA" "$SRC/examples/lua/seed_matrix.lua" \
            --runtime 60s --engines psync --size 64M "$d"
        grep -q 'Random 4K read' "$TMP/lua-seed.out" || fail "lua-seed: no table printed after SIGTERM"
        # Ctrl-C: the same, with a message and no Lua stack trace
        d=$TMP/lua-seed-int
        mkdir "$d"
        LUA_PATH="$SRC/bindings/lua/?.lua;;" interrupt lua-seed-int INT 1.2 "$d" "$LUA" \
            "$SRC/examples/lua/seed_matrix.lua" --runtime 60s --engines psync --size 64M "$d"
        grep -q 'Random 4K read' "$TMP/lua-seed-int.out" || fail "lua-seed-int: no table printed after SIGINT"
        grep -q 'stopped after' "$TMP/lua-seed-int.err" || fail "lua-seed-int: no message on stderr"
        ! grep -q 'traceback' "$TMP/lua-seed-int.err" || { cat "$TMP/lua-seed-int.err" >&2; fail "lua-seed-int: a stack trace"; }
    fi
    if [ "$LAYOUT_OK" = 1 ]; then
        d=$TMP/lua-layout
        mkdir "$d"
        interrupt lua-layout INT 0.3 "$d" "$LUA" "$TMP/interrupt.lua" "$d" "$DIRECT" "${big}M"
        check_partial "$TMP/lua-layout.out"
    fi
else
    echo "note: lua5.4 or $LUA_MOD/nvbench.so missing (or a sanitizer build): Lua cases not run"
fi

# ---- SIGKILL: the scratch file stays; the next run removes it and nothing else
d=$TMP/killed
mkdir "$d"
spawn "$RUN" direct=$DIRECT engine=psync size=8M runtime=60s "$d" > /dev/null 2>&1 &
pid=$!
PIDS+=("$pid")
wait_scratch "$d" "$pid" || fail "killed: no scratch file appeared"
sleep 0.3
kill -KILL "$pid"
wait "$pid" 2> /dev/null || true
left=$(ls -A "$d")
case "$left" in
    .nvbench-scratch-"$pid"-*.tmp) echo "ok killed: SIGKILL left $left" ;;
    *) fail "killed: expected one scratch file of pid $pid, found: $left" ;;
esac
# look-alikes that must survive: a live process's file, near-miss names,
# a symlink with the exact pattern
sleep 600 &
live=$!
PIDS+=("$live")
sh -c 'exit 0' &
dead=$!
wait "$dead" || true
touch "$d/.nvbench-scratch-$live-0123456789abcdef.tmp" \
      "$d/.nvbench-scratch-$dead-0123456789abcde.tmp" \
      "$d/.nvbench-scratch-$dead-0123456789ABCDEF.tmp" \
      "$d/nvbench-scratch-$dead-0123456789abcdef.tmp" \
      "$d/.nvbench-scratch-$dead-0123456789abcdef.tmp.bak" \
      "$d/keep.txt"
ln -s keep.txt "$d/.nvbench-scratch-$dead-fedcba9876543210.tmp"
before=$(ls -A "$d" | wc -l)
"$RUN" direct=$DIRECT engine=psync size=1M ios=16 "$d" > "$TMP/after-kill.json"
"$PY" - "$TMP/after-kill.json" <<'EOF' || fail "the run after the kill did not report the removal"
import json, sys
r = json.load(open(sys.argv[1]))
assert any("left by runs that were killed" in w for w in r["warnings"]), r["warnings"]
EOF
compgen -G "$d/.nvbench-scratch-$pid-*.tmp" > /dev/null && fail "killed: the stale scratch file of pid $pid was not removed"
after=$(ls -A "$d" | wc -l)
[ "$after" -eq $((before - 1)) ] || { ls -la "$d" >&2; fail "killed: $before entries before, $after after: removed more than the stale file"; }
[ -e "$d/.nvbench-scratch-$live-0123456789abcdef.tmp" ] || fail "a live process's scratch file was removed"
kill "$live" 2> /dev/null || true
echo "ok killed: the next run removed the stale scratch file and left the $after look-alikes"

echo "timings (signal to exit, seconds):"
cat "$TMP/timings"
