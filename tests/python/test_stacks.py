"""nvbench.stacks: the published four columns from a Linux file and two Windows files,
and `nvbench compare --table` on saved files."""

import copy
import json
import os
import subprocess
import sys

import pytest

import _pkg
import _synth  # first: makes nvbench importable without the C extension
from nvbench.result import Result
from nvbench.resultset import ResultSet
from nvbench.stacks import COLUMNS, four_stacks

DATA = _synth.DATA

needs_extension = pytest.mark.skipif(_pkg.EXTENSION_MISSING, reason="nvbench._nvbench is not built: "
                                     "load reads nvbench results with the library's parser")


def _c_result():
    with open(os.path.join(DATA, "c-psync-randread.json")) as f:
        return json.load(f)


def _run(engine, stack=None, source="detected"):
    d = copy.deepcopy(_c_result())
    d["engine"] = d["workload"]["engine"] = engine
    if stack is not None:
        d["engine_used"] = {"stack": stack, "stack_source": source}
    return d


def _set(*runs):
    return ResultSet(Result(d) for d in runs)


def test_columns_in_the_published_order_with_their_stacks():
    lin = _set(_run("io_uring"), _run("libaio"))
    nat = _set(_run("iocp", "windows_native"), _run("wsync", "windows_native"))
    non = _set(_run("iocp", "windows_non_native", "stated"))
    rs = four_stacks(lin, nat, non)
    assert rs.stacks == list(COLUMNS.values())
    assert [r.meta["seed_stack"] for r in rs] == list(COLUMNS)
    # iocp makes the Windows columns when it ran (fio's windowsaio is IOCP)
    assert {r.engine for r in rs.filter(stack="Win native")} == {"iocp"}
    # the labels are not the published figures' own stack names
    assert not set(COLUMNS.values()) & set(COLUMNS)


def test_windows_engine_chosen_or_refused():
    lin = _set(_run("libaio"))
    nat = _set(_run("iocp", "windows_native"), _run("wsync", "windows_native"))
    non = _set(_run("wsync", "windows_non_native"))
    rs = four_stacks(lin, nat, non, windows_engine="wsync")
    assert {r.engine for r in rs if r.meta["seed_stack"].startswith("windows")} == {"wsync"}
    with pytest.raises(ValueError, match=r"b\.json: no iocp run \(it has wsync\)"):
        four_stacks(lin, nat, non, paths=("a.json", "c.json", "b.json"), windows_engine="iocp")


@pytest.mark.parametrize("found, words", [
    ("windows_non_native", "went through the windows_non_native stack"),
    ("unknown", "could not be detected there); run seed_matrix.exe again with --stack windows_native"),
    ("mixed", "it is mixed"),
    (None, "could not be detected"),
])
def test_a_windows_file_that_does_not_say_its_stack_is_refused(found, words):
    lin = _set(_run("libaio"))
    nat = _set(_run("iocp", found) if found else _run("iocp"))
    non = _set(_run("iocp", "windows_non_native"))
    with pytest.raises(ValueError, match="native.json: .*" + words.replace("(", r"\(").replace(")", r"\)")):
        four_stacks(lin, nat, non, paths=("linux.json", "native.json", "non.json"))


def test_files_in_the_wrong_places_are_refused():
    lin = _set(_run("libaio"))
    win = _set(_run("iocp", "windows_native"))
    with pytest.raises(ValueError, match="w.json: holds iocp runs, a Windows engine"):
        four_stacks(win, win, win, paths=("w.json", "n.json", "x.json"))
    with pytest.raises(ValueError, match="l.json: no libaio or io_uring run"):
        four_stacks(_set(_run("psync")), win, win, paths=("l.json", "n.json", "x.json"))
    with pytest.raises(ValueError, match="n.json: no run of a Windows engine"):
        four_stacks(lin, lin, win, paths=("l.json", "n.json", "x.json"))


@needs_extension
def test_compare_table_command(tmp_path):
    paths = []
    for name, runs in (("linux", [_run("libaio"), _run("io_uring")]),
                       ("native", [_run("iocp", "windows_native")]),
                       ("non", [_run("iocp", "windows_non_native", "stated")])):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps({"results": runs}))
        paths.append(str(p))
    cmd = [sys.executable, "-m", "nvbench", "compare", "--table"]
    out = subprocess.run(cmd + paths + ["--report", str(tmp_path / "r.html")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0]
    assert [head.index(c) for c in COLUMNS.values()] == sorted(head.index(c) for c in COLUMNS.values())
    html = (tmp_path / "r.html").read_text()
    assert all(c in html for c in COLUMNS.values()) and "windows_native" in html  # the published column too
    bad = subprocess.run(cmd + paths[:2], capture_output=True, text=True)
    assert bad.returncode != 0 and "three files" in bad.stderr
    swapped = subprocess.run(cmd + [paths[0], paths[2], paths[1]], capture_output=True, text=True)
    assert swapped.returncode != 0 and "non.json: its runs went through the windows_non_native stack (stated)" \
        in swapped.stderr


def _repeats(engine, stack=None, n=3):
    out = []
    for i in range(n):
        d = _run(engine, stack)
        d["read"]["iops"] *= 1 + 0.01 * i  # repeats that differ a little
        out.append(d)
    return out


def test_repeats_give_intervals_and_cpu_rows_under_total_cpu():
    rs = four_stacks(_set(*_repeats("libaio")), _set(*_repeats("iocp", "windows_native")),
                     _set(*_repeats("iocp", "windows_non_native")))
    table = rs.table(fmt="text")
    rows = [line.split("  ")[0] for line in table.splitlines()]
    t = rows.index("Total CPU Usage (%)")
    assert rows[t + 3:t + 5] == ["CPU per I/O (us)", "IOPS per core"], rows
    iops = next(line for line in table.splitlines() if line.startswith("IOPS "))
    assert iops.count("±") + iops.count("[") == 3, iops  # each of the three columns has its interval


@needs_extension
def test_report_four_stacks(tmp_path):
    paths = []
    for name, runs in (("linux", _repeats("io_uring")), ("native", _repeats("iocp", "windows_native")),
                       ("non", _repeats("iocp", "windows_non_native"))):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps({"results": runs}))
        paths.append(str(p))
    out = subprocess.run([sys.executable, "-m", "nvbench", "report", "--four-stacks", *paths,
                          "-o", str(tmp_path / "r.html")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    html = (tmp_path / "r.html").read_text()
    assert "Win non-native" in html and "Win native" in html and "Linux io_uring" in html
    assert "Random 4K read" in html and " [" in html  # the repeats' intervals
    bad = subprocess.run([sys.executable, "-m", "nvbench", "report", "--four-stacks", paths[1], paths[0], paths[2]],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "native.json: holds iocp runs, a Windows engine" in bad.stderr
