"""Results of nvbench runs, and the analysis that compares them.

A :class:`Result` wraps one result object as the C library emits it (schema
``nvbench.result/1``, see docs/json-schema.md) together with ``meta``: the labels
that place the run in a matrix (engine, rw, bs, qd, jobs, repeat, target, cell,
op, stack).  A :class:`ResultSet` is an ordered sequence of them with the
analysis: the seed table layout, comparisons with confidence intervals, tidy
DataFrames and plots.

Nothing here needs the C extension: results can be loaded from files
(:func:`load`) written by ``ResultSet.save``, by ``nvbench matrix --json``, by
the C ``run_workload`` example, or by fio (``--output-format=json``).

numpy/pandas/matplotlib are imported only by the methods that need them.
"""

from __future__ import annotations

import collections.abc
import copy
import errno
import io
import json
import math
import os

from .errors import NvbenchError
from ._printable import printable

__all__ = [
    "Result",
    "ResultSet",
    "load",
    "METRICS",
    "t_critical",
    "mean_ci",
    "welch_ci",
]

RESULTSET_SCHEMA = "nvbench.resultset/1"
RESULT_SCHEMA = "nvbench.result/1"

# Labels every Result carries in ``meta``; derived from the data when not given.
META_KEYS = ("stack", "engine", "cell", "op", "rw", "bs", "qd", "jobs", "repeat", "target")


# --------------------------------------------------------------------------
# lazy imports of optional dependencies


def _require(module, debian_package):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise ImportError(
            f"this nvbench feature needs {module.split('.')[0]}; install it with "
            f"'apt install {debian_package}' (Debian/Ubuntu) or your package manager"
        ) from exc


def _pandas():
    return _require("pandas", "python3-pandas")


