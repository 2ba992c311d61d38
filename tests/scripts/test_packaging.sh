#!/usr/bin/env bash
# The Python package as a user gets it, offline, each in a fresh venv made
# from Debian's python3 (--system-site-packages: setuptools, wheel, the
# analysis packages), run from a directory outside the checkout:
#  (a) the source distribution (python3 -m build --sdist --no-isolation,
#      or setup.py sdist without python3-build) holds what building needs:
#      CMakeLists.txt, cmake/, every file git tracks under libnvbench/ and
#      include/, the extension's C source;
#  (b) `pip install --no-build-isolation` of that sdist builds and installs,
#      and the installed nvbench runs a null-engine workload;
#  (c) the wheel built from the sdist is self-contained: the library is
#      linked into the extension (no libnvbench.so needed), and it runs
#      without LD_LIBRARY_PATH;
#  (d) `make kernel VENV=<that venv>` registers the kernel the notebook
#      names inside the venv, and the notebook runs under nbclient started
#      from Debian's python3, as a Jupyter outside the venv would, on saved
#      results (the kernel is found through JUPYTER_PATH, as `make
#      notebook` sets it; the old "python3" kernel failed with "No module
#      named 'nvbench'").
# It builds the C library twice (sdist install, wheel): a minute or more.
#
#   bash test_packaging.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
PY=/usr/bin/python3

skip() { echo "SKIP: $*" >&2; exit 77; }
FAILS=()
SKIPS=()
bad() { echo "  FAIL: $*"; FAILS+=("$*"); }
ok() { echo "  ok: $*"; }

[ -x "$PY" ] || skip "$PY not found"
"$PY" -c 'import ensurepip, venv' 2> /dev/null || skip "venv missing for $PY (apt-get install python3-venv)"
"$PY" -c 'import setuptools, wheel' 2> /dev/null || skip "setuptools/wheel missing (apt-get install python3-setuptools python3-wheel)"
command -v cmake > /dev/null || skip "cmake not found"
[ -z "${NVB_SANITIZER:-}" ] || skip "sanitizer build: the package builds its own library, uninstrumented"

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/packaging.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Offline, and nothing written outside $TMP (pip's cache, Jupyter's dirs).
export HOME=$TMP/home PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
unset LD_LIBRARY_PATH PYTHONPATH JUPYTER_PATH NVBENCH_BUILD_BASE PKG_CONFIG_PATH || true
mkdir -p "$HOME" "$TMP/elsewhere"
head -c 4194304 /dev/urandom > "$TMP/elsewhere/target"

echo "(a) the source distribution"
# A copy of the checkout, so that building the sdist writes nothing into it.
tar -C "$SRC" --exclude=./.git --exclude='./build*' --exclude=./.venv --exclude='*.egg-info' \
    --exclude=__pycache__ -cf - . | { mkdir -p "$TMP/src" && tar -C "$TMP/src" -xf -; }
if "$PY" -c 'import build' 2> /dev/null; then
    (cd "$TMP/src" && "$PY" -m build --sdist --no-isolation --outdir "$TMP/dist" . > "$TMP/sdist.log" 2>&1) ||
        { cat "$TMP/sdist.log"; bad "python3 -m build --sdist --no-isolation failed"; }
else
    echo "  note: python3-build not installed: setup.py sdist"
    (cd "$TMP/src" && "$PY" setup.py -q sdist -d "$TMP/dist" > "$TMP/sdist.log" 2>&1) ||
        { cat "$TMP/sdist.log"; bad "setup.py sdist failed"; }
