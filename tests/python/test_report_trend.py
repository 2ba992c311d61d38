"""The HTML report's trend view: a store's runs over time, one figure per
metric, one line per host and stack, the runs saved together as one point
with the confidence interval of their mean."""
import json
import re

import pytest

import nvbench
from nvbench import stats
from nvbench._report_figures import missing
from nvbench._report_trend import point_spreads, trend_data
from nvbench.store import open_store

from conftest import cli

T0 = 1_796_000_000_000_000_000


def _row(host, stack, saved_at, t, iops, p99=None):
    return {"host": host, "stack": stack, "engine": stack, "cell": "randread 4k qd1", "workload_key": "k",
            "saved_at": saved_at, "start_unix_ns": T0 + t * 10**9, "iops": iops, "bw_gib_s": None,
            "lat_mean_ms": None, "lat_p99_ms": p99, "cpu_us_per_io": None}


def test_trend_points_per_host_and_stack_with_the_interval_of_their_repeats():
    rows = [_row("a", "io_uring", "d1", 0, 100.0, 0.2), _row("a", "io_uring", "d1", 1, 110.0, 0.3),
            _row("a", "io_uring", "d1", 2, 90.0, 0.25),
            _row("a", "io_uring", "d2", 86400, 80.0),              # one run: no interval
            _row("b", "io_uring", "d1", 5, 200.0), _row("b", "io_uring", "d1", 6, 210.0),
            _row("a", "libaio", "d2", 86401, 70.0)]
    data = trend_data(rows)
    assert set(data) == {"iops", "lat_p99_ms"}  # metrics without values have no figure
    lines = data["iops"]["randread 4k qd1"]
    assert set(lines) == {("a", "io_uring"), ("b", "io_uring"), ("a", "libaio")}
    first, second = lines[("a", "io_uring")]
    ci = stats.mean_interval([100.0, 110.0, 90.0], "positive")
    assert first["n"] == 3 and first["mean"] == pytest.approx(ci["mean"])
    assert (first["low"], first["high"]) == (pytest.approx(ci["low"]), pytest.approx(ci["high"]))
    assert first["low"] < 100.0 < first["high"]
    assert first["when"] < second["when"]  # oldest first
    assert second["n"] == 1 and second["low"] is None and second["why"] == "n<2"
    assert [p["n"] for p in lines[("b", "io_uring")]] == [2]
    assert [p["n"] for p in data["lat_p99_ms"]["randread 4k qd1"][("a", "io_uring")]] == [3]


def test_report_from_a_store_has_the_trend_view(tmp_path):
    db = tmp_path / "r.db"
    runs = []
    for host in ("hostA", "hostB"):
        for _ in range(2):
            r = nvbench.run(engine="null", runtime=0.1, interval="50ms")
            d = r.to_dict()
            d["host"] = host
            runs.append(d)
    with open_store(str(db)) as st:
        st.save(runs)
        rows = st.query()
    out = tmp_path / "report.html"
    p = cli("report", "--db", db, "-o", out)
    assert p.returncode == 0, p.stderr
    page = out.read_text()
    assert '<section id="trend">' in page and '<a href="#trend">Trend</a>' in page
    assert "4 runs from the store." in page
    # the figures' data: each host's points, their means the runs' own figures
    data = trend_data(rows)
    for host in ("hostA", "hostB"):
        pts = [p for (h, _), ps in data["iops"][next(iter(data["iops"]))].items() if h == host for p in ps]
        assert sum(p["n"] for p in pts) == 2
        own = sorted(r["iops"] for r in rows if r["host"] == host)
        if len(pts) == 1:  # saved within one second: one point of both runs
            assert pts[0]["mean"] == pytest.approx(sum(own) / 2)
        else:
            assert sorted(p["mean"] for p in pts) == pytest.approx(own)
    if missing():
        assert "No figure" in page
        return
    figs = re.findall(r'<figure class="card" data-metric="([a-z_0-9]+)"><svg', page)
    assert figs.count("iops") == 1 and "lat_p99_ms" in figs and "cpu_us_per_io" in figs
    trend = page[page.index('<section id="trend">'):]
    assert "hostA / null" in trend and "hostB / null" in trend  # one line each, named in the legend


def test_report_needs_files_or_a_store(tmp_path):
    p = cli("report", "-o", tmp_path / "x.html")
    assert p.returncode != 0 and "--db" in p.stderr
    p = cli("report", "--db", tmp_path / "none.db", "-o", tmp_path / "x.html")
    assert p.returncode != 0


def test_a_run_with_stored_points_shows_its_spread_within_the_run(tmp_path):
    """A point of one run whose points are in the store: the 5th to 95th percentile of its
    intervals' IOPS, from the stored points (every interval as measured)."""
    import subprocess
    import sys
    db = tmp_path / "p.db"
    p = subprocess.run([sys.executable, "-m", "nvbench", "run", "engine=null", "rw=randrw", "runtime=500ms",
                        "interval=50ms", "rate_iops=20000", "--db", str(db), "--print-json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    with open_store(str(db)) as st:
        rows = st.query()
        pts = st.points([rows[0]["id"]])
    spreads = point_spreads(pts)
    iops = sorted((x["read_iops"] or 0) + (x["write_iops"] or 0) for x in pts)
    lo, hi = spreads[rows[0]["id"]]["iops"]
    assert len(pts) >= 2 and lo in iops and hi in iops and lo <= hi
    assert iops.index(lo) <= len(iops) // 10 + 1 and iops.index(hi) >= len(iops) - 2 - len(iops) // 10
    (pt,) = [x for lines in trend_data(rows, spreads)["iops"].values() for ps in lines.values() for x in ps]
    assert pt["n"] == 1 and pt["spread"] == (lo, hi)
    assert trend_data(rows)["iops"] and all(x["spread"] is None for lines in trend_data(rows)["iops"].values()
                                            for ps in lines.values() for x in ps)
    out = tmp_path / "report.html"
    r = cli("report", "--db", db, "-o", out)
    assert r.returncode == 0, r.stderr
    if not missing():
        assert "5th to the 95th percentile of its intervals" in out.read_text()


def test_an_mpi_runs_spread_is_of_its_ranks_summed_interval_by_interval():
    """The points of an mpi-run's ranks (streams rank=R) run at once: an interval's IOPS is
    their sum, not each rank's alone."""
    pts = []
    for rank, scale in ((0, 1.0), (1, 3.0)):
        for i, v in enumerate((100.0, 200.0, 300.0, 400.0)):
            pts.append({"run_id": 7, "label": f"rank={rank}", "idx": i, "read_iops": v * scale,
                        "write_iops": None, "read_bw_bytes_s": v * scale * 4096, "write_bw_bytes_s": 0.0})
    spread = point_spreads(pts)[7]
    assert spread["iops"] == (400.0, 1600.0)
    assert spread["bw_gib_s"] == (400.0 * 4096 / 2**30, 1600.0 * 4096 / 2**30)
    # the points of a run's steps (another label) are intervals of their own
    one = [dict(p, label="a") for p in pts]
    assert point_spreads(one)[7]["iops"] == (100.0, 1200.0)
