"""Every bad input of the core issue becomes nvbench.NvbenchError: an OSError with
the errno, the library's message naming the key and the value, and no result;
and nothing is created or written, through validate() and run() alike."""
import errno
import json
import os
import pickle

import pytest

import nvbench
from nvbench import NvbenchError

from conftest import cli, digest, loop_device, tree

# (keys, errno, words the message must contain). Refused when the key is set.
SET_TIME = [
    ({"blocksize": "4k"}, errno.EINVAL, ["blocksize", "4k"]),            # unknown key
    ({"engine": "spdk"}, errno.EINVAL, ["engine", "spdk"]),               # unknown engine
    ({"rw": "randomread"}, errno.EINVAL, ["rw", "randomread"]),           # unknown rw
    ({"bs": 0}, errno.ERANGE, ["bs", "'0'"]),
    ({"bs": "4x"}, errno.EINVAL, ["bs", "4x"]),                           # malformed size
    ({"size": "lots"}, errno.EINVAL, ["size", "lots"]),
    ({"qd": 0}, errno.ERANGE, ["qd", "'0'"]),
    ({"qd": 1000000}, errno.ERANGE, ["qd", "1000000"]),                   # absurd
    ({"qd": "many"}, errno.EINVAL, ["qd", "many"]),
    ({"jobs": 0}, errno.ERANGE, ["jobs", "'0'"]),
    ({"runtime": "2parsecs"}, errno.EINVAL, ["runtime", "2parsecs"]),     # malformed duration
    ({"ramp": "soon"}, errno.EINVAL, ["ramp", "soon"]),
    ({"rwmix": 101}, errno.ERANGE, ["rwmix", "101"]),                     # out of range
    ({"rwmix": -5}, errno.EINVAL, ["rwmix", "-5"]),
    ({"direct": "maybe"}, errno.EINVAL, ["direct", "maybe"]),
    ({"io_uring_nosuch": 1}, errno.EINVAL, ["io_uring.nosuch"]),          # engine option
    ({"options": {"nosuchengine.opt": 1}}, errno.EINVAL, ["nosuchengine"]),
]

# Refused when the whole workload and its targets are checked.
RUN_TIME = [
    ({"rw": "randwrite", "bs": 1000}, errno.EINVAL, ["bs", "1000"]),           # bs % lbs, direct=1
    ({"rw": "randwrite", "bs": "64k", "size": "8k"}, errno.EINVAL, ["bs", "64k"]),  # bs > region
    ({"rw": "write", "bs": "2M"}, errno.EINVAL, ["bs", "2M"]),                 # bs > the 1M file
    ({"rw": "randwrite", "runtime": 0}, errno.EINVAL, ["runtime", "0"]),        # no bound
    ({"rw": "randwrite", "io_limit": "6k"}, errno.EINVAL, ["io_limit", "6k"]),
]


def _ids(cases):
    return [",".join(f"{k}={v}" for k, v in keys.items()) for keys, _, _ in cases]


def _check(e, err, words):
    assert isinstance(e, OSError) and type(e) is NvbenchError
    assert e.errno == err, f"{e.errno} ({e.strerror})"
    for w in words:
        assert w in e.strerror, f"message {e.strerror!r} lacks {w!r}"
    assert e.strerror in str(e) and e.name == errno.errorcode[err]
    assert e.result is None
    assert e.is_input_error


@pytest.mark.parametrize("keys,err,words", SET_TIME, ids=_ids(SET_TIME))
def test_refused_when_set(keys, err, words, data_file, empty_dir):
    before = digest(data_file)
    for call in (nvbench.validate, nvbench.run):
        with pytest.raises(NvbenchError) as ei:
            call(data_file, empty_dir, **keys)
        _check(ei.value, err, words)
    assert digest(data_file) == before and tree(empty_dir) == []


@pytest.mark.parametrize("keys,err,words", RUN_TIME, ids=_ids(RUN_TIME))
def test_refused_before_any_io(keys, err, words, data_file, empty_dir):
    before = digest(data_file)
    for call in (nvbench.validate, nvbench.run):
        with pytest.raises(NvbenchError) as ei:
            call(data_file, **keys)
        _check(ei.value, err, words)
    assert digest(data_file) == before


def test_bs_not_a_multiple_of_the_block_size_in_a_directory(empty_dir):
    with pytest.raises(NvbenchError) as ei:
        nvbench.run(empty_dir, rw="randwrite", bs=1000, size="64k")
    _check(ei.value, errno.EINVAL, ["bs", "1000"])
    assert tree(empty_dir) == []


def test_no_targets():
    for call in (nvbench.validate, nvbench.run):
        with pytest.raises(NvbenchError) as ei:
            call(rw="randwrite")
        _check(ei.value, errno.EINVAL, ["targets"])


def test_missing_target_next_to_an_existing_one(data_file, empty_dir):
    missing = os.path.join(empty_dir, "does-not-exist")
    before = digest(data_file)
    for call in (nvbench.validate, nvbench.run):
        with pytest.raises(NvbenchError) as ei:
            call(data_file, missing, rw="randwrite")
        _check(ei.value, errno.ENOENT, [missing])
    assert digest(data_file) == before and tree(empty_dir) == []


def test_unavailable_engine_option_is_enotsup(data_file):
    if not nvbench.engines()["io_uring"][0]:
        pytest.skip("io_uring not available here")
    before = digest(data_file)
    with pytest.raises(NvbenchError) as ei:
        nvbench.run(data_file, engine="io_uring", direct=0, io_uring_iopoll=1, rw="randwrite", ios=10)
    _check(ei.value, errno.ENOTSUP, ["iopoll"])
    assert digest(data_file) == before


