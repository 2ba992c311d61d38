"""The figures of the HTML report, as inline SVG drawn by matplotlib's SVG backend.

The latency percentiles are :func:`nvbench.plot.latency`; the time series is
drawn here with the same figure helpers. Each SVG is made fit for inlining in
one HTML page: no XML prolog, text kept as text in the page's fonts, ids given
a per-figure prefix (several SVGs share the page's id space), no date. Labels
come from results (stack names, targets): matplotlib escapes them as XML, their
control characters are shown escaped (nvbench._printable), and their dollar
signs are escaped so that it never reads them as TeX (the axes' own tick
labels still are).

Without matplotlib the report is written without figures and says what to
install (:func:`missing`).
"""

import io
import math
import re

from . import plot as _plot
from ._printable import printable
from .labels import block_label
from .report import column_labels

__all__ = ["missing", "latency_svgs", "timeseries_svgs"]

_RC = {"svg.fonttype": "none", "svg.hashsalt": "nvbench-report", "font.size": 9, "axes.titlesize": 10, "axes.titleweight": "bold",
       "font.family": "sans-serif", "axes.spines.top": False, "axes.spines.right": False}


def missing():
    """None when the figures can be drawn, else what to install (a sentence)."""
    try:
        _plot._mpl()
    except ImportError as e:
        return str(e)
    return None


def _svg(make, prefix):
    """Call make() (a matplotlib Figure or None) under the report's style; its SVG."""
    import matplotlib  # only reached when missing() said it is there
    with matplotlib.rc_context(_RC):
        fig = make()
        if fig is None:
            return None
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    # Inline SVG needs no namespace declarations and no metadata (both name URLs).
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    head, rest = text.split(">", 1)
    text = re.sub(r'\s+xmlns(?::\w+)?="[^"]*"', "", head) + ">" + rest
    # Ids (and what refers to them) get the figure's prefix, inside tags only:
    # text between tags is a label, whatever it says.
    ids = {m for tag in re.findall(r"<[^<>]+>", text) for m in re.findall(r'\bid="([^"]+)"', tag)}

    def fix(m):
        return m.group(1) + prefix + m.group(2) if m.group(2) in ids else m.group(0)

    def fix_tag(m):
        tag = re.sub(r'(\bid="|href="#)([^"]+)(?=")', fix, m.group(0))
        return re.sub(r"(url\(#)([^)]+)(?=\))", fix, tag)
    text = re.sub(r"<[^<>]+>", fix_tag, text)
    # The page sizes the figure (width 100%); the viewBox keeps its proportions.
    return re.sub(r'^<svg([^>]*?) width="[^"]*" height="[^"]*"', r"<svg\1", text, count=1)


def _literal(v):
    # Control characters are no XML (an SVG holding ESC is not well-formed, and
    # matplotlib warns with the raw character on stderr): shown escaped, as
    # everywhere else (nvbench._printable).
    return printable(v).replace("$", "\\$") if isinstance(v, str) else v


def _labelled(rs):
    """rs with the labels the figures show (stack, cell, target) kept from TeX."""
    return type(rs)(r.with_meta(**{k: _literal(r.meta.get(k)) for k in ("stack", "cell", "target")})
                    for r in rs)


def _sized(fig):
    # One cell per figure: the page sets them in a grid as wide as the screen allows.
    fig.set_size_inches(5.6, 3.4)
    return fig


def latency_svgs(rs, prefix="lat-"):
    """[(block, SVG)]: the latency percentiles of each cell (nvbench.plot.latency);
    [] when no result holds percentiles (the published figures give only the mean)."""
    if all(math.isnan(r.figures().get("lat_p50_ms", math.nan)) for r in rs):
        return []
    shown = _labelled(rs)
    return [(b, _svg(lambda: _sized(_plot.latency(shown, cells=[b])), f"{prefix}{i}-"))
            for i, b in enumerate(rs.blocks())]


def _iops(sample, op):
    total = 0.0
    for d in (("read", "write", "trim") if op not in ("read", "write", "trim") else (op,)):
        v = (sample.get(d) or {}).get("iops")
        if isinstance(v, (int, float)) and math.isfinite(v):
            total += v
    return total


def _series(r):
    """(interval ends, IOPS) of a run (drawn by nvbench.plot.series_line)."""
    samples = [s for s in (r.data.get("timeseries") or []) if isinstance(s, dict)]
    ts = [s.get("t_s") for s in samples]
    if not samples or not all(isinstance(t, (int, float)) for t in ts):
        return None
    return ts, [_iops(s, r.meta.get("op")) for s in samples]


def _timeseries_figure(series, colors, block):
    fig, (a,) = _plot._new_figure(1, 1)
    labelled, short = set(), False
    for r, label, (xs, ys) in series:
        if (r.meta.get("cell"), r.meta.get("op")) != block:
            continue
        _plot.series_line(a, xs, ys, color=colors[label], label=None if label in labelled else label)
        labelled.add(label)
        short = short or len(xs) < 2
    _plot._finish_axes(a, block_label(*block) + (f"\n({_plot.SHORT_SERIES})" if short else ""),
                       "time in the measured window (s)", "IOPS")
    return _sized(fig)


def timeseries_svgs(rs, prefix="ts-"):
    """[(block, SVG)]: IOPS over each run's measured window, one figure per cell, one line
    per run (colours as in the latency figures); [] when no result holds a time series."""
    shown = list(_labelled(rs))
    every = column_labels(shown)
    series = [(r, label, _series(r)) for r, label in zip(shown, every)]
    series = [s for s in series if s[2] is not None]
    labels = list(dict.fromkeys(every))  # the order plot.latency gives its colours in
    colors = dict(zip(labels, _plot._colors(len(labels))))
    blocks = [b for b in rs.blocks() if any((r.meta.get("cell"), r.meta.get("op")) == b
                                             for r, _, _ in series)]
    return [(b, _svg(lambda: _timeseries_figure(series, colors, b), f"{prefix}{i}-"))
            for i, b in enumerate(blocks)]
