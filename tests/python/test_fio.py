"""fio --output-format=json read into Results (fixtures are real fio 3.33 output)."""

import json
import os
import shutil
import subprocess

import pytest

import _pkg
import _synth  # first: makes nvbench importable without the C extension
from nvbench import fio
from nvbench.results import ResultSet, load

DATA = _synth.DATA


def _raw(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def test_single_psync_job():
    raw = _raw("fio-psync-randread.json")
    job = raw["jobs"][0]
    (r,) = load(os.path.join(DATA, "fio-psync-randread.json"))
    assert r.data["source"] == "fio" and r.engine == "psync"
    assert r.meta == {"engine": "psync", "rw": "randread", "bs": 4096, "qd": 1, "jobs": 1,
                      "repeat": 0, "target": job["job options"]["filename"], "cell": "rand4k",
                      "op": "read", "stack": "psync"}
    assert r.read.iops == job["read"]["iops"]
    assert r.read.ios == job["read"]["total_ios"] and r.read.bytes == job["read"]["io_bytes"]
    assert r.read.bw_bytes_s == job["read"]["bw_bytes"]
    assert r.read.bw_gib_s == pytest.approx(job["read"]["bw_bytes"] / 2**30)
    # moments from lat_ns (submission to completion, as nvbench measures) ...
    assert r.read.lat_ns.mean == job["read"]["lat_ns"]["mean"]
    assert r.read.lat_ns.max == job["read"]["lat_ns"]["max"]
    # ... percentiles from clat_ns, which is where fio 3.33 puts them by default
    assert r.data["fio"]["percentiles_from"] == "clat"
    assert r.read.lat_ns.p99 == job["read"]["clat_ns"]["percentile"]["99.000000"]
    assert r.read.lat_ns["p99.9"] == job["read"]["clat_ns"]["percentile"]["99.900000"]
    assert r.write.ios == 0
    assert r.duration_s == job["read"]["runtime"] / 1000


def test_cpu_figures_follow_nvbench_definitions():
    raw = _raw("fio-psync-randread.json")
    job = raw["jobs"][0]
    (r,) = fio.from_fio(raw)
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    assert r.cpu.process_user_s + r.cpu.process_sys_s == pytest.approx(cpu_s)
    assert r.cpu.process_cores == pytest.approx(cpu_s / r.duration_s)
    assert r.cpu.cpu_us_per_io == pytest.approx(cpu_s * 1e6 / job["read"]["total_ios"])
    assert r.cpu.iops_per_core == pytest.approx(job["read"]["iops"] / r.cpu.process_cores)
    assert "system_pct" not in r.cpu   # fio does not measure the whole machine
    (r2,) = fio.from_fio(raw, ncpus=4)
    assert r2.cpu.system_pct == pytest.approx(100 * r2.cpu.process_cores / 4)
    row = ResultSet([r2]).to_frame().iloc[0]
    assert row["cpu_total_pct"] == pytest.approx(r2.cpu.system_pct)
    assert load(os.path.join(DATA, "fio-psync-randread.json"), ncpus=4)[0].cpu.ncpus == 4


def test_job_clones_are_merged_like_nvbench_jobs():
    raw = _raw("fio-null-randrw-2jobs.json")
    a, b = raw["jobs"]
    rs = fio.from_fio(raw)
    assert len(rs) == 1
    (r,) = rs
    assert r.meta["engine"] == "null" and r.meta["jobs"] == 2 and r.meta["qd"] == 8
    assert r.meta["op"] == "mixed" and r.meta["cell"] == "rand4k"
    assert r.data["workload"]["rwmix"] == 70
    for op in ("read", "write"):
        assert r.data[op]["ios"] == a[op]["total_ios"] + b[op]["total_ios"]
        assert r.data[op]["iops"] == pytest.approx(a[op]["iops"] + b[op]["iops"])
        na, nb = a[op]["lat_ns"]["N"], b[op]["lat_ns"]["N"]
        mean = (a[op]["lat_ns"]["mean"] * na + b[op]["lat_ns"]["mean"] * nb) / (na + nb)
        assert r.data[op]["lat_ns"]["mean"] == pytest.approx(mean)
        assert r.data[op]["lat_ns"]["min"] == min(a[op]["lat_ns"]["min"], b[op]["lat_ns"]["min"])
        lo = min(a[op]["clat_ns"]["percentile"]["99.000000"], b[op]["clat_ns"]["percentile"]["99.000000"])
        hi = max(a[op]["clat_ns"]["percentile"]["99.000000"], b[op]["clat_ns"]["percentile"]["99.000000"])
        assert lo <= r.data[op]["lat_ns"]["p99"] <= hi
    assert r.data["fio"]["entries"] == 2
    row = rs.to_frame().iloc[0]
    assert row["iops"] == pytest.approx(r.read.iops + r.write.iops)
    assert row["read_iops"] == r.read.iops and row["write_iops"] == r.write.iops


def test_group_reporting_and_stonewalled_jobs_give_one_result_each():
    raw = _raw("fio-null-seed-group.json")
    rs = load(os.path.join(DATA, "fio-null-seed-group.json"))
    assert [(r.meta["cell"], r.meta["op"], r.meta["qd"], r.meta["jobs"]) for r in rs] == [
        ("rand4k", "read", 16, 2), ("seq128k", "write", 16, 2)]
    write = rs[1]
    job = raw["jobs"][1]
    assert write.write.iops == job["write"]["iops"] and write.read.ios == 0
    # job_runtime of a group-reported entry is summed over its jobs: CPU time still adds up.
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    assert write.cpu.cpu_us_per_io == pytest.approx(cpu_s * 1e6 / job["write"]["total_ios"])
    text = rs.table()
    assert text.index("Random 4K read") < text.index("Sequential 128K write")


@pytest.mark.skipif(_pkg.EXTENSION_MISSING, reason="nvbench._nvbench is not built: "
                    "load reads nvbench results with the library's parser")
def test_fio_and_nvbench_results_share_tables_and_comparisons():
    rs = (load(os.path.join(DATA, "fio-psync-randread.json"), stack="fio psync")
          + load(os.path.join(DATA, "c-psync-randread.json"), stack="nvbench psync"))
    frame = rs.table(fmt="frame")
    assert list(frame.columns) == ["fio psync", "nvbench psync"]
    assert all(frame.loc[("Random 4K read", "IOPS")] != "")
    df = rs.compare(baseline="fio psync", metric="iops")
    assert list(df["stack"]) == ["nvbench psync"]


def test_parse_size_and_options():
    assert fio.parse_size("4k") == 4096
    assert fio.parse_size("128KiB") == 131072
    assert fio.parse_size("1m") == 1 << 20
    assert fio.parse_size("512") == 512
    with pytest.raises(ValueError):
        fio.parse_size("lots")
    raw = _raw("fio-psync-randread.json")
    raw["jobs"][0]["job options"].update(bs="4k,64k", rw="randwrite:8", ioengine="io_uring")
    (r,) = fio.from_fio(raw)
    assert (r.meta["rw"], r.meta["bs"], r.meta["engine"]) == ("randwrite", 65536, "io_uring")
    del raw["jobs"][0]["job options"]["ioengine"]
    assert fio.from_fio(raw)[0].meta["engine"] == "psync"   # fio's default on Linux


def test_notes_before_the_json_are_skipped(tmp_path):
    path = tmp_path / "fio.out"
    with open(os.path.join(DATA, "fio-psync-randread.json")) as f:
        path.write_text("fio: note: both iodepth >= 1 and synchronous I/O engine\n" + f.read())
    assert len(load(path)) == 1
    with pytest.raises(ValueError):
        fio.from_fio({"jobs": None})


def test_round_trip_of_fio_results(tmp_path):
    rs = load(os.path.join(DATA, "fio-null-seed-group.json"))
    rs.save(tmp_path / "x.json")
    assert load(tmp_path / "x.json") == rs


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_live_fio_run_loads(tmp_path):
    """Whatever the installed fio prints today must load (null engine: no disk needed)."""
    out = subprocess.run(
        ["fio", "--name=live", "--ioengine=null", "--rw=randread", "--bs=64k", "--iodepth=4",
         "--size=64m", "--runtime=100ms", "--time_based", "--output-format=json"],
        capture_output=True, text=True, timeout=60, check=True, cwd=tmp_path)
    (path := tmp_path / "live.json").write_text(out.stdout)
    (r,) = load(path)
    assert r.meta["cell"] == "rand64k" and r.meta["engine"] == "null" and r.meta["qd"] == 4
    assert r.read.iops > 0 and r.cpu.cpu_us_per_io > 0
