"""Ctrl-C during a run: the run is cancelled cleanly (in-flight I/O drained,
scratch file removed) and KeyboardInterrupt carries the partial result."""
import json
import os
import signal
import subprocess
import sys
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
            nvbench.run(empty_dir, rw="randwrite", bs="4k", qd=8, size="16M", runtime=30)
    finally:
        timer.cancel()
    elapsed = time.monotonic() - t0
    assert elapsed < 5, f"KeyboardInterrupt only after {elapsed:.1f}s"
    r = ei.value.result
    assert isinstance(r, nvbench.Result)
    assert r.cancelled and r.write.ios > 0 and r.error["name"] == "ECANCELED"
    assert r.duration_s < 5
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
