"""One run: :class:`Result`, the C result (schema ``nvbench.result/1``) and its labels.

``data`` is the result object as the C library emits it (docs/json-schema.md);
``meta`` the labels that place the run in a matrix (engine, rw, bs, qd, jobs,
repeat, target, cell, op, stack), derived from the data when not given.
"""

import collections.abc
import copy
import errno
import json

from ._jsontext import NotJSON, parse_json_text, strict_json, utf8 as _utf8
from .errors import NvbenchError
from ._printable import printable
from .labels import cell_of, human_bs, op_of_rw
from .metrics import bw_gib, figures, unsupported_text
from ._series import timeseries_frame

__all__ = ["Result", "RESULT_SCHEMA", "META_KEYS"]

RESULT_SCHEMA = "nvbench.result/1"

# Labels every Result carries in ``meta``; derived from the data when not given.
META_KEYS = ("stack", "engine", "cell", "op", "rw", "bs", "qd", "jobs", "repeat", "target")


# --------------------------------------------------------------------------
# attribute view over nested dicts


class _View(collections.abc.Mapping):
    """Read-only attribute access over a dict: ``v.lat_ns.p99`` and ``v.lat_ns["p99.9"]``."""

    __slots__ = ("_d", "_path")

    def __init__(self, d, path):
        object.__setattr__(self, "_d", d)
        object.__setattr__(self, "_path", path)

    def __getitem__(self, key):
        return _wrap(self._d[key], f"{self._path}.{key}")

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __reduce__(self):
        return (_View, (self._d, self._path))

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_d", "_path"):
            raise AttributeError(name)
        try:
            return _wrap(self._d[name], f"{self._path}.{name}")
        except KeyError:
            raise AttributeError(f"result has no field {self._path}.{name}") from None

    def __setattr__(self, name, value):
        raise AttributeError("result views are read-only; edit Result.data instead")

    def __dir__(self):
        return [k for k in self._d if isinstance(k, str) and k.isidentifier()]

    def __repr__(self):
        return f"<{self._path}: {self._d!r}>"

    def to_dict(self):
        return copy.deepcopy(self._d)


def _wrap(value, path):
    return _View(value, path) if isinstance(value, dict) else value


def _derive_meta(data):
    wl = data.get("workload") if isinstance(data.get("workload"), dict) else {}
    engine = data.get("engine", wl.get("engine"))
    rw = wl.get("rw")
    bs = wl.get("bs")
    targets = wl.get("targets")
    target = ",".join(targets) if isinstance(targets, list) and targets else None
    return {
        "engine": engine,
        "rw": rw,
        "bs": bs,
        "qd": wl.get("qd"),
        "jobs": wl.get("jobs"),
        "repeat": 0,
        "target": target,
        "cell": cell_of(rw, bs),
        "op": op_of_rw(rw),
        "stack": engine,
    }


