"""fio's verify_backlog, offset_increment with numjobs, and the dedupe working set
(dedupe_mode=working_set, dedupe_working_set_percentage, dedupe_global), each run on a scratch
file by nvbench and, where fio is installed, by fio 3.33 on its own copy: the same bytes, the
same blocks checked, the same share of distinct blocks."""
import hashlib
import json
import os
import shutil
import subprocess
import warnings

import pytest

import nvbench
from nvbench.fio_job import FioJobError, from_fio_job, run_fio_job

from conftest import ROOT

JOBS = os.path.join(ROOT, "tests", "data", "fio_jobs")
FIO = shutil.which("fio")


def job(name):
    return os.path.join(JOBS, name + ".fio")


def scratch(path, names, size):
    path.mkdir()
    for n in names:
        (path / n).write_bytes(os.urandom(size))
    return path


def fio_json(jobfile, cwd):
    # fio 3.33's own header-sequence check sometimes fails the striped backlog job's second loop
    # ("bad header numberio N, wanted 0", seen in CI): a fault of the reference, not of what is
    # compared (its totals), so that one message is retried, at most five times in all (it failed
    # 1 run in 6 here).
    for attempt in range(5):
        p = subprocess.run([FIO, "--output-format=json", jobfile], cwd=cwd, capture_output=True, text=True,
                           timeout=300)
        if p.returncode == 0 or "bad header numberio" not in p.stderr + p.stdout:
            break
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout[p.stdout.index("{"):])


def run_quiet(jobfile, cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nvbench.NvbenchWarning)
        return run_fio_job(jobfile)


def test_backlog_and_stripes_map_as_fio_means_them(tmp_path, monkeypatch):
    """4 clones 2 MiB apart from 120k: one region of 4 x 2 MiB, each job on its share; 2 loops of
    256 KiB; the stride; the backlog; verify_dump noted; no read-back step (the backlog checks)."""
    monkeypatch.chdir(scratch(tmp_path / "d", ["vb.dat"], 12 << 20))
    [[w]] = from_fio_job(job("verify-backlog"))
    assert (w["jobs"], w["offset"], w["size"], w["io_limit"]) == ("4", str(120 << 10), str(8 << 20), str(2 << 20))
    assert (w["seq_stride"], w["verify"], w["verify_backlog"]) == (str(112 << 10), "1", "1")
    assert "verify_readback" not in w and w["fio"]["origin"]["verify_backlog"] == "verify_backlog"
    assert any("verify_dump" in t for t in w["fio"]["warnings"])


def test_backlog_checks_every_write_as_fio_does(tmp_path, monkeypatch):
    """fio 3.33 writes 2 MiB and reads back the same 2 MiB as it goes (verify_backlog=1); nvbench
    writes the same 128 blocks and checks each (verify.checked), none mismatched: each clone's
    stripe is its own, so no check reads another's block (the issue's false mismatches)."""
    d = scratch(tmp_path / "nvb", ["vb.dat"], 12 << 20)
    [r] = run_quiet(job("verify-backlog"), d, monkeypatch)
    assert (r.data["write"]["bytes"], r.data["write"]["ios"]) == (2 << 20, 128)
    assert (r.data["verify"]["checked"], r.data["verify"]["mismatches"]) == (128, 0)
    if FIO:
        [j] = fio_json(job("verify-backlog"), scratch(tmp_path / "fio", ["vb.dat"], 12 << 20))["jobs"]
        assert (j["write"]["io_bytes"], j["read"]["io_bytes"], j["write"]["total_ios"]) == (2 << 20, 2 << 20, 128)


@pytest.mark.parametrize("body,why", [
    ("rw=write\nsize=1m\nnumjobs=2\noffset_increment=64k", "fit in the increment"),
    ("rw=randwrite\nsize=64k\nnumjobs=2\noffset_increment=1m", "random clones"),
    ("rw=write\nio_size=64k\nsize=4m\nnumjobs=2\noffset_increment=1m\nloops=2", "with loops"),
    ("verify_write_sequence=0", "no way to skip"),
    ("verify=crc32c\nverify_backlog=8\nverify_backlog_batch=4", "only some of the blocks"),
    ("dedupe_percentage=10\ndedupe_mode=working_set\ndedupe_working_set_percentage=0", "1 to 100%"),
])
def test_what_does_not_map_says_why(tmp_path, body, why):
    path = tmp_path / "t.fio"
    path.write_text(f"[j]\nioengine=null\n{body}\n")
    with pytest.raises(FioJobError, match=why):
        from_fio_job(str(path))


