"""Hostile strings through the front doors that came after the first hostile-input
work: fio job files, job groups, the latency search, the HTML report (also with
--four-stacks), compare --table, and the warnings Python issues. Every result
parses, nothing raises UnicodeDecodeError, no control character reaches a
terminal and no markup from a result reaches the report as markup."""

import copy
import errno
import html.parser
import json
import os
import re
import subprocess
import sys
import warnings

import pytest

import _pkg
from conftest import cli

if _pkg.EXTENSION_MISSING:
    pytest.skip("nvbench._nvbench is not built", allow_module_level=True)

import nvbench  # noqa: E402
from nvbench import NvbenchError, NvbenchWarning, fio_job  # noqa: E402
from nvbench.results import loads  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
# What a terminal obeys (C0 but newline, DEL, C1) and the right-to-left override.
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]")
MARKUP = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&'
HOSTILE = MARKUP + "\x1b[2J\x1b]0;owned\x07\x9b31m\u202e"
# for the fields the loader caps (device names: 63 bytes, engine_used values: 95)
SHORT = "<script>x</script><b>\x1b[2J\x9b1m\u202e"


def _c_result():
    with open(os.path.join(DATA, "c-psync-randread.json")) as f:
        return json.load(f)


# --- fio job files -----------------------------------------------------------------

def _job_file(tmp_path):
    """A job file whose section name and filename= are not UTF-8 and hold ESC."""
    # no ';' or '#' in the name: either starts a comment in a job file, as fio reads it
    target = os.fsencode(tmp_path) + b"/f\xfe\x1b[31mx\x07.dat"
    with open(target, "wb") as f:
        f.write(os.urandom(1 << 16))
    job = tmp_path / "j.fio"
    job.write_bytes(b"[global]\nioengine=null\nsize=64k\nio_size=8k\n"
                    b"[job\xff\x1b[2J<b>]\nrw=randread\nfilename=" + target + b"\n")
    return job, target


def test_fio_job_file_with_bytes_that_are_not_utf8(tmp_path):
    # Before: UnicodeDecodeError from reading the file, in Python and in `nvbench run --fio`.
    job, target = _job_file(tmp_path)
    ((w,),) = fio_job.from_fio_job(job)
    assert os.fsencode(w["targets"][0]) == target  # the file named, byte for byte
    assert os.fsencode(w["name"]) == b"job\xff\x1b[2J<b>"
    with pytest.warns(NvbenchWarning) as seen:
        (r,) = fio_job.run_fio_job(job)
    assert r.data["workload"]["name"] == "job\ufffd\x1b[2J<b>"
    assert any("not UTF-8" in str(x.message) for x in seen)
    for x in seen:  # Python prints warnings on stderr: escaped, never obeyed
        assert not CONTROL.search(str(x.message)), str(x.message)
    p = cli("run", "--fio", job, "--no-progress")
    assert p.returncode == 0, p.stderr
    (back,) = loads(p.stdout)  # the library's strict parser reads what was printed
    assert back.data["workload"]["targets"] == [os.fsdecode(target).replace("\udcfe", "\ufffd")]
    assert not CONTROL.search(p.stdout), repr(p.stdout)
    assert "not UTF-8" in p.stderr and not CONTROL.search(p.stderr), repr(p.stderr)


def test_fio_job_file_path_that_is_not_utf8(tmp_path):
    job, _ = _job_file(tmp_path)
    odd = os.fsencode(tmp_path) + b"/j\xff\x1b[2J.fio"
    os.rename(job, odd)
    ((w,),) = fio_job.from_fio_job(odd)  # bytes or str, as os.fsdecode gives
    assert w["fio"]["section"] == os.fsdecode(b"job\xff\x1b[2J<b>")
    missing = os.fsencode(tmp_path) + b"/gone\xff\x1b[2J.fio"
    p = cli("run", "--fio", os.fsdecode(missing), "--no-progress")
    assert p.returncode != 0
    assert "gone" in p.stderr and not CONTROL.search(p.stderr), repr(p.stderr)