# --------------------------------------------------------------------------
# statistics (no scipy: the Student-t quantile is computed here)


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    # The continued fraction converges fast only for x < (a+1)/(a+b+2); use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    """P(T <= t) for Student's t with ``df`` (> 0, need not be an integer) degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df!r}")
    if math.isinf(df):
        return 0.5 * math.erfc(-t / math.sqrt(2.0))
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_critical(df, confidence=0.95):
    """Two-sided Student-t critical value: P(|T| <= t) = confidence.

    ``df`` may be fractional (Welch-Satterthwaite) or ``math.inf`` (normal).
    Exact to ~1e-10: the CDF is the regularised incomplete beta, inverted by bisection.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    target = 1.0 - (1.0 - confidence) / 2.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < target:
        hi *= 2.0
        if hi > 1e12:
            raise ValueError(f"no t quantile for df={df!r}, confidence={confidence!r}")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def _clean(values):
    out = []
    for v in values:
        if v is None:
            continue
        v = float(v)
        if not math.isnan(v):
            out.append(v)
    return out


def _mean_var(xs):
    n = len(xs)
    m = sum(xs) / n
    # (x - m) * (x - m), not ** 2: a huge figure gives inf, not OverflowError
    var = sum((x - m) * (x - m) for x in xs) / (n - 1) if n > 1 else math.nan
    return m, var


def mean_ci(values, confidence=0.95):
    """(mean, half_width, n) of the two-sided Student-t confidence interval of the mean.

    NaN/None values are ignored; half_width is NaN when fewer than 2 values remain.
    """
    xs = _clean(values)
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0
    m, var = _mean_var(xs)
    if n < 2:
        return m, math.nan, n
    return m, t_critical(n - 1, confidence) * math.sqrt(var / n), n


def welch_ci(baseline, other, confidence=0.95):
    """Confidence interval of mean(other) - mean(baseline), Welch's t (unequal variances).

    Returns a dict: diff, low, high, df, mean_a (baseline), mean_b, n_a, n_b.
    low/high are NaN when either sample has fewer than 2 values.  When both samples
    have zero variance the interval collapses to the observed difference.
    """
    a, b = _clean(baseline), _clean(other)
    na, nb = len(a), len(b)
    ma = _mean_var(a)[0] if na else math.nan
    mb = _mean_var(b)[0] if nb else math.nan
    out = {"diff": mb - ma, "low": math.nan, "high": math.nan, "df": math.nan,
           "mean_a": ma, "mean_b": mb, "n_a": na, "n_b": nb}
    if na < 2 or nb < 2:
        return out
    va, vb = _mean_var(a)[1] / na, _mean_var(b)[1] / nb
    se2 = va + vb
    if se2 == 0.0:
        out.update(low=out["diff"], high=out["diff"], df=math.inf)
        return out
    df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    try:
        half = t_critical(df, confidence) * math.sqrt(se2)
    except ValueError:  # figures so far out of range that t has no quantile: no interval
        return out
    out.update(low=out["diff"] - half, high=out["diff"] + half, df=df)
    return out


# --------------------------------------------------------------------------
# metric definitions shared by table, compare and plot


class Metric:
    __slots__ = ("key", "label", "higher_is_better", "unit")

    def __init__(self, key, label, higher_is_better, unit):
        self.key, self.label, self.higher_is_better, self.unit = key, label, higher_is_better, unit

    def __repr__(self):
        return f"Metric({self.key!r}, {self.label!r})"


METRICS = {m.key: m for m in (
    Metric("bw_gib_s", "Bandwidth (GiB/s)", True, "GiB/s"),
    Metric("iops", "IOPS", True, "IO/s"),
    Metric("lat_mean_ms", "Average Latency (ms)", False, "ms"),
    Metric("lat_p50_ms", "p50 Latency (ms)", False, "ms"),
    Metric("lat_p90_ms", "p90 Latency (ms)", False, "ms"),
    Metric("lat_p99_ms", "p99 Latency (ms)", False, "ms"),
    Metric("lat_p99_9_ms", "p99.9 Latency (ms)", False, "ms"),
    Metric("cpu_total_pct", "Total CPU Usage (%)", False, "%"),
    Metric("cpu_us_per_io", "CPU per I/O (us)", False, "us"),
    Metric("iops_per_core", "IOPS per core", True, "IO/s/core"),
    Metric("process_cores", "Process cores", False, "cores"),
)}

# The seed table's rows (SEED.md) plus the two efficiency figures the articles lacked.
TABLE_METRICS = ("bw_gib_s", "iops", "lat_mean_ms", "cpu_total_pct", "cpu_us_per_io", "iops_per_core")

# Published block order: these cells, reads first then writes.
SEED_CELLS = ("rand4k", "rand64k", "seq64k", "seq128k")
_OP_ORDER = {"read": 0, "write": 1, "mixed": 2}


def _metric(key):
    try:
        return METRICS[key]
    except KeyError:
        raise ValueError(f"unknown metric {key!r}; known: {', '.join(METRICS)}") from None


def _metric_list(metrics, default):
    if metrics is None:
        return [_metric(k) for k in default]
    if isinstance(metrics, str):
        metrics = [metrics]
    return [_metric(k) for k in metrics]


def format_value(key, value):
    """Format one figure the way the published tables do."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    v = float(value)
    if not math.isfinite(v):
        return "-"
    if abs(v) >= 1e15:
        return f"{v:.3g}"  # beyond any real figure: no wall of digits
    if key in ("iops", "iops_per_core"):
        return f"{v:,.0f}"
    if key == "cpu_total_pct":
        return f"{v:.2f}"
    if abs(v) >= 0.01 or v == 0:
        return f"{v:.3f}" if abs(v) < 1000 else f"{v:,.1f}"
    # Sub-0.01 figures (ns-scale latencies in ms): three significant digits, no exponent.
    decimals = min(12, 2 - math.floor(math.log10(abs(v))))
    return f"{v:.{decimals}f}"


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


# --------------------------------------------------------------------------
# Result


def _human_bs(bs):
    if not isinstance(bs, int) or bs <= 0:
        return str(bs)
    for unit, size in (("m", 1 << 20), ("k", 1 << 10)):
        if bs % size == 0:
            return f"{bs // size}{unit}"
    return str(bs)


def op_of_rw(rw):
    """'read' / 'write' / 'mixed' for an rw mode (nvbench's or fio's spelling)."""
    rw = (rw or "").lower()
    if rw in ("read", "randread"):
        return "read"
    if rw in ("write", "randwrite", "trim", "randtrim"):
        return "write"
    if rw in ("rw", "readwrite", "randrw", "trimwrite", "randtrimwrite"):
        return "mixed"
    return rw or None


