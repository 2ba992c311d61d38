"""The published figures nvbench exists to reproduce, as a ResultSet.

Two storage benchmark articles (December 2025) compared Windows Server 2025's storage
stacks with Linux's on one server, with fio: random 4K, random 64K, sequential 64K and
sequential 128K, each read and write, reporting bandwidth, IOPS, average latency and
total CPU usage per stack. ``reference()`` returns those 32 figures so that

    (my_results + nvbench.reference()).table()

puts a user's results beside the published ones.

The seed machine: 2 x AMD EPYC 9754 (2 x 128 cores, SMT: 512 logical CPUs),
768 GB DDR5-4800, 15 x Solidigm P5316 30.72 TB NVMe (PCIe 4.0 x4) as a JBOD.
Stacks (``meta["stack"]``; ``engine`` in brackets): ``windows_non_native``
(``storport_miniport``: Disk.sys -> Storport -> NVMe miniport), ``windows_native``
(``nvmedisk_stormq``: NVMeDisk.sys -> StorMQ), ``linux_libaio`` (``libaio``) and
``linux_io_uring`` (``io_uring``), the last two on Ubuntu Server 24.04.4, kernel 6.8.

Derived figures. The articles give whole-system CPU (percent of all 512 logical CPUs),
not the benchmark process's CPU, so:

* busy logical CPUs  = total_cpu_pct / 100 * 512 (stored as ``cpu.busy_cpus``)
* ``cpu_us_per_io``  = busy logical CPUs * 1e6 / IOPS
* ``iops_per_core``  = IOPS / busy logical CPUs

These count every busy CPU of the machine (interrupts, kernel threads, other programs),
so they are upper (CPU per I/O) and lower (IOPS per core) bounds of what nvbench's
process-only figures would have been. ``process_cores`` is unknown (NaN), as are the
latency percentiles, queue depths and job counts, which the articles do not give.
"""

from __future__ import annotations

import csv
import io
import os

from .result import Result
from .resultset import ResultSet

__all__ = ["reference", "SEED_LOGICAL_CPUS", "SEED_STACKS"]

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


def reference(stacks=None, cells=None, ops=None):
    """The published figures as a ResultSet (32 results: 4 stacks x 4 cells x read/write).

    ``stacks``, ``cells``, ``ops``: optional lists to keep only some of them, e.g.
    ``reference(stacks=["linux_io_uring"], ops=["read"])``.
    """
    out = ResultSet()
    for row in _read_csv():
        if stacks is not None and row["stack"] not in stacks:
            continue
        if cells is not None and row["workload"] not in cells:
            continue
        if ops is not None and row["op"] not in ops:
            continue
        out.append(_result(row))
    return out