# --- job groups --------------------------------------------------------------------

def test_group_names_that_are_not_utf8_or_hold_escapes(tmp_path):
    t = tmp_path / "t.dat"
    t.write_bytes(os.urandom(1 << 16))
    with pytest.warns(NvbenchWarning) as seen:
        r = nvbench.run_groups([{"targets": [str(t)], "name": "g\udcff\x1b[2J", "ios": 8},
                                {"targets": [str(t)], "name": "h" + MARKUP[:40], "ios": 8}], engine="null")
    assert [g.data["name"] for g in r.groups] == ["g\ufffd\x1b[2J", "h" + MARKUP[:40]]
    assert all(not CONTROL.search(str(x.message)) for x in seen)
    (back,) = loads(nvbench.ResultSet([r]).to_json())
    assert [g.data["name"] for g in back.groups] == ["g\ufffd\x1b[2J", "h" + MARKUP[:40]]
    # a group's target as bytes, alone or in a list, as run() takes it (before: TypeError)
    odd = os.fsencode(tmp_path) + b"/odd\xff.dat"
    os.rename(t, odd)
    with pytest.warns(NvbenchWarning):
        r = nvbench.run_groups([{"targets": odd, "ios": 8}, {"targets": [odd], "ios": 8}], engine="null")
    assert [g.data["workload"]["targets"] for g in r.groups] == [[os.fsdecode(tmp_path) + "/odd\ufffd.dat"]] * 2
    os.rename(odd, t)
    # the CLI's groups: the summary names each group escaped
    p = cli("run", "engine=null", "ios=8", "--print-json", t, "--group", "name=g\x1b[2J", "--group",
            "name=h\x9b1m")
    assert p.returncode == 0, p.stderr
    assert not CONTROL.search(p.stdout) and not CONTROL.search(p.stderr)
    (back,) = loads(p.stdout)
    assert [g.data["name"] for g in back.groups] == ["g\x1b[2J", "h\x9b1m"]


# --- the latency search --------------------------------------------------------------

def test_search_table_and_warnings_escaped(tmp_path):
    t = tmp_path / "s\x1b[2J.dat"
    t.write_bytes(os.urandom(1 << 20))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        # Python's \s lets \x1c-\x1f through around the bound: the table quotes it
        res = nvbench.search({"engine": "null", "ios": 64, "targets": [str(t)]}, target="p99<=1s\x1c",
                             max_runs=1)
    text = res.table() + repr(res)
    assert "\\x1c" in text and not CONTROL.search(text), repr(text)
    assert seen and all(not CONTROL.search(str(x.message)) for x in seen)
    p = cli("search", "--latency", "p99<=1s", "--max-runs", "1", "engine=null", "ios=64", t)
    assert p.returncode == 0, p.stderr
    assert not CONTROL.search(p.stdout) and not CONTROL.search(p.stderr), (p.stdout, p.stderr)


# --- the HTML report -----------------------------------------------------------------

class _Tags(html.parser.HTMLParser):
    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.handlers, self.text = set(), [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.handlers += [(tag, k) for k, v in attrs if k.startswith("on") or "javascript:" in (v or "")]

    def handle_data(self, data):
        self.text.append(data)


def _hostile(engine, stack=None):
    """A result whose every free string is hostile: workload name and target, per-target
    path, host and device model, the host, warnings, the error, and the facts
    seed_matrix and the Windows engines record in engine_used (os, disk model, driver)."""
    d = copy.deepcopy(_c_result())
    d["engine"] = d["workload"]["engine"] = engine
    d["workload"]["name"] = "n" + HOSTILE
    d["workload"]["targets"] = ["/t" + HOSTILE]
    for t in d["per_target"]:
        t["path"], t["host"], t["file"], t["dev"] = "/t" + HOSTILE, "h" + HOSTILE, "/f" + HOSTILE, "d" + SHORT
    d["host"] = "h" + HOSTILE
    d["start_time"] = "2026-01-01T00:00:00Z" + HOSTILE
    d["warnings"] = ["w" + HOSTILE]
    d["engine_used"] = {"os": "Windows" + SHORT, "cpu_model": "c" + SHORT, "disk_model": "m" + SHORT,
                        "disk_driver": "dd" + SHORT, "k\x1b[2J<b>": "v"}
    if stack:
        d["engine_used"].update(stack=stack, stack_source="detected")
    d["meta"] = {"stack": "s" + HOSTILE, "label": "l" + HOSTILE}
    return d


def _files(tmp_path):
    paths = []
    for name, runs in (("linux", [_hostile("libaio"), _hostile("io_uring")]),
                       ("native", [_hostile("iocp", "windows_native")]),
                       ("non", [_hostile("iocp", "windows_non_native")])):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps({"results": runs}))
        paths.append(p)
    return paths


