"""nvbench gate: a regression fails only beyond the threshold and beyond noise (the library's
interval of the ratio of the means), too few repeats are "inconclusive" (exit 3), and results
of another workload, host, device or kernel are refused (exit 2). The results are synthetic
C results (tests/python/_synth.py) with chosen figures; one case reads its baseline from a
store."""
import json
import os
import subprocess
import sys

import pytest

import _synth
from nvbench.store import open_store


def cli(*args):
    e = dict(os.environ)
    e.pop("NVBENCH_DB", None)
    return subprocess.run([sys.executable, "-m", "nvbench", *args], capture_output=True, text=True,
                          timeout=120, env=e)


def write(path, iops=(), lat_ms=None, **kw):
    lat = lat_ms or [0.2] * len(iops)
    rs = [_synth.result_dict(iops=i, lat_ms=l, **kw) for i, l in zip(iops, lat)]
    path.write_text(json.dumps({"results": rs}))
    return str(path)


@pytest.fixture
def base(tmp_path):
    return write(tmp_path / "base.json", [100_000, 101_000, 99_000])


def gate(base, cand, *conds, extra=()):
    args = ["gate", "--baseline", base, "--candidate", cand, "--json"]
    for c in conds:
        args += ["--fail-if", c]
    p = cli(*args, *extra)
    return p, (json.loads(p.stdout) if p.stdout.strip() else None)


def test_a_drop_beyond_threshold_and_noise_fails(base, tmp_path):
    cand = write(tmp_path / "c.json", [80_000, 81_000, 79_000])
    p, out = gate(base, cand, "iops<-5%")
    assert p.returncode == 1, p.stderr
    row = out["conditions"][0]
    assert out["verdict"] == "fail" and row["verdict"] == "fail"
    assert row["change"] == pytest.approx(-0.2) and row["high"] < -0.05 and row["n_baseline"] == 3


def test_a_drop_within_the_threshold_passes(base, tmp_path):
    cand = write(tmp_path / "c.json", [97_000, 98_000, 96_000])
    p, out = gate(base, cand, "iops<-5%")
    assert p.returncode == 0 and out["conditions"][0]["why"] == "within the threshold"


def test_a_drop_beyond_the_threshold_within_noise_passes(base, tmp_path):
    # mean 7 % lower, but the runs spread so widely that the interval reaches the threshold
    cand = write(tmp_path / "c.json", [60_000, 93_000, 126_000])
    p, out = gate(base, cand, "iops<-5%")
    row = out["conditions"][0]
    assert row["change"] < -0.05 and row["high"] > -0.05
    assert p.returncode == 0 and row["why"] == "beyond the threshold but within noise"


def test_a_latency_rise_fails_and_the_text_says_so(base, tmp_path):
    cand = write(tmp_path / "c.json", [100_000, 101_000, 99_000], lat_ms=[0.3, 0.31, 0.29])
    p = cli("gate", "--baseline", base, "--candidate", cand, "--fail-if", "iops<-5%", "--fail-if", "lat.p99>+10%")
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert lines[0].startswith("gate: FAIL")
    assert any("lat.p99>+10%" in l and "fail" in l for l in lines)
    assert any("iops<-5%" in l and "pass" in l for l in lines)


def test_too_few_repeats_is_inconclusive(tmp_path):
    one = write(tmp_path / "one.json", [100_000])
    cand = write(tmp_path / "c.json", [50_000])
    p, out = gate(one, cand, "iops<-5%")
    assert p.returncode == 3 and out["verdict"] == "inconclusive"
    assert "at least 2" in out["conditions"][0]["why"]


@pytest.mark.parametrize("kw,word", [({"qd": 16}, "workload"), ({"engine": "io_uring"}, "workload")])
def test_unlike_workloads_are_refused(base, tmp_path, kw, word):
    cand = write(tmp_path / "c.json", [50_000, 50_000, 51_000], **kw)
    p, _ = gate(base, cand, "iops<-5%")
    assert p.returncode == 2 and "not judged" in p.stderr and f"{word}:" in p.stderr
    forced, out = gate(base, cand, "iops<-5%", extra=["--force"])
    assert forced.returncode == 1 and out["differences_forced"]


