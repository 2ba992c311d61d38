"""Result and ResultSet: attribute access, persistence, frames, the seed table, plots."""

import csv
import io
import json
import math
import os

import pytest

import _pkg
import _synth  # first: makes nvbench importable without the C extension
from nvbench import results as R
from nvbench.results import Result, ResultSet, load
from nvbench import plot as plot_mod

DATA = _synth.DATA

needs_extension = pytest.mark.skipif(_pkg.EXTENSION_MISSING, reason="nvbench._nvbench is not built: "
                                     "load reads nvbench results with the library's parser")


def _c_result(name="c-psync-randread.json"):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


# --- Result -------------------------------------------------------------------


def test_attribute_access_over_a_real_c_result():
    d = _c_result()
    r = Result(d)
    assert r.read.iops == d["read"]["iops"]
    assert r.read.lat_ns.p99 == d["read"]["lat_ns"]["p99"]
    assert r.read.lat_ns["p99.9"] == d["read"]["lat_ns"]["p99.9"]
    assert r.cpu.system_pct == d["cpu"]["system_pct"]
    assert r.cpu.cpu_us_per_io == d["cpu"]["cpu_us_per_io"]
    assert r.engine == "psync" and r.duration_s == d["duration_s"]
    assert r.cancelled is False and r.warnings == d["warnings"]
    assert r.get("read.lat_ns.p99.9") == d["read"]["lat_ns"]["p99.9"]
    # psync: clat is the I/O, no slat of its own
    assert r.read.clat_ns.p99 == d["read"]["clat_ns"]["p99"] and r.get("read.slat_ns") is None
    assert r.get("read.nothing", 5) == 5
    assert "iops" in dir(r.read) and "read" in dir(r)
    with pytest.raises(AttributeError, match="read.nope"):
        r.read.nope
    with pytest.raises(AttributeError):
        r.nope
    with pytest.raises(AttributeError):
        r.read.iops = 1
    with pytest.raises(AttributeError):
        r.engine = "x"


def test_meta_is_derived_from_the_workload_and_overridable():
    r = Result(_c_result())
    assert r.meta == {"engine": "psync", "rw": "randread", "bs": 4096, "qd": 1, "jobs": 1,
                      "repeat": 0, "target": "f.dat", "cell": "rand4k", "op": "read",
                      "stack": "psync"}
    r2 = Result(_c_result(), {"stack": "psync direct", "repeat": 2})
    assert r2.meta["stack"] == "psync direct" and r2.meta["repeat"] == 2
    assert r2.meta["cell"] == "rand4k"
    mixed = Result(_c_result("c-null-randrw.json"))
    assert mixed.meta["op"] == "mixed" and mixed.meta["cell"] == "rand4k"
    seq = Result(_synth.result_dict(cell="seq128k", op="write"))
    assert (seq.meta["cell"], seq.meta["op"], seq.meta["rw"]) == ("seq128k", "write", "write")


def test_to_dict_is_a_deep_copy_with_meta():
    r = Result(_c_result(), {"repeat": 1})
    d = r.to_dict()
    assert d["meta"] == r.meta
    d["read"]["iops"] = -1
    d["meta"]["repeat"] = 9
    assert r.read.iops != -1 and r.meta["repeat"] == 1
    again = Result.from_json(r.to_json())
    assert again == r and again.to_dict() == r.to_dict()


def test_results_and_views_copy_and_pickle():
    import copy
    import pickle
    r = Result(_c_result(), {"repeat": 3})
    assert pickle.loads(pickle.dumps(r)) == r and copy.deepcopy(r) == r
    lat = r.read.lat_ns
    assert pickle.loads(pickle.dumps(lat)) == lat and copy.copy(lat)["p99.9"] == lat["p99.9"]
    assert dict(lat) == r.data["read"]["lat_ns"] and lat.to_dict() == dict(lat)


