"""Statistics behind table() and compare(): Student-t quantiles, mean CIs, Welch's test."""

import math
import random

import pytest

import _synth  # first: makes nvbench importable without the C extension
from nvbench.results import Result, ResultSet, mean_ci, t_cdf, t_critical, welch_ci

# Two-sided critical values from the standard printed t table (3 decimals).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
       16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074,
       23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045,
       30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}
T99 = {1: 63.657, 2: 9.925, 5: 4.032, 10: 3.169, 30: 2.750, 120: 2.617}
T90 = {1: 6.314, 5: 2.015, 10: 1.812, 30: 1.697}


@pytest.mark.parametrize("df,expected", sorted(T95.items()))
def test_t_critical_95_matches_table(df, expected):
    assert t_critical(df) == pytest.approx(expected, abs=6e-4)


@pytest.mark.parametrize("conf,table", [(0.99, T99), (0.90, T90)])
def test_t_critical_other_levels(conf, table):
    for df, expected in table.items():
        assert t_critical(df, conf) == pytest.approx(expected, abs=6e-4), df


def test_t_critical_limits():
    assert t_critical(math.inf) == pytest.approx(1.959964, abs=1e-6)
    assert t_critical(math.inf, 0.99) == pytest.approx(2.575829, abs=1e-6)
    assert t_critical(1e6) == pytest.approx(1.959966, abs=1e-5)
    # Exact closed forms: df=1 is Cauchy (tan), df=2 has t = sqrt(2/(a(2-a)) - 2)... check df=1.
    assert t_critical(1) == pytest.approx(math.tan(math.pi * 0.475), rel=1e-9)
    a = 0.05
    assert t_critical(2) == pytest.approx(math.sqrt(2.0 / (a * (2 - a)) - 2.0), rel=1e-9)


def test_t_critical_fractional_df_is_monotone():
    values = [t_critical(df) for df in (2.0, 2.25, 2.5, 3.0, 7.3, 7.9, 8.0)]
    assert values == sorted(values, reverse=True)
    assert t_critical(3) < t_critical(2.5) < t_critical(2)


def test_t_cdf_properties():
    assert t_cdf(0.0, 5) == pytest.approx(0.5)
    for df in (1, 3, 10, 4.5):
        for t in (0.3, 1.0, 2.5):
            assert t_cdf(-t, df) == pytest.approx(1 - t_cdf(t, df), abs=1e-12)
    # df=1 is the Cauchy distribution
    assert t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-12)


def test_t_critical_rejects_bad_input():
    with pytest.raises(ValueError):
        t_critical(0)
    with pytest.raises(ValueError):
        t_critical(5, 1.5)


def test_mean_ci_known_values():
    mean, half, n = mean_ci([1, 2, 3, 4, 5])
    # sd = sqrt(2.5), se = sd / sqrt(5), t(4) = 2.776445
    assert (mean, n) == (3.0, 5)
    assert half == pytest.approx(2.776445 * math.sqrt(2.5 / 5), rel=1e-6)


def test_mean_ci_small_and_dirty_samples():
    assert mean_ci([]) == (pytest.approx(math.nan, nan_ok=True), pytest.approx(math.nan, nan_ok=True), 0)
    mean, half, n = mean_ci([7.0])
    assert mean == 7.0 and math.isnan(half) and n == 1
    mean, half, n = mean_ci([1.0, None, float("nan"), 3.0])
    assert (mean, n) == (2.0, 2)
    assert half == pytest.approx(12.706205 * 1.0 / math.sqrt(2) * math.sqrt(2), rel=1e-6)


