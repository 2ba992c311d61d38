"""What the targets hold, as the Python front door shows it: the page cache
at the start (invalidate), holes in a file target (a loud warning), and the
data a run writes (fresh and incompressible by default; data_compress and
data_dedupe on purpose, echoed in the workload)."""
import collections
import errno
import hashlib
import json
import os
import zlib

import pytest

import nvbench

from conftest import cli

MiB = 1 << 20


def _cache(path):
    with open(path, "rb") as f:
        while f.read(MiB):
            pass


def _blocks(path):
    """Duplicate 4 KiB blocks (each equal to an earlier one counts) and the
    zlib level 1 (gzip -1) ratio of the whole file."""
    with open(path, "rb") as f:
        data = f.read()
    seen = collections.Counter(hashlib.sha256(data[i:i + 4096]).digest() for i in range(0, len(data), 4096))
    dups = sum(n - 1 for n in seen.values())
    return dups / (len(data) // 4096), len(zlib.compress(data, 1)) / len(data)


@pytest.fixture
def cached_file(tmp_path):
    p = tmp_path / "cached.bin"
    p.write_bytes(os.urandom(16 * MiB))
    _cache(p)
    return str(p)


def test_invalidate_drops_the_cache_and_invalidate_0_reports_it(cached_file):
    r = nvbench.run(cached_file, engine="psync", rw="randread", direct=False, ios=32)
    pc = r.data["per_target"][0]["page_cache"]
    assert pc["invalidated"] is True and pc["cached_pct"] < 1 and pc["examined_bytes"] == 16 * MiB
    assert r.data["workload"]["invalidate"] == 1
    _cache(cached_file)
    r = nvbench.run(cached_file, engine="psync", rw="randread", direct=False, ios=32, invalidate=False)
    pc = r.data["per_target"][0]["page_cache"]
    assert pc["invalidated"] is False and pc["cached_pct"] > 90
    assert any("in the page cache as the run began" in w and cached_file in w for w in r.data["warnings"])
    # direct=1: dropped, not measured
    r = nvbench.run(cached_file, engine="psync", rw="randread", ios=32)
    assert r.data["per_target"][0]["page_cache"] == {"invalidated": True, "cached_pct": None,
                                                     "examined_bytes": None}


def test_sparse_file_read_warns_loudly(tmp_path):
    p = tmp_path / "holes.bin"
    with open(p, "wb") as f:
        f.truncate(32 * MiB)
    r = nvbench.run(str(p), engine="psync", rw="randread", ios=32)
    assert r.data["per_target"][0]["allocated_pct"] == 0
    loud = [w for w in r.data["warnings"] if w.startswith("SPARSE TARGET")]
    assert loud and str(p) in loud[0] and "0.0%" in loud[0] and "write pass" in loud[0]
    # the command line prints the same result
    out = cli("run", "engine=psync", "rw=randread", "ios=32", str(p))
    assert out.returncode == 0, out.stderr
    assert any(w.startswith("SPARSE TARGET") for w in json.loads(out.stdout)["warnings"])


@pytest.mark.parametrize("engine", ["psync", "io_uring"])
def test_a_run_writes_fresh_incompressible_data(tmp_path, engine, available):
    if engine not in available:
        pytest.skip(f"{engine} not available here")
    p = tmp_path / "w.bin"
    p.write_bytes(bytes(64 * MiB))
    nvbench.run(str(p), engine=engine, rw="write", bs="4k", qd=4, direct=False, io_limit="64M")
    dups, ratio = _blocks(p)
    assert dups == 0, f"{dups:.4f} of the 4 KiB blocks repeat an earlier one"
    assert ratio >= 0.95, f"gzip -1 makes it {ratio:.3f} of its size"


def test_compressible_and_duplicate_data_on_purpose(tmp_path):
    p = tmp_path / "cd.bin"
    p.write_bytes(bytes(32 * MiB))
    r = nvbench.run(str(p), engine="psync", rw="write", bs="4k", direct=False, io_limit="32M",
                    data_compress=50)
    assert r.data["workload"]["data_compress"] == 50 and r.data["workload"]["data_dedupe"] == 0
    dups, ratio = _blocks(p)
    assert dups == 0 and 0.40 <= ratio <= 0.60, (dups, ratio)
    nvbench.run(str(p), engine="psync", rw="write", bs="4k", direct=False, io_limit="32M", data_dedupe=50)
    dups, ratio = _blocks(p)
    assert 0.40 <= dups <= 0.60, dups
    with pytest.raises(nvbench.NvbenchError) as ei:
        nvbench.run(str(p), engine="psync", rw="write", verify=True, data_dedupe=10, ios=4)
    assert "data_dedupe=10 needs verify=0" in ei.value.strerror


# ---- verify=1: which reads are checked, and bad data is a failure (issue 22, finding 4)

def test_a_mixed_verify_run_checks_only_the_blocks_it_wrote(tmp_path):
    # a file of bytes no verify=1 run wrote: a randrw run reported most reads of it as
    # mismatches ("6615 of 10186"); now they are unchecked, and what it wrote is checked
    p = tmp_path / "f1"
    p.write_bytes(os.urandom(4 * MiB))
    r = nvbench.run(str(p), engine="psync", rw="randrw", bs="4k", verify=True, ios=3000)
    v = r.data["verify"]
    assert v["mismatches"] == 0, v
    assert v["unchecked"] > 0 and v["checked"] > 0, v
    assert v["checked"] + v["unchecked"] == r.read.ios
    assert any("verify.unchecked" in w for w in r.warnings)


def test_a_verify_mismatch_raises_with_the_result(tmp_path):
    p = tmp_path / "foreign"
    p.write_bytes(os.urandom(1 * MiB))
    with pytest.raises(nvbench.VerifyError) as ei:
        nvbench.run(str(p), engine="psync", rw="read", bs="4k", verify=True, ios=16)
    e = ei.value
    assert isinstance(e, nvbench.NvbenchError) and e.errno == errno.EILSEQ and not e.is_input_error
    assert "verify: 16 of 16 blocks read did not match" in e.strerror and "offset 0 (magic)" in e.strerror
    assert e.result.data["verify"]["mismatches"] == 16
    assert [m["offset"] for m in e.result.data["verify"]["first_mismatches"]] == [i * 4096 for i in range(8)]
    # written that way first, the same read passes
    nvbench.run(str(p), engine="psync", rw="write", bs="4k", verify=True, ios=256)
    r = nvbench.run(str(p), engine="psync", rw="read", bs="4k", verify=True, ios=256)
    assert r.data["verify"]["checked"] == 256 and r.data["verify"]["mismatches"] == 0


def test_one_file_named_twice_is_refused_when_written_or_verified(tmp_path):
    p = tmp_path / "dup.dat"
    p.write_bytes(os.urandom(1 * MiB))
    os.link(p, tmp_path / "hard.dat")
    before = hashlib.sha256(p.read_bytes()).hexdigest()
    for other in (p, tmp_path / "hard.dat"):
        for keys in ({"rw": "randrw", "verify": True}, {"rw": "randwrite"}, {"rw": "read", "verify": True}):
            with pytest.raises(nvbench.NvbenchError) as ei:
                nvbench.run(str(p), str(other), engine="psync", bs="4k", ios=64, **keys)
            assert ei.value.errno == errno.EINVAL and "are the same file" in ei.value.strerror
            assert f"0 '{p}' and 1 '{other}'" in ei.value.strerror
    assert hashlib.sha256(p.read_bytes()).hexdigest() == before
    nvbench.run(str(p), str(tmp_path / "hard.dat"), engine="psync", rw="randread", bs="4k", ios=64)