def test_repr_is_readable():
    text = repr(Result(_c_result()))
    assert text.startswith("<Result psync randread bs=4k qd=1 jobs=1: read ")
    assert "IOPS" in text and "GiB/s" in text and "p99" in text
    fio_repr = repr(load(os.path.join(DATA, "fio-psync-randread.json"))[0])
    assert "source=fio]" in fio_repr and "(fio job thread only)" in fio_repr


def test_result_rejects_non_dicts():
    with pytest.raises(TypeError):
        Result([1, 2])


# --- ResultSet sequence behaviour --------------------------------------------


def test_resultset_is_a_sequence():
    items = _synth.matrix(repeats=2, shuffle=False)
    rs = ResultSet(items[:4])
    assert len(rs) == 4 and list(rs) == items[:4] and rs[0] is items[0]
    assert isinstance(rs[1:3], ResultSet) and len(rs[1:3]) == 2
    both = rs + ResultSet(items[4:6])
    assert isinstance(both, ResultSet) and len(both) == 6
    assert len(rs + items[6]) == 5 and len(rs + [items[6], items[7]]) == 6
    rs.append(items[8].to_dict())   # a dict is accepted and wrapped
    rs.extend(items[9:11])
    assert len(rs) == 7 and rs[4].meta == items[8].meta
    with pytest.raises(TypeError):
        rs.append(42)
    assert rs.index(items[1]) == 1 and items[2] in rs
    assert repr(ResultSet()) == "ResultSet([])"
    assert repr(rs).startswith("<ResultSet: 7 results")


def test_filter_and_with_meta():
    rs = ResultSet(_synth.matrix(repeats=2))
    only = rs.filter(stack="io_uring", op="read")
    assert len(only) == 8 and {r.meta["stack"] for r in only} == {"io_uring"}
    assert len(rs.filter(cell=["rand4k", "seq64k"])) == 16
    assert len(rs.filter(lambda r: r.read.iops > 0)) == 16
    relabelled = only.with_meta(stack="kernel 6.8")
    assert relabelled.stacks == ["kernel 6.8"] and only.stacks == ["io_uring"]


# --- persistence ---------------------------------------------------------------


@needs_extension
def test_save_load_round_trip_is_exact(tmp_path):
    rs = ResultSet([Result(_c_result(), {"stack": "psync direct", "repeat": 1}),
                    Result(_c_result("c-null-randrw.json"))])
    path = tmp_path / "rs.json"
    rs.save(path)
    with open(path) as f:
        raw = json.load(f)
    assert raw["schema"] == "nvbench.resultset/1"
    assert [set(x) - set(_synth.TEMPLATE) for x in raw["results"]] == [{"meta"}] * len(rs)
    back = load(path)
    assert isinstance(back, ResultSet) and back == rs
    assert [r.to_dict() for r in back] == [r.to_dict() for r in rs]
    buf = io.StringIO()
    rs.save(buf)
    assert load(io.StringIO(buf.getvalue())) == rs
    assert R.loads(buf.getvalue(), stack="x").stacks == ["x"]


@needs_extension
def test_loaded_figures_are_the_librarys(tmp_path):
    """Synthetic results state rates and percentiles their counts and histograms
    do not give; what load returns is what the library derives, labels intact,
    and loading it again changes nothing."""
    rs = ResultSet(_synth.matrix(repeats=2))
    rs.save(tmp_path / "rs.json")
    back = load(tmp_path / "rs.json")
    assert [r.meta for r in back] == [r.meta for r in rs]
    for a, b in zip(rs, back):
        assert b.read.ios == a.read.ios and b.write.bytes == a.write.bytes
        assert b.read.iops == pytest.approx(a.read.ios / a.duration_s, rel=1e-9)
    back.save(tmp_path / "again.json")
    assert load(tmp_path / "again.json") == back


