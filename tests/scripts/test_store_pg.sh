#!/usr/bin/env bash
# The results store on a real PostgreSQL server (tests/python/test_store_pg.py), with the
# package the python test installed: a skip there (no server binaries, no psycopg2) is
# exit 77 here, with the reason; anything else that stops the server is a failure.
#   test_store_pg.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
skip() { echo "skipped: $*" >&2; exit 77; }
bin=${NVB_PG_BIN:-/usr/lib/postgresql/15/bin}
[ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] || skip "$bin/initdb and pg_ctl not found (Debian: apt-get install postgresql-15)"
py=$build/tests/python-venv/bin/python
[ -x "$py" ] || skip "$py missing: the python test makes it (ctest -R python first)"
"$py" -c 'import psycopg2' 2>/dev/null || skip "psycopg2 missing (Debian: apt-get install python3-psycopg2)"
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  skip "running as root and no postgres user to run the server as"
fi
cd "$build"
NVB_REQUIRE_PG=1 exec "$py" -m pytest -q -p no:cacheprovider "$src/tests/python/test_store_pg.py"
