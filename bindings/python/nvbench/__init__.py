"""nvbench: what NVMe drives and the storage stack deliver, and at what CPU cost.

>>> import nvbench
>>> nvbench.engines()
{'psync': (True, ''), 'libaio': (True, ''), 'io_uring': (True, ''), 'null': (True, '')}
>>> r = nvbench.run("/dev/nvme0n1", engine="io_uring", rw="randread", bs="4k", qd=32, runtime=2)
>>> r.read.iops, r.read.lat_ns.p99, r.cpu.cpu_us_per_io
>>> rs = nvbench.seed_matrix(engines=["libaio", "io_uring"], runtime=2, repeat=3)
>>> print(rs.table())

The measurement is libnvbench's, linked into the C extension nvbench._nvbench;
this package is the pure-Python API over it. See docs/python.md.
"""
from . import _nvbench
from .errors import NvbenchError, NvbenchWarning, Terminated, VerifyError
from .core import run, run_groups, validate, engines, available_engines
from .matrix import matrix, seed_matrix, SEED_CELLS
from .result import Result
from .resultset import ResultSet
from .loading import load
from . import results  # the module before the split, for code that imports from it
from .merge import merge
from .search import search
from . import mpi  # mpi4py is imported only when nvbench.mpi is used
from ._devices import devices, device
from .fio_job import from_fio_job, run_fio_job, FioJobError
from .store import history, open_store, points, StoreError
from ._gate_cli import gate
from .live import LiveView

__version__ = _nvbench.version()

__all__ = [
    "__version__", "engines", "available_engines", "devices", "device", "run", "run_groups", "validate", "matrix",
    "seed_matrix", "SEED_CELLS", "load", "reference", "Result", "ResultSet", "NvbenchError", "NvbenchWarning",
    "Terminated", "VerifyError",
    "merge", "mpi", "search", "from_fio_job", "run_fio_job", "FioJobError",
    "history", "open_store", "points", "StoreError", "gate", "LiveView",
]

try:
    from .reference import reference
except ImportError:  # its optional dependencies are missing: say so when called
    def reference(*args, **kwargs):
        """The published figures (docs/analysis.md, the seed comparison) as a ResultSet (nvbench.reference)."""
        from .reference import reference as _reference
        return _reference(*args, **kwargs)