@needs_extension
def test_load_accepts_cli_output_single_results_and_lists(tmp_path):
    d = _c_result()
    cli = tmp_path / "matrix.json"
    cli.write_text(json.dumps({"results": [d, d]}))
    assert len(load(cli)) == 2
    one = tmp_path / "one.json"
    one.write_text(json.dumps(d))
    (r,) = load(one)
    assert r.data == d
    lst = tmp_path / "list.json"
    lst.write_text(json.dumps([d]))
    assert load(lst)[0].data == d
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "nvbench.result/2", "engine": "x"}))
    with pytest.raises(ValueError, match="nvbench.result/2"):
        load(bad)
    bad.write_text(json.dumps({"schema": "nvbench.resultset/9", "results": []}))
    with pytest.raises(ValueError, match="resultset/9"):
        load(bad)
    bad.write_text(json.dumps({"hello": 1}))
    with pytest.raises(ValueError):
        load(bad)


def test_to_csv_and_to_frame(tmp_path):
    rs = ResultSet(_synth.matrix(repeats=2))
    df = rs.to_frame()
    assert list(df.columns) == list(R.FRAME_COLUMNS)
    assert len(df) == len(rs) == 2 * 8 * 2
    for want in ("stack", "engine", "cell", "op", "rw", "bs", "qd", "jobs", "repeat", "target",
                 "bw_gib_s", "iops", "lat_mean_ms", "lat_p50_ms", "lat_p99_ms", "lat_p99_9_ms",
                 "cpu_total_pct", "cpu_us_per_io", "iops_per_core", "process_cores", "duration_s"):
        assert want in df.columns
    row = df.iloc[0]
    r = rs[0]
    op = r.meta["op"]
    assert row["iops"] == r.data[op]["iops"]
    assert row["bw_gib_s"] == r.data[op]["bw_gib_s"]
    assert row["lat_p99_9_ms"] == pytest.approx(r.data[op]["lat_ns"]["p99.9"] / 1e6)
    assert row["cpu_total_pct"] == r.cpu.system_pct
    assert df["bs"].dtype.kind == "i" and set(df["repeat"]) == {0, 1}
    path = tmp_path / "rs.csv"
    rs.to_csv(path)
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(R.FRAME_COLUMNS) and len(rows) == len(rs)
    assert float(rows[0]["iops"]) == pytest.approx(row["iops"])


def _short(iops, repeat=0, stack="libaio"):
    """A 2 s synthetic random 4K read of iops * 2 I/Os."""
    return Result(_synth.result_dict(iops=iops, duration_s=2.0), {"stack": stack, "repeat": repeat})


def test_percentiles_without_enough_ios_show_as_such():
    # 3000 I/Os: p99 rests on 30 beyond its rank, p99.9 on 3 (10,000 needed)
    r = _short(1500)
    assert r.read.lat_pct_supported.p99 is True and r.read.lat_pct_supported["p99.9"] is False
    row = r.figures()
    assert row["lat_p99_ms"] == pytest.approx(r.read.lat_ns.p99 / 1e6)
    assert row["lat_p99_9_ms"] != row["lat_p99_9_ms"]  # NaN: not a measured p99.9
    assert row["lat_pct_unsupported"] == "lat_p99_9_ms"
    rs = ResultSet([_short(1500, k) for k in range(3)] + [_short(1e6, k, "io_uring") for k in range(3)])
    text = rs.table(metrics=["lat_p99_ms", "lat_p99_9_ms"])
    line = next(ln for ln in text.splitlines() if ln.startswith("p99.9 Latency"))
    assert "n/a (n<10,000)" in line and line.count("n/a") == 1  # io_uring's 2 M I/Os are enough
    line = next(ln for ln in text.splitlines() if ln.startswith("p99 Latency"))
    assert "n/a" not in line
    cmp = rs.compare(baseline="libaio", metric="lat_p99_9_ms")
    assert list(cmp["verdict"]) == ["n/a (n<10,000)"]
    # 1000 I/Os: not even p99 (its rank leaves exactly 10 above only from 1000 on)
    assert "p99 n/a (n<1,000)" in repr(_short(499.5))
    assert "p99 n/a" not in repr(_short(500)) and " p99 " in repr(_short(500))


