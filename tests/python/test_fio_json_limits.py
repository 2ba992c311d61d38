"""fio JSON is read within stated bounds: a file of more jobs than
nvbench.MAX_JOBS, or more text than MAX_BYTES, is refused before any
result is built, naming the limit (200,000 tiny jobs in 29 MB made
`nvbench report` grow past 2.4 GB)."""
import json
import os

import pytest

import nvbench
from nvbench import fio

from conftest import ROOT, cli

# the documented limit (a literal where the package predates it: the same refusal is asked of it)
MAX_JOBS = getattr(fio, "MAX_JOBS", 16384)
FIO_2JOBS = os.path.join(ROOT, "tests", "python", "data", "fio-null-randrw-2jobs.json")


def _many_jobs(path, n):
    """fio JSON of n tiny jobs (what a generator, not fio, writes)."""
    job = ('{"jobname":"j%d","groupid":0,"job options":{"rw":"randread","bs":"4k"},'
           '"read":{"io_bytes":4096,"iops":1.0,"runtime":1}}')
    with open(path, "w") as f:
        f.write('{"fio version":"fio-3.36","jobs":[' + ",".join(job % i for i in range(n)) + "]}")
    return path


def test_too_many_jobs_refused_before_any_result_is_built(tmp_path, monkeypatch):
    path = _many_jobs(tmp_path / "many.json", MAX_JOBS + 1)
    built = []
    real = fio._one_result
    monkeypatch.setattr(fio, "_one_result", lambda *a, **k: built.append(1) or real(*a, **k))
    for read in (nvbench.load, fio.load_fio):
        with pytest.raises(ValueError) as e:
            read(str(path))
        assert f"{MAX_JOBS + 1} jobs" in str(e.value) and f"the {MAX_JOBS}" in str(e.value), e.value
    assert built == []  # refused up front, not after building results


def test_report_of_too_many_jobs_exits_2_naming_the_limit(tmp_path):
    path = _many_jobs(tmp_path / "many.json", MAX_JOBS + 1)
    out = tmp_path / "out.html"
    p = cli("report", path, "-o", out)
    assert p.returncode == 2, p.stderr
    assert str(MAX_JOBS) in p.stderr and "jobs" in p.stderr, p.stderr
    assert not out.exists()


def test_more_text_than_the_limit_is_refused_unread(tmp_path, monkeypatch):
    size = os.path.getsize(FIO_2JOBS)
    monkeypatch.setattr(fio, "MAX_BYTES", size - 1)
    with pytest.raises(ValueError, match=f"larger than the {size - 1} bytes"):
        nvbench.load(FIO_2JOBS)
    with pytest.raises(ValueError, match=f"larger than the {size - 1} bytes"):
        fio.load_fio(FIO_2JOBS)
    with open(FIO_2JOBS, "rb") as f:  # an open file: read up to the limit, not beyond
        with pytest.raises(ValueError, match="larger than"):
            fio.load_fio(f)
        assert f.tell() == size  # limit + 1 bytes, here the whole file
    monkeypatch.setattr(fio, "MAX_BYTES", size)
    assert len(nvbench.load(FIO_2JOBS)) >= 1  # at the limit: read