def test_ci_width_shrinks_with_n():
    rng = random.Random(42)
    # Averaged over many experiments (one sample of 3 can be tight by chance).
    widths = []
    for n in (3, 5, 10, 30, 100):
        ws = [mean_ci([rng.gauss(100.0, 5.0) for _ in range(n)])[1] for _ in range(200)]
        widths.append(sum(ws) / len(ws))
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < widths[0] / 5
    # Same spread, more runs: exactly the t(n-1)/sqrt(n) factor.
    for n in (2, 4, 8, 16):
        small = mean_ci([9.0, 11.0] * (n // 2))[1]
        big = mean_ci([9.0, 11.0] * n)[1]
        assert big < small


def test_welch_matches_hand_computation():
    a = [1.0, 2.0, 3.0, 4.0, 5.0]          # mean 3, var 2.5
    b = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]   # mean 7, var 14
    w = welch_ci(a, b)
    va, vb = 2.5 / 5, 14.0 / 6
    df = (va + vb) ** 2 / (va ** 2 / 4 + vb ** 2 / 5)
    half = t_critical(df) * math.sqrt(va + vb)
    assert w["diff"] == pytest.approx(4.0)
    assert w["df"] == pytest.approx(df)
    assert df == pytest.approx(6.9724, abs=1e-3)
    assert (w["low"], w["high"]) == (pytest.approx(4.0 - half), pytest.approx(4.0 + half))
    assert (w["n_a"], w["n_b"]) == (5, 6)


def test_welch_equal_variances_equals_pooled_t():
    # With equal n and equal variances Welch's df is 2n-2 and the interval is the pooled one.
    a = [10.0, 12.0, 14.0]
    b = [20.0, 22.0, 24.0]
    w = welch_ci(a, b)
    assert w["df"] == pytest.approx(4.0)
    assert w["high"] - w["diff"] == pytest.approx(2.776445 * math.sqrt(4 / 3 + 4 / 3), rel=1e-6)


def test_welch_degenerate_cases():
    w = welch_ci([5.0, 5.0, 5.0], [6.0, 6.0])
    assert w["low"] == w["high"] == 1.0          # no variance: the difference is exact
    w = welch_ci([5.0], [6.0, 7.0])
    assert math.isnan(w["low"]) and w["diff"] == pytest.approx(1.5)


def test_welch_coverage_is_about_95_percent():
    """Same population on both sides: the interval must contain 0 in ~95% of experiments."""
    rng = random.Random(7)
    trials, hits = 600, 0
    for _ in range(trials):
        a = [rng.gauss(50, 3) for _ in range(4)]
        b = [rng.gauss(50, 9) for _ in range(6)]
        w = welch_ci(a, b)
        hits += w["low"] <= 0 <= w["high"]
    assert 0.92 <= hits / trials <= 0.98


def _set(values_by_stack, metric_cell=("rand4k", "read")):
    cell, op = metric_cell
    rs = ResultSet()
    for stack, values in values_by_stack.items():
        for rep, iops in enumerate(values):
            d = _synth.result_dict(engine=stack, cell=cell, op=op, iops=iops, lat_ms=1e2 / iops)
            rs.append(Result(d, {"repeat": rep}))
    return rs


def test_compare_clear_difference_is_not_noise():
    rs = _set({"libaio": [100e3, 101e3, 99e3, 100.5e3], "io_uring": [120e3, 121e3, 119e3, 120.5e3]})
    df = rs.compare("libaio", metric="iops")
    assert len(df) == 1
    row = df.iloc[0]
    assert row["stack"] == "io_uring" and row["baseline"] == "libaio"
    # the ratio of the arithmetic means the comparison shows beside it
    ma, mb = sum([100e3, 101e3, 99e3, 100.5e3]) / 4, sum([120e3, 121e3, 119e3, 120.5e3]) / 4
    assert row["baseline_mean"] == ma and row["mean"] == mb and row["mean_kind"] == "arithmetic"
    assert row["delta_pct"] == (mb / ma - 1) * 100
    assert row["delta_pct"] == pytest.approx(100 * 20e3 / 100.125e3, abs=0.01)
    assert row["ci_method"] == "log"
    assert row["ci_low_pct"] > 0 and row["ci_high_pct"] > row["ci_low_pct"]
    assert row["verdict"] == "better"
    # Latency went down: lower is better, so that is also "better".
    lat = rs.compare("libaio", metric="lat_mean_ms").iloc[0]
    assert lat["delta_pct"] < 0 and lat["ci_high_pct"] < 0 and lat["verdict"] == "better"


def test_compare_identical_distributions_are_within_noise():
    base = [100e3, 103e3, 98e3, 101e3, 99.5e3]
    rs = _set({"libaio": base, "io_uring": list(reversed(base))})
    row = rs.compare("libaio", metric="iops").iloc[0]
    assert row["delta_pct"] == pytest.approx(0.0, abs=1e-9)
    assert row["ci_low_pct"] < 0 < row["ci_high_pct"]
    assert row["verdict"] == "within noise"


def test_compare_overlapping_noisy_samples_are_within_noise():
    rs = _set({"libaio": [100e3, 110e3, 90e3], "io_uring": [104e3, 94e3, 112e3]})
    # three noisy repeats a side: the interval holds 0 but is too wide to
    # say "no difference" -- it says that more repeats are needed
    row = rs.compare("libaio", metric="iops").iloc[0]
    assert row["ci_low_pct"] < 0 < row["ci_high_pct"] and row["verdict"] == "inconclusive"


def test_compare_interval_is_welch_on_the_log_ratio_of_the_means():
    a, b = [100.0, 104.0, 96.0], [110.0, 118.0, 114.0, 112.0]
    rs = _set({"libaio": a, "io_uring": b})
    row = rs.compare("libaio", metric="iops").iloc[0]
    ma, mb = sum(a) / 3, sum(b) / 4
    va = sum((x - ma) ** 2 for x in a) / 2 / (3 * ma * ma)   # delta method: var(log mean)
    vb = sum((x - mb) ** 2 for x in b) / 3 / (4 * mb * mb)
    df = (va + vb) ** 2 / (va * va / 2 + vb * vb / 3)
    half = t_critical(df) * math.sqrt(va + vb)
    assert row["df"] == pytest.approx(df)
    assert row["ci_low_pct"] == pytest.approx(100 * (mb / ma * math.exp(-half) - 1))
    assert row["ci_high_pct"] == pytest.approx(100 * (mb / ma * math.exp(half) - 1))


def test_compare_interval_never_leaves_the_domain_with_two_repeats():
    # the reported case: two wildly different repeats on a side gave
    # "-93.4 % [-223.2 %, +36.5 %]"; a change is never below -100 %
    rs = _set({"libaio": [100e3, 900e3], "io_uring": [40e3, 50e3]})
    row = rs.compare("libaio", metric="iops").iloc[0]
    assert -100 < row["ci_low_pct"] < row["delta_pct"] < row["ci_high_pct"]
    assert row["verdict"] == "inconclusive"
    text = rs.compare("libaio", metric="iops", fmt="text")
    assert "inconclusive" in text and "more repeats" in text


def test_table_interval_stays_positive_when_the_symmetric_one_would_not():
    rs = _set({"libaio": [10e3, 120e3]})
    cell = rs.table(metrics=["iops"], fmt="frame").iloc[0, 0]
    assert "±" not in cell and "[" in cell, cell
    assert not cell.split("[")[1].startswith("-"), cell


def test_compare_text_has_columns_absolute_values_and_one_note_for_single_runs():
    rs = _set({"libaio": [100e3], "io_uring": [120e3]})
    text = rs.compare("libaio", metric="iops", fmt="text")
    header = next(ln for ln in text.splitlines() if "Metric" in ln)
    for col in ("Stack", "libaio (qd 32) (A) mean", "B mean", "B vs A", "CI", "Verdict"):
        assert col in header, header
    assert "100,000" in text and "120,000" in text, text
    assert text.count("fewer than 2 runs") == 1 and "no CI (n<2)" not in text


def test_compare_single_runs_have_no_interval():
    rs = _set({"libaio": [100e3], "io_uring": [120e3]})
    row = rs.compare("libaio", metric="iops").iloc[0]
    assert row["delta_pct"] == pytest.approx(20.0)
    assert math.isnan(row["ci_low_pct"]) and row["verdict"] == "no CI (n<2)"


def test_compare_all_cells_and_default_metrics():
    rs = ResultSet(_synth.matrix(stacks=("libaio", "io_uring", "psync"), repeats=4,
                                 effect={"io_uring": 1.5}))
    df = rs.compare()  # baseline libaio, the six table metrics
    assert set(df["stack"]) == {"io_uring", "psync"}
    assert len(df) == 8 * 6 * 2
    assert list(dict.fromkeys(df["block"]))[:2] == ["Random 4K read", "Random 64K read"]
    iops = df[df["metric"] == "iops"]
    assert (iops[iops["stack"] == "io_uring"]["verdict"] == "better").all()
    assert (iops[iops["stack"] == "io_uring"]["delta_pct"].between(40, 60)).all()
    text = rs.compare(fmt="text")
    assert "Random 4K read (vs libaio)" in text and "better" in text
    md = rs.compare(fmt="markdown")
    assert md.startswith("**Random 4K read** (vs libaio)")


def test_compare_unknown_baseline_names_the_stacks():
    rs = _set({"libaio": [1.0, 2.0], "io_uring": [1.0, 2.0]})
    with pytest.raises(ValueError, match="io_uring"):
        rs.compare("spdk")


# --- issue 23: which mean, which interval, in which domain --------------------

from nvbench import metrics as M  # noqa: E402
from nvbench import stats as S  # noqa: E402


def _cpu_set(by_stack, cell=("rand4k", "read")):
    """Runs whose Total CPU Usage and IOPS are given: {stack: [(cpu %, iops), ...]}."""
    rs = ResultSet()
    for stack, runs in by_stack.items():
        for rep, (cpu, iops) in enumerate(runs):
            d = _synth.result_dict(engine=stack, cell=cell[0], op=cell[1], iops=iops, lat_ms=1e2 / iops,
                                   cpu_pct=cpu)
            rs.append(Result(d, {"repeat": rep}))
    return rs


def test_compare_delta_is_the_ratio_of_the_means_it_shows():
    # the reported case: Total CPU Usage 99.5 and 11.8 against 60.0 and 52.8; the
    # columns showed the arithmetic means and the delta was a ratio of geometric ones
    rs = _cpu_set({"libaio": [(99.5, 100e3), (11.8, 110e3)], "io_uring": [(60.0, 120e3), (52.8, 125e3)]})
    for rec in rs.compare("libaio").itertuples(index=False):
        assert rec.mean_kind == "arithmetic"
        assert rec.delta_pct == (rec.mean / rec.baseline_mean - 1.0) * 100.0, rec.metric
    row = rs.compare("libaio", metric="cpu_total_pct").iloc[0]
    assert row["baseline_mean"] == (99.5 + 11.8) / 2 and row["mean"] == (60.0 + 52.8) / 2
    text = rs.compare("libaio", metric="cpu_total_pct", fmt="text")
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("Total CPU Usage"))
    assert "55.65" in line and "56.40" in line and f"{(56.4 / 55.65 - 1) * 100:+.1f}%" in line, line
    assert "arithmetic means" in text and "(A) mean" in text and "B mean" in text


