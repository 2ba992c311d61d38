"""JSON text as the library reads it (RFC 8259), for what Python parses itself.

What lies around the library's results (a result set, a list) and fio's output
is parsed here; the results themselves are read by the library's own parser
(see :mod:`nvbench.loading`).
"""

import errno
import json
import math
import os
import stat
import signal

from .errors import NvbenchError

__all__ = ["NotJSON", "strict_json", "parse_json_text", "parse_text", "read_text", "utf8", "write_text"]


class NotJSON(ValueError):
    """Text that Python's json module reads but RFC 8259 (and the library) refuse."""


def _unique_keys(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise NotJSON(f"duplicate key {k!r} in an object")
        d[k] = v
    return d


def _no_constant(name):
    raise NotJSON(f"{name} is not a JSON number")


def _finite(text):
    v = float(text)
    if math.isinf(v):
        raise NotJSON(f"the number {text[:40]} does not fit in a double")
    return v


def strict_json(text, unique_keys=True):
    # Only what RFC 8259 allows: what lies around the results (a result set, a
    # list) is held to the rule the library holds each result to, so that no
    # second value of a key, no NaN and no Infinity hides behind the one the
    # library is shown.
    return json.loads(text, parse_constant=_no_constant, parse_float=_finite,
                      object_pairs_hook=_unique_keys if unique_keys else None)


def parse_json_text(text, loads):
    """(loads(text), the text it was parsed from)."""
    try:
        return loads(text), text
    except NotJSON:
        raise
    except json.JSONDecodeError:
        # fio prints notes ("fio: ...") before the JSON when stderr and stdout are mixed.
        lines = text.splitlines(True)
        for i, line in enumerate(lines):
            if line.startswith("{"):
                rest = "".join(lines[i:])
                return loads(rest), rest
        raise


def parse_text(text, unique_keys=True):
    """A JSON document held to RFC 8259 (``unique_keys=False``: a repeated key keeps
    its last value, as fio's output needs); notes printed before it are skipped."""
    return parse_json_text(text, lambda t: strict_json(t, unique_keys))[0]


def _not_utf8(e):
    return NvbenchError(errno.EINVAL, f"result JSON: not UTF-8: byte 0x{e.object[e.start]:02x} at byte {e.start}")


def utf8(data):
    """bytes as text; bytes that are not UTF-8 raise NvbenchError (EINVAL) naming
    the first, as the library's parser does, never UnicodeDecodeError."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _not_utf8(e) from None


def read_text(path_or_file, limit=None, what="the file"):
    """The whole text of a path or of an open file (text or binary, UTF-8).
    limit: at most that many bytes (characters of a text file) are read; a
    longer one is refused (ValueError naming the limit) without reading the
    rest, nor, for a path, reading any of it."""
    if hasattr(path_or_file, "read"):
        try:
            text = path_or_file.read() if limit is None else path_or_file.read(limit + 1)
        except UnicodeDecodeError as e:  # a file opened as text
            raise _not_utf8(e) from None
        if limit is not None and len(text) > limit:
            raise ValueError(_too_big(what, limit))
    else:
        with open(path_or_file, "rb") as f:
            if limit is not None:
                try:
                    size = os.fstat(f.fileno()).st_size
                except OSError:
                    size = 0
                if size > limit:
                    raise ValueError(_too_big(what, limit, size))
                text = f.read(limit + 1)
                if len(text) > limit:  # not a regular file: its size said nothing
                    raise ValueError(_too_big(what, limit))
            else:
                text = f.read()
    return utf8(text) if isinstance(text, bytes) else text


def _too_big(what, limit, size=None):
    held = f" ({size} bytes)" if size is not None else ""
    return f"{what}{held} is larger than the {limit} bytes ({limit >> 20} MiB) nvbench reads from one file"


def _quiet_signals():
    """Block SIGINT and SIGTERM (where the OS lets a thread do so); the old
    mask, or None. A signal that arrives meanwhile waits, and its handler
    runs once they are unblocked."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        return None
    wanted = {s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s is not None}
    try:
        return mask(signal.SIG_BLOCK, wanted)
    except (OSError, ValueError):
        return None


def _free_bytes(directory):
    try:
        st = os.statvfs(directory)
    except (AttributeError, OSError):
        return None
    return st.f_bavail * st.f_frsize


def _write_error(e, path, needed):
    """The OSError of a failed write, naming the file, the size it needed
    and (when the file system is full) the room there was."""
    where = os.path.dirname(os.path.abspath(path))
    room = ""
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        free = _free_bytes(where)
        room = f"; {free} bytes free in {where}" if free is not None else ""
    return OSError(e.errno, f"cannot write {path} ({needed} bytes needed{room}): {e.strerror or e}; "
                            "nothing was written there")


def _create_beside(path):
    """A new temporary file beside path: (its name, its descriptor). O_EXCL:
    never through a file or a symlink already at the name (one left by a
    process of the same pid gets a suffix)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    base = f"{path}.tmp{os.getpid()}"
    for n in range(100):
        tmp = base if n == 0 else f"{base}-{n}"
        try:
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"{base} and 99 more names beside it are taken")


def write_text(path_or_file, text):
    """Write text to an open text file, or to a path (UTF-8) whole or not at all:
    through a temporary file beside it (<path>.tmp<pid>), renamed over it. The
    temporary file is removed whatever stops the write (a full file system, an
    error, Ctrl-C, SIGTERM under sigterm_cancels); the OSError of a failed write
    names the path and the bytes it needed. Returns path_or_file."""
    if hasattr(path_or_file, "write"):
        path_or_file.write(text)
        return path_or_file
    path = os.fspath(path_or_file)
    data = text.encode("utf-8")
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        special = False
    if special:  # /dev/null, a FIFO, a terminal: written to, never renamed over (as root that would replace it)
        try:
            with open(path, "wb") as f:
                f.write(data)
        except OSError as e:
            raise _write_error(e, path, len(data)) from None
        return path_or_file
    made = False
    try:
        # Made and noted with SIGINT/SIGTERM held back: a handler that raises
        # cannot run between the file's creation and the note that it is ours.
        old = _quiet_signals()
        try:
            tmp, fd = _create_beside(path)
            made = True
        finally:
            if old is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
        with open(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        made = False
    except OSError as e:
        raise _write_error(e, path, len(data)) from None
    finally:
        if made:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return path_or_file