class Result:
    """One run: the C result (``data``) and its matrix labels (``meta``).

    Attribute access reads the result: ``r.read.iops``, ``r.read.lat_ns.p99``,
    ``r.trim.ios`` (a workload that trims: rw=trim, randtrim; :meth:`direction`),
    ``r.read.lat_ns["p99.9"]``, ``r.cpu.cpu_us_per_io``, ``r.duration_s``.
    ``r.data`` is the underlying dict (mutable; the views are not).
    """

    __slots__ = ("data", "meta")

    def __init__(self, data, meta=None):
        if not isinstance(data, dict):
            raise TypeError(f"Result data must be a dict, got {type(data).__name__}")
        data = dict(data)
        embedded = data.pop("meta", None)
        object.__setattr__(self, "data", data)
        m = _derive_meta(data)
        for src in (embedded, meta):
            if src:
                m.update(src)
        if m.get("stack") is None:
            m["stack"] = m.get("engine")
        if m.get("cell") is None:
            m["cell"] = cell_of(m.get("rw"), m.get("bs"))
        if m.get("op") is None:
            m["op"] = op_of_rw(m.get("rw"))
        object.__setattr__(self, "meta", m)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("data", "meta"):
            raise AttributeError(name)
        try:
            return _wrap(self.data[name], name)
        except KeyError:
            raise AttributeError(f"result has no field {name!r}") from None

    def __setattr__(self, name, value):
        raise AttributeError("Result is read-only; edit r.data or r.meta")

    def __dir__(self):
        return sorted(set(dir(type(self))) | {k for k in self.data if k.isidentifier()})

    def __eq__(self, other):
        if not isinstance(other, Result):
            return NotImplemented
        return self.data == other.data and self.meta == other.meta

    __hash__ = None

    def __reduce__(self):
        return (Result, (self.data, self.meta))

    @property
    def groups(self):
        """The job groups of a run_groups() result, each a Result of its own
        (labelled ``group`` with its name; no ``cpu``: the process CPU is the
        total's). [] for a run of one workload."""
        return [Result(g, {"group": g.get("name")}) for g in self.data.get("groups") or []]

    def direction(self, name):
        """One direction's figures (``"read"``, ``"write"``, ``"trim"``) as a view; a
        direction the run did not have (``trim`` without trims) reads as zeros."""
        if name not in ("read", "write", "trim"):
            raise ValueError(f"direction {name!r}: not read, write or trim")
        d = self.data.get(name)
        if not isinstance(d, dict):
            d = {"ios": 0, "bytes": 0, "iops": 0.0, "bw_bytes_s": 0.0, "bw_gib_s": 0.0,
                 "lat_ns": None, "slat_ns": None, "clat_ns": None}
        return _View(d, name)

    def get(self, path, default=None):
        """Value at a dotted path (``"read.lat_ns.p99"``), or ``default`` when absent."""
        cur = self.data
        for part in _split_path(path):
            if not isinstance(cur, dict) or part not in cur:
                return default
            cur = cur[part]
        return cur

    def to_dict(self):
        """A deep copy of the C result with ``"meta"`` added."""
        d = copy.deepcopy(self.data)
        d["meta"] = copy.deepcopy(self.meta)
        return d

    def to_json(self, indent=None):
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, d, meta=None):
        return cls(d, meta)

    @classmethod
    def from_json(cls, text, meta=None):
        """One result from its JSON text (str or bytes), read as :func:`nvbench.loads`
        reads it: by the library's strict parser, NvbenchError (EINVAL) naming what
        is wrong (before, Python's json believed NaN, duplicate keys and any figure)."""
        if isinstance(text, (bytes, bytearray)):
            text = _utf8(bytes(text))
        try:
            obj, raw = parse_json_text(text, strict_json)
        except NotJSON as e:
            raise NvbenchError(errno.EINVAL, f"result JSON: {e}") from None
        if not isinstance(obj, dict) or isinstance(obj.get("results"), list):
            raise ValueError("Result.from_json takes one result (nvbench.loads reads sets and lists)")
        return cls(read_result(obj, raw=raw).to_dict(), meta)

    def with_meta(self, **meta):
        """A copy with some labels replaced (``r.with_meta(stack="io_uring sqpoll")``)."""
        m = dict(self.meta)
        m.update(meta)
        return Result(copy.deepcopy(self.data), m)

    def timeseries_frame(self):
        """The time series as a DataFrame, one row per interval, with each interval's
        p50/p99/p99.9 latency (``read_p99_ns``, ...): see nvbench._series (needs pandas)."""
        return timeseries_frame(self)

    def figures(self):
        """The analysis figures of this run as a flat dict (one row of ``to_frame``)."""
        return figures(self)

    def __repr__(self):
        m = self.meta
        parts = [str(m.get("stack"))]
        if m.get("stack") != m.get("engine") and m.get("engine"):
            parts.append(f"engine={m['engine']}")
        if m.get("rw"):
            parts.append(str(m["rw"]))
        if m.get("bs") is not None:
            parts.append(f"bs={human_bs(m['bs'])}")
        for k in ("qd", "jobs"):
            if m.get(k) is not None:
                parts.append(f"{k}={m[k]}")
        if m.get("repeat"):
            parts.append(f"repeat={m['repeat']}")
        figs = []
        for op in ("read", "write", "trim"):
            d = self.data.get(op)
            if isinstance(d, dict) and d.get("iops"):
                bw = bw_gib(d)
                s = f"{op} {_si(d['iops'])} IOPS {bw:.3g} GiB/s"
                lat = d.get("lat_ns") or {}
                unsupported = (d.get("lat_pct_supported") or {}).get("p99") is False
                if lat.get("p99") and not unsupported:
                    s += f" p99 {_ns(lat['p99'])}"
                elif lat.get("mean"):
                    s += f" mean {_ns(lat['mean'])}"
                if unsupported:
                    s += f" p99 {unsupported_text('lat_p99_ms')}"
                figs.append(s)
        cpu = self.data.get("cpu") or {}
        scope = f" ({cpu['scope']})" if cpu.get("scope") else ""
        if cpu.get("system_pct") is not None:
            figs.append(f"cpu {cpu['system_pct']:.1f}%{scope}")
        if cpu.get("cpu_us_per_io"):
            figs.append(f"{cpu['cpu_us_per_io']:.3g} us/IO{scope}")
        flags = []
        if self.data.get("cancelled"):
            flags.append("cancelled")
        if self.data.get("error"):
            flags.append(f"error={self.data['error'].get('name')}")
        for w in self.data.get("warnings") or []:
            w = str(w)
            flags.append("warning: " + (w if len(w) <= 100 else w[:99] + "\u2026"))
        src = self.data.get("source")
        if src:
            flags.append(f"source={src}")
        s = " ".join(parts)
        if figs:
            s += ": " + ", ".join(figs)
        if flags:
            s += " [" + ", ".join(flags) + "]"
        return f"<Result {printable(s)}>"


