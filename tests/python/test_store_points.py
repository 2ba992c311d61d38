"""The time-series points in the store (schema version 3, docs/history.md): every interval of
a run saved with --db, written as measured, at full resolution even where the result merged
its series; read back by `nvbench history --points` and nvbench.points(); a store of the
previous schema (version 2) migrated; a store that fails costs the points only."""
import json
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

import nvbench
from nvbench.store import SCHEMA_VERSION, open_store

from test_store import V1_SCHEMA, cli, kill_inside


def _point_of(line):
    head, sep, _ = line.rpartition(',"progress":')
    assert sep, line
    return json.loads(head + "}")


def _same(stored, pt):
    """A stored point row holds the point's figures (the ones it has columns for)."""
    assert stored["t_s"] == pt["t_s"] and stored["dt_s"] == pt["dt_s"] and stored["t_unix_ns"] == pt["t_unix_ns"]
    assert stored["job_group"] == pt.get("group")
    for d in ("read", "write", "trim"):
        o = pt.get(d)
        if o is None:
            assert stored[f"{d}_ios"] is None
            continue
        assert (stored[f"{d}_ios"], stored[f"{d}_bytes"], stored[f"{d}_lat_sum_ns"]) == \
            (o["ios"], o["bytes"], o["lat_sum_ns"])
        assert stored[f"{d}_iops"] == pytest.approx(o["iops"]) and stored[f"{d}_p99_ns"] == o.get("p99")
        assert stored[f"{d}_p99_9_ns"] == o.get("p99.9")


def test_every_interval_stored_as_measured_beyond_the_results_merged_series(data_file, tmp_path):
    db, live = tmp_path / "p.db", tmp_path / "live.jsonl"
    # 3 points kept in the result: its series is merged, the store's is not
    p = cli("run", "engine=null", "rw=randrw", "ios=4000", "rate_iops=10000", "interval=50ms", "timeseries_max=3",
            data_file, "--print-json", "--db", str(db), "--live", str(live))
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    streamed = [_point_of(line) for line in live.read_text().splitlines()]
    with open_store(str(db), create=False) as st:
        (run,) = st.query()
        stored = st.points([run["id"]])
    assert len(result["timeseries"]) <= 3 < len(streamed) == len(stored)
    assert [s["idx"] for s in stored] == list(range(len(stored)))
    for s, pt in zip(stored, streamed):
        _same(s, pt)
    for d in ("read", "write"):
        assert sum(s[f"{d}_ios"] for s in stored) == result[d]["ios"]
        assert sum(s[f"{d}_lat_sum_ns"] for s in stored) == sum(pt[d]["lat_sum_ns"] for pt in result["timeseries"])
    assert f"with {len(stored)} time-series points" in p.stderr
    # the same from the command line and as a DataFrame
    h = cli("history", "--db", str(db), "--points", str(run["id"]), "--json")
    assert h.returncode == 0, h.stderr
    assert json.loads(h.stdout) == json.loads(json.dumps(stored))
    t = cli("history", "--db", str(db), "--points", str(run["id"]))
    assert t.returncode == 0 and len(t.stdout.splitlines()) == len(stored) + 1 and "read_p99_ns" in t.stdout
    none = cli("history", "--db", str(db), "--points", "999")
    assert none.returncode == 0 and "no points stored for run 999" in none.stdout
    df = nvbench.points(run["id"], db=str(db))
    assert list(df["idx"]) == list(range(len(stored))) and df["read_ios"].sum() == result["read"]["ios"]
    assert (df["run_id"] == run["id"]).all()


def test_a_run_not_saved_writes_no_points_and_unsaved_runs_have_none(data_file, tmp_path):
    db = tmp_path / "n.db"
    nvbench.open_store(str(db)).close()
    p = cli("run", "engine=null", "runtime=100ms", "interval=20ms", data_file, "--print-json",
            env={"NVBENCH_DB": str(db)})
    assert p.returncode == 0
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM points").fetchone() == (0,)
    # a result imported from a file has no points
    f = tmp_path / "r.json"
    f.write_text(p.stdout)
    assert cli("store", "import", str(f), "--db", str(db)).returncode == 0
    with open_store(str(db), create=False) as st:
        (run,) = st.query()
        assert st.points([run["id"]]) == []
    assert nvbench.points(run["id"], db=str(db)).empty


