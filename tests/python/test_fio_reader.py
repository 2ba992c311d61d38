"""The one fio job-file reader (nvb_fiojob_read in the library) as the bindings meet it:
lines end at '\\n' only and a ';' or '#' starts a comment anywhere, as fio reads them;
Python and Lua read every job file here to the same jobs, byte for byte; the bounds refuse
hostile files (a FIFO include, fan-out) naming the limit. Issue 22, findings 2 and 7."""
import os
import shutil
import subprocess

import pytest

from nvbench.fio_job import FioJobError, parse_job_text

from conftest import ROOT, cli, digest, lua_env

LUA = shutil.which("lua5.4")
VICTIM_JOB = b"[w]\n# scratch job\x0bfilename=victim.dat\nrw=write\nbs=4k\nsize=1M\n"


def put(d, name, data):
    p = d / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return str(p)


def victim(tmp_path):
    v = tmp_path / "victim.dat"
    v.write_bytes(os.urandom(1 << 20))
    return v


def test_vt_in_a_comment_hides_no_target(tmp_path):
    """Python's splitlines() split the comment at \\v: `nvbench run --fio` rewrote victim.dat."""
    v = victim(tmp_path)
    before = digest(v)
    job = put(tmp_path, "v.fio", VICTIM_JOB)
    [(name, opts, stonewall)] = parse_job_text(job)
    assert (name, opts, stonewall) == ("w", {"rw": "write", "bs": "4k", "size": "1M"}, False)
    p = cli("run", "--fio", job, "--json", tmp_path / "r.json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert digest(v) == before


@pytest.mark.parametrize("sep", [b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x85", "\u2028".encode(), "\u2029".encode(),
                                 b"\r"])
def test_no_unicode_line_breaks(tmp_path, sep):
    job = put(tmp_path, "s.fio", b"[j]\n; comment" + sep + b"filename=victim.dat\nrw=read" + sep + b"x\n")
    [(_, opts, _)] = parse_job_text(job)
    assert opts == {"rw": "read" + sep.decode("utf-8", "surrogateescape") + "x"}


def test_inline_comment_is_not_part_of_the_file_name(tmp_path):
    """nvbench created a file named 'inl.dat # the scratch file'; fio strips the comment."""
    job = put(tmp_path, "i.fio", b"[w] ; the job\nfilename=inl.dat # the scratch file\nrw=write\nbs=4k;8k\n"
                                 b"size=64k\n")
    [(_, opts, _)] = parse_job_text(job)
    assert opts == {"filename": "inl.dat", "rw": "write", "bs": "4k", "size": "64k"}
    p = cli("run", "--fio", job, "--json", tmp_path / "r.json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "inl.dat").stat().st_size == 64 << 10
    assert not [f for f in os.listdir(tmp_path) if "#" in f or " " in f]


def test_fifo_include_refused_unopened(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    job = put(tmp_path, "f.fio", b"[j]\nrw=read\ninclude pipe\n")
    with pytest.raises(FioJobError, match=r"f\.fio:3: include .*pipe is a FIFO, not a regular file"):
        parse_job_text(job)
    with pytest.raises(FioJobError, match=r"/dev/zero is a character device"):
        parse_job_text(put(tmp_path, "z.fio", b"[j]\ninclude /dev/zero\n"))


def test_include_fan_out_bounded(tmp_path):
    """Eight files each including the next 30 times: 30^7 reads before; refused at the count limit now."""
    for i in range(7):
        put(tmp_path, f"f{i}.inc", f"include f{i + 1}.inc\n".encode() * 30)
    put(tmp_path, "f7.inc", b"bs=4k\n")
    with pytest.raises(FioJobError, match=r"more than 256 includes in all \(the include count limit\)"):
        parse_job_text(put(tmp_path, "fan.fio", b"[j]\ninclude f0.inc\n"))


def test_long_line_bounded(tmp_path):
    with pytest.raises(FioJobError, match=r"l\.fio:2: a line longer than 8192 bytes \(the line limit\)"):
        parse_job_text(put(tmp_path, "l.fio", b"[j]\nfilename=" + b"a" * 9000 + b"\n"))


def test_env_replaces_environment(tmp_path):
    job = put(tmp_path, "e.fio", b"[j]\nfilename=${NVB_T_DIR}/x # c\n")
    assert parse_job_text(job, env={"NVB_T_DIR": "/mnt/a#b"})[0][1] == {"filename": "/mnt/a#b/x"}
    with pytest.raises(FioJobError, match=r"e\.fio:2: environment variable 'NVB_T_DIR' is not set"):
        parse_job_text(job, env={})


# ------------------------------------------------------------------ Python and Lua read alike

ENV = {"INC": "common.inc", "DIR": "/mnt/d", "HASH": "a#b;c"}
FILES = {"sub/common.inc": b"# shared\nbs=8k ; inline\ninclude deeper/last.inc\n",
         "sub/deeper/last.inc": b"iodepth=4\n", "sect.inc": b"[k]\n", "NUL.inc": b"x=1\x00\n"}
CASES = [
    VICTIM_JOB,
    b"[j]\r\n; a\x0cb=1\x1cc=2\x85d=3\xe2\x80\xa8e=4\r\nrw=read\r\n",
    b"[j] # the job\nfilename=inl.dat # the scratch file\nbs=4k;64k\n  rw = randread\t; mixed\ndirect # on\n",
    b"[global]\nbs=8k\nrw=write\n[a]\nrw=read\nbs=4k\n[global-x]\nstonewall\n[b]\nsize=1m\n[c]\nstonewall=off\n"
    b"wait_for_previous=0\n[d]\nwait_for_previous=yes\n",
    b"[global]\ninclude sub/${INC}\n[j]\ndirectory=${DIR}\nfilename=${HASH}\nnumjobs=$ncpus\n",
    b"[n\xff]\nfilename=a\xc3(b\n# \x00 in a comment\n",
    b"[j]\nsize=1\x0b2\n\x0c iodepth=8\n",
    b"[j]\nfilename=${NVB_UNSET_FOR_THIS_TEST}\n",
    b"[j]\nsize=$(1+1)\n",
    b"[j]\ninclude sect.inc\n",
    b"include sect.inc\n[j]\n",
    b"[j]\ninclude NUL.inc\n",
    b"[j]\nstonewall=maybe\n",
    b"[j\nrw=read\n",
    b"[global]\nrw=read\n",
    b"\x1b[31m=1\n[j]\n",
]


def python_read(path):
    try:
        jobs = parse_job_text(path, env=ENV)
    except FioJobError as e:
        return b"error\t" + str(e).encode("utf-8", "surrogateescape") + b"\n"
    out = b""
    for name, opts, stonewall in jobs:
        out += b"job\t" + os.fsencode(name) + b"\t" + (b"true" if stonewall else b"false") + b"\n"
        for k, v in opts.items():
            out += b"\t" + os.fsencode(k) + (b"" if v is None else b"=" + os.fsencode(v)) + b"\n"
    return out


@pytest.mark.skipif(LUA is None, reason="lua5.4 not installed")
@pytest.mark.parametrize("case", range(len(CASES)))
def test_lua_reads_as_python(tmp_path, case):
    env = lua_env()
    if env is None:
        pytest.skip("the Lua module nvbench.so is not built")
    for name, data in FILES.items():
        put(tmp_path, name, data)
    path = put(tmp_path, "t.fio", CASES[case])
    py = python_read(path)
    p = subprocess.run([LUA, os.path.join(ROOT, "tests", "lua", "fio_read_dump.lua"), path,
                        *[f"{k}={v}" for k, v in ENV.items()]], capture_output=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout == py
    # what each case is about holds in both
    if case == 0:
        assert b"victim" not in py
    if py.startswith(b"error"):
        assert b"t.fio" in py or b".inc" in py
