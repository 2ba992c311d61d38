"""A scratch file laid out once and shared by many runs.

A directory target makes the library lay out (and remove) a scratch file for
every run; a matrix of 24 short cells would spend most of its time writing
them. This lays one out, with incompressible data so reads hit real blocks,
and removes it (and its temporary directory) afterwards, also on Ctrl-C and
on SIGTERM (nvbench.Terminated).

The temporary directory is named nvbench-matrix-<pid>-<8 random characters>,
as the library names its scratch files .nvbench-scratch-<pid>-<16 hex>.tmp:
a process killed outright (SIGKILL, power loss) leaves 512 MiB behind, and
the pid lets the next matrix tell a dead owner's directory from a live one's
and remove it (clean_stale). The C example seed_matrix names its directory
the same way and sweeps by the same rule (examples/c/seed_tmpdir.h).
"""
import contextlib
import errno
import os
import re
import shutil
import stat
import tempfile
import warnings

from . import _nvbench

_CHUNK = 1 << 20


def parse_size(size):
    """Bytes for a size ("512M", 4096), parsed by the library itself so the
    rules and the error message (NvbenchError naming 'size') are the same."""
    if isinstance(size, bool):
        raise TypeError("a size cannot be a bool")
    if isinstance(size, int):
        return size
    return _nvbench.key_parse("size", str(size))


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


_PREFIX = "nvbench-matrix-"
_FILE = "scratch"
# tempfile.mkdtemp's random part: 8 characters of [a-z0-9_].
_STALE = re.compile(r"nvbench-matrix-([1-9][0-9]{0,9})-[a-z0-9_]{8}\Z")


def _pid_gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # EPERM: it exists, another user's
        return False
    return False


def clean_stale(parent):
    """Remove the temporary directories in `parent` left by matrices whose
    process no longer exists; returns their paths.

    The rule is the library's for its scratch files: the name matches the
    pattern exactly, the pid is not ours and does not exist here, and it is
    a directory (not a symlink) owned by this user, holding nothing but the
    scratch file (a regular file): anything else was not put there by a
    matrix, and the directory stays as it is. The same caveat as
    the library's: a temporary directory shared by machines or PID
    namespaces could hold a live matrix's directory whose pid is not ours to
    see. Not on Windows, where os.kill(pid, 0) would end the process."""
    removed = []
    if os.name == "nt":
        return removed
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    me, euid = os.getpid(), os.geteuid()
    for name in names:
        m = _STALE.match(name)
        if not m or int(m.group(1)) == me or not _pid_gone(int(m.group(1))):
            continue
        path = os.path.join(parent, name)
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != euid:
                continue
            inside = os.listdir(path)
            if inside not in ([], [_FILE]):
                continue
            if inside:
                inner = os.path.join(path, _FILE)
                if not stat.S_ISREG(os.lstat(inner).st_mode):
                    continue
                os.unlink(inner)
            os.rmdir(path)
        except OSError:
            continue
        removed.append(path)
    return removed


def _remove_tree(path):
    """rmtree that a Ctrl-C or SIGTERM arriving in the middle cannot leave
    half done: it is finished, then the interruption goes on."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


def _no_room(e, parent, nbytes):
    """ENOSPC laying out the scratch file, as an error that says where and how much."""
    try:
        st = os.statvfs(parent)
        free = f"{st.f_bavail * st.f_frsize} bytes are free there"
    except OSError:
        free = "its free space is unknown"
    return OSError(e.errno, f"no room for the matrix's scratch file of {nbytes} bytes in '{parent}' "
                            f"({os.strerror(e.errno)}; {free}): set TMPDIR to a directory with room, "
                            f"give a directory target, or a smaller size", parent)


@contextlib.contextmanager
def scratch_file(size="512M", dir=None):
    """Yield the path of a new file of `size` bytes in a new temporary
    directory (under `dir`, or the system's temporary directory), after
    removing the directories there that killed matrices left behind."""
    nbytes = parse_size(size)
    if nbytes <= 0:
        raise ValueError(f"scratch file size must be positive, not {size!r}")
    parent = dir if dir is not None else tempfile.gettempdir()
    stale = clean_stale(parent)
    if stale:
        warnings.warn(f"removed {len(stale)} temporary director{'y' if len(stale) == 1 else 'ies'} in "
                      f"'{parent}' left by nvbench matrices that were killed", RuntimeWarning, stacklevel=3)
    tmpdir = None
    try:
        try:
            tmpdir = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=parent)
            path = os.path.join(tmpdir, _FILE)
            _lay_out(path, nbytes)
        except OSError as e:
            if e.errno not in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
                raise
            if tmpdir is not None:  # the free space without the partial file
                _remove_tree(tmpdir)
                tmpdir = None
            raise _no_room(e, parent, nbytes) from None
        yield path
    finally:
        if tmpdir is not None:
            _remove_tree(tmpdir)