def test_every_metric_declares_its_domain():
    for m in M.METRICS.values():
        assert m.domain in ("positive", "share"), m
    assert {k for k, m in M.METRICS.items() if m.domain == "share"} == \
        {"cpu_total_pct", "cpu_nvbench_pct", "cpu_others_pct"}


def test_share_intervals_stay_in_0_100_and_rate_intervals_above_0():
    # the reported cases: [0.00, 26219858.41], [0.00, 1.59e+15], [-290.14, 339.71], [23.56, 158.79]
    for xs in ([99.5, 11.8], [61.82, 0.0], [0.0, 49.56], [64.42 - 30, 64.42, 64.42 + 30], [99.9, 99.99]):
        ci = S.mean_interval(xs, "share")
        assert ci["method"] == "logit" and ci["why"] is None, (xs, ci)
        assert 0.0 < ci["low"] <= ci["mean"] <= ci["high"] < 100.0, (xs, ci)
        assert ci["mean"] == sum(xs) / len(xs)
    for xs in ([10e3, 120e3], [0.0, 5.0], [1e-6, 3.0, 7.0]):
        ci = S.mean_interval(xs, "positive")
        assert ci["method"] == "log" and 0.0 < ci["low"] <= ci["mean"] <= ci["high"], (xs, ci)


