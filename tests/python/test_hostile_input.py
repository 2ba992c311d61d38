"""Result files written by someone else: nvbench.load reads nvbench results with
the library's own strict parser, comparisons print no inf, nan or walls of
digits, and no string of a result reaches the terminal as control characters."""

import copy
import errno
import json
import math
import os
import re

import pytest

import _pkg
from conftest import cli

if _pkg.EXTENSION_MISSING:
    pytest.skip("nvbench._nvbench is not built: load reads results with it", allow_module_level=True)

import nvbench  # noqa: E402
from nvbench import NvbenchError  # noqa: E402
from nvbench.results import Result, ResultSet, load, loads  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# What a terminal obeys: C0 controls (ESC among them) but the newlines that end
# nvbench's own lines, DEL, C1 controls (CSI is 0x9b).
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
HOSTILE_NAME = "evil\x1b[2J\x1b]0;owned\x07\x9b31m\x08\r\u202e"


def _c_result(name="c-psync-randread.json"):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def _text(d):
    return json.dumps(d)


def _refused(text, *words):
    with pytest.raises(NvbenchError) as info:
        loads(text)
    e = info.value
    assert e.errno == errno.EINVAL
    for w in words:
        assert w in e.strerror, f"{e.strerror!r} does not name {w!r}"
    return e


# --- load refuses what the library's parser refuses ---------------------------------


def test_json_that_python_reads_but_rfc_8259_does_not():
    good = _text(_c_result())
    assert len(loads(good)) == 1
    iops = re.search(r'"iops": [0-9.e+]+', good).group(0)
    _refused(good.replace(iops, '"iops": NaN', 1), "NaN")
    _refused(good.replace(iops, '"iops": Infinity', 1), "Infinity")
    _refused(good.replace(iops, '"iops": -Infinity', 1), "Infinity")
    _refused(good.replace(iops, '"iops": 1e999', 1), "1e999")
    _refused('{"read": {}, ' + good[1:], "duplicate key 'read'")


@pytest.mark.parametrize("section", ["read", "write", "workload"])
def test_a_missing_section(section):
    d = _c_result()
    del d[section]
    _refused(_text(d), f"'{section}'", "missing")


def test_figures_out_of_range():
    d = _c_result()
    d["duration_s"] = -1
    _refused(_text(d), "duration_s", "negative")
    d = _c_result()
    d["read"]["lat_hist"]["buckets"][0][0] = 10**12
    _refused(_text(d), "read.lat_hist.buckets", "out of range")
    d = _c_result()
    d["read"]["lat_hist"]["buckets"][0][1] += 1
    _refused(_text(d), "read.lat_hist")


def test_every_shape_of_document_is_checked_and_the_entry_named():
    good, bad = _c_result(), _c_result()
    del bad["read"]
    _refused(_text({"schema": "nvbench.resultset/1", "results": [good, bad]}), "results[1]", "'read'")
    _refused(_text([good, bad]), "[1]", "'read'")
    # NaN and duplicates are refused around the results as well
    _refused(_text({"results": [good]}).replace('"results"', '"x": NaN, "results"', 1), "NaN")
    _refused('{"results": [], ' + _text({"results": [good]})[1:], "duplicate key 'results'")


def test_figures_are_the_ones_the_library_derives():
    """A rate the file states but its counts do not give is not believed."""
    d = _c_result()
    real = d["read"]["iops"]
    d["read"]["iops"] = 1e300
    d["read"]["lat_ns"]["p99"] = 1e300
    (r,) = loads(_text(d))
    assert r.read.iops == real
    assert r.read.lat_ns.p99 == _c_result()["read"]["lat_ns"]["p99"]


def test_labels_survive_the_library():
    d = _c_result()
    d["meta"] = {"stack": "kernel 6.8", "repeat": 3}
    (r,) = loads(_text(d))
    assert r.meta["stack"] == "kernel 6.8" and r.meta["repeat"] == 3
    assert r.data == _c_result()


# --- comparisons of crafted files ------------------------------------------------------

_NUMBER = re.compile(r"[0-9][0-9,.]{12,}")


def _crafted_pair(tmp_path, repeats):
    a, b = [], []
    for i in range(repeats):
        x = _c_result()
        x["meta"] = {"repeat": i}
        a.append(x)
        y = _c_result()
        # Every figure the library derives from these is finite, and absurd:
        # 4e303 IOPS, or no rate at all when the division overflows.
        y["duration_s"] = [1e-300, 1e-310, 1e-300][i % 3]
        # and figures the file states outright (the library derives its own)
        y["read"]["iops"] = y["cpu"]["iops_per_core"] = 1e300
        y["read"]["lat_ns"]["mean"] = 5e-324
        y["meta"] = {"repeat": i}
        b.append(y)
    pa, pb = tmp_path / f"a{repeats}.json", tmp_path / f"b{repeats}.json"
    pa.write_text(_text({"results": a}))
    pb.write_text(_text({"results": b}))
    return pa, pb


