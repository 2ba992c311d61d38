"""The results store (nvbench.store, docs/history.md) on the real SQLite: runs saved by
`run --db`, `matrix --db` and `run --fio --db` come back from `history` with their JSON; an
older schema is migrated; a locked, read-only, corrupt or newer store is named in the error
while the result still reaches stdout and is kept to import; a writer killed inside its
transaction leaves the store as it was; filters are parameters, never SQL."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

import nvbench
from nvbench.store import SCHEMA_VERSION, StoreError, open_store


def cli(*args, env=None, **kw):
    e = dict(os.environ)
    e.pop("NVBENCH_DB", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "nvbench", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120, env=e, **kw)


def run_null(db, *extra, target, env=None):
    return cli("run", "engine=null", "rw=randread", "bs=4k", "runtime=100ms", target, "--print-json",
               "--db", str(db), *extra, env=env)


def test_run_saves_its_result_and_history_lists_it(data_file, tmp_path):
    db = tmp_path / "s" / "results.db"
    p = run_null(db, "--label", "build=a b", "--label", "ci=1", target=data_file)
    assert p.returncode == 0, p.stderr
    assert f"store {db}" in p.stderr
    printed = json.loads(p.stdout)
    with open_store(str(db), create=False) as st:
        rows = st.query(with_result=True)
    assert len(rows) == 1
    row = rows[0]
    stored = json.loads(row["result"])
    stored.pop("meta")
    assert stored == printed  # the whole result, every key, as the run printed it
    assert row["host"] == printed["host"] and row["start_unix_ns"] == printed["start_unix_ns"]
    assert row["engine"] == "null" and row["rw"] == "randread" and row["bs"] == 4096
    assert row["iops"] == pytest.approx(printed["read"]["iops"])
    assert row["nvbench_version"] == printed["version"]
    assert row["labels"] == {"build": "a b", "ci": "1"}
    h = cli("history", "--db", str(db), "--json", "--where", "label.build=a b")
    assert h.returncode == 0, h.stderr
    assert [r["id"] for r in json.loads(h.stdout)] == [row["id"]]
    t = cli("history", "--db", str(db))
    assert t.returncode == 0 and "randread" in t.stdout and "build=a b" in t.stdout
    c = cli("history", "--db", str(db), "--csv", "-")
    assert c.stdout.splitlines()[0].startswith("id,start_time,host") and len(c.stdout.splitlines()) == 2


def test_nvbench_db_names_the_default_store(data_file, tmp_path):
    db = tmp_path / "env.db"
    p = cli("run", "engine=null", "runtime=50ms", data_file, "--print-json", "--save", env={"NVBENCH_DB": str(db)})
    assert p.returncode == 0, p.stderr
    with open_store(str(db), create=False) as st:
        assert st.count() == 1
    # without --save or --db nothing is stored
    p = cli("run", "engine=null", "runtime=50ms", data_file, "--print-json", env={"NVBENCH_DB": str(db)})
    with open_store(str(db), create=False) as st:
        assert st.count() == 1


def test_matrix_and_fio_runs_are_saved(tmp_path, data_file):
    db = tmp_path / "m.db"
    p = cli("matrix", "--engines", "null", "--cells", "rand4k", "--runtime", "50ms", "--size", "1M",
            "--no-progress", "--db", str(db), "--label", "sweep=1")
    assert p.returncode == 0, p.stderr
    job = tmp_path / "j.fio"
    job.write_text(f"[a]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\ntime_based\nruntime=50ms\n")
    f = cli("run", "--fio", str(job), "--print-json", "--db", str(db))
    assert f.returncode == 0, f.stderr
    with open_store(str(db), create=False) as st:
        rows = st.query()
    assert [r["cell"] for r in rows[:2]] == ["rand4k", "rand4k"] and {r["op"] for r in rows[:2]} == {"read", "write"}
    assert all(r["labels"] == {"sweep": "1"} for r in rows[:2])
    assert len(rows) == 3 and rows[2]["engine"] == "null" and rows[2]["labels"] == {}


# A store as version 1 of the schema made it: no firmware or kernel columns, no labels.
V1_SCHEMA = """
CREATE TABLE nvbench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, saved_at TEXT, host TEXT, start_time TEXT,
  start_unix_ns BIGINT, target TEXT, device_model TEXT, device_serial TEXT, engine TEXT, stack TEXT, rw TEXT,
  bs BIGINT, qd BIGINT, jobs BIGINT, cell TEXT, op TEXT, workload_key TEXT, iops DOUBLE PRECISION,
  bw_gib_s DOUBLE PRECISION, lat_mean_ms DOUBLE PRECISION, lat_p99_ms DOUBLE PRECISION,
  cpu_us_per_io DOUBLE PRECISION, duration_s DOUBLE PRECISION, nvbench_version TEXT, source TEXT,
  result TEXT NOT NULL);
