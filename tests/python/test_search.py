"""nvbench.search, `nvbench search` and the curve plot: the search's logic on a latency model
that is exact by construction (an injected run function), and its properties on the null
engine with fault.delay (no latency can be below the delay: a bound under it is never kept,
a bound far above it always is). No assertion on timing."""
import json

import pytest

import nvbench
from nvbench.search import parse_target

from conftest import cli


class FakeResult:
    def __init__(self, iops, lat, warn=()):
        self.data = {"read": {"ios": 1000, "iops": iops,
                              "lat_ns": {"p50": lat / 2, "p99": lat, "p99.9": lat * 1.5},
                              "lat_pct_supported": {"p50": True, "p99": True, "p99.9": True}},
                     "write": {"ios": 0, "iops": 0, "lat_ns": {}}, "warnings": list(warn)}
        self.meta = {}


def model_qd(per_qd_ns):
    """A device whose p99 grows linearly with qd and whose IOPS grow with it too."""
    calls = []

    def run(**kw):
        qd = kw["qd"]
        calls.append(qd)
        return FakeResult(iops=1000.0 * qd / (1 + qd / 64), lat=per_qd_ns * qd, warn=["same warning"])
    return run, calls


@pytest.mark.parametrize("bound_us, want", [(1000, 10), (1600, 16), (99, None), (250, 2), (10**6, 64)])
def test_qd_search_finds_the_highest_qd_within_the_bound(bound_us, want):
    run, calls = model_qd(100_000)  # p99 = 100us x qd
    with pytest.warns(nvbench.NvbenchWarning, match="same warning"):
        res = nvbench.search({"engine": "null"}, target=f"p99<={bound_us}us", vary="qd", max_qd=64, run=run)
    assert len(calls) == len(set(calls))  # no depth run twice
    if want is None:
        assert res.answer is None and calls == [1]
    else:
        assert res.answer["qd"] == want
        # the doubling, then the bisection between the last good and the first bad depth
        doubling = [q for q in calls if q & (q - 1) == 0]
        assert doubling[:len(doubling)] == [1 << i for i in range(len(doubling))]
        assert all(p["ok"] == (p["lat_ns"] <= bound_us * 1000) for p in res.points)
        assert res.answer["iops"] == max(p["iops"] for p in res.points if p["ok"])
        if want < 64:
            assert want + 1 in calls  # the first depth that breaks it was seen
    # each warning once, with the points it came from
    assert len([w for w in res.warnings if w.startswith("same warning")]) == 1, res.warnings


def test_search_text_has_thousands_separators_and_each_warning_once_with_a_count():
    def run(**kw):
        qd = kw["qd"]
        r = FakeResult(iops=1234567.0 * qd, lat=1000.0 * qd,
                       warn=[f"engine psync is synchronous: qd {qd} runs as qd 1 per job"])
        r.data["read"]["lat_pct_supported"]["p99"] = False
        return r
    with pytest.warns(nvbench.NvbenchWarning):
        res = nvbench.search({"engine": "null"}, target="p99<=1s", vary="qd", max_qd=8, run=run)
    text = res.table()
    assert "1,234,567" in text and "9,876,536" in text, text
    assert "answer: qd=8: 9,876,536 IOPS" in text, text
    few = [w for w in res.warnings if "rests on fewer than 10 samples" in w]
    assert len(few) == 1 and "4 of 4 points" in few[0] and "qd=1, 2, 4, 8" in few[0], res.warnings
    sync = [w for w in res.warnings if "is synchronous" in w]
    assert sync == ["engine psync is synchronous: qd 1-8 runs as qd 1 per job (4 of 4 runs: qd=1, qd=2, "
                    "qd=4, ...)"], res.warnings


def test_rate_search_brackets_the_rate_where_the_bound_breaks():
    # unthrottled: 100000 IOPS at 5ms; throttled, p99 = 10us + 10us per 1000 IOPS
    calls = []

    def run(**kw):
        rate = kw.get("rate_iops")
        calls.append(rate)
        if rate is None:
            return FakeResult(100000.0, 5e6)
        return FakeResult(float(rate), 10000 + 10.0 * rate)
    res = nvbench.search({}, target="p99<500us", vary="rate_iops", rel_tol=0.01, run=run)
    assert calls[0] is None  # the ceiling first
    truth = (500000 - 10000) / 10.0  # 49000 IOPS
    a = res.answer["rate_iops"]
    assert a < truth and a >= truth * (1 - 0.01) - 1
    assert all(p["ok"] == (p["lat_ns"] < 500000) for p in res.points)


def test_rate_search_answer_is_unthrottled_when_the_ceiling_keeps_the_bound():
    res = nvbench.search({}, target="p99<=10ms", vary="rate_iops",
                         run=lambda **kw: FakeResult(5000.0, 1e6))
    assert len(res.points) == 1 and res.answer["rate_iops"] is None


def test_max_runs_cuts_the_search_and_says_so():
    run, calls = model_qd(1000)
    with pytest.warns(nvbench.NvbenchWarning, match="max_runs=3"):
        res = nvbench.search({}, target="p99<=1s", max_qd=1024, max_runs=3, run=run)
    assert calls == [1, 2, 4] and res.answer["qd"] == 4


