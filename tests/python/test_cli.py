"""The nvbench command: outputs and exit codes (0 ok, 2 bad input, 1 failure,
130 interrupted: see test_cancel.py)."""
import csv
import json
import os
import pty
import re
import struct
import shutil
import tempfile
import termios
import fcntl
import subprocess
import sys

import pytest

import nvbench

from conftest import ROOT, check_c_result, cli, digest, tree

MATRIX_FAST = ["--runtime", "150ms", "--size", "8M", "--qd", "4"]
BLOCKS = ["Random 4K read", "Random 64K read", "Sequential 64K read", "Sequential 128K read",
          "Random 4K write", "Random 64K write", "Sequential 64K write", "Sequential 128K write"]


def test_version_and_help():
    p = cli("--version")
    assert p.returncode == 0 and nvbench.__version__ in p.stdout
    p = cli()
    assert p.returncode == 2 and "engines" in p.stderr


def test_engines():
    p = cli("engines")
    assert p.returncode == 0
    for name in nvbench.engines():
        assert name in p.stdout
    p = cli("engines", "--json")
    listed = json.loads(p.stdout)
    assert {e["name"] for e in listed} == set(nvbench.engines())


def test_devices():
    p = cli("devices")
    assert p.returncode == 0, p.stderr
    assert isinstance(json.loads(cli("devices", "--json").stdout), list)
    root = os.path.join(ROOT, "tests", "data", "sysfs", "pcie-nvme", "sys")
    if os.path.isdir(root):
        p = cli("devices", "--sysfs-root", root)
        assert p.returncode == 0 and "/dev/nvme0n1" in p.stdout and "nvme" in p.stdout
        assert len(json.loads(cli("devices", "--json", "--sysfs-root", root).stdout)) >= 1
    p = cli("devices", "--sysfs-root", "/nonexistent-sysfs")
    assert p.returncode == 2 and "/nonexistent-sysfs" in p.stderr
    # the table shows what --json has: a loop device's backing file and what a device holds
    root = os.path.join(ROOT, "tests", "data", "sysfs", "vm", "sys")
    if os.path.isdir(root):
        p = cli("devices", "--sysfs-root", root)
        loop1 = next(ln for ln in p.stdout.splitlines() if ln.startswith("/dev/loop1 "))
        assert "backed by /var/tmp/ext4.img" in loop1 and "holds ext4 'scratch' (filesystem)" in loop1, loop1


def test_run_prints_the_c_result(data_file, tmp_path, schema):
    out = tmp_path / "r.json"
    p = cli("run", "engine=psync", "rw=randread", "bs=4k", "runtime=200ms", data_file, "--json", out)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    check_c_result(r, schema)
    assert "meta" not in r and r["read"]["ios"] > 0
    saved = json.loads(out.read_text())
    assert len(saved["results"]) == 1
    check_c_result(saved["results"][0], schema)
    assert saved["results"][0]["meta"]["cell"] == "rand4k"


@pytest.mark.parametrize("args,words", [
    (["bs=0"], ["bs", "0"]),
    (["blocksize=4k"], ["blocksize"]),
    (["engine=spdk"], ["spdk"]),
    (["runtime=2parsecs"], ["runtime", "2parsecs"]),
    (["rw=randwrite", "bs=1000"], ["bs", "1000"]),
    (["rw=randwrite", "runtime=0"], ["runtime"]),
])
def test_run_bad_input_exits_2_with_the_message(args, words, data_file):
    before = digest(data_file)
    p = cli("run", *args, data_file)
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    for w in words:
        assert w in p.stderr
    assert digest(data_file) == before


def test_run_missing_or_no_target_exits_2(empty_dir):
    missing = os.path.join(empty_dir, "nope")
    p = cli("run", "rw=randwrite", missing)
    assert p.returncode == 2 and missing in p.stderr
    p = cli("run", "rw=randwrite")
    assert p.returncode == 2 and "target" in p.stderr
    assert tree(empty_dir) == []


def test_run_without_target_where_the_engine_needs_none(empty_dir):
    """The null engine opens nothing: a run without a target is its virtual region (the
    library decides who needs a target, as every front door asks it)."""
    out = os.path.join(empty_dir, "r.json")
    p = cli("run", "engine=null", "ios=2000", "--no-progress", "--json", out)
    assert p.returncode == 0, p.stderr
    [r] = json.load(open(out))["results"]
    assert r["total"]["ios"] == 2000
    assert [t["path"] for t in r["per_target"]] == ["(null)"]


