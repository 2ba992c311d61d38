"""Reading results: :func:`load` and :func:`loads`, whatever wrote them.

Results can be loaded from files written by ``ResultSet.save``, by ``nvbench
matrix --json``, by the C ``run_workload`` example, or by fio
(``--output-format=json``). Every nvbench result is read by the library's own
strict parser; what surrounds the results is held to the same rules.
"""

import errno
import io
import json
import os

from . import fio
from ._jsontext import NotJSON, parse_json_text, read_text, strict_json
from .errors import NvbenchError
from .metrics import figures
from .result import RESULT_SCHEMA, read_result
from .resultset import RESULTSET_SCHEMA, ResultSet

__all__ = ["load", "loads", "from_obj"]


def _looks_like_fio(obj):
    return isinstance(obj, dict) and ("fio version" in obj or
                                      (isinstance(obj.get("jobs"), list) and "results" not in obj
                                       and obj.get("schema") is None))


def from_obj(obj, meta=None, ncpus=None, raw=None):
    """A ResultSet from parsed JSON of any supported shape (``ncpus``: see :func:`load`).

    nvbench results are read by the library's strict parser (see :func:`load`);
    ``raw`` is the text ``obj`` was parsed from, handed to it as it is when the
    document is a single result."""
    if isinstance(obj, list):
        return ResultSet(read_result(d, meta, f"[{i}]") for i, d in enumerate(obj))
    if not isinstance(obj, dict):
        raise ValueError(f"not an nvbench or fio result: top level is {type(obj).__name__}")
    if isinstance(obj.get("results"), list):
        schema = obj.get("schema", RESULTSET_SCHEMA)
        if schema != RESULTSET_SCHEMA:
            raise ValueError(f"unsupported result set schema {schema!r} (this version reads "
                             f"{RESULTSET_SCHEMA!r})")
        return ResultSet(read_result(d, meta, f"results[{i}]") for i, d in enumerate(obj["results"]))
    if _looks_like_fio(obj):
        return fio.from_fio(obj, meta=meta, ncpus=ncpus)
    schema = obj.get("schema")
    if schema == RESULT_SCHEMA or (schema is None and "engine" in obj):
        return ResultSet([read_result(obj, meta, raw=raw)])
    if isinstance(schema, str) and schema.startswith("nvbench.result/"):
        raise ValueError(f"unsupported result schema {schema!r} (this version reads {RESULT_SCHEMA!r})")
    raise ValueError("not an nvbench result, result set, or fio JSON output")



def _parse_document(text):
    """(parsed JSON, the text of the JSON or None): strict JSON, except that
    fio's own output is read as Python's json reads it (fio is not ours to
    fix; fio.from_fio checks its figures)."""
    try:
        return parse_json_text(text, strict_json)
    except NotJSON as e:
        try:
            obj = parse_json_text(text, json.loads)[0]
        except (ValueError, RecursionError):
            obj = None
        if _looks_like_fio(obj):
            return obj, None  # fio.from_fio refuses what is not finite, naming the figure
        raise NvbenchError(errno.EINVAL, f"result JSON: {e}") from None


def load(path_or_file, stack=None, ncpus=None):
    """Read results into a ResultSet: a saved ResultSet, ``nvbench matrix --json`` output
    (``{"results": [...]}``), a single C result, a JSON list of results, or fio's
    ``--output-format=json``. ``stack`` relabels every result (to compare two files whose
    runs used the same engine). ``ncpus`` (fio only): logical CPUs of the machine that ran
    fio, so that its per-job CPU figures also give ``cpu_total_pct``.

    Every nvbench result is read by the library's own parser, as strictly as the C
    side reads results sent by another process (nvb_result_parse): NaN, Infinity,
    duplicate keys, missing sections, negative durations or histograms that do not
    add up are refused with :class:`NvbenchError` (errno EINVAL) naming the key or the
    byte offset. The figures are those the library derives from what the file
    stores. Other malformed files raise ValueError."""
    where = _name(path_or_file)
    try:
        rs = _from_text(read_text(path_or_file, limit=fio.MAX_BYTES, what="a result file"), ncpus)
    except NvbenchError as e:
        raise NvbenchError(e.errno, f"{where}{e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}not JSON: {e}") from None
    except ValueError as e:
        raise ValueError(f"{where}{e}") from None
    if stack is not None:
        rs = rs.with_meta(stack=stack)
    return rs


def _name(path_or_file):
    """How an error names what was read ("PATH: "): the path, or the open
    file's name; "" for text without a name (loads)."""
    if isinstance(path_or_file, (str, bytes, os.PathLike)):
        return os.fsdecode(path_or_file) + ": "
    name = getattr(path_or_file, "name", None)
    return f"{name}: " if isinstance(name, str) else ""


def _from_text(text, ncpus):
    # Whatever the file holds, a malformed one is a ValueError (or an
    # NvbenchError) with a message, never a TypeError from deep inside
    # (tests/fuzz/fuzz_load.py).
    try:
        obj, raw = _parse_document(text)
        rs = from_obj(obj, ncpus=ncpus, raw=raw)
        for r in rs:
            figures(r)  # what tables and comparisons read must be readable
            for v in r.meta.values():
                hash(v)  # labels group results: plain values only
    except (ValueError, NvbenchError):
        raise
    except (TypeError, AttributeError, KeyError, IndexError, OverflowError, RecursionError) as e:
        raise ValueError(f"malformed result file: {type(e).__name__}: {e}") from None
    return rs


def loads(text, stack=None, ncpus=None):
    """:func:`load` from a string."""
    return load(io.StringIO(text), stack=stack, ncpus=ncpus)
