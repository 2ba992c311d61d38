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