@pytest.fixture(scope="module")
def matrix_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("matrix")
    target = d / "target"
    target.mkdir()
    files = {k: d / f"m.{k}" for k in ("json", "csv", "png")}
    files["latency"] = d / "lat.png"
    p = cli("matrix", "--engines", "psync", "--target", target, *MATRIX_FAST, "--json", files["json"],
            "--csv", files["csv"], "--plot", files["png"], "--plot-latency", files["latency"])
    return p, files, target


def test_matrix_prints_the_seed_table(matrix_run):
    p, files, target = matrix_run
    assert p.returncode == 0, p.stderr
    pos = [p.stdout.index(b) for b in BLOCKS]
    assert pos == sorted(pos)
    for row in ("Bandwidth (GiB/s)", "IOPS", "Average Latency (ms)", "Total CPU Usage (%)"):
        assert row in p.stdout
    assert "psync" in p.stdout
    assert "\r" not in p.stderr, "a progress bar was drawn on a pipe"
    assert tree(target) == [], "scratch file left in the target directory"


def test_matrix_json_has_one_c_result_per_run(matrix_run, schema):
    _, files, _ = matrix_run
    doc = json.loads(files["json"].read_text())
    assert len(doc["results"]) == 8
    for r in doc["results"]:
        check_c_result(r, schema)
    assert [(r["meta"]["cell"], r["meta"]["op"]) for r in doc["results"]][:2] == [("rand4k", "read"),
                                                                                   ("rand64k", "read")]
    assert len(nvbench.load(files["json"])) == 8


def test_matrix_csv_and_plot(matrix_run):
    _, files, _ = matrix_run
    with open(files["csv"]) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8 and {"cell", "op", "stack"} <= set(rows[0])
    assert files["png"].stat().st_size > 1000 and files["latency"].stat().st_size > 1000
    # exactly the files asked for: no m-efficiency.png beside them
    assert sorted(f.name for f in files["png"].parent.iterdir() if f.is_file()) == \
        ["lat.png", "m.csv", "m.json", "m.png"]


def test_summary_names_the_precondition(tmp_path):
    """The summary says which preconditioning ran and what it wrote."""
    f = tmp_path / "t.dat"
    out = tmp_path / "r.json"
    common = ["run", "engine=psync", "rw=randread", "bs=4k", "size=4m", "ios=32", "direct=0", str(f),
              "--summary", "--no-progress", "--json", out]
    p = cli(*common, "precondition=random", "sprandom.op=0.2", "sprandom.regions=10")
    assert p.returncode == 0, p.stderr
    pre = json.loads(out.read_text())["results"][0]["precondition"]
    assert pre["bytes"] == 1228 * 4096 and pre["regions"] == 10 and pre["rewrites"] == 1228 - 1024
    assert "precondition: random, planned invalidation over 10 regions (204 rewrites), 4 KiB writes, " in p.stdout
    p = cli(*common, "precondition=1")
    assert p.returncode == 0, p.stderr
    assert "precondition: 1 sequential pass, 128 KiB writes, 4 MiB written in" in p.stdout, p.stdout


def test_matrix_preconditions_and_judges_the_write_cells(tmp_path):
    out = tmp_path / "ss.json"
    p = cli("matrix", "--engines", "psync", "--runtime", "3s", "--size", "4M", "--qd", "2", "--precondition", "2",
            "--steady-state", "iops", "--ss-window", "300ms", "--interval", "100ms", "--json", out)
    assert p.returncode == 0, p.stderr
    results = json.loads(out.read_text())["results"]
    assert len(results) == 8
    for r in results:
        if r["meta"]["op"] == "read":
            assert r["precondition"] is None and r["steady_state"] is None
            continue
        assert r["precondition"]["passes"] == 2 and r["precondition"]["bytes"] == 2 * (4 << 20)
        ss = r["steady_state"]
        assert ss["metric"] == "iops" and r["workload"]["ss"]["stop"] == 1
        # one line per judged cell, saying which it was
        line = f"{r['meta']['cell']} write psync: " + ("steady (iops) at" if ss["reached"] else "NOT steady")
        assert line in p.stderr, p.stderr
        # stopped there, or reached by the run's last window only (judged once more at its end)
        assert not ss["stopped"] or ss["reached"]
        if ss["reached"] and not ss["stopped"]:
            assert ss["at_s"] == max(t["t_s"] for t in r["timeseries"] if t["dt_s"] >= 0.05)
    bad = cli("matrix", "--engines", "psync", "--ss-window", "5m")
    assert bad.returncode == 2 and "--steady-state" in bad.stderr


