"""JSON text as the library reads it (RFC 8259), for what Python parses itself.

What lies around the library's results (a result set, a list) and fio's output
is parsed here; the results themselves are read by the library's own parser
(see :mod:`nvbench.loading`).
"""

import errno
import json
import math
import os

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


def read_text(path_or_file):
    """The whole text of a path or of an open file (text or binary, UTF-8)."""
    if hasattr(path_or_file, "read"):
        try:
            text = path_or_file.read()
        except UnicodeDecodeError as e:  # a file opened as text
            raise _not_utf8(e) from None
    else:
        with open(path_or_file, "rb") as f:
            text = f.read()
    return utf8(text) if isinstance(text, bytes) else text


def write_text(path_or_file, text):
    """Write text to an open text file, or to a path (UTF-8) whole or not at all:
    through a temporary file beside it, renamed over it. Returns path_or_file."""
    if hasattr(path_or_file, "write"):
        path_or_file.write(text)
        return path_or_file
    tmp = f"{os.fspath(path_or_file)}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path_or_file)
    return path_or_file
