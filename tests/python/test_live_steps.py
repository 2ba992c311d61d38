"""--live and --metrics on the commands that run several things: a fio job file's steps (one
of them job groups) and a matrix's cells. The stream is read while the job file runs (its
last step goes on until the test stops it); each line names its step (and its group); the
last point of each step, of each group, is that step's (group's) last time-series point in
the results; the store holds every point of every step."""
import json
import signal
import subprocess
import sys
import time

from nvbench.store import open_store

from test_live import _samples, _scrape, metrics_url, running

JOB = """[global]
ioengine=null
size=1m
time_based
[a]
rw=randread
bs=4k
runtime=1200ms
[b]
stonewall
rw=randwrite
runtime=1200ms
[c]
rw=read
runtime=1200ms
[d]
stonewall
rw=randread
runtime=3600
"""


def _line(line):
    """A --live line: (its point, the point without its group key, the progress object)."""
    head, sep, tail = line.rstrip("\n").rpartition(',"progress":')
    assert sep and tail.endswith("}}"), line
    pt = json.loads(head + "}")
    own = {k: v for k, v in pt.items() if k != "group"}
    if "group" in pt:  # the group's name first, then the group's point, byte for byte
        assert head.startswith('{"group":' + json.dumps(pt["group"]) + ",")
    return pt, own, json.loads(tail[:-1])


def _until_step(p, step):
    """The --live lines a running command wrote up to its step's first point, and the samples
    its --metrics serves then."""
    url = metrics_url(p)
    assert url
    lines = []
    while True:
        line = p.stdout.readline()
        assert line, f"the stream ended before step {step}'s first point"
        lines.append(line)
        if _line(line)[2]["step"] == step:
            return lines, _samples(_scrape(url))


def test_job_file_steps_streamed_while_they_run(tmp_path):
    job = tmp_path / "steps.fio"
    job.write_text(JOB)
    out, db = tmp_path / "out.json", tmp_path / "s.db"
    with running(["run", "--fio", str(job), "--live", "-", "--metrics", "127.0.0.1:0", "--no-progress",
                  "--json", str(out), "--db", str(db), "--summary"]) as p:
        # read until the last step (which runs for an hour) has streamed a point
        lines, got = _until_step(p, 3)
        assert got['nvbench_run_info{step="3",steps="3",label="d"}'] == 1
        assert got["nvbench_points_total"] >= 1 and 'nvbench_iops{dir="read"}' in got
        p.send_signal(signal.SIGTERM)
        rest, err = p.communicate(timeout=120)
    lines += [x + "\n" for x in rest.splitlines() if x.startswith("{") and ',"progress":{"step"' in x]
    parsed = [_line(x) for x in lines]
    results = json.loads(out.read_text())["results"]
    assert len(results) == 3 and results[2]["cancelled"] is True
    assert [x[2]["step"] for x in parsed] == sorted(x[2]["step"] for x in parsed)  # steps in order
    assert {(x[2]["step"], x[2]["steps"], x[2]["label"]) for x in parsed} == {(1, 3, "a"), (2, 3, "b+c"), (3, 3, "d")}
    # a step of one job: its points are its series; the last is the result's last
    for step in (1, 3):
        mine = [x[1] for x in parsed if x[2]["step"] == step]
        assert all("group" not in x[0] for x in parsed if x[2]["step"] == step)
        assert mine == results[step - 1]["timeseries"] and mine[-1] == results[step - 1]["timeseries"][-1]
    # a step of job groups: each group's points in order, its last the group's last
    groups = {g["name"]: g for g in results[1]["groups"]}
    assert set(groups) == {"b", "c"}
    for name, g in groups.items():
        mine = [x[1] for x in parsed if x[2]["step"] == 2 and x[0].get("group") == name]
        assert mine == g["timeseries"] and mine[-1] == g["timeseries"][-1]
        for d in ("read", "write"):
            if d in g:
                assert sum(pt[d]["ios"] for pt in mine) == g[d]["ios"]
    # each step's figures start from zero: its last line's ios are the step's
    last_of_1 = [x[2] for x in parsed if x[2]["step"] == 1][-1]
    assert last_of_1["ios"] == results[0]["read"]["ios"]
    # the store: every step saved with its points, a group's named
    with open_store(str(db), create=False) as st:
        runs = st.query()
        pts = st.points([r["id"] for r in runs])
    assert len(runs) == 3
    for r, res in zip(runs, results):
        mine = [x for x in pts if x["run_id"] == r["id"]]
        assert sum((x["read_ios"] or 0) + (x["write_ios"] or 0) for x in mine) == \
            sum(res[d]["ios"] for d in ("read", "write") if d in res)
    assert {x["job_group"] for x in pts if x["label"] == "b+c"} == {"b", "c"}
    assert {x["job_group"] for x in pts if x["label"] != "b+c"} == {None}