@pytest.mark.parametrize("repeats", [1, 3])
def test_compare_prints_no_inf_nan_or_walls_of_digits(tmp_path, repeats):
    pa, pb = _crafted_pair(tmp_path, repeats)
    p = cli("compare", pa, pb)
    assert p.returncode == 0, p.stderr
    out = p.stdout.lower()
    assert "inf" not in out and "nan" not in out, p.stdout
    assert not _NUMBER.search(p.stdout), p.stdout
    assert "IOPS" in p.stdout
    # both ways round
    p = cli("compare", pb, pa)
    assert p.returncode == 0, p.stderr
    assert "inf" not in p.stdout.lower() and "nan" not in p.stdout.lower(), p.stdout
    assert not _NUMBER.search(p.stdout), p.stdout


def test_compare_frame_holds_no_infinities(tmp_path):
    pytest.importorskip("pandas")
    pa, pb = _crafted_pair(tmp_path, 3)
    rs = ResultSet(list(load(pa).with_meta(stack="a")) + list(load(pb).with_meta(stack="b")))
    df = rs.compare(baseline="a")
    for col in ("delta_pct", "ci_low_pct", "ci_high_pct"):
        assert not any(math.isinf(v) for v in df[col]), df[col]
    table = rs.table()
    assert "inf" not in table.lower() and not _NUMBER.search(table), table


# --- strings from results on a terminal --------------------------------------------------


def _hostile_result():
    d = _c_result()
    d["workload"]["targets"] = [HOSTILE_NAME]
    d["per_target"][0]["path"] = HOSTILE_NAME
    d["warnings"] = ["target " + HOSTILE_NAME + " is slow"]
    return d


def test_table_repr_and_comparison_show_control_characters_escaped():
    pytest.importorskip("pandas")
    (r,) = loads(_text(_hostile_result()))
    assert r.meta["target"] == HOSTILE_NAME  # the data itself is kept as it is
    other = r.with_meta(stack=HOSTILE_NAME)
    rs = ResultSet([r, other])
    by_target = ResultSet([r, r.with_meta(target="plain")])  # the target joins the column label
    for text in (rs.table(), rs.table(fmt="markdown"), by_target.table(), repr(other), repr(rs),
                 rs.compare(baseline="psync", fmt="text"), rs.compare(baseline="psync", fmt="markdown")):
        assert not CONTROL.search(text), repr(text)
        assert "\u202e" not in text
    assert "\\x1b[2J" in rs.table() and "\\x9b" in by_target.table()
    assert "\\x1b[2J" in repr(other)
    with pytest.raises(ValueError) as info:
        rs.compare(baseline="nosuch")
    assert not CONTROL.search(str(info.value)), str(info.value)


def test_cli_compare_shows_control_characters_escaped(tmp_path):
    d = _hostile_result()
    d["meta"] = {"stack": HOSTILE_NAME}
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(_text({"results": [d]}))
    pb.write_text(_text({"results": [_c_result()]}))
    p = cli("compare", pa, pb)
    assert p.returncode == 0, p.stderr
    assert not CONTROL.search(p.stdout), repr(p.stdout)
    assert "\\x1b[2J" in p.stdout
    # a refused file: the message names it without obeying what is in its name
    bad = tmp_path / ("bad\x1b[2J.json")
    bad.write_text("{}")
    p = cli("compare", bad, pb)
    assert p.returncode != 0
    assert not CONTROL.search(p.stderr), repr(p.stderr)


def test_cli_run_shows_control_characters_escaped(tmp_path):
    target = tmp_path / ("t" + HOSTILE_NAME.replace("\x00", "") + ".dat")
    target.write_bytes(os.urandom(1 << 16))
    p = cli("run", "engine=null", "ios=8", "--no-progress", target)
    assert p.returncode == 0, p.stderr
    assert not CONTROL.search(p.stdout), repr(p.stdout)
    assert json.loads(p.stdout)["workload"]["targets"] == [str(target)]  # the same JSON value
    missing = tmp_path / ("missing" + HOSTILE_NAME)
    p = cli("run", "engine=null", "ios=8", "--no-progress", missing)
    assert p.returncode == 2
    assert "missing" in p.stderr and "\\x1b[2J" in p.stderr
    assert not CONTROL.search(p.stderr), repr(p.stderr)


def test_one_sanitiser():
    from nvbench._printable import json_text, printable
    assert printable("a\x1b[2Jb\x9bc\x00\td\u202e") == "a\\x1b[2Jb\\x9bc\\x00\\x09d\\u202e"
    assert printable("Ünïcödé 4K ✓") == "Ünïcödé 4K ✓"
    doc = json.dumps({"t": "a\x9b\x7fb\u202e"}, ensure_ascii=False)
    assert json.loads(json_text(doc)) == json.loads(doc) and not CONTROL.search(json_text(doc))


def test_results_from_python_importers_keep_their_own_path(tmp_path):
    """fio results saved in a result set are not nvbench's schema: they load as
    they were saved, and fio's own numbers must be finite."""
    from nvbench import fio
    rs = load(os.path.join(DATA, "fio-psync-randread.json"))
    rs.save(tmp_path / "x.json")
    assert load(tmp_path / "x.json") == rs
    with open(os.path.join(DATA, "fio-psync-randread.json")) as f:
        raw = json.load(f)
    raw["jobs"][0]["read"]["iops"] = math.inf
    with pytest.raises(ValueError, match="read.iops"):
        fio.from_fio(raw)
    text = json.dumps(raw)
    assert "Infinity" in text
    with pytest.raises(ValueError, match="read.iops"):
        loads(text)
