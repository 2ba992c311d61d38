"""What a ResultSet shows: statistics per block, the published table, comparisons.

The functions take the results as a list (``ResultSet`` calls them with its own)
and group them the way the tables read: one block per (cell, op), one column
per stack (see :func:`column_labels`). Figures come from
:func:`nvbench.metrics.figures`, intervals from :mod:`nvbench.stats`.
"""

import math

from ._optional import _pandas
from ._printable import printable
from .labels import block_label, block_sort_key
from .metrics import (CPU_METRICS, FIGURE_METRICS, METRICS, NOT_AVAILABLE, TABLE_METRICS, cpu_scope, figures,
                      format_value, metric_list, unsupported_text)
from .stats import mean_interval, ratio_ci

__all__ = ["summary", "table", "compare", "format_comparison", "column_labels", "blocks"]


class _Text(str):
    """A str that shows itself unquoted at the REPL and in notebooks."""

    def __repr__(self):
        return str(self)


def column_labels(results):
    """Column label per result: the stack, plus qd/jobs/target when these vary
    inside one stack's cell (so that different configurations are never averaged)."""
    groups = {}
    for r in results:
        key = (r.meta.get("stack"), r.meta.get("cell"), r.meta.get("op"))
        groups.setdefault(key, []).append(r)
    varying = []
    for k in ("qd", "jobs", "target"):
        if any(len({r.meta.get(k) for r in g}) > 1 for g in groups.values()):
            varying.append(k)
    labels = []
    for r in results:
        label = str(r.meta.get("stack"))
        extra = [f"{k}={r.meta.get(k)}" for k in varying if r.meta.get(k) is not None]
        labels.append(" ".join([label] + extra))
    return labels


def _shown_columns(results, labels):
    """The column headings of the tables: the label, and "(qd N)" where every
    run of the column ran at another queue depth than it asked for (psync,
    wsync: 1 per job), so that no figure stands under a qd it did not run at."""
    ran = {}
    for r, label in zip(results, labels):
        qde = r.data.get("qd_effective") if isinstance(r.data, dict) else None
        qd = r.meta.get("qd")
        ran.setdefault(label, set()).add(qde if qde and qd and qde != qd else None)
    return {label: f"{label} (qd {next(iter(q))})" if len(q) == 1 and None not in q else label
            for label, q in ran.items()}

# The latency percentiles of a cell are one curve: each is averaged over the same runs.
_PCT_COLUMNS = ("lat_p50_ms", "lat_p90_ms", "lat_p99_ms", "lat_p99_9_ms")


def _curve_runs(rows):
    """(runs kept, note) for the percentile columns of one group of runs: the runs that
    have every percentile some run of the group has (a run too short for p99.9 has no
    p99.9, so its p50 is left out too: every point of the curve is a mean over the same
    runs, and the curve stays monotone). note says what was left out, or is ""."""
    def has(x, c):
        v = x.get(c)
        return v is not None and not (isinstance(v, float) and math.isnan(v))
    wanted = [c for c in _PCT_COLUMNS if any(has(x, c) for x in rows)]
    kept = [x for x in rows if all(has(x, c) for c in wanted)]
    if len(kept) == len(rows) or not wanted:
        return rows, ""
    short = [c for c in wanted if not all(has(x, c) for x in rows)]
    names = ", ".join(METRICS[c].label.split(" ")[0] for c in short)
    return kept, (f"percentiles from {len(kept)} of {len(rows)} runs "
                  f"(the others had too few I/Os for {names})")


def summary(results, metrics=None, confidence=0.95):
    """ResultSet.summary: one row per (cell, op, column, metric): the arithmetic mean of
    the runs, its confidence interval in the metric's domain (ci_low, ci_high; ci_method,
    and ci_why when there is none), the standard deviation, n (the runs averaged), runs
    (the runs of the group), and note (which runs a percentile is averaged over when not
    all: see _curve_runs)."""
    pd = _pandas()
    ms = metric_list(metrics, tuple(METRICS))
    rows = [figures(r) for r in results]
    labels = column_labels(results)
    groups = {}
    for row, label in zip(rows, labels):
        groups.setdefault((row["cell"], row["op"], label), []).append(row)
    out = []
    for (cell, op, label), rs in groups.items():
        curve, note = _curve_runs(rs)
        for m in ms:
            src = curve if m.key in _PCT_COLUMNS else rs
            vals = [x.get(m.key) for x in src]
            ci = mean_interval(vals, m.domain, confidence)
            out.append({"cell": cell, "op": op, "block": block_label(cell, op),
                        "stack": label, "metric": m.key, "label": m.label,
                        "mean": ci["mean"], "ci_low": ci["low"], "ci_high": ci["high"],
                        "ci_method": ci["method"], "ci_why": ci["why"] or "", "std": ci["sd"],
                        "n": ci["n"], "runs": len(rs), "note": note if m.key in _PCT_COLUMNS else ""})
    df = pd.DataFrame(out, columns=["cell", "op", "block", "stack", "metric", "label",
                                    "mean", "ci_low", "ci_high", "ci_method", "ci_why", "std", "n", "runs", "note"])
    return df