def test_a_bad_label_writes_neither_the_run_nor_its_points(data_file, tmp_path):
    db = tmp_path / "l.db"
    nvbench.open_store(str(db)).close()
    p = cli("run", "engine=null", "runtime=100ms", "interval=20ms", data_file, "--print-json", "--db", str(db),
            "--label", "no-equals-sign")
    assert p.returncode != 0 and "--label 'no-equals-sign'" in p.stderr
    con = sqlite3.connect(db)
    assert con.execute("SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM point_streams), "
                       "(SELECT COUNT(*) FROM points)").fetchone() == (0, 0, 0)


# A store as version 2 of the schema made it (the previous one): runs, labels, no points.
V2_SCHEMA = V1_SCHEMA.replace("INSERT INTO nvbench_meta VALUES ('schema_version', '1');", "") + """
ALTER TABLE runs ADD COLUMN device_firmware TEXT;
ALTER TABLE runs ADD COLUMN kernel TEXT;
CREATE TABLE run_labels (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, name TEXT NOT NULL,
  value TEXT NOT NULL);
CREATE INDEX run_labels_name ON run_labels (name, value);
CREATE INDEX run_labels_run ON run_labels (run_id);
INSERT INTO nvbench_meta VALUES ('schema_version', '2');
"""


def test_a_store_of_schema_2_is_migrated_and_takes_points(data_file, tmp_path):
    r = nvbench.run(data_file, engine="null", runtime="50ms")
    db = str(tmp_path / "v2.db")
    con = sqlite3.connect(db)
    con.executescript(V2_SCHEMA)
    con.execute("INSERT INTO runs (host, start_time, start_unix_ns, engine, rw, bs, iops, kernel, result) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ("old-host", r.data["start_time"], 1, "null", "randread", 4096, 1234.0, "6.1", json.dumps(r.data)))
    con.execute("INSERT INTO run_labels VALUES (1, 'build', 'old')")
    con.commit()
    con.close()
    p = cli("run", "engine=null", "runtime=200ms", "interval=50ms", data_file, "--print-json", "--db", db)
    assert p.returncode == 0, p.stderr
    with open_store(db, create=False) as st:
        assert st.version == SCHEMA_VERSION == 4
        old, new = st.query(with_result=True)
        assert old["labels"] == {"build": "old"} and old["kernel"] == "6.1" and json.loads(old["result"]) == r.data
        assert st.points([old["id"]]) == []
        pts = st.points([new["id"]])
    assert len(pts) >= 1 and sum(x["read_ios"] for x in pts) == json.loads(p.stdout)["read"]["ios"]
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM nvbench_meta WHERE key='schema_version'").fetchone() == ("4",)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert con.execute("PRAGMA foreign_key_check").fetchall() == []


def test_a_locked_store_costs_the_points_only(data_file, tmp_path):
    db = tmp_path / "locked.db"
    nvbench.open_store(str(db)).close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        p = cli("run", "engine=null", "runtime=300ms", "interval=50ms", data_file, "--print-json", "--db", str(db),
                "--json", str(tmp_path / "out.json"), env={"NVBENCH_DB_TIMEOUT": "0.2"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert p.returncode == 1
    result = json.loads(p.stdout)  # the run completed, its result printed and kept
    assert result["read"]["ios"] > 0 and os.path.exists(tmp_path / "out.json")
    assert "time-series points not stored" in p.stderr and "locked" in p.stderr, p.stderr
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM points").fetchone() == (0,)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_newer_store_refused_for_points_too(data_file, tmp_path):
    db = tmp_path / "new.db"
    nvbench.open_store(str(db)).close()
    con = sqlite3.connect(db)
    con.execute("UPDATE nvbench_meta SET value = '99' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    p = cli("run", "engine=null", "runtime=100ms", data_file, "--print-json", "--db", str(db),
            env={"HOME": str(tmp_path), "XDG_DATA_HOME": ""})
    assert p.returncode == 1 and json.loads(p.stdout)["read"]["ios"] > 0
    assert "schema version 99 is newer" in p.stderr and "time-series points not stored" in p.stderr


# One process writing points and runs as the CLI does (a PointWriter beside the runs), or
# killed inside a batch of points (argv[3] == "kill").
POINTS_WRITER = textwrap.dedent("""
    import json, sys, time
    import nvbench
    from nvbench import store, _points
    r = nvbench.load(sys.argv[2])[0]
    texts = [json.dumps(p) for p in r.data["timeseries"]]
    if sys.argv[3] == "kill":
        w = store.PointWriter(sys.argv[1])
        f = w.begin("first")
        for t in texts:
            f(t)
        w.close()
        orig = _points.PointWriter._flush_rows
        def stop_inside(st, cur, rows):
            orig(st, cur, rows)
            print("inside", flush=True)
            time.sleep(600)
        _points.PointWriter._flush_rows = staticmethod(stop_inside)
        w = store.PointWriter(sys.argv[1])
        f = w.begin("second")
        for t in texts:
            f(t)
        w.close()
    n = int(sys.argv[4])
    w = store.PointWriter(sys.argv[1])
    runs = []
    for i in range(n):
        f = w.begin(f"{sys.argv[3]}-{i}")
        for t in texts:
            f(t)
        ri = nvbench.Result(r.data)
        w.done(ri)
        runs.append(ri)
    w.close(flush=False)  # the last points in the runs' transactions, as the CLI does
    assert w.failure is None, w.failure
    with store.open_store(sys.argv[1]) as st:
        st.save(runs, [("writer", sys.argv[3])], w)
""")


def run_writers(script, url, res, writers, each):
    """writers processes running script (URL RESULT WRITER EACH) at once, each to its end."""
    procs = [subprocess.Popen([sys.executable, "-c", script, url, str(res), str(w), str(each)],
                              stderr=subprocess.PIPE, text=True) for w in range(writers)]
    errs = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * writers, errs


def run_points_writers(url, res, writers, each):
    run_writers(POINTS_WRITER, url, res, writers, each)
    with open_store(url) as st:
        rows = st.query()
        pts = st.points([r["id"] for r in rows])
    return rows, pts


def check_points_of_writers(rows, pts, writers, each, npoints):
    assert len(rows) == writers * each
    by_run = {}
    for p in pts:
        by_run.setdefault(p["run_id"], []).append(p)
    assert sorted(by_run) == sorted(r["id"] for r in rows)
    for r in rows:
        mine = by_run[r["id"]]
        assert [p["idx"] for p in mine] == list(range(npoints))
        assert {p["label"].split("-")[0] for p in mine} == {r["labels"]["writer"]}
    assert len({p["label"] for p in pts}) == writers * each


def test_concurrent_point_writers_lose_nothing(data_file, tmp_path):
    res = tmp_path / "r.json"
    r = nvbench.run(data_file, engine="null", runtime="300ms", interval="50ms")
    nvbench.ResultSet([r]).save(str(res))
    url = str(tmp_path / "c.db")
    rows, pts = run_points_writers(url, res, 4, 10)
    check_points_of_writers(rows, pts, 4, 10, len(r.data["timeseries"]))


def test_a_point_writer_killed_inside_a_batch_leaves_the_store_consistent(data_file, tmp_path):
    res = tmp_path / "r.json"
    r = nvbench.run(data_file, engine="null", runtime="300ms", interval="50ms")
    nvbench.ResultSet([r]).save(str(res))
    db = tmp_path / "k.db"
    kill_inside([sys.executable, "-c", POINTS_WRITER, str(db), str(res), "kill", "1"])
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # the first writer's stream and points are there, unlinked (no run saved); the second's batch is not
    assert con.execute("SELECT label FROM point_streams").fetchall() == [("first",)]
    assert con.execute("SELECT COUNT(*) FROM points").fetchone() == (len(r.data["timeseries"]),)
    con.close()


LUA_POINTS = r"""
local h = require "nvbench.history"
local pts = assert(h.points(arg[1], math.tointeger(tonumber(arg[2]))))
local ios = 0
for i, p in ipairs(pts) do
  assert(math.tointeger(p.idx) == i - 1)
  ios = ios + p.read_ios
end
print(#pts, math.tointeger(ios))
"""


def test_lua_reads_the_points(data_file, tmp_path):
    from conftest import lua_env
    import shutil
    env = lua_env()
    if env is None or not shutil.which("lua5.4") or not shutil.which("sqlite3"):
        pytest.skip("needs lua5.4, sqlite3 and the built Lua module (nvbench.so)")
    db = tmp_path / "lua.db"
    p = cli("run", "engine=null", "runtime=300ms", "interval=50ms", data_file, "--print-json", "--db", str(db))
    assert p.returncode == 0, p.stderr
    with open_store(str(db)) as st:
        (run,) = st.query()
        pts = st.points([run["id"]])
    script = tmp_path / "points.lua"
    script.write_text(LUA_POINTS)
    q = subprocess.run(["lua5.4", str(script), str(db), str(run["id"])], capture_output=True, text=True, env=env)
    assert q.returncode == 0, q.stderr
    assert q.stdout.split() == [str(len(pts)), str(json.loads(p.stdout)["read"]["ios"])]
