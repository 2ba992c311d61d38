"""Emulated zones from fio job files (zonemode=zbd, docs/zoned.md): the job files
tests/data/fio_jobs/zoned*.fio mapped and run on a file of zeros, side by side with fio 3.33
when it is installed (its --write_iolog and its zone resets)."""
import os
import shutil
import subprocess

import pytest

from nvbench._summary import summary
from nvbench.fio_job import FioJobError, from_fio_job, run_fio_job

from conftest import ROOT

JOBS = os.path.join(ROOT, "tests", "data", "fio_jobs")
FIO = shutil.which("fio")


def job(name):
    return os.path.join(JOBS, name + ".fio")


def write(tmp_path, text, name="t.fio"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def fio_zone_writes(jobfile, cwd):
    """fio 3.33's writes ([offset, ...] in issue order, from --write_iolog) and its zone resets."""
    p = subprocess.run([FIO, "--write_iolog=io.log", jobfile], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    resets = int(p.stdout.split(" zone resets")[0].rsplit(";", 1)[1])
    log = (cwd / "io.log").read_text().splitlines()
    return [int(ln.split()[3]) for ln in log if ln.split()[2:3] == ["write"]], resets


def test_emulated_zones_write_at_the_pointers_as_fio(tmp_path, monkeypatch):
    """zonemode=zbd on a file (zoned.fio): 64 writes of 256 KiB, each at its zone's write pointer,
    every zone reset once when found full (8 zone resets): fio 3.33's count, run side by side when
    fio is installed, where its write log shows each zone written from its start, block after block."""
    [[w]] = from_fio_job(job("zoned"))
    assert (w["zone_mode"], w["zone_size"], w["size"], w["io_limit"]) == ("zbd", "1048576", "8388608", "16777216")
    d = tmp_path / "run"
    d.mkdir()
    (d / "zoned.dat").write_bytes(bytes(8 << 20))
    monkeypatch.chdir(d)
    [r] = run_fio_job(job("zoned"))
    assert (r.data["write"]["ios"], r.data["zone_resets"]) == (64, 8)
    assert "zones: emulated, 1 MiB each, 8 zone resets" in summary(r.data)
    data = (d / "zoned.dat").read_bytes()
    assert all(any(data[z << 20:(z + 1) << 20]) for z in range(8))
    if FIO:
        offs, resets = fio_zone_writes(job("zoned"), d)
        assert (len(offs), resets) == (64, 8)
        wp = {}
        for off in offs:  # each write at its zone's pointer, a full zone starting again at its start
            z = off >> 20
            assert off == (z << 20) + wp.get(z, 0)
            wp[z] = (wp.get(z, 0) + (256 << 10)) % (1 << 20)


def zone_runs(jobfile, cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    return [(r.data["read"]["ios"], r.data["write"]["ios"], r.data.get("zone_resets", 0)) for r in run_fio_job(jobfile)]


def test_zone_reset_gc_open_zones_and_read_beyond_wp(tmp_path, monkeypatch):
    """zoned-gc.fio: four passes of random writes with max_open_zones=4, zone_reset_threshold and
    zone_reset_frequency (fio's garbage collection), then reads past the pointers. fio 3.33 on the
    same file: 128 writes, 35 zone resets (25 without the two gc options), 4 reads; nvbench: the
    same I/O counts, and its resets (its random order is not fio's) near fio's and above the run
    without gc."""
    [[w], [r]] = from_fio_job(job("zoned-gc"))
    assert (w["max_open_zones"], w["zone_reset_threshold"], w["zone_reset_frequency"]) == ("4", "0.5", "0.25")
    assert r["read_beyond_wp"] == "1" and r["rw"] == "randread"
    d = tmp_path / "run"
    d.mkdir()
    (d / "zoned.dat").write_bytes(bytes(8 << 20))
    without = write(tmp_path, open(job("zoned-gc")).read().replace("zone_reset_frequency=0.25", ""), "n.fio")
    (gc, reads), (nogc, _) = zone_runs(job("zoned-gc"), d, monkeypatch), zone_runs(without, d, monkeypatch)
    assert gc[:2] == nogc[:2] == (0, 128) and gc[2] > nogc[2] >= 8
    assert reads == (4, 0, 0)  # a read-only step resets nothing
    if FIO:
        p = subprocess.run([FIO, job("zoned-gc")], cwd=d, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        fio_resets = int(p.stdout.split(" zone resets")[0].rsplit(";", 1)[1])
        assert abs(gc[2] - fio_resets) <= 4, (gc, fio_resets)


def test_real_zone_keys_need_zonemode_zbd(tmp_path):
    with pytest.raises(FioJobError, match="'zonecapacity': without zonemode=zbd"):
        from_fio_job(write(tmp_path, "[j]\nioengine=null\nsize=1m\nzonecapacity=256k\n"))
    with pytest.raises(FioJobError, match="'8z' counts zones"):
        from_fio_job(write(tmp_path, "[j]\nioengine=null\nsize=8z\n"))
