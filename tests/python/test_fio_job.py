"""fio job files on nvbench (nvbench.fio_job, `nvbench run --fio`): the job files under
tests/data/fio_jobs are written in fio's documented syntax; their mapping is checked key
by key, the ones this library can run are run on the null engine or a scratch file."""
import json
import os
import shutil
import subprocess
import sys
import warnings

import pytest

import nvbench
from nvbench import _nvbench
from nvbench.fio_job import FioJobError, fio_size, fio_time_ns, from_fio_job, run_fio_job

from conftest import ROOT, check_c_result, cli, loop_device, lua_env

JOBS = os.path.join(ROOT, "tests", "data", "fio_jobs")
KEYS = {name for name, _, _ in _nvbench.workload_keys()}


def job(name):
    return os.path.join(JOBS, name + ".fio")


def keys(w):
    """A workload dict without the mapping's own bookkeeping."""
    return {k: v for k, v in w.items() if k != "fio"}


def write(tmp_path, text, name="t.fio"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# ------------------------------------------------------------------ values

@pytest.mark.parametrize("text,base,want", [
    # as fio 3.33 reads them (checked with fio itself: size=..., bs=1, io_bytes)
    ("4k", 1024, 4096), ("1K", 1024, 1024), ("1kb", 1024, 1024), ("1KB", 1024, 1024),
    ("1ki", 1024, 1024), ("1kib", 1024, 1000), ("1KiB", 1024, 1000), ("1MiB", 1024, 1000000),
    ("1m", 1024, 1 << 20), ("1mi", 1024, 1 << 20), ("2g", 1024, 2 << 30), ("3t", 1024, 3 << 40),
    ("0x400", 1024, 1024), ("1000b", 1024, 1000), ("512", 1024, 512),
    ("1k", 1000, 1000), ("1KiB", 1000, 1024), ("1m", 1000, 1000000),
])
def test_fio_sizes(text, base, want):
    assert fio_size(text, base) == want


@pytest.mark.parametrize("text", ["1.5k", "k", "4x", "1ib", "", "-1"])
def test_fio_size_refused(text):
    with pytest.raises(FioJobError, match="not a size"):
        fio_size(text)


def test_fio_times():
    assert fio_time_ns("30") == 30 * 10**9
    assert fio_time_ns("500ms") == 500 * 10**6 and fio_time_ns("500msec") == 500 * 10**6
    assert fio_time_ns("2m") == 120 * 10**9 and fio_time_ns("1h") == 3600 * 10**9
    assert fio_time_ns("1d") == 86400 * 10**9 and fio_time_ns("1.5s") == 1500 * 10**6
    assert fio_time_ns("50", unit="us") == 50000 and fio_time_ns("10usec") == 10000
    with pytest.raises(FioJobError, match="not a time"):
        fio_time_ns("5 fortnights")


# ------------------------------------------------------------------ the test job files

def test_randread_4k_qd32_libaio():
    steps = from_fio_job(job("randread-4k-qd32"))
    assert len(steps) == 1 and len(steps[0]) == 1
    assert keys(steps[0][0]) == {
        "engine": "libaio", "name": "randread-4k", "rw": "randread", "direct": "1", "bs": "4096",
        "qd": "32", "jobs": "1", "random_map": "0", "runtime": "30000000000ns",
        "targets": ["/dev/nvme0n1"]}
    assert steps[0][0]["fio"]["origin"]["qd"] == "iodepth"
    assert steps[0][0]["fio"]["warnings"] == []


def test_seqwrite_numjobs_sizes():
    [[w]] = from_fio_job(job("seqwrite-numjobs"))
    # 16m clones on adjacent regions (offset_increment=16m): one 64 MiB region, four jobs.
    # io_size=8MiB is 8,000,000 bytes as fio reads it: 61 blocks of 128 KiB per job.
    assert keys(w) == {
        "engine": "psync", "name": "seqwrite", "rw": "write", "direct": "0", "invalidate": "0",
        "bs": str(128 << 10), "jobs": "4", "size": str(64 << 20), "io_limit": str(4 * 61 * (128 << 10)),
        "targets": ["scratch.dat"]}
    assert w["fio"]["origin"]["direct"] == "buffered" and w["fio"]["origin"]["rw"] == "readwrite"


def test_mixed_rwmixread():
    [[w]] = from_fio_job(job("mixed-70-30"))
    assert keys(w) == {
        "engine": "io_uring", "name": "oltp", "rw": "randrw", "rwmix": "70", "direct": "0",
        "bs": "8192", "qd": "8", "jobs": "1", "size": str(64 << 20), "runtime": "2000000000ns",
        "ramp": "500000000ns", "seed": "1234", "random_map": "0", "random_distribution": "zipf:1.2",
        "thinktime": "50", "thinktime_blocks": "4", "rate_iops": "1000", "rate_mode": "closed",
        "io_uring.fixedbufs": "1", "io_uring.regfiles": "0", "io_uring.sqpoll": "0",
        "targets": ["."]}


def test_stonewall_steps():
    steps = from_fio_job(job("stonewall"))
    assert [[w["name"] for w in s] for s in steps] == [["fill"], ["check"], ["reader-a", "reader-b"]]
    fill, check = steps[0][0], steps[1][0]
    assert keys(fill) == {"engine": "null", "name": "fill", "rw": "write", "direct": "0", "bs": "65536",
                          "jobs": "1", "size": str(8 << 20), "io_limit": str(8 << 20), "targets": []}
    assert check["submit_batch"] == "4" and check["complete_batch"] == "2"
    assert all(w["random_map"] == "0" for w in steps[2])


def test_env_expansion():
    env = {"NVB_FIO_BS": "16k", "NVB_FIO_SIZE": "1g", "NVB_FIO_RUNTIME": "250ms"}
    [[w]] = from_fio_job(job("env"), env=env)
    assert w["bs"] == "16384" and w["size"] == str(1 << 30) and w["runtime"] == "250000000ns"
    assert w["qd"] == str(os.cpu_count())
    with pytest.raises(FioJobError, match="'NVB_FIO_RUNTIME' is not set"):
        from_fio_job(job("env"), env={k: v for k, v in env.items() if k != "NVB_FIO_RUNTIME"})


def test_unsupported_option_errors_or_warns():
    with pytest.raises(FioJobError, match=r"section \[fsync-writer\]: fio option 'fsync'"):
        from_fio_job(job("unsupported"))
    [[w]] = from_fio_job(job("unsupported"), lenient=True)
    assert w["rw"] == "write" and "fsync" not in w
    assert any("'fsync'" in t and "[fsync-writer]" in t for t in w["fio"]["warnings"])


# ------------------------------------------------------------------ the format

def test_parser_details(tmp_path):
    path = write(tmp_path, """
# a comment
; another
[global]
ioengine=null
size = 1m
stonewall

[a]
rw=randwrite
  norandommap
rwmixwrite=30

[global]
bs=8k

[b]
filename=/tmp/x\\:y:/tmp/z
""")
    steps = from_fio_job(path)
    assert [[w["name"] for w in s] for s in steps] == [["a"], ["b"]]  # stonewall from [global]
    a, b = steps[0][0], steps[1][0]
    assert "bs" not in a and a["rwmix"] == "70" and a["random_map"] == "0" and a["size"] == str(1 << 20)
    assert b["bs"] == "8192" and b["rw"] == "read" and b["targets"] == ["/tmp/x:y", "/tmp/z"]
    assert b["size"] == str(1 << 19)  # fio divides size among the files


def test_fifo_target_without_size_is_refused_unopened(tmp_path):
    # a FIFO target without size: its length was taken by opening it for reading,
    # which waits for a writer forever (the docs promised it is refused unopened).
    # Run in a child so that a regression fails the test instead of hanging the
    # suite; the bound is generous: the answer needs no I/O at all.
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    jf = write(tmp_path, f"[p]\nioengine=psync\nrw=read\nbs=4k\nfilename={fifo}\n")
    code = ("import sys\nfrom nvbench.fio_job import from_fio_job, FioJobError\n"
            "try:\n    from_fio_job(sys.argv[1])\nexcept FioJobError as e:\n    print(e)\n")
    p = subprocess.run([sys.executable, "-c", code, jf], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "fio option 'size'" in p.stdout and "FIFO" in p.stdout and str(fifo) in p.stdout, p.stdout


def test_include_and_directory(tmp_path):
    write(tmp_path, "ioengine=libaio\ndirect=1\n", "common.inc")
    path = write(tmp_path, "[global]\ninclude common.inc\ndirectory=/mnt/a\nsize=4m\n[j]\nfilename=f1\n")
    [[w]] = from_fio_job(path)
    assert w["engine"] == "libaio" and w["direct"] == "1" and w["targets"] == ["/mnt/a/f1"]
    path = write(tmp_path, "[j]\ndirectory=/mnt/b\nsize=4m\n")
    [[w]] = from_fio_job(path)
    assert w["targets"] == ["/mnt/b"] and w["size"] == str(4 << 20)  # a scratch file there


@pytest.mark.parametrize("body,opt", [
    ("bs=4k,8k", "bs"), ("verify=pattern\nrw=read", "verify"), ("rw=randread:8", "rw"), ("cpus_allowed=0-1", "cpus_allowed"), ("rw=write\nnumjobs=2\nverify=crc32c", "numjobs"), ("rw=read\nnumjobs=2\noffset_increment=4k", "offset_increment"),
    ("rw=randrw\nverify=crc32c", "verify"), ("ratemin=1m", "ratemin"), ("continue_on_error=verify", "continue_on_error"),
    ("rw=randrw\ncontinue_on_error=write", "continue_on_error"),
    ("rw=write\nverify=crc32c\ncontinue_on_error=write", "continue_on_error"),
])
def test_refused_options_name_themselves(tmp_path, body, opt):
    path = write(tmp_path, f"[global]\nioengine=null\nsize=1m\n[sec]\n{body}\n")
    with pytest.raises(FioJobError, match=rf"\[sec\]: fio option '{opt}'"):
        from_fio_job(path)
    [[w, *_]] = from_fio_job(path, lenient=True)[:1]
    assert any(f"option '{opt}'" in t for t in w["fio"]["warnings"])


@pytest.mark.parametrize("body,opt", [
    ("ioengine=windowsaio", "ioengine"), ("time_based\nrw=read", "time_based"), ("size=1.5m", "size"),
    ("rw=frobnicate", "rw"), ("ioengine=libaio\nsqthread_poll=1", "sqthread_poll"),
    ("bs", "bs"), ("numjobs=two", "numjobs"), ("cpus_allowed=a-b", "cpus_allowed"), ("kb_base=1023", "kb_base"),
])
def test_errors_even_when_lenient(tmp_path, body, opt):
    path = write(tmp_path, f"[global]\nioengine=null\nsize=1m\n[sec]\n{body}\n")
    with pytest.raises(FioJobError, match=rf"fio option '{opt}'"):
        from_fio_job(path, lenient=True)


def test_library_refusal_names_the_fio_option(tmp_path):
    path = write(tmp_path, "[global]\nioengine=null\nsize=1m\n[sec]\niodepth=99999\n")
    with pytest.raises(FioJobError, match=r"\[sec\]: .*'qd'.*fio option 'iodepth'"):
        run_fio_job(path)


def test_engine_options_and_defaults(tmp_path):
    path = write(tmp_path, "[j]\nioengine=io_uring_cmd\nfilename=/dev/ng0n1\nhipri\nfixedbufs\n"
                           "time_based\nruntime=1\ncpus_allowed=2-3\ncpus_allowed_policy=split\n"
                           "randrepeat=0\nrate_iops=500\nnumjobs=2\nrw=randread\n")
    [[w]] = from_fio_job(path)
    assert w["engine"] == "nvme" and w["nvme.iopoll"] == "1" and w["nvme.fixedbufs"] == "1"
    assert w["nvme.regfiles"] == "0" and w["cpus"] == "2-3" and w["rate_iops"] == "1000"
    assert 0 <= int(w["seed"]) < 1 << 64 and w["jobs"] == "2"


def test_random_map_as_fio_keeps_it(tmp_path):
    """fio's random map is on for uniform random offsets unless norandommap, and off with a
    skewed random_distribution (checked with fio 3.33's write_iolog: zipf:1.2 over 1024
    blocks touched 235 distinct blocks in 1024 I/Os, uniform all 1024)."""
    def mapped(body):
        [[w]] = from_fio_job(write(tmp_path, f"[j]\nioengine=null\nsize=1m\n{body}\n"))
        return w.get("random_map")
    assert mapped("rw=randread") == "1" and mapped("rw=randwrite\nrandom_distribution=random") == "1"
    assert mapped("rw=randread\nnorandommap") == "0" and mapped("rw=randrw\nrandom_distribution=pareto:0.9") == "0"
    assert mapped("rw=read") is None


def test_verify_sequential_write_reads_back(tmp_path):
    path = write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=write\nverify=crc32c\n")
    steps = from_fio_job(path)
    assert [[w["name"] for w in s] for s in steps] == [["j"], ["j verify"]]
    assert steps[0][0]["verify"] == "1" and steps[1][0]["rw"] == "read" and steps[1][0]["verify"] == "1"
    path = write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=write\nverify=crc32c\ndo_verify=0\n")
    assert len(from_fio_job(path)) == 1


# ------------------------------------------------------------------ runs

def test_run_seqwrite_on_scratch_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open("scratch.dat", "wb") as f:
        f.truncate(64 << 20)
    [r] = run_fio_job(job("seqwrite-numjobs"))
    wl = r.data["workload"]
    assert wl["name"] == "seqwrite" and wl["jobs"] == 4 and wl["engine"] == "psync"
    assert r.data["write"]["ios"] == 4 * 61 and r.data["write"]["bytes"] == 4 * 61 * (128 << 10)
    assert r.data["read"]["ios"] == 0


def test_run_verify_reads_back_what_it_wrote(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open("data.bin", "wb") as f:
        f.truncate(4 << 20)
    path = write(tmp_path, "[w]\nioengine=psync\nfilename=data.bin\nsize=4m\nbs=64k\nrw=write\nverify=crc32c\n")
    wrote, back = run_fio_job(path)
    assert wrote.data["workload"]["name"] == "w" and wrote.data["write"]["ios"] == 64
    assert back.data["workload"]["name"] == "w verify" and back.data["read"]["ios"] == 64
    assert back.data["verify"]["checked"] == 64 and back.data["verify"]["mismatches"] == 0


def test_honoured_options_run_as_fio_runs_them(tmp_path, monkeypatch):
    """The project's job files of options honoured this round run, each as fio would."""
    monkeypatch.chdir(tmp_path)
    with open("beside.dat", "wb") as f:
        f.truncate(1 << 20)
    [r] = run_fio_job(job("seq-clones"))  # four clones, each over the whole region
    assert r.data["workload"]["seq_start"] == "same" and r.data["read"]["bytes"] == 4 << 20
    step, back, after = run_fio_job(job("verify-beside"))  # one result a step, its groups in it
    assert [g["name"] for g in step.data["groups"]] == ["writer", "beside"]
    assert back.data["workload"]["name"] == "writer verify" and after.data["workload"]["name"] == "after"
    assert back.data["verify"]["checked"] == 256 and back.data["verify"]["mismatches"] == 0
    steps = from_fio_job(job("waitfor"))
    assert [[x["name"] for x in s] for s in steps] == [["writers"], ["readers", "late"]]
    assert [g["name"] for g in run_fio_job(job("waitfor"))[1].data["groups"]] == ["readers", "late"]
    [r] = run_fio_job(job("offload-rate"))
    assert r.data["workload"]["rate_mode"] == "open" and r.data["workload"]["rate_process"] == "poisson"
    [r] = run_fio_job(job("steadystate"))
    assert r.data["workload"]["ss"]["metric"] == "iops" and "steady_state" in r.data


def test_sprandom_job_writes_the_plan(tmp_path):
    """fio's sprandom, spr_op, spr_num_regions map as they are; the job's length is the plan's
    (size x (1 + spr_op), whole blocks), as fio makes it its io_size; what fio 3.33 cannot run
    (it predates sprandom) is checked against the plan's own arithmetic."""
    [[w]] = from_fio_job(job("sprandom"))
    assert w["sprandom"] == "1" and w["sprandom.op"] == "0.2" and w["sprandom.regions"] == "10"
    assert "io_limit" not in w and w["rw"] == "randwrite" and w["size"] == str(4 << 20)
    [r] = run_fio_job(job("sprandom"))
    size, op, bs = 4 << 20, 0.2, 4096
    phys = size + -(-size * 2 // 10)  # ceil(size x 0.2) in integers
    assert r.data["write"]["ios"] == (phys - phys % bs) // bs == 1228
    assert r.data["workload"]["sprandom"] == {"enabled": 1, "op": op, "regions": 10, "cache": 0}
    assert r.data["precondition"] is None
    # fio refuses another generator with sprandom, and a time-based run would go past the plan
    with pytest.raises(FioJobError, match="random_generator"):
        from_fio_job(write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=randwrite\nsprandom=1\n"
                                     "random_generator=tausworthe\n"))
    with pytest.raises(FioJobError, match="time_based"):
        from_fio_job(write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=randwrite\nsprandom=1\n"
                                     "time_based\nruntime=1\n"))


def test_continue_on_error_by_kind_of_io(tmp_path):
    """continue_on_error=read/write/io: fio continues after errors of that kind of I/O only,
    so a job of one kind continues (the kind named) or stops at its first error; the project's
    job file runs."""
    steps = from_fio_job(job("continue-on-error"))
    got = {s[0]["name"]: s[0]["continue_on_error"] for s in steps}
    assert got == {"writes-go-on": "1", "reads-stop": "0", "reads-go-on": "1", "any-io": "1"}
    assert [r.data["workload"]["continue_on_error"] for r in run_fio_job(job("continue-on-error"))] == [1, 0, 1, 1]
    [[w]] = from_fio_job(write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=trim\ncontinue_on_error=read\n"))
    assert w["continue_on_error"] == "0"  # fio counts a trim's error as a write's
    for body, want in (("continue_on_error=all\ncontinue_on_error=read\nrw=write", "0"),  # fio's last line wins
                       ("continue_on_error=write\ncontinue_on_error=read", "1")):
        [[w]] = from_fio_job(write(tmp_path, f"[j]\nioengine=null\nsize=1m\n{body}\n"))
        assert w["continue_on_error"] == want
    for body in ("continue_on_error=all\ncontinue_on_error=verify", "continue_on_error=1\ncontinue_on_error=write\nrw=rw"):
        [[w]] = from_fio_job(write(tmp_path, f"[j]\nioengine=null\nsize=1m\n{body}\n"), lenient=True)
        assert "continue_on_error" not in w and w["fio"]["dropped"] == ["continue_on_error"]  # not the earlier line's


def test_verify_after_random_writes_detects_corruption(tmp_path, monkeypatch):
    """randwrite with fio's random map, then its read-back; md5 checked as nvbench's CRC32C,
    which finds a block changed on disk as fio's md5 would."""
    monkeypatch.chdir(tmp_path)
    with open("rv.dat", "wb") as f:
        f.truncate(1 << 20)
    [[w], [back]] = from_fio_job(job("verify-randwrite"))
    assert w["rw"] == "randwrite" and back["rw"] == "read" and back["verify"] == "1"
    assert any("in place of md5" in t for t in w["fio"]["warnings"])
    wrote, checked = run_fio_job(job("verify-randwrite"))
    assert wrote.data["write"]["ios"] == 256
    assert checked.data["verify"]["checked"] == 256 and checked.data["verify"]["mismatches"] == 0
    with open("rv.dat", "r+b") as f:  # one byte of one block changed
        f.seek(100 * 4096 + 999)
        b = f.read(1)
        f.seek(100 * 4096 + 999)
        f.write(bytes([b[0] ^ 0xFF]))
    path = write(tmp_path, "[r]\nioengine=psync\nfilename=rv.dat\nsize=1m\nbs=4k\nrw=read\nverify=md5\n")
    with pytest.raises(nvbench.VerifyError):
        run_fio_job(path)


@pytest.mark.parametrize("body,why", [
    ("verify_write_sequence=0", "no way to skip"),
    ("fsync=4", "no fsync between writes"),
    ("rate_min=1m", "stops a job running slower"),
])
def test_refusals_say_what_would_change(tmp_path, body, why):
    path = write(tmp_path, f"[j]\nioengine=null\nsize=1m\n{body}\n")
    with pytest.raises(FioJobError, match=why):
        from_fio_job(path)
    [[w]] = from_fio_job(path, lenient=True)  # left out with the same reason
    assert any(why in t for t in w["fio"]["warnings"])


def test_run_lenient_warning_reaches_result(schema):
    with pytest.warns(nvbench.NvbenchWarning, match="'fsync' not honoured"):
        [r] = run_fio_job(job("unsupported"), lenient=True)
    check_c_result(r.data, schema)
    assert r.data["workload"]["name"] == "fsync-writer" and r.data["write"]["ios"] == (4 << 20) // 4096
    assert any("'fsync'" in t for t in r.data["warnings"])


def test_run_env_job_on_null():
    env = {"NVB_FIO_BS": "4k", "NVB_FIO_SIZE": "16m", "NVB_FIO_RUNTIME": "200ms"}
    [r] = run_fio_job(job("env"), env=env)  # norandommap: what a library without random_map does
    assert r.data["workload"]["name"] == "env-job" and r.data["workload"]["qd"] == os.cpu_count()
    assert r.data["read"]["ios"] > 0 and r.data["write"]["ios"] == 0


def test_concurrent_jobs_need_run_groups():
    if hasattr(nvbench, "run_groups"):
        rs = run_fio_job(job("stonewall"))
        assert [r.data["workload"]["name"] for r in rs[:2]] == ["fill", "check"]
        assert {g["workload"]["name"] for g in rs[2].data["groups"]} == {"reader-a", "reader-b"}
    else:
        with pytest.raises(FioJobError, match=r"\(reader-a, reader-b\).*need nvbench.run_groups"):
            run_fio_job(job("stonewall"))


def test_cli_run_fio(tmp_path):
    p = cli("run", "--fio", job("unsupported"))
    assert p.returncode == 2 and "fio option 'fsync'" in p.stderr and p.stdout == ""
    out = tmp_path / "r.json"
    p = cli("run", "--fio", job("unsupported"), "--fio-lenient", "--json", out)
    assert p.returncode == 0, p.stderr
    assert "warning: fio job section [fsync-writer]: option 'fsync' not honoured" in p.stderr
    for data in (json.loads(p.stdout), json.loads(out.read_text())):
        [res] = data["results"]
        assert res["workload"]["name"] == "fsync-writer"
        assert any("'fsync'" in t for t in res["warnings"])
    p = cli("run", "--fio", job("unsupported"), "bs=4k")
    assert p.returncode == 2 and "job file only" in p.stderr
    p = cli("run", "--fio", str(tmp_path / "missing.fio"))
    assert p.returncode != 0 and "missing.fio" in p.stderr


def test_cli_run_fio_block_device_needs_allow_destructive(tmp_path):
    """A job file naming a block device meets the same guard as `nvbench run`: refused without
    allow_destructive=1 (which run --fio and run_fio_job take beside the file), nothing written."""
    img = tmp_path / "dev.img"
    img.write_bytes(os.urandom(4 << 20))
    with loop_device(img) as dev:
        jf = write(tmp_path, f"[w]\nioengine=psync\nfilename={dev}\nrw=randwrite\nbs=4k\nio_size=256k\n")
        before = img.read_bytes()
        p = cli("run", "--fio", jf)
        assert p.returncode == 2 and "allow_destructive=1" in p.stderr and dev in p.stderr, p.stderr
        assert img.read_bytes() == before
        p = cli("run", "--fio", jf, "bs=8k")
        assert p.returncode == 2 and "job file only" in p.stderr
        p = cli("run", "--fio", jf, "allow_destructive=1", "--print-json")
        assert p.returncode == 0, p.stderr
        [res] = json.loads(p.stdout)["results"]
        assert res["write"]["bytes"] == 256 << 10 and res["workload"]["allow_destructive"] == 1
        # the Python front door: run_fio_job's keys are validated with the file's
        with pytest.raises(FioJobError, match="allow_destructive=1"):
            run_fio_job(jf)
        [r] = run_fio_job(jf, allow_destructive=1)
        assert r.write.bytes == 256 << 10


def test_split_with_fio_default_map_keeps_the_map(tmp_path):
    """fio keeps its random map with a bssplit (every block once per pass): so does
    nvbench (random_map=1 beside the split); norandommap=1 maps as is."""
    f = tmp_path / "split.fio"
    text = "[j]\nioengine=null\nsize=1m\nrw=randread\nbssplit=4k/50:64k/50\ntime_based\nruntime=1\n"
    f.write_text(text)
    [[w]] = from_fio_job(f)
    assert w["random_map"] == "1" and w["bssplit"] and not w["fio"]["warnings"]
    f.write_text(text + "norandommap\n")
    [[w]] = from_fio_job(f)
    assert w["random_map"] == "0" and w["bssplit"] and not w["fio"]["warnings"]
    # bounded by size instead of time: the library spends io_limit as a byte budget
    f.write_text(text.replace("time_based\nruntime=1\n", "") + "norandommap\n")
    [r] = run_fio_job(f)
    counts = r.data["read"]["bs_counts"]
    assert r.data["read"]["bytes"] == 1 << 20 == sum(int(k) * v for k, v in counts.items())


# ------------------------------------------------------------------ one mapping for C, Python and Lua

LUA = shutil.which("lua5.4")
CROSS = ["[global]\nioengine=null\nsize=1m\nstonewall\n[a]\nrw=randwrite\nnorandommap\nrwmixwrite=30\n"
         "[global]\nbs=8k\n[b]\nfilename=/tmp/x\\:y:/tmp/z\n",
         "[j]\nioengine=io_uring_cmd\nfilename=/dev/ng0n1\nhipri\nfixedbufs\ntime_based\nruntime=1m\n"
         "cpus_allowed=2-3\ncpus_allowed_policy=split\nrate_iops=500\nnumjobs=2\nrw=randread\n",
         "[j]\nioengine=null\nsize=1m\nrw=write\nverify=crc32c\nbssplit=4k/50:64KiB/50,8k/\n",
         "[j]\nioengine=libaio\nsize=1m\ndirectory=/mnt/d\nkb_base=1000\nbs=4KiB\n",
         "[j]\nioengine=null\nsize=1m\nfsync=4\n", "[j]\nioengine=null\nsize=1.5m\n",
         "[j]\nioengine=null\ntime_based\n", "[j]\nioengine=libaio\nsqthread_poll\nsize=1m\n",
         "[j]\nioengine=null\nsize=1m\nbs\n", "[j]\nioengine=null\nsize=$mb_memory\nbs=$pagesize\nnumjobs=$ncpus\nrw=randread\ntime_based\nruntime=1\n", "[j]\nioengine=null\nsize=1m\nnumjobs=two\n",
         "[j]\nioengine=null\nsize=4m\nrw=read\nloops=3\nio_size=1m\noffset=1m\nrwmixwrite=20\n",
         "[j]\nioengine=null\nsize=1m\nrw=randread\nbssplit=4k/50:64k/50\ntime_based\nruntime=1\n",
         "[j]\nioengine=null\nsize=1m\nrw=randread\nbssplit=4k/50:64k/50\nnorandommap\ntime_based\nruntime=1\n",
         # issue 22: bounds, names, sqthread_poll with io_uring_cmd
         "[j]\nioengine=null\nsize=1m\nnumjobs=\u00b2\n", "[j]\nioengine=null\nsize=1m\nnumjobs=" + "9" * 5000 + "\n",
         "[j]\nioengine=null\nsize=1m\ncpus_allowed=0-99999999999\ncpus_allowed_policy=split\n",
         "[j]\nioengine=null\nsize=99999999999p\n", "[j]\nioengine=null\nsize=1m\nruntime=" + "9" * 500 + "\n",
         "[global]\nioengine=null\nsize=1m\n[" + "n" * 60 + "\u00e9" * 20 + "]\n[" + "n" * 60 + "\u00e9" * 20 + "]\n"
         "[x]\nstonewall\nrw=write\nverify=crc32c\nname=" + "v" * 62 + "\n",
         # '#' starts a comment anywhere (as in fio): '[a #2]' is no section name, so the
         # second [a], named 'a #2' in its results, cannot meet a section of that name
         "[global]\nioengine=null\nsize=1m\n[a]\n[a]\n[a_2]\n",
         "[j]\nioengine=io_uring_cmd\nfilename=/dev/ng0n1\nsqthread_poll=1\ntime_based\nruntime=1\n",
         "[j]\nioengine=io_uring_cmd\nfilename=/dev/ng0n1\nsqthread_poll=0\ntime_based\nruntime=1\n",
         # the one mapping: a fresh seed, several drops of one job (lenient), each named once
         "[j]\nioengine=null\nsize=1m\nrw=randread\nrandrepeat=0\n",
         "[j]\nioengine=sync\nsize=1m\nrw=randread:8\ncpus_allowed=0-1\nbs=4k,8k\nfsync=1\nfsync=2\n"]


def lua_steps(path, env, lenient):
    if lua_env(env) is None:
        pytest.skip("the Lua module nvbench.so is not built (nvbench.fio_job reads through it)")
    p = subprocess.run([LUA, os.path.join(ROOT, "tests", "lua", "fio_job_dump.lua"), path] + ["lenient"] * lenient,
                       capture_output=True, text=True, env=lua_env(env), errors="surrogateescape")
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def c_steps(path, env, lenient):
    """The C mapping through tests/c/test_fiomap's dump mode (built beside this test's cwd)."""
    for d in (os.getcwd(), os.path.join(ROOT, "build", "tests")):
        exe = os.path.join(d, "test_fiomap")
        if os.access(exe, os.X_OK):
            p = subprocess.run([exe, "dump", path] + ["lenient"] * lenient, capture_output=True, text=True,
                               env=env, errors="surrogateescape")
            assert p.returncode == 0, p.stderr
            return p.stdout.splitlines()
    pytest.skip("tests/c/test_fiomap is not built")


def python_steps(path, env, lenient=False):
    """One line per workload, as test_fiomap's dump prints it: sorted key=value(origin),
    targets; its warnings and left-out options; or the error."""
    try:
        steps = from_fio_job(path, env=env, lenient=lenient)
    except FioJobError as e:
        return ["error\t" + str(e)]
    out = []
    for i, step in enumerate(steps, 1):
        for w in step:
            origin = w["fio"]["origin"]
            items = [f"{k}={'*' if origin[k] == 'randrepeat' else v}({origin[k]})" for k, v in keys(w).items()
                     if k != "targets"] + ["targets=" + "|".join(w["targets"])]
            out.append(f"{i}\t{w['fio']['section']}\t{' '.join(sorted(items))}")
            out += [f"\twarning\t{t}" for t in w["fio"]["warnings"]] + [f"\tdropped\t{t}" for t in w["fio"]["dropped"]]
    return out


@pytest.mark.skipif(LUA is None, reason="lua5.4 not installed")
@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("case", sorted(os.listdir(JOBS)) + list(range(len(CROSS))))
def test_c_python_and_lua_map_alike(tmp_path, case, lenient):
    """One mapping (nvb_fiomap_new): the same job file gives the same steps, keys, origins,
    targets, warnings and errors from C, Python and Lua, strict and lenient."""
    env = dict(os.environ, NVB_FIO_BS="4k", NVB_FIO_SIZE="16m", NVB_FIO_RUNTIME="1")
    path = os.path.join(JOBS, case) if isinstance(case, str) else write(tmp_path, CROSS[case])
    py = python_steps(path, env, lenient)
    assert py and c_steps(path, env, lenient) == py
    assert lua_steps(path, env, lenient) == py


@pytest.mark.parametrize("stop", [KeyboardInterrupt, nvbench.Terminated])
def test_an_interrupted_job_file_carries_the_steps_done(tmp_path, monkeypatch, stop):
    """Ctrl-C or SIGTERM in step 2 of a stonewalled file: the exception goes on with .results,
    the step completed (the step cut short is the exception's own .result)."""
    path = write(tmp_path, "[global]\nioengine=null\nsize=1m\nstonewall\n[one]\nrw=read\n[two]\nrw=read\n")
    from nvbench import fio_job
    real, seen = fio_job.run_step, []

    def step(s, **kw):
        seen.append(s[0]["fio"]["section"])
        if len(seen) == 2:
            raise stop()
        return real(s, **kw)
    monkeypatch.setattr(fio_job, "run_step", step)
    with pytest.raises(stop) as e:
        run_fio_job(path)
    assert seen == ["one", "two"]
    assert [r.data["workload"]["name"] for r in e.value.results] == ["one"]
    assert e.value.results[0].data["cancelled"] is False


# ------------------------------------------------------------------ issue 22: steps, bounds, messages

def _steps_two_writers(tmp_path):
    """Step one writes first.dat; step two has two writers of second.dat, one verifying."""
    first, second = tmp_path / "first.dat", tmp_path / "second.dat"
    first.write_bytes(os.urandom(1 << 20))
    second.write_bytes(os.urandom(1 << 20))
    jf = write(tmp_path, f"[global]\nioengine=psync\nbs=4k\nsize=1m\n[one]\nrw=write\nfilename={first}\n"
                         f"[two-a]\nstonewall\nrw=randwrite\nnorandommap\nfilename={second}\n"
                         f"[two-b]\nrw=write\nverify=crc32c\nfilename={second}\n")
    return jf, first, second


def test_every_step_is_checked_before_the_first_io(tmp_path):
    """Two writers of one file in step two: refused before step one writes anything (its
    target's checksum unchanged), naming both sections and the step; the CLI the same, rc 2."""
    from conftest import digest
    jf, first, second = _steps_two_writers(tmp_path)
    before = digest(first), digest(second)
    with pytest.raises(FioJobError, match=r"\[two-b\] \(step 2 of 3\).*'two-a'.*'two-b'") as e:
        run_fio_job(jf)
    assert "second.dat" in str(e.value)
    assert (digest(first), digest(second)) == before
    p = cli("run", "--fio", jf)
    assert p.returncode == 2 and "'two-b'" in p.stderr and p.stdout == "", p.stderr
    assert (digest(first), digest(second)) == before


def test_a_later_step_failing_keeps_the_steps_done(tmp_path, monkeypatch):
    """A step that fails at run time (here: its target made a directory after the check)
    leaves the CLI's output with the steps done, and the error names the step."""
    data = tmp_path / "d.dat"
    data.write_bytes(b"\0" * (1 << 20))
    jf = write(tmp_path, f"[global]\nioengine=null\nsize=1m\n[one]\nrw=read\n[two]\nstonewall\nrw=read\n")
    from nvbench import fio_job as fj
    real = fj.run_step

    def step(s, **kw):
        if s[0]["fio"]["section"] == "two":
            raise nvbench.NvbenchError(5, "an I/O error")
        return real(s, **kw)
    monkeypatch.setattr(fj, "run_step", step)
    from nvbench import cli as nvcli
    import io, contextlib
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = nvcli.main(["run", "--fio", jf, "--print-json"])
    assert rc != 0 and "step 2 of 2 (two)" in err.getvalue()
    [res] = json.loads(out.getvalue())["results"]
    assert res["workload"]["name"] == "one"


def test_concurrent_steps_planned_together_and_duplicate_names_run(tmp_path):
    """fio runs two sections of one name side by side: so does nvbench, the second's
    results named 'r #2'; a step created by an earlier step is shared by its readers."""
    made = tmp_path / "made.dat"
    jf = write(tmp_path, f"[global]\nioengine=psync\nbs=64k\nsize=1m\nfilename={made}\n[w]\nrw=write\n"
                         f"[r]\nstonewall\nrw=read\n[r]\nrw=read\n")
    rs = run_fio_job(jf)
    assert [g["workload"]["name"] for g in rs[1].data["groups"]] == ["r", "r #2"]
    assert rs[1].data["read"]["bytes"] == 2 << 20
    assert any("'r #2'" in t for t in rs[1].data["warnings"])


def test_step_budget_summed_before_the_first_step(tmp_path):
    """Descriptors: step two's jobs together need more than RLIMIT_NOFILE allows; refused
    (EMFILE) before step one's write, its target unchanged."""
    import resource
    from conftest import digest
    first = tmp_path / "first.dat"
    first.write_bytes(os.urandom(1 << 20))
    files = []
    for i in range(40):
        f = tmp_path / f"f{i}"
        f.write_bytes(b"\0" * 4096)
        files.append(str(f).replace(":", "\\:"))
    many = ":".join(files)
    jf = write(tmp_path, f"[global]\nioengine=psync\nbs=4k\n[one]\nrw=write\nsize=1m\nfilename={first}\n"
                         f"[a]\nstonewall\nrw=read\nnumjobs=4\nrw=randread\nfilename={many}\nio_size=4k\n"
                         f"[b]\nrw=randread\nnumjobs=4\nfilename={many}\nio_size=4k\n")
    code = ("import resource, sys\nfrom nvbench.fio_job import run_fio_job, FioJobError\n"
            "resource.setrlimit(resource.RLIMIT_NOFILE, (400, 400))\n"
            "try:\n    run_fio_job(sys.argv[1])\nexcept FioJobError as e:\n    print(e)\n    sys.exit(3)\n")
    before = digest(first)
    p = subprocess.run([__import__("sys").executable, "-c", code, jf], capture_output=True, text=True)
    assert p.returncode == 3 and "job groups together" in p.stdout and "RLIMIT_NOFILE" in p.stdout, p.stdout + p.stderr
    assert digest(first) == before


def test_cpus_allowed_range_is_bounded(tmp_path):
    """cpus_allowed=0-99999999999 built a set of 10^11 integers: refused at once,
    naming the option, the section and the limit (the library's CPU set)."""
    path = write(tmp_path, "[global]\nioengine=null\nsize=1m\n[sec]\ncpus_allowed=0-99999999999\n"
                           "cpus_allowed_policy=split\n")
    with pytest.raises(FioJobError, match=r"\[sec\]: fio option 'cpus_allowed': CPU 99999999999 .*1024 CPUs"):
        from_fio_job(path)
    path = write(tmp_path, "[global]\nioengine=null\nsize=1m\n[sec]\ncpus_allowed=0-1023\n"
                           "cpus_allowed_policy=split\nrw=randread\n")
    [[w]] = from_fio_job(path)
    assert w["cpus"] == "0-1023"


@pytest.mark.parametrize("body,opt", [
    ("numjobs=\u00b2", "numjobs"), ("numjobs=" + "9" * 5000, "numjobs"), ("size=" + "9" * 5000, "size"),
    ("loops=\u0663", "loops"), ("rate_iops=\u00b2", "rate_iops"), ("runtime=" + "9" * 5000 + "\ntime_based", "runtime"),
    ("bs=99999999999p", "bs"),
])
def test_bad_counts_name_option_and_section(tmp_path, body, opt):
    path = write(tmp_path, f"[global]\nioengine=null\nsize=1m\n[sec]\n{body}\n")
    with pytest.raises(FioJobError, match=rf"\[sec\]: fio option '{opt}'") as e:
        from_fio_job(path, lenient=True)
    assert len(str(e.value)) < 400  # a long value is shown by its start and its length


def test_long_section_name_runs(tmp_path):
    """fio takes a section name of any length; the library's names hold 63 bytes: the
    result is named by its first 63, with a warning, and the run goes on."""
    name = "n" * 60 + "\u00e9" * 20  # 100 characters, 120 bytes: cut at a character
    path = write(tmp_path, f"[global]\nioengine=null\nsize=1m\n[{name}]\nrw=read\n[{name}]\nrw=read\n")
    with pytest.warns(nvbench.NvbenchWarning, match="more than the 63"):
        [r] = run_fio_job(path)
    names = [g["workload"]["name"] for g in r.data["groups"]]
    assert names[0] == "n" * 60 + "\u00e9" and len(names[1].encode()) <= 63 and names[1].endswith(" #2")


def test_sqthread_poll_with_io_uring_cmd(tmp_path):
    """fio takes sqthread_poll with io_uring_cmd; nvbench's nvme engine has no SQ polling:
    the refusal says so (not 'an option of io_uring'), lenient leaves it out, =0 is kept."""
    base = "[j]\nioengine=io_uring_cmd\nfilename=/dev/ng0n1\nrw=randread\ntime_based\nruntime=1\n"
    path = write(tmp_path, base + "sqthread_poll=1\n")
    with pytest.raises(FioJobError, match=r"'sqthread_poll': nvbench's nvme engine .*no submission-queue polling"):
        from_fio_job(path)
    [[w]] = from_fio_job(path, lenient=True)
    assert not any("sqpoll" in k for k in w) and any("'sqthread_poll' not honoured" in t for t in w["fio"]["warnings"])
    [[w]] = from_fio_job(write(tmp_path, base + "sqthread_poll=0\n"))
    assert not any("sqpoll" in k for k in w)


def test_lenient_error_names_what_was_left_out(tmp_path):
    """With --fio-lenient, fdp is left out; the error that follows says so."""
    path = write(tmp_path, "[j]\nioengine=psync\nfilename=" + str(tmp_path / "nothere.dat") + "\nfdp=1\n")
    with pytest.raises(FioJobError, match=r"'fdp'"):
        from_fio_job(path, lenient=True)
    p = cli("run", "--fio", path, "--fio-lenient")
    assert p.returncode == 2 and "'fdp'" in p.stderr, p.stderr


@pytest.mark.parametrize("body", ["rw=write\nverify=pattern", "rw=randrw\nverify=crc32c",
                                  "rw=randwrite\nverify=pattern\ndo_verify=0"])
def test_lenient_verify_left_out_does_not_verify(tmp_path, body):
    """--fio-lenient warns 'verify' not honoured: the run has no verify at all (it ran
    with verify=1 and reported blocks it never wrote as corrupt)."""
    data = tmp_path / "v.dat"
    data.write_bytes(os.urandom(1 << 20))
    path = write(tmp_path, f"[j]\nioengine=psync\nfilename={data}\nsize=1m\nbs=4k\nnorandommap\n{body}\n")
    steps = from_fio_job(path, lenient=True)
    assert len(steps) == 1 and "verify" not in steps[0][0]
    assert any("'verify' not honoured" in t for t in steps[0][0]["fio"]["warnings"])
    with pytest.warns(nvbench.NvbenchWarning):
        [r] = run_fio_job(path, lenient=True)
    assert r.data["workload"]["verify"] in (0, False) and not r.data.get("verify", {}).get("mismatches")


@pytest.mark.parametrize("body,key", [("cpus_allowed=0-1", "cpus"), ("bs=4k,8k", "bs"),
                                      ("continue_on_error=verify", "continue_on_error"),
                                      ("rate_iops=10,20", "rate_iops")])
def test_left_out_takes_no_effect(tmp_path, body, key):
    """An option a lenient mapping leaves out (with a warning) sets nothing."""
    path = write(tmp_path, f"[j]\nioengine=null\nsize=1m\n{body}\n")
    [[w]] = from_fio_job(path, lenient=True)
    assert key not in w and w["fio"]["dropped"] == [body.split("=")[0]]


def test_dangling_symlink_target_is_named(tmp_path):
    """A dangling symlink with size: refused as such, saying where it points; nothing is
    created through it."""
    link, dest = tmp_path / "link.dat", tmp_path / "dest.dat"
    os.symlink(dest, link)
    path = write(tmp_path, f"[j]\nioengine=psync\nfilename={link}\nsize=1m\nrw=write\n")
    with pytest.raises(FioJobError, match=r"dangling symlink.*dest\.dat"):
        run_fio_job(path)
    with pytest.raises(nvbench.NvbenchError, match=r"dangling symlink.*dest\.dat"):
        nvbench.run(str(link), engine="psync", rw="write", size="1m", ios=1)
    assert not dest.exists() and os.path.islink(link)


def test_full_tmpdir_names_path_and_size(tmp_path):
    """`TMPDIR=<full tmpfs> nvbench matrix` said only "[Errno 28] No space left on device":
    the error names the directory and the bytes needed (and leaves nothing there)."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("needs root to mount a small tmpfs")
    d = tmp_path / "small"
    d.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(d)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        from nvbench._scratch import scratch_file
        with pytest.raises(OSError) as e:
            with scratch_file("4M", dir=str(d)):
                pass
        assert f"'{d}'" in str(e.value) and f"{4 << 20} bytes" in str(e.value) and "free" in str(e.value)
        assert e.value.errno == 28 and os.listdir(d) == []
        env = dict(os.environ, TMPDIR=str(d))
        p = subprocess.run([__import__("sys").executable, "-m", "nvbench", "matrix", "--engines", "psync",
                            "--size", "4M"], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode != 0 and f"'{d}'" in p.stderr and f"{4 << 20} bytes" in p.stderr, p.stderr
        assert os.listdir(d) == []
    finally:
        subprocess.run(["umount", str(d)], check=False)


# ------------------------------------------------------------------ issue 26: the options fio's examples use

FIO = shutil.which("fio")


def fio_bytes(jobfile, cwd):
    """{job name: (read bytes, write bytes)} of fio 3.33 running the job file in cwd."""
    p = subprocess.run([FIO, "--output-format=json", jobfile], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout[p.stdout.index("{"):])
    return {j["jobname"]: (j["read"]["io_bytes"], j["write"]["io_bytes"]) for j in data["jobs"]}


def nvb_bytes(jobfile, cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    with pytest.warns(nvbench.NvbenchWarning):
        rs = run_fio_job(jobfile)
    return {r.data["workload"]["name"]: (r.data["read"]["bytes"], r.data["write"]["bytes"]) for r in rs}


def scratch_dir(tmp_path, *names, size=1 << 20):
    d = tmp_path / "run"
    d.mkdir()
    for n in names:
        (d / n).write_bytes(os.urandom(size))
    return d


@pytest.mark.parametrize("name,files", [("sync-engines", ["sync.dat"]), ("files-added", []), ("filesize", [])])
def test_moves_the_bytes_fio_moves(tmp_path, monkeypatch, name, files):
    """Synchronous engines as psync, filename= lines adding files, filesize: each job moves the
    bytes fio 3.33 moves on the same file (run side by side when fio is installed)."""
    d = scratch_dir(tmp_path, *files)
    got = nvb_bytes(job(name), d, monkeypatch)
    want = {"sync-engines": {"sync": (1 << 20, 0), "vsync": (0, 1 << 20), "pvsync2": (1 << 20, 0)},
            "files-added": {"j": (0, 3 * 20480)}, "filesize": {"j": (0, 2 * 65536)}}[name]
    assert got == want
    if name == "files-added":
        assert sorted(os.listdir(d)) == ["f1.dat", "f2.dat", "g1.dat"]
    if FIO:
        (tmp_path / "fio").mkdir()
        assert fio_bytes(job(name), scratch_dir(tmp_path / "fio", *files)) == want


def test_sync_engines_timeout_gtod_rate_mapped_with_notes():
    steps = from_fio_job(job("sync-engines"))
    assert [w["engine"] for [w] in steps] == ["psync"] * 3
    assert ["lseek + read/write" in w["fio"]["warnings"][0] for [w] in steps] == [True, False, False]
    [[w]] = from_fio_job(job("timeout-gtod"))
    assert w["runtime"] == "2000000000ns" and w["fio"]["origin"]["runtime"] == "timeout"
    assert any("gtod_reduce accepted" in t for t in w["fio"]["warnings"])
    [[w]] = from_fio_job(job("rate-bytes"))
    assert (w["rate_iops"], w["rate_mode"], w["fio"]["origin"]["rate_iops"]) == ("512", "closed", "rate")


def test_verify_with_a_runtime_reads_back_what_was_written(tmp_path, monkeypatch):
    """fio's basic-verify: random writes under a runtime, verified. The job reads back the blocks
    it wrote (verify_readback), never the file's other blocks (4 MiB of other data around the
    1 MiB region: none counts as a mismatch). fio 3.33 on the same file makes the same writes and
    as many verify reads (its read bytes); nvbench counts them in verify.checked."""
    [[w]] = from_fio_job(job("verify-runtime"))
    assert (w["verify"], w["verify_readback"], w["fio"]["origin"]["verify_readback"]) == ("1", "1", "do_verify")
    assert (w["rw"], w["bs"], w.get("qd", "1"), w["jobs"]) == ("randwrite", "4096", "1", "1")
    monkeypatch.chdir(scratch_dir(tmp_path, "vr.dat", size=4 << 20))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nvbench.NvbenchWarning)
        [r] = run_fio_job(job("verify-runtime"))
    assert r.data["write"]["ios"] == 256 and r.data["read"]["ios"] == 0
    assert (r.data["verify"]["checked"], r.data["verify"]["mismatches"]) == (256, 0)
    if FIO:
        (tmp_path / "fio").mkdir()
        assert fio_bytes(job("verify-runtime"), scratch_dir(tmp_path / "fio", "vr.dat", size=4 << 20)) == {
            "vr": (1 << 20, 1 << 20)}


def test_verify_phase_checks_an_earlier_write(tmp_path, monkeypatch):
    """fio's surface-scan: a write step with verify_pattern and do_verify=0, then a read job with
    do_verify=1 that verifies it; fio 3.33 moves the same bytes (1 MiB written, 1 MiB read) and
    nvbench checks all 16 blocks of the pattern, none mismatched."""
    [[w], [v]] = from_fio_job(job("verify-phase"))
    assert (w["rw"], v["rw"], w["verify_pattern"], v["verify_pattern"]) == ("write", "read", "0xaa555aa5", "0xaa555aa5")
    assert "verify_readback" not in w and v["verify"] == "1"
    d = scratch_dir(tmp_path)
    assert nvb_bytes(job("verify-phase"), d, monkeypatch) == {"write-phase": (0, 1 << 20), "verify-phase": (1 << 20, 0)}
    with open(d / "vp.dat", "rb") as f:
        f.seek(4 * 65536 + 100)
        assert f.read(8) == bytes.fromhex("aa555aa5aa555aa5")
    [_, r] = run_fio_job(job("verify-phase"))
    assert (r.data["verify"]["checked"], r.data["verify"]["mismatches"]) == (16, 0)
    if FIO:
        (tmp_path / "fio").mkdir()
        assert fio_bytes(job("verify-phase"), scratch_dir(tmp_path / "fio")) == {
            "write-phase": (0, 1 << 20), "verify-phase": (1 << 20, 0)}


@pytest.mark.parametrize("body,why", [
    ("timeout=2\nruntime=3", "other name of runtime"), ("rate=1\nbs=1g", "under one block a day"),
    ("rate=1m\nrw=randrw\nrwmixread=70", "the caps and not the mix"),
    ("rate=1m\nrate_iops=5", "both cap"), ("filesize=1m-2m", "a range of file sizes"),
    ("size=1z", "counts zones"), ("ratemin=1024", "no minimum rate"),
])
def test_issue26_refusals_say_why(tmp_path, body, why):
    path = write(tmp_path, f"[j]\nioengine=null\nsize=1m\n{body}\n")
    with pytest.raises(FioJobError, match=why):
        from_fio_job(path)


def test_startdelay_is_the_key(tmp_path):
    """fio's startdelay (seconds unless a unit is given) is the startdelay key, per job."""
    path = write(tmp_path, "[a]\nioengine=null\nsize=1m\nstartdelay=2\n[b]\nioengine=null\nsize=1m\nstartdelay=150ms\n")
    [[a, b]] = from_fio_job(path)
    assert (a["startdelay"], a["fio"]["origin"]["startdelay"]) == ("2000000000ns", "startdelay")
    assert b["startdelay"] == "150000000ns"
    with pytest.raises(FioJobError, match=r"'startdelay'"):
        from_fio_job(write(tmp_path, "[a]\nioengine=null\nsize=1m\nstartdelay=1-3\n"))


def test_shares_of_the_target(tmp_path, monkeypatch):
    """offset=30% and size=30% of a 1 MiB file: fio 3.33 reads 76 blocks from 315392 (the
    share rounded up to a block); so does nvbench."""
    d = scratch_dir(tmp_path, "p.dat")
    text = "[p]\nioengine=psync\nfilename=p.dat\nrw=read\nbs=4k\noffset=30%\nsize=30%\n"
    path = write(tmp_path, text, "p.fio")
    monkeypatch.chdir(d)
    [[w]] = from_fio_job(path)
    assert (w["offset"], w["size"], w["io_limit"]) == ("315392", str(76 * 4096), str(76 * 4096))
    assert nvb_bytes(path, d, monkeypatch) == {"p": (76 * 4096, 0)}
    if FIO:
        assert fio_bytes(path, d) == {"p": (76 * 4096, 0)}
    with pytest.raises(FioJobError, match="share of the target"):
        from_fio_job(write(tmp_path, text.replace("30%", "30.5%", 1), "q.fio"))


def test_bsrange_as_fio_draws_it(tmp_path):
    """bsrange=a-b: fio 3.33 draws a + u*b rounded down to a multiple of a, above b taken as b
    (its write_iolog of 4k-10k: 41% 4k, 38% 8k, 20% 10k): bssplit with those shares."""
    one, ten, sixteen = (w for [w] in from_fio_job(job("bsrange")))
    assert one["bs"] == "4096" and "bssplit" not in one
    assert ten["bssplit"] == "4096/40:8192/40:10240/20" and ten["fio"]["origin"]["bssplit"] == "bsrange"
    assert sixteen["bssplit"] == "4096/25:8192/25:12288/25:16384/25"
    path = write(tmp_path, "[j]\nioengine=null\nsize=1m\nbsrange=4k-12k\nnorandommap\nrw=randread\n")
    with pytest.raises(FioJobError, match="'bsrange'.*whole percents"):
        from_fio_job(path)
    [r] = run_fio_job(write(tmp_path, "[j]\nioengine=null\nsize=4m\nbsrange=4k-10k\nnorandommap\nrw=randread\n"))
    counts = r.data["read"]["bs_counts"]
    moved = sum(int(k) * v for k, v in counts.items())
    assert set(counts) <= {"4096", "8192", "10240"} and moved == r.data["read"]["bytes"]
    assert (4 << 20) - 10240 < moved <= 4 << 20  # the byte budget, short of one block at most


def test_cli_fio_check_shows_the_map_and_runs_nothing(tmp_path):
    """`nvbench fio-check`: each key with the fio option it came from, the notes, what is
    refused and why (strict) or left out (--fio-lenient); nothing is written."""
    p = cli("fio-check", job("randread-4k-qd32"))  # no such device here: mapped, then refused when planned
    assert p.returncode == 2 and "refused when planned" in p.stdout and "/dev/nvme0n1" in p.stdout, p.stdout
    assert "step 1 [randread-4k] on /dev/nvme0n1" in p.stdout and "from iodepth" in p.stdout
    assert any(ln.split()[:1] == ["qd=32"] and ln.endswith("from iodepth") for ln in p.stdout.splitlines())
    p = cli("fio-check", job("unsupported"))
    assert p.returncode == 2 and "refused:" in p.stdout and "fio option 'fsync'" in p.stdout
    assert "note: fio job section [fsync-writer]: option 'fsync' not honoured" in p.stdout
    p = cli("fio-check", job("unsupported"), "--fio-lenient")
    assert p.returncode == 0 and "refused" not in p.stdout and "'fsync' not honoured" in p.stdout
    target = tmp_path / "made.dat"
    p = cli("fio-check", write(tmp_path, f"[w]\nioengine=psync\nfilename={target}\nsize=1m\nrw=write\n"))
    assert p.returncode == 0 and "run --fio would start" in p.stdout and not target.exists()
    p = cli("fio-check", job("zoned"))
    assert p.returncode == 0 and "zone_mode=zbd" in p.stdout and "from zonemode" in p.stdout


def test_logs_averaged_become_the_time_series(tmp_path):
    """write_*_log with log_avg_msec=250: the result's time series at 250 ms (a note says
    fio's log files are not written); without log_avg_msec (fio logs every I/O) the time series at its
    own interval, with a warning."""
    [[w]] = from_fio_job(job("logs"))
    assert w["interval"] == "250ms" and w["fio"]["origin"]["interval"] == "log_avg_msec"
    assert any("log files are not written" in t for t in w["fio"]["warnings"])
    [r] = run_fio_job(job("logs"))
    assert r.data["workload"]["interval_s"] == 0.25 and len(r.data["timeseries"]) >= 1
    path = write(tmp_path, "[j]\nioengine=null\nsize=1m\nwrite_iops_log=j\n")
    [[w]] = from_fio_job(path)  # fio's output only: the time series at nvbench's interval, said in a warning
    assert "interval" not in w and not w["fio"]["dropped"]
    assert any("write_iops_log without log_avg_msec" in t for t in w["fio"]["warnings"])


def test_strided_zones_are_not_zoned_devices(tmp_path):
    """zonemode=strided is fio's zones of offsets: a sequential job gets the zone_* keys,
    a random one is refused (lenient: left out, the job covers its whole region)."""
    path = write(tmp_path, "[j]\nioengine=null\nsize=1m\nzonemode=strided\nzonesize=64k\nzoneskip=64k\n")
    [[w]] = from_fio_job(path)
    assert w["zone_size"] == "65536" and w["zone_skip"] == "65536"
    path = write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=randread\nzonemode=strided\nzonesize=64k\n")
    with pytest.raises(FioJobError, match="'zonemode': 'strided', random I/O in zones"):
        from_fio_job(path)
    [[w]] = from_fio_job(path, lenient=True)
    assert w["fio"]["dropped"] == ["zonemode"] and "zone_size" not in w


def test_blockalign_and_random_generator(tmp_path):
    """blockalign equal to the smallest block size is what nvbench does (fio's default);
    another alignment of random offsets is refused; random_generator is noted."""
    split, plain = (w for [w] in from_fio_job(job("align-generator")))
    assert "blockalign" not in split["fio"]["origin"].values() and not split["fio"]["dropped"]
    assert any("random_generator=lfsr accepted" in t for t in split["fio"]["warnings"])
    assert plain["bs"] == "8192" and any("tausworthe64" in t for t in plain["fio"]["warnings"])
    path = write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=randread\nbs=8k\nblockalign=4k\n")
    with pytest.raises(FioJobError, match=r"'blockalign': random offsets at multiples of 4096 bytes"):
        from_fio_job(path)
    [[w]] = from_fio_job(write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=read\nbs=8k\nblockalign=4k\n"))
    assert not w["fio"]["dropped"]  # sequential: nothing to align


def test_zoned_distribution_zone_without_range_takes_the_rest(tmp_path):
    [[w]] = from_fio_job(job("zones-rest"))
    assert w["random_distribution"] == "zoned:50/5:30/15:20/80"
    [r] = run_fio_job(job("zones-rest"))
    assert r.data["read"]["ios"] > 0
    path = write(tmp_path, "[j]\nioengine=null\nsize=1m\nrw=randread\nrandom_distribution=zoned:50/:50/\n")
    with pytest.raises(FioJobError, match="more than one zone without a range"):
        from_fio_job(path)
