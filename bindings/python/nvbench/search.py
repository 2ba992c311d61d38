"""Latency-target search: the highest throughput at which a latency percentile stays under
a bound (``nvbench.search(workload, target="p99<=1ms", vary="qd")``).

vary="qd": the queue depth doubles from ``start`` (default 1) until the bound is broken or
``max_qd`` is reached, then the last two depths are bisected (integers). vary="rate_iops":
one unthrottled run at the workload's qd gives the ceiling; if it keeps the bound it is the
answer, else the rate is bisected between 0 and the ceiling until the bracket is narrower
than ``rel_tol`` of it. Every run is a point of the curve (throughput against the
percentile); the answer is the passing point of highest throughput. Each point is a whole
run (its runtime, ramp, ... from the workload): its percentile is measured, not modelled.
The probes, the decisions, the stop rules and the answer are the library's (nvb_search_*,
libnvbench/core/search.c, which Lua's nvbench.search drives too); this module runs the
probes it names and presents the curve.
"""

from __future__ import annotations

import warnings

from . import _nvbench as _c  # nvb_search_*: the algorithm and the target's reading
from . import plot as _plot
from ._signals import sigterm_cancels
from .core import run as _run
from .errors import NvbenchWarning, Terminated
from ._printable import printable
from ._warnings import grouped, warn as _warn

__all__ = ["search", "SearchResult", "parse_target", "plot_curve"]

PERCENTILES = ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "p99.99",
               "p99.999", "mean", "max")
VARIES = ("qd", "rate_iops")


def _handle(target, vary):
    if not isinstance(target, str):
        raise ValueError(f"target must be a string like 'p99<=1ms', got {target!r}")
    if not isinstance(vary, str):
        raise ValueError(f"vary must be 'qd' or 'rate_iops', got {vary!r}")
    if "\0" in target or "\0" in vary:
        raise ValueError(f"target {target!r}: contains a NUL byte")
    return _c.search_new(target, vary)


def parse_target(target):
    """"p99<=1ms" -> ("p99", 1e6 ns, strict=False). ValueError naming what is wrong."""
    return _c.search_target(_handle(target, "qd"))