def test_the_domain_is_declared_not_read_from_the_values():
    # the same values get the interval of the metric's domain, whatever they are
    xs = [20.0, 30.0, 25.0]
    share, rate = S.mean_interval(xs, "share"), S.mean_interval(xs, "positive")
    assert share["mean"] == rate["mean"] and share["low"] != rate["low"]
    rs = _cpu_set({"libaio": [(20.0, 20.0), (30.0, 30.0), (25.0, 25.0)]})
    summ = rs.summary(["cpu_total_pct", "iops"]).set_index("metric")
    assert summ.loc["cpu_total_pct", "ci_method"] == "logit" and summ.loc["iops", "ci_method"] == "log"
    assert summ.loc["cpu_total_pct", "ci_low"] == pytest.approx(share["low"])
    assert summ.loc["iops", "ci_low"] == pytest.approx(rate["low"])


def test_too_few_runs_or_a_degenerate_mean_say_so_instead_of_a_number():
    assert S.mean_interval([7.0], "share")["why"] == "n<2"
    assert S.mean_interval([], "positive")["why"] == "no run"
    for xs, domain in (([0.0, 0.0], "share"), ([100.0, 100.0], "share"), ([0.0, 0.0], "positive")):
        ci = S.mean_interval(xs, domain)
        assert math.isnan(ci["low"]) and ci["why"] == "mean at the domain's bound", (xs, ci)
    rs = _cpu_set({"libaio": [(0.0, 100e3), (0.0, 110e3)]})
    for r in rs:
        r.data["cpu"]["background_pct"] = 0.0
    cell = rs.table(metrics=["cpu_others_pct"], fmt="frame").iloc[0, 0]
    assert cell == "0.00 (no CI: mean at the domain's bound)", cell
    w = S.ratio_ci([5.0], [6.0, 7.0], "positive")
    assert w["why"] == "n<2" and math.isnan(w["low"]) and w["ratio"] == 6.5 / 5.0


