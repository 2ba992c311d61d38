#!/usr/bin/env bash
# README.md and docs/*.md tested as code (tests/scripts/docs_code.py; the
# rules are in README.md, "Code in the docs is tested"): C programs built
# through the build tree's nvbench.pc and run on a scratch file, Python and
# Lua programs run, fragments compiled or parsed, and the nvbench and make
# commands the docs name checked to exist. Uses the venv the python test
# installs (for the Python programs and `nvbench X --help`) and lua5.4 with
# this build's module.
#
#   bash test_docs_code.sh BUILD_DIR SOURCE_DIR     (exit 77: a runtime missing)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
skip() { echo "SKIP: $*" >&2; exit 77; }

command -v pkg-config > /dev/null || skip "pkg-config not found"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not found"
[ -f "$BUILD/nvbench.pc" ] || skip "no $BUILD/nvbench.pc"

VENV_PY=${NVB_VENV_PY:-$BUILD/tests/python-venv/bin/python}
if ! [ -x "$VENV_PY" ] || ! "$VENV_PY" -c 'import nvbench._nvbench' 2> /dev/null; then
    VENV_PY=""
fi
LUA=""
if [ -z "${NVB_SANITIZER:-}" ] && [ -f "$BUILD/bindings/lua/nvbench.so" ]; then
    LUA=$(command -v lua5.4 || true)
fi
exec /usr/bin/python3 "$SRC/tests/scripts/docs_code.py" "$BUILD" "$SRC" "$VENV_PY" "$LUA"