class SearchResult:
    """What a search tried and found.

    ``points``: one dict per run, in the order run: ``qd`` or ``rate_iops`` (None: the
    unthrottled run), ``iops`` (all directions), ``lat_ns`` (the target's percentile: the
    worst direction that did I/O), ``ok`` (within the bound), ``supported`` (the percentile
    rests on enough samples, docs/json-schema.md ``lat_pct_supported``), ``warnings`` and
    ``result`` (the run's Result). ``answer``: the passing point of highest IOPS, or None
    when no point kept the bound. ``warnings``: every run's warnings, each once.
    """

    def __init__(self, target, key, bound_ns, strict, vary, direction):
        self.target, self.key, self.bound_ns, self.strict = target, key, bound_ns, strict
        self.vary, self.direction = vary, direction
        self.points, self.answer, self.notes = [], None, []
        self._point_notes = {}  # "no_io"/"few": the points' values, said once in warnings

    @property
    def warnings(self):
        """Each warning once: the runs' warnings grouped (with the points they came from),
        a percentile or a run without I/O once for all the points it concerns, then the
        search's own notes."""
        runs = [_Labelled(p["result"], f"{self.vary}={_v(p[self.vary])}") for p in self.points]
        out = grouped(runs)
        n = len(self.points)
        for why, text in (("no_io", "no I/O completed, no latency to judge"),
                          ("few", f"{self.key} rests on fewer than 10 samples beyond it (run longer for "
                                  "this percentile)")):
            at = [_v(v) for v in self._point_notes.get(why, [])]
            if at:
                out.append(f"{text}: at {len(at)} of {n} point{'' if n == 1 else 's'} "
                           f"({self.vary}={', '.join(at)})")
        return out + list(self.notes)

    def to_dict(self):
        pts = [{k: v for k, v in p.items() if k != "result"} for p in self.points]
        ans = None if self.answer is None else {k: v for k, v in self.answer.items() if k != "result"}
        return {"target": self.target, "percentile": self.key, "bound_ns": self.bound_ns,
                "strict": self.strict, "vary": self.vary, "direction": self.direction,
                "points": pts, "answer": ans, "warnings": self.warnings}

    def table(self):
        """The curve as text, one line per point in the order of ``vary``, and the answer."""
        rows = sorted(self.points, key=lambda p: (p[self.vary] is None, p[self.vary] or 0))
        lines = [f"{self.vary:>10}  {'IOPS':>12}  {self.key + ' (ms)':>12}  within {self.target}"]
        for p in rows:
            v = "unthrottled" if p[self.vary] is None else _v(p[self.vary])
            lat = "-" if p["lat_ns"] is None else f"{p['lat_ns'] / 1e6:.4f}"
            note = "" if p["supported"] else "  (percentile rests on few samples)"
            lines.append(f"{v:>10}  {p['iops']:>12,.0f}  {lat:>12}  {'yes' if p['ok'] else 'no'}{note}")
        if self.answer is None:
            lines.append(f"answer: none of the points kept {self.target}")
        else:
            a = self.answer
            v = "unthrottled" if a[self.vary] is None else f"{self.vary}={_v(a[self.vary])}"
            lines.append(f"answer: {v}: {a['iops']:,.0f} IOPS at {self.key} {a['lat_ns'] / 1e6:.4f} ms")
        # the bound is the caller's text (its regex lets \x1c-\x1f and \x85 through as spaces)
        return "".join(printable(line) + "\n" for line in lines)

    def plot(self, ax=None):
        return plot_curve(self, ax=ax)

    def __repr__(self):
        return f"<SearchResult {printable(self.target)} vary={self.vary}: {len(self.points)} points, answer={self._ans()}>"

    def _ans(self):
        return None if self.answer is None else f"{self.vary}={_v(self.answer[self.vary])} ({self.answer['iops']:,.0f} IOPS)"


def _v(value):
    """A point's qd or rate as the text shows it: 1,000,000 (None: unthrottled)."""
    if value is None:
        return "unthrottled"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"


class _Labelled:
    """A point's result under its qd or rate, as grouped() names the runs of a warning."""

    def __init__(self, result, where):
        self.data, self.meta = result.data, {"stack": where}


def _measure(data, key, direction):
    """(latency of the key in the worst direction that did I/O, supported, iops of all)."""
    dirs = [direction] if direction else ["read", "write"]
    lat, supported = None, True
    for d in dirs:
        x = data.get(d) or {}
        if not x.get("ios"):
            continue
        v = (x.get("lat_ns") or {}).get(key)
        if not isinstance(v, (int, float)):
            continue
        lat = v if lat is None else max(lat, v)
        if key.startswith("p") and not (x.get("lat_pct_supported") or {}).get(key, True):
            supported = False
    iops = sum(((data.get(d) or {}).get("iops") or 0) for d in ("read", "write"))
    return lat, supported, iops


def _value(vary, v):
    """The library's probe value as the point shows it: an int; None for the unthrottled rate."""
    return None if vary == "rate_iops" and v == 0 else int(v)


