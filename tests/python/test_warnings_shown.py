"""Every warning the library puts in a result reaches the person (issue 15):
on stderr from the CLI (each distinct warning once, even over a matrix), as
an NvbenchWarning from the Python API, in a Result's repr; tables and CSV
show the queue depth an engine really ran at."""
import csv
import os
import subprocess
import sys
import warnings

import pytest

import nvbench

SYNC = "engine psync is synchronous"


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "nvbench", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, MPLBACKEND="Agg", **(env or {})))


def test_run_prints_each_warning_on_stderr(tmp_path):
    p = cli("run", "engine=psync", "qd=8", "size=1M", "ios=64", tmp_path)
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("nvbench: warning: ")]
    assert sum(SYNC in ln for ln in lines) == 1, p.stderr
    # piped: the JSON, which carries the same warnings
    import json
    assert any(SYNC in w for w in json.loads(p.stdout)["warnings"])


def test_run_on_a_terminal_prints_a_summary_and_json_on_request(tmp_path):
    # script(1) gives the command a terminal as stdout
    cmd = f"{sys.executable} -m nvbench run --no-progress engine=psync qd=4 size=1M ios=64 {tmp_path}"
    p = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout
    out = p.stdout
    assert "read: IOPS" in out and "lat: min" in out and ", mean " in out and "p99.9" in out and "cpu: nvbench" in out, out
    assert "qd 4 (runs as 1)" in out
    # 64 I/Os: p50 stands, p99 and p99.9 have too few I/Os beyond their ranks
    assert "p50 " in out and "p99 n/a (n<1,000)" in out and "p99.9 n/a (n<10,000)" in out, out
    assert not out.lstrip().startswith("{")
    p = subprocess.run(["script", "-qec", cmd.replace("run ", "run --print-json "), "/dev/null"],
                       capture_output=True, text=True, timeout=120)
    assert p.stdout.lstrip().startswith("{"), p.stdout[:200]


def test_run_help_lists_the_librarys_keys():
    p = cli("run", "--help")
    assert p.returncode == 0
    for name, _kind, _doc in nvbench._nvbench.workload_keys():
        assert name in p.stdout, name
    assert "docs/api.md" in p.stdout


def test_python_run_issues_nvbench_warnings_and_repr_shows_them(tmp_path):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        r = nvbench.run(tmp_path, engine="psync", qd=8, size="1M", ios=64)
    texts = [str(w.message) for w in got if issubclass(w.category, nvbench.NvbenchWarning)]
    assert sum(SYNC in t for t in texts) == 1, texts
    assert SYNC in repr(r)


def test_matrix_issues_each_warning_once_and_shows_effective_qd(tmp_path):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        rs = nvbench.matrix(tmp_path, engines=["psync"], rw=["randread", "randwrite"], bs=["4k"], qd=[8],
                            size="1M", ios=32)
    sync = [str(w.message) for w in got if SYNC in str(w.message)]
    assert len(sync) == 1 and "2 of 2 runs" in sync[0], sync
    assert "psync (qd 1)" in rs.table()
    path = rs.to_csv(tmp_path / "m.csv")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert {r["qd"] for r in rows} == {"8"} and {r["qd_effective"] for r in rows} == {"1"}


def test_figures_that_differ_group_into_one_line_with_their_range():
    from nvbench._warnings import grouped
    a = {"warnings": ["the machine was not quiet: 64.4% of all CPU time", "x"]}
    b = {"warnings": ["the machine was not quiet: 80.5% of all CPU time"]}
    lines = grouped([a, b])
    assert lines[0].startswith("the machine was not quiet: 64.4-80.5% of all CPU time"), lines
    assert len(lines) == 2
