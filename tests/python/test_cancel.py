"""Ctrl-C during a run: the run is cancelled cleanly (in-flight I/O drained,
scratch file removed) and KeyboardInterrupt carries the partial result."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

import nvbench

from conftest import tree


def _sigint_after(seconds):
    t = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    t.start()
    return t


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="Python runs signal handlers on the main thread only")
def test_ctrl_c_cancels_a_run_on_a_directory(empty_dir):
    t0 = time.monotonic()
    timer = _sigint_after(1.0)
    try:
        with pytest.raises(KeyboardInterrupt) as ei:
            nvbench.run(empty_dir, rw="randwrite", bs="4k", qd=8, size="16M", runtime=60)
    finally:
        timer.cancel()
    elapsed = time.monotonic() - t0
    # long before the run's 60 s: generous, a shared machine may be slow to stop
    assert elapsed < 30, f"KeyboardInterrupt only after {elapsed:.1f}s"
    r = ei.value.result
    assert isinstance(r, nvbench.Result)
    assert r.cancelled and r.write.ios > 0 and r.error["name"] == "ECANCELED"
    assert r.duration_s < 30
    assert tree(empty_dir) == [], "scratch file left behind"


def test_ctrl_c_stops_a_matrix_and_keeps_what_was_done(empty_dir):
    timer = _sigint_after(1.5)
    try:
        with pytest.raises(KeyboardInterrupt) as ei:
            nvbench.matrix(targets=[empty_dir], engines=["psync"], bs=["4k", "8k"], size="8M",
                           runtime=[0.3, 30])
    finally:
        timer.cancel()
    e = ei.value
    assert isinstance(e.results, nvbench.ResultSet)
    assert [r.meta["stack"] for r in e.results][:1] == ["psync runtime=0.3"]
    assert e.result.cancelled
    assert tree(empty_dir) == []


def test_ctrl_c_on_the_command_line(empty_dir, tmp_path):
    out = tmp_path / "partial.json"
    env = dict(os.environ)
    p = subprocess.Popen([sys.executable, "-m", "nvbench", "run", "rw=randwrite", "runtime=30s", "size=16M",
                          "--json", str(out), empty_dir],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=20)
    assert p.returncode == 130, stderr
    assert "interrupted" in stderr
    printed = json.loads(stdout)
    assert printed["cancelled"] is True and printed["write"]["ios"] > 0
    saved = json.loads(out.read_text())
    assert saved["results"][0]["cancelled"] is True
    assert tree(empty_dir) == []


def test_ctrl_c_during_nvbench_matrix(tmp_path):
    env_tmp = tmp_path / "tmp"
    env_tmp.mkdir()
    out = tmp_path / "partial.json"
    env = dict(os.environ, TMPDIR=str(env_tmp))
    p = subprocess.Popen([sys.executable, "-m", "nvbench", "matrix", "--engines", "psync", "--runtime", "30s",
                          "--size", "8M", "--qd", "2", "--json", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(2.5)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=30)
    assert p.returncode == 130, stderr
    saved = json.loads(out.read_text())["results"]
    assert saved and saved[-1]["cancelled"] is True and saved[-1]["read"]["ios"] > 0
    assert tree(env_tmp) == [], "scratch file or its directory left behind"


# ---------------------------------------------------------------- SIGTERM

needs_main_thread = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                       reason="Python runs signal handlers on the main thread only")


def _sigterm_self(p):
    """A progress callback: SIGTERM to this process while the run is under
    way, but only if nvbench has taken SIGTERM over (otherwise it would kill
    pytest: cancel instead and let the assertions fail)."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        return True
    os.kill(os.getpid(), signal.SIGTERM)
    return False


@needs_main_thread
def test_sigterm_cancels_a_run_and_raises_terminated_143(empty_dir):
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("SIGTERM already has a handler in this process")
    with pytest.raises(nvbench.Terminated) as ei:
        nvbench.run(empty_dir, rw="randread", size="8M", runtime=30, interval=0.2, progress=_sigterm_self)
    e = ei.value
    assert isinstance(e, SystemExit) and e.code == 143
    assert isinstance(e.result, nvbench.Result)
    assert e.result.cancelled and e.result.error["name"] == "ECANCELED"
    assert tree(empty_dir) == [], "scratch file left behind"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, "the default disposition was not restored"


@needs_main_thread
def test_a_sigterm_handler_of_the_caller_is_left_alone(empty_dir):
    seen = []

    def mine(signum, frame):
        seen.append(signum)

    old = signal.signal(signal.SIGTERM, mine)
    try:
        def progress(p):
            if not seen:
                os.kill(os.getpid(), signal.SIGTERM)
        r = nvbench.run(empty_dir, rw="randread", size="8M", runtime=0.6, interval=0.1, progress=progress)
        assert seen == [signal.SIGTERM]
        assert not r.cancelled, "nvbench acted on a SIGTERM the caller handles"
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, old)


@needs_main_thread
def test_sigterm_during_seed_matrix_removes_its_temporary_directory(tmp_path, monkeypatch):
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("SIGTERM already has a handler in this process")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    with pytest.raises(nvbench.Terminated) as ei:
        nvbench.seed_matrix(engines=["psync"], runtime=30, size="4M", interval=0.2, direct=0,
                            progress=_sigterm_self)
    e = ei.value
    assert e.code == 143
    assert isinstance(e.results, nvbench.ResultSet) and len(e.results) == 0
    assert e.result.cancelled
    assert tree(str(tmp)) == [], "the matrix's temporary directory was left behind"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


@pytest.mark.skipif(os.name == "nt", reason="no pid probe on Windows")
def test_the_next_matrix_removes_directories_of_dead_matrices_only(tmp_path):
    from nvbench import _scratch
    dead, live = _dead_pid(), os.getpid()
    stale = tmp_path / f"nvbench-matrix-{dead}-ab_12cd3"
    stale.mkdir()
    (stale / "scratch").write_bytes(b"x" * 4096)
    empty = tmp_path / f"nvbench-matrix-{dead}-0000000z"
    empty.mkdir()
    keep = [f"nvbench-matrix-{live}-abcd1234", f"nvbench-matrix-{dead}-abcd123",
            f"nvbench-matrix-{dead}-abcd1234.bak", f".nvbench-matrix-{dead}-abcd1234",
            f"nvbench-matrix-0{dead}-abcd1234", f"nvbench-matrix-{dead}-with_mor"]
    for k in keep:
        (tmp_path / k).mkdir()
        (tmp_path / k / "scratch").write_bytes(b"")
    (tmp_path / f"nvbench-matrix-{dead}-with_mor" / "notes.txt").write_text("not a matrix's")
    (tmp_path / "elsewhere").mkdir()
    os.symlink("elsewhere", tmp_path / f"nvbench-matrix-{dead}-symlink1")
    removed = _scratch.clean_stale(str(tmp_path))
    assert sorted(removed) == sorted([str(stale), str(empty)])
    left = sorted(os.listdir(tmp_path))
    assert left == sorted(keep + ["elsewhere", f"nvbench-matrix-{dead}-symlink1"])
    for k in keep:
        assert (tmp_path / k / "scratch").exists()
    with pytest.warns(RuntimeWarning, match="left by nvbench matrices that were killed"):
        stale.mkdir()
        with _scratch.scratch_file("1M", dir=str(tmp_path)) as path:
            assert os.path.basename(os.path.dirname(path)).startswith(f"nvbench-matrix-{live}-")
    assert not stale.exists()
    assert sorted(os.listdir(tmp_path)) == left