def _drive(res, h, workload, run):
    """Runs each probe the library names until it says the search is over."""
    while True:
        v = _c.search_next(h)
        if v is None:
            return
        value = _value(res.vary, v)
        kw = dict(workload)
        if value is not None:
            kw[res.vary] = value
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NvbenchWarning)  # issued once each at the end
            r = run(**kw)
        for i, d in enumerate(("read", "write")):
            x = r.data.get(d) or {}
            lat = (x.get("lat_ns") or {}).get(res.key)
            ok = (x.get("lat_pct_supported") or {}).get(res.key, True)
            _c.search_measure(h, i, int(x.get("ios") or 0), float(x.get("iops") or 0),
                             lat if isinstance(lat, (int, float)) and not isinstance(lat, bool) else None,
                             ok is not False)
        _, iops, lat, ok, supported = _c.search_points(h)[-1]
        res.points.append({res.vary: value, "iops": iops, "lat_ns": lat, "ok": ok, "supported": supported,
                           "warnings": list(r.data.get("warnings") or []), "result": r})
        # said once for all the points it concerns (warnings)
        if lat is None or not supported:
            res._point_notes.setdefault("no_io" if lat is None else "few", []).append(value)


def search(workload=None, target="p99<=1ms", vary="qd", *, start=1, max_qd=1024, rel_tol=0.05,
           direction=None, max_runs=24, run=None, **keys):
    """Find the highest throughput whose latency percentile keeps the bound.

    workload: a dict of nvbench.run keyword arguments (targets under ``"targets"``), merged
    with ``**keys``; it must not set what is varied. target: "p99<=1ms", "p99.9<500us",
    "mean<=200us" (percentiles of ``lat_ns``: the worst direction that did I/O, or
    ``direction``). vary: "qd" or "rate_iops" (see the module's doc). max_runs bounds the
    runs; a search cut short says so in its warnings. Returns a SearchResult (its
    ``table()``, ``plot()``, ``to_dict()``); each run's warnings are issued once each as
    NvbenchWarning at the end. Ctrl-C (KeyboardInterrupt) or, in the main thread with
    SIGTERM at its default disposition, SIGTERM (nvbench.Terminated, exit status 143 when
    uncaught) cancels the run in progress as nvbench.run does; the exception carries
    ``.search``, the SearchResult of the runs completed before it (answer and a note
    saying the search was cut short), and ``.result``, the cancelled run's partial Result.
    """
    h = _handle(target, vary)
    key, bound, strict = _c.search_target(h)
    if direction is not None and not isinstance(direction, str):
        raise ValueError(f"direction must be 'read', 'write' or None, got {direction!r}")
    for name, v in (("start", start), ("max_qd", max_qd), ("max_runs", max_runs), ("rel_tol", rel_tol),
                    ("direction", direction or "")):
        _c.search_set(h, name, v if isinstance(v, str) else repr(v))
    w = dict(workload or {})
    w.update(keys)
    if w.get(vary) is not None:
        raise ValueError(f"the workload sets {vary}={w[vary]!r}, which the search varies: leave it out")
    if run is None:
        targets = w.pop("targets", None) or []
        targets = [targets] if isinstance(targets, (str, bytes)) else list(targets)
        run = lambda **kw: _run(*targets, **kw)  # noqa: E731
    res = SearchResult(target, key, bound, strict, vary, direction)
    try:
        with sigterm_cancels():
            _drive(res, h, w, run)
    except (KeyboardInterrupt, Terminated) as e:
        # The points measured so far are the partial search (the run that was
        # cancelled is not one of them: its figures cover part of its window).
        res.notes.append(f"the search was {'terminated (SIGTERM)' if isinstance(e, Terminated) else 'interrupted'} "
                         f"after {len(res.points)} completed run{'' if len(res.points) == 1 else 's'}: the answer "
                         "is the best point found so far")
        _settle(res, h)
        e.search = res
        raise
    if _c.search_cut(h):
        res.notes.append(f"the search stopped after max_runs={max_runs} runs: the answer is the best "
                         "point found so far")
    _settle(res, h)
    for line in res.warnings:
        _warn(line, stacklevel=2)
    return res


def _settle(res, h):
    """The answer the library picked: the passing point of highest IOPS, or None."""
    i = _c.search_answer(h)
    res.answer = None if i is None else res.points[i]


def plot_curve(res, ax=None):
    """The curve of a search (nvbench.plot.search_curve)."""
    return _plot.search_curve(res, ax=ax)