def test_unavailable_engine_is_refused(data_file):
    missing = [n for n, (ok, _) in nvbench.engines().items() if not ok]
    if not missing:
        pytest.skip("every engine works here")
    with pytest.raises(NvbenchError) as ei:
        nvbench.validate(data_file, engine=missing[0])
    assert missing[0] in ei.value.strerror


def test_write_to_a_block_device_needs_allow_destructive(tmp_path):
    img = tmp_path / "guard.img"
    img.write_bytes(os.urandom(4 << 20))
    with loop_device(img) as dev:
        before = digest(img)
        for call in (nvbench.validate, nvbench.run):
            with pytest.raises(NvbenchError) as ei:
                call(dev, rw="randwrite", ios=16)
            _check(ei.value, errno.EPERM, ["allow_destructive", dev])
        assert digest(img) == before
        assert nvbench.run(dev, rw="randread", ios=16).read.ios == 16
        assert nvbench.run(dev, rw="randwrite", ios=16, allow_destructive=True).write.ios == 16


def test_python_side_misuse_is_a_type_error(data_file):
    with pytest.raises(TypeError):
        nvbench.run(data_file, bs=object())
    with pytest.raises(TypeError):
        nvbench._nvbench.run(nvbench.core.workload(data_file), progress=1)


def test_error_pickles_and_reads_like_an_oserror():
    e = NvbenchError(errno.EINVAL, "invalid value 'x' for key 'bs'")
    e.result = None
    e2 = pickle.loads(pickle.dumps(e))
    assert (e2.errno, e2.strerror, e2.result) == (e.errno, e.strerror, None)
    assert str(e) == "invalid value 'x' for key 'bs' [EINVAL]"
    assert isinstance(e, OSError)


# Bytes that are not UTF-8 in a target or a name= value: the library's JSON
# shows them as U+FFFD and warns; nothing on the way is a UnicodeDecodeError.

def _bad_dir(tmp_path):
    d = os.fsencode(tmp_path) + b"/bad\xff\xc0\xaf"
    os.mkdir(d)
    return d


def _says_not_utf8(data, n):
    text = json.dumps(data)
    assert "\\ufffd" in text
    assert sum("not UTF-8" in w for w in data["warnings"]) == n, data["warnings"]


def test_target_and_name_not_utf8_run(tmp_path):
    d = _bad_dir(tmp_path)
    r = nvbench.run(d, engine="null", ios=10, name="job\udcfe")
    assert r.read.ios == 10
    assert r.data["workload"]["targets"] == [os.fsdecode(d).replace("\udcff", "\ufffd").replace("\udcc0\udcaf", "\ufffd\ufffd")]
    assert r.data["workload"]["name"] == "job\ufffd"
    _says_not_utf8(r.data, 2)
    # the same target as a str carrying the bytes (surrogateescape)
    r = nvbench.run(os.fsdecode(d), engine="null", ios=10)
    _says_not_utf8(r.data, 1)


def test_missing_target_not_utf8_is_an_nvbench_error(tmp_path):
    with pytest.raises(NvbenchError) as e:
        nvbench.run(os.fsencode(tmp_path) + b"/missing\xff", engine="null", ios=10)
    assert "missing\\xff" in str(e.value)


def test_cli_run_prints_the_result_of_a_target_not_utf8(tmp_path):
    d = _bad_dir(tmp_path)
    p = cli("run", "engine=null", "ios=10", "name=job\udcfe", os.fsdecode(d))
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["read"]["ios"] == 10
    _says_not_utf8(data, 2)


def test_second_writer_is_refused_naming_the_process(tmp_path):
    """Two runs never write one target: the second is refused with EBUSY
    naming this process, a verifying reader too; a plain reader runs."""
    f = tmp_path / "two.dat"
    f.write_bytes(os.urandom(8 << 20))
    seen = {}

    def second(snapshot):
        if seen:
            return True
        for label, keys in (("writer", dict(rw="randwrite", ios=16)),
                            ("verifier", dict(rw="randread", ios=16, verify=1))):
            try:
                nvbench.run(str(f), engine="psync", **keys)
                seen[label] = None
            except NvbenchError as e:
                seen[label] = e
        seen["reader"] = nvbench.run(str(f), engine="psync", rw="randread", ios=16).read.ios
        return True   # ends the first run

    with pytest.raises(NvbenchError) as ei:
        nvbench.run(str(f), engine="psync", rw="randwrite", runtime="60s", interval="10ms", progress=second)
    assert ei.value.errno == errno.ECANCELED
    for label in ("writer", "verifier"):
        e = seen[label]
        assert e is not None, f"the second {label} was not refused"
        _check(e, errno.EBUSY, ["in use by another run", f"pid {os.getpid()}"])
        assert e.is_input_error
    assert seen["reader"] == 16


def test_cli_refuses_the_backing_file_of_a_loop_device(tmp_path):
    img = tmp_path / "fs.img"
    img.write_bytes(os.urandom(4 << 20))
    with loop_device(img) as dev:
        before = digest(img)
        r = cli("run", "engine=psync", "rw=write", "bs=4k", "ios=8", "allow_destructive=1", img)
        assert r.returncode == 2, r.stderr
        assert "backs" in r.stderr and dev in r.stderr, r.stderr
        assert digest(img) == before
