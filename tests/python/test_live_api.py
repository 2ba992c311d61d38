"""nvbench.LiveView: --live and --metrics from a script's own runs."""
import json
import urllib.request

import pytest

import nvbench


def scrape(url):
    with urllib.request.urlopen(url, timeout=30) as f:
        return f.read().decode()


def test_live_view_writes_and_serves_the_runs_points(tmp_path):
    out = tmp_path / "points.jsonl"
    with nvbench.LiveView(out=str(out), metrics="0") as lv:
        url = lv.metrics_url
        assert url.startswith("http://127.0.0.1:") and url.endswith("/metrics")
        r = nvbench.run(engine="null", rw="randread", runtime="300ms", interval="50ms", progress=lv.progress(),
                        on_point=lv.on_point)
        body = scrape(url)  # the server lives until close: the run's last figures
    ts = r.data["timeseries"]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == len(ts) > 0
    for line, point in zip(lines, ts):
        prog = line.pop("progress")
        assert line == point and prog["elapsed_s"] > 0
    assert f"nvbench_points_total {len(ts)}" in body.splitlines()
    assert lv.metrics_url is None  # closed


def test_live_view_names_each_run_of_several(tmp_path):
    out = tmp_path / "points.jsonl"
    with nvbench.LiveView(out=str(out)) as lv:
        assert lv.metrics_url is None
        counts = []
        for label in ("first", "second"):
            lv.next_run(label)
            r = nvbench.run(engine="null", rw="randread", runtime="150ms", interval="50ms", on_point=lv.on_point)
            counts.append(len(r.data["timeseries"]))
    progs = [json.loads(x)["progress"] for x in out.read_text().splitlines()]
    assert [p["label"] for p in progs] == ["first"] * counts[0] + ["second"] * counts[1]
    assert [p["step"] for p in progs] == [1] * counts[0] + [2] * counts[1]


def test_live_view_refuses_what_it_cannot_open(tmp_path):
    with pytest.raises(ValueError, match="out .* metrics"):
        nvbench.LiveView()
    with pytest.raises(ValueError, match="not-a-port"):
        nvbench.LiveView(metrics="127.0.0.1:not-a-port")
    with pytest.raises(OSError):
        nvbench.LiveView(out=str(tmp_path / "no-such-dir" / "p.jsonl"))
