"""The figures the analysis reads from a result, and how tables name and print them.

:data:`METRICS` is the one registry of the metrics that tables, comparisons and
plots show (label, unit, which direction is better); :func:`figures` reads them
from one Result (its ``data`` and ``meta``) as a flat row, the row of
``ResultSet.to_frame``.
"""

import math

from ._percentile import PCT_KEYS, PCT_VALS, pct_min_ios

__all__ = ["Metric", "METRICS", "TABLE_METRICS", "FIGURE_METRICS", "FRAME_COLUMNS", "CPU_METRICS", "NOT_AVAILABLE",
           "format_value", "figures", "cpu_scope",
           "unsupported_text"]


class Metric:
    """One figure of the tables: ``key`` (a column of figures()), ``label``, ``unit``, and
    ``domain``, the values it can take (nvbench.stats.DOMAINS): "positive" (a rate, a time,
    a cost) or "share" (a share of the machine in %, 0 to 100). Intervals and comparisons
    are taken on the domain's scale (docs/analysis.md), decided here and never from the
    values."""

    __slots__ = ("key", "label", "higher_is_better", "unit", "domain")

    def __init__(self, key, label, higher_is_better, unit, domain="positive"):
        self.key, self.label, self.higher_is_better, self.unit = key, label, higher_is_better, unit
        self.domain = domain

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
    Metric("cpu_total_pct", "Total CPU Usage (%)", False, "%", "share"),
    # The seed's Total CPU Usage counts the whole machine; these split it:
    # nvbench's own process (every thread, kernel ones it drives included)
    # and everything else that ran meanwhile.
    Metric("cpu_nvbench_pct", "of which nvbench (%)", False, "%", "share"),
    Metric("cpu_others_pct", "other processes (%)", False, "%", "share"),
    Metric("cpu_us_per_io", "CPU per I/O (us)", False, "us"),
    Metric("iops_per_core", "IOPS per core", True, "IO/s/core"),
    Metric("process_cores", "Process cores", False, "cores"),
)}

# The seed table's rows (the published comparison's, docs/analysis.md) plus the two efficiency figures the articles lacked.
TABLE_METRICS = ("bw_gib_s", "iops", "lat_mean_ms", "cpu_total_pct", "cpu_nvbench_pct", "cpu_others_pct",
                 "cpu_us_per_io", "iops_per_core")
# What the plots and comparisons take by default: the table's figures without
# the split of Total CPU Usage (how busy the rest of the machine was is a
# condition of the run, not a property of the stack).
FIGURE_METRICS = ("bw_gib_s", "iops", "lat_mean_ms", "cpu_total_pct", "cpu_us_per_io", "iops_per_core")
# The metrics that come from a result's CPU figures (their scope: cpu_scope()).
CPU_METRICS = ("cpu_total_pct", "cpu_nvbench_pct", "cpu_others_pct", "cpu_us_per_io", "iops_per_core",
               "process_cores")
# How a table shows a figure the result does not have (null: not measured).
NOT_AVAILABLE = "n/a"


def cpu_scope(data):
    """What a result's CPU figures cover: ``"process"`` (nvbench: every thread of the
    process), or what the result says (fio: ``"fio job thread only"``)."""
    cpu = data.get("cpu") if isinstance(data.get("cpu"), dict) else {}
    return cpu.get("scope") or "process"


def _metric(key):
    try:
        return METRICS[key]
    except KeyError:
        raise ValueError(f"unknown metric {key!r}; known: {', '.join(METRICS)}") from None


def metric_list(metrics, default):
    """The Metrics named by ``metrics`` (a key, a list of keys, or None for ``default``)."""
    if metrics is None:
        return [_metric(k) for k in default]
    if isinstance(metrics, str):
        metrics = [metrics]
    return [_metric(k) for k in metrics]


def format_value(key, value):
    """Format one figure the way the published tables do; one the result does not
    have (null, NaN) is n/a."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return NOT_AVAILABLE
    v = float(value)
    if not math.isfinite(v):
        return NOT_AVAILABLE
    if abs(v) >= 1e15:
        return f"{v:.3g}"  # beyond any real figure: no wall of digits
    if key in ("iops", "iops_per_core"):
        return f"{v:,.0f}"
    if key in ("cpu_total_pct", "cpu_nvbench_pct", "cpu_others_pct"):
        return f"{v:.2f}"
    if abs(v) >= 0.01 or v == 0:
        return f"{v:.3f}" if abs(v) < 1000 else f"{v:,.1f}"
    # Sub-0.01 figures (ns-scale latencies in ms): three significant digits, no exponent.
    decimals = min(12, 2 - math.floor(math.log10(abs(v))))
    return f"{v:.{decimals}f}"


def _num(v):
    if v is None or isinstance(v, bool):
        return math.nan
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def bw_gib(d):
    """Bandwidth in GiB/s of one direction's figures (NaN when absent)."""
    if d.get("bw_gib_s") is not None:
        return _num(d["bw_gib_s"])
    if d.get("bw_bytes_s") is not None:
        return _num(d["bw_bytes_s"]) / 2**30
    return math.nan


_LAT_COLS = (("lat_mean_ms", "mean"), ("lat_p50_ms", "p50"), ("lat_p90_ms", "p90"),
             ("lat_p99_ms", "p99"), ("lat_p99_9_ms", "p99.9"))