def _safe_page(path):
    text = path.read_text(encoding="utf-8")
    page = _Tags(text)
    assert not {"script", "img", "iframe", "object", "embed"} & page.tags, page.tags
    assert not page.handlers, page.handlers
    assert not CONTROL.search(text), [m.group(0) for m in CONTROL.finditer(text)][:5]
    return text, "".join(page.text)


def test_report_escapes_every_string_of_a_crafted_result(tmp_path):
    paths = _files(tmp_path)
    p = cli("report", *paths, "-o", tmp_path / "r.html", timeout=300)
    assert p.returncode == 0, p.stderr
    # matplotlib once warned about the missing glyph, quoting the raw ESC
    assert not CONTROL.search(p.stderr), repr(p.stderr)
    text, shown = _safe_page(tmp_path / "r.html")
    # the hostile strings are there, as text: markup escaped, controls shown escaped
    for what in ("/t", "h", "w", "s"):
        assert what + MARKUP + "\\x1b[2J" in shown, what
    assert "k\\x1b[2J<b>" in shown
    for what in ("d", "m", "dd", "Windows", "c"):
        assert what + "<script>x</script><b>\\x1b[2J\\x9b1m\\u202e" in shown, what
    assert "&lt;script&gt;" in text


def test_report_four_stacks_and_compare_table_escape(tmp_path):
    paths = _files(tmp_path)
    p = cli("report", "--four-stacks", *paths, "-o", tmp_path / "r4.html", timeout=300)
    assert p.returncode == 0, p.stderr
    assert not CONTROL.search(p.stderr), repr(p.stderr)
    _, shown = _safe_page(tmp_path / "r4.html")
    assert "m<script>x</script><b>\\x1b[2J" in shown  # the disk model of a Windows file
    for args in (("compare", "--table", *paths), ("compare", paths[0], paths[1])):
        p = cli(*args)
        assert p.returncode == 0, p.stderr
        assert not CONTROL.search(p.stdout) and not CONTROL.search(p.stderr), (p.stdout, p.stderr)
    assert "\\x1b[2J" in p.stdout  # compare names the stacks, escaped


def test_report_of_a_result_set_in_python(tmp_path):
    rs = nvbench.ResultSet(loads(json.dumps({"results": [_hostile("psync")]})))
    rs.report(str(tmp_path / "x.html"))
    _, shown = _safe_page(tmp_path / "x.html")
    assert "n" + MARKUP in shown or "s" + MARKUP in shown


# --- the newer result fields, through the library's strict parser ---------------------

@pytest.fixture(scope="module")
def grouped(tmp_path_factory):
    """A real result with job groups (one with a bssplit), a time series with per-interval
    histograms and percentiles, and per-size counts: its JSON as the library wrote it."""
    t = tmp_path_factory.mktemp("groups") / "t.dat"
    t.write_bytes(os.urandom(1 << 20))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NvbenchWarning)
        r = nvbench.run_groups([{"targets": [str(t)], "name": "split", "rw": "randrw", "bssplit": "4k/50:8k/50"},
                                {"targets": [str(t)], "name": "plain", "rw": "randread"}],
                               engine="null", runtime="250ms", interval="50ms", rate_iops=4000)
    return json.loads(nvbench.ResultSet([r]).to_json())["results"][0]