@needs_extension
def test_percentile_support_is_the_librarys_rule():
    """The library writes lat_pct_supported; the Python rule (merge, tables) agrees
    on both sides of every threshold."""
    from nvbench._percentile import PCT_KEYS, PCT_VALS, pct_min_ios, pct_supported
    for p in PCT_VALS:
        n = pct_min_ios(p)
        for count in (n - 1, n, n + 1):
            d = _synth.result_dict(iops=count / 2.0, duration_s=2.0)
            (r,) = R.loads(json.dumps(d))
            got = r.data["read"]["lat_pct_supported"]
            assert r.data["read"]["lat_hist"]["count"] == count
            assert got == {k: pct_supported(count, v) for k, v in zip(PCT_KEYS, PCT_VALS)}
            assert got[PCT_KEYS[PCT_VALS.index(p)]] is (count >= n)


def _older(d):
    """d as results were written before the exact sums: the sum of squares a number,
    no lat_pct_supported."""
    d = json.loads(json.dumps(d))
    for side in [d["read"], d["write"]] + [t[x] for t in d["per_target"] for x in ("read", "write")]:
        side["lat_hist"]["sumsq"] = int(side["lat_hist"]["sumsq"])
        del side["lat_pct_supported"]
    return d


@needs_extension
def test_older_result_files_still_load():
    from _hist import hist_from_json
    from nvbench.merge import merge
    d = _c_result("c-psync-randread.json")
    (r,) = R.loads(json.dumps(_older(d)))
    assert r.data == d  # exact below 2^53: the same sums, now written as digits
    # c-null-randrw.json was recorded before the sums were exact: its read
    # sumsq passed 2^53, so it is a rounded number, and stays one
    legacy = _c_result("c-null-randrw.json")
    assert isinstance(legacy["read"]["lat_hist"]["sumsq"], int) and legacy["read"]["lat_hist"]["sumsq"] > 2**53
    (r,) = R.loads(json.dumps(legacy))
    assert r.data == legacy
    old = _older(d)
    old["read"]["lat_hist"]["sumsq"] = 2.3958317675380221e+20  # rounded: kept as it was
    (r,) = R.loads(json.dumps(old))
    assert r.data["read"]["lat_hist"]["sumsq"] == 2.3958317675380221e+20
    h = hist_from_json(r.data["read"])
    assert isinstance(h.sumsq, float) and h.stddev() > 0
    m = merge([r.data, d])
    assert isinstance(m.data["read"]["lat_hist"]["sumsq"], float)  # rounded stays rounded
    assert isinstance(merge([d, d]).data["read"]["lat_hist"]["sumsq"], str)


def test_frame_of_a_mixed_run_has_both_directions():
    d = _c_result("c-null-randrw.json")
    df = ResultSet([Result(d)]).to_frame()
    row = df.iloc[0]
    assert row["op"] == "mixed"
    assert row["read_iops"] == d["read"]["iops"] and row["write_iops"] == d["write"]["iops"]
    assert row["iops"] == pytest.approx(d["read"]["iops"] + d["write"]["iops"])
    # the library's total: its rate, and the mean of every latency of both directions
    assert row["iops"] == d["total"]["iops"] and row["bw_gib_s"] == d["total"]["bw_gib_s"]
    assert row["lat_mean_ms"] == d["total"]["lat_mean_ns"] / 1e6
    assert math.isnan(row["lat_p99_ms"])
    assert row["read_lat_p99_ms"] == pytest.approx(d["read"]["lat_ns"]["p99"] / 1e6)


# --- the seed table ---------------------------------------------------------------


SEED_ORDER = ["Random 4K read", "Random 64K read", "Sequential 64K read", "Sequential 128K read",
              "Random 4K write", "Random 64K write", "Sequential 64K write",
              "Sequential 128K write"]