fi
SDIST=$(ls "$TMP"/dist/nvbench-*.tar.gz 2> /dev/null | head -n 1 || true)
[ -n "$SDIST" ] || { echo "FAIL: no sdist built"; exit 1; }
tar -tzf "$SDIST" | sed 's|^[^/]*/||' | grep -v '/$' | sort > "$TMP/sdist.files"
echo "  $(basename "$SDIST"): $(wc -l < "$TMP/sdist.files") files"
for f in CMakeLists.txt cmake/nvbenchConfig.cmake.in include/nvbench.h libnvbench/libnvbench.map \
         libnvbench/nvbench.pc.in bindings/python/src/_nvbench.c setup.py pyproject.toml; do
    grep -qxF "$f" "$TMP/sdist.files" || bad "the sdist has no $f"
done
if command -v git > /dev/null && git -C "$SRC" rev-parse --git-dir > /dev/null 2>&1; then
    git -C "$SRC" ls-files libnvbench include cmake bindings/python | sort > "$TMP/tracked.files"
    missing=$(comm -23 "$TMP/tracked.files" "$TMP/sdist.files" | tr '\n' ' ')
    [ -z "$missing" ] && ok "every tracked file of libnvbench/, include/, cmake/, bindings/python/ is in it" ||
        bad "tracked files missing from the sdist (MANIFEST.in): $missing"
fi

# check_run NAME VENV: the venv's nvbench, from elsewhere, with no
# LD_LIBRARY_PATH: a null-engine run of 1000 reads, imported from the venv.
check_run() {
    local name=$1 venv=$2 out
    if out=$(cd "$TMP/elsewhere" && env -u LD_LIBRARY_PATH "$venv/bin/nvbench" run engine=null rw=randread \
                 ios=1000 --json "$TMP/$name.json" target 2>&1 > /dev/null); then
        if "$venv/bin/python" - "$TMP/$name.json" "$venv" <<'PY'
import json, os, sys
import nvbench
r = json.load(open(sys.argv[1]))["results"][0]
assert r["engine"] == "null" and r["read"]["ios"] == 1000, (r["engine"], r["read"]["ios"])
where = os.path.realpath(nvbench.__file__)
assert where.startswith(os.path.realpath(sys.argv[2]) + os.sep), f"nvbench imported from {where}"
PY
        then
            ok "$name: nvbench run (null engine) did 1000 reads, package from the venv"
        else
            bad "$name: the run's result or the imported package is not the expected one"
        fi
    else
        bad "$name: nvbench run failed: $out"
    fi
}

echo "(b) pip install of the sdist in a fresh venv"
"$PY" -m venv --system-site-packages "$TMP/venv-sdist"
if "$TMP/venv-sdist/bin/pip" install --no-build-isolation --no-deps -q "$SDIST" > "$TMP/pip-sdist.log" 2>&1; then
    ok "pip install --no-build-isolation $(basename "$SDIST")"
    check_run sdist "$TMP/venv-sdist"
else
    tail -n 30 "$TMP/pip-sdist.log"
    bad "pip install --no-build-isolation of the sdist failed"
fi

echo "(c) the wheel, self-contained"
if "$TMP/venv-sdist/bin/pip" wheel --no-build-isolation --no-deps -q -w "$TMP/wheels" "$SDIST" \
        > "$TMP/pip-wheel.log" 2>&1; then
    WHEEL=$(ls "$TMP"/wheels/nvbench-*.whl | head -n 1)
    ok "built $(basename "$WHEEL")"
    "$PY" -m zipfile -l "$WHEEL" > "$TMP/wheel.files"
    grep -Eq 'nvbench/_nvbench[^ ]*\.so' "$TMP/wheel.files" || bad "the wheel has no nvbench/_nvbench*.so"
    if grep -q 'libnvbench\.so' "$TMP/wheel.files"; then
        bad "the wheel ships libnvbench.so beside the extension instead of linking the library in"
    fi
    "$PY" -m venv --system-site-packages "$TMP/venv-wheel"
    if "$TMP/venv-wheel/bin/pip" install --no-deps -q "$WHEEL" > "$TMP/pip-install-wheel.log" 2>&1; then
        ext=$(ls "$TMP"/venv-wheel/lib/python3*/site-packages/nvbench/_nvbench*.so | head -n 1)
        if readelf -d "$ext" | grep -q 'NEEDED.*libnvbench'; then
            bad "the extension needs libnvbench.so at run time: $(readelf -d "$ext" | grep NEEDED | tr -s ' ')"
        else
            ok "$(basename "$ext") needs no libnvbench.so"
        fi
        check_run wheel "$TMP/venv-wheel"
    else
        cat "$TMP/pip-install-wheel.log"
        bad "pip install of the wheel failed"
    fi