def test_table_prints_the_share_interval_inside_0_100():
    rs = _cpu_set({"libaio": [(99.5, 100e3), (11.8, 110e3)]})
    cell = rs.table(metrics=["cpu_total_pct"], fmt="frame").iloc[0, 0]
    lo, hi = (float(x) for x in cell.split("[")[1].rstrip("]").split(","))
    assert cell.startswith("55.65 [") and 0.0 <= lo < 55.65 < hi <= 100.0, cell


def _lua_module_dir():
    """The build tree's Lua module: ctest runs these tests in the build directory."""
    import glob
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    for d in [os.path.join(os.getcwd(), "bindings", "lua")] + sorted(
            glob.glob(os.path.join(here, "..", "..", "build*", "bindings", "lua"))):
        if os.path.isfile(os.path.join(d, "nvbench.so")):
            return d
    return None


CROSS = [([99.5, 11.8], "share"), ([61.82, 0.0], "share"), ([100e3, 120e3, 95e3], "positive"),
         ([0.41, 0.43, 0.39, 0.47], "positive"), ([7.0], "share"), ([0.0, 0.0], "share"), ([3.0, -1.0, 2.5], "real")]


def test_python_and_lua_print_the_same_digits():
    """The same runs through Python's nvbench.stats and Lua's nvb.stats (both the
    library's nvb_stats_*): every figure identical to the last bit."""
    import shutil
    import subprocess
    lua, moddir = shutil.which("lua5.4"), _lua_module_dir()
    if lua is None or moddir is None:
        pytest.skip("lua5.4 or the built Lua module (build/bindings/lua/nvbench.so) missing")
    script = ["local nvb = require 'nvbench'",
              "local function f(v) return v == nil and 'nil' or string.format('%.17g', v) end"]
    for xs, domain in CROSS:
        vals = "{" + ", ".join(repr(x) for x in xs) + "}"
        script.append(f"do local e = nvb.stats.mean_interval({vals}, '{domain}')"
                      " print(f(e.value), f(e.low), f(e.high), e.why or 'nil') end")
    for (a, da), (b, _) in zip(CROSS[::2], CROSS[1::2]):
        if da == "real":
            continue
        va, vb = ("{" + ", ".join(repr(x) for x in v) + "}" for v in (a, b))
        script.append(f"do local e = nvb.stats.ratio({va}, {vb}, 'positive')"
                      " print(f(e.value), f(e.low), f(e.high), e.why or 'nil') end")
    p = subprocess.run([lua, "-e", "\n".join(script)], capture_output=True, text=True,
                       env={"LUA_CPATH": f"{moddir}/?.so;;", "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr

    def f(v):
        return "nil" if v is None or math.isnan(v) else "%.17g" % v
    want = []
    for xs, domain in CROSS:
        e = S.mean_interval(xs, domain)
        want.append(" ".join([f(e["mean"]), f(e["low"]), f(e["high"]), e["why"] or "nil"]))
    for (a, da), (b, _) in zip(CROSS[::2], CROSS[1::2]):
        if da == "real":
            continue
        e = S.ratio_ci(a, b, "positive")
        want.append(" ".join([f(e["ratio"]), f(e["low"]), f(e["high"]), e["why"] or "nil"]))
    got = [" ".join(line.split("\t")) for line in p.stdout.splitlines()]
    assert got == want
