"""A scratch file laid out once and shared by many runs.

A directory target makes the library lay out (and remove) a scratch file for
every run; a matrix of 24 short cells would spend most of its time writing
them. This lays one out, with incompressible data so reads hit real blocks,
and removes it (and its temporary directory) afterwards, also on Ctrl-C.
"""
import contextlib
import os
import shutil
import tempfile

from . import _nvbench

_CHUNK = 1 << 20


def parse_size(size):
    """Bytes for a size ("512M", 4096), parsed by the library itself so the
    rules and the error message (NvbenchError naming 'size') are the same."""
    if isinstance(size, bool):
        raise TypeError("a size cannot be a bool")
    if isinstance(size, int):
        return size
    w = _nvbench.Workload()
    w.set("size", str(size))
    return int(w.get("size"))


def _lay_out(path, nbytes):
    pattern = bytearray(os.urandom(_CHUNK))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        off = 0
        while off < nbytes:
            n = min(_CHUNK, nbytes - off)
            pattern[:8] = off.to_bytes(8, "little")  # no two blocks alike
            view = memoryview(pattern)[:n]
            while view:
                written = os.write(fd, view)
                view = view[written:]
            off += n
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def scratch_file(size="512M", dir=None):
    """Yield the path of a new file of `size` bytes in a new temporary
    directory (under `dir`, or the system's temporary directory)."""
    nbytes = parse_size(size)
    if nbytes <= 0:
        raise ValueError(f"scratch file size must be positive, not {size!r}")
    tmpdir = tempfile.mkdtemp(prefix="nvbench-", dir=dir)
    try:
        path = os.path.join(tmpdir, "scratch")
        _lay_out(path, nbytes)
        yield path
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
