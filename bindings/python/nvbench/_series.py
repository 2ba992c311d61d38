"""A result's time series as rows or a DataFrame (its plot: nvbench.plot.latency_over_time).

Each ``timeseries`` point carries the interval's p50/p99/p99.9 latency (from the interval's
own histogram, docs/json-schema.md); here they become columns ``read_p50_ns``,
``read_p99_ns``, ``read_p99_9_ns`` (and ``write_...``), None/NaN where the interval had no
completion or the result has no per-interval histograms.
"""

from __future__ import annotations

import math

from ._optional import _pandas

__all__ = ["timeseries_rows", "timeseries_frame", "SERIES_PERCENTILES"]

SERIES_PERCENTILES = (("p50", "p50"), ("p99", "p99"), ("p99.9", "p99_9"))
_DIR_KEYS = ("ios", "bytes", "iops", "bw_bytes_s", "lat_mean_ns")


def series_data(result):
    """The result's dict (a Result or the dict itself)."""
    return result.data if hasattr(result, "data") else result


def timeseries_rows(result):
    """[{column: value}] one per interval: t_s, dt_s, t_unix_ns, errors, system_pct, and per
    direction ios, bytes, iops, bw_bytes_s, lat_mean_ns, p50_ns, p99_ns, p99_9_ns."""
    rows = []
    for p in series_data(result).get("timeseries") or []:
        row = {k: p.get(k) for k in ("t_s", "dt_s", "t_unix_ns", "errors", "system_pct")}
        for d in ("read", "write"):
            x = p.get(d) or {}
            for k in _DIR_KEYS:
                row[f"{d}_{k}"] = x.get(k)
            for key, col in SERIES_PERCENTILES:
                row[f"{d}_{col}_ns"] = x.get(key)
        rows.append(row)
    return rows


def timeseries_frame(result):
    """The time series as a pandas DataFrame (the columns of :func:`timeseries_rows`)."""
    pd = _pandas()
    return pd.DataFrame(timeseries_rows(result))
