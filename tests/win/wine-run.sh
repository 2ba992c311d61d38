#!/bin/sh
# Run one cross-built Windows program under wine, for CTest
# (CMAKE_CROSSCOMPILING_EMULATOR, set by cmake/mingw-w64-x86_64.cmake).
#
#   wine-run.sh PROGRAM.exe [ARGS...]
#
# - The prefix is NVB_WINEPREFIX (default ~/.cache/nvbench/wine64): created
#   once (about 5 s and 700 MB) and shared by every test; creation is
#   serialised with flock, since two wines initialising one prefix at
#   once corrupt it.
# - wine's background processes (wineserver, services.exe, explorer...)
#   are started first with their output discarded: a test's wine would
#   otherwise start them with the test's stdout and stderr, and they
#   outlive the test, holding CTest's pipe open until they exit.
# - NVB_DLL_DIR (optional): a directory searched for DLLs (WINEPATH), for
#   programs linked against libnvbench.dll.
# Exit status: the program's.
set -eu

prefix=${NVB_WINEPREFIX:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/nvbench/wine64}
export WINEPREFIX="$prefix"
export WINEDEBUG=${WINEDEBUG:--all}
# no Mono/Gecko installer dialogs, no display needed
export WINEDLLOVERRIDES="mscoree,mshtml=;${WINEDLLOVERRIDES:-}"
unset DISPLAY WAYLAND_DISPLAY

wine=$(command -v wine64 || command -v wine || true)
if [ -z "$wine" ]; then
    echo "wine-run.sh: wine is not installed (Debian: apt-get install wine wine64)" >&2
    exit 77
fi

mkdir -p "$(dirname "$prefix")"
(
    flock 9
    if [ ! -f "$prefix/system.reg" ]; then
        "$wine" wineboot --init </dev/null >/dev/null 2>&1 9>&- || true
    fi
    # A persistent server (it exits 60 s after the last client) and the
    # services wineboot starts, all detached from our output and from the
    # lock (fd 9), which they would otherwise hold for as long as they run.
    wineserver -p60 </dev/null >/dev/null 2>&1 9>&- || true
    "$wine" cmd /c exit 0 </dev/null >/dev/null 2>&1 9>&- || true
) 9>"$prefix.lock"

if [ -n "${NVB_DLL_DIR:-}" ]; then
    export WINEPATH="Z:$(printf '%s' "$NVB_DLL_DIR" | tr / '\\')${WINEPATH:+;$WINEPATH}"
fi
exec "$wine" "$@"
