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
from .metrics import METRICS, TABLE_METRICS, figures, format_value, metric_list, unsupported_text
from .stats import clean_values, mean_ci, mean_var, welch_ci

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

def summary(results, metrics=None, confidence=0.95):
    """ResultSet.summary: one row per (cell, op, column, metric)."""
    pd = _pandas()
    ms = metric_list(metrics, tuple(METRICS))
    rows = [figures(r) for r in results]
    labels = column_labels(results)
    groups = {}
    for row, label in zip(rows, labels):
        groups.setdefault((row["cell"], row["op"], label), []).append(row)
    out = []
    for (cell, op, label), rs in groups.items():
        for m in ms:
            vals = [x.get(m.key) for x in rs]
            mean, half, n = mean_ci(vals, confidence)
            xs = clean_values(vals)
            std = mean_var(xs)[1] if len(xs) > 1 else math.nan
            out.append({"cell": cell, "op": op, "block": block_label(cell, op),
                        "stack": label, "metric": m.key, "label": m.label,
                        "mean": mean, "ci_half": half, "std": std, "n": n})
    df = pd.DataFrame(out, columns=["cell", "op", "block", "stack", "metric", "label",
                                    "mean", "ci_half", "std", "n"])
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
    columns = list(dict.fromkeys(column_labels(results)))
    stats = {}
    if results:
        summ = summary(results, [m.key for m in ms], confidence)
        for rec in summ.itertuples(index=False):
            stats[(rec.cell, rec.op, rec.stack, rec.metric)] = rec
    unsupported = _unsupported(results)
    shown = []
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
                elif rec.n > 1 and not math.isnan(rec.ci_half) and text != "-":
                    text += " ± " + format_value(m.key, rec.ci_half)
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
            head = [title] + cols
            body = [[label] + cells for label, cells in rows]
            widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
            def line(r):
                return "  ".join([r[0].ljust(widths[0])] +
                                 [c.rjust(w) for c, w in zip(r[1:], widths[1:])]).rstrip()
            out.append(line(head))
            out.append("  ".join("-" * w for w in widths))
            out.extend(line(r) for r in body)
            out.append("")
    return _Text("\n".join(out).rstrip("\n") + "\n" if out else "")

# --- comparison --------------------------------------------------------

def compare(results, baseline="libaio", metric=None, confidence=0.95, fmt="frame"):
    """ResultSet.compare: each stack against ``baseline``, Welch CI in %."""
    pd = _pandas()
    ms = metric_list(metric, TABLE_METRICS)
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
    groups = {}
    for row, label in zip(rows, labels):
        groups.setdefault((row["cell"], row["op"]), {}).setdefault(label, []).append(row)
    out = []
    for cell, op in sorted(groups, key=block_sort_key):
        by_stack = groups[(cell, op)]
        base = by_stack.get(baseline)
        if not base:
            continue
        for m in ms:
            a = [x.get(m.key) for x in base]
            for stack, rs in by_stack.items():
                if stack == baseline:
                    continue
                w = welch_ci(a, [x.get(m.key) for x in rs], confidence)
                ma = w["mean_a"]
                scale = 100.0 / ma if ma and math.isfinite(ma) else math.nan
                # Figures past what a double holds (crafted, or a division by
                # a near-zero baseline) say nothing: no data, never inf.
                delta, lo, hi = (_finite(x * scale) for x in (w["diff"], w["low"], w["high"]))
                if math.isnan(lo) or math.isnan(hi):
                    lo = hi = math.nan
                if math.isnan(delta) and ({(cell, op, baseline, m.key), (cell, op, stack, m.key)} & unsupported):
                    verdict = unsupported_text(m.key)
                elif math.isnan(delta):
                    verdict = "no data"
                elif math.isnan(lo):
                    verdict = "no CI (n<2)" if min(w["n_a"], w["n_b"]) < 2 else "no CI"
                elif lo <= 0.0 <= hi:
                    verdict = "within noise"
                else:
                    verdict = "better" if (delta > 0) == m.higher_is_better else "worse"
                out.append({"cell": cell, "op": op, "block": block_label(cell, op),
                            "metric": m.key, "stack": stack, "baseline": baseline,
                            "n_baseline": w["n_a"], "n": w["n_b"],
                            "baseline_mean": ma, "mean": w["mean_b"],
                            "delta_pct": delta, "ci_low_pct": lo, "ci_high_pct": hi,
                            "df": w["df"], "verdict": verdict})
    cols = ["cell", "op", "block", "metric", "stack", "baseline", "n_baseline", "n",
            "baseline_mean", "mean", "delta_pct", "ci_low_pct", "ci_high_pct", "df", "verdict"]
    df = pd.DataFrame(out, columns=cols)
    if fmt == "frame":
        return df
    if fmt not in ("text", "markdown"):
        raise ValueError(f"fmt must be 'frame', 'text' or 'markdown', got {fmt!r}")
    return _Text(format_comparison(df, fmt, confidence))


def _finite(v):
    return v if math.isfinite(v) else math.nan


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
    """Readable form of a ``compare()`` DataFrame."""
    pct = f"{confidence * 100:g}%"
    lines = []
    if df.empty:
        return "no cell has both the baseline and another stack\n"
    base = printable(df["baseline"].iloc[0])
    for block, g in df.groupby("block", sort=False):
        block = printable(block)
        if fmt == "markdown":
            lines.append(f"**{block}** (vs {base})\n")
            lines.append(f"| Metric | Stack | Delta | {pct} CI | n | Verdict |")
            lines.append("|---|---|---:|---|---:|---|")
        else:
            lines.append(f"{block} (vs {base})")
        for rec in g.itertuples(index=False):
            label = METRICS[rec.metric].label
            stack = printable(rec.stack)
            delta = _pct(rec.delta_pct)
            ci = ("-" if not (math.isfinite(rec.ci_low_pct) and math.isfinite(rec.ci_high_pct))
                  else f"[{_pct(rec.ci_low_pct)}, {_pct(rec.ci_high_pct)}]")
            n = f"{rec.n}/{rec.n_baseline}"
            if fmt == "markdown":
                lines.append(f"| {label} | {stack} | {delta} | {ci} | {n} | {rec.verdict} |")
            else:
                lines.append(f"  {label:<22} {stack:<18} {delta:>8}  {ci:<20} "
                             f"n={n:<6} {rec.verdict}")
        lines.append("")
    return "\n".join(lines)
