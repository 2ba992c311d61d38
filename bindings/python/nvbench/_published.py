"""The published seed figures as Result objects (read from data/seed-results.csv).

What they are and how the derived figures are computed is told in
:mod:`nvbench.reference`, which offers them as a ResultSet. They live here, below
``ResultSet``, so that what ResultSet uses (the HTML report) can put them beside
the results without importing it back.
"""

from __future__ import annotations

import csv
import io
import os

from .result import Result

__all__ = ["published", "SEED_LOGICAL_CPUS", "SEED_STACKS"]

SEED_LOGICAL_CPUS = 512
SEED_STACKS = ("windows_non_native", "windows_native", "linux_libaio", "linux_io_uring")

_ENGINE = {"windows_non_native": "storport_miniport", "windows_native": "nvmedisk_stormq",
           "linux_libaio": "libaio", "linux_io_uring": "io_uring"}
_BS = {"rand4k": 4096, "rand64k": 65536, "seq64k": 65536, "seq128k": 131072}
_CSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "seed-results.csv")


def _read_csv():
    try:
        from importlib import resources
        text = resources.files(__package__).joinpath("data/seed-results.csv").read_text("utf-8")
    except (ImportError, AttributeError, FileNotFoundError, TypeError):
        with open(_CSV, encoding="utf-8") as f:
            text = f.read()
    return list(csv.DictReader(io.StringIO(text)))


def _result(row):
    stack, cell, op = row["stack"], row["workload"], row["op"]
    bw, iops = float(row["bw_gib_s"]), float(row["iops"])
    lat_ms, cpu_pct = float(row["avg_lat_ms"]), float(row["total_cpu_pct"])
    bs = _BS[cell]
    rw = ("rand" if cell.startswith("rand") else "") + op
    busy = cpu_pct / 100.0 * SEED_LOGICAL_CPUS
    direction = {"iops": iops, "bw_gib_s": bw, "bw_bytes_s": bw * 2**30,
                 "lat_ns": {"mean": lat_ms * 1e6}}
    data = {
        "source": "reference",
        "engine": _ENGINE[stack],
        "workload": {"engine": _ENGINE[stack], "rw": rw, "bs": bs},
        op: direction,
        "cpu": {"system_pct": cpu_pct, "ncpus": SEED_LOGICAL_CPUS, "busy_cpus": busy,
                "cpu_us_per_io": busy * 1e6 / iops, "iops_per_core": iops / busy},
        "warnings": [],
        "cancelled": False,
        "reference": {"published": "2025-12", "tool": "fio",
                      "os": "Windows Server 2025" if stack.startswith("windows")
                      else "Ubuntu Server 24.04.4, kernel 6.8"},
    }
    meta = {"stack": stack, "engine": _ENGINE[stack], "cell": cell, "op": op, "rw": rw,
            "bs": bs, "qd": None, "jobs": None, "repeat": 0, "target": "15 x Solidigm P5316"}
    return Result(data, meta)


def _keep(value, wanted):
    return wanted is None or value in wanted


def published(stacks=None, cells=None, ops=None):
    """The published figures as a list of Result (see :func:`nvbench.reference.reference`)."""
    return [_result(row) for row in _read_csv()
            if _keep(row["stack"], stacks) and _keep(row["workload"], cells) and _keep(row["op"], ops)]
