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
    # lat -> lat_ns, clat -> clat_ns, each with its own figures, never mixed
    for kind in ("lat", "clat"):
        for k in ("min", "mean", "max", "stddev"):
            assert r.read[f"{kind}_ns"][k] == job["read"][f"{kind}_ns"][k]
    # fio's default computes no lat percentiles: n/a, not clat's
    assert r.data["fio"]["lat_percentiles"] is False
    assert r.read.lat_ns.p99 is None and r.read.lat_ns["p99.9"] is None and r.read.lat_ns.p50 is None
    assert r.read.clat_ns.p99 == job["read"]["clat_ns"]["percentile"]["99.000000"]
    assert r.read.clat_ns["p99.9"] == job["read"]["clat_ns"]["percentile"]["99.900000"]
    assert any("lat_percentiles" in w for w in r.data["warnings"])
    # psync: fio measured no slat (N 0 with I/O done): null, as nvbench reports it
    assert r.data["read"]["slat_ns"] is None
    assert r.write.ios == 0 and r.write.lat_ns.mean == 0
    assert r.duration_s == job["read"]["runtime"] / 1000


def test_all_three_latencies_with_their_own_percentiles():
    """fio 3.33, libaio, lat_percentiles=1 slat_percentiles=1 (a real run, kept)."""
    raw = _raw("fio-libaio-allpct.json")
    d = raw["jobs"][0]["read"]
    (r,) = fio.from_fio(raw)
    assert r.data["fio"]["lat_percentiles"] is True
    assert not any("lat_percentiles" in w for w in r.data["warnings"])
    for kind in ("lat", "slat", "clat"):
        ours, theirs = r.data["read"][f"{kind}_ns"], d[f"{kind}_ns"]
        assert (ours["min"], ours["mean"], ours["max"]) == (theirs["min"], theirs["mean"], theirs["max"])
        for k, v in theirs["percentile"].items():
            assert ours[fio._pkey(k)] == v
        assert ours["p25"] is None   # not in fio's list: not measured, not made up
    assert r.read.lat_ns.min > r.read.clat_ns.min


def test_cpu_figures_are_marked_fio_job_thread_only():
    raw = _raw("fio-psync-randread.json")
    job = raw["jobs"][0]
    (r,) = fio.from_fio(raw)
    # fio takes usr_cpu/sys_cpu with RUSAGE_THREAD: its job thread, not its process
    assert r.cpu.scope == "fio job thread only" == fio.THREAD_CPU_SCOPE
    assert any("fio job thread only" in w and "RUSAGE_THREAD" in w for w in r.data["warnings"])
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
    assert row["cpu_scope"] == "fio job thread only"
    # the tables mark the CPU cells and say why under the table; the repr says it too
    text = ResultSet([r2]).table()
    cpu_line = next(line for line in text.splitlines() if line.startswith("CPU per I/O"))
    assert cpu_line.rstrip().endswith("*")
    assert "* CPU figures: fio job thread only" in text
    assert "(fio job thread only)" in repr(r2)
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
        assert lo <= r.data[op]["clat_ns"]["p99"] <= hi
        assert r.data[op]["lat_ns"]["p99"] is None  # fio had no lat percentiles
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
    assert fio.parse_size("128KiB") == 128000  # fio's kb_base=1024: the IEC spelling is 1000s (fio 3.33)
    assert fio.parse_size("128KiB", kb_base=1000) == 131072
    assert fio.parse_size("1m") == 1 << 20
    assert fio.parse_size("512") == 512
    with pytest.raises(ValueError, match="lots"):
        fio.parse_size("lots")
    raw = _raw("fio-psync-randread.json")
    raw["jobs"][0]["job options"].update(bs="1.5k")
    with pytest.raises(ValueError, match=r"bs '1\.5k'"):  # fio reads 1 byte there: refused, named
        fio.from_fio(raw)
    raw["jobs"][0]["job options"].update(bs="8KiB", kb_base="1000")
    assert fio.from_fio(raw)[0].meta["bs"] == 8192
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