def test_job_groups_of_run_stream_their_points(tmp_path):
    live = tmp_path / "g.jsonl"
    p = subprocess.run([sys.executable, "-m", "nvbench", "run", "engine=null", "runtime=300ms", "interval=50ms",
                        "--group", "name=r", "rw=randread", "--group", "name=w", "rw=write",
                        "--live", str(live), "--no-progress", "--print-json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    parsed = [_line(x) for x in live.read_text().splitlines()]
    for g in result["groups"]:
        mine = [x[1] for x in parsed if x[0]["group"] == g["name"]]
        assert mine == g["timeseries"] and len(mine) >= 1
    assert len(parsed) == sum(len(g["timeseries"]) for g in result["groups"])


def test_matrix_cells_streamed_and_stored(tmp_path):
    live, out, db = tmp_path / "m.jsonl", tmp_path / "m.json", tmp_path / "m.db"
    p = subprocess.run([sys.executable, "-m", "nvbench", "matrix", "--engines", "null", "--cells", "rand4k",
                        "--runtime", "300ms", "--interval", "100ms", "--size", "1M", "--no-progress",
                        "--live", str(live), "--json", str(out), "--db", str(db)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    results = json.loads(out.read_text())["results"]
    parsed = [_line(x) for x in live.read_text().splitlines()]
    assert {x[2]["steps"] for x in parsed} == {2}
    for i, res in enumerate(results):
        mine = [x for x in parsed if x[2]["step"] == i + 1]
        assert mine[-1][1] == res["timeseries"][-1] and [x[1] for x in mine] == res["timeseries"]
        assert mine[0][2]["label"].startswith(f"rand4k {res['meta']['op']} null")
    with open_store(str(db), create=False) as st:
        runs = st.query()
        for r, res in zip(runs, results):
            pts = st.points([r["id"]])
            assert len(pts) == len(res["timeseries"]) and pts[0]["label"].startswith("rand4k " + r["op"])


def _stored_runs(db):
    """The runs in the store so far (0 before its schema is made), read while another process writes."""
    import sqlite3
    try:
        con = sqlite3.connect(db, timeout=60)
        try:
            return con.execute("SELECT qd FROM runs ORDER BY id").fetchall()
        finally:
            con.close()
    except sqlite3.OperationalError:
        return []


def _search_stored(db, parsed, n):
    """The store holds the search's first n runs (qd 1, 2, ...), labelled, each with its points:
    the stream's lines of its step, its result's series."""
    with open_store(db, create=False) as st:
        runs = st.query()
        results = st.results()
        assert [r["qd"] for r in runs] == [1 << i for i in range(n)] and all(r["labels"] == {"ci": "1"} for r in runs)
        for step, (run, res) in enumerate(zip(runs, results), 1):
            mine = [x[1] for x in parsed if x[2]["step"] == step]
            assert mine == res.data["timeseries"] and mine[-1] == res.data["timeseries"][-1]
            pts = st.points([run["id"]])
            assert [x["t_unix_ns"] for x in pts] == [x["t_unix_ns"] for x in mine]
            assert {x["label"] for x in pts} == {f"qd={1 << (step - 1)}"}
            assert sum(x["read_ios"] for x in pts) == res.data["read"]["ios"]


def test_search_streamed_and_each_run_saved_as_it_ends(tmp_path):
    """A search read while it runs: its runs named in the stream and the endpoint; its first
    run is in the store while the second goes on, so a search killed then keeps it."""
    db = tmp_path / "s.db"
    with running(["search", "engine=null", "rw=randread", "runtime=2s", "interval=200ms", "--latency", "p99<=1s",
                  "--max-runs", "2", "--live", "-", "--metrics", "127.0.0.1:0", "--db", str(db),
                  "--label", "ci=1"]) as p:
        lines, got = _until_step(p, 2)
        assert got['nvbench_run_info{step="2",label="qd=2"}'] == 1
        while not _stored_runs(str(db)):
            assert p.poll() is None, "the search ended without its first run in the store"
            time.sleep(0.05)  # pacing the reads, not a bound
        p.kill()
        rest, _ = p.communicate(timeout=120)
    # killed during its second run: the search never printed its answer, its first run is kept
    assert "answer:" not in rest
    lines += [x + "\n" for x in rest.splitlines() if ',"progress":{"step":1' in x]
    parsed = [_line(x) for x in lines]
    assert {(x[2]["step"], x[2]["steps"], x[2]["label"]) for x in parsed} == {(1, None, "qd=1"), (2, None, "qd=2")}
    _search_stored(str(db), parsed, 1)


def test_search_streamed_whole_and_stored(tmp_path):
    live, db = tmp_path / "s.jsonl", tmp_path / "s.db"
    p = subprocess.run([sys.executable, "-m", "nvbench", "search", "engine=null", "rw=randread", "runtime=300ms",
                        "interval=100ms", "--latency", "p99<=1s", "--max-runs", "3", "--live", str(live),
                        "--db", str(db), "--label", "ci=1"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "answer: qd=4" in p.stdout and "saved 3 runs in store" in p.stderr
    parsed = [_line(x) for x in live.read_text().splitlines()]
    assert [x[2]["step"] for x in parsed] == sorted(x[2]["step"] for x in parsed)
    assert {x[2]["label"] for x in parsed} == {"qd=1", "qd=2", "qd=4"}
    _search_stored(str(db), parsed, 3)