def test_matrix_default_uses_every_engine_on_a_temporary_scratch(tmp_path):
    env_tmp = tmp_path / "tmp"
    env_tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(env_tmp), MPLBACKEND="Agg")
    p = subprocess.run([sys.executable, "-m", "nvbench", "matrix", "--runtime", "50ms", "--size", "4M",
                        "--qd", "2"], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    header = p.stdout.splitlines()[0]
    for engine in nvbench.available_engines():
        assert engine in header
    assert "null" not in header
    assert tree(env_tmp) == [], "temporary scratch directory not removed"


@pytest.mark.parametrize("args,code,words", [
    (["--engines", "nosuch"], 2, ["nosuch"]),
    (["--runtime", "soon"], 2, ["runtime", "soon"]),
    (["--size", "lots"], 2, ["size", "lots"]),
    (["--repeat", "0"], 2, ["repeat"]),
    (["--target", "/nonexistent/nvbench-target"], 2, ["/nonexistent/nvbench-target"]),
])
def test_matrix_bad_input_exits_2(args, code, words):
    p = cli("matrix", "--engines", "psync", *MATRIX_FAST, *args)
    assert p.returncode == code, p.stderr
    for w in words:
        assert w in p.stderr


def test_matrix_unwritable_output_exits_1(tmp_path):
    p = cli("matrix", "--engines", "null", "--runtime", "20ms", "--size", "4M",
            "--json", tmp_path / "no" / "such" / "dir.json")
    assert p.returncode == 1 and "dir.json" in p.stderr


def test_progress_bar_on_a_terminal_only(data_file):
    pytest.importorskip("tqdm")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    try:
        p = subprocess.run([sys.executable, "-m", "nvbench", "run", "runtime=600ms", "interval=100ms",
                            data_file], stdout=subprocess.PIPE, stderr=slave, timeout=60)
        os.close(slave)
        slave = None
        drawn = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
    assert p.returncode == 0
    # one run: its seconds of the total and its live IOPS, not "0.51/1 runs"
    assert b"/0.6 s" in drawn and b"IOPS" in drawn and b"%" in drawn, drawn[-300:]
    assert b"/1 run" not in drawn
    json.loads(p.stdout)  # the bar never goes to stdout


def test_progress_text_names_the_run_its_time_and_iops():
    from nvbench._progress import Bar
    snap = {"elapsed_s": 1.25, "total_s": 2.0, "read_iops": 1000.0, "write_iops": 234.0}
    assert Bar(1, enabled=False).describe(0, "psync randread 4k", snap) == \
        "psync randread 4k: 1.2/2.0 s, 1,234 IOPS"
    assert Bar(16, enabled=False).describe(2, "io_uring rand4k read", snap) == \
        "run 3/16 io_uring rand4k read: 1.2/2.0 s, 1,234 IOPS"


def test_compare_two_files(tmp_path, available):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    other = "libaio" if "libaio" in available else "psync"
    for path, eng in ((a, "psync"), (b, other)):
        p = cli("matrix", "--engines", eng, "--runtime", "50ms", "--size", "4M", "--qd", "2",
                "--repeat", "2", "--json", path)
        assert p.returncode == 0, p.stderr
    p = cli("compare", a, b)
    assert p.returncode == 0, p.stderr
    assert f"b:{other} (B) vs a:psync (A)" in p.stdout
    assert "Random 4K read" in p.stdout
    header = next(ln for ln in p.stdout.splitlines() if "Metric" in ln)
    # psync runs at qd 1 whatever --qd asks: the heading says the qd it ran at
    assert "a:psync (qd 1) (A) mean" in header and "B mean" in header and "B vs A" in header
    assert "Verdict" in header
    # relabelled: the headline use, one stack per file under names the user gives
    p = cli("compare", a, b, "--stack", "linux-psync", "windows-iocp", "--label", "lin", "win")
    assert p.returncode == 0, p.stderr
    assert "win:windows-iocp (B) vs lin:linux-psync (A)" in p.stdout


def test_compare_refuses_workloads_that_differ_in_more_than_the_stack(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, qd in ((a, "1"), (b, "4")):
        p = cli("run", "--json", path, "engine=null", "qd=" + qd, "ios=1000", tmp_path)
        assert p.returncode == 0, p.stderr
    p = cli("compare", a, b)
    assert p.returncode == 2 and "qd 1 in a but 4 in b" in p.stderr and "--force" in p.stderr, p.stderr
    p = cli("compare", a, b, "--force")
    assert p.returncode == 0 and "warning: the workloads differ" in p.stderr, p.stderr


def _synth_file(path, engine, cell="rand4k", op="read", scope=None, runs=2):
    import _synth
    from nvbench.results import Result, ResultSet
    rs = ResultSet()
    for rep in range(runs):
        d = _synth.result_dict(engine=engine, cell=cell, op=op, iops=1e5 * (1 + rep / 10))
        if scope:  # as nvbench.fio builds a result of fio's JSON
            d["cpu"]["scope"], d["source"] = scope, "fio"
        rs.append(Result(d, {"repeat": rep}))
    rs.save(str(path))


def test_compare_of_files_with_no_cell_in_common_fails_and_lists_them(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    _synth_file(a, "libaio", "rand4k", "read")
    _synth_file(b, "libaio", "seq128k", "write", runs=1)
    p = cli("compare", a, b)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "no cell in common" in p.stderr, p.stderr
    assert f"{a}: Random 4K read (2 runs)" in p.stderr and f"{b}: Sequential 128K write (1 run)" in p.stderr, \
        p.stderr


def test_compare_marks_fio_thread_only_cpu(tmp_path):
    from nvbench.fio import THREAD_CPU_SCOPE
    a, b = tmp_path / "nvb.json", tmp_path / "fio.json"
    _synth_file(a, "libaio")
    _synth_file(b, "libaio", scope=THREAD_CPU_SCOPE)
    p = cli("compare", a, b, "--stack", "nvbench", "fio")
    assert p.returncode == 0, p.stderr
    cpu = [ln for ln in p.stdout.splitlines() if "CPU" in ln and "fio:fio" in ln]
    assert cpu and all(re.search(r"\d\*\s", ln) for ln in cpu), p.stdout
    iops = [ln for ln in p.stdout.splitlines() if ln.strip().startswith("IOPS  ")]
    assert iops and "*" not in "".join(iops), p.stdout
    assert f"* CPU figures: {THREAD_CPU_SCOPE}" in p.stdout and "RUSAGE_THREAD" in p.stdout, p.stdout
    # the report's comparison card marks them too, and says why once
    p = cli("report", a, b, "-o", tmp_path / "r.html")
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    compare = text[text.index('id="compare"'):]
    compare = compare[:compare.index("</section>")]
    rows = re.findall(r"<tr><th>([^<]+)</th>(.*?)</tr>", compare)
    marked = {label for label, cells in rows if re.search(r"\d\*</td>", cells)}
    assert marked == {"Total CPU Usage (%)", "CPU per I/O (us)", "IOPS per core"}, rows
    assert f"CPU figures: {THREAD_CPU_SCOPE}" in compare


def test_run_summary_piped_on_request_with_fios_figures(tmp_path):
    # `nvbench run --summary ... | tee log`: the summary, not the JSON, whatever stdout is
    saved = tmp_path / "r.json"
    p = cli("run", "--summary", "--no-progress", "--json", saved, "engine=null", "rw=randread", "runtime=0.3s",
            "interval=50ms", tmp_path)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert not out.lstrip().startswith("{") and out.startswith("null randread"), out[:300]
    d = json.loads(saved.read_text())["results"][0]
    lat = d["read"]["lat_ns"]
    # stdev, and every percentile the result holds, each by its name
    assert "stdev (population) " in out, out
    for key in ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "p99.99",
                "p99.999"):
        assert key in lat and re.search(rf"[ ,]{re.escape(key)} (\d|n/a)", out), (key, out)
    # the intervals' spread: as many samples as the time series has, its min and max IOPS
    from nvbench._summary import _si
    n = len(d["timeseries"])
    iops = [pt["read"]["iops"] for pt in d["timeseries"]]
    line = next(ln for ln in out.splitlines() if "per interval" in ln)
    assert f"per interval ({n} samples): IOPS min {_si(min(iops))}, max {_si(max(iops))}, mean " in line, line
    assert "stdev " in line and re.search(r"^\s+BW min .* stdev ", out, re.M), out
    # either flag, not both
    p = cli("run", "--summary", "--print-json", "engine=null", "ios=10", tmp_path)
    assert p.returncode == 2 and "not allowed with" in p.stderr, p.stderr
    p = cli("run", "--print-json", "engine=null", "ios=10", tmp_path)
    assert p.returncode == 0 and json.loads(p.stdout)["read"]["ios"] == 10


def _block_device_under(path):
    """The kernel name of the block device under path's file system, or None (tmpfs, overlay)."""
    st = os.stat(path)
    link = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    return os.path.basename(os.readlink(link)) if os.path.exists(link) else None


def test_run_measures_the_device_utilisation_or_says_why_not(tmp_path):
    # a file target: the device under its file system, busy with our direct reads
    saved = tmp_path / "r.json"
    p = cli("run", "--summary", "--no-progress", "--json", saved, "engine=psync", "rw=randread", "size=4M",
            "runtime=0.3s", tmp_path)
    assert p.returncode == 0, p.stderr
    t = json.loads(saved.read_text())["results"][0]["per_target"][0]
    dev = _block_device_under(tmp_path)
    if dev:
        assert t["util_dev"] == dev and t["util_why"] is None, t
        assert 0 < t["util_pct"] <= 100, t
        assert f"disk {dev}: util {t['util_pct']:.1f} %" in p.stdout, p.stdout
    else:
        assert t["util_pct"] is None and "no block device" in t["util_why"], t
        assert "util n/a (the file system is on no block device" in p.stdout, p.stdout
    # loaded back through the library's parser, the figures stay
    back = nvbench.load(str(saved))[0].data["per_target"][0]
    assert {k: back[k] for k in ("util_dev", "util_pct", "util_why")} == \
        {k: t[k] for k in ("util_dev", "util_pct", "util_why")}
    # where there is no figure: null, with the reason, never 0
    p = cli("run", "--print-json", "engine=null", "ios=100", tmp_path)
    t = json.loads(p.stdout)["per_target"][0]
    assert t["util_pct"] is None and "null engine" in t["util_why"], t
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK) and not _block_device_under(shm):
        d = tempfile.mkdtemp(dir=shm)
        try:
            p = cli("run", "--print-json", "engine=psync", "direct=0", "size=1M", "runtime=0.2s", d)
            assert p.returncode == 0, p.stderr
            t = json.loads(p.stdout)["per_target"][0]
            assert t["util_pct"] is None and "no block device" in t["util_why"], t
        finally:
            shutil.rmtree(d)


def test_compare_bad_input_exits_2(tmp_path):
    p = cli("compare", tmp_path / "missing-a.json", tmp_path / "missing-b.json")
    assert p.returncode == 2 and "missing-a.json" in p.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{\"nothing\": 1}")
    p = cli("compare", bad, bad)
    assert p.returncode == 2
    garbage = tmp_path / "garbage.json"
    garbage.write_text("not json")
    p = cli("compare", garbage, bad)
    assert p.returncode == 2 and "garbage.json" in p.stderr, p.stderr


def test_a_key_given_twice_is_refused_by_name(tmp_path):
    p = cli("run", "engine=null", "qd=1", "qd=2", "ios=10", tmp_path)
    assert p.returncode == 2 and "key 'qd' given twice ('1' and '2')" in p.stderr, p.stderr


def test_unknown_engine_gets_a_suggestion(tmp_path):
    p = cli("run", "engine=iouring", "ios=10", tmp_path)
    assert p.returncode == 2 and "did you mean 'io_uring'?" in p.stderr, p.stderr


def test_matrix_names_the_engines_of_another_os_once(tmp_path):
    # wsync, iocp and ioring are Windows engines (psync the POSIX one on Windows): a matrix
    # here says so in one line, not a "skipped" line each
    other = [n for n, (ok, why) in nvbench.engines().items() if not ok and "Windows" in why]
    if len(other) < 2:
        pytest.skip("fewer than two engines of another OS in this build")
    p = cli("matrix", "--runtime", "20ms", "--size", "1M", "--cells", "rand4k_read", "--target", tmp_path,
            "--no-progress", timeout=300)
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if any(n in ln for n in other)]
    assert len(lines) == 1, p.stderr
    assert all(n in lines[0] for n in other) and "for another operating system" in lines[0], lines