CREATE INDEX runs_host_time ON runs (host, start_unix_ns);
CREATE INDEX runs_time ON runs (start_unix_ns);
CREATE INDEX runs_workload ON runs (workload_key);
INSERT INTO nvbench_meta VALUES ('schema_version', '1');
"""


def _v1_store(path, result):
    con = sqlite3.connect(path)
    con.executescript(V1_SCHEMA)
    con.execute("INSERT INTO runs (host, start_time, start_unix_ns, engine, rw, bs, iops, result) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ("old-host", result["start_time"], 1, "null", "randread", 4096, 1234.0, json.dumps(result)))
    con.commit()
    con.close()


def test_a_store_of_the_previous_schema_is_migrated(data_file, tmp_path):
    r = nvbench.run(data_file, engine="null", runtime="50ms")
    db = str(tmp_path / "v1.db")
    _v1_store(db, r.data)
    p = run_null(db, "--label", "after=migration", target=data_file)
    assert p.returncode == 0, p.stderr
    with open_store(db, create=False) as st:
        assert st.version == SCHEMA_VERSION == 4
        rows = st.query(with_result=True)
        old, new = rows
        assert old["host"] == "old-host" and old["iops"] == 1234.0 and old["kernel"] is None
        assert old["labels"] == {} and json.loads(old["result"]) == r.data
        assert new["labels"] == {"after": "migration"}
        assert len(st.results()) == 2  # both read back as Results
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM nvbench_meta WHERE key='schema_version'").fetchone() == ("4",)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def _assert_kept(p, db, words, tmp_path):
    """The run's JSON on stdout, the error naming the store and why, the results kept in a file
    that `store import` takes into a working store."""
    assert p.returncode == 1
    assert json.loads(p.stdout)["schema"] == "nvbench.result/1"
    err = p.stderr
    assert f"store {db}" in err and all(w in err for w in words), err
    kept = err.split("the results are kept in ")[1].split(":")[0]
    assert os.path.exists(kept) and "nvbench store import " + kept in err
    good = tmp_path / "good.db"
    i = cli("store", "import", kept, "--db", str(good))
    assert i.returncode == 0, i.stderr
    with open_store(str(good), create=False) as st:
        assert st.count() == 1


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    h.mkdir()
    return {"HOME": str(h), "XDG_DATA_HOME": ""}


def test_a_store_of_a_newer_schema_is_refused_by_name(data_file, tmp_path, home):
    db = tmp_path / "new.db"
    with open_store(str(db)):
        pass
    con = sqlite3.connect(db)
    con.execute("UPDATE nvbench_meta SET value = '99' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    p = run_null(db, target=data_file, env=home)
    _assert_kept(p, db, ["schema version 99 is newer", "upgrade nvbench"], tmp_path)
    assert (tmp_path / "home" / ".local" / "share" / "nvbench" / "pending").is_dir()


def test_a_corrupt_store_is_named(data_file, tmp_path, home):
    db = tmp_path / "corrupt.db"
    db.write_bytes(b"this is not a database, it is a shopping list\n" * 200)
    p = run_null(db, target=data_file, env=home)
    _assert_kept(p, db, ["corrupt"], tmp_path)
    assert db.read_bytes().startswith(b"this is not a database")  # left as it was


def test_a_locked_store_is_named(data_file, tmp_path, home):
    db = tmp_path / "locked.db"
    with open_store(str(db)):
        pass
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        p = run_null(db, target=data_file, env=dict(home, NVBENCH_DB_TIMEOUT="0.2"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    _assert_kept(p, db, ["locked"], tmp_path)


def test_a_read_only_store_is_named(data_file, tmp_path, home):
    d = tmp_path / "ro"
    d.mkdir()
    db = d / "results.db"
    with open_store(str(db)):
        pass
    # root writes through file modes: a read-only bind mount is what refuses it
    if subprocess.run(["mount", "--bind", str(d), str(d)], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount (needs root): the read-only store is not tested")
    try:
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(d)], capture_output=True).returncode != 0:
            pytest.skip("cannot remount read-only")
        p = run_null(db, "--json", str(tmp_path / "out.json"), target=data_file, env=home)
    finally:
        subprocess.run(["umount", str(d)], check=True)
    assert p.returncode == 1 and json.loads(p.stdout)["schema"] == "nvbench.result/1"
    assert f"store {db}" in p.stderr and "read-only" in p.stderr, p.stderr
    # --json was written: that is where the result is kept
    assert f"nvbench store import {tmp_path / 'out.json'}" in p.stderr


WRITER = textwrap.dedent("""
    import sys, time
    import nvbench
    from nvbench import store
    r = nvbench.load(sys.argv[2])[0]
    st = store.open_store(sys.argv[1])
    st.save([r, r, r], [("n", "1"), ("m", "2")])
    def stop_inside(self, cur, rid, labels):
        cur.execute("INSERT INTO run_labels (run_id, name, value) VALUES (?, ?, ?)", (rid, "n", "1"))
        print("inside", flush=True)
        time.sleep(600)
    store.Store._insert_labels = stop_inside
    st.save(r, [("n", "1"), ("m", "2")])
