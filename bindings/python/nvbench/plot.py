"""Plots of a ResultSet (used by ``ResultSet.plot``).

Figures are built with ``matplotlib.figure.Figure`` rather than pyplot: no global figure
state, nothing to close, no double display in notebooks (Jupyter shows a returned Figure
once), and ``fig.savefig("x.png")`` works on a headless machine. To show one in a script
outside Jupyter, pass an ``ax`` from ``plt.subplots()`` and call ``plt.show()``.
"""

from __future__ import annotations

import math

from ._printable import printable
from .labels import block_label
from .metrics import FIGURE_METRICS, METRICS, metric_list
from .report import _ran_qd as ran_qd, column_labels, with_qd
from ._series import SERIES_PERCENTILES, series_data

__all__ = ["plot", "bars", "latency", "efficiency", "latency_over_time", "search_curve", "LATENCY_PERCENTILES"]

LATENCY_PERCENTILES = (("lat_p50_ms", "p50"), ("lat_p90_ms", "p90"), ("lat_p99_ms", "p99"),
                       ("lat_p99_9_ms", "p99.9"))


def _mpl():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise ImportError("nvbench plots need matplotlib; install it with "
                          "'apt install python3-matplotlib' (Debian/Ubuntu) or your package "
                          "manager") from exc
    return matplotlib, Figure


