#!/bin/bash
# The Windows package as a user gets it (make dist-win, docs/windows.md):
#   test_dist.sh ZIP OBJDUMP OUT_DIR
# - the zip holds one folder with exactly the files the programs and a C
#   user need, nothing else;
# - every DLL its programs import is Windows' own or libnvbench.dll, which
#   is beside them; check_imports.sh holds their functions to the list;
# - unpacked into an empty directory, seed_matrix.exe runs from there under
#   wine (no WINEPATH: the DLL must be found beside it) on a scratch
#   directory with short runtimes and wine's engines, once per Windows
#   stack stated with --stack (wine has no disk driver to detect), and
#   writes {"results": [...]} that the result schema accepts, each result
#   carrying the stated stack, the OS, the CPU model, the disk facts' keys.
# The two JSON files are left in OUT_DIR for win_dist_compare.
set -euo pipefail
zip=$1 objdump=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
name=$(basename "$zip" .zip)
# Debian's interpreter first: it has python3-jsonschema (make deps-test)
host_py=$(command -v /usr/bin/python3 || command -v python3)

work=$(mktemp -d "${TMPDIR:-/tmp}/nvb-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/unpacked" "$work/scratch"
(cd "$work/unpacked" && unzip -q "$zip")

# exactly these files, in one folder
want="README-windows.txt libnvbench.dll libnvbench.dll.a nvbench nvbench/seed.h nvbench/value.h nvbench.h run-seed-matrix.ps1 run_workload.exe seed_matrix.exe"
got=$(cd "$work/unpacked" && find . -mindepth 1 | sed 's|^\./||' | sort | tr '\n' ' ')
expect=$(for f in $want; do echo "$name/$f"; done | { echo "$name"; cat; } | sort | tr '\n' ' ')
if [ "$got" != "$expect" ]; then
    echo "FAIL: the zip holds: $got"
    echo "      expected:      $expect"
    exit 1
fi
echo "ok: the zip holds $name/ with $want"
pkg=$work/unpacked/$name
grep -q '@VERSION@' "$pkg/README-windows.txt" && { echo "FAIL: README-windows.txt has no version"; exit 1; }

# imports: Windows' own DLLs, and libnvbench.dll from the package
system='^(KERNEL32|ADVAPI32|SETUPAPI|msvcrt)\.dll$'
for f in "$pkg"/*.exe "$pkg"/*.dll; do
    for dll in $("$objdump" -p "$f" | awk '/DLL Name:/ { print $3 }'); do
        if [[ $dll =~ $system ]]; then continue; fi
        if [ "$dll" = libnvbench.dll ] && [ "${f##*.}" = exe ]; then continue; fi
        echo "FAIL: $(basename "$f") imports $dll, which is neither Windows' own nor in the package"
        exit 1
    done
done
bash "$here/check_imports.sh" "$objdump" "$pkg"/*.exe "$pkg"/*.dll | tail -n 1

# the programs run from the unpacked folder, the DLL found beside them
scratch="Z:$(printf '%s' "$work/scratch" | tr / '\\')"
mkdir -p "$out"
rm -f "$out"/win-*.json
for stack in windows_native windows_non_native; do
    json=$out/win-${stack//_/-}.json
    (cd "$pkg" && env -u NVB_DLL_DIR -u WINEPATH "$here/wine-run.sh" ./seed_matrix.exe --json "seed.json" \
        --runtime 100ms --size 8M --engines wsync,iocp --stack "$stack" "$scratch" >"$work/table.txt" 2>"$work/err.txt") || {
        echo "FAIL: seed_matrix.exe --stack $stack failed:"; cat "$work/err.txt"; exit 1; }
    mv "$pkg/seed.json" "$json"
    grep -q 'Sequential 128K write' "$work/table.txt" || { echo "FAIL: no seed table printed"; cat "$work/table.txt"; exit 1; }
    "$host_py" - "$json" "$stack" "$src/docs/result.schema.json" <<'PY'
import json, sys
path, stack, schema = sys.argv[1:]
results = json.load(open(path))["results"]
assert len(results) == 16, f"{len(results)} results, expected 8 cells x 2 engines"
assert {r["engine"] for r in results} == {"wsync", "iocp"}
try:
    import jsonschema
    s = json.load(open(schema))
    for r in results:
        jsonschema.validate(r, s)
except ImportError:
    print("  (python3-jsonschema missing: the schema was not checked)")
for r in results:
    u = r["engine_used"]
    assert u["stack"] == stack and u["stack_source"] == "stated", u
    assert u["stack_detected"] == "unknown", u  # wine: no disk driver to find
    assert u["os"] and u["cpu_model"], u
    assert "disk_model" in u and "disk_driver" in u, u
    assert r["cpu"]["ncpus"] >= 1 and r["error"] is None, r["error"]
# I/O was done through each engine (a 100 ms run under a busy wine may end before its first I/O)
for e in ("wsync", "iocp"):
    assert sum(r["read"]["ios"] + r["write"]["ios"] for r in results if r["engine"] == e) > 0, e
print(f"  ok: {path}: 16 results on {stack} (stated), os {results[0]['engine_used']['os']!r}")
PY
done
echo "1 passed, 0 failed"
