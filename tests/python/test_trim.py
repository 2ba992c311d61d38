"""Trims from Python: rw=trim/randtrim, the result's trim direction (r.trim,
r.direction("trim")), its figures in the tables, and fio's trim object read by
the fio importer."""
import copy
import json
import os

import pytest

from conftest import check_c_result, digest

import nvbench
from nvbench import fio

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def test_null_trims_counted_in_the_trim_direction(schema):
    r = nvbench.run(engine="null", rw="randtrim", bs="8k", qd=4, jobs=2, ios=300)
    assert r.trim.ios == 300 and r.trim.bytes == 300 * 8192
    assert r.direction("trim").ios == 300
    assert r.read.ios == 0 and r.write.ios == 0
    assert r.total.ios == 300
    assert r.meta["op"] == "trim" and r.figures()["iops"] == r.trim.iops
    assert r.trim.lat_ns.p50 <= r.trim.lat_ns.p99
    check_c_result(r.data, schema)
    lacking = [k for k in schema["definitions"]["direction_total"]["required"] if k not in r.data["trim"]]
    assert not lacking
    assert "trim" in repr(r)
    # a workload that does not trim has no trim object; direction() reads zeros
    q = nvbench.run(engine="null", rw="randread", ios=10)
    assert "trim" not in q.data and q.direction("trim").ios == 0
    with pytest.raises(AttributeError):
        q.trim
    with pytest.raises(ValueError, match="'discard'"):
        q.direction("discard")


def test_psync_trim_zeroes_the_region(data_file):
    r = nvbench.run(data_file, engine="psync", rw="trim", bs="64k", size="512k", io_limit="512k")
    assert r.trim.ios == 8
    with open(data_file, "rb") as f:
        b = f.read()
    assert b[: 512 << 10] == bytes(512 << 10)
    assert b[512 << 10:] != bytes(len(b) - (512 << 10))


def test_engine_that_cannot_trim_is_named(data_file, available):
    if "libaio" not in available:
        pytest.skip("libaio not available")
    before = digest(data_file)
    with pytest.raises(nvbench.NvbenchError, match=r"libaio.*rw=trim"):
        nvbench.run(data_file, engine="libaio", rw="trim", ios=4)
    assert digest(data_file) == before


def test_fio_trim_object_is_mapped():
    with open(os.path.join(DATA, "fio-psync-randread.json")) as f:
        raw = json.load(f)
    # the same job as a randtrim: fio reports its figures in "trim"
    job = raw["jobs"][0]
    job["job options"]["rw"] = "randtrim"
    job["job options"]["bs"] = "4k,4k,64k"
    job["trim"], job["read"] = copy.deepcopy(job["read"]), copy.deepcopy(raw["jobs"][0]["write"])
    (r,) = fio.from_fio(raw)
    assert r.meta["op"] == "trim" and r.meta["bs"] == 64 << 10
    assert r.trim.ios == job["trim"]["total_ios"] and r.trim.iops == job["trim"]["iops"]
    assert r.trim.bytes == job["trim"]["io_bytes"]
    assert r.total.ios == job["trim"]["total_ios"] + job["read"]["total_ios"]
    assert r.trim.clat_ns.p99 == job["trim"]["clat_ns"]["percentile"]["99.000000"]
    assert r.duration_s == job["trim"]["runtime"] / 1000
    # a job that did not trim has none (as nvbench's own results)
    with open(os.path.join(DATA, "fio-psync-randread.json")) as f:
        (q,) = fio.from_fio(json.load(f))
    assert "trim" not in q.data


def test_fio_job_file_with_trim_runs(tmp_path):
    # a fio job file that trims (fio's syntax) runs on nvbench's loop: its trims counted
    # (sequential: a random one maps norandommap, a key of another branch)
    target = tmp_path / "t.dat"
    target.write_bytes(os.urandom(4 << 20))
    jobfile = tmp_path / "trim.fio"
    jobfile.write_text(f"[global]\nioengine=psync\nbs=64k\n\n[discard]\nrw=trim\n"
                       f"filename={target}\nio_size=1280k\n")
    from nvbench.fio_job import run_fio_job
    (r,) = run_fio_job(str(jobfile))
    assert r.data["workload"]["rw"] == "trim"
    assert r.trim.ios == 20 and r.read.ios == 0 and r.write.ios == 0
