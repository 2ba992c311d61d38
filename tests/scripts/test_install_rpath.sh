#!/usr/bin/env bash
# An install under any prefix runs without LD_LIBRARY_PATH: `cmake --install --prefix` into a
# scratch directory, then the installed C examples (<prefix>/libexec/nvbench/run_workload)
# find the installed libnvbench.so.0 through their RPATH ($ORIGIN/../../lib), not through the
# build tree or the loader's environment.
#   bash test_install_rpath.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "${NVB_SANITIZER:-}" ] && skip "sanitizer build: the installed programs need the sanitizer runtime"
[ -f "$BUILD/run_workload" ] || [ -f "$BUILD/examples/c/run_workload" ] || skip "the C examples are not built (NVB_BUILD_EXAMPLES=OFF)"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$BUILD/CMakeCache.txt")
libexecdir=$(sed -n 's/^CMAKE_INSTALL_LIBEXECDIR:PATH=//p' "$BUILD/CMakeCache.txt")
: "${libdir:=lib}" "${libexecdir:=libexec}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvb-install-rpath.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# a prefix with a space: $ORIGIN needs no quoting, an absolute path would
prefix="$tmp/my prefix"
cmake --install "$BUILD" --prefix "$prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "cmake --install"; }
exe="$prefix/$libexecdir/nvbench/run_workload"
[ -x "$exe" ] || fail "run_workload not installed in <prefix>/$libexecdir/nvbench"
[ -f "$prefix/$libdir/libnvbench.so.0" ] || fail "libnvbench.so.0 not installed in <prefix>/$libdir"

# the loader's answer: the installed library, with no LD_LIBRARY_PATH
where=$(env -u LD_LIBRARY_PATH ldd "$exe" | sed -n 's/^[[:space:]]*libnvbench\.so\.0 => \(.*\) (0x[0-9a-f]*)$/\1/p')
[ -n "$where" ] && [ "$(cd "$(dirname "$where")" && pwd -P)" = "$(cd "$prefix/$libdir" && pwd -P)" ] || \
    fail "installed run_workload loads libnvbench.so.0 from '${where:-nowhere}', not <prefix>/$libdir"
mkdir "$tmp/data"
out=$(cd "$tmp" && env -u LD_LIBRARY_PATH "$exe" engine=null rw=randread bs=4k ios=100 "$tmp/data" 2> "$tmp/err") || \
    { cat "$tmp/err" >&2; fail "installed run_workload did not run"; }
python3 - "$out" <<'PY' || fail "installed run_workload: no result of 100 reads"
import json, sys
d = json.loads(sys.argv[1])
assert d["read"]["ios"] == 100, d["read"]
PY
echo "ok: installed run_workload ran with no LD_LIBRARY_PATH, libnvbench.so.0 from <prefix>/$libdir"