def blocks(results):
    """(cell, op) pairs in the published order."""
    found = {(r.meta.get("cell"), r.meta.get("op")) for r in results}
    return sorted(found, key=block_sort_key)

def _unsupported(results):
    """(cell, op, column label, metric) where a result had too few I/Os for that percentile."""
    out = set()
    for row, label in zip((figures(r) for r in results), column_labels(results)):
        for key in filter(None, row.get("lat_pct_unsupported", "").split(",")):
            out.add((row["cell"], row["op"], label, key))
    return out

# --- the seed table ----------------------------------------------------

def table(results, metrics=None, fmt="text", confidence=0.95):
    """ResultSet.table: the published layout, as text, markdown or a frame."""
    if fmt not in ("text", "markdown", "frame"):
        raise ValueError(f"fmt must be 'text', 'markdown' or 'frame', got {fmt!r}")
    ms = metric_list(metrics, TABLE_METRICS)
    labels = column_labels(results)
    columns = list(dict.fromkeys(labels))
    # Columns whose CPU figures cover less than the process (fio: its job threads only):
    # their CPU cells carry a mark, explained under the table.
    scopes = {label: cpu_scope(r.data) for label, r in zip(labels, results)}
    marked = {label for label, s in scopes.items() if s != "process"}
    stats = {}
    if results:
        summ = summary(results, [m.key for m in ms], confidence)
        for rec in summ.itertuples(index=False):
            stats[(rec.cell, rec.op, rec.stack, rec.metric)] = rec
    unsupported = _unsupported(results)
    shown, notes_seen = [], set()
    for cell, op in blocks(results):
        rows = []
        for m in ms:
            cells = []
            for col in columns:
                rec = stats.get((cell, op, col, m.key))
                if rec is None:
                    cells.append("")
                    continue
                text = format_value(m.key, rec.mean)
                if rec.n == 0 and (cell, op, col, m.key) in unsupported:
                    text = unsupported_text(m.key)  # every repeat too short for this percentile
                elif rec.n > 1 and text != NOT_AVAILABLE:
                    text += " " + _interval_text(m.key, rec)
                if rec.note and text != NOT_AVAILABLE:
                    text += f" ({rec.n}/{rec.runs} runs)"
                    notes_seen.add(rec.note)
                if m.key in CPU_METRICS and col in marked and text != NOT_AVAILABLE:
                    text += " *"
                cells.append(text)
            rows.append((m.label, cells))
        # Drop columns with no result in this block so each block stays readable.
        present = [i for i, col in enumerate(columns)
                   if any(stats.get((cell, op, col, m.key)) is not None for m in ms)]
        shown.append((block_label(cell, op), [columns[i] for i in present],
                       [(label, [c[i] for i in present]) for label, c in rows]))
    if fmt == "frame":
        pd = _pandas()
        index, data = [], []
        for title, _cols, rows in shown:
            for label, _cells in rows:
                index.append((title, label))
        for title, cols, rows in shown:
            for label, cells in rows:
                d = dict.fromkeys(columns, "")
                d.update(zip(cols, cells))
                data.append([d[c] for c in columns])
        idx = pd.MultiIndex.from_tuples(index, names=["block", "metric"])
        return pd.DataFrame(data, index=idx, columns=columns)
    out = []
    heading = _shown_columns(results, column_labels(results))
    shown = [(title, [heading.get(c, c) for c in cols], rows) for title, cols, rows in shown]
    widths = _text_widths(shown) if fmt == "text" else None
    for title, cols, rows in shown:
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
            w = [widths[None]] + [widths[c] for c in cols]
            def line(r):
                return "  ".join([r[0].ljust(w[0])] +
                                 [c.rjust(n) for c, n in zip(r[1:], w[1:])]).rstrip()
            out.append(line([title] + cols))
            out.append("  ".join("-" * n for n in w))
            out.extend(line([label] + cells) for label, cells in rows)
            out.append("")
    if notes_seen and fmt != "frame":
        out.append("(k/n runs): the latency percentiles of that cell are means over the k runs that "
                   "have every percentile; the others had too few I/Os for the highest")
    notes = sorted({scopes[c] for c in marked if any(m.key in CPU_METRICS for m in ms)})
    for scope in notes:
        out.append(f"* CPU figures: {scope} (fio's usr_cpu/sys_cpu are taken per job thread, "
                   f"RUSAGE_THREAD, not for fio's process)")
    return _Text("\n".join(out).rstrip("\n") + "\n" if out else "")


