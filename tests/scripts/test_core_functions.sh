#!/usr/bin/env bash
# No function in libnvbench/core (its .c files and the inline functions of
# its headers) longer than 100 lines, counted as the
# structure check counts them: from an opening '{' at column 0 to the
# closing '}' at column 0. A function that long is a list of steps waiting
# for names (CONVENTIONS.md 16). KNOWN lists the ones still over, each to
# be split by the issue named beside it; one of them shrunk under the limit
# fails too, so that the list stays true.
#   test_core_functions.sh BUILD_DIR SOURCE_DIR
set -eu
SRC=${2:-$(dirname "$0")/../..}
KNOWN="" # none left (nvb_workload_set, job_loop and merge_into were split in issue 24/25)
/usr/bin/python3 - "$SRC" "$KNOWN" <<'PY'
import glob, os, re, sys
src, known = sys.argv[1], set(sys.argv[2].split())
over = {}
for f in sorted(glob.glob(os.path.join(src, 'libnvbench/core/*.[ch]'))):  # inline functions of headers too
    L = open(f).read().split('\n'); start = None
    for i, l in enumerate(L):
        if l.startswith('{'):
            start = i
        elif l.startswith('}') and start is not None:
            j = start - 1
            while j > 0 and '(' not in L[j]:
                j -= 1
            m = re.search(r'(\w+)\s*\(', L[j])
            if i - start + 1 > 100:
                over[m[1] if m else '?'] = f"{os.path.basename(f)}: {m[1] if m else '?'} {i - start + 1} lines"
            start = None
bad = [v for k, v in over.items() if k not in known]
gone = sorted(known - set(over))
for v in bad:
    print("over 100 lines:", v)
for k in gone:
    print(f"{k} is no longer over 100 lines: take it off KNOWN in {sys.argv[0]}")
sys.exit(1 if bad or gone else 0)
PY
