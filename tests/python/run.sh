#!/usr/bin/env bash
# CTest entry for the Python tests: install the package the documented way
# (a venv from Debian's /usr/bin/python3 with --system-site-packages, then
# `pip install --no-build-isolation .`, not editable) and run pytest on
# tests/python with that venv's interpreter, so what is tested is what a
# user installs, C extension included.
#
#   run.sh BUILD_DIR SOURCE_DIR      (exit 77: skipped, with the reason)
set -euo pipefail
build=$1
src=$2
py=/usr/bin/python3

skip() { echo "skipped: $*" >&2; exit 77; }
[ -x "$py" ] || skip "$py not found (Debian: apt-get install python3)"
"$py" -c 'import pytest' 2>/dev/null || skip "pytest missing for $py (apt-get install python3-pytest)"
"$py" -c 'import ensurepip, venv' 2>/dev/null || skip "venv missing for $py (apt-get install python3-venv)"
"$py" -c 'import setuptools, wheel' 2>/dev/null || skip "setuptools/wheel missing (apt-get install python3-setuptools python3-wheel)"

venv=$build/python-venv
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv --system-site-packages "$venv"
fi
# The C library is built by setup.py's CMake step in a tree of its own here,
# incremental from one ctest run to the next.
NVBENCH_BUILD_BASE=$build/python-build \
  "$venv/bin/pip" install --no-build-isolation --no-deps --force-reinstall --quiet --disable-pip-version-check "$src"

# test_notebook installs the package once more, in a fresh venv of its own: from the same
# build tree, so that build is incremental too
export NVB_PY_BUILD_BASE=$build/python-build
cd "$build"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/tests/python"
