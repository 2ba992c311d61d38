"""Runs across hosts: nvbench.merge (pure Python, no MPI needed), and
nvbench.mpi / `nvbench mpi-run` under `mpirun -n 4` on this machine, each
rank on its own scratch directory. The MPI tests are skipped when mpirun or
mpi4py is missing; every mpirun is bounded by a timeout, so a hang fails.
"""
import errno
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

import nvbench
from nvbench.merge import merge

from _hist import Hist, bucket_index, hist_from_json, hist_pct

MPIRUN = shutil.which("mpirun")
HAVE_MPI4PY = importlib.util.find_spec("mpi4py") is not None
needs_mpi = pytest.mark.skipif(not (MPIRUN and HAVE_MPI4PY),
                               reason="needs mpirun and mpi4py (apt-get install openmpi-bin python3-mpi4py)")
MPI = [MPIRUN or "mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "4"]
PCTS = (1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999)


def _env():
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1", MPLBACKEND="Agg")
    return env


def _hosts_name():
    return socket.gethostname()  # what MPI_Get_processor_name() reports with Open MPI on Linux


@pytest.fixture
def rank_dirs(tmp_path):
    for r in range(4):
        (tmp_path / f"r{r}").mkdir()
    return tmp_path


def _direct(path):
    """direct=1 where the file system has O_DIRECT (not tmpfs)."""
    probe = os.path.join(path, ".probe")
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | getattr(os, "O_DIRECT", 0), 0o600)
        os.close(fd)
        return 1
    except OSError:
        return 0
    finally:
        if os.path.exists(probe):
            os.unlink(probe)