else
    tail -n 30 "$TMP/pip-wheel.log"
    bad "pip wheel of the sdist failed"
fi

echo "(d) the notebook with the venv's kernel"
VENV=$TMP/venv-wheel
if ! "$PY" -c 'import nbclient, nbformat' 2> /dev/null ||
   ! "$VENV/bin/python" -c 'import ipykernel, pandas, matplotlib' 2> /dev/null; then
    SKIPS+=("the notebook: nbclient, nbformat, ipykernel, pandas or matplotlib missing")
elif [ ! -x "$VENV/bin/nvbench" ]; then
    bad "the notebook: no venv with the wheel installed (see above)"
elif ! make -s -C "$SRC" --no-print-directory kernel VENV="$VENV" > "$TMP/kernel.log" 2>&1; then
    cat "$TMP/kernel.log"
    bad "make kernel VENV=$VENV failed"
else
    spec=$VENV/share/jupyter/kernels/nvbench/kernel.json
    if [ -f "$spec" ] && grep -qF "\"$VENV/bin/python" "$spec"; then
        ok "make kernel: $spec runs $VENV/bin/python"
    else
        bad "make kernel did not write $spec for the venv's python: $(cat "$spec" 2> /dev/null)"
    fi
    # --sys-prefix: not the user's kernels (HOME is $TMP/home here)
    user_kernels=$(find "$HOME" -path '*/jupyter/kernels/*' 2> /dev/null | head -n 3 | tr '\n' ' ')
    [ -z "$user_kernels" ] || bad "make kernel wrote a kernel outside the venv: $user_kernels"
    if out=$(cd "$TMP/elsewhere" && JUPYTER_PATH=$VENV/share/jupyter JUPYTER_RUNTIME_DIR=$TMP/jupyter-runtime \
                 NVBENCH_RESULTS=$SRC/tests/data/seed_table/results.json MPLBACKEND=Agg \
                 "$PY" - "$SRC/examples/notebooks/seed_matrix.ipynb" 2>&1 <<'PY'
import sys
import nbclient, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
name = nb.metadata.kernelspec.name
# No kernel_name: the notebook's metadata chooses the kernel, as in Jupyter.
nbclient.NotebookClient(nb, timeout=300, resources={"metadata": {"path": "."}}).execute()
errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
          if o.output_type == "error"]
assert not errors, "".join(errors[0].get("traceback", []))
html = "".join(o.get("data", {}).get("text/html", "") for c in nb.cells if c.cell_type == "code"
               for o in c.get("outputs", []))
assert "Random 4K read" in html and "io_uring" in html, "no seed table in the outputs"
print(f"kernel {name!r}: {sum(c.cell_type == 'code' for c in nb.cells)} code cells ran")
PY
); then
        ok "the notebook ran under nbclient: ${out##*$'\n'}"
    else
        bad "the notebook failed with the venv's kernel: ${out: -3000}"
    fi
fi

if [ "${#FAILS[@]}" -gt 0 ]; then
    echo
    echo "FAIL: ${#FAILS[@]} packaging problem(s):"
    printf '  - %s\n' "${FAILS[@]}"
    exit 1
fi
if [ "${#SKIPS[@]}" -gt 0 ]; then
    printf 'SKIP: %s\n' "${SKIPS[@]}" >&2
    exit 77
fi
echo "PASS"
