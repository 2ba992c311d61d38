"""The HTML report's trend view: runs from a store over time.

One figure per metric (and per workload cell when the store holds several),
one line per host and stack, one point per save: the runs of one host, stack
and workload saved together (a matrix and its repeats share the second of
their save, ``saved_at``). A point of n >= 2 runs carries the 95% confidence
interval of their mean (nvbench.stats.mean_interval, as the comparison
does); a point of one run has none, and the figure's caption says so. When
the store holds that run's time-series points (every interval as measured),
a point of one run shows how its IOPS and bandwidth moved within the run
instead: a light bar from the 5th to the 95th percentile of its intervals.
"""
import datetime
import html
import math

from . import plot as _plot
from . import stats
from ._report_figures import _literal, _svg

__all__ = ["METRICS", "trend_data", "trend_section", "point_spreads"]

# (store column, axis label, the interval's domain)
METRICS = (("iops", "IOPS", "positive"), ("bw_gib_s", "bandwidth (GiB/s)", "positive"),
           ("lat_mean_ms", "mean latency (ms)", "positive"), ("lat_p99_ms", "p99 latency (ms)", "positive"),
           ("cpu_us_per_io", "CPU per I/O (us)", "positive"))


def _cell(row):
    return row.get("cell") or " ".join(f"{k}={row[k]}" for k in ("rw", "bs", "qd", "jobs") if row.get(k) is not None)


def _when(row):
    ns = row.get("start_unix_ns")
    return datetime.datetime.fromtimestamp(ns / 1e9, datetime.timezone.utc) if ns else None


# what the stored points give, per interval: the metric's value from a point row
SPREAD = {"iops": lambda p: sum(p.get(f"{d}_iops") or 0.0 for d in ("read", "write", "trim")),
          "bw_gib_s": lambda p: sum(p.get(f"{d}_bw_bytes_s") or 0.0 for d in ("read", "write", "trim")) / 2**30}


def _quantile(sorted_values, q):
    """The nearest-rank quantile of sorted values."""
    return sorted_values[min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))]


RATES = tuple(f"{d}_{c}" for d in ("read", "write", "trim") for c in ("iops", "bw_bytes_s"))


def _intervals(pts):
    """A run's points, one per interval: the streams of an MPI run's ranks (labels rank=R)
    measured at once, so their i-th points add up, as the merged series does; other points
    are intervals of their own."""
    out, ranks = [], {}
    for p in pts:
        if str(p.get("label") or "").startswith("rank="):
            s = ranks.setdefault(p["idx"], {})
            for k in RATES:
                s[k] = (s.get(k) or 0.0) + (p.get(k) or 0.0)
        else:
            out.append(p)
    return out + [ranks[i] for i in sorted(ranks)]


def point_spreads(points):
    """{run_id: {metric: (5th, 95th percentile of its intervals)}} from stored points
    (Store.points' rows; an MPI run's ranks summed interval by interval); runs of fewer than
    two intervals have none."""
    by_run = {}
    for p in points:
        by_run.setdefault(p["run_id"], []).append(p)
    by_run = {rid: _intervals(pts) for rid, pts in by_run.items()}
    out = {}
    for rid, pts in by_run.items():
        if len(pts) < 2:
            continue
        for metric, fn in SPREAD.items():
            vals = sorted(fn(p) for p in pts)
            out.setdefault(rid, {})[metric] = (_quantile(vals, 0.05), _quantile(vals, 0.95))
    return out


def trend_data(rows, spreads=None):
    """{metric: {cell: {(host, stack): [point, ...] oldest first}}} from store rows
    (Store.query's dicts). A point: when (the first run's start, UTC), mean, low, high
    (None without an interval), n (runs), why (None, or why there is no interval), and
    for a point of one run with stored points (spreads: point_spreads'), spread: the 5th
    and 95th percentiles of its intervals' values."""
    groups = {}
    for row in rows:
        when = _when(row)
        if when is None:
            continue
        key = (_cell(row), row.get("host") or "?", row.get("stack") or row.get("engine") or "?",
               row.get("workload_key"), row.get("saved_at"))
        groups.setdefault(key, []).append(row)
    out = {}
    for (cell, host, stack, _, _), runs in groups.items():
        when = min(_when(r) for r in runs)
        for metric, _, domain in METRICS:
            values = [r[metric] for r in runs if isinstance(r.get(metric), (int, float)) and math.isfinite(r[metric])]
            if not values:
                continue
            ci = stats.mean_interval(values, domain)
            ok = ci["why"] is None
            spread = (spreads or {}).get(runs[0].get("id"), {}).get(metric) if len(runs) == 1 else None
            out.setdefault(metric, {}).setdefault(cell, {}).setdefault((host, stack), []).append(
                {"when": when, "mean": ci["mean"], "low": ci["low"] if ok else None,
                 "high": ci["high"] if ok else None, "n": len(values), "why": ci["why"], "spread": spread})
    for cells in out.values():
        for lines in cells.values():
            for pts in lines.values():
                pts.sort(key=lambda p: p["when"])
    return out


