"""`nvbench doctor`: the library's environment facts and checks printed with advice, on this
machine and on a recorded two-node tree (tests/data/explain/two-node)."""
import json
import os

from nvbench.cli import main
from nvbench._doctor_cli import environment

TREE = os.path.join(os.path.dirname(__file__), "..", "data", "explain", "two-node")


def test_doctor_on_recorded_tree(capsys):
    assert main(["doctor", "--root", TREE, "nvme0n1"]) == 0
    out = capsys.readouterr().out
    assert "recorded tree" in out
    assert "scheduler mq-deadline on nvme0n1" in out
    assert "advice: none is the usual choice for benchmarks" in out
    assert "cpu_governor" in out and "performance" in out and "[/sys/devices/system/cpu/cpu0/cpufreq" in out
    assert "1 warning(s)" in out


def test_doctor_json_is_the_library_s(capsys):
    assert main(["doctor", "--json", "--root", TREE, "nvme0n1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == environment(["nvme0n1"], root=TREE)
    assert doc["environment"]["devices"]["nvme0n1"]["numa_node"]["value"] == 1


def test_doctor_on_this_machine(capsys, tmp_path):
    f = tmp_path / "t.dat"
    f.write_bytes(b"\0" * 4096)
    assert main(["doctor", str(f)]) == 0
    out = capsys.readouterr().out
    assert "this machine" in out and "kernel_release" in out and "checks:" in out
    # a fact this machine does not have is n/a with its reason, never a made-up value
    doc = environment([str(f)])
    for k, v in doc["environment"].items():
        if k != "devices" and v["value"] is None:
            assert v["null_reason"]
