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

from ._published import SEED_LOGICAL_CPUS, SEED_STACKS, published
from .resultset import ResultSet

__all__ = ["reference", "SEED_LOGICAL_CPUS", "SEED_STACKS"]


def reference(stacks=None, cells=None, ops=None):
    """The published figures as a ResultSet (32 results: 4 stacks x 4 cells x read/write).

    ``stacks``, ``cells``, ``ops``: optional lists to keep only some of them, e.g.
    ``reference(stacks=["linux_io_uring"], ops=["read"])``.
    """
    return ResultSet(published(stacks, cells, ops))