ROWS = ["Bandwidth (GiB/s)", "IOPS", "Average Latency (ms)", "Total CPU Usage (%)",
        "of which nvbench (%)", "other processes (%)", "CPU per I/O (us)", "IOPS per core"]


def test_table_layout_follows_the_published_order():
    rs = ResultSet(_synth.matrix(stacks=("libaio", "io_uring"), repeats=3))  # shuffled input
    frame = rs.table(fmt="frame")
    blocks = list(dict.fromkeys(frame.index.get_level_values("block")))
    assert blocks == SEED_ORDER
    for block in SEED_ORDER:
        assert list(frame.loc[block].index) == ROWS
    assert list(frame.columns) == rs.stacks
    cell = frame.loc[("Random 4K read", "IOPS"), "libaio"]
    assert " [" in cell and cell.endswith("]")   # three repeats: mean [interval in the domain]
    text = rs.table()
    lines = text.splitlines()
    assert lines[0].split() == ["Random", "4K", "read"] + rs.stacks
    assert [line.split("  ")[0].strip() for line in lines[2:2 + len(ROWS)]] == ROWS
    assert text.index("Sequential 128K read") < text.index("Random 4K write")
    md = rs.table(fmt="markdown")
    assert md.startswith("**Random 4K read**")
    assert "| Metric | " + " | ".join(rs.stacks) + " |" in md


def test_table_values_are_means_over_repeats():
    rs = ResultSet()
    for rep, iops in enumerate((100e3, 110e3, 120e3)):
        rs.append(Result(_synth.result_dict(iops=iops), {"repeat": rep}))
    frame = rs.table(metrics=["iops"], fmt="frame")
    ci = R.mean_interval([100e3, 110e3, 120e3], "positive")
    assert frame.iloc[0, 0] == f"{ci['mean']:,.0f} [{ci['low']:,.0f}, {ci['high']:,.0f}]"
    single = ResultSet(rs[:1]).table(metrics=["iops"], fmt="frame")
    assert single.iloc[0, 0] == "100,000"
    summ = rs.summary(["iops"])
    assert summ.iloc[0]["mean"] == pytest.approx(110e3) and summ.iloc[0]["n"] == 3


def test_table_keeps_configurations_apart():
    rs = ResultSet([Result(_synth.result_dict(qd=1, iops=10e3)),
                    Result(_synth.result_dict(qd=32, iops=300e3))])
    frame = rs.table(metrics=["iops"], fmt="frame")
    assert list(frame.columns) == ["libaio qd=1", "libaio qd=32"]
    assert list(frame.iloc[0]) == ["10,000", "300,000"]


def test_table_extra_cells_follow_the_seed_cells():
    extra = Result(_synth.result_dict(cell="rand4k", op="read"),
                   {"cell": "rand8k", "bs": 8192})
    rs = ResultSet([extra, Result(_synth.result_dict(cell="seq64k", op="write")),
                    Result(_synth.result_dict(cell="rand64k", op="read"))])
    assert [R.block_label(*b) for b in rs.blocks()] == [
        "Random 64K read", "Random 8K read", "Sequential 64K write"]
    with pytest.raises(ValueError):
        rs.table(fmt="html")
    with pytest.raises(ValueError, match="unknown metric"):
        rs.table(metrics=["speed"])
    assert ResultSet().table() == ""


def test_format_value():
    assert R.format_value("iops", 2636516) == "2,636,516"
    assert R.format_value("cpu_total_pct", 74.2222) == "74.22"
    assert R.format_value("bw_gib_s", 10.058) == "10.058"
    assert R.format_value("lat_mean_ms", 0.0000444) == "0.0000444"
    assert R.format_value("lat_mean_ms", float("nan")) == "n/a"
    assert R.format_value("lat_p99_ms", None) == "n/a"


# --- plots -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def mpl():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    return matplotlib


