"""The machine's CPU per I/O by kind and the environment reach Python
(docs/cpu.md): the result object shows cpu.per_io_us, cpu.per_cpu and
environment as the library wrote them, they survive a save and a load, and
the summary prints the by-kind line (n/a with the reason when null)."""
import math

import nvbench
from nvbench._summary import summary


def _run(tmp_path, **keys):
    target = tmp_path / "t.dat"
    with open(target, "wb") as f:
        f.write(b"\1" * (1 << 20))
    kw = dict(engine="psync", rw="randread", bs="4k", runtime="300ms", direct=0)
    kw.update(keys)
    return nvbench.run(str(target), **kw)


def test_kinds_and_environment_in_the_result(tmp_path):
    r = _run(tmp_path)
    k = r.cpu.per_io_us
    env = r.environment
    assert env.kernel_release.source == "/proc/sys/kernel/osrelease"
    assert "devices" in env.to_dict()
    if k.busy is None:
        assert k.null_reason
        return
    parts = k.user + k.system + k.irq + k.softirq
    assert math.isclose(parts, k.busy, rel_tol=1e-9)
    rows = r.cpu.per_cpu
    assert len(rows) > 0
    for kind in ("user", "system", "irq", "softirq", "iowait", "steal"):
        assert math.isclose(sum(row[kind] for row in rows), k[kind], rel_tol=1e-9, abs_tol=1e-12)
    back = nvbench.Result.from_json(r.to_json())
    assert back.cpu.per_io_us.to_dict() == k.to_dict()
    assert back.environment.to_dict() == env.to_dict()
    text = summary(r.data)
    assert "machine CPU per I/O: " in text and " softirq" in text
    assert "interrupts per I/O: " in text
    assert back.interrupts.to_dict() == r.interrupts.to_dict()


def test_summary_says_why_kinds_are_null():
    data = {"engine": "psync", "rw": "randread", "read": {"ios": 0}, "duration_s": 0.001,
            "cpu": {"ncpus": 2, "process_cores": 0.5, "cpu_us_per_io": None, "system_pct": None,
                    "system_null_reason": "not measured: few ticks",
                    "per_io_us": {"busy": None, "null_reason": "not measured on Windows: reason"}}}
    text = summary(data)
    assert "machine CPU per I/O by kind: n/a (not measured on Windows: reason)" in text
    assert "0 us =" not in text


def test_counters_in_the_result_and_the_summary(tmp_path):
    """cpu.counters reaches Python as written, reads back, and the summary
    prints it per I/O with the hardware counters' reason when they are null."""
    r = _run(tmp_path)
    c = r.cpu.counters
    back = nvbench.Result.from_json(r.to_json())
    assert back.cpu.counters.to_dict() == c.to_dict()
    text = summary(r.data)
    if c.null_reason:
        assert c.null_reason.startswith("unavailable: ")
        assert f"CPU counters: {c.null_reason}" in text
        return
    ios = r.data["total"]["ios"]
    assert c.task_clock_ns > 0
    assert math.isclose(c.task_clock_us_per_io, c.task_clock_ns / 1e3 / ios, rel_tol=1e-6)
    assert "CPU counters per I/O: " in text and "us on a CPU (task clock)" in text
    if c.cycles is None:
        assert c.hardware_null_reason.startswith("unavailable: perf_event_open(cycles) failed with E")
        assert f"cycles, instructions: {c.hardware_null_reason}" in text
    else:
        assert math.isclose(c.cycles_per_io, c.cycles / ios, rel_tol=1e-6)


def test_summary_without_counters_is_unchanged():
    data = {"engine": "psync", "rw": "randread", "read": {"ios": 0}, "duration_s": 0.001,
            "cpu": {"ncpus": 2, "process_cores": 0.5, "cpu_us_per_io": None, "system_pct": None}}
    assert "CPU counters" not in summary(data)
