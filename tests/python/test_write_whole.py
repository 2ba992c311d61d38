"""Files the CLI and the package save (--json, report -o) are written whole or
not at all, through a temporary file beside them: on a full file system, an
error, Ctrl-C or SIGTERM, that temporary file is removed (out.html.tmpNNNN was
left behind), and the error names the file and the bytes it needed."""
import os
import signal
import subprocess

import pytest

import nvbench
from nvbench import _jsontext
from nvbench.errors import Terminated

from conftest import ROOT, cli

RESULT = os.path.join(ROOT, "tests", "python", "data", "c-psync-randread.json")


@pytest.fixture
def full_dir(tmp_path):
    """A directory on a 64 KiB tmpfs filled to the last block (root), else
    None: the caller limits the file size instead (RLIMIT_FSIZE)."""
    d = tmp_path / "full"
    d.mkdir()
    if os.geteuid() != 0:
        yield None
        return
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(d)]).returncode != 0:
        yield None
        return
    try:
        fd = os.open(d / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(fd, b"\0" * 4096) > 0:
                pass
        except OSError:  # ENOSPC: full to the last block
            pass
        finally:
            os.close(fd)
        yield d
    finally:
        subprocess.run(["umount", str(d)], check=False)


def _limit_file_size():
    import resource
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


@pytest.mark.parametrize("what", ["report", "run"])
def test_failed_save_leaves_no_temporary_and_says_why(what, full_dir, tmp_path, data_file):
    d = full_dir or (tmp_path / "limited")
    d.mkdir(exist_ok=True)
    kw = {} if full_dir else {"preexec_fn": _limit_file_size}
    if what == "report":
        out = d / "out.html"
        p = cli("report", RESULT, "-o", out, **kw)
    else:
        out = d / "res.json"
        p = cli("run", "engine=psync", "rw=randread", "bs=4k", "ios=100", data_file, "--json", out, **kw)
    left = sorted(n for n in os.listdir(d) if n != "filler")
    assert p.returncode != 0, p.stderr
    assert left == [], f"left behind: {left}; stderr: {p.stderr}"
    assert str(out) in p.stderr and "bytes needed" in p.stderr, p.stderr
    if full_dir:
        assert "bytes free in" in p.stderr, p.stderr


class _SignalOnWrite:
    """A file whose first write sends sig to this process first: the handler
    runs inside write_text, as a Ctrl-C or SIGTERM arriving mid-write would."""

    def __init__(self, f, sig):
        self.f, self.sig = f, sig

    def write(self, data):
        os.kill(os.getpid(), self.sig)
        return self.f.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()
        return False


@pytest.mark.parametrize("sig, exc", [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)])
def test_signal_mid_write_removes_the_temporary(sig, exc, tmp_path, monkeypatch):
    real_open = open
    monkeypatch.setattr(_jsontext, "open", lambda *a, **k: _SignalOnWrite(real_open(*a, **k), sig), raising=False)
    out = tmp_path / "res.json"
    with pytest.raises(exc):
        with nvbench._signals.sigterm_cancels():
            _jsontext.write_text(out, "{}\n" * 1000)
    assert os.listdir(tmp_path) == []


def test_a_file_at_the_temporary_name_is_not_written_through(tmp_path):
    """A symlink (or a file) already at <path>.tmp<pid> is neither followed nor removed."""
    victim = tmp_path / "victim"
    victim.write_text("keep")
    out = tmp_path / "res.json"
    os.symlink(victim, f"{out}.tmp{os.getpid()}")
    _jsontext.write_text(out, "{}\n")
    assert victim.read_text() == "keep"
    assert out.read_text() == "{}\n"
    assert os.path.islink(f"{out}.tmp{os.getpid()}")


def test_a_special_file_is_written_to_not_replaced(tmp_path):
    """--json /dev/null (or a FIFO, a terminal) writes into the file: renaming a temporary
    file over it would turn a device node into a regular file (it did, as root, to /dev/null).
    A FIFO stands in for the device here, so a failure harms nothing outside tmp_path."""
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    _jsontext.write_text(str(fifo), "{\"a\": 1}\n")
    reader.join(10)
    assert got == [b"{\"a\": 1}\n"]
    assert os.path.exists(fifo) and not os.path.isfile(fifo)  # still the FIFO
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary file beside it
