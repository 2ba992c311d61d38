#!/usr/bin/env bash
# The keys table of docs/api.md is the library's key table as it is now:
# docs/gen_keys.py, run against this build's libnvbench.so, would write the
# table that is checked in (a key added to libnvbench/core/keys.c, or a
# column changed there, without rerunning the generator fails here).
#
#   bash test_keys_doc.sh BUILD_DIR SOURCE_DIR     (exit 77: no shared library or python3)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
command -v python3 > /dev/null || { echo "SKIP: python3 not found" >&2; exit 77; }
SO=$BUILD/libnvbench.so.0
[ -f "$SO" ] || { echo "SKIP: no $SO (shared library not built)" >&2; exit 77; }
[ -z "${NVB_SANITIZER:-}" ] || { echo "SKIP: a sanitized library does not load into an uninstrumented python3" >&2; exit 77; }

python3 "$SRC/docs/gen_keys.py" --check "$SO" "$SRC/docs/api.md"

# The files docs/architecture.md's "How to add a key" names exist (a move
# or a split of one of them must update the list).
python3 - "$SRC" <<'PY'
import os, re, sys
src = sys.argv[1]
text = open(os.path.join(src, "docs/architecture.md"), encoding="utf-8").read()
m = re.search(r"^## How to add a key\n(.*?)(?=^## |\Z)", text, re.S | re.M)
if not m:
    sys.exit("docs/architecture.md: no section '## How to add a key'")
paths = sorted(set(re.findall(r"`((?:libnvbench|docs|tests|bindings)/[\w./-]+\.\w+)`", m.group(1))))
missing = [p for p in paths if not os.path.exists(os.path.join(src, p))]
if missing or not paths:
    sys.exit(f"docs/architecture.md 'How to add a key' names files that do not exist: {missing or 'none named'}")
print(f"docs/architecture.md: the {len(paths)} files 'How to add a key' names exist")
PY