def _interval_text(key, rec):
    """A mean's interval as a table shows it: "[low, high]" (in the metric's domain, so
    rarely symmetric), or why there is none."""
    if rec.ci_why:
        return f"(no CI: {rec.ci_why})"
    return f"[{format_value(key, rec.ci_low)}, {format_value(key, rec.ci_high)}]"


def _text_widths(shown):
    """Column widths of the text table, the same in every block (docs/analysis.md,
    "The text layout"): {None: the title and label column, column label: its width}."""
    widths = {None: 0}
    for title, cols, rows in shown:
        widths[None] = max([widths[None], len(printable(title))] + [len(label) for label, _ in rows])
        for i, col in enumerate(cols):
            key = printable(col)
            lens = [len(key)] + [len(row_cells[i]) for _, row_cells in rows]
            widths[key] = max([widths.get(key, 0)] + lens)
    return widths

# --- comparison --------------------------------------------------------

def compare(results, baseline="libaio", metric=None, confidence=0.95, fmt="frame"):
    """ResultSet.compare: each stack against ``baseline``, Welch CI in %."""
    pd = _pandas()
    ms = metric_list(metric, FIGURE_METRICS)
    labels = column_labels(results)
    if baseline not in labels:
        # "libaio" names the column "libaio qd=8" when that is the only libaio one
        cands = [l for l in dict.fromkeys(labels) if str(l).split(" ")[0] == baseline]
        if len(cands) == 1:
            baseline = cands[0]
        else:
            known = ", ".join(printable(l) for l in dict.fromkeys(labels)) or "none"
            why = "ambiguous" if cands else "not a stack in this set"
            raise ValueError(f"baseline {baseline!r} is {why} (stacks: {known})")
    rows = [figures(r) for r in results]
    unsupported = _unsupported(results)
    # what each stack's CPU figures cover ("process", or fio's job threads only): shown
    # beside its CPU figures, as the table shows it
    scopes = {}
    for label, r in zip(labels, results):
        scopes.setdefault(label, set()).add(cpu_scope(r.data))
    scope_of = {label: "; ".join(sorted(s - {"process"})) or "process" for label, s in scopes.items()}
    groups = {}
    for row, label in zip(rows, labels):
        groups.setdefault((row["cell"], row["op"]), {}).setdefault(label, []).append(row)
    out = []
    for cell, op in sorted(groups, key=block_sort_key):
        by_stack = groups[(cell, op)]
        base = by_stack.get(baseline)
        if not base:
            continue
        curves = {stack: _curve_runs(rs)[0] for stack, rs in by_stack.items()}
        for m in ms:
            src = curves if m.key in _PCT_COLUMNS else by_stack
            a = [x.get(m.key) for x in src[baseline]]
            for stack in by_stack:
                if stack == baseline:
                    continue
                w = ratio_ci(a, [x.get(m.key) for x in src[stack]], m.domain, confidence)
                # Figures past what a double holds (crafted, or a division by
                # a near-zero baseline) say nothing: no data, never inf.
                delta, lo, hi = (_finite((x - 1.0) * 100.0) for x in (w["ratio"], w["low"], w["high"]))
                if math.isnan(lo) or math.isnan(hi):
                    lo = hi = math.nan
                out.append({"cell": cell, "op": op, "block": block_label(cell, op),
                            "metric": m.key, "stack": stack, "baseline": baseline,
                            "qd": _ran_qd(by_stack[stack]), "baseline_qd": _ran_qd(base),
                            "n_baseline": w["n_a"], "n": w["n_b"],
                            "baseline_mean": w["mean_a"], "mean": w["mean_b"], "mean_kind": "arithmetic",
                            "delta_pct": delta, "ci_low_pct": lo, "ci_high_pct": hi,
                            "ci_method": w["method"], "df": w["df"],
                            "verdict": unsupported_text(m.key) if math.isnan(delta) and
                            {(cell, op, baseline, m.key), (cell, op, stack, m.key)} & unsupported
                            else _verdict(delta, lo, hi, w, m),
                            "cpu_scope": scope_of[stack], "baseline_cpu_scope": scope_of[baseline]})
    cols = ["cell", "op", "block", "metric", "stack", "baseline", "qd", "baseline_qd", "n_baseline", "n",
            "baseline_mean", "mean", "mean_kind", "delta_pct", "ci_low_pct", "ci_high_pct", "ci_method", "df",
            "verdict", "cpu_scope", "baseline_cpu_scope"]
    df = pd.DataFrame(out, columns=cols)
    if fmt == "frame":
        return df
    if fmt not in ("text", "markdown"):
        raise ValueError(f"fmt must be 'frame', 'text' or 'markdown', got {fmt!r}")
    return _Text(format_comparison(df, fmt, confidence))