@pytest.mark.parametrize("stop, word", [(KeyboardInterrupt, "interrupted"), (nvbench.Terminated, "terminated")])
def test_an_interrupted_search_carries_the_points_done(stop, word):
    """Ctrl-C or SIGTERM in the third run: the exception goes on, with the search of the two
    runs completed (their answer, a note that it was cut short)."""
    run, calls = model_qd(1000)

    def stopping(**kw):
        if len(calls) == 2:
            calls.append(kw["qd"])
            raise stop()
        return run(**kw)
    with pytest.raises(stop) as e:
        nvbench.search({}, target="p99<=1s", max_qd=1024, run=stopping)
    s = e.value.search
    assert calls == [1, 2, 4] and [p["qd"] for p in s.points] == [1, 2]
    assert s.answer["qd"] == 2
    assert any(word in w and "after 2 completed runs" in w for w in s.warnings), s.warnings
    assert json.loads(json.dumps(s.to_dict()))["answer"]["qd"] == 2


@pytest.mark.parametrize("target, why", [
    ("p99<=1", "needs a unit"), ("p99<=1xs", "unit 'xs'"), ("p42<=1ms", "'p42' is not measured"),
    ("p99>=1ms", "expected PERCENTILE<=BOUND"), ("p99<=0ms", "above 0"), (99, "must be a string"),
])
def test_bad_targets_are_named(target, why):
    with pytest.raises(ValueError, match=why.replace("(", r"\(")):
        nvbench.search({"engine": "null"}, target=target)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="vary must be"):
        nvbench.search({}, target="p99<=1ms", vary="bs")
    with pytest.raises(ValueError, match="sets qd=4, which the search varies"):
        nvbench.search({"qd": 4}, target="p99<=1ms")
    with pytest.raises(ValueError, match="start=8 is above max_qd=4"):
        nvbench.search({}, target="p99<=1ms", start=8, max_qd=4)
    assert parse_target("p99.9 < 1.5ms") == ("p99.9", 1.5e6, True)
    assert parse_target("mean<=200us") == ("mean", 2e5, False)


NULL = {"engine": "null", "rw": "randread", "runtime": "0.2s", "fault.delay": "2ms"}


def test_null_engine_bound_below_the_delay_is_never_kept():
    res = nvbench.search(NULL, target="p50<=1ms", max_qd=8)
    assert res.answer is None
    assert [p["qd"] for p in res.points] == [1]
    assert res.points[0]["lat_ns"] >= 2e6 * (1 - 1 / 128)  # no completion before its delay


def test_null_engine_bound_far_above_the_delay_reaches_max_qd():
    res = nvbench.search(NULL, target="p50<=60s", max_qd=8)
    assert [p["qd"] for p in res.points] == [1, 2, 4, 8]
    assert all(p["ok"] and p["lat_ns"] >= 2e6 * (1 - 1 / 128) for p in res.points)
    assert res.answer["iops"] == max(p["iops"] for p in res.points)
    d = res.to_dict()
    json.dumps(d)  # JSON-able: no Result objects in it
    assert d["answer"]["qd"] == res.answer["qd"] and len(d["points"]) == 4


def test_null_engine_rate_search_bisects_below_the_ceiling():
    # every latency is at least the delay: no rate keeps p50 under it, so each point halves
    # the bracket from above
    w = dict(NULL, qd=4)
    with pytest.warns(nvbench.NvbenchWarning, match="max_runs=4"):
        res = nvbench.search(w, target="p50<=1ms", vary="rate_iops", max_runs=4)
    rates = [p["rate_iops"] for p in res.points]
    assert rates[0] is None and len(rates) == 4
    assert all(isinstance(r, int) and r > 0 for r in rates[1:])
    assert rates[1] > rates[2] > rates[3]
    assert res.answer is None and not any(p["ok"] for p in res.points)


def test_curve_plot(tmp_path):
    pytest.importorskip("matplotlib")
    run, _ = model_qd(100_000)
    res = nvbench.search({}, target="p99<=1ms", max_qd=64, run=run)
    fig = nvbench.plot.search_curve(res)
    ax = fig.axes[0]
    assert any(abs(line.get_xdata()[0] - 1.0) < 1e-12 for line in ax.lines if len(line.get_xdata()) == 2)
    fig.savefig(tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 0


def test_cli_prints_the_curve_and_the_answer(tmp_path):
    p = cli("search", "--latency", "p50<=60s", "--max-qd", "4", "--json", str(tmp_path / "s.json"),
            "engine=null", "rw=randread", "runtime=0.2s", "fault.delay=1ms")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split()[:2] == ["qd", "IOPS"]
    assert [ln.split()[0] for ln in lines[1:4]] == ["1", "2", "4"]
    assert lines[-1].startswith("answer: qd=4")
    saved = json.loads((tmp_path / "s.json").read_text())
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pass
    else:
        p = cli("search", "--latency", "p50<=60s", "--max-qd", "2", "--plot", str(tmp_path / "c.png"),
                "engine=null", "runtime=0.1s")
        assert p.returncode == 0 and (tmp_path / "c.png").stat().st_size > 0
    assert saved["answer"]["qd"] == 4 and saved["vary"] == "qd"
    p = cli("search", "--latency", "p50<=60s", "--max-qd", "2", "--print-json", "engine=null", "runtime=0.1s")
    assert p.returncode == 0 and json.loads(p.stdout)["percentile"] == "p50"


def test_cli_bad_target_is_input_error():
    p = cli("search", "--latency", "p99<=1", "engine=null")
    assert p.returncode == 2 and "needs a unit" in p.stderr
    p = cli("search", "--latency", "p99<=1ms", "engine=null", "qd=4")
    assert p.returncode == 2 and "which the search varies" in p.stderr