_PCT_OF = dict(zip(PCT_KEYS, PCT_VALS))
# the percentile each latency column shows ("lat_p99_9_ms" -> 99.9), prefixed ones too
_COL_PCT = {c: _PCT_OF[k] for c, k in _LAT_COLS if k in _PCT_OF}
_COL_PCT.update({p + c: v for c, v in list(_COL_PCT.items()) for p in ("read_", "write_")})


def unsupported_text(key):
    """How a table shows percentile column ``key`` of a result with too few I/Os for it."""
    p = _COL_PCT.get(key)
    return f"{NOT_AVAILABLE} (n<{pct_min_ios(p):,})" if p is not None else NOT_AVAILABLE


def _direction_figures(d):
    """A direction's figures; a percentile the result marks as not supported (too few
    I/Os: ``lat_pct_supported``) is NaN, and its column is named in ``unsupported``."""
    d = d if isinstance(d, dict) else {}
    lat = d.get("lat_ns") if isinstance(d.get("lat_ns"), dict) else {}
    ok = d.get("lat_pct_supported") if isinstance(d.get("lat_pct_supported"), dict) else {}
    out = {"bw_gib_s": bw_gib(d), "iops": _num(d.get("iops"))}
    unsupported = []
    for col, key in _LAT_COLS:
        out[col] = _num(lat.get(key)) / 1e6
        if ok.get(key) is False:
            out[col] = math.nan
            unsupported.append(col)
    return out, unsupported


# Columns of to_frame(), in order; mixed rw adds read_*/write_* columns after them.
FRAME_COLUMNS = (
    "stack", "engine", "cell", "op", "rw", "bs", "qd", "qd_effective", "jobs", "repeat", "target",
    "bw_gib_s", "iops", "lat_mean_ms", "lat_p50_ms", "lat_p90_ms", "lat_p99_ms", "lat_p99_9_ms",
    "cpu_total_pct", "cpu_nvbench_pct", "cpu_others_pct", "cpu_us_per_io", "iops_per_core", "process_cores",
    "cpu_scope", "duration_s",
    "source", "cancelled", "lat_pct_unsupported",
)
_DIRECTION_COLS = ("bw_gib_s", "iops") + tuple(c for c, _ in _LAT_COLS)


def figures(r):
    """The analysis figures of one Result (``r.meta``, ``r.data``) as a flat dict: the
    labels, then the figures of its op (both directions summed for mixed rw, with
    read_*/write_* columns besides), CPU, duration, source."""
    m = r.meta
    data = r.data
    row = {k: m.get(k) for k in ("stack", "engine", "cell", "op", "rw", "bs", "qd", "jobs",
                                  "repeat", "target")}
    # the queue depth the engine really ran at (a synchronous engine: 1 per job)
    row["qd_effective"] = data.get("qd_effective") if data.get("qd_effective") else m.get("qd")
    op = m.get("op")
    if op in ("read", "write", "trim"):
        figs, unsupported = _direction_figures(data.get(op))
        row.update(figs)
        mixed = None
    else:
        (rd, un_r), (wr, un_w) = _direction_figures(data.get("read")), _direction_figures(data.get("write"))
        unsupported = ["read_" + c for c in un_r] + ["write_" + c for c in un_w]
        # The library's total: the directions summed, the mean latency of all their I/Os
        # (total.lat_mean_ns); percentiles of the union are not recoverable from the two
        # summaries, so they stay NaN.
        tot = data.get("total") if isinstance(data.get("total"), dict) else {}
        row.update({"bw_gib_s": bw_gib(tot), "iops": _num(tot.get("iops")),
                    "lat_mean_ms": _num(tot.get("lat_mean_ns")) / 1e6})
        for c, _ in _LAT_COLS[1:]:
            row[c] = math.nan
        mixed = (rd, wr)
    cpu = data.get("cpu") if isinstance(data.get("cpu"), dict) else {}
    row["cpu_total_pct"] = _num(cpu.get("system_pct"))
    ncpus = _num(cpu.get("ncpus"))
    cores = _num(cpu.get("process_cores"))
    # the library's share (never above system_pct, over its window); computed for results without it
    own = _num(cpu.get("nvbench_pct"))
    row["cpu_nvbench_pct"] = own if "nvbench_pct" in cpu else (100.0 * cores / ncpus if ncpus and ncpus > 0
                                                               else math.nan)
    row["cpu_others_pct"] = _num(cpu.get("background_pct"))
    row["cpu_us_per_io"] = _num(cpu.get("cpu_us_per_io"))
    row["iops_per_core"] = _num(cpu.get("iops_per_core"))
    row["process_cores"] = _num(cpu.get("process_cores"))
    row["cpu_scope"] = cpu_scope(data)
    row["duration_s"] = _num(data.get("duration_s"))
    row["source"] = data.get("source", "nvbench")
    row["cancelled"] = bool(data.get("cancelled", False))
    # the percentile columns left NaN because the run had too few I/Os for them
    row["lat_pct_unsupported"] = ",".join(unsupported)
    if mixed:
        for prefix, figs in zip(("read_", "write_"), mixed):
            for c in _DIRECTION_COLS:
                row[prefix + c] = figs[c]
    return row