def test_matrix_picks_cells_and_says_engine_in_the_singular(tmp_path):
    p = cli("matrix", "--engines", "null", "--runtime", "1", "--size", "1M", "--cells", "rand4k_read,seq128k",
            "--target", tmp_path, "--no-progress")
    # null does no I/O on a file, but the matrix header and cells are what is checked
    header = p.stderr.splitlines()[0] if p.stderr else ""
    assert "1 engine (null) x 3 cells x 1 repeat, 1s each" in header, p.stderr
    p = cli("matrix", "--cells", "rand5k")
    assert p.returncode == 2 and "unknown seed cell 'rand5k'" in p.stderr


def test_load_names_the_file_it_could_not_read(tmp_path):
    bad = tmp_path / "garbage.json"
    bad.write_text("not json")
    with pytest.raises(ValueError, match="garbage.json: not JSON"):
        nvbench.load(bad)


# ---- verify=1 (issue 22, finding 4): bad data is a failure; the read-back reads what was written

def test_run_exits_1_on_a_verify_mismatch_after_the_result(tmp_path):
    p = tmp_path / "foreign.dat"
    p.write_bytes(os.urandom(1 << 20))
    out = tmp_path / "res.json"
    r = cli("run", "--json", out, "engine=psync", "rw=read", "bs=4k", "ios=16", "verify=1", p)
    assert r.returncode == 1, r.stderr  # was 0: `nvbench run ... && echo OK` never caught bad data
    assert "verify failed: verify: 16 of 16 blocks read did not match" in r.stderr
    assert json.loads(r.stdout)["verify"]["mismatches"] == 16  # the result is written first
    assert nvbench.load(str(out))[0].data["verify"]["mismatches"] == 16  # and --json saved
    # a verified read of what a verify=1 write wrote exits 0
    assert cli("run", "engine=psync", "rw=write", "bs=4k", "ios=256", "verify=1", p).returncode == 0
    r = cli("run", "engine=psync", "rw=read", "bs=4k", "ios=256", "verify=1", p)
    assert r.returncode == 0 and json.loads(r.stdout)["verify"]["checked"] == 256, r.stderr