def test_another_host_is_refused(base, tmp_path):
    path = tmp_path / "c.json"
    rs = [_synth.result_dict(iops=i) for i in (50_000, 51_000)]
    for r in rs:
        r["host"] = "elsewhere"
    path.write_text(json.dumps({"results": rs}))
    p, _ = gate(base, str(path), "iops<-5%")
    assert p.returncode == 2 and "host: vm in the baseline, elsewhere in the candidate" in p.stderr.replace(
        _synth.TEMPLATE["host"], "vm")


def test_another_kernel_in_the_store_is_refused(base, tmp_path):
    db = str(tmp_path / "k.db")
    from nvbench import load
    with open_store(db) as st:
        ids = st.save(load(base), [("ci", "main")])
        st._conn.execute("UPDATE runs SET kernel = 'an-older-kernel'")
    cand = write(tmp_path / "c.json", [100_000, 100_500])
    p, out = gate("store:label.ci=main,last=3", cand, "iops<-5%", extra=["--db", db])
    # the candidate's kernel is this machine's only when its host is this machine
    import socket
    if _synth.TEMPLATE["host"] == socket.gethostname():
        assert p.returncode == 2 and "kernel: an-older-kernel in the baseline" in p.stderr
    else:
        assert p.returncode == 0 and "kernel" in out["not_checked"]
    assert len(ids) == 3


@pytest.mark.parametrize("cond", ["iops<+5%", "lat.p99>-10%", "iops<5", "rm -rf<-5%", "iops<-5%; DROP", ""])
def test_bad_conditions_exit_2(base, cond):
    p, _ = gate(base, base, cond)
    assert p.returncode == 2 and "--fail-if" in p.stderr


def test_the_example_workflows_gate_step_runs_as_written(tmp_path):
    """examples/ci/nvbench-gate.yml (docs/history.md, "In CI"): its gate step, run as written
    against a store holding main's runs, passes an unchanged candidate and fails a slower one."""
    yaml = pytest.importorskip("yaml")
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "examples", "ci", "nvbench-gate.yml")) as f:
        flow = yaml.safe_load(f)
    (step,) = [s for s in flow["jobs"]["gate"]["steps"] if s.get("name") == "gate"]
    script = step["run"].replace(".venv/bin/nvbench", f"{sys.executable} -m nvbench")
    db = tmp_path / "results.db"
    main = [_synth.result_dict(iops=i, lat_ms=0.2) for i in (100_000, 101_000, 99_000) * 3]
    with open_store(str(db)) as st:
        st.save(main, [("branch", "main")])
    env = dict(os.environ, NVBENCH_DB=str(db))
    for iops, status in ((100_500, 0), (80_000, 1)):
        write(tmp_path / "candidate.json", [iops, iops + 1000, iops - 1000])
        p = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
        assert p.returncode == status, (iops, p.stdout, p.stderr)


def test_the_gate_from_python(base, tmp_path):
    """nvbench.gate: the verdicts of the command, from files, Results or a store query; bad
    conditions and unlike sides raise ValueError naming them."""
    import nvbench
    slow = write(tmp_path / "slow.json", [80_000, 81_000, 79_000])
    v = nvbench.gate(base, slow, ["iops<-5%", "lat.p99>+10%"])
    assert v["verdict"] == "fail" and [c["verdict"] for c in v["conditions"]] == ["fail", "pass"]
    assert v["conditions"][0]["change"] == pytest.approx(-0.2, abs=0.01)
    same = nvbench.load(write(tmp_path / "same.json", [100_500, 101_000, 99_500]))
    assert nvbench.gate(nvbench.load(base), list(same), "iops<-5%")["verdict"] == "pass"
    assert nvbench.gate(base, same[0], "iops<-5%")["verdict"] == "inconclusive"  # one repeat: no interval
    db = tmp_path / "s.db"
    with open_store(str(db)) as st:
        st.save(nvbench.load(base), [("ci", "main")])
    assert nvbench.gate("store:label.ci=main", slow, "iops<-5%", db=str(db))["verdict"] == "fail"
    with pytest.raises(ValueError, match="unknown figure 'speed'"):
        nvbench.gate(base, slow, "speed<-5%")
    other = write(tmp_path / "other.json", [100_000, 101_000], engine="io_uring")
    with pytest.raises(nvbench._gate_cli.Unlike, match="workload") as e:
        nvbench.gate(base, other, "iops<-5%")
    assert e.value.why and nvbench.gate(base, other, "iops<-5%", force=True)["differences_forced"] == e.value.why
    with pytest.raises(ValueError, match="candidate .*missing.json"):
        nvbench.gate(base, str(tmp_path / "missing.json"), "iops<-5%")
