"""fio's exitall and exit_what (`nvbench run --fio`): the end of a job stops others, mapped to
the library's exitall keys, run on scratch files and, where fio is installed, side by side with
fio 3.33 on the same file."""
import pytest

from nvbench.fio_job import FioJobError, from_fio_job, run_fio_job

from test_fio_job import scratch_dir as scratch
from test_fio_sched import FIO, job
from test_fio_sched import fio_jobs as fio_list


def fio_jobs(jobfile, cwd):
    """{job name: fio's report of it}, running the job file in cwd."""
    return {j["jobname"]: j for j in fio_list(jobfile, cwd)}


def nvb_groups(jobfile, cwd, monkeypatch):
    """{job name: its result} of nvbench running the job file in cwd."""
    monkeypatch.chdir(cwd)
    rs = run_fio_job(jobfile)
    out = {}
    for r in rs:
        assert not r.data.get("error"), r.data.get("error")
        for g in r.data.get("groups") or [r.data]:
            out[g["workload"]["name"]] = g
    return out


def keys(path_or_text, tmp_path=None):
    if tmp_path is not None:
        p = tmp_path / "t.fio"
        p.write_text(path_or_text)
        path_or_text = str(p)
    return [[(w["fio"]["section"], w.get("exitall"), w.get("exitall_group")) for w in step]
            for step in from_fio_job(path_or_text)]


def test_keys_by_exit_what_and_reporting_group():
    """exit_what=stonewall is the step; group (fio's default) the job's reporting group, which
    new_group starts; exit_what=all drops the later steps, saying so on the job that ends them."""
    assert keys(job("exitall-step")) == [[("short", "step", None), ("long", "group", "1")]]
    assert keys(job("exitall-group")) == [[("short", "group", "0"), ("cut", "group", "0"),
                                            ("counted", "group", "1")]]
    steps = from_fio_job(job("exitall-all"))
    assert [[w["fio"]["section"] for w in s] for s in steps] == [["first"], ["stop-all"]]
    assert steps[1][0]["exitall"] == "step"
    assert any("[never] never runs" in t for t in steps[1][0]["fio"]["warnings"])


def test_one_job_with_exitall_gives_every_job_the_stop(tmp_path):
    """fio 3.33 has one switch for the whole file: once a job sets exitall, the end of any job
    stops its group (a job without exitall that ends first stopped the others, measured)."""
    text = "[global]\nioengine=null\nsize=1m\n[a]\nexitall\n[b]\nnumber_ios=50\n[c]\nnew_group\n"
    assert keys(text, tmp_path) == [[("a", "group", "0"), ("b", "group", "0"), ("c", "group", "1")]]
    # without exitall anywhere, exit_what changes nothing (as in fio)
    assert keys("[global]\nioengine=null\nsize=1m\n[a]\nexit_what=all\n[b]\nstonewall\n", tmp_path) == \
        [[("a", None, None)], [("b", None, None)]]


def test_exit_what_values(tmp_path):
    p = tmp_path / "t.fio"
    p.write_text("[a]\nioengine=null\nsize=1m\nexitall\nexit_what=everything\n")
    with pytest.raises(FioJobError, match=r"exit_what.*'everything': fio takes group, stonewall or all"):
        from_fio_job(str(p))


def test_stonewall_scope_stops_the_step(tmp_path, monkeypatch):
    """[long] (runtime 30 s) stops when [short] ends, as in fio 3.33; the run is not a
    cancellation: no error, and [long]'s result names the group that stopped it."""
    got = nvb_groups(job("exitall-step"), scratch(tmp_path, "exitall.dat"), monkeypatch)
    assert got["short"]["read"]["ios"] == 200
    long_ = got["long"]
    assert any("stopped when group 'short' ended" in w for w in long_["warnings"]), long_["warnings"]
    assert long_["read"]["ios"] > 0 and long_["duration_s"] < 30
    if FIO:
        (tmp_path / "fio").mkdir()
        f = fio_jobs(job("exitall-step"), scratch(tmp_path / "fio", "exitall.dat"))
        assert f["short"]["read"]["total_ios"] == 200 and f["long"]["job_runtime"] < 30000


def test_group_scope_spares_other_groups(tmp_path, monkeypatch):
    """[short]'s end stops [cut] (its reporting group) and not [counted] (new_group), which does
    all its 200 I/Os: the I/O counts of fio 3.33 on the same file."""
    got = nvb_groups(job("exitall-group"), scratch(tmp_path, "exitall.dat"), monkeypatch)
    assert got["short"]["read"]["ios"] == 50 and got["counted"]["read"]["ios"] == 200
    assert any("stopped when group 'short' ended" in w for w in got["cut"]["warnings"])
    assert got["cut"]["duration_s"] < 30
    assert not any("exitall" in w for w in got["counted"]["warnings"])
    if FIO:
        (tmp_path / "fio").mkdir()
        f = fio_jobs(job("exitall-group"), scratch(tmp_path / "fio", "exitall.dat"))
        assert (f["short"]["read"]["total_ios"], f["counted"]["read"]["total_ios"]) == (50, 200)
        assert f["cut"]["job_runtime"] < 30000


def test_all_scope_later_steps_never_run(tmp_path, monkeypatch):
    """exit_what=all: fio 3.33 reports [never] with no I/O; nvbench runs the two steps before."""
    got = nvb_groups(job("exitall-all"), scratch(tmp_path, "exitall.dat"), monkeypatch)
    assert sorted(got) == ["first", "stop-all"]
    assert got["first"]["read"]["ios"] == got["stop-all"]["read"]["ios"] == 100
    if FIO:
        (tmp_path / "fio").mkdir()
        f = fio_jobs(job("exitall-all"), scratch(tmp_path / "fio", "exitall.dat"))
        assert f["never"]["read"]["total_ios"] == 0 and f["stop-all"]["read"]["total_ios"] == 100


def test_rate_under_whole_blocks_on_a_mixed_job(tmp_path, monkeypatch):
    """rate=5k on a randrw job of 4 KiB blocks: fio 3.33 caps reads and writes each at 1.25
    blocks a second (5 reads and 5 writes in 4 s, measured); nvbench caps both together at
    rate_iops=5 per rate_period=2s, the same I/Os in all, as exact a schedule (a closed one:
    an I/O is not issued before its time)."""
    [[w]] = from_fio_job(job("rate-slow"))
    assert (w["rate_iops"], w["rate_period"], w["rate_mode"]) == ("5", "2s", "closed")
    assert w["fio"]["origin"]["rate_period"] == "rate"
    got = nvb_groups(job("rate-slow"), scratch(tmp_path, "rate.dat"), monkeypatch)["slow"]
    n = got["read"]["ios"] + got["write"]["ios"]
    assert got["read"]["ios"] > 0 and got["write"]["ios"] > 0
    assert n <= 11  # never ahead of the schedule: I/Os at 0, 0.4, ..., 3.6 s of the 4 s
    if FIO:
        (tmp_path / "fio").mkdir()
        f = fio_jobs(job("rate-slow"), scratch(tmp_path / "fio", "rate.dat"))["slow"]
        assert f["read"]["total_ios"] > 0 and f["write"]["total_ios"] > 0
        assert f["read"]["total_ios"] + f["write"]["total_ios"] <= 11