def test_fio_read_back_of_offset_increment_clones_reads_what_they_wrote(tmp_path):
    # fio writes 0..2m and 8m..10m and verifies exactly those; nvbench's writers took
    # interleaved stripes from block 0 and its readers read 0..2m and 8m..10m:
    # "512 of 1024 blocks did not match"
    t = tmp_path / "t.dat"
    t.write_bytes(os.urandom(16 << 20))
    job = tmp_path / "clones.fio"
    job.write_text(f"[w]\nfilename={t}\nrw=write\nbs=4k\nsize=8m\nnumjobs=2\noffset_increment=8m\n"
                   "io_size=2m\nverify=crc32c\n")
    r = cli("run", "--fio", job)
    assert r.returncode == 0, r.stderr
    back = json.loads(r.stdout)["results"][-1]
    assert back["verify"]["checked"] == 1024 and back["verify"]["mismatches"] == 0, back["verify"]


def test_fio_verify_mismatch_exits_1_and_a_file_named_twice_is_refused(tmp_path):
    t = tmp_path / "a.dat"
    t.write_bytes(os.urandom(1 << 20))
    before = digest(t)
    job = tmp_path / "bad.fio"
    job.write_text(f"[r]\nfilename={t}\nrw=read\nbs=4k\nsize=64k\nverify=crc32c\n")
    r = cli("run", "--fio", job)
    assert r.returncode == 1 and "verify failed" in r.stderr, r.stderr
    assert json.loads(r.stdout)["results"][0]["verify"]["mismatches"] == 16
    job.write_text(f"[w]\nfilename={t}:{t}\nrw=randwrite\nbs=4k\nsize=64k\nverify=crc32c\ndo_verify=0\n")
    r = cli("run", "--fio", job)
    assert r.returncode == 2 and "are the same file" in r.stderr, r.stderr
    assert digest(t) == before


def test_matrix_random_preconditioning(tmp_path):
    """nvbench matrix --precondition random: the write cell is preconditioned in one
    random pass (regions in its result), the read cell is not; a wrong word is refused."""
    out = tmp_path / "pre.json"
    p = cli("matrix", "--engines", "psync", "--runtime", "300ms", "--size", "4M", "--qd", "2", "--cells", "rand4k",
            "--precondition", "random", "--json", out)
    assert p.returncode == 0, p.stderr
    results = json.loads(out.read_text())["results"]
    assert [r["meta"]["op"] for r in results] == ["read", "write"]
    assert results[0]["precondition"] is None
    pre = results[1]["precondition"]
    assert pre["regions"] >= 1 and pre["rewrites"] > 0 and pre["bytes"] >= 4 << 20
    p = cli("matrix", "--engines", "psync", "--precondition", "rand")
    assert p.returncode == 2 and "'rand'" in p.stderr and "random" in p.stderr
