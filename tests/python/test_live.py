"""Live figures while a run goes on: nvbench run --live and --metrics end
to end (the stream read and the endpoint scraped during the run, which
ends when the test stops it with SIGTERM), and nvbench.run(on_point=...)."""
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

import nvbench

from conftest import cli

# a sample line of the text format: name, optional {labels}, a value
SAMPLE = re.compile(r'^[a-z_]+(\{([a-z_]+="[^"]*",?)*\})? (NaN|[-+0-9.e]+|[0-9]+)$')


def _point_of(line):
    """A --live line's point: its text before the appended progress, and the dict."""
    head, sep, _ = line.rpartition(',"progress":')
    assert sep, line
    return head + "}", json.loads(head + "}")


def _scrape(url):
    with urllib.request.urlopen(url, timeout=30) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        return resp.read().decode()


def _samples(text):
    got = {}
    for line in text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) [a-z_]+ .+$", line), line
            continue
        assert SAMPLE.match(line), line
        name, _, value = line.rpartition(" ")
        got[name] = float(value)
    return got


@contextlib.contextmanager
def running(args):
    """An nvbench command the test reads while it runs (and stops): killed if the test fails first."""
    p = subprocess.Popen([sys.executable, "-m", "nvbench", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        yield p
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def metrics_url(p):
    """The address --metrics names on stderr, before the run starts."""
    for line in p.stderr:
        m = re.search(r"metrics: serving (http://\S+/metrics)", line)
        if m:
            return m.group(1)
    return None


def test_live_stream_and_metrics_while_the_run_goes_on():
    # a run of an hour that the test stops: it goes on for as long as the test reads
    with running(["run", "engine=null", "rw=randrw", "runtime=3600", "interval=100ms", "rate_iops=20000",
                  "--live", "-", "--metrics", "0", "--no-progress", "--print-json"]) as p:
        url = metrics_url(p)
        assert url and url.startswith("http://127.0.0.1:"), url  # a port alone: loopback
        lines = [p.stdout.readline() for _ in range(3)]
        pts = [_point_of(l)[1] for l in lines]
        # the endpoint has seen at least the points read (it learns each before it is written)
        got = _samples(_scrape(url))
        assert got["nvbench_points_total"] >= 3
        assert got['nvbench_ios_total{dir="read"}'] >= sum(pt["read"]["ios"] for pt in pts)
        assert got['nvbench_ios_total{dir="write"}'] >= sum(pt["write"]["ios"] for pt in pts)
        assert 'nvbench_latency_seconds{dir="read",quantile="0.99"}' in got
        assert 'nvbench_iops{dir="write"}' in got
        # the progress appended: the run's ios so far, the point's end
        prog = json.loads(lines[2].rpartition(',"progress":')[2][:-2])
        assert prog["ios"] == sum(pt["read"]["ios"] + pt["write"]["ios"] for pt in pts)
        assert prog["elapsed_s"] == pts[2]["t_s"]
        assert [pt["t_s"] for pt in pts] == sorted(pt["t_s"] for pt in pts)
        # SIGTERM: the run ends as cancelled, its partial result written (SIGINT would do
        # the same, but a shell's background job starts with SIGINT ignored)
        p.send_signal(signal.SIGTERM)
        rest, err = p.communicate(timeout=120)
    out = lines + rest.splitlines(keepends=True)
    result_line = out[-1]
    result = json.loads(result_line)
    assert result["cancelled"] is True
    streamed = [_point_of(l) for l in out[:-1]]
    ts = result["timeseries"]
    # every interval streamed, once, in order; the last is the result's last, byte for byte
    assert len(streamed) == len(ts)
    assert [s[1] for s in streamed] == ts
    assert streamed[-1][0] in result_line
    assert sum(s[1]["read"]["ios"] for s in streamed) == result["read"]["ios"]


def test_metrics_listens_on_loopback_unless_a_host_is_named():
    from nvbench._live import parse_addr
    assert parse_addr("9100") == parse_addr(":9100") == ("127.0.0.1", 9100)
    assert parse_addr("0.0.0.0:9100") == ("0.0.0.0", 9100) and parse_addr("[::1]:0") == ("::1", 0)


def test_metrics_address_refused_with_its_reason(tmp_path):
    p = cli("run", "engine=null", "runtime=0.1", "--metrics", "127.0.0.1:99999", "--no-progress")
    assert p.returncode != 0
    assert "port 99999" in p.stderr
    p = cli("run", "engine=null", "runtime=0.1", "--live", str(tmp_path / "no" / "such" / "dir"), "--no-progress")
    assert p.returncode != 0 and "--live" in p.stderr


def test_live_file_has_every_point(tmp_path):
    f = tmp_path / "live.jsonl"
    p = cli("run", "engine=null", "runtime=0.3", "interval=50ms", "--live", f, "--no-progress", "--print-json")
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    streamed = [_point_of(l)[1] for l in f.read_text().splitlines()]
    assert streamed == result["timeseries"] and len(streamed) >= 1


def test_on_point_gets_every_point_and_its_failures_stop_nothing():
    got = []
    r = nvbench.run(engine="null", runtime=0.3, interval="50ms", on_point=got.append)
    assert got == r.data["timeseries"] and len(got) >= 1

    def boom(pt):
        raise RuntimeError("dashboard down")

    with pytest.warns(nvbench.NvbenchWarning, match="point callback"):
        r = nvbench.run(engine="null", runtime=0.2, interval="50ms", on_point=boom)
    assert r.read.ios > 0
    assert any("point callback" in w for w in r.data["warnings"])


def test_long_series_bounded_totals_kept():
    """An ios-bounded run longer than timeseries_max intervals: the result
    keeps at most that many points, their sums are the totals, every
    interval was given to on_point."""
    got = []
    r = nvbench.run(engine="null", rw="randrw", ios=6000, rate_iops=20000, interval="10ms", timeseries_max=20,
                    on_point=got.append)
    ts = r.data["timeseries"]
    assert len(ts) <= 20 and len(ts) <= len(got)  # ~30 intervals here; fewer on a starved machine
    for d in ("read", "write"):
        assert sum(p[d]["ios"] for p in ts) == r.data[d]["ios"] == sum(p[d]["ios"] for p in got)
        assert sum(p[d]["lat_hist"]["count"] for p in ts) == r.data[d]["ios"]
    assert sum(p.get("intervals", 1) for p in ts) == len(got)
    assert any("timeseries_max=20" in w for w in r.data["warnings"]) == (len(got) > 20)


# One ios-bounded run in a process of its own: its peak memory's growth over the run, its series.
LONG_RUN = """
import json, sys, warnings
import nvbench
warnings.simplefilter("ignore")
def peak_kib():  # this process's peak RSS (ru_maxrss would start from the parent's, before exec)
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1])
before = peak_kib()
r = nvbench.run(engine="null", rw="randrw", ios=int(sys.argv[1]), rate_iops=20000, rate_mode="closed",
                interval="10ms", timeseries_max=int(sys.argv[2]))
grown = peak_kib() - before
ts = r.data["timeseries"]
print(json.dumps({"grown_kib": grown, "points": len(ts), "intervals": sum(p.get("intervals", 1) for p in ts),
                  "size": len(json.dumps(r.data)),
                  "sums": [[sum(p[d]["ios"] for p in ts), r.data[d]["ios"]] for d in ("read", "write")],
                  "ios": r.data["read"]["ios"] + r.data["write"]["ios"]}))
"""


def _long_run(ios, limit):
    p = subprocess.run([sys.executable, "-c", LONG_RUN, str(ios), str(limit)], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="the peak RSS is read from /proc/self/status")
def test_long_run_memory_and_result_stay_bounded():
    """Issue 29 part 6: an ios-bounded run five times longer, its series bounded at 50 points,
    keeps its totals and neither its memory nor its result grows with its length; the same
    long run keeping every interval shows what the bound saves (and that the measure sees it).
    Closed-loop rate: the null engine's latencies stay in few buckets, so a merged point's
    histograms are no larger than one interval's and any growth is the series'."""
    short, long_, whole = _long_run(20000, 50), _long_run(100000, 50), _long_run(100000, 1000000)
    for r, ios in ((short, 20000), (long_, 100000), (whole, 100000)):
        assert r["ios"] == ios and all(s == t for s, t in r["sums"])  # totals unchanged by merging
    assert short["points"] <= 50 and long_["points"] <= 50 < long_["intervals"]
    assert whole["points"] == whole["intervals"] > 50
    # 5x the intervals: what every kept interval costs against the bound's growth
    assert long_["intervals"] >= 3 * short["intervals"]
    assert long_["grown_kib"] - short["grown_kib"] < (whole["grown_kib"] - long_["grown_kib"]) / 2
    assert long_["grown_kib"] < 2 * short["grown_kib"] + 1024
    assert long_["size"] < 2 * short["size"] and whole["size"] > 4 * long_["size"]
