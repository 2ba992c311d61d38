"""An ordered sequence of :class:`~nvbench.result.Result` with the analysis methods.

The sequence, its labels and its persistence live here; what it shows (tables,
comparisons, statistics) is computed by :mod:`nvbench.report` and drawn by
:mod:`nvbench.plot`.
"""

import collections.abc
import json

from . import html_report
from . import plot as _plot
from . import report
from ._jsontext import write_text
from ._optional import _pandas
from ._printable import printable
from .metrics import FRAME_COLUMNS, figures
from .result import Result

__all__ = ["ResultSet", "RESULTSET_SCHEMA"]

RESULTSET_SCHEMA = "nvbench.resultset/1"
# Figures in CSV files: the 10 significant digits of the JSON writer (core/result.c).
CSV_FLOAT_FORMAT = "%.10g"


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
        return write_text(path, self.to_json(indent=1) + "\n")

    def to_frame(self):
        """pandas DataFrame, one row per result, tidy columns (see FRAME_COLUMNS)."""
        pd = _pandas()
        rows = [figures(r) for r in self._results]
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
        """One row per run (the columns of :meth:`to_frame`). Figures are written with
        10 significant digits, the precision of the JSON results they come from, so
        that arithmetic noise (0.14966159839999998) does not reach the file."""
        self.to_frame().to_csv(path, index=False, float_format=CSV_FLOAT_FORMAT)
        return path

    # --- grouping ----------------------------------------------------------

    def _column_labels(self):
        return report.column_labels(self._results)

    def summary(self, metrics=None, confidence=0.95):
        """Tidy statistics: one row per (cell, op, column, metric) with mean, half-width of
        the confidence interval (NaN below 2 repeats), n, std."""
        return report.summary(self._results, metrics, confidence)

    def blocks(self):
        """(cell, op) pairs in the published order."""
        return report.blocks(self._results)

    # --- the seed table ----------------------------------------------------

    def table(self, metrics=None, fmt="text", confidence=0.95):
        """The published layout: one block per cell (rand4k, rand64k, seq64k, seq128k; reads
        then writes), metric rows, one column per stack. Values are means over repeats,
        shown as ``mean [low, high]`` with repeats: the arithmetic mean and its 95% confidence
        interval in the metric's domain (docs/analysis.md).

        fmt: "text" (aligned plain text), "markdown", or "frame" (DataFrame of the formatted
        cells, index = (block, metric)). For numbers use :meth:`summary`.
        """
        return report.table(self._results, metrics, fmt, confidence)

    # --- comparison --------------------------------------------------------

    def compare(self, baseline="libaio", metric=None, confidence=0.95, fmt="frame"):
        """Each stack against ``baseline`` per cell and metric: ``baseline_mean`` and ``mean``
        are the arithmetic means of the runs (``mean_kind``), ``delta_pct`` is their ratio
        minus 1 in %, with a confidence interval from Welch's t on the logarithm of that ratio
        (delta method; ``ci_method``); ``qd`` and ``baseline_qd`` are the queue depths the
        runs ran at (a synchronous engine: 1 per job). ``verdict`` is "within noise" when the interval spans 0,
        otherwise "better"/"worse" (by the metric's direction); without 2+ repeats on both
        sides there is no interval and the verdict is "no CI (n<2)".

        fmt: "frame" (DataFrame), "text" or "markdown" (readable str).
        """
        return report.compare(self._results, baseline, metric, confidence, fmt)

    # --- the report to share ------------------------------------------------

    def report(self, path, title=None, baseline=None, reference=True, sources=None, trend=None, trend_points=None):
        """Write one self-contained HTML file to ``path`` (a path or a text file): the seed
        tables with the published figures beside the cells that match, the comparison with
        confidence intervals, latency percentiles and time series (inline SVG), the machine
        and device facts, every warning and the ``nvbench run`` command of each run. No
        network is needed to read it. ``baseline``: the stack compared against (default
        libaio when present, else the first); ``reference=False`` leaves the published
        figures out; ``sources``: names shown as where the results came from. Needs pandas;
        without matplotlib the figures are left out and the page says so. ``trend``: rows of
        a store (Store.query) for a trend view of each metric over time; ``trend_points``:
        their stored points (Store.points), for the spread within a run. Returns path."""
        return html_report.write(self, path, title=title, baseline=baseline,
                                 reference=reference, sources=sources, trend=trend, trend_points=trend_points)

    # --- plots -------------------------------------------------------------

    def plot(self, kind="bars", metric=None, ax=None, **kwargs):
        """matplotlib Figure: kind "bars" (grouped bars per metric, cells x stacks, CI error
        bars with repeats), "latency" (p50/p90/p99/p99.9 per stack, one panel per cell) or
        "efficiency" (IOPS per core). Returns the Figure (``fig.savefig("x.png")``)."""
        return _plot.plot(self, kind=kind, metric=metric, ax=ax, **kwargs)