def _same(a, b, path="", rel=1e-12):
    """Equal; counts exactly, other numbers to rounding (sums in another order; rel=1e-9
    for what the library prints with 10 significant digits)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (path, sorted(set(a) ^ set(b)))
        for k in a:
            _same(a[k], b[k], f"{path}.{k}", rel)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}.{i}", rel)
    elif isinstance(a, float) or isinstance(b, float):
        assert b == pytest.approx(a, rel=rel, abs=1e-12), (path, a, b)
    else:
        assert a == b, (path, a, b)


def _summed(parts, d):
    h = Hist()
    for p in parts:
        h.add(hist_from_json(p[d]))
    return h


# ------------------------------------------------------------------ merge


def test_merge_is_exact_sum_of_runs():
    parts = [nvbench.run(engine="null", rw="randrw", bs="8k", qd=4, jobs=2, ios=n, seed=n)
             for n in (3001, 2000, 4567, 1)]
    m = merge(parts)
    assert m.total.ios == 3001 + 2000 + 4567 + 1
    for d in ("read", "write"):
        assert m.data[d]["ios"] == sum(p.data[d]["ios"] for p in parts)
        assert m.data[d]["bytes"] == sum(p.data[d]["bytes"] for p in parts)
        h = _summed([p.data for p in parts], d)
        assert {i: n for i, n in m.data[d]["lat_hist"]["buckets"]} == h.buckets
        for p in PCTS:
            key = "p" + (str(p) if p % 1 else str(int(p)))
            assert m.data[d]["lat_ns"][key] == hist_pct(h, p)
    assert len(m.hosts) == 4 and [h["total"]["ios"] for h in m.hosts] == [p.total.ios for p in parts]
    assert m.duration_s > 0 and abs(m.total.iops - m.total.ios / m.duration_s) < 1e-6 * m.total.iops
    # associative: the merge of merges is the merge of all
    ab = merge([merge(parts[:2]), merge(parts[2:])])
    _same(ab.data, m.data)
    # and usable like any result: tables, meta
    rs = nvbench.ResultSet([m])
    assert "null" in rs.table()
    assert m.meta["hosts"] == 4


def test_merge_keeps_slat_clat_submissions_and_rate(tmp_path):
    """slat and clat merge like lat; submissions and the rate's counts add; a latency one
    part did not measure (psync's slat) is null in the merge; the library reads the
    merge back to the same figures."""
    parts = [nvbench.run(engine="null", rw="randrw", qd=4, ios=n, seed=n, rate_iops=20000)
             for n in (700, 300)]
    m = merge(parts)
    for d in ("read", "write"):
        for kind in ("slat", "clat"):
            h = Hist()
            for p in parts:
                h.add(hist_from_json(p.data[d], kind))
            assert {i: n for i, n in m.data[d][f"{kind}_hist"]["buckets"]} == h.buckets
            assert m.data[d][f"{kind}_ns"]["p99"] == hist_pct(h, 99)
    assert m.data["submissions"]["ios"] == sum(p.data["submissions"]["ios"] for p in parts) >= 1000
    rate = m.data["rate"]
    assert rate["mode"] == "open" and rate["target_iops"] == 40000
    assert rate["lag_max_ns"] == max(p.data["rate"]["lag_max_ns"] for p in parts)
    (tmp_path / "m.json").write_text(json.dumps(m.data))
    _same(m.data, nvbench.load(tmp_path / "m.json")[0].data, rel=1e-9)
    (data := tmp_path / "d.dat").write_bytes(os.urandom(1 << 20))
    sync = nvbench.run(str(data), engine="psync", rw="randread", ios=50, direct=0)
    mixed = merge([parts[0], sync])
    assert mixed.data["read"]["slat_ns"] is None and mixed.data["read"]["slat_hist"] is None
    assert mixed.data["read"]["clat_hist"]["count"] == parts[0].data["read"]["clat_hist"]["count"] + 50


def test_merged_percentiles_are_those_of_one_histogram_of_every_sample():
    import copy
    import random
    rnd = random.Random(7)
    every = Hist()
    parts = []
    # a real result as the frame; each part's read side carries a histogram
    # of known samples (the library's parser checks every part)
    base = nvbench.run(engine="null", rw="read", bs="4k", ios=1).data
    for k in range(5):
        h = Hist()
        for _ in range(3000 + 500 * k):
            v = int(rnd.lognormvariate(11, 1.2))
            one = Hist()
            one.count, one.sum, one.sumsq, one.min, one.max = 1, v, v * v, v, v
            one.buckets = {bucket_index(v): 1}
            h.add(one)
            every.add(one)
        data = copy.deepcopy(base)
        data.update(host=f"h{k}", per_target=[], timeseries=[], warnings=[])
        data["read"].update(ios=h.count, bytes=4096 * h.count, lat_hist=h.to_json())
        data["read"]["lat_ns"].update(min=h.min, max=h.max)
        data["total"].update(ios=h.count, bytes=4096 * h.count)
        parts.append(data)
    m = merge(parts)
    for p in PCTS + (0, 33.3, 100):
        assert hist_pct(_summed(parts, "read"), p) == hist_pct(every, p)
    for p, key in zip(PCTS, ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9",
                             "p99.99", "p99.999")):
        assert m.read.lat_ns[key] == hist_pct(every, p)
    assert m.read.lat_ns.max == every.max and m.read.lat_ns.min == every.min
    assert m.read.ios == every.count and len(m.hosts) == 5


def test_merge_refuses_a_bad_part_by_its_index():
    good = nvbench.run(engine="null", rw="read", bs="4k", ios=10).data
    bad = dict(good, read=dict(good["read"], ios=-1))
    with pytest.raises(nvbench.NvbenchError, match=r"part 1.*read\.ios"):
        merge([good, bad])
    with pytest.raises(TypeError, match="part 0"):
        merge(["not a result"])


def _one_hist_result(host, values, base=[]):
    """A result dict whose reads are exactly `values` (ns), in the frame of a real result."""
    import copy
    if not base:
        base.append(nvbench.run(engine="null", rw="read", bs="4k", ios=1).data)
    h = Hist()
    for v in values:
        one = Hist()
        one.count, one.sum, one.sumsq, one.min, one.max = 1, v, v * v, v, v
        one.buckets = {bucket_index(v): 1}
        h.add(one)
    data = copy.deepcopy(base[0])
    data.update(host=host, per_target=[], timeseries=[], warnings=[])
    data["read"].update(ios=h.count, bytes=4096 * h.count, lat_hist=h.to_json())
    data["read"]["lat_ns"].update(min=h.min, max=h.max)
    data["total"].update(ios=h.count, bytes=4096 * h.count)
    return data


def test_merged_sums_stay_exact_and_stddev_stable():
    # a 10 ns spread at a 1 s mean, and latencies near 2^63 ns whose sums pass 2^64 and 2^128
    parts = [_one_hist_result("a", [10**9 - 10, 10**9 + 10] * 500),
             _one_hist_result("b", [10**9 + 10, 10**9 - 10] * 700)]
    m = merge(parts)
    assert m.read.lat_ns.stddev == 10.0
    lh = m.data["read"]["lat_hist"]
    assert lh["sum"] == 2400 * 10**9 and lh["sumsq"] == str(1200 * ((10**9 - 10) ** 2 + (10**9 + 10) ** 2))
    big = [(1 << 63) + k for k in range(8)]
    m = merge([_one_hist_result("a", big[:4]), _one_hist_result("b", big[4:])])
    lh = m.data["read"]["lat_hist"]
    assert lh["sum"] == sum(big) > 2**64 and int(lh["sumsq"]) == sum(v * v for v in big) > 2**128
    assert m.read.lat_ns.stddev == pytest.approx(((sum(v * v for v in big) * 8 - sum(big) ** 2) / 64) ** 0.5,
                                                 rel=1e-9)  # written with 10 digits
    # a count the library could not hold is refused, not carried on
    huge = _one_hist_result("c", [5])
    n = 2**63
    huge["read"].update(ios=n, bytes=n)
    huge["read"]["lat_hist"].update(count=n, sum=5 * n, sumsq=str(25 * n), buckets=[[5, n]])
    huge["total"].update(ios=n, bytes=n)
    merge([huge])  # loads and merges alone
    with pytest.raises(nvbench.NvbenchError) as e:
        merge([huge, huge])
    assert e.value.errno == errno.EOVERFLOW


def test_hosts_table_marks_percentiles_without_enough_ios():
    parts = [nvbench.run(engine="null", rw="randread", qd=4, ios=600, seed=k) for k in (1, 2)]
    m = merge(parts)
    assert m.read.lat_pct_supported.p99 is True  # 1200 I/Os merged
    text = nvbench.mpi.hosts_table(m)
    head, rank0, rank1 = text.splitlines()[1:4]
    assert "n/a (n<1,000)" in rank0 and "n/a (n<1,000)" in rank1  # 600 each
    assert "p99 read n/a" not in text.splitlines()[0] and "write -," in text.splitlines()[0]  # no writes


def test_expand_targets_forms():
    from nvbench.mpi import expand_targets
    assert expand_targets("/s/{host}/r{rank}of{size}", 2, 4, "n1") == ["/s/n1/r2of4"]
    assert expand_targets(["/a{rank}", "/b"], 0, 2, "h") == ["/a0", "/b"]
    spec = {0: "/dev/x", "n7": ["/dev/y", "/dev/z"], "*": "/d/{rank}"}
    assert expand_targets(spec, 0, 3, "n1") == ["/dev/x"]
    assert expand_targets(spec, 1, 3, "n7") == ["/dev/y", "/dev/z"]
    assert expand_targets(spec, 2, 3, "n9") == ["/d/2"]
    assert expand_targets(lambda r, h: [f"/{h}/{r}"], 1, 2, "q") == ["/q/1"]
    assert expand_targets(None, 0, 1, "h") == []


def test_without_mpi4py_the_message_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    with pytest.raises(ImportError, match="python3-mpi4py"):
        nvbench.mpi.rank()


# ------------------------------------------------------------------ mpirun


@needs_mpi
def test_mpi_run_command_sums_exactly(rank_dirs):
    out = rank_dirs / "merged.json"
    p = subprocess.run(MPI + [sys.executable, "-m", "nvbench", "mpi-run", "--json", str(out), "engine=psync",
                              "rw=randrw", "bs=4k", "size=4M", f"direct={_direct(str(rank_dirs))}", "ios=3000",
                              "align_interval=1", "interval=50ms", str(rank_dirs / "r{rank}")],
                       capture_output=True, text=True, timeout=120, env=_env())
    assert p.returncode == 0, p.stderr
    m = json.loads(out.read_text())["results"][0]
    assert m["total"]["ios"] == 4 * 3000
    assert [h["total"]["ios"] for h in m["hosts"]] == [3000] * 4
    # the targets' own histograms add up to the merged one
    for d in ("read", "write"):
        assert m[d]["ios"] == sum(t[d]["ios"] for t in m["per_target"])
        h = _summed(m["per_target"], d)
        assert {i: n for i, n in m[d]["lat_hist"]["buckets"]} == h.buckets
        assert m[d]["lat_ns"]["p99"] == pytest.approx(hist_pct(h, 99), rel=1e-9)
    assert sorted(t["path"] for t in m["per_target"]) == sorted(str(rank_dirs / f"r{r}") for r in range(4))
    assert sum(s["read"]["ios"] + s["write"]["ios"] for s in m["timeseries"]) == m["total"]["ios"]
    table = p.stdout.splitlines()
    head = next(i for i, ln in enumerate(table) if ln.startswith("rank"))
    assert [ln.split()[0] for ln in table[head + 1:] if ln.strip()] == ["0", "1", "2", "3"], p.stdout


@needs_mpi
def test_mpi_api_run_and_matrix(rank_dirs):
    script = rank_dirs / "bench.py"
    script.write_text(textwrap.dedent(f"""
        import json, sys
        import nvbench, nvbench.mpi
        d = {str(rank_dirs)!r}
        r = nvbench.mpi.run(d + "/r{{rank}}", engine="psync", rw="randread", bs="4k", size="4M",
                            direct={_direct(str(rank_dirs))}, ios=1000)
        rs = nvbench.mpi.matrix({{rk: [d + "/r%d" % rk] for rk in range(4)}}, engines=["psync", "null"],
                                bs=["4k", "8k"], size="4M", direct={_direct(str(rank_dirs))}, ios=500)
        me = nvbench.mpi.rank()
        with open(d + "/out%d.json" % me, "w") as f:
            json.dump({{"run": r.data, "matrix": [x.data for x in rs], "meta": [x.meta for x in rs]}}, f)
        if me == 0:
            print(rs.table())
            print(nvbench.mpi.hosts_table(r))
    """))
    p = subprocess.run(MPI + [sys.executable, str(script)], capture_output=True, text=True, timeout=180, env=_env())
    assert p.returncode == 0, p.stderr
    outs = [json.loads((rank_dirs / f"out{r}.json").read_text()) for r in range(4)]
    assert all(o == outs[0] for o in outs[1:]), "ranks returned different results"
    o = outs[0]
    assert o["run"]["total"]["ios"] == 4000 and len(o["run"]["hosts"]) == 4
    assert len(o["matrix"]) == 4 and all(x["total"]["ios"] == 2000 for x in o["matrix"])
    assert [m["engine"] for m in o["meta"]] == ["psync", "null", "psync", "null"]
    assert all(m["hosts"] == 4 for m in o["meta"])
    assert "Random 4K" in p.stdout and "Random 8K" in p.stdout and "psync" in p.stdout and "null" in p.stdout


@needs_mpi
def test_mpi_run_bad_data_is_a_failure_on_every_rank(rank_dirs):
    # blocks read back that nothing wrote with the pattern: the merged result is written,
    # then the command fails (it exited 0, as every front door did before)
    for r in range(4):
        (rank_dirs / f"r{r}" / "data").write_bytes(os.urandom(1 << 20))
    out = rank_dirs / "merged.json"
    p = subprocess.run(MPI + [sys.executable, "-m", "nvbench", "mpi-run", "--json", str(out), "engine=psync",
                              "rw=read", "bs=4k", "ios=16", "verify=1", str(rank_dirs / "r{rank}" / "data")],
                       capture_output=True, text=True, timeout=120, env=_env())
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "verify: 64 of 64 blocks read did not match" in p.stderr, p.stderr
    m = json.loads(out.read_text())["results"][0]
    assert m["verify"]["mismatches"] == 64 and len(m["hosts"]) == 4


@needs_mpi
def test_mpi_run_missing_target_names_rank_and_host(rank_dirs):
    shutil.rmtree(rank_dirs / "r3")
    t0 = time.monotonic()
    db = rank_dirs / "runs.db"
    p = subprocess.run(MPI + [sys.executable, "-m", "nvbench", "mpi-run", "engine=psync", "size=4M", "--db", str(db),
                              "runtime=30s", str(rank_dirs / "r{rank}" / "data")],
                       capture_output=True, text=True, timeout=90, env=_env())
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert not db.exists(), "a run refused before it started opens no store"
    # (a missing file whose directory exists would be created: size is set)
    assert f"rank 3 (host {_hosts_name()}): target '{rank_dirs / 'r3' / 'data'}' does not exist" in p.stderr
    assert not (rank_dirs / "r0" / "data").exists(), "validation refused the run: nothing was created"
    assert "rank 0 (" not in p.stderr
    assert time.monotonic() - t0 < 30


@needs_mpi
def test_mpi_run_sigint_stops_every_rank(rank_dirs):
    out = rank_dirs / "partial.json"
    proc = subprocess.Popen(MPI + [sys.executable, "-m", "nvbench", "mpi-run", "--json", str(out), "engine=psync",
                                   "size=4M", f"direct={_direct(str(rank_dirs))}", "runtime=60s",
                                   str(rank_dirs / "r{rank}")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # every rank laid out its scratch file and runs
            if sum(1 for r in range(4) for n in os.listdir(rank_dirs / f"r{r}") if "nvbench" in n) >= 4:
                break
            time.sleep(0.1)
        time.sleep(1.0)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=40)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert time.monotonic() - t0 < 20
    assert proc.returncode != 0
    assert "interrupted" in stderr
    m = json.loads(out.read_text())["results"][0]
    assert m["cancelled"] and len(m["hosts"]) == 4
    assert all(h["cancelled"] and h["total"]["ios"] > 0 for h in m["hosts"])
    assert not any("nvbench" in n for r in range(4) for n in os.listdir(rank_dirs / f"r{r}"))


def mpi_run_saving(rank_dirs, db, *extra):
    """The mpi-run command of the store tests: 4 ranks of 3000 I/Os each, aligned 50 ms
    intervals, saved into db (an SQLite file or a PostgreSQL URL)."""
    return MPI + [sys.executable, "-m", "nvbench", "mpi-run", "--json", str(rank_dirs / "merged.json"), "--db",
                  str(db), "--label", "ci=1", "--no-progress", "engine=psync", "rw=randrw", "bs=4k", "size=4M",
                  f"direct={_direct(str(rank_dirs))}", "ios=3000", "align_interval=1", "interval=50ms",
                  str(rank_dirs / "r{rank}"), *extra]


def check_rank_streams(db, p, live=None, ranks=range(4)):
    """The merged run saved by rank 0 carries each rank's points (those ranks), as each rank
    measured them (its --live lines, when live names them), labelled with its rank and host,
    and, interval by interval (aligned), their sums are the merged result's series."""
    with nvbench.open_store(str(db), create=False) as st:
        (row,) = st.query()
        (r,) = st.results()
        pts = st.points([row["id"]])
    assert row["labels"] == {"ci": "1"} and r.data["total"]["ios"] == 12000 and len(r.data["hosts"]) == 4
    assert f"saved 1 run in store {db} with {len(pts)} time-series points" in p.stderr, p.stderr
    by_rank = {}
    for pt in pts:
        by_rank.setdefault(pt["label"], []).append(pt)
    assert sorted(by_rank) == [f"rank={k}" for k in ranks]
    for k in ranks:
        mine = by_rank[f"rank={k}"]
        assert [pt["idx"] for pt in mine] == list(range(len(mine)))
        assert {pt["host"] for pt in mine} == {_hosts_name()}
        assert sum(pt["read_ios"] + pt["write_ios"] for pt in mine) == 3000
        if live is not None:
            lines = [json.loads(x.rpartition(',"progress":')[0] + "}")
                     for x in (live / f"live-{k}.jsonl").read_text().splitlines()]
            assert [(pt["t_unix_ns"], pt["read_ios"], pt["write_ios"], pt["read_p99_ns"]) for pt in mine] == \
                [(x["t_unix_ns"], x["read"]["ios"], x["write"]["ios"], x["read"].get("p99")) for x in lines]
    if list(ranks) != list(range(4)):
        return
    iv = 50_000_000
    ts = r.data["timeseries"]
    assert all("intervals" not in s for s in ts)  # every interval kept: comparable one by one
    want = {}
    for pt in pts:
        w = want.setdefault(-(-pt["t_unix_ns"] // iv), [0, 0, 0, 0])
        for i, c in enumerate(("read_ios", "write_ios", "read_bytes", "write_bytes")):
            w[i] += pt[c]
    got = {-(-s["t_unix_ns"] // iv): [s["read"]["ios"], s["write"]["ios"], s["read"]["bytes"], s["write"]["bytes"]]
           for s in ts}
    assert got == want and len(ts) > 1


@needs_mpi
def test_mpi_run_streams_each_rank_and_saves_the_merged_run(rank_dirs):
    """--live: every rank its own stream, each line naming its rank, adding up to that rank's
    figures in the merged result; --db: every rank writes its points into one SQLite file
    as they are measured, and rank 0 saves the merged run with them."""
    out, db = rank_dirs / "merged.json", rank_dirs / "runs.db"
    cmd = mpi_run_saving(rank_dirs, db)
    # one file for every rank is refused on every rank, before anything runs
    p = subprocess.run(cmd + ["--live", str(rank_dirs / "live.jsonl")], capture_output=True, text=True,
                       timeout=120, env=_env())
    assert p.returncode == 2 and "name the file with {rank}" in p.stderr, p.stderr
    assert not out.exists() and not db.exists()
    p = subprocess.run(cmd + ["--live", str(rank_dirs / "live-{rank}.jsonl")], capture_output=True, text=True,
                       timeout=120, env=_env())
    assert p.returncode == 0, p.stderr
    m = json.loads(out.read_text())["results"][0]
    for rank in range(4):
        lines = (rank_dirs / f"live-{rank}.jsonl").read_text().splitlines()
        progs = [json.loads(x.rpartition(',"progress":')[2][:-1]) for x in lines]
        assert lines and all((g["rank"], g["ranks"], g["host"]) == (rank, 4, _hosts_name()) for g in progs)
        pts = [json.loads(x.rpartition(',"progress":')[0] + "}") for x in lines]
        assert sum(pt[d]["ios"] for pt in pts for d in ("read", "write")) == progs[-1]["ios"] == 3000
    assert m["total"]["ios"] == 12000
    check_rank_streams(db, p, rank_dirs)
    h = subprocess.run([sys.executable, "-m", "nvbench", "history", "--db", str(db), "--points", "1"],
                       capture_output=True, text=True, timeout=60, env=_env())
    assert h.returncode == 0 and h.stdout.split("\n")[0].split()[:4] == ["run_id", "label", "host", "idx"], h
    assert {ln.split()[1] for ln in h.stdout.splitlines()[1:]} == {f"rank={k}" for k in range(4)}, h.stdout


@needs_mpi
def test_mpi_run_a_rank_whose_store_fails_loses_its_points_only(rank_dirs):
    """Rank 2 names a store of its own (another file), rank 3 a corrupt one (mpirun's MPMD
    form: other arguments for them): the run completes, rank 0 saves the merged run with the
    points of ranks 0 and 1, says rank 2's are elsewhere, and rank 3 says its were not stored."""
    db, other, bad = rank_dirs / "runs.db", rank_dirs / "other.db", rank_dirs / "bad.db"
    bad.write_bytes(b"not a database " * 100)
    one = mpi_run_saving(rank_dirs, db)
    i = one.index("-n")
    app = one[i + 2:]
    cmd = one[:i] + ["-n", "2"] + app
    for store in (other, bad):
        cmd += [":", "-n", "1"] + [str(store) if a == str(db) else a for a in app]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=_env())
    assert p.returncode == 0, p.stderr
    check_rank_streams(db, p, ranks=range(2))
    assert f"the points of rank=2 (host {_hosts_name()}) are not in store {db}" in p.stderr, p.stderr
    assert f"rank 3 (host {_hosts_name()}): store {bad}" in p.stderr and "time-series points not stored" in p.stderr
    with nvbench.open_store(str(other), create=False) as st:
        assert st.query() == [] and len(st._conn.execute("SELECT id FROM point_streams").fetchall()) == 1