def cell_of(rw, bs):
    """The seed's cell name: 'rand4k', 'seq128k', ... (access pattern + block size)."""
    if rw is None or bs is None:
        return None
    pattern = "rand" if str(rw).lower().startswith("rand") else "seq"
    return f"{pattern}{_human_bs(bs)}"


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
        if isinstance(text, bytes):
            text = text.decode()
        return cls(json.loads(text), meta)

    def with_meta(self, **meta):
        """A copy with some labels replaced (``r.with_meta(stack="io_uring sqpoll")``)."""
        m = dict(self.meta)
        m.update(meta)
        return Result(copy.deepcopy(self.data), m)

    def figures(self):
        """The analysis figures of this run as a flat dict (one row of ``to_frame``)."""
        return _row(self)

    def __repr__(self):
        m = self.meta
        parts = [str(m.get("stack"))]
        if m.get("stack") != m.get("engine") and m.get("engine"):
            parts.append(f"engine={m['engine']}")
        if m.get("rw"):
            parts.append(str(m["rw"]))
        if m.get("bs") is not None:
            parts.append(f"bs={_human_bs(m['bs'])}")
        for k in ("qd", "jobs"):
            if m.get(k) is not None:
                parts.append(f"{k}={m[k]}")
        if m.get("repeat"):
            parts.append(f"repeat={m['repeat']}")
        figs = []
        for op in ("read", "write"):
            d = self.data.get(op)
            if isinstance(d, dict) and d.get("iops"):
                bw = _bw_gib(d)
                s = f"{op} {_si(d['iops'])} IOPS {bw:.3g} GiB/s"
                lat = d.get("lat_ns") or {}
                if lat.get("p99"):
                    s += f" p99 {_ns(lat['p99'])}"
                elif lat.get("mean"):
                    s += f" mean {_ns(lat['mean'])}"
                figs.append(s)
        cpu = self.data.get("cpu") or {}
        if cpu.get("system_pct") is not None:
            figs.append(f"cpu {cpu['system_pct']:.1f}%")
        if cpu.get("cpu_us_per_io"):
            figs.append(f"{cpu['cpu_us_per_io']:.3g} us/IO")
        flags = []
        if self.data.get("cancelled"):
            flags.append("cancelled")
        if self.data.get("error"):
            flags.append(f"error={self.data['error'].get('name')}")
        if self.data.get("warnings"):
            flags.append(f"{len(self.data['warnings'])} warning(s)")
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


def _num(v):
    if v is None or isinstance(v, bool):
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _bw_gib(d):
    if d.get("bw_gib_s") is not None:
        return _num(d["bw_gib_s"])
    if d.get("bw_bytes_s") is not None:
        return _num(d["bw_bytes_s"]) / 2**30
    return math.nan


_LAT_COLS = (("lat_mean_ms", "mean"), ("lat_p50_ms", "p50"), ("lat_p90_ms", "p90"),
             ("lat_p99_ms", "p99"), ("lat_p99_9_ms", "p99.9"))


def _direction_figures(d):
    d = d if isinstance(d, dict) else {}
    lat = d.get("lat_ns") if isinstance(d.get("lat_ns"), dict) else {}
    out = {"bw_gib_s": _bw_gib(d), "iops": _num(d.get("iops"))}
    for col, key in _LAT_COLS:
        out[col] = _num(lat.get(key)) / 1e6
    return out


# Columns of to_frame(), in order; mixed rw adds read_*/write_* columns after them.
FRAME_COLUMNS = (
    "stack", "engine", "cell", "op", "rw", "bs", "qd", "jobs", "repeat", "target",
    "bw_gib_s", "iops", "lat_mean_ms", "lat_p50_ms", "lat_p90_ms", "lat_p99_ms", "lat_p99_9_ms",
    "cpu_total_pct", "cpu_us_per_io", "iops_per_core", "process_cores", "duration_s",
    "source", "cancelled",
)
_DIRECTION_COLS = ("bw_gib_s", "iops") + tuple(c for c, _ in _LAT_COLS)


def _row(r):
    m = r.meta
    data = r.data
    row = {k: m.get(k) for k in ("stack", "engine", "cell", "op", "rw", "bs", "qd", "jobs",
                                  "repeat", "target")}
    op = m.get("op")
    if op in ("read", "write"):
        row.update(_direction_figures(data.get(op)))
        mixed = None
    else:
        rd, wr = _direction_figures(data.get("read")), _direction_figures(data.get("write"))
        tot = {"bw_gib_s": _nansum(rd["bw_gib_s"], wr["bw_gib_s"]),
               "iops": _nansum(rd["iops"], wr["iops"])}
        # Mean latency over both directions weighted by their I/O rates; percentiles of the
        # union are not recoverable from the two summaries, so they stay NaN.
        w_r, w_w = _nz(rd["iops"]), _nz(wr["iops"])
        if w_r + w_w > 0:
            tot["lat_mean_ms"] = (_nz(rd["lat_mean_ms"]) * w_r + _nz(wr["lat_mean_ms"]) * w_w) / (w_r + w_w)
        else:
            tot["lat_mean_ms"] = math.nan
        for c, _ in _LAT_COLS[1:]:
            tot[c] = math.nan
        row.update(tot)
        mixed = (rd, wr)
    cpu = data.get("cpu") if isinstance(data.get("cpu"), dict) else {}
    row["cpu_total_pct"] = _num(cpu.get("system_pct"))
    row["cpu_us_per_io"] = _num(cpu.get("cpu_us_per_io"))
    row["iops_per_core"] = _num(cpu.get("iops_per_core"))
    row["process_cores"] = _num(cpu.get("process_cores"))
    row["duration_s"] = _num(data.get("duration_s"))
    row["source"] = data.get("source", "nvbench")
    row["cancelled"] = bool(data.get("cancelled", False))
    if mixed:
        for prefix, figs in zip(("read_", "write_"), mixed):
            for c in _DIRECTION_COLS:
                row[prefix + c] = figs[c]
    return row