""")


def kill_inside(cmd):
    """Run a writer until it says it is "inside" its transaction, then SIGKILL it."""
    w = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert w.stdout.readline().strip() == "inside"
        os.kill(w.pid, signal.SIGKILL)
        w.wait(timeout=30)
    finally:
        if w.poll() is None:
            w.kill()


def test_a_writer_killed_inside_its_transaction_leaves_the_store_consistent(data_file, tmp_path):
    res = tmp_path / "r.json"
    nvbench.ResultSet([nvbench.run(data_file, engine="null", runtime="50ms")]).save(str(res))
    db = tmp_path / "k.db"
    kill_inside([sys.executable, "-c", WRITER, str(db), str(res)])  # the 4th run's row and a label, uncommitted
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert con.execute("SELECT COUNT(*) FROM runs").fetchone() == (3,)
    assert con.execute("SELECT COUNT(*) FROM run_labels").fetchone() == (6,)
    assert con.execute("SELECT COUNT(*) FROM run_labels WHERE run_id NOT IN (SELECT id FROM runs)").fetchone() == (0,)
    con.close()
    with open_store(str(db)) as st:  # and it takes the next run
        st.save(nvbench.load(str(res))[0])
        assert st.count() == 4


HOSTILE = ["vm' OR '1'='1", "x'; DROP TABLE runs; --", "\" OR 1=1 --", "%", "_", "*", "'); DELETE FROM runs; --"]


def test_filters_are_parameters_never_sql(data_file, tmp_path):
    db = tmp_path / "h.db"
    assert run_null(db, "--label", "k=v", target=data_file).returncode == 0
    for v in HOSTILE:
        for where in (f"host={v}", f"label.k={v}", f"label.{v}=v", f"rw={v}"):
            h = cli("history", "--db", str(db), "--json", "--where", where)
            assert h.returncode == 0, (where, h.stderr)
            assert json.loads(h.stdout) == [], where
    for bad_key in ("host) OR (1=1", "result", "1=1 OR host", "label."):
        h = cli("history", "--db", str(db), "--where", f"{bad_key}=x")
        assert h.returncode == 2 and "unknown field" in h.stderr, bad_key
        with open_store(str(db)) as st, pytest.raises(StoreError):
            st.query([(bad_key, "x")])
    # hostile labels are stored as given, and found as given
    assert run_null(db, "--label", f"k={HOSTILE[1]}", target=data_file).returncode == 0
    h = cli("history", "--db", str(db), "--json", "--where", f"label.k={HOSTILE[1]}")
    assert [r["labels"]["k"] for r in json.loads(h.stdout)] == [HOSTILE[1]]
    with open_store(str(db)) as st:
        assert st.count() == 2
        assert len(st.query([("host", json.loads(h.stdout)[0]["host"])])) == 2
        assert st.query([("host", "vm\x00"), ("label.k\x00", "\x00")]) == []  # a NUL is a value too


def test_last_keeps_the_newest_runs_oldest_first(data_file, tmp_path):
    db = tmp_path / "l.db"
    for i in range(4):
        assert run_null(db, "--label", f"i={i}", target=data_file).returncode == 0
    h = json.loads(cli("history", "--db", str(db), "--json", "--last", "2").stdout)
    assert [r["labels"]["i"] for r in h] == ["2", "3"]
    e = cli("history", "--db", str(tmp_path / "none.db"))
    assert e.returncode == 1 and "none.db" in e.stderr and not (tmp_path / "none.db").exists()


def test_compare_reads_sides_from_the_store(data_file, tmp_path):
    db = tmp_path / "c.db"
    for side in ("a", "a", "b", "b"):
        assert run_null(db, "--label", f"side={side}", target=data_file).returncode == 0
    a = tmp_path / "a.json"
    with open_store(str(db)) as st:
        st.results([("label.side", "a")]).save(str(a))
    p = cli("compare", str(a), "--db", str(db), "--where", "label.side=b", "--last", "2")
    assert p.returncode == 0, p.stderr
    assert "store:label:side=b,last=2" in p.stdout and "iops" in p.stdout.lower()
    q = cli("compare", "store:label.side=a", "store:label.side=b", "--db", str(db))
    assert q.returncode == 0, q.stderr
    assert "store:label:side=a" in q.stdout and "store:label:side=b" in q.stdout
    n = cli("compare", str(a), "--db", str(db), "--where", "label.side=nobody")
    assert n.returncode != 0 and "no run in store" in n.stderr and "label:side=nobody" in n.stderr
    bad = cli("compare", str(a), "store:host) OR (1=1", "--db", str(db))
    assert bad.returncode == 2 and "unknown field" in bad.stderr


def test_history_as_a_dataframe(data_file, tmp_path):
    pytest.importorskip("pandas")
    db = str(tmp_path / "d.db")
    for ci in ("1", "2", "2"):
        assert run_null(db, "--label", f"ci={ci}", target=data_file).returncode == 0
    df = nvbench.history(db, where=[("label.ci", "2")], rw="randread")
    assert len(df) == 2 and list(df["labels"]) == [{"ci": "2"}] * 2
    assert df["start_time"].is_monotonic_increasing and (df["iops"] > 0).all()
    full = nvbench.history(db, last=1, results=True)
    assert len(full) == 1 and full["result"][0].data["start_unix_ns"] == int(full["start_unix_ns"][0])
    assert nvbench.history(db, host="x' OR '1'='1").empty


LUA_READ = r"""
local h = require "nvbench.history"
local nvb = require "nvbench"
local rows, err = h.read(arg[1], { ["label.ci"] = arg[2], bs = "4096" }, { last = tonumber(arg[3]) })
if not rows then io.stderr:write(err, "\n") os.exit(1) end
local out = {}
for _, r in ipairs(rows) do
  local full = assert(h.result(arg[1], r.id))
  out[#out + 1] = string.format("%d %s %s %.17g %s %d", r.id, r.host, r.rw, r.iops, r.labels.ci,
                                math.tointeger(full.start_unix_ns) or -1)
