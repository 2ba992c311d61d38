"""The bundled published figures (nvbench.reference) and their place in the seed table."""

import csv
import importlib
import os

import pytest

import _synth  # first: makes nvbench importable without the C extension
from nvbench.reference import SEED_LOGICAL_CPUS, SEED_STACKS, reference
from nvbench.results import Result, ResultSet

ref_mod = importlib.import_module("nvbench.reference")  # nvbench.reference is the function

SEED_ORDER = ["Random 4K read", "Random 64K read", "Sequential 64K read", "Sequential 128K read",
              "Random 4K write", "Random 64K write", "Sequential 64K write",
              "Sequential 128K write"]


def test_reference_holds_every_published_figure():
    rs = reference()
    assert isinstance(rs, ResultSet) and len(rs) == 32
    assert rs.stacks == list(SEED_STACKS)
    assert {(r.meta["cell"], r.meta["op"]) for r in rs} == {
        (c, o) for c in ("rand4k", "rand64k", "seq64k", "seq128k") for o in ("read", "write")}
    assert all(r.data["source"] == "reference" for r in rs)


def test_reference_values_match_the_articles():
    (r,) = reference(stacks=["windows_native"], cells=["rand4k"], ops=["read"])
    assert r.read.bw_gib_s == 10.058
    assert r.read.iops == 2636516
    assert r.read.lat_ns.mean == pytest.approx(0.104e6)
    assert r.cpu.system_pct == 74.22
    (w,) = reference(stacks=["linux_io_uring"], cells=["seq128k"], ops=["write"])
    assert (w.write.bw_gib_s, w.write.iops, w.cpu.system_pct) == (52.083, 427000, 44.27)
    assert w.meta["rw"] == "write" and w.meta["bs"] == 131072


def test_bundled_csv_is_complete_and_self_consistent():
    path = os.path.join(os.path.dirname(ref_mod.__file__), "data", "seed-results.csv")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 32
    assert list(rows[0]) == ["stack", "workload", "op", "bw_gib_s", "iops", "avg_lat_ms",
                             "total_cpu_pct"]
    # IOPS x block size = bandwidth for every published row (within the articles' rounding).
    for r in reference():
        d = r.data[r.meta["op"]]
        assert d["iops"] * r.meta["bs"] / 2**30 == pytest.approx(d["bw_gib_s"], rel=5e-3)


def test_derived_cpu_figures_use_the_seed_machine():
    assert SEED_LOGICAL_CPUS == 512
    (r,) = reference(stacks=["windows_native"], cells=["rand4k"], ops=["read"])
    busy = 0.7422 * 512                     # ~380 busy logical CPUs
    assert r.cpu.busy_cpus == pytest.approx(busy)
    assert r.cpu.cpu_us_per_io == pytest.approx(busy * 1e6 / 2636516)
    assert r.cpu.cpu_us_per_io == pytest.approx(144.1, abs=0.1)
    assert r.cpu.iops_per_core == pytest.approx(6938, abs=1)
    row = ResultSet([r]).to_frame().iloc[0]
    assert row["cpu_us_per_io"] == pytest.approx(144.13, abs=0.01)
    assert row["process_cores"] != row["process_cores"]   # NaN: not published
    assert row["lat_p99_ms"] != row["lat_p99_ms"]


def test_reference_table_is_the_published_layout():
    frame = reference().table(fmt="frame")
    assert list(dict.fromkeys(frame.index.get_level_values("block"))) == SEED_ORDER
    assert list(frame.columns) == list(SEED_STACKS)
    block = frame.loc["Random 4K read"]
    assert list(block.loc["Bandwidth (GiB/s)"]) == ["6.100", "10.058", "9.198", "9.504"]
    assert list(block.loc["IOPS"]) == ["1,598,959", "2,636,516", "2,411,000", "2,491,000"]
    assert list(block.loc["Average Latency (ms)"]) == ["0.169", "0.104", "0.198", "0.192"]
    assert list(block.loc["Total CPU Usage (%)"]) == ["72.67", "74.22", "99.77", "99.76"]
    assert "±" not in reference().table()


def test_user_results_sit_beside_the_reference():
    mine = ResultSet(_synth.matrix(stacks=("libaio", "io_uring"), repeats=3, shuffle=False))
    both = mine + reference()
    frame = both.table(fmt="frame")
    assert list(frame.columns) == ["libaio", "io_uring"] + list(SEED_STACKS)
    assert list(dict.fromkeys(frame.index.get_level_values("block"))) == SEED_ORDER
    assert " [" in frame.loc[("Random 4K read", "IOPS"), "io_uring"]  # repeats: the interval
    assert frame.loc[("Random 4K read", "IOPS"), "windows_native"] == "2,636,516"
    md = both.table(fmt="markdown")
    assert "| Metric | libaio | io_uring | windows_non_native |" in md
    # A user's run in only one cell: the other blocks show only the reference columns.
    one = ResultSet([Result(_synth.result_dict(engine="io_uring"))]) + reference()
    text = one.table()
    first, second = text.split("\n\n")[:2]
    assert "io_uring" in first.splitlines()[0]
    assert "io_uring" not in second.splitlines()[0].replace("linux_io_uring", "")


def test_compare_against_a_published_stack():
    df = reference().compare(baseline="linux_libaio", metric="iops")
    row = df[(df["block"] == "Random 4K read") & (df["stack"] == "windows_native")].iloc[0]
    assert row["delta_pct"] == pytest.approx(100 * (2636516 - 2411000) / 2411000)
    assert row["verdict"] == "no CI (n<2)"   # one published run per cell: no interval


def test_reference_filters():
    assert len(reference(stacks=["linux_io_uring", "linux_libaio"])) == 16
    assert len(reference(cells=["seq128k"], ops=["read"])) == 4
    assert len(reference(stacks=[])) == 0
