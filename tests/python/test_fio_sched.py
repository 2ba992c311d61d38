"""fio's scheduling between jobs in job files (`nvbench run --fio`): flow control
(flow, flow_id, flow_sleep), run on scratch files and, where fio is installed, side
by side with fio on the same file."""
import json
import os
import shutil
import subprocess

import pytest

from nvbench.fio_job import FioJobError, from_fio_job, run_fio_job

from conftest import ROOT
from test_fio_job import scratch_dir as scratch

JOBS = os.path.join(ROOT, "tests", "data", "fio_jobs")
FIO = shutil.which("fio")


def job(name):
    return os.path.join(JOBS, name + ".fio")


def fio_jobs(jobfile, cwd):
    """fio's report of each job, running the job file in cwd."""
    p = subprocess.run([FIO, "--output-format=json", jobfile], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout[p.stdout.index("{"):])["jobs"]


def fio_ios(jobfile, cwd):
    """{job name: (read I/Os, write I/Os)} of fio running the job file in cwd."""
    return {j["jobname"]: (j["read"]["total_ios"], j["write"]["total_ios"]) for j in fio_jobs(jobfile, cwd)}


def nvb_ios(jobfile, cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    rs = run_fio_job(jobfile)
    out = {}
    for r in rs:
        for g in r.data.get("groups") or [r.data]:
            out[g["workload"]["name"]] = (g["read"]["ios"], g["write"]["ios"])
    return out


def test_flow_keys():
    [[w, r, o]] = from_fio_job(job("flow"))
    assert (w["flow"], r["flow"], o["flow"]) == ("3", "1", "1")
    assert (o["flow_id"], w["fio"]["origin"]["flow"]) == ("7", "flow")
    assert w["flow_sleep"] == r["flow_sleep"] == "100"
    assert "flow_id" not in w  # fio's default, 0, is the key's


def test_flow_keeps_the_ratio_of_the_weights(tmp_path, monkeypatch):
    """The writer (flow=3) issues three I/Os for each of the reader's (flow=1), as fio 3.33 does
    on the same file (13090 and 4364 I/Os here), although the reader alone would be many times
    faster; the job of another flow id is not held back by them."""
    got = nvb_ios(job("flow"), scratch(tmp_path, "flow.dat"), monkeypatch)
    writes, reads = got["writer"][1], got["reader"][0]
    assert reads > 0 and got["writer"][0] == 0 and got["reader"][1] == 0
    # 3:1 while both run (test_flow's C test checks the bound itself); the groups start and end
    # as the threads are scheduled, and the one that ends last runs on alone (it leaves the flow,
    # as in fio): on a busy machine for a large part of a second, so only the direction is asserted
    # here: the reader alone would issue many times the writer's I/Os
    assert writes > reads, got
    assert got["other"][0] > reads
    if FIO:
        (tmp_path / "fio").mkdir()
        f = fio_ios(job("flow"), scratch(tmp_path / "fio", "flow.dat"))
        assert 2 * f["reader"][0] <= f["writer"][1] <= 4 * f["reader"][0] + 16, f


def test_flow_out_of_range(tmp_path):
    p = tmp_path / "t.fio"
    p.write_text("[j]\nioengine=null\nsize=1m\nflow=1001\n")
    with pytest.raises(FioJobError, match=r"'1001' for key 'flow' out of range \[0, 1000\]"):
        run_fio_job(str(p))


# ------------------------------------------------------------------ I/O priorities

def test_prio_keys():
    [[idle], [uring], [sync]] = from_fio_job(job("prio"))
    assert (idle["ioprio_class"], idle["cmdprio_pct"], idle["cmdprio_class"]) == ("3", "20", "1")
    assert idle["fio"]["origin"]["ioprio_class"] == "prioclass"
    assert "ioprio" not in idle and "cmdprio" not in idle
    assert (uring["ioprio_class"], uring["ioprio"], uring["cmdprio_pct"], uring["cmdprio"]) == ("2", "7", "50", "0")
    assert (sync["ioprio"], "ioprio_class" in sync, "cmdprio_pct" in sync) == ("4", False, False)
    assert any("latency per priority" in w for w in idle["fio"]["warnings"])


def test_prio_runs_as_fio(tmp_path, monkeypatch):
    """Each job reads the 256 blocks fio 3.33 reads on the same file; the priorities are in the
    request (as root the kernel takes the real-time class; a user without CAP_SYS_ADMIN gets
    EPERM for those I/Os) and the result says which were used."""
    d = scratch(tmp_path, "prio.dat")
    monkeypatch.chdir(d)
    rs = run_fio_job(job("prio"))
    got = {r.data["workload"]["name"]: r.data for r in rs}
    assert [r.data["workload"]["name"] for r in rs] == ["idle-rt", "be-uring", "be-sync"]
    for r in got.values():
        assert (r["read"]["ios"], r["errors"]["count"]) == (256, 0)
    assert got["idle-rt"]["engine_used"]["ioprio"] == "class 3 level 0"
    assert got["idle-rt"]["engine_used"]["cmdprio"] == "20% at class 1 level 0"
    assert got["be-uring"]["engine_used"]["cmdprio"] == "50% at class 2 level 0"
    assert got["be-sync"]["engine_used"] == {"ioprio": "class 2 level 4"}
    if FIO:
        (tmp_path / "fio").mkdir()
        f = fio_ios(job("prio"), scratch(tmp_path / "fio", "prio.dat"))
        assert f == {"idle-rt": (256, 0), "be-uring": (256, 0), "be-sync": (256, 0)}


def test_prio_bssplit_keys():
    [[simple], [adv]] = from_fio_job(job("prio-bssplit"))
    assert (simple["cmdprio_bssplit"], simple["cmdprio_class"], simple["cmdprio"]) == ("4096/100:8192/0,8192/50", "3", "2")
    assert simple["fio"]["origin"]["cmdprio_bssplit"] == "cmdprio_bssplit"
    assert adv["cmdprio_bssplit"] == "4096/25/3/1:4096/75/2/2,8192/50/3/0"
    assert (adv["ioprio_class"], adv["ioprio"]) == ("2", "7")
    assert any("latency per priority" in w for w in simple["fio"]["warnings"])


# what fio 3.33 logs (log_prio: each I/O's priority value) for prio-bssplit.fio's jobs: by
# (direction, size) the share of each value; nvbench draws each I/O the same way (its draw
# is checked over 100000 I/Os in tests/c/test_prio.c)
PRIO_SPLIT = {
    "simple": {(0, 4096): {0x6002: 1.0}, (0, 8192): {0: 1.0}, (1, 8192): {0x6002: 0.5, 0: 0.5}},
    "advanced": {(0, 4096): {0x6001: 0.25, 0x4002: 0.75}, (0, 8192): {0x4007: 1.0},
                 (1, 8192): {0x6000: 0.5, 0x4007: 0.5}},
}


def test_prio_bssplit_runs_and_fio_splits_alike(tmp_path, monkeypatch):
    """Both jobs run all their I/O without an error and say what they used; fio 3.33 on the same
    file sends, for each direction and size, each priority to its share of the I/Os (within 6
    standard deviations of the binomial), which is the split nvbench's engines draw."""
    d = scratch(tmp_path, "prio-bssplit.dat", size=16 << 20)
    monkeypatch.chdir(d)
    rs = run_fio_job(job("prio-bssplit"))
    got = {r.data["workload"]["name"]: r.data for r in rs}
    for r in got.values():
        assert r["errors"]["count"] == 0
        assert (16 << 20) - 8192 < r["read"]["bytes"] + r["write"]["bytes"] <= 16 << 20  # the byte budget, in whole I/Os
    assert got["simple"]["engine_used"]["cmdprio"].startswith("by size (cmdprio_bssplit 4096/100:8192/0,8192/50)")
    assert got["advanced"]["engine_used"]["ioprio"] == "class 2 level 7"
    if not FIO:
        pytest.skip("fio is not installed: nvbench's side ran")
    (tmp_path / "fio").mkdir()
    f = scratch(tmp_path / "fio", "prio-bssplit.dat", size=16 << 20)
    text = open(job("prio-bssplit")).read().replace("[simple]", "write_lat_log=p\nlog_prio=1\n\n[simple]")
    (f / "p.fio").write_text(text)
    subprocess.run([FIO, "p.fio"], cwd=f, capture_output=True, check=True, timeout=300)
    for n, name in enumerate(("simple", "advanced"), 1):
        seen = {}
        for line in open(f / f"p_clat.{n}.log"):
            _, _, ddir, bs, prio = [x.strip() for x in line.split(",")][:5]
            seen.setdefault((int(ddir), int(bs)), []).append(int(prio, 16))
        assert set(seen) == set(PRIO_SPLIT[name])
        for key, shares in PRIO_SPLIT[name].items():
            vals = seen[key]
            assert set(vals) <= set(shares), (name, key, set(vals))
            for v, q in shares.items():
                sd = (q * (1 - q) / len(vals)) ** 0.5
                assert abs(vals.count(v) / len(vals) - q) <= 6 * sd + 1e-9, (name, key, v, vals.count(v), len(vals))


@pytest.mark.parametrize("text,why", [
    ("ioengine=psync\ncmdprio_percentage=10\n", r"cmdprio_pct '10': engine 'psync' sets no priority per I/O"),
    ("ioengine=libaio\ncmdprio_percentage=10,20\n", r"'cmdprio_percentage': different values per direction"),
    ("ioengine=libaio\nprioclass=4\n", r"'4' for key 'ioprio_class' out of range \[0, 3\]"),
    ("ioengine=psync\ncmdprio_bssplit=4k/50\n", r"cmdprio_bssplit '4096/50': engine 'psync' sets no priority"),
    ("ioengine=libaio\ncmdprio_bssplit=4k/50\ncmdprio_percentage=5\n", r"one or the other"),
    ("ioengine=libaio\ncmdprio_bssplit=4k/60:4k/50\n", r"'cmdprio_bssplit'.*more than 100"),
])
def test_prio_refused(tmp_path, text, why):
    d = scratch(tmp_path, "r.dat")
    p = tmp_path / "t.fio"
    p.write_text(f"[j]\nfilename={d}/r.dat\nsize=64k\nrw=read\n{text}")
    with pytest.raises(FioJobError, match=why):
        run_fio_job(str(p))


# ------------------------------------------------------------------ latency target

def test_latency_target_before_its_first_window(tmp_path, monkeypatch):
    """fio's search never moves when the job ends before its first latency_window: fio 3.33
    runs such a job at depth 1 throughout (its report: depth=1, IO depths 1=100%); so does
    nvbench, with a note."""
    [[w]] = from_fio_job(job("latency-target"))
    assert (w["qd"], w["fio"]["origin"]["qd"]) == ("1", "latency_target")
    assert any("latency_window" in t and "qd=1" in t for t in w["fio"]["warnings"])
    monkeypatch.chdir(scratch(tmp_path, "lat.dat"))
    [r] = run_fio_job(job("latency-target"))
    assert r.data["qd_effective"] == 1 and r.data["read"]["ios"] > 0
    if FIO:
        (tmp_path / "fio").mkdir()
        [out] = fio_jobs(job("latency-target"), scratch(tmp_path / "fio", "lat.dat"))
        assert out["latency_depth"] == 1 and out["iodepth_level"]["1"] == 100.0


@pytest.mark.parametrize("text", [
    "latency_target=500ms\nlatency_window=1s\nruntime=3\n",  # the search would move after 1 s
    "latency_target=500ms\nlatency_window=10s\n",  # no runtime: the job may outlast a window
    "latency_target=500ms\nlatency_window=3s\nruntime=2\nramp_time=2\n",  # the ramp counts
])
def test_latency_target_search_refused(tmp_path, text):
    p = tmp_path / "t.fio"
    p.write_text(f"[j]\nioengine=libaio\nfilename=x.dat\nsize=1m\nrw=randread\niodepth=32\n{text}")
    with pytest.raises(FioJobError, match=r"'latency_target': fio searches the queue depth"):
        from_fio_job(str(p))
    [[w]] = from_fio_job(str(p), lenient=True)
    assert w["qd"] == "32" and any("latency_target" in t for t in w["fio"]["warnings"])


# ------------------------------------------------------------------ number_ios

def test_number_ios_as_fio(tmp_path, monkeypatch):
    """number_ios ends each pass of a job after that many I/Os per clone, never beyond its size;
    a time_based job runs on (a note says so): the counts fio 3.33 does on the same file (100;
    256, the size's blocks; 2 x 50; 3 loops of 100)."""
    [[fewer], [more], [clones], [loops], [timed]] = from_fio_job(job("number-ios"))
    assert (fewer["ios"], more["ios"], clones["ios"], loops["ios"]) == ("100", "256", "100", "300")
    assert "io_limit" not in more and "ios" not in timed and timed["runtime"] == "1000000000ns"
    assert fewer["fio"]["origin"]["ios"] == "number_ios"
    assert any("number_ios=1000 with time_based" in w for w in timed["fio"]["warnings"])
    want = {"fewer": (100, 0), "more-than-size": (256, 0), "clones": (0, 100), "loops": (300, 0)}
    got = nvb_ios(job("number-ios"), scratch(tmp_path, "number-ios.dat"), monkeypatch)
    assert {k: v for k, v in got.items() if k != "timed"} == want and got["timed"][0] > 0
    if FIO:
        (tmp_path / "fio").mkdir()
        f = {}
        for j in fio_jobs(job("number-ios"), scratch(tmp_path / "fio", "number-ios.dat")):
            r, w = f.get(j["jobname"], (0, 0))
            f[j["jobname"]] = (r + j["read"]["total_ios"], w + j["write"]["total_ios"])
        assert {k: v for k, v in f.items() if k != "timed"} == want
        assert f["timed"][0] > 1000  # fio runs on past number_ios too


def test_error_dump_is_reporting_only(tmp_path):
    """error_dump only chooses which errors fio prints: mapped to nothing, no warning; the job's
    other options as without it."""
    p = tmp_path / "e.fio"
    p.write_text("[j]\nioengine=null\nsize=1m\nrw=randread\nerror_dump=0\n")
    [[w]] = from_fio_job(str(p))
    p.write_text("[j]\nioengine=null\nsize=1m\nrw=randread\n")
    [[w0]] = from_fio_job(str(p))
    assert w == w0 and not w["fio"]["warnings"]
