"""CPU figures that were not measured are null in the result and "n/a" in
every printer, never 0 (issue 23, findings 6 and 7): a run of 10 I/Os is
far shorter than one /proc/stat tick, so the machine's shares are null with
the reason; a share of this process is never above the machine's total."""
import math

import nvbench
from nvbench._summary import summary
from types import SimpleNamespace

from nvbench.metrics import figures


def _short_run(tmp_path, **keys):
    target = tmp_path / "t.dat"
    with open(target, "wb") as f:
        f.write(b"\1" * (1 << 20))
    kw = dict(engine="psync", rw="randread", bs="4k", ios=10, direct=0)
    kw.update(keys)
    return nvbench.run(str(target), **kw)


def test_short_run_has_null_shares_with_a_reason(tmp_path):
    r = _short_run(tmp_path)
    cpu = r.data["cpu"]
    if cpu["system_pct"] is not None:  # the machine was slow enough for 10 ticks per CPU: then consistent
        assert cpu["nvbench_pct"] <= cpu["system_pct"]
        return
    for k in ("user_pct", "sys_pct", "irq_pct", "iowait_pct", "steal_pct", "idle_pct", "background_pct"):
        assert cpu[k] is None, k
    assert "USER_HZ" in cpu["system_null_reason"]
    assert not any("not quiet" in w for w in r.data["warnings"])
    text = summary(r.data)
    assert "machine n/a % busy" in text and "USER_HZ" in text
    assert "machine 0.0 % busy" not in text


def test_summary_prints_null_as_na_not_zero():
    data = {"engine": "psync", "rw": "randread", "read": {"ios": 0}, "duration_s": 0.0001,
            "cpu": {"ncpus": 2, "process_cores": 0.9, "nvbench_pct": 45.0, "cpu_us_per_io": None,
                    "iops_per_core": None, "system_pct": None, "background_pct": None,
                    "system_null_reason": "not measured: ticks of 10 ms (USER_HZ 100)"}}
    text = summary(data)
    line = next(l for l in text.splitlines() if l.strip().startswith("cpu:"))
    assert "n/a us per I/O" in line and "machine n/a % busy" in line, line
    assert " 0 us per I/O" not in line and "0.0 % busy" not in line
    assert "USER_HZ 100" in text


def test_table_share_never_above_total(tmp_path):
    data = {"engine": "psync", "rw": "randread", "read": {"ios": 100, "iops": 100.0, "bw_bytes_s": 409600.0},
            "duration_s": 1.0,
            "cpu": {"ncpus": 2, "process_cores": 0.448, "nvbench_pct": 22.4, "system_pct": 22.4,
                    "background_pct": 0.0, "cpu_us_per_io": 4480.0, "iops_per_core": 223.2}}
    row = figures(SimpleNamespace(meta={}, data=data))
    assert row["cpu_nvbench_pct"] <= row["cpu_total_pct"]
    data["cpu"].update(system_pct=None, background_pct=None, nvbench_pct=22.4)
    row = figures(SimpleNamespace(meta={}, data=data))
    assert math.isnan(row["cpu_total_pct"]) and math.isnan(row["cpu_others_pct"])