def _refused(d, *words, text=None):
    with pytest.raises(NvbenchError) as info:
        loads(text if text is not None else json.dumps(d))
    assert info.value.errno == errno.EINVAL
    for w in words:
        assert w in info.value.strerror, info.value.strerror
    return info.value


def test_a_result_with_groups_and_a_split_loads(grouped):
    # before: the total's bs_counts held the split group's alone and did not add up
    (r,) = loads(json.dumps(grouped))
    assert [g.data["name"] for g in r.groups] == ["split", "plain"]
    assert r.groups[0].data["read"]["bs_counts"] and not r.data["read"].get("bs_counts")
    assert any("lat_hist" in (s.get("read") or {}) for s in r.data["timeseries"])


def test_crafted_new_fields_are_refused_naming_them(grouped):
    i = next(n for n, s in enumerate(grouped["timeseries"]) if (s.get("read") or {}).get("lat_hist"))
    d = copy.deepcopy(grouped)
    d["timeseries"][i]["read"]["lat_hist"]["buckets"][0][0] = 10 ** 9  # an absurd bucket
    _refused(d, f"timeseries.{i}.read.lat_hist.buckets", "bucket index out of range")
    d = copy.deepcopy(grouped)
    d["timeseries"][i]["dt_s"] = -1
    _refused(d, f"timeseries.{i}.dt_s", "negative")
    d = copy.deepcopy(grouped)
    d["groups"][1]["duration_s"] = -0.5  # named with its group, not as the total's
    _refused(d, "groups.1.duration_s", "negative")
    d = copy.deepcopy(grouped)
    d["groups"][0]["read"]["bs_counts"]["4096"] += 1
    _refused(d, "read.bs_counts", "do not add up")
    d = copy.deepcopy(grouped)
    d["engine_used"]["stack"] = 5
    _refused(d, "engine_used.stack")
    text = json.dumps(grouped)
    _refused(None, "NaN", text=text.replace('"p99": ', '"p99": NaN, "x": ', 1))
    _refused(None, "Infinity", text=text.replace('"dt_s": ', '"dt_s": Infinity, "x": ', 1))
    _refused(None, "duplicate key 'dt_s'", text=text.replace('"dt_s": ', '"dt_s": 1, "dt_s": ', 1))
    _refused(None, "duplicate key 'name'", text=text.replace('"name": "plain"', '"name": "plain", "name": "x"', 1))
    # a stated per-interval percentile is not believed: the library derives it from lat_hist
    d = copy.deepcopy(grouped)
    d["timeseries"][i]["read"]["p99"] = 1e300
    (r,) = loads(json.dumps(d))
    assert r.data["timeseries"][i]["read"]["p99"] == grouped["timeseries"][i]["read"]["p99"]


def test_bytes_that_are_not_utf8_raise_nvbench_error(tmp_path, grouped):
    raw = json.dumps(grouped).encode().replace(b'"name": "plain"', b'"name": "pl\xffain"', 1)
    bad = tmp_path / "bad.json"
    bad.write_bytes(raw)
    for source in (str(bad), open(bad, "rb"), open(bad, encoding="utf-8")):
        with pytest.raises(NvbenchError) as info:  # before: UnicodeDecodeError
            nvbench.load(source)
        assert info.value.errno == errno.EINVAL and "not UTF-8: byte 0xff" in info.value.strerror
        assert "bad.json" in info.value.strerror
    # a str holding a lone surrogate (what os.fsdecode makes of a stray byte)
    _refused(None, "surrogate", text=raw.decode("utf-8", "surrogateescape"))
    p = cli("compare", bad, bad)
    assert p.returncode == 2 and "not UTF-8" in p.stderr and "Traceback" not in p.stderr
    assert all(line.count(str(bad)) == 1 for line in p.stderr.splitlines()), p.stderr  # was "cannot read F: F: ..."