def _nz(v):
    return 0.0 if math.isnan(v) else v


def _nansum(a, b):
    if math.isnan(a) and math.isnan(b):
        return math.nan
    return _nz(a) + _nz(b)


# --------------------------------------------------------------------------
# ResultSet


_CELL_WORDS = {"rand": "Random", "seq": "Sequential"}


def block_label(cell, op):
    """'Random 4K read' for ('rand4k', 'read'); unknown cell names are kept as they are."""
    if cell:
        for prefix, word in _CELL_WORDS.items():
            rest = cell[len(prefix):]
            if cell.startswith(prefix) and rest[:1].isdigit():
                return f"{word} {rest.upper()} {op}"
    return f"{cell} {op}"


def _bs_of_cell(cell):
    digits = ""
    rest = cell or ""
    for prefix in _CELL_WORDS:
        if rest.startswith(prefix):
            rest = rest[len(prefix):]
    for ch in rest:
        if ch.isdigit():
            digits += ch
        else:
            break
    if not digits:
        return math.inf
    unit = rest[len(digits):].lower()
    return int(digits) * {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(unit, 1)


def _block_sort_key(block):
    cell, op = block
    cell = cell or ""
    if cell in SEED_CELLS:
        return (_OP_ORDER.get(op, 3), 0, SEED_CELLS.index(cell), 0, cell)
    pattern = 0 if cell.startswith("rand") else 1
    return (_OP_ORDER.get(op, 3), 1, pattern, _bs_of_cell(cell), cell)


class _Text(str):
    """A str that shows itself unquoted at the REPL and in notebooks."""

    def __repr__(self):
        return str(self)


class ResultSet(collections.abc.Sequence):
    """An ordered collection of :class:`Result` with the analysis methods."""

    def __init__(self, results=()):
        self._results = []
        self.extend(results)

    # --- sequence protocol -------------------------------------------------

    def __len__(self):
        return len(self._results)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ResultSet(self._results[index])
        return self._results[index]

    def __iter__(self):
        return iter(self._results)

    def __add__(self, other):
        if isinstance(other, Result):
            other = [other]
        if not isinstance(other, collections.abc.Iterable):
            return NotImplemented
        return ResultSet(list(self._results) + list(other))

    def __radd__(self, other):
        if isinstance(other, (list, tuple)):
            return ResultSet(list(other) + self._results)
        return NotImplemented

    def __eq__(self, other):
        if not isinstance(other, ResultSet):
            return NotImplemented
        return self._results == other._results

    __hash__ = None

    def append(self, result):
        if isinstance(result, dict):
            result = Result(result)
        if not isinstance(result, Result):
            raise TypeError(f"ResultSet holds Result objects, got {type(result).__name__}")
        self._results.append(result)

    def extend(self, results):
        for r in results:
            self.append(r)

    def filter(self, predicate=None, **meta):
        """Results whose meta matches every given label (values may be lists) and the predicate."""
        out = []
        for r in self._results:
            ok = True
            for k, v in meta.items():
                want = v if isinstance(v, (list, tuple, set, frozenset)) else (v,)
                if r.meta.get(k) not in want:
                    ok = False
                    break
            if ok and (predicate is None or predicate(r)):
                out.append(r)
        return ResultSet(out)

    def with_meta(self, **meta):
        """A copy with the labels replaced in every result (``rs.with_meta(stack="kernel 6.8")``)."""
        return ResultSet(r.with_meta(**meta) for r in self._results)

    @property
    def stacks(self):
        """Stack labels in order of first appearance."""
        return list(dict.fromkeys(r.meta.get("stack") for r in self._results))

    def __repr__(self):
        if not self._results:
            return "ResultSet([])"
        stacks = ", ".join(printable(s) for s in self.stacks)
        cells = len({(r.meta.get("cell"), r.meta.get("op")) for r in self._results})
        return f"<ResultSet: {len(self)} results, {cells} cells, stacks: {stacks}>"

    # --- persistence -------------------------------------------------------

    def to_dict(self):
        return {"schema": RESULTSET_SCHEMA, "results": [r.to_dict() for r in self._results]}

    def to_json(self, indent=None):
        return json.dumps(self.to_dict(), indent=indent)

    def save(self, path):
        """Write ``{"schema": "nvbench.resultset/1", "results": [...]}``; path or text file."""
        text = self.to_json(indent=1) + "\n"
        if hasattr(path, "write"):
            path.write(text)
            return path
        tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
        return path

    def to_frame(self):
        """pandas DataFrame, one row per result, tidy columns (see FRAME_COLUMNS)."""
        pd = _pandas()
        rows = [_row(r) for r in self._results]
        cols = list(FRAME_COLUMNS)
        for row in rows:
            for k in row:
                if k not in cols:
                    cols.append(k)
        df = pd.DataFrame(rows, columns=cols)
        for c in ("bs", "qd", "jobs", "repeat"):
            if c in df and df[c].notna().all():
                df[c] = df[c].astype("int64")
        return df

    def to_csv(self, path):
        self.to_frame().to_csv(path, index=False)
        return path

    # --- grouping ----------------------------------------------------------

    def _column_labels(self):
        """Column label per result: the stack, plus qd/jobs/target when these vary
        inside one stack's cell (so that different configurations are never averaged)."""
        groups = {}
        for r in self._results:
            key = (r.meta.get("stack"), r.meta.get("cell"), r.meta.get("op"))
            groups.setdefault(key, []).append(r)
        varying = []
        for k in ("qd", "jobs", "target"):
            if any(len({r.meta.get(k) for r in g}) > 1 for g in groups.values()):
                varying.append(k)
        labels = []
        for r in self._results:
            label = str(r.meta.get("stack"))
            extra = [f"{k}={r.meta.get(k)}" for k in varying if r.meta.get(k) is not None]
            labels.append(" ".join([label] + extra))
        return labels

    def summary(self, metrics=None, confidence=0.95):
        """Tidy statistics: one row per (cell, op, column, metric) with mean, half-width of
        the confidence interval (NaN below 2 repeats), n, std."""
        pd = _pandas()
        ms = _metric_list(metrics, tuple(METRICS))
        rows = [_row(r) for r in self._results]
        labels = self._column_labels()
        groups = {}
        for row, label in zip(rows, labels):
            groups.setdefault((row["cell"], row["op"], label), []).append(row)
        out = []
        for (cell, op, label), rs in groups.items():
            for m in ms:
                vals = [x.get(m.key) for x in rs]
                mean, half, n = mean_ci(vals, confidence)
                xs = _clean(vals)
                std = _mean_var(xs)[1] if len(xs) > 1 else math.nan
                out.append({"cell": cell, "op": op, "block": block_label(cell, op),
                            "stack": label, "metric": m.key, "label": m.label,
                            "mean": mean, "ci_half": half, "std": std, "n": n})
        df = pd.DataFrame(out, columns=["cell", "op", "block", "stack", "metric", "label",
                                        "mean", "ci_half", "std", "n"])
        return df

    def blocks(self):
        """(cell, op) pairs in the published order."""
        blocks = {(r.meta.get("cell"), r.meta.get("op")) for r in self._results}
        return sorted(blocks, key=_block_sort_key)

    # --- the seed table ----------------------------------------------------

    def table(self, metrics=None, fmt="text", confidence=0.95):
        """The published layout: one block per cell (rand4k, rand64k, seq64k, seq128k; reads
        then writes), metric rows, one column per stack. Values are means over repeats,
        shown as ``mean ± half-width`` of the 95% confidence interval when there are repeats.

        fmt: "text" (aligned plain text), "markdown", or "frame" (DataFrame of the formatted
        cells, index = (block, metric)). For numbers use :meth:`summary`.
        """
        if fmt not in ("text", "markdown", "frame"):
            raise ValueError(f"fmt must be 'text', 'markdown' or 'frame', got {fmt!r}")
        ms = _metric_list(metrics, TABLE_METRICS)
        columns = list(dict.fromkeys(self._column_labels()))
        stats = {}
        if self._results:
            summ = self.summary([m.key for m in ms], confidence)
            for rec in summ.itertuples(index=False):
                stats[(rec.cell, rec.op, rec.stack, rec.metric)] = rec
        blocks = []
        for cell, op in self.blocks():
            rows = []
            for m in ms:
                cells = []
                for col in columns:
                    rec = stats.get((cell, op, col, m.key))
                    if rec is None:
                        cells.append("")
                        continue
                    text = format_value(m.key, rec.mean)
                    if rec.n > 1 and not math.isnan(rec.ci_half) and text != "-":
                        text += " ± " + format_value(m.key, rec.ci_half)
                    cells.append(text)
                rows.append((m.label, cells))
            # Drop columns with no result in this block so each block stays readable.
            present = [i for i, col in enumerate(columns)
                       if any(stats.get((cell, op, col, m.key)) is not None for m in ms)]
            blocks.append((block_label(cell, op), [columns[i] for i in present],
                           [(label, [c[i] for i in present]) for label, c in rows]))
        if fmt == "frame":
            pd = _pandas()
            index, data = [], []
            for title, _cols, rows in blocks:
                for label, _cells in rows:
                    index.append((title, label))
            for title, cols, rows in blocks:
                for label, cells in rows:
                    d = dict.fromkeys(columns, "")
                    d.update(zip(cols, cells))
                    data.append([d[c] for c in columns])
            idx = pd.MultiIndex.from_tuples(index, names=["block", "metric"])
            return pd.DataFrame(data, index=idx, columns=columns)
        out = []
        for title, cols, rows in blocks:
            # Labels come from the results (stack, target): shown, never obeyed.
            title, cols = printable(title), [printable(c) for c in cols]
            if fmt == "markdown":
                out.append(f"**{title}**\n")
                out.append("| Metric | " + " | ".join(cols) + " |")
                out.append("|---|" + "---:|" * len(cols))
                for label, cells in rows:
                    out.append(f"| {label} | " + " | ".join(cells) + " |")
                out.append("")
            else:
                head = [title] + cols
                body = [[label] + cells for label, cells in rows]
                widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
                def line(r):
                    return "  ".join([r[0].ljust(widths[0])] +
                                     [c.rjust(w) for c, w in zip(r[1:], widths[1:])]).rstrip()
                out.append(line(head))
                out.append("  ".join("-" * w for w in widths))
                out.extend(line(r) for r in body)
                out.append("")
        return _Text("\n".join(out).rstrip("\n") + "\n" if out else "")

    # --- comparison --------------------------------------------------------

    def compare(self, baseline="libaio", metric=None, confidence=0.95, fmt="frame"):
        """Each stack against ``baseline`` per cell and metric: delta % of the means with a
        confidence interval from Welch's t on the repeats (difference of means, expressed
        in % of the baseline mean). ``verdict`` is "within noise" when the interval spans 0,
        otherwise "better"/"worse" (by the metric's direction); without 2+ repeats on both
        sides there is no interval and the verdict is "no CI (n<2)".

        fmt: "frame" (DataFrame), "text" or "markdown" (readable str).
        """
        pd = _pandas()
        ms = _metric_list(metric, TABLE_METRICS)
        labels = self._column_labels()
        if baseline not in labels:
            # "libaio" names the column "libaio qd=8" when that is the only libaio one
            cands = [l for l in dict.fromkeys(labels) if str(l).split(" ")[0] == baseline]
            if len(cands) == 1:
                baseline = cands[0]
            else:
                known = ", ".join(printable(l) for l in dict.fromkeys(labels)) or "none"
                why = "ambiguous" if cands else "not a stack in this set"
                raise ValueError(f"baseline {baseline!r} is {why} (stacks: {known})")
        rows = [_row(r) for r in self._results]
        groups = {}
        for row, label in zip(rows, labels):
            groups.setdefault((row["cell"], row["op"]), {}).setdefault(label, []).append(row)
        out = []
        for cell, op in sorted(groups, key=_block_sort_key):
            by_stack = groups[(cell, op)]
            base = by_stack.get(baseline)
            if not base:
                continue
            for m in ms:
                a = [x.get(m.key) for x in base]
                for stack, rs in by_stack.items():
                    if stack == baseline:
                        continue
                    w = welch_ci(a, [x.get(m.key) for x in rs], confidence)
                    ma = w["mean_a"]
                    scale = 100.0 / ma if ma and math.isfinite(ma) else math.nan
                    # Figures past what a double holds (crafted, or a division by
                    # a near-zero baseline) say nothing: no data, never inf.
                    delta, lo, hi = (_finite(x * scale) for x in (w["diff"], w["low"], w["high"]))
                    if math.isnan(lo) or math.isnan(hi):
                        lo = hi = math.nan
                    if math.isnan(delta):
                        verdict = "no data"
                    elif math.isnan(lo):
                        verdict = "no CI (n<2)" if min(w["n_a"], w["n_b"]) < 2 else "no CI"
                    elif lo <= 0.0 <= hi:
                        verdict = "within noise"
                    else:
                        verdict = "better" if (delta > 0) == m.higher_is_better else "worse"
                    out.append({"cell": cell, "op": op, "block": block_label(cell, op),
                                "metric": m.key, "stack": stack, "baseline": baseline,
                                "n_baseline": w["n_a"], "n": w["n_b"],
                                "baseline_mean": ma, "mean": w["mean_b"],
                                "delta_pct": delta, "ci_low_pct": lo, "ci_high_pct": hi,
                                "df": w["df"], "verdict": verdict})
        cols = ["cell", "op", "block", "metric", "stack", "baseline", "n_baseline", "n",
                "baseline_mean", "mean", "delta_pct", "ci_low_pct", "ci_high_pct", "df", "verdict"]
        df = pd.DataFrame(out, columns=cols)
        if fmt == "frame":
            return df
        if fmt not in ("text", "markdown"):
            raise ValueError(f"fmt must be 'frame', 'text' or 'markdown', got {fmt!r}")
        return _Text(format_comparison(df, fmt, confidence))

    # --- plots -------------------------------------------------------------

    def plot(self, kind="bars", metric=None, ax=None, **kwargs):
        """matplotlib Figure: kind "bars" (grouped bars per metric, cells x stacks, CI error
        bars with repeats), "latency" (p50/p90/p99/p99.9 per stack, one panel per cell) or
        "efficiency" (IOPS per core). Returns the Figure (``fig.savefig("x.png")``)."""
        from . import plot as _plot
        return _plot.plot(self, kind=kind, metric=metric, ax=ax, **kwargs)


def _finite(v):
    return v if math.isfinite(v) else math.nan


# A change of a million percent (10,000x) is not a comparison of two runs of
# one device any more: beyond it the text says so instead of printing digits.
_PCT_LIMIT = 1e6


def _pct(v):
    """A percentage for the comparison text: '+12.3%', '-' when unknown."""
    if v is None or not math.isfinite(v):
        return "-"
    if abs(v) >= _PCT_LIMIT:
        return f"{'>+' if v > 0 else '<-'}{_PCT_LIMIT:.0f}%"
    return f"{v:+.1f}%"


def format_comparison(df, fmt="text", confidence=0.95):
    """Readable form of a ``compare()`` DataFrame."""
    pct = f"{confidence * 100:g}%"
    lines = []
    if df.empty:
        return "no cell has both the baseline and another stack\n"
    base = printable(df["baseline"].iloc[0])
    for block, g in df.groupby("block", sort=False):
        block = printable(block)
        if fmt == "markdown":
            lines.append(f"**{block}** (vs {base})\n")
            lines.append(f"| Metric | Stack | Delta | {pct} CI | n | Verdict |")
            lines.append("|---|---|---:|---|---:|---|")
        else:
            lines.append(f"{block} (vs {base})")
        for rec in g.itertuples(index=False):
            label = METRICS[rec.metric].label
            stack = printable(rec.stack)
            delta = _pct(rec.delta_pct)
            ci = ("-" if not (math.isfinite(rec.ci_low_pct) and math.isfinite(rec.ci_high_pct))
                  else f"[{_pct(rec.ci_low_pct)}, {_pct(rec.ci_high_pct)}]")
            n = f"{rec.n}/{rec.n_baseline}"
            if fmt == "markdown":
                lines.append(f"| {label} | {stack} | {delta} | {ci} | {n} | {rec.verdict} |")
            else:
                lines.append(f"  {label:<22} {stack:<18} {delta:>8}  {ci:<20} "
                             f"n={n:<6} {rec.verdict}")
        lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# loading


def _looks_like_fio(obj):
    return isinstance(obj, dict) and ("fio version" in obj or
                                      (isinstance(obj.get("jobs"), list) and "results" not in obj
                                       and obj.get("schema") is None))


# Sources of results that Python builds itself (fio.py, reference.py): they do
# not have the library's schema, so the library's parser cannot read them.
_PYTHON_SOURCES = ("fio", "reference")


def _library_json(text):
    """The library's reading of one result's JSON: checked by its strict parser
    (nvb_result_parse) and written back by its writer. NvbenchError(EINVAL)
    names what is wrong."""
    try:
        from . import _nvbench
    except ImportError as e:
        raise ImportError("loading nvbench results needs the C extension nvbench._nvbench: "
                          "the library's own parser checks them") from e
    return _nvbench.result_json(text)


def _result(d, meta=None, where=None, raw=None):
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


def from_obj(obj, meta=None, ncpus=None, raw=None):
    """A ResultSet from parsed JSON of any supported shape (``ncpus``: see :func:`load`).

    nvbench results are read by the library's strict parser (see :func:`load`);
    ``raw`` is the text ``obj`` was parsed from, handed to it as it is when the
    document is a single result."""
    if isinstance(obj, list):
        return ResultSet(_result(d, meta, f"[{i}]") for i, d in enumerate(obj))
    if not isinstance(obj, dict):
        raise ValueError(f"not an nvbench or fio result: top level is {type(obj).__name__}")
    if isinstance(obj.get("results"), list):
        schema = obj.get("schema", RESULTSET_SCHEMA)
        if schema != RESULTSET_SCHEMA:
            raise ValueError(f"unsupported result set schema {schema!r} (this version reads "
                             f"{RESULTSET_SCHEMA!r})")
        return ResultSet(_result(d, meta, f"results[{i}]") for i, d in enumerate(obj["results"]))
    if _looks_like_fio(obj):
        from . import fio
        return fio.from_fio(obj, meta=meta, ncpus=ncpus)
    schema = obj.get("schema")
    if schema == RESULT_SCHEMA or (schema is None and "engine" in obj):
        return ResultSet([_result(obj, meta, raw=raw)])
    if isinstance(schema, str) and schema.startswith("nvbench.result/"):
        raise ValueError(f"unsupported result schema {schema!r} (this version reads {RESULT_SCHEMA!r})")
    raise ValueError("not an nvbench result, result set, or fio JSON output")


class _NotJSON(ValueError):
    """Text that Python's json module reads but RFC 8259 (and the library) refuse."""


def _unique_keys(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise _NotJSON(f"duplicate key {k!r} in an object")
        d[k] = v
    return d


def _no_constant(name):
    raise _NotJSON(f"{name} is not a JSON number")


def _finite(text):
    v = float(text)
    if math.isinf(v):
        raise _NotJSON(f"the number {text[:40]} does not fit in a double")
    return v


def _strict_json(text, unique_keys=True):
    # Only what RFC 8259 allows: what lies around the results (a result set, a
    # list) is held to the rule the library holds each result to, so that no
    # second value of a key, no NaN and no Infinity hides behind the one the
    # library is shown.
    return json.loads(text, parse_constant=_no_constant, parse_float=_finite,
                      object_pairs_hook=_unique_keys if unique_keys else None)


def _parse_json_text(text, loads):
    """(loads(text), the text it was parsed from)."""
    try:
        return loads(text), text
    except _NotJSON:
        raise
    except json.JSONDecodeError:
        # fio prints notes ("fio: ...") before the JSON when stderr and stdout are mixed.
        lines = text.splitlines(True)
        for i, line in enumerate(lines):
            if line.startswith("{"):
                rest = "".join(lines[i:])
                return loads(rest), rest
        raise


def _parse_text(text, unique_keys=True):
    return _parse_json_text(text, lambda t: _strict_json(t, unique_keys))[0]


def _parse_document(text):
    """(parsed JSON, the text of the JSON or None): strict JSON, except that
    fio's own output is read as Python's json reads it (fio is not ours to
    fix; fio.from_fio checks its figures)."""
    try:
        return _parse_json_text(text, _strict_json)
    except _NotJSON as e:
        try:
            obj = _parse_json_text(text, json.loads)[0]
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
    if hasattr(path_or_file, "read"):
        text = path_or_file.read()
    else:
        with open(path_or_file, "rb") as f:
            text = f.read()
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    # Whatever the file holds, a malformed one is a ValueError (or an
    # NvbenchError) with a message, never a TypeError from deep inside
    # (tests/fuzz/fuzz_load.py).
    try:
        obj, raw = _parse_document(text)
        rs = from_obj(obj, ncpus=ncpus, raw=raw)
        for r in rs:
            _row(r)  # what tables and comparisons read must be readable
            for v in r.meta.values():
                hash(v)  # labels group results: plain values only
    except (ValueError, NvbenchError):
        raise
    except (TypeError, AttributeError, KeyError, IndexError, OverflowError, RecursionError) as e:
        raise ValueError(f"malformed result file: {type(e).__name__}: {e}") from None
    if stack is not None:
        rs = rs.with_meta(stack=stack)
    return rs


def loads(text, stack=None, ncpus=None):
    """:func:`load` from a string."""
    return load(io.StringIO(text), stack=stack, ncpus=ncpus)