end
print(table.concat(out, "\n"))
"""


def test_lua_reads_the_store(data_file, tmp_path):
    from conftest import lua_env
    import shutil
    env = lua_env()
    if env is None or not shutil.which("lua5.4") or not shutil.which("sqlite3"):
        pytest.skip("needs lua5.4, sqlite3 and the built Lua module (nvbench.so)")
    db = tmp_path / "lua.db"
    for ci in ("1", "2", "2", "2"):
        assert run_null(db, "--label", f"ci={ci}", target=data_file).returncode == 0
    script = tmp_path / "read.lua"
    script.write_text(LUA_READ)
    p = subprocess.run(["lua5.4", str(script), str(db), "2", "2"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    with open_store(str(db)) as st:
        want = [f"{r['id']} {r['host']} {r['rw']} {r['iops']:.17g} 2 {json.loads(r['result'])['start_unix_ns']}"
                for r in st.query([("label.ci", "2")], last=2, with_result=True)]
    assert p.stdout.split("\n")[:-1] == want
    for hostile in ("2' OR '1'='1", "'; DROP TABLE runs; --", "$(touch pwned)"):
        q = subprocess.run(["lua5.4", str(script), str(db), hostile, "10"], capture_output=True, text=True,
                           env=env, cwd=tmp_path)
        assert q.returncode == 0 and q.stdout == "\n", q.stderr
    assert not (tmp_path / "pwned").exists()
    odd = tmp_path / "it's $(x).db"  # a file name the shell would read
    shutil.copy(db, odd)
    q = subprocess.run(["lua5.4", str(script), str(odd), "1", "10"], capture_output=True, text=True, env=env)
    assert q.returncode == 0 and len(q.stdout.split("\n")) == 2, q.stderr
    bad = tmp_path / "bad.db"
    bad.write_text("not a store")
    q = subprocess.run(["lua5.4", str(script), str(bad), "1", "1"], capture_output=True, text=True, env=env)
    assert q.returncode == 1 and str(bad) in q.stderr
    with open_store(str(db)) as st:
        assert st.count() == 4


def test_a_search_saves_each_point(tmp_path):
    db = tmp_path / "s.db"
    p = cli("search", "--latency", "p50<=60s", "--max-qd", "2", "--print-json", "engine=null", "runtime=0.1s",
            "--db", str(db), "--label", "search=p50")
    assert p.returncode == 0, p.stderr
    points = json.loads(p.stdout)["points"]
    with open_store(str(db), create=False) as st:
        rows = st.query()
    assert len(rows) == len(points) >= 2
    assert sorted(r["qd"] for r in rows) == sorted(pt["qd"] for pt in points)
    assert all(r["labels"] == {"search": "p50"} for r in rows)


def test_a_full_store_is_named(data_file, tmp_path, home):
    d = tmp_path / "small"
    d.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(d)], capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs (needs root): the full store is not tested")
    try:
        db = d / "results.db"
        with open_store(str(db)):
            pass
        before = db.read_bytes()
        # a result larger than the room left: interval=10ms gives it a long time series
        p = cli("run", "engine=null", "runtime=1s", "interval=10ms", data_file, "--print-json", "--db", str(db),
                env=home)
        con = sqlite3.connect(db)
        after = con.execute("SELECT COUNT(*) FROM runs").fetchone()
        intact = con.execute("PRAGMA integrity_check").fetchone()
        con.close()
    finally:
        subprocess.run(["umount", str(d)], check=True)
    assert len(before) > 0 and after == (0,) and intact == ("ok",)
    _assert_kept(p, db, ["full"], tmp_path)