def _split_path(path):
    # "read.lat_ns.p99.9" -> read, lat_ns, p99.9 (percentile keys contain a dot)
    parts = path.split(".")
    out = []
    for p in parts:
        if out and p.isdigit() and out[-1][:1] == "p" and out[-1][1:].replace(".", "").isdigit():
            out[-1] += "." + p
        else:
            out.append(p)
    return out


def _si(v):
    v = float(v)
    for unit, f in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(v) >= f:
            return f"{v / f:.3g}{unit}"
    return f"{v:.3g}"


def _ns(v):
    v = float(v)
    if v >= 1e6:
        return f"{v / 1e6:.3g} ms"
    if v >= 1e3:
        return f"{v / 1e3:.3g} us"
    return f"{v:.3g} ns"


# Sources of results that Python builds itself (fio.py, reference.py): they do
# not have the library's schema, so the library's parser cannot read them.
_PYTHON_SOURCES = ("fio", "reference")


def _library_json(text):
    """The library's reading of one result's JSON: checked by its strict parser
    (nvb_result_parse) and written back by its writer. NvbenchError(EINVAL)
    names what is wrong."""
    # Imported here, not at the top: the analysis modules work on a checkout
    # where the extension is not built, until a result has to be parsed.
    try:
        from . import _nvbench
    except ImportError as e:
        raise ImportError("loading nvbench results needs the C extension nvbench._nvbench: "
                          "the library's own parser checks them") from e
    try:
        return _nvbench.result_json(text)
    except UnicodeEncodeError as e:  # a str holding a lone surrogate (os.fsdecode of a stray byte)
        raise NvbenchError(errno.EINVAL, f"result JSON: a lone surrogate (U+{ord(e.object[e.start]):04X}) at "
                           f"character {e.start}: not UTF-8") from None


def read_result(d, meta=None, where=None, raw=None):
    """One entry of a document as a Result, read the way the library reads it.

    nvbench results go through the library's parser and the figures are what
    it writes back (rates and percentiles recomputed from what is stored), so a
    file that the C side would refuse is refused here too, naming the problem.
    ``raw`` is the entry's own text when the document is that one result."""
    if not isinstance(d, dict):
        raise ValueError(f"{where or 'the document'} is a {type(d).__name__}, not a result")
    if d.get("source") in _PYTHON_SOURCES:
        return Result(d, meta)
    data = dict(d)
    embedded = data.pop("meta", None)
    try:
        text = _library_json(raw if raw is not None else json.dumps(data, allow_nan=False))
    except NvbenchError as e:
        if where:
            e = NvbenchError(e.errno, f"{where}: {e.strerror}")
        raise e from None
    out = json.loads(text)
    if embedded is not None:
        out["meta"] = embedded
    return Result(out, meta)