@pytest.mark.parametrize("kind", ["bars", "latency", "efficiency"])
def test_plots_return_savefig_ready_figures(mpl, tmp_path, kind):
    from matplotlib.figure import Figure
    rs = ResultSet(_synth.matrix(repeats=3))
    fig = rs.plot(kind)
    assert isinstance(fig, Figure) and fig.axes
    out = tmp_path / f"{kind}.png"
    fig.savefig(out, dpi=50)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bars_have_one_bar_per_stack_and_cell_with_error_bars(mpl):
    rs = ResultSet(_synth.matrix(stacks=("libaio", "io_uring", "psync"), repeats=3))
    fig = rs.plot("bars", metric="iops")
    (ax,) = fig.axes
    assert len(ax.patches) == 3 * 8
    assert [t.get_text() for t in ax.get_legend().get_texts()] == rs.stacks
    from matplotlib.container import BarContainer, ErrorbarContainer
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 3 and all(b.errorbar is not None for b in bars)
    assert sum(isinstance(c, ErrorbarContainer) for c in ax.containers) == 3
    assert len(fig.axes) == 1
    assert len(rs.plot("bars").axes) == 6


def test_figures_say_what_ran_and_every_panel_has_a_legend(mpl):
    rs = ResultSet(_synth.matrix(stacks=("libaio", "io_uring"), repeats=2))
    for kind in ("bars", "efficiency", "latency"):
        fig = rs.plot(kind)
        title = fig._suptitle.get_text()
        assert "qd 32" in title and "target /dev/synth" in title, title
        shown = [a for a in fig.axes if a.get_visible()]
        assert all(a.get_legend() is not None for a in shown), kind


def test_narrow_latency_ranges_still_have_labelled_ticks(mpl, tmp_path):
    # p50..p99.9 within 3x: a plain log axis showed one labelled tick or none
    rs = ResultSet(_synth.matrix(stacks=("libaio",), repeats=1, shuffle=False))
    fig = rs.plot("latency", cells="rand4k read")
    fig.savefig(tmp_path / "l.png", dpi=50)  # ticks are placed at draw time
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    lo, hi = ax.get_ylim()
    inside = [t for t, lab in zip(ax.get_yticks(), ax.get_yticklabels()) if lab.get_text() and lo <= t <= hi]
    assert len(inside) >= 2, (labels, lo, hi)


def test_plot_on_a_given_axes(mpl):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    try:
        rs = ResultSet(_synth.matrix(repeats=2))
        assert rs.plot("bars", metric="bw_gib_s", ax=ax) is fig
        with pytest.raises(ValueError):
            rs.plot("bars", ax=ax)           # six metrics do not fit one axes
        with pytest.raises(ValueError):
            rs.plot("latency", ax=ax)        # eight cells do not either
        fig2, ax2 = plt.subplots()
        assert rs.plot("latency", ax=ax2, cells="rand4k read") is fig2
        plt.close(fig2)
    finally:
        plt.close(fig)
    with pytest.raises(ValueError):
        rs.plot("pie")
    with pytest.raises(ValueError):
        ResultSet().plot()


# --- issue 23: percentile curves, error bars in the domain, the qd that ran, short series

def _pct_runs():
    """rand4k read, libaio: one short run (2,000 I/Os: no p99.9, p99 3 ms) and two long ones
    (20,000 I/Os: p99 0.5 ms, p99.9 0.85 ms) -- the notebook's libaio rand4k case."""
    short = _synth.result_dict(iops=1000.0, lat_ms=1.0, pcts={"p50": 0.9, "p90": 1.5, "p99": 3.0, "p99.9": 6.0})
    long_ = [_synth.result_dict(iops=10000.0, lat_ms=0.1, pcts={"p50": 0.9, "p90": 2.0, "p99": 5.0, "p99.9": 8.5})
             for _ in range(2)]
    assert short["read"]["lat_pct_supported"]["p99.9"] is False
    return ResultSet([Result(d, {"repeat": i}) for i, d in enumerate([short] + long_)])


