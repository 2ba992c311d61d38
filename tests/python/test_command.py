"""The reproduce command (nvbench._command.run_command) names every key of a
result's workload that is away from its default, under the library's own
name, and running it runs the same workload: the library reads the echo
back through its key table (nvb_workload_from_json)."""

import shlex

import pytest

import nvbench
from nvbench import _nvbench
from nvbench._command import run_command

from conftest import cli

KEYS = {
    "engine": "null", "rw": "randrw", "ios": 64, "interval": "20ms", "continue_on_error": 1,
    "ss": "iops", "ss.window": "60ms", "ss.excursion": "12.5", "ss.slope": 5, "ss.stop": 1,
    "fault.rate": "1/3", "fault.errno": "ENOSPC", "fault.short": "0.1%", "fault.delay": "1ms",
    "fault.delay_rate": "0.5", "fault.seed": 9,
}


def test_ss_and_fault_keys_are_named_and_the_command_runs_the_same_workload(data_file, tmp_path):
    r = nvbench.run(data_file, options=dict(KEYS))
    wl = r.data["workload"]
    assert wl["ss"]["metric"] == "iops" and wl["fault"]["errno"] == "ENOSPC"
    cmd = run_command(r.data)
    words = shlex.split(cmd)
    assert words[:2] == ["nvbench", "run"]
    named = dict(w.split("=", 1) for w in words[2:] if "=" in w and not w.startswith(("/", ".")))
    # every key set is named, as the library shows it
    w = _nvbench.Workload()
    for k, v in KEYS.items():
        w.set(k, str(v))
        assert named.get(k) == w.get(k), (k, cmd)
    # ios alone bounded the run: no time bound, said as such
    assert named["runtime"] == "0s"
    again = cli("run", *words[2:], "--json", tmp_path / "again.json")
    assert again.returncode == 0, again.stderr
    assert nvbench.load(str(tmp_path / "again.json"))[0].data["workload"] == wl


def test_every_member_of_the_echo_comes_back_under_its_key():
    pairs, targets = _nvbench.workload_echo('{"ss":{"metric":"bw","excursion_pct":7.5},"runtime_s":0.001,'
                                            '"fault":{"delay_s":0.0005},"targets":["/x"],'
                                            '"engine_opts":{"io_uring.sqpoll":"1"}}')
    got = dict(pairs)
    assert got["ss"] == "bw" and got["ss.excursion"] == "7.5" and got["runtime"] == "1ms"
    assert got["fault.delay"] == "500000ns"
    assert got["io_uring.sqpoll"] == "1" and targets == ["/x"]
    keys = [k for k, _, _ in _nvbench.workload_keys()]
    assert [k for k, _ in pairs][:len(keys)] == keys


def test_a_member_the_library_does_not_know_is_refused_by_name():
    with pytest.raises(nvbench.NvbenchError) as ei:
        _nvbench.workload_echo('{"ss":{"excursion":5}}')
    assert "ss.excursion" in str(ei.value)