def _new_figure(nrows, ncols, width_per=6.0, height_per=3.6):
    _, Figure = _mpl()
    fig = Figure(figsize=(width_per * ncols, height_per * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, [a for row in axes for a in row]


def _finish_axes(ax, title, xlabel, ylabel):
    """Title, labels, both axes from 0, a light grid and a small legend."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


def _stats(rs, metric_keys, cells=None):
    """{(cell, op): {stack: {metric: (mean, low, high)}}}, blocks in published order, stacks.
    low/high: the mean's interval in the metric's domain (NaN without one), so an error bar
    never leaves it (a CPU share never above 100 %, a rate never below 0)."""
    summ = rs.summary(metric_keys)
    blocks = [b for b in rs.blocks() if _wanted(b, cells)]
    stacks = list(dict.fromkeys(summ["stack"])) if len(summ) else []
    table = {}
    for rec in summ.itertuples(index=False):
        table.setdefault((rec.cell, rec.op), {}).setdefault(rec.stack, {})[rec.metric] = \
            (rec.mean, rec.ci_low, rec.ci_high)
    return blocks, stacks, table


def _err_bars(ys, lows, highs):
    """[[below], [above]] of the error bars of means ys with intervals [low, high], or
    None when no mean has an interval."""
    if not any(math.isfinite(lo) and math.isfinite(hi) for lo, hi in zip(lows, highs)):
        return None
    below = [y - lo if math.isfinite(lo) and math.isfinite(y) else 0.0 for y, lo in zip(ys, lows)]
    above = [hi - y if math.isfinite(hi) and math.isfinite(y) else 0.0 for y, hi in zip(ys, highs)]
    return [below, above]


def _wanted(block, cells):
    """cells: None, or names like "rand4k" (both ops), "rand4k read" or ("rand4k", "read")."""
    if cells is None:
        return True
    if isinstance(cells, (str, tuple)):
        cells = [cells]
    cell, op = block
    return any(c == cell or c == (cell, op) or c == f"{cell} {op}" for c in cells)


def _colors(n):
    matplotlib, _ = _mpl()
    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _null_formatter():
    from matplotlib.ticker import NullFormatter
    return NullFormatter()


def _auto_log(values):
    pos = [v for v in values if v and v > 0 and not math.isnan(v)]
    return bool(pos) and max(pos) / min(pos) > 100


def _y_scale(ax, values, log):
    """A log axis whose ticks say something: 1-2-5 steps per decade, each
    labelled, so even a range of a few x has labels; a range narrower than
    2.5x (one labelled tick at best on a log axis) stays linear."""
    pos = [v for v in values if v and v > 0 and not math.isnan(v)]
    if not log or not pos or max(pos) / min(pos) < 2.5:
        return
    from matplotlib.ticker import FuncFormatter, LogLocator
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.yaxis.set_minor_formatter(_null_formatter())


def _ran_qd(r):
    """The queue depth a run ran at: qd_effective (a synchronous engine runs at 1 per job
    whatever qd asked), else the qd it asked."""
    q = r.data.get("qd_effective") if isinstance(r.data, dict) else None
    return q if q else r.meta.get("qd")


def _ran_qd_labels(rs):
    """{column label: "label (qd N)"} with the queue depth each column's runs ran at."""
    results = list(rs)
    groups = {}
    for r, label in zip(results, column_labels(results)):
        groups.setdefault(label, []).append({"qd_effective": _ran_qd(r)})
    return {label: with_qd(label, ran_qd(rows)) for label, rows in groups.items()}


def _context(rs):
    """The figure's title: what was run, where (qd, jobs, hosts, targets). The qd is the
    one each stack ran at: "qd 32 (psync 1)" when a synchronous engine ran at 1."""
    def values(get):
        return list(dict.fromkeys(str(v) for v in (get(r) for r in rs) if v not in (None, "")))
    parts = []
    qds = {}
    for r in rs:
        qds.setdefault(str(r.meta.get("stack")), set()).add(_ran_qd(r))
    asked = values(lambda r: r.meta.get("qd"))
    odd = {s: q for s, q in qds.items() if q and {str(x) for x in q} != set(asked) and None not in q}
    if asked:
        text = f"qd {', '.join(asked[:2])}{' ...' if len(asked) > 2 else ''}"
        if odd:
            text += " (" + ", ".join(f"{s} ran at {'/'.join(sorted(str(x) for x in q))}"
                                     for s, q in list(odd.items())[:3]) + ")"
        parts.append(text)
    for name, get in (("jobs", lambda r: r.meta.get("jobs")),
                      ("host", lambda r: r.data.get("host")), ("target", lambda r: r.meta.get("target"))):
        vals = values(get)
        if vals:
            parts.append(f"{name} {', '.join(vals[:2])}{' ...' if len(vals) > 2 else ''}")
    return "nvbench: " + "; ".join(parts) if parts else "nvbench"


def _titled(fig, rs):
    fig.suptitle(printable(_context(rs)), fontsize=9)
    return fig


def _grouped_bars(ax, rs_stats, metric_key, log=None, legend=True):
    blocks, stacks, table = rs_stats
    m = METRICS[metric_key]
    colors = _colors(len(stacks))
    n = max(1, len(stacks))
    width = 0.8 / n
    all_values = []
    for i, stack in enumerate(stacks):
        xs, ys, lows, highs = [], [], [], []
        for j, block in enumerate(blocks):
            mean, low, high = table.get(block, {}).get(stack, {}).get(metric_key, (math.nan,) * 3)
            if mean is None or math.isnan(mean):
                continue
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(mean)
            lows.append(low)
            highs.append(high)
            all_values.append(mean)
        if not xs:
            continue
        yerr = _err_bars(ys, lows, highs)
        ax.bar(xs, ys, width=width * 0.95, color=colors[i], label=str(stack),
               yerr=yerr, capsize=3 if yerr else 0, error_kw={"elinewidth": 1})
    ax.set_xticks(range(len(blocks)))
    ax.set_xticklabels([block_label(c, o).replace(" ", "\n", 1) for c, o in blocks], fontsize=8)
    ax.set_ylabel(m.label)
    ax.set_title(m.label)
    if log is None:
        log = _auto_log(all_values)
    _y_scale(ax, all_values, log)
    ax.grid(axis="y", alpha=0.3)
    if legend and stacks:
        ax.legend(fontsize=7, ncol=min(4, len(stacks)))


def bars(rs, metric=None, ax=None, log=None, cells=None):
    """Grouped bars: x = cells (published order), one bar per stack, CI error bars with
    repeats. ``metric``: one key or a list (default: the seed table's six metrics, one panel
    each). ``log``: y log scale (default: when values span more than 100x)."""
    ms = metric_list(metric, FIGURE_METRICS)
    st = _stats(rs, [m.key for m in ms], cells)
    if ax is not None:
        if len(ms) != 1:
            raise ValueError("plot(ax=...) draws one metric; pass metric='...'")
        _grouped_bars(ax, st, ms[0].key, log=log)
        return ax.figure
    ncols = 1 if len(ms) == 1 else 2
    nrows = math.ceil(len(ms) / ncols)
    fig, axes = _new_figure(nrows, ncols, width_per=max(6.0, 1.2 * len(st[0]) + 2))
    # a legend in every panel: a panel read alone still says whose bar is whose
    for i, m in enumerate(ms):
        _grouped_bars(axes[i], st, m.key, log=log)
    for a in axes[len(ms):]:
        a.set_visible(False)
    return _titled(fig, rs)


def latency(rs, ax=None, cells=None, percentiles=None):
    """Latency percentiles (p50/p90/p99/p99.9, ms, log scale): one panel per cell, one line
    per stack. Stacks without percentiles (e.g. the published reference, which gives only the
    mean) show their mean as a dashed line."""
    pcts = list(percentiles or LATENCY_PERCENTILES)
    keys = [k for k, _ in pcts] + ["lat_mean_ms"]
    blocks, stacks, table = _stats(rs, keys, cells)
    # Panels where no stack has percentiles (only published means) say little; keep them
    # only when nothing has percentiles at all.
    with_pcts = [b for b in blocks
                 if any(not math.isnan(f.get(k, (math.nan,))[0])
                        for f in table.get(b, {}).values() for k, _ in pcts)]
    blocks = with_pcts or blocks
    if ax is not None and len(blocks) != 1:
        raise ValueError(f"plot(kind='latency', ax=...) draws one cell; this set has "
                         f"{len(blocks)} (pass cells=[...] to choose one)")
    if ax is None:
        ncols = min(4, max(1, len(blocks)))
        nrows = max(1, math.ceil(len(blocks) / ncols))
        fig, axes = _new_figure(nrows, ncols, width_per=4.2, height_per=3.4)
    else:
        fig, axes = ax.figure, [ax]
    colors = dict(zip(stacks, _colors(len(stacks))))
    ran = _ran_qd_labels(rs)
    x = list(range(len(pcts)))
    for a, block in zip(axes, blocks):
        shown = []
        for stack in stacks:
            figs = table.get(block, {}).get(stack)
            if not figs:
                continue
            ys = [figs.get(k, (math.nan,) * 3)[0] for k, _ in pcts]
            lows = [figs.get(k, (math.nan,) * 3)[1] for k, _ in pcts]
            highs = [figs.get(k, (math.nan,) * 3)[2] for k, _ in pcts]
            shown += [y for y in ys if not math.isnan(y)]
            name = ran.get(stack, str(stack))
            if any(not math.isnan(y) for y in ys):
                a.errorbar(x, ys, yerr=_err_bars(ys, lows, highs),
                           marker="o", capsize=3, color=colors[stack], label=name)
            else:
                mean = figs.get("lat_mean_ms", (math.nan,) * 3)[0]
                if not math.isnan(mean):
                    shown.append(mean)
                    a.axhline(mean, linestyle="--", color=colors[stack], linewidth=1,
                              label=f"{name} (mean)")
        a.set_xticks(x)
        a.set_xticklabels([name for _, name in pcts])
        _y_scale(a, shown, True)
        a.set_ylabel("Latency (ms)")
        a.set_title(block_label(*block))
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    for a in axes[len(blocks):]:
        a.set_visible(False)
    return _titled(fig, rs) if ax is None else fig


def efficiency(rs, ax=None, log=None, cells=None):
    """IOPS per core (the published comparison's headline, made explicit) as grouped bars
    per cell, and, when drawing a new figure, CPU per I/O beside it."""
    if ax is not None:
        return bars(rs, "iops_per_core", ax=ax, log=log, cells=cells)
    st = _stats(rs, ["iops_per_core", "cpu_us_per_io"], cells)
    fig, axes = _new_figure(1, 2, width_per=max(6.0, 1.2 * len(st[0]) + 2))
    _grouped_bars(axes[0], st, "iops_per_core", log=log)
    _grouped_bars(axes[1], st, "cpu_us_per_io", log=log)
    return _titled(fig, rs)


def plot(rs, kind="bars", metric=None, ax=None, **kwargs):
    if len(rs) == 0:
        raise ValueError("nothing to plot: the ResultSet is empty")
    if kind == "bars":
        return bars(rs, metric=metric, ax=ax, **kwargs)
    if kind == "latency":
        if metric is not None:
            raise ValueError("kind='latency' plots the percentiles; use percentiles=[...]")
        return latency(rs, ax=ax, **kwargs)
    if kind == "efficiency":
        if metric is not None:
            raise ValueError("kind='efficiency' plots IOPS per core and CPU per I/O")
        return efficiency(rs, ax=ax, **kwargs)
    raise ValueError(f"kind must be 'bars', 'latency' or 'efficiency', got {kind!r}")


def _series_directions(data, direction):
    if direction is not None:
        if direction not in ("read", "write"):
            raise ValueError(f"direction must be 'read', 'write' or None, got {direction!r}")
        return [direction]
    return [d for d in ("read", "write")
            if any(((p.get(d) or {}).get("ios") or 0) > 0 for p in data.get("timeseries") or [])]


def latency_over_time(result, ax=None, direction=None):
    """p50, p99 and p99.9 latency (ms) of each time-series interval of one result over the
    measured window, one step line each (per direction that did I/O, or ``direction``):
    latency spikes over time show here, where the whole run's percentiles hide them.
    Returns the Figure."""
    data = series_data(result)
    pts = [p for p in data.get("timeseries") or [] if isinstance(p, dict)]
    if not pts:
        raise ValueError("nothing to plot: the result has no time series")
    dirs = _series_directions(data, direction)
    if not dirs:
        raise ValueError("nothing to plot: no interval completed an I/O")
    if ax is None:
        fig, (ax,) = _new_figure(1, 1)
    else:
        fig = ax.figure
    colors = _colors(len(SERIES_PERCENTILES) * len(dirs))
    xs = [p["t_s"] for p in pts]
    k = 0
    for d in dirs:
        for key, _ in SERIES_PERCENTILES:
            ys = [(p.get(d) or {}).get(key) for p in pts]
            ys = [v / 1e6 if isinstance(v, (int, float)) else math.nan for v in ys]
            series_line(ax, xs, ys, color=colors[k], label=f"{d} {key}" if len(dirs) > 1 else key)
            k += 1
    gaps = any((p.get(d) or {}).get("lat_hist") is None for p in pts for d in dirs)
    _finish_axes(ax, "latency per interval" + (" (some intervals have no histogram)" if gaps else "")
                 + (f" ({SHORT_SERIES})" if len(pts) < 2 else ""),
                 "time in the measured window (s)", "latency (ms)")
    return fig


# What a figure of a series of one interval says: one sample is a point, not a level
# held over the run (a line from 0 would read as perfectly steady).
SHORT_SERIES = "one interval: too short for a series, drawn as a point"


def series_line(ax, ends, ys, color, label):
    """One time series on ax: each interval's value held over it from its start (a step
    line from 0 to the end of the last interval), or, for a series of one interval, a
    marker at its end and no line."""
    if len(ends) < 2:
        ax.plot(ends, ys, linestyle="none", marker="o", markersize=6, color=color, label=label)
        return
    ax.plot([0.0] + list(ends), [ys[0]] + list(ys), drawstyle="steps-pre", color=color, linewidth=1.4,
            label=label)


def search_curve(res, ax=None):
    """Throughput (IOPS) against the target's percentile (ms) for every point a latency-target
    search tried (nvbench.search), the bound as a vertical line and the answer marked.
    Returns the Figure."""
    if not res.points:
        raise ValueError("nothing to plot: the search ran no point")
    if ax is None:
        fig, (ax,) = _new_figure(1, 1)
    else:
        fig = ax.figure
    pts = sorted((p for p in res.points if p["lat_ns"] is not None), key=lambda p: p["lat_ns"])
    xs = [p["lat_ns"] / 1e6 for p in pts]
    ys = [p["iops"] for p in pts]
    ax.plot(xs, ys, marker="o", linewidth=1.2, color="tab:blue", label="points tried")
    for p, x, y in zip(pts, xs, ys):
        v = p[res.vary]
        ax.annotate("max" if v is None else f"{res.vary}={v}", (x, y), fontsize=6,
                    textcoords="offset points", xytext=(3, 3))
    ax.axvline(res.bound_ns / 1e6, color="tab:red", linestyle="--", label=f"bound {res.target}")
    if res.answer is not None:
        ax.plot([res.answer["lat_ns"] / 1e6], [res.answer["iops"]], marker="*", markersize=14,
                color="tab:green", linestyle="none", label="answer")
    _finish_axes(ax, f"latency-target search: {res.target}, varying {res.vary}", f"{res.key} latency (ms)",
                 "IOPS")
    return fig