def _figure(lines, title, ylabel):
    fig, (a,) = _plot._new_figure(1, 1)
    colors = dict(zip(sorted(lines), _plot._colors(len(lines))))
    for (host, stack), pts in sorted(lines.items()):
        xs = [p["when"] for p in pts]
        ys = [p["mean"] for p in pts]
        lo = [p["mean"] - p["low"] if p["low"] is not None else 0.0 for p in pts]
        hi = [p["high"] - p["mean"] if p["high"] is not None else 0.0 for p in pts]
        a.errorbar(xs, ys, yerr=[lo, hi], color=colors[(host, stack)], marker="o", markersize=4, capsize=3,
                   label=f"{host} / {stack}")
        within = [p for p in pts if p.get("spread")]
        if within:  # one run's intervals, not an interval of a mean: drawn apart, lighter
            a.vlines([p["when"] for p in within], [p["spread"][0] for p in within],
                     [p["spread"][1] for p in within], color=colors[(host, stack)], alpha=0.3, linewidth=6)
    a.set_title(title)
    a.set_xlabel("run started (UTC)")
    a.set_ylabel(ylabel)
    a.set_ylim(bottom=0)
    a.grid(True, alpha=0.3)
    a.legend(fontsize=7)
    fig.autofmt_xdate()
    fig.set_size_inches(5.6, 3.4)
    return fig


def trend_svgs(data):
    """[(metric, cell, SVG)] of trend_data's figures (needs matplotlib)."""
    out = []
    labels = dict((m, l) for m, l, _ in METRICS)
    for i, (metric, cells) in enumerate((m, data[m]) for m, _, _ in METRICS if m in data):
        for j, (cell, lines) in enumerate(sorted(cells.items())):
            shown = {(_literal(h), _literal(s)): p for (h, s), p in lines.items()}
            title = labels[metric] + ("" if len(cells) == 1 else f"\n{_literal(cell)}")
            out.append((metric, cell, _svg(lambda: _figure(shown, title, labels[metric]), f"trend-{i}-{j}-")))
    return out


def trend_section(rows, no_plots, spreads=None):
    """The report's "Trend" section (its HTML) from store rows (and point_spreads')."""
    data = trend_data(rows, spreads)
    if not data:
        body = '<p class="note">The store holds no run with figures to draw over time.</p>'
    elif no_plots:
        body = f'<p class="missing">No figure: {html.escape(no_plots)}.</p>'
    else:
        cards = "".join(f'<figure class="card" data-metric="{html.escape(m)}">{svg}</figure>'
                        for m, _, svg in trend_svgs(data))
        single = any(p["n"] < 2 for cells in data.values() for lines in cells.values()
                     for pts in lines.values() for p in pts)
        body = (f'<div class="grid figs">{cards}</div><p class="caption">Each metric over time, one line '
                "per host and stack, one point per save of a workload (the runs saved together: a matrix "
                "and its repeats); error bars: 95% confidence interval of the mean over those runs."
                + (" A point of one run has no interval." if single else "")
                + (" A light bar on a point of one run spans the 5th to the 95th percentile of its intervals "
                   "(its time-series points in the store): how the figure moved within that run."
                   if any(p.get("spread") for cells in data.values() for lines in cells.values()
                          for pts in lines.values() for p in pts) else "") + "</p>")
    return (f'<section id="trend"><h2>Trend</h2><p class="intro">{len(rows)} run'
            f'{"" if len(rows) == 1 else "s"} from the store.</p>{body}</section>')
