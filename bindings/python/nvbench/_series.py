"""A result's time series as rows or a DataFrame, and its latency over time as a plot.

Each ``timeseries`` point carries the interval's p50/p99/p99.9 latency (from the interval's
own histogram, docs/json-schema.md); here they become columns ``read_p50_ns``,
``read_p99_ns``, ``read_p99_9_ns`` (and ``write_...``), None/NaN where the interval had no
completion or the result has no per-interval histograms.
"""

from __future__ import annotations

import math

__all__ = ["timeseries_rows", "timeseries_frame", "latency_over_time", "SERIES_PERCENTILES"]

SERIES_PERCENTILES = (("p50", "p50"), ("p99", "p99"), ("p99.9", "p99_9"))
_DIR_KEYS = ("ios", "bytes", "iops", "bw_bytes_s", "lat_mean_ns")


def _data(result):
    return result.data if hasattr(result, "data") else result


def timeseries_rows(result):
    """[{column: value}] one per interval: t_s, dt_s, t_unix_ns, errors, system_pct, and per
    direction ios, bytes, iops, bw_bytes_s, lat_mean_ns, p50_ns, p99_ns, p99_9_ns."""
    rows = []
    for p in _data(result).get("timeseries") or []:
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
    from ._optional import _pandas
    pd = _pandas()
    return pd.DataFrame(timeseries_rows(result))


def _directions(data, direction):
    if direction is not None:
        if direction not in ("read", "write"):
            raise ValueError(f"direction must be 'read', 'write' or None, got {direction!r}")
        return [direction]
    return [d for d in ("read", "write")
            if any(((p.get(d) or {}).get("ios") or 0) > 0 for p in data.get("timeseries") or [])]


def latency_over_time(result, ax=None, direction=None):
    """p50, p99 and p99.9 latency (ms) of each interval over the measured window, one line
    each (per direction that did I/O, or ``direction``): latency spikes over time show here,
    where the whole run's percentiles hide them. Returns the Figure."""
    from .plot import _new_figure, _colors, _finish_axes
    data = _data(result)
    pts = [p for p in data.get("timeseries") or [] if isinstance(p, dict)]
    if not pts:
        raise ValueError("nothing to plot: the result has no time series")
    dirs = _directions(data, direction)
    if not dirs:
        raise ValueError("nothing to plot: no interval completed an I/O")
    if ax is None:
        fig, (ax,) = _new_figure(1, 1)
    else:
        fig = ax.figure
    colors = _colors(len(SERIES_PERCENTILES) * len(dirs))
    xs = [0.0] + [p["t_s"] for p in pts]
    k = 0
    for d in dirs:
        for key, _ in SERIES_PERCENTILES:
            ys = [(p.get(d) or {}).get(key) for p in pts]
            ys = [v / 1e6 if isinstance(v, (int, float)) else math.nan for v in ys]
            ax.plot(xs, [ys[0]] + ys, drawstyle="steps-pre", color=colors[k], linewidth=1.4,
                    label=f"{d} {key}" if len(dirs) > 1 else key)
            k += 1
    gaps = any((p.get(d) or {}).get("lat_hist") is None for p in pts for d in dirs)
    _finish_axes(ax, "latency per interval" + (" (some intervals have no histogram)" if gaps else ""),
                 "time in the measured window (s)", "latency (ms)")
    return fig