def test_result_from_json_is_as_strict_as_load(grouped):
    from nvbench.result import Result
    text = json.dumps(grouped)
    assert Result.from_json(text).data == loads(text)[0].data
    assert Result.from_json(text.encode()).groups[1].data["name"] == "plain"
    for bad in (text.replace('"dt_s": ', '"dt_s": NaN, "x": ', 1), text.encode().replace(b'"plain"', b'"p\xff"', 1)):
        with pytest.raises(NvbenchError):  # before: NaN believed; UnicodeDecodeError
            Result.from_json(bad)


def test_arguments_argparse_refuses_are_quoted_escaped(tmp_path):
    for args in (("devices", "x\x1b[2J"), ("compare", "--stack\x1b]0;t\x07", "a"), ("search", "--vary", "q\x9bd")):
        p = cli(*args)
        assert p.returncode == 2, p.stderr
        assert "\\x1b" in p.stderr or "\\x9b" in p.stderr, p.stderr
        assert not CONTROL.search(p.stderr), repr(p.stderr)


def test_an_uncaught_nvbench_error_prints_escaped(tmp_path):
    missing = str(tmp_path / "gone\x1b[2J\x9b1m")
    with pytest.raises(NvbenchError) as info:
        nvbench.run(missing, engine="null", ios=1)
    assert info.value.strerror.count("\x1b[2J") == 1  # the message as the library wrote it
    assert "gone\\x1b[2J\\x9b1m" in str(info.value) and not CONTROL.search(str(info.value))


def test_paths_the_cli_repeats_are_escaped(tmp_path):
    src = tmp_path / "r.json"
    src.write_text(json.dumps({"results": [_c_result()]}))
    p = cli("report", src, "-o", tmp_path / "out\x1b[2J.html", timeout=300)
    assert p.returncode == 0, p.stderr
    assert "out\\x1b[2J.html" in p.stdout and not CONTROL.search(p.stdout), repr(p.stdout)


_PEAK = """
import resource, sys, nvbench
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    nvbench.load(sys.argv[1])
    ok = 1
except nvbench.NvbenchError:
    ok = 0
print(ok, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
"""


@pytest.mark.parametrize("shape", ["series", "junk"])
def test_load_memory_is_a_small_multiple_of_the_file(tmp_path, grouped, shape):
    """nvbench.load's peak memory (a child's resident set, a count of pages, not a clock)
    over a 4 MiB file: a time series whose every interval has histograms at both ends of
    the bucket range, or a member nobody reads. Python's dicts cost about 20x the text
    (measured 19.6x at 23 MiB); the bound leaves room for that, not for another
    amplification (the C parser alone: test_hostile parser_memory_bound)."""
    d = {k: v for k, v in grouped.items() if k != "groups"}
    d["workload"] = grouped["groups"][1]["workload"]
    one = {"t_s": 1, "dt_s": 1, "errors": 0, "system_pct": None,
           "read": {"ios": 2, "bytes": 8192, "lat_sum_ns": 3000,
                    "lat_hist": {"count": 2, "buckets": [[0, 1], [2495, 1]]}},
           "write": {"ios": 1, "bytes": 4096, "lat_sum_ns": 1000,
                     "lat_hist": {"count": 1, "buckets": [[2495, 1]]}}}
    size = 4 << 20
    n = size // len(json.dumps(one))
    if shape == "series":
        d["timeseries"] = [dict(one, t_s=i + 1) for i in range(n)]
    else:
        d["junk"] = [0] * (size // 3)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(d))
    out = subprocess.run([sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    ok, peak = map(int, out.stdout.split())
    assert ok == 1, out.stdout  # both are results: an unknown member is left out
    length = path.stat().st_size
    print(f"load of {length} bytes ({shape}): peak {peak} bytes ({peak / length:.1f}x)")
    assert peak <= 40 * length + (64 << 20), f"peak {peak} bytes for {length} bytes of JSON"
