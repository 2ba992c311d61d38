"""Result files written by someone else: nvbench.load reads nvbench results with
the library's own strict parser."""

import errno
import json
import os
import re

import pytest

import _pkg

if _pkg.EXTENSION_MISSING:
    pytest.skip("nvbench._nvbench is not built: load reads results with it", allow_module_level=True)

from nvbench import NvbenchError  # noqa: E402
from nvbench.results import loads  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")



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
