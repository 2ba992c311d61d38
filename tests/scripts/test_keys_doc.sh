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

# The files each "How to add ..." section of docs/architecture.md names
# exist (a move or a split of one of them must update the list), and each
# names at least one.
python3 - "$SRC" <<'PY'
import os, re, sys
src = sys.argv[1]
text = open(os.path.join(src, "docs/architecture.md"), encoding="utf-8").read()
sections = re.findall(r"^## (How to add [^\n]*)\n(.*?)(?=^## |\Z)", text, re.S | re.M)
want = {"How to add a key", "How to add a figure", "How to add an engine", "How to add a front door"}
lacking = want - {t for t, _ in sections}
if lacking:
    sys.exit(f"docs/architecture.md: no section {sorted(lacking)}")
bad = []
for title, body in sections:
    paths = sorted(set(re.findall(r"`((?:libnvbench|docs|tests|bindings|include|tools)/[\w./-]+\.\w+)`", body)))
    paths = [p for p in paths if "NAME" not in p]  # a placeholder: the new engine's file
    missing = [p for p in paths if not os.path.exists(os.path.join(src, p))]
    if missing or not paths:
        bad.append(f"'{title}' names files that do not exist: {missing or 'none named'}")
    else:
        print(f"docs/architecture.md: the {len(paths)} files '{title}' names exist")
if bad:
    sys.exit("docs/architecture.md: " + "; ".join(bad))
PY