def test_verify_write_sequence_on_is_nvbench_s_check(tmp_path):
    path = tmp_path / "t.fio"
    path.write_text("[j]\nioengine=null\nsize=1m\nrw=write\nverify=crc32c\nverify_write_sequence=1\n")
    [w] = from_fio_job(str(path))[0]  # then its read-back step
    assert w["verify"] == "1" and not w["fio"]["warnings"]


def distinct_share(*paths):
    seen, n = set(), 0
    for p in paths:
        data = open(p, "rb").read()
        for i in range(0, len(data), 4096):
            seen.add(hashlib.sha256(data[i:i + 4096]).digest())
            n += 1
    return len(seen) / n


def test_dedupe_working_set_maps(tmp_path):
    """working_set with its percentage and global; without dedupe_mode (fio's repeat) the
    working-set options change nothing in fio, nor here; fio's default set is 5%."""
    [[a, b]] = from_fio_job(job("dedupe-working-set"))
    for w in (a, b):
        assert (w["data_dedupe"], w["data_dedupe_set"], w["data_dedupe_global"], w["data_compress"]) == (
            "50", "50", "1", "50")
        assert w["fio"]["origin"]["data_dedupe_set"] == "dedupe_working_set_percentage"
    text = open(job("dedupe-working-set")).read()
    path = tmp_path / "t.fio"
    path.write_text(text.replace("dedupe_mode=working_set\n", ""))
    [[a, _]] = from_fio_job(str(path))
    assert a["data_dedupe"] == "50" and "data_dedupe_set" not in a and "data_dedupe_global" not in a
    path.write_text(text.replace("dedupe_working_set_percentage=50\n", "").replace("dedupe_global=1\n", ""))
    [[a, _]] = from_fio_job(str(path))
    assert a["data_dedupe_set"] == "5" and "data_dedupe_global" not in a


def test_dedupe_working_set_has_the_asked_ratio_as_fio(tmp_path, monkeypatch):
    """Two 16 MiB writers together, 50% duplicates from a shared working set of 50%: the blocks of
    both files together are half distinct, each file alone about 0.66 (its duplicates of the other's
    set are new to it). fio 3.33 on the same job file: 0.499 together, 0.650 and 0.656 alone
    (measured); the test asks both for the same bounds."""
    d = scratch(tmp_path / "nvb", [], 0)
    run_quiet(job("dedupe-working-set"), d, monkeypatch)
    runs = [d]
    if FIO:
        f = scratch(tmp_path / "fio", [], 0)
        fio_json(job("dedupe-working-set"), f)
        runs.append(f)
    for where in runs:
        a, b = where / "dd-a.dat", where / "dd-b.dat"
        assert os.path.getsize(a) == os.path.getsize(b) == 16 << 20
        both, alone = distinct_share(a, b), (distinct_share(a), distinct_share(b))
        assert 0.47 < both < 0.53, (where, both)
        assert all(0.6 < s < 0.72 for s in alone), (where, alone)


def test_the_verifier_s_notes_and_its_run(tmp_path, monkeypatch):
    """enospc-pressure's verifier: randrw checked as it goes; create_on_open and verify_async
    noted, verify_backlog_batch equal to the backlog and verify_write_sequence=1 as they are. The
    run creates the file, checks every block written (each write once in the backlog, and the
    reads of blocks written), and finds no mismatch."""
    d = tmp_path / "d"
    d.mkdir()
    monkeypatch.chdir(d)
    [[w]] = from_fio_job(job("verify-notes"))
    assert (w["rw"], w["verify"], w["verify_backlog"], w["size"], w["io_limit"]) == (
        "randrw", "1", "64", str(1 << 20), str(2 << 20))
    notes = " ".join(w["fio"]["warnings"])
    assert "create_on_open" in notes and "verify_async=4" in notes and "verify_backlog_batch" not in notes
    [r] = run_quiet(job("verify-notes"), d, monkeypatch)
    writes = r.data["write"]["ios"]
    assert writes > 0 and r.data["verify"]["mismatches"] == 0
    assert r.data["verify"]["checked"] >= writes
    assert os.path.getsize(d / "vn.dat") == 1 << 20