_NO_FIO = "fio is not installed (Debian: apt-get install fio): the real-run check of the mapping is skipped"


def _real_fio(tmp_path, *opts):
    """A real fio run on a small scratch file: (its JSON as fio wrote it, the Result)."""
    out = subprocess.run(
        ["fio", "--name=real", f"--filename={tmp_path / 'scratch.dat'}", "--size=8M", "--bs=4k",
         "--rw=randread", "--runtime=300ms", "--time_based", "--output-format=json", *opts],
        capture_output=True, text=True, timeout=120, check=True, cwd=tmp_path)
    (path := tmp_path / "fio.json").write_text(out.stdout)
    raw = json.loads(out.stdout[out.stdout.index("{"):])
    (r,) = load(path)
    return raw["jobs"][0], r


def _consistent(where, lat):
    """Percentiles ordered and within [min, max] up to fio's own bucket error (its
    percentiles are bucket values, a few percent off): what mixing lat's moments with
    clat's percentiles broke (an imported min of 19.5 us beside a p1 of 0.3 us)."""
    ps = [(k, v) for k, v in lat.items() if k.startswith("p") and v is not None]
    ps.sort(key=lambda kv: float(kv[0][1:]))
    vals = [v for _, v in ps]
    assert vals == sorted(vals), f"{where}: {lat}"
    assert all(lat["min"] / 1.05 <= v <= lat["max"] * 1.05 for v in vals), f"{where}: {lat}"


@pytest.mark.skipif(shutil.which("fio") is None, reason=_NO_FIO)
def test_real_fio_run_psync_maps_lat_and_clat_apart(tmp_path):
    job, r = _real_fio(tmp_path, "--ioengine=psync")
    d = job["read"]
    assert r.read.ios == d["total_ios"] > 0
    for kind in ("lat", "clat"):
        for k in ("min", "mean", "max", "stddev"):
            assert r.read[f"{kind}_ns"][k] == pytest.approx(d[f"{kind}_ns"][k])
        _consistent(kind, r.data["read"][f"{kind}_ns"])
    assert r.read.clat_ns.p50 == d["clat_ns"]["percentile"]["50.000000"]
    # lat percentiles: fio computed none by default, so none are made up
    assert "percentile" not in d["lat_ns"] and r.read.lat_ns.p99 is None
    assert r.data["read"]["slat_ns"] is None   # psync: no slat (fio's N is 0)
    # every I/O's lat includes its clat
    assert r.read.lat_ns.min >= r.read.clat_ns.min and r.read.lat_ns.mean >= r.read.clat_ns.mean
    assert r.cpu.scope == "fio job thread only"
    table = ResultSet([r]).table(metrics=["lat_mean_ms", "lat_p99_ms", "cpu_us_per_io"])
    assert "n/a" in next(line for line in table.splitlines() if line.startswith("p99 Latency"))


@pytest.mark.skipif(shutil.which("fio") is None, reason=_NO_FIO)
def test_real_fio_run_libaio_with_all_percentiles(tmp_path):
    job, r = _real_fio(tmp_path, "--ioengine=libaio", "--iodepth=4", "--lat_percentiles=1",
                       "--slat_percentiles=1")
    d = job["read"]
    assert r.data["fio"]["lat_percentiles"] is True
    for kind in ("lat", "slat", "clat"):
        assert d[f"{kind}_ns"]["N"] > 0
        assert r.read[f"{kind}_ns"].mean == pytest.approx(d[f"{kind}_ns"]["mean"])
        assert r.read[f"{kind}_ns"].p99 == d[f"{kind}_ns"]["percentile"]["99.000000"]
        _consistent(kind, r.data["read"][f"{kind}_ns"])
    # fio's lat is slat + clat, I/O by I/O: the means add up
    assert r.read.lat_ns.mean == pytest.approx(r.read.slat_ns.mean + r.read.clat_ns.mean, rel=1e-6)


@pytest.mark.skipif(shutil.which("fio") is None, reason=_NO_FIO)
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
