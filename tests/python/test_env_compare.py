"""`nvbench compare` warns when the compared results ran in unlike environments (docs/cpu.md):
a scheduler, governor, polling, mitigations or node that differs changes the figures."""
import subprocess
import sys

import _synth
from nvbench.results import Result, ResultSet
from nvbench._env_compare import differences


def _env(sched="none", gov="performance", mit="off"):
    f = lambda v, src: {"value": v, "source": src}
    return {"cpu_governor": f(gov, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            "mitigations": f(mit, "/proc/cmdline"),
            "devices": {"nvme0n1": {"scheduler": f(sched, "/sys/class/block/nvme0n1/queue/scheduler")}}}


def test_differences_name_the_fact_and_what_it_changes():
    a = [{"environment": _env()}]
    b = [{"environment": _env(sched="mq-deadline")}]
    w = differences(a, b, "a", "b")
    assert len(w) == 1 and "scheduler is none in a, mq-deadline in b" in w[0] and "CPU per I/O" in w[0]
    assert differences(a, [{"environment": _env()}]) == []
    # a result from before the environment was recorded: not judged
    assert differences(a, [{}]) == []
    w = differences([{"environment": _env(mit="auto")}], a)
    assert any("mitigations" in x for x in w)


def _file(path, env):
    rs = ResultSet()
    for rep in range(2):
        d = _synth.result_dict(engine="libaio", cell="rand4k", op="read", iops=1e5 * (1 + rep / 10))
        d["environment"] = env
        rs.append(Result(d, {"repeat": rep}))
    rs.save(str(path))


def test_compare_refuses_unlike_environments_without_force(tmp_path):
    """A scheduler or governor that differs changes the figures compared: compare refuses
    (exit 2, naming each fact, no table printed); with --force it compares and warns. A fact
    that is only a warning (write_cache) does not refuse; results without an environment are
    not judged."""
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    _file(a, _env())
    _file(b, _env(sched="mq-deadline", gov="powersave"))
    cmd = [sys.executable, "-m", "nvbench", "compare"]
    p = subprocess.run(cmd + [str(a), str(b)], capture_output=True, text=True)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stdout == ""
    assert "environment differs: cpu_governor is performance in a, powersave in b" in p.stderr
    assert "environment differs: scheduler is none in a, mq-deadline in b" in p.stderr
    assert "--force compares anyway" in p.stderr
    wb, wt = _env(), _env()
    wb["devices"]["nvme0n1"]["write_cache"] = {"value": "write back", "source": "x"}
    wt["devices"]["nvme0n1"]["write_cache"] = {"value": "write through", "source": "x"}
    _file(a, wb)
    _file(c, wt)
    p = subprocess.run(cmd + [str(a), str(c)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "warning: environment differs: write_cache is write back in a, write through in c" in p.stderr
    d = tmp_path / "d.json"
    _file(d, {})
    p = subprocess.run(cmd + [str(b), str(d)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_compare_warns_on_unlike_environments(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    _file(a, _env())
    _file(b, _env(sched="mq-deadline", gov="powersave"))
    p = subprocess.run([sys.executable, "-m", "nvbench", "compare", str(a), str(b), "--force"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "warning: environment differs: cpu_governor is performance in a, powersave in b" in p.stderr, p.stderr
    assert "warning: environment differs: scheduler is none in a, mq-deadline in b" in p.stderr, p.stderr
