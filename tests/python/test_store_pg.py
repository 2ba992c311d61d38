"""The results store on a real PostgreSQL server (Debian's postgresql 15), started here in a
temporary directory on a private unix socket (no TCP): the same schema as SQLite, runs saved
and listed from the CLI, concurrent writers from several processes losing nothing, and a
server gone by the time the run ends: the run completes, its result is kept in a file the
error names, and `nvbench store import` takes it once the server is back.

Skipped, with the reason, where the server binaries or psycopg2 are missing
(apt-get install postgresql-15 python3-psycopg2); tests/scripts/test_store_pg.sh runs this
file with NVB_REQUIRE_PG=1, where a skip is a failure."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap

import pytest

from nvbench.store import open_store

PG_BIN = os.environ.get("NVB_PG_BIN", "/usr/lib/postgresql/15/bin")


def _skip(why):
    if os.environ.get("NVB_REQUIRE_PG"):
        pytest.fail(why)
    pytest.skip(why)


class Server:
    def __init__(self):
        if not os.access(os.path.join(PG_BIN, "initdb"), os.X_OK):
            _skip(f"{PG_BIN}/initdb not found (Debian: apt-get install postgresql-15)")
        try:
            import psycopg2  # noqa: F401
        except ImportError:
            _skip("psycopg2 missing (Debian: apt-get install python3-psycopg2)")
        # PostgreSQL refuses to run as root: as the postgres user then
        self.user = []
        if os.geteuid() == 0:
            if subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
                _skip("running as root and no postgres user to run the server as")
            self.user = ["runuser", "-u", "postgres", "--"]
        self.dir = tempfile.mkdtemp(prefix="nvb-pg-")
        if self.user:
            shutil.chown(self.dir, "postgres")
        self.data, self.sock = os.path.join(self.dir, "data"), os.path.join(self.dir, "sock")
        self._as(["mkdir", self.sock])
        self._as([f"{PG_BIN}/initdb", "-D", self.data, "--auth=trust", "-U", "nvb", "-E", "UTF8", "--no-sync"])
        self.start()
        self.n = 0

    def _as(self, cmd):
        p = subprocess.run(self.user + cmd, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {p.stdout}{p.stderr}")

    def start(self):
        self._as([f"{PG_BIN}/pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w", "-o",
                  f"-k {self.sock} -c listen_addresses='' -c fsync=off -c max_connections=50", "start"])

    def stop(self):
        self._as([f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"])

    def url(self, db="postgres"):
        return f"postgresql://nvb@/{db}?host={self.sock}"

    def fresh(self):
        """A database of its own for one test."""
        import psycopg2
        self.n += 1
        name = f"t{self.n}"
        con = psycopg2.connect(self.url())
        con.autocommit = True
        con.cursor().execute(f"CREATE DATABASE {name}")
        con.close()
        return self.url(name)


@pytest.fixture(scope="module")
def pg():
    s = Server()
    yield s
    try:
        s.stop()
    except RuntimeError:
        pass
    shutil.rmtree(s.dir, ignore_errors=True)


def cli(*args, env=None):
    e = dict(os.environ)
    e.pop("NVBENCH_DB", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "nvbench", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120, env=e)


def test_runs_saved_and_listed_with_the_schema_of_sqlite(pg, data_file, tmp_path):
    url = pg.fresh()
    p = cli("run", "engine=null", "rw=randread", "runtime=100ms", data_file, "--print-json", "--db", url,
            "--label", "fleet=a")
    assert p.returncode == 0, p.stderr
    printed = json.loads(p.stdout)
    h = cli("history", "--db", url, "--json", "--where", "label.fleet=a", "--where", f"host={printed['host']}")
    assert h.returncode == 0, h.stderr
    rows = json.loads(h.stdout)
    assert len(rows) == 1 and rows[0]["bs"] == 4096 and rows[0]["labels"] == {"fleet": "a"}
    with open_store(url) as st:
        stored = json.loads(st.query(with_result=True)[0]["result"])
        stored.pop("meta")
        assert stored == printed
        cur = st._conn.cursor()
        cur.execute("SELECT table_name, column_name FROM information_schema.columns "
                    "WHERE table_schema = current_schema()")
        pg_cols = sorted(cur.fetchall())
    lite = tmp_path / "l.db"
    with open_store(str(lite)):
        pass
    con = sqlite3.connect(lite)
    lite_cols = sorted((t, c[1]) for t in ("nvbench_meta", "runs", "run_labels", "point_streams", "points")
                       for c in con.execute(f"PRAGMA table_info({t})"))
    assert pg_cols == lite_cols
    # hostile values are values here too
    for v in ("x' OR '1'='1", "x'; DROP TABLE runs; --"):
        assert json.loads(cli("history", "--db", url, "--json", "--where", f"host={v}").stdout) == []
    with open_store(url) as st:
        assert st.count() == 1


WRITER = textwrap.dedent("""
    import sys
    import nvbench
    from nvbench import store
    r = nvbench.load(sys.argv[2])[0]
    st = store.open_store(sys.argv[1])
    for i in range(int(sys.argv[4])):
        st.save(r, [("writer", sys.argv[3]), ("i", str(i))])