def test_percentiles_of_a_cell_come_from_the_same_runs():
    rs = _pct_runs()
    keys = ["lat_p50_ms", "lat_p90_ms", "lat_p99_ms", "lat_p99_9_ms"]
    summ = rs.summary(keys).set_index("metric")
    assert set(summ.loc[keys, "n"]) == {2}, summ[["mean", "n"]]   # the two runs that have them all
    curve = list(summ.loc[keys, "mean"])
    assert curve == sorted(curve), curve                            # a curve never falls
    assert summ.loc["lat_p99_ms", "mean"] == pytest.approx(0.5, rel=0.02)
    assert "2 of 3 runs" in summ.loc["lat_p99_ms", "note"] and "p99.9" in summ.loc["lat_p99_ms", "note"]
    assert rs.summary(["lat_mean_ms"]).iloc[0]["n"] == 3   # the mean is not a percentile: every run
    cell = rs.table(metrics=keys, fmt="frame").loc[("Random 4K read", "p99 Latency (ms)"), "libaio"]
    assert cell.endswith("(2/3 runs)"), cell
    assert "too few I/Os" in rs.table(metrics=keys)


def test_bars_error_bars_stay_in_the_metric_domain(mpl):
    # Total CPU Usage 99.5 % and 11.8 %: the symmetric interval ran the axis to 600 %
    rs = ResultSet()
    for rep, cpu in enumerate((99.5, 11.8)):
        rs.append(Result(_synth.result_dict(cpu_pct=cpu), {"repeat": rep}))
    fig = rs.plot("bars", metric="cpu_total_pct")
    (ax,) = fig.axes
    from matplotlib.container import ErrorbarContainer
    (eb,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    tops = [seg[:, 1].max() for coll in eb.lines[2] for seg in coll.get_segments()]
    bottoms = [seg[:, 1].min() for coll in eb.lines[2] for seg in coll.get_segments()]
    assert tops and max(tops) <= 100.0 and min(bottoms) >= 0.0, (tops, bottoms)
    assert ax.get_ylim()[1] <= 110.0


def _psync_at_qd1():
    """libaio and psync asked for qd 32; psync ran at 1 (qd_effective)."""
    out = []
    for stack, qde in (("libaio", 32), ("psync", 1)):
        for rep in range(2):
            d = _synth.result_dict(engine=stack, iops=100e3 * (1 + rep / 50), qd=32)
            d["qd_effective"] = qde
            out.append(Result(d, {"repeat": rep}))
    return ResultSet(out)


def test_comparisons_and_figures_say_the_qd_each_engine_ran_at(mpl):
    rs = _psync_at_qd1()
    df = rs.compare("libaio", metric="iops")
    assert df.iloc[0]["qd"] == "1" and df.iloc[0]["baseline_qd"] == "32"
    text = rs.compare("libaio", metric="iops", fmt="text")
    assert "psync (qd 1)" in text and "libaio (qd 32) (A)" in text, text
    fig = rs.plot("latency")
    title = fig._suptitle.get_text()
    assert "psync ran at 1" in title, title
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["libaio (qd 32)", "psync (qd 1)"], legend


def test_a_series_of_one_interval_is_a_point_not_a_flat_line(mpl):
    d = _synth.result_dict()
    (sample,) = d["timeseries"]       # the template: one 0.3 s interval of a 0.3 s run
    sample["read"].update({"p50": 1e6, "p99": 2e6, "p99.9": 3e6})
    fig = plot_mod.latency_over_time(Result(d, {}))
    ax = fig.axes[0]
    for line in ax.get_lines():
        assert len(line.get_xdata()) == 1 and line.get_marker() not in (None, "", "None"), line
        assert line.get_linestyle() in ("None", "none", ""), line
    assert "too short" in ax.get_title()
