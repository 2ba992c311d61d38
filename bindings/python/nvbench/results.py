"""Compatibility module: what ``nvbench.results`` exported before it was split.

The analysis lives in modules with one job each, every one importing only
those below it:

    stats       Student-t intervals (no scipy)
    labels      cell/op names of a run, the published block order
    metrics     the metric registry and the figures read from one result
    result      Result
    report      tables, summaries, comparisons (of a list of results)
    plot        figures (matplotlib)
    resultset   ResultSet
    fio         fio's JSON output as Results
    loading     load(), loads()

Import from those; this module re-exports their public names under the old
ones for code written against ``nvbench.results``.
"""

from . import labels as _labels
from .labels import block_label, cell_of, op_of_rw
from .loading import from_obj, load, loads
from .metrics import FRAME_COLUMNS, METRICS, TABLE_METRICS, Metric, format_value
from .report import format_comparison
from .result import META_KEYS, RESULT_SCHEMA, Result
from .resultset import RESULTSET_SCHEMA, ResultSet
from .stats import mean_ci, mean_interval, ratio_ci, t_cdf, t_critical, welch_ci


def __getattr__(name):
    # SEED_CELLS is the library's table, read when first asked for (labels._seed)
    if name == "SEED_CELLS":
        return _labels.SEED_CELLS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Result",
    "ResultSet",
    "load",
    "METRICS",
    "t_critical",
    "mean_ci",
    "mean_interval",
    "ratio_ci",
    "welch_ci",
]
