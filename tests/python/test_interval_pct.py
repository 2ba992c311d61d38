"""Per-interval latency percentiles (timeseries p50/p99/p99.9 and lat_hist): the intervals'
histograms add up to the run's exactly, each point's percentiles are those of its own
histogram, merges add them point by point, and the loader checks them."""
import json
import math
from collections import Counter

import pytest

import nvbench

PCTS = (("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9))
SUB_BITS = 6


def bucket_mid(i):
    """Midpoint of bucket i in the documented log-linear scheme (docs/json-schema.md)."""
    sub = 1 << SUB_BITS
    if i < sub:
        return float(i)
    k = i // sub + SUB_BITS - 1
    width = 1 << (k - SUB_BITS)
    low = (1 << k) + (i % sub) * width
    return low + (width - 1) / 2.0


def pct_of(buckets, pct):
    """The percentile of a sparse histogram: the midpoint of the bucket of rank ceil(pct/100 n)."""
    n = sum(c for _, c in buckets)
    rank = min(max(1, math.ceil(round(pct * n / 100.0, 9))), n)
    seen = 0
    for i, c in buckets:
        seen += c
        if seen >= rank:
            return bucket_mid(i)
    raise AssertionError("rank beyond the histogram")


def union(points, d):
    out = Counter()
    for p in points:
        for i, c in p[d]["lat_hist"]["buckets"]:
            out[i] += c
    return dict(out)


def run(**kw):
    args = dict(engine="null", rw="randrw", bs="4k", qd=4, jobs=2, runtime="0.6s", interval="100ms",
                **{"fault.delay": "50us", "fault.delay_rate": 0.2})
    args.update(kw)
    return nvbench.run(**args).to_dict()


def test_intervals_add_up_to_the_run_and_their_percentiles_are_their_own():
    d = run()
    ts = d["timeseries"]
    assert len(ts) >= 2
    for dn in ("read", "write"):
        whole = {i: c for i, c in d[dn]["lat_hist"]["buckets"]}
        assert union(ts, dn) == whole  # exact, bucket by bucket
        assert sum(p[dn]["lat_hist"]["count"] for p in ts) == d[dn]["lat_hist"]["count"]
        for p in ts:
            h = p[dn]["lat_hist"]
            assert h["count"] == sum(c for _, c in h["buckets"])
            idx = [i for i, _ in h["buckets"]]
            assert idx == sorted(set(idx))
            for key, v in PCTS:
                if h["count"]:
                    assert p[dn][key] == pct_of(h["buckets"], v)
                else:
                    assert p[dn][key] is None
            if h["count"]:
                assert p[dn]["p50"] <= p[dn]["p99"] <= p[dn]["p99.9"]


def test_a_delay_on_every_io_shows_in_every_intervals_percentiles():
    # every completion is held back 200us: no latency of any interval is below it
    d = run(rw="randread", **{"fault.delay": "200us", "fault.delay_rate": 1})
    rel = d["hist_rel_error"]
    pts = [p for p in d["timeseries"] if p["read"]["lat_hist"]["count"]]
    assert pts
    for p in pts:
        assert p["read"]["p50"] >= 200000 * (1 - rel)
        assert p["write"]["p50"] is None and p["write"]["lat_hist"]["count"] == 0


def test_merge_adds_the_interval_histograms_point_by_point():
    a, b = run(seed=1), run(seed=2)
    m = nvbench.merge([a, b]).to_dict()
    pa, pb = a["timeseries"], b["timeseries"]
    # not aligned: the i-th points of the parts make the i-th merged point
    assert len(m["timeseries"]) == max(len(pa), len(pb))
    for i, p in enumerate(m["timeseries"]):
        parts = [s[i] for s in (pa, pb) if i < len(s)]
        for dn in ("read", "write"):
            assert {k: v for k, v in p[dn]["lat_hist"]["buckets"]} == union(parts, dn)
            for key, v in PCTS:
                want = pct_of(p[dn]["lat_hist"]["buckets"], v) if p[dn]["lat_hist"]["count"] else None
                assert p[dn][key] == want
    for dn in ("read", "write"):
        assert union(m["timeseries"], dn) == {i: c for i, c in m[dn]["lat_hist"]["buckets"]}


def test_round_trip_keeps_them_and_older_results_have_none():
    d = run(runtime="0.3s")
    back = nvbench.merge([d]).to_dict()
    for p, q in zip(d["timeseries"], back["timeseries"]):
        for dn in ("read", "write"):
            for key in ("p50", "p99", "p99.9", "lat_hist"):
                assert p[dn][key] == q[dn][key]
    old = json.loads(json.dumps(d))
    for p in old["timeseries"]:
        for dn in ("read", "write"):
            for key in ("p50", "p99", "p99.9", "lat_hist"):
                del p[dn][key]
    # written before them: loaded and written back without them, as read
    back_old = nvbench.merge([old]).to_dict()
    assert all(k not in p[dn] for p in back_old["timeseries"] for dn in ("read", "write")
               for k in ("p50", "p99", "p99.9", "lat_hist"))
    m = nvbench.merge([old, d]).to_dict()
    for p in m["timeseries"]:
        for dn in ("read", "write"):
            # a part without them: the merged point cannot say
            assert "lat_hist" not in p[dn] and "p99" not in p[dn]
    unknown = json.loads(json.dumps(d))
    for p in unknown["timeseries"]:
        for dn in ("read", "write"):
            p[dn]["lat_hist"] = None  # not measured (out of memory)
    m = nvbench.merge([unknown, d]).to_dict()
    for p in m["timeseries"]:
        for dn in ("read", "write"):
            assert p[dn]["lat_hist"] is None and p[dn]["p99"] is None


@pytest.mark.parametrize("hist, why", [
    ({"count": 3, "buckets": [[5, 1], [4, 2]]}, "bucket indexes must ascend"),
    ({"count": 4, "buckets": [[4, 1], [5, 2]]}, "do not add up to count"),
    ({"count": 1, "buckets": [[999999, 1]]}, "out of range"),
    ({"count": 0, "buckets": [[3, 0]]}, "must not be empty"),
    ({"count": 1, "buckets": [[3]]}, "[index, count]"),
])
def test_the_loader_names_a_bad_interval_histogram(hist, why):
    d = run(runtime="0.2s")
    d["timeseries"][0]["read"]["lat_hist"] = hist
    with pytest.raises(nvbench.NvbenchError) as e:
        nvbench.merge([d])
    assert "timeseries.0.read.lat_hist" in str(e.value) and why in str(e.value)


def test_frame_and_latency_over_time_plot(tmp_path):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    r = nvbench.run(engine="null", rw="randread", qd=2, runtime="0.4s", interval="100ms",
                    **{"fault.delay": "100us"})
    df = r.timeseries_frame()
    ts = r.data["timeseries"]
    assert len(df) == len(ts)
    for col, key in (("read_p50_ns", "p50"), ("read_p99_ns", "p99"), ("read_p99_9_ns", "p99.9")):
        assert list(df[col]) == [p["read"][key] for p in ts]
    assert df["write_p99_ns"].isna().all()  # no writes: no percentile, not 0
    fig = nvbench.plot.latency_over_time(r)
    labels = [ln.get_label() for ln in fig.axes[0].lines]
    assert labels == ["p50", "p99", "p99.9"]  # the one direction that did I/O
    last = fig.axes[0].lines[1].get_ydata()[-1]
    assert last == ts[-1]["read"]["p99"] / 1e6
    fig.savefig(tmp_path / "lat.png")
    with pytest.raises(ValueError, match="direction must be"):
        nvbench.plot.latency_over_time(r, direction="trim")


def test_job_groups_total_series_adds_the_groups_interval_histograms():
    r = nvbench.run_groups([
        dict(name="a", engine="null", rw="randread", qd=2, runtime="0.4s", interval="100ms", **{"fault.delay": "50us"}),
        dict(name="b", engine="null", rw="randwrite", qd=4, runtime="0.4s", interval="100ms"),
    ]).to_dict()
    for dn in ("read", "write"):
        assert union(r["timeseries"], dn) == {i: c for i, c in r[dn]["lat_hist"]["buckets"]}
        assert union(r["timeseries"], dn) == union([p for g in r["groups"] for p in g["timeseries"]], dn)