def _ran_qd(rows):
    """The queue depth a column's runs ran at (qd_effective: a synchronous engine runs at
    1 per job whatever qd asked), "a/b" when its runs differ, "" when unknown."""
    qds = list(dict.fromkeys(x.get("qd_effective") for x in rows if x.get("qd_effective") is not None))
    return "/".join(str(q) for q in qds)


def with_qd(name, qd):
    """A stack's name with the queue depth it ran at: "psync (qd 1)"."""
    return f"{name} (qd {qd})" if qd not in (None, "") else str(name)


def _finite(v):
    return v if math.isfinite(v) else math.nan


# An interval that holds zero and is wider than this (percentage points)
# cannot tell a real difference from none: more repeats are needed.
_INCONCLUSIVE_WIDTH = 20.0


def _verdict(delta, lo, hi, w, m):
    if math.isnan(delta):
        return "no data"
    if math.isnan(lo):
        return "no CI (n<2)" if min(w["n_a"], w["n_b"]) < 2 else f"no CI ({w['why'] or 'no finite spread'})"
    if lo <= 0.0 <= hi:
        return "inconclusive" if hi - lo > _INCONCLUSIVE_WIDTH else "within noise"
    return "better" if (delta > 0) == m.higher_is_better else "worse"


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
    """Readable form of a ``compare()`` DataFrame: per block, aligned columns
    with both means, the change and its interval; notes once at the end."""
    pct = f"{confidence * 100:g}%"
    if df.empty:
        return "no cell has both the baseline and another stack\n"
    base = printable(df["baseline"].iloc[0])
    base_head = printable(with_qd(base, df["baseline_qd"].iloc[0]))
    head = ["Metric", "Stack (B)", f"{base_head} (A) mean", "B mean", "B vs A", f"{pct} CI", "n B/A", "Verdict"]
    lines, notes = [], set()
    for block, g in df.groupby("block", sort=False):
        rows = []
        for rec in g.itertuples(index=False):
            ok = math.isfinite(rec.ci_low_pct) and math.isfinite(rec.ci_high_pct)
            verdict = rec.verdict
            if verdict == "no CI (n<2)":
                notes.add("n<2")
                verdict = "-"
            elif verdict == "inconclusive":
                notes.add("inconclusive")
            # a CPU figure of a side that measured less than its process (fio: the job
            # threads only) carries a mark, explained once below
            mark_a = mark_b = ""
            if rec.metric in CPU_METRICS:
                for side, scope in (("a", rec.baseline_cpu_scope), ("b", rec.cpu_scope)):
                    if scope != "process":
                        notes.add(("scope", scope))
                        if side == "a":
                            mark_a = "*"
                        else:
                            mark_b = "*"
            rows.append([METRICS[rec.metric].label, printable(with_qd(rec.stack, rec.qd)),
                         format_value(rec.metric, rec.baseline_mean) + mark_a,
                         format_value(rec.metric, rec.mean) + mark_b,
                         _pct(rec.delta_pct), f"[{_pct(rec.ci_low_pct)}, {_pct(rec.ci_high_pct)}]" if ok else "-",
                         f"{rec.n}/{rec.n_baseline}", verdict])
        if fmt == "markdown":
            lines.append(f"**{printable(block)}** (vs {base})\n")
            lines.append("| " + " | ".join(head) + " |")
            lines.append("|---|---|---:|---:|---:|---|---:|---|")
            lines.extend("| " + " | ".join(r) + " |" for r in rows)
        else:
            lines.append(f"{printable(block)} (vs {base})")
            widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
            right = {2, 3, 4, 6}

            def line(r):
                return "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                                 for i, c in enumerate(r)).rstrip()
            lines.append("  " + line(head))
            lines.extend("  " + line(r) for r in rows)
        lines.append("")
    if "n<2" in notes:
        lines.append("note: '-' in the CI column: fewer than 2 runs on a side, so no interval; "
                     "repeat the runs (--repeat) to tell a difference from run-to-run noise.")
    for scope in sorted(n[1] for n in notes if isinstance(n, tuple)):
        lines.append(f"* CPU figures: {printable(scope)}: fio's usr_cpu/sys_cpu are taken per job thread "
                     "(RUSAGE_THREAD), not for fio's process: a lower bound of its cost "
                     "(docs/cpu-accounting.md)")
    if "inconclusive" in notes:
        lines.append(f"note: inconclusive: the interval holds 0 and is wider than "
                     f"{_INCONCLUSIVE_WIDTH:g} points; more repeats would narrow it.")
    lines.append(f"A and B mean: the arithmetic means of the runs; B vs A is B's mean over A's minus 1; its {pct} "
                 "interval is Welch's on the logarithm of that ratio (delta method: never below -100%).")
    return "\n".join(lines) + "\n"