""")


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_concurrent_writers_lose_nothing(kind, pg, data_file, tmp_path):
    import nvbench
    res = tmp_path / "r.json"
    nvbench.ResultSet([nvbench.run(data_file, engine="null", runtime="50ms")]).save(str(res))
    url = pg.fresh() if kind == "postgresql" else str(tmp_path / "c.db")
    writers, each = 4, 25
    # a store none of them has made yet: they also race to create the schema
    from test_store_points import run_writers
    run_writers(WRITER, url, res, writers, each)
    with open_store(url) as st:
        rows = st.query()
    assert len(rows) == writers * each and len({r["id"] for r in rows}) == writers * each
    got = sorted((r["labels"]["writer"], int(r["labels"]["i"])) for r in rows)
    assert got == sorted((str(w), i) for w in range(writers) for i in range(each))


def test_a_server_gone_keeps_the_result_to_import(pg, data_file, tmp_path):
    url = pg.fresh()
    with open_store(url):
        pass
    home = tmp_path / "home"
    home.mkdir()
    pg.stop()
    try:
        p = cli("run", "engine=null", "runtime=100ms", data_file, "--print-json", "--db", url,
                env={"HOME": str(home), "XDG_DATA_HOME": ""})
    finally:
        pg.start()
    assert p.returncode == 1
    assert json.loads(p.stdout)["schema"] == "nvbench.result/1"  # the run completed and was printed
    assert f"store {url}" in p.stderr, p.stderr
    assert "time-series points not stored (the result keeps its series)" in p.stderr, p.stderr
    kept = p.stderr.split("the results are kept in ")[1].split(":")[0]
    assert kept.startswith(str(home)) and f"nvbench store import {kept} --db {url}" in p.stderr
    i = cli("store", "import", kept, "--db", url)
    assert i.returncode == 0, i.stderr
    with open_store(url) as st:
        assert st.count() == 1


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_concurrent_point_writers_lose_nothing(kind, pg, data_file, tmp_path):
    import nvbench
    from test_store_points import check_points_of_writers, run_points_writers
    res = tmp_path / "r.json"
    r = nvbench.run(data_file, engine="null", runtime="300ms", interval="50ms")
    nvbench.ResultSet([r]).save(str(res))
    url = pg.fresh() if kind == "postgresql" else str(tmp_path / "c.db")
    rows, pts = run_points_writers(url, res, 4, 10)
    check_points_of_writers(rows, pts, 4, 10, len(r.data["timeseries"]))


def test_a_store_of_schema_2_is_migrated(pg, data_file, tmp_path):
    import psycopg2
    from nvbench import store
    url = pg.fresh()
    con = psycopg2.connect(url)
    con.autocommit = True
    cur = con.cursor()
    for stmt in store._ddl(True, 2):  # the previous schema, as nvbench made it
        cur.execute(stmt)
    cur.execute("INSERT INTO nvbench_meta (key, value) VALUES ('schema_version', '2')")
    cur.execute("INSERT INTO runs (host, start_unix_ns, result) VALUES ('old-host', 1, '{}')")
    con.close()
    p = cli("run", "engine=null", "runtime=200ms", "interval=50ms", data_file, "--print-json", "--db", url)
    assert p.returncode == 0, p.stderr
    with open_store(url, create=False) as st:
        assert st.version == 4
        old, new = st.query()
        assert old["host"] == "old-host" and st.points([old["id"]]) == []
        pts = st.points([new["id"]])
    assert len(pts) >= 1 and sum(x["read_ios"] for x in pts) == json.loads(p.stdout)["read"]["ios"]


def test_a_server_gone_mid_run_costs_the_points_only(pg, data_file, tmp_path):
    """The server stops while the run goes on (after its first point was streamed): the run
    completes, its result is kept to import, the points not written are counted."""
    url = pg.fresh()
    home = tmp_path / "home"
    home.mkdir()
    e = dict(os.environ, HOME=str(home), XDG_DATA_HOME="")
    e.pop("NVBENCH_DB", None)
    p = subprocess.Popen([sys.executable, "-m", "nvbench", "run", "engine=null", "runtime=3", "interval=100ms",
                          data_file, "--live", "-", "--db", url, "--no-progress", "--print-json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    try:
        first = p.stdout.readline()
        assert first.startswith("{") and ',"progress":' in first
        pg.stop()
        try:
            rest, err = p.communicate(timeout=120)
        finally:
            pg.start()
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 1
    result = json.loads(rest.splitlines()[-1])
    assert result["read"]["ios"] > 0 and not result.get("cancelled")
    assert "time-series points not stored" in err and f"store {url}" in err, err
    kept = err.split("the results are kept in ")[1].split(":")[0]
    assert os.path.exists(kept)


def test_a_search_saves_each_run_as_it_ends_with_its_points(pg, tmp_path):
    """The point writer's thread saves each run of a search (its row, labels and points in one
    transaction) on PostgreSQL as on SQLite."""
    url = pg.fresh()
    live = tmp_path / "s.jsonl"
    p = cli("search", "engine=null", "rw=randread", "runtime=200ms", "interval=50ms", "--latency", "p99<=1s",
            "--max-runs", "2", "--live", str(live), "--db", url, "--label", "fleet=a")
    assert p.returncode == 0, p.stderr
    assert "saved 2 runs in store" in p.stderr
    lines = [json.loads(x) for x in live.read_text().splitlines()]
    with open_store(url) as st:
        runs = st.query()
        assert [r["qd"] for r in runs] == [1, 2] and all(r["labels"] == {"fleet": "a"} for r in runs)
        for step, r in enumerate(runs, 1):
            pts = st.points([r["id"]])
            mine = [x for x in lines if x["progress"]["step"] == step]
            assert [x["t_unix_ns"] for x in pts] == [x["t_unix_ns"] for x in mine] and pts
            assert {x["label"] for x in pts} == {f"qd={r['qd']}"}


def test_mpi_run_ranks_stream_their_points_to_one_server(pg, tmp_path):
    """mpi-run --db postgresql://...: the 4 ranks each write their points to the server as
    they are measured, and the merged run rank 0 saves carries them all (test_mpi.py's
    checks: each rank's count and figures, their sums the merged series)."""
    from test_mpi import MPIRUN, HAVE_MPI4PY, _env, check_rank_streams, mpi_run_saving
    if not (MPIRUN and HAVE_MPI4PY):
        pytest.skip("needs mpirun and mpi4py (apt-get install openmpi-bin python3-mpi4py)")
    url = pg.fresh()
    for r in range(4):
        (tmp_path / f"r{r}").mkdir()
    p = subprocess.run(mpi_run_saving(tmp_path, url, "--live", str(tmp_path / "live-{rank}.jsonl")),
                       capture_output=True, text=True, timeout=180, env=_env())
    assert p.returncode == 0, p.stderr
    check_rank_streams(url, p, tmp_path)


def test_a_store_of_schema_3_keeps_percentiles_exactly_once_migrated(pg, data_file, tmp_path):
    """Schema 3 kept the points' percentiles in BIGINT columns on PostgreSQL, which rounded a
    bucket's midpoint (x.5 ns); version 4 makes them doubles: stored as the --live line has them."""
    import psycopg2
    from nvbench import _points
    url = pg.fresh()
    with open_store(url):
        pass
    con = psycopg2.connect(url)
    con.autocommit = True
    cur = con.cursor()
    for c in _points.PCT_COLUMNS:  # back to version 3's columns
        cur.execute(f"ALTER TABLE points ALTER COLUMN {c} TYPE BIGINT")
    cur.execute("UPDATE nvbench_meta SET value = '3' WHERE key = 'schema_version'")
    live = tmp_path / "live.jsonl"
    # psync's latencies (microseconds) fall in buckets wider than 1 ns, whose midpoints end in .5
    p = cli("run", "engine=psync", "rw=randrw", "runtime=300ms", "interval=50ms", data_file, "--print-json", "--db", url,
            "--live", str(live))
    assert p.returncode == 0, p.stderr
    cur.execute("SELECT DISTINCT data_type FROM information_schema.columns WHERE table_name = 'points' AND "
                "column_name LIKE '%%_p%%_ns'")
    assert cur.fetchall() == [("double precision",)]
    con.close()
    with open_store(url, create=False) as st:
        assert st.version == 4
        (run,) = st.query()
        pts = st.points([run["id"]])
    lines = [json.loads(x.rpartition(',"progress":')[0] + "}") for x in live.read_text().splitlines()]
    want = [(x[d].get("p50"), x[d].get("p99"), x[d].get("p99.9")) for x in lines for d in ("read", "write")]
    assert [(x[f"{d}_p50_ns"], x[f"{d}_p99_ns"], x[f"{d}_p99_9_ns"]) for x in pts for d in ("read", "write")] == want
    assert any(v is not None and v != int(v) for t in want for v in t)  # some midpoints: the case rounded before


def test_lua_reads_a_postgresql_store(pg, data_file, tmp_path):
    """Lua's reader takes the server's URL as it takes a file: the same runs, labels, whole
    results and points as Python reads, and hostile filter values stay values."""
    from conftest import lua_env
    from test_store import LUA_READ
    env = lua_env()
    if env is None or not shutil.which("lua5.4") or not shutil.which("psql"):
        pytest.skip("needs lua5.4, psql and the built Lua module (nvbench.so)")
    url = pg.fresh()
    for ci in ("1", "2", "2", "2"):
        p = cli("run", "engine=null", "rw=randread", "bs=4k", "runtime=100ms", "interval=20ms", data_file,
                "--db", url, "--label", f"ci={ci}")
        assert p.returncode == 0, p.stderr
    script = tmp_path / "read.lua"
    script.write_text(LUA_READ)
    p = subprocess.run(["lua5.4", str(script), url, "2", "2"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    with open_store(url) as st:
        runs = st.query([("label.ci", "2")], last=2, with_result=True)
        want = [f"{r['id']} {r['host']} {r['rw']} {r['iops']:.17g} 2 {json.loads(r['result'])['start_unix_ns']}"
                for r in runs]
    assert len(want) == 2 and p.stdout.split("\n")[:-1] == want
    for hostile in ("2' OR '1'='1", "'; DROP TABLE runs; --", "$(touch pwned)"):
        q = subprocess.run(["lua5.4", str(script), url, hostile, "10"], capture_output=True, text=True,
                           env=env, cwd=tmp_path)
        assert q.returncode == 0 and q.stdout == "\n", q.stderr
    assert not (tmp_path / "pwned").exists()
    # the points, as Python reads them
    pts = textwrap.dedent("""
        local h = require "nvbench.history"
        local rows = assert(h.points(arg[1], math.tointeger(tonumber(arg[2]))))
        for _, r in ipairs(rows) do print(r.idx, r.label, r.read_ios) end
    """)
    (tmp_path / "pts.lua").write_text(pts)
    rid = runs[-1]["id"]
    q = subprocess.run(["lua5.4", str(tmp_path / "pts.lua"), url, str(rid)], capture_output=True, text=True, env=env)
    assert q.returncode == 0, q.stderr
    got = [ln.split("\t") for ln in q.stdout.splitlines()]
    with open_store(url) as st:
        py = st.points([rid])
    assert len(got) == len(py) > 0
    assert [int(float(g[0])) for g in got] == [int(r["idx"]) for r in py]
    assert [int(float(g[2])) for g in got] == [int(r["read_ios"]) for r in py]
    # a server that refuses: the message names the store
    bad = url.rsplit("/", 1)[0] + "/no_such_db"
    q = subprocess.run(["lua5.4", str(script), bad, "1", "1"], capture_output=True, text=True, env=env)
    assert q.returncode == 1 and "no_such_db" in q.stderr
