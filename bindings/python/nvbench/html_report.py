"""A report to share: one self-contained HTML file of a ResultSet.

``ResultSet.report(path)`` and ``nvbench report RESULTS.json... -o report.html``
write it: the seed-layout tables with the published figures beside the cells
that match, the comparison of the stacks with confidence intervals, latency
percentiles and time series (inline SVG), the machine and device facts, every
warning of every run and the ``nvbench run`` command that reproduces each run.
It needs no network to be read: the style is inline, the figures are inline
SVG, and there is no script at all.

Every string taken from a result (stack names, targets, warnings, host names,
device models: anyone may have written the file) is escaped before it enters
the page. The tables are :mod:`nvbench.report`'s, the figures
:mod:`nvbench._report_figures`'s; this module lays them out.
"""

import datetime
import html
import json
import math

from . import _report_figures as figures
from ._report_cpu import section as _cpu_section
from ._command import run_command
from .errors import verify_failure
from ._jsontext import write_text
from ._printable import printable
from ._published import published
from ._report_style import CSS
from ._report_trend import point_spreads, trend_section
from .labels import block_label
from .metrics import CPU_METRICS, METRICS, format_value
from .report import _pct, column_labels, compare, table, with_qd

__all__ = ["render", "write"]

_PERCENTILES = ("lat_p50_ms", "lat_p90_ms", "lat_p99_ms", "lat_p99_9_ms")


def esc(value):
    """Text from a result, safe in HTML text and in quoted attributes."""
    return html.escape(printable(value), quote=True)


def _json(obj):
    """JSON shown in a <pre>: json.dumps writes every control character and every
    non-ASCII one as an escape, so only HTML's own characters are left to escape."""
    return html.escape(json.dumps(obj, indent=1), quote=True)


def _is_reference(r):
    return r.data.get("source") == "reference"


def _run_name(r):
    m = r.meta
    name = f"{block_label(m.get('cell'), m.get('op'))} · {m.get('stack')}"
    return name + (f" · repeat {m['repeat']}" if m.get("repeat") else "")


class _Runs:
    """The results numbered once, so that every section links to the same run."""

    def __init__(self, rs):
        self.rs = rs
        self.results = list(rs)
        self.labels = column_labels(self.results)
        self.ids = {id(r): i + 1 for i, r in enumerate(self.results)}

    def anchor(self, r, text=None):
        n = self.ids[id(r)]
        return f'<a href="#run-{n}">{esc(text) if text is not None else f"run {n}"}</a>'

    def warned(self, block, label):
        return [r for r, lab in zip(self.results, self.labels)
                if lab == label and (r.meta.get("cell"), r.meta.get("op")) == block and _problems(r)]

    def bad_data(self, block, label):
        """The runs of a cell whose verify read back blocks that did not match."""
        return [r for r in self.warned(block, label) if verify_failure(r.data)]


def _problems(r):
    """What a reader must know about a run: its warnings, its error, a cancellation."""
    bad = verify_failure(r.data)  # bad data: a failure of the run, first (its warning stays too)
    out = [("error", f"verify failed: {bad}")] if bad else []
    out += [("warning", str(w)) for w in (r.data.get("warnings") or [])]
    err = r.data.get("error")
    if isinstance(err, dict):
        out.append(("error", f"{err.get('name') or ''} {err.get('message') or ''}".strip()))
    elif err:
        out.append(("error", str(err)))
    if r.data.get("cancelled"):
        out.append(("error", "cancelled: the figures are partial"))
    return out


def _frame_blocks(frame):
    """[(block title, [(metric label, {column: text})])] of a report.table frame."""
    out = {}
    for (block, metric), row in frame.iterrows():
        out.setdefault(block, []).append((metric, {c: row[c] for c in frame.columns}))
    return list(out.items())


def _tables(frame, runs, blocks, ref_columns=()):
    """One card per block of a report.table frame; columns without a figure left out."""
    cards, widest = [], 0
    by_title = {block_label(*b): b for b in blocks}
    for title, rows in _frame_blocks(frame):
        cols = [c for c in frame.columns if any(cells[c] for _, cells in rows)]
        widest = max(widest, len(cols))
        head, marked = [], set()  # marked: columns with bad data read back (verify)
        for c in cols:
            cls = ' class="ref"' if c in ref_columns else ""
            note = '<span class="tag">published</span>' if c in ref_columns else ""
            warned = runs.warned(by_title.get(title), c) if title in by_title else []
            bad = runs.bad_data(by_title.get(title), c) if warned else []
            if bad:
                note += (f'<a class="badge baddata" href="#problems-{runs.ids[id(bad[0])]}" '
                         f'title="verify: blocks read back did not match what was written">'
                         f'✗ verify failed ({len(bad)})</a>')
            if warned:
                note += (f'<a class="badge" href="#problems-{runs.ids[id(warned[0])]}" '
                         f'title="warnings of these runs">⚠ {len(warned)}</a>')
            head.append(f"<th{cls}>{esc(c)}{note}</th>")
            if bad:
                marked.add(c)
        body = []
        for metric, cells in rows:
            tds = "".join(f'<td{" class=ref" if c in ref_columns else " class=baddata" if c in marked else ""}>'
                          f'{"✗ " if c in marked else ""}{esc(cells[c])}</td>' for c in cols)
            body.append(f"<tr><th>{esc(metric)}</th>{tds}</tr>")
        cards.append(f'<div class="card"><h3>{esc(title)}</h3><div class="scroll"><table>'
                     f'<thead><tr><th>Metric</th>{"".join(head)}</tr></thead>'
                     f'<tbody>{"".join(body)}</tbody></table></div></div>')
    # More than four columns do not fit two cards a row: one card a row then.
    return f'<div class="grid{" wide" if widest > 4 else ""}">{"".join(cards)}</div>'


def _section(sid, title, body, intro=""):
    intro = f'<p class="intro">{intro}</p>' if intro else ""
    return f'<section id="{sid}"><h2>{title}</h2>{intro}{body}</section>'


# ------------------------------------------------------------- the sections

def _seed_tables(runs, with_reference, given):
    """The tables; ``given``: published figures that came with the results (then used
    instead of the library's copy, whatever with_reference says)."""
    blocks = runs.rs.blocks()
    ref = [r for r in (given or (published() if with_reference else []))
           if (r.meta["cell"], r.meta["op"]) in blocks]
    combined = runs.rs + ref
    frame = table(list(combined), fmt="frame")
    ref_cols = set(l for r, l in zip(combined, column_labels(list(combined))) if _is_reference(r))
    if ref:
        intro = ("Arithmetic means over the repeats, with the 95% confidence interval of the mean "
                 "[low, high] when a run was repeated, taken in the figure's domain (log scale for "
                 "rates and times, logit for CPU shares: docs/analysis.md). In purple, beside the "
                 "cells that match, the published "
                 "figures nvbench exists to reproduce: fio on 2 × AMD EPYC 9754 (512 logical "
                 "CPUs) and 15 × Solidigm P5316 NVMe as a JBOD, Windows Server 2025 and Ubuntu "
                 "24.04 (kernel 6.8), December 2025. Their CPU figure is the whole machine's, "
                 "so their CPU per I/O and IOPS per core are bounds (<code>nvbench.reference</code>).")
    else:
        intro = ("Arithmetic means over the repeats, with the 95% confidence interval of the mean "
                 "[low, high] when a run was repeated, taken in the figure's domain (log scale for "
                 "rates and times, logit for CPU shares: docs/analysis.md)." + ("" if not with_reference else
                                         " No cell of these results is one of the published "
                                         "cells, so no published figure stands beside them."))
    return _section("tables", "Results", _tables(frame, runs, blocks, ref_cols), intro)


def _baseline(labels, wanted):
    stacks = list(dict.fromkeys(labels))
    if wanted is not None:
        return wanted
    for s in stacks:
        if str(s).split(" ")[0] == "libaio":
            return s
    return stacks[0]


def _delta_cell(rec, single):
    """Δ of one stack, coloured by the verdict, with its interval beneath when there is one."""
    text = esc(_pct(rec.delta_pct))
    if single:
        return f"<td>{text}</td>"
    cls = {"better": "good", "worse": "bad"}.get(rec.verdict, "muted")
    # the interval and the verdict are each kept whole, and may go on lines of their own
    # beneath the Δ: a card shows every cell whole at any width a table of its columns fits
    ci = ("" if not (math.isfinite(rec.ci_low_pct) and math.isfinite(rec.ci_high_pct))
          else f"<span>[{esc(_pct(rec.ci_low_pct))}, {esc(_pct(rec.ci_high_pct))}]</span> ")
    return (f'<td class="{cls}">{text}<small>{ci}<span>{esc(rec.verdict)} · n {rec.n}/'
            f"{rec.n_baseline}</span></small></td>")


def _comparison_card(block, g, base, single):
    stacks = list(dict.fromkeys(g["stack"]))
    recs = {(rec.metric, rec.stack): rec for rec in g.itertuples(index=False)}
    qd = {rec.stack: rec.qd for rec in g.itertuples(index=False)}
    base_qd = g["baseline_qd"].iloc[0]
    head = (f'<th class="base">{esc(with_qd(base, base_qd))}<span class="tag">baseline</span></th>' +
            "".join(f"<th>{esc(with_qd(s, qd[s]))}</th><th>Δ</th>" for s in stacks))
    rows = []
    for metric in dict.fromkeys(g["metric"]):
        first = next(rec for (m, _), rec in recs.items() if m == metric)
        # a CPU figure that covers less than its process (fio: its job threads) is marked *
        mark = (lambda scope: "*" if metric in CPU_METRICS and scope != "process" else "")
        cells = [f'<td class="base">{esc(format_value(metric, first.baseline_mean))}'
                 f"{mark(first.baseline_cpu_scope)}</td>"]
        for s in stacks:
            rec = recs.get((metric, s))
            cells.append("<td></td><td></td>" if rec is None else
                         f"<td>{esc(format_value(metric, rec.mean))}{mark(rec.cpu_scope)}</td>"
                         + _delta_cell(rec, single))
        rows.append(f"<tr><th>{esc(METRICS[metric].label)}</th>{''.join(cells)}</tr>")
    return (f'<div class="card"><h3>{esc(block)}</h3><div class="scroll"><table class="cmp">'
            f"<thead><tr><th>Metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
            f"</table></div></div>"), len(stacks)


def _comparison(runs, baseline):
    if len(set(runs.labels)) < 2:
        return _section("compare", "Comparison", '<p class="note">One stack only: nothing to '
                        "compare. Run several engines (or load several files) to compare them.</p>")
    base = _baseline(runs.labels, baseline)
    df = compare(runs.results, baseline=base)
    single = bool(len(df)) and int(min(df["n"].min(), df["n_baseline"].min())) < 2
    cards = [_comparison_card(block, g, base, single) for block, g in df.groupby("block", sort=False)]
    intro = (f"Each stack against <b>{esc(base)}</b>, cell by cell, each at the queue depth it ran at "
             "(qd): the figures are the arithmetic means of the runs, and Δ is the change of "
             f"that mean in % of {esc(base)}'s; beneath it, the 95% confidence interval of that change "
             "from the repeats (Welch's, on the logarithm of the ratio of the means) and the verdict "
             "(<i>within noise</i>: the interval "
             "spans 0), in green when better, in red when worse.")
    scopes = sorted({sc for col in ("cpu_scope", "baseline_cpu_scope") for sc in df[col]} - {"process"})
    for scope in scopes:
        intro += (f" <b>*</b> CPU figures: {esc(scope)}: fio's usr_cpu/sys_cpu are taken per job thread "
                  "(RUSAGE_THREAD), not for fio's process: a lower bound of its cost.")
    if single:
        intro += (" <b>Each run was done once (n = 1): there is no interval, so no verdict;</b> "
                  "repeat the runs (<code>nvbench matrix --repeat 3</code>) to conclude.")
    wide = any(n > 1 for _, n in cards)
    body = (f'<div class="grid{" wide" if wide else ""}">{"".join(c for c, _ in cards)}</div>'
            if cards else '<p class="note">No cell has both the baseline and another stack.</p>')
    return _section("compare", "Comparison", body, intro)


def _figures(svgs, caption):
    cards = "".join(f'<figure class="card">{svg}</figure>' for _, svg in svgs)
    return f'<div class="grid figs">{cards}</div><p class="caption">{caption}</p>'


def _latency(runs, no_plots):
    frame = table(runs.results, metrics=list(_PERCENTILES), fmt="frame")
    parts = []
    if no_plots:
        parts.append(f'<p class="missing">No figure: {esc(no_plots)}.</p>')
    else:
        svgs = figures.latency_svgs(runs.rs)
        parts.append(_figures(svgs, "Latency percentiles (log scale), one line per stack at the "
                              "qd it ran at; each point the arithmetic mean over the runs that "
                              "have every percentile; error bars: 95% confidence interval over "
                              "the repeats (log scale).") if svgs else
                     '<p class="note">These results hold no latency percentiles.</p>')
    parts.append(_tables(frame, runs, runs.rs.blocks()))
    return _section("latency", "Latency percentiles", "".join(parts),
                    "From each run's full latency histogram (relative error of a percentile at "
                    "most 0.78%).")


def _timeseries(runs, no_plots):
    if no_plots:
        body = f'<p class="missing">No figure: {esc(no_plots)}.</p>'
    else:
        svgs = figures.timeseries_svgs(runs.rs)
        body = (_figures(svgs, "I/O rate over each run's measured window, one step per "
                         "interval (the <code>interval</code> key), one line per run; a run of "
                         "one interval is a point, too short for a series.") if svgs
                else '<p class="note">These results hold no time series.</p>')
    return _section("timeseries", "Time series", body)


def _kv(d):
    return ", ".join(f"{esc(k)}={esc(v)}" for k, v in d.items()) if d else "–"


def _bytes(n):
    if not isinstance(n, (int, float)) or isinstance(n, bool) or n <= 0:
        return "–"
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.4g} {unit}"
    return f"{int(n)} B"


def _span(values, unit):
    values = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    if not values:
        return "–"
    lo, hi = min(values), max(values)
    return f"{lo:.3g} {unit}" if f"{lo:.3g}" == f"{hi:.3g}" else f"{lo:.3g} – {hi:.3g} {unit}"


def _table(head, rows):
    th = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (f'<div class="card"><div class="scroll"><table class="facts"><thead><tr>{th}</tr>'
            f"</thead><tbody>{body}</tbody></table></div></div>")


def _machine(runs):
    hosts, engines, targets = {}, {}, {}
    for r in runs.results:
        d = r.data
        cpu = d.get("cpu") if isinstance(d.get("cpu"), dict) else {}
        names = [h.get("host") for h in d.get("hosts") or [] if isinstance(h, dict)] or [d.get("host")]
        host = ", ".join(str(h) for h in names if h) or "–"
        h = hosts.setdefault(host, {"runs": 0, "versions": set(), "ncpus": set(), "starts": [],
                                    "clock": [], "background": []})
        h["runs"] += 1
        h["versions"].add(str(d.get("version") or d.get("source") or "–"))
        if cpu.get("ncpus"):
            h["ncpus"].add(cpu["ncpus"])
        if d.get("start_time"):
            h["starts"].append(str(d["start_time"]))
        if d.get("clock_cost_ns") is not None:
            h["clock"].append(d["clock_cost_ns"])
        if isinstance(cpu.get("background_pct"), (int, float)):
            h["background"].append(cpu["background_pct"])
        used = d.get("engine_used") if isinstance(d.get("engine_used"), dict) else {}
        key = (str(d.get("engine") or r.meta.get("engine")), json.dumps(used, sort_keys=True))
        engines.setdefault(key, [used, 0])[1] += 1
        for t in d.get("per_target") or []:
            if isinstance(t, dict):
                targets.setdefault((str(t.get("host") or host), str(t.get("path"))), t)
    host_rows = [(esc(h), esc(", ".join(sorted(v["versions"]))),
                  esc(", ".join(str(n) for n in sorted(v["ncpus"])) or "–"), v["runs"],
                  esc(min(v["starts"]) + " – " + max(v["starts"]) if v["starts"] else "–"),
                  esc(f"{max(v['background']):.1f} %" if v["background"] else "–"),
                  esc(_span(v["clock"], "ns")))
                 for h, v in hosts.items()]
    engine_rows = [(esc(e), _kv(used), n) for (e, _), (used, n) in engines.items()]
    target_rows = []
    for (host, path), t in targets.items():
        dev = t.get("device") if isinstance(t.get("device"), dict) else {}
        model = " ".join(str(x) for x in (dev.get("model"), dev.get("serial")) if x) or "–"
        blocks = f"{t.get('logical_block_size') or '–'}"
        if dev.get("physical_block_size"):
            blocks += f" / {dev['physical_block_size']}"
        extra = {k: dev[k] for k in ("kind", "indirection_unit", "indirection_unit_source",
                                     "link_ceiling_gbs") if dev.get(k) is not None}
        target_rows.append((esc(host), f"<code>{esc(path)}</code>", esc(t.get("kind") or "–"),
                            esc(t.get("dev") or "–"), esc(_bytes(t.get("region_size"))),
                            esc(blocks), esc(model), _kv(extra)))
    body = ("<h3>Hosts</h3>" + _table(("Host", "nvbench", "Logical CPUs", "Runs", "Started (UTC)",
                                       "Most CPU used by others", "Time stamp cost"), host_rows) +
            "<h3>Engines</h3>" + _table(("Engine", "What it did (engine_used)", "Runs"), engine_rows) +
            "<h3>Targets</h3>" + _table(("Host", "Target", "Kind", "Device", "Region",
                                         "Block sizes (logical / physical)", "Model, serial",
                                         "Device facts"), target_rows))
    return _section("machine", "Machine and devices", body,
                    "As each result recorded them (docs/json-schema.md).")


def _warnings(runs):
    rows = []
    for r in runs.results:
        for i, (kind, text) in enumerate(_problems(r)):
            rid = f' id="problems-{runs.ids[id(r)]}"' if i == 0 else ""
            rows.append(f'<tr{rid} class="{kind}"><td>{runs.anchor(r)}</td>'
                        f"<td>{esc(_run_name(r))}</td><td>{esc(kind)}</td><td class=text>"
                        f"{esc(text)}</td></tr>")
    if not rows:
        return _section("warnings", "Warnings", '<p class="ok">No run reported a warning.</p>')
    body = (f'<div class="card"><div class="scroll"><table class="facts"><thead><tr><th>Run</th>'
            f"<th>Cell · stack</th><th>Kind</th><th>Message</th></tr></thead><tbody>"
            f'{"".join(rows)}</tbody></table></div></div>')
    return _section("warnings", f"Warnings ({len(rows)})", body,
                    "Every warning of every run, as the library wrote it into the result.")


def _runs(runs):
    rows = []
    for r in runs.results:
        n = runs.ids[id(r)]
        d = r.data
        cmd = run_command(d)
        wl = d.get("workload") if isinstance(d.get("workload"), dict) else {}
        dur = d.get("duration_s")
        when = esc(d.get("start_time") or "–")
        cmd_html = (f"<pre>{esc(cmd)}</pre>" if cmd else '<p class="note">no workload recorded</p>')
        source = d.get("source")
        if source and source != "nvbench":
            cmd_html = (f'<p class="note">A {esc(source)} result: the nvbench command of the '
                        f"same workload is</p>" + cmd_html)
        rows.append(f'<tr id="run-{n}"><td>{n}</td><td>{esc(_run_name(r))}<br><span class=muted>'
                    f"{when} · {esc(f'{dur:.3g} s' if isinstance(dur, (int, float)) else '–')}"
                    f"</span></td><td class=cmd>{cmd_html}<details><summary>workload object"
                    f"</summary><pre>{_json(wl)}</pre></details></td></tr>")
    body = (f'<div class="card"><div class="scroll"><table class="facts runs"><thead><tr><th>#</th>'
            f"<th>Run</th><th>Command that runs it again</th></tr></thead><tbody>{''.join(rows)}"
            f"</tbody></table></div></div>")
    return _section("runs", "Runs and their workloads", body,
                    "Every key whose value differs from the library's default is named; the "
                    "workload object holds every key at the value that ran. A matrix's scratch "
                    "file is removed after the run: lay out a file of the region's size first.")


def _plural(n, word):
    return word if n == 1 else word + "s"


def _header(runs, title, sources):
    results = runs.results
    stacks = list(dict.fromkeys(runs.labels))
    cells = {(r.meta.get("cell"), r.meta.get("op")) for r in results}
    problems = sum(len(_problems(r)) for r in results)
    repeats = len({r.meta.get("repeat") for r in results})
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    versions = sorted({str(r.data.get("version")) for r in results if r.data.get("version")})
    chips = [(len(results), "run"), (len(cells), "cell"), (len(stacks), "stack"),
             (repeats, "repeat")]
    chip_html = "".join(f'<div class="chip"><b>{v}</b>{_plural(v, k)}</div>' for v, k in chips)
    chip_html += (f'<a class="chip {"warn" if problems else "okchip"}" href="#warnings"><b>{problems}'
                  f'</b>{_plural(problems, "warning")}</a>')
    src = ""
    if sources:
        src = "<p class=sub>From " + ", ".join(f"<code>{esc(s)}</code>" for s in sources) + "</p>"
    return (f"<header><h1>{esc(title)}</h1><p class=sub>Stacks: "
            f'{", ".join(f"<b>{esc(s)}</b>" for s in stacks)} · generated {when} by nvbench '
            f'{esc(", ".join(versions) or "")}</p>{src}<div class="chips">{chip_html}</div></header>')


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _device_cells(d):
    """One target's device_log (docs/device.md) as the device table's cells after the run's."""
    if not d.get("available"):
        return (f'<span class=muted>n/a: {esc(d.get("reason") or "not read")}</span>', "–", "–", "–", "–", "–", "–")
    delta, a, b = d.get("delta") or {}, d.get("after") or {}, d.get("before") or {}
    wa, cpi = d.get("device_bytes_per_host_byte"), d.get("host_commands_per_io")
    units = delta.get("data_units_written")
    ratio = f"{wa:.3g}" if _num(wa) else esc(d.get("derived_reason") or "–")
    written = _bytes(units * 512000) if _num(units) else "–"
    temp = "–"
    if _num(b.get("temperature_k")) and _num(a.get("temperature_k")):
        thr = d.get("warning_threshold_k")
        temp = (f"{b['temperature_k'] - 273} → {a['temperature_k'] - 273} °C"
                + (f" (warning at {thr - 273} °C)" if _num(thr) else ""))
    events = [f"{k.replace('_', ' ')} +{delta[k]}" for k in (
        "thermal_management_temperature_1_transition_count",
        "thermal_management_temperature_2_transition_count", "warning_composite_temperature_time",
        "critical_composite_temperature_time", "media_errors") if _num(delta.get(k)) and delta[k] > 0]
    waf = d.get("write_amplification")
    if _num(waf):
        waf = esc(f"{waf:.3g}")
    elif isinstance(d.get("media"), dict):  # absent in results from before it
        waf = f'<span class=muted>n/a: {esc(d.get("write_amplification_reason") or "not read")}</span>'
    else:
        waf = "–"
    return (esc(ratio), esc(written), waf, esc(f"{cpi:.3g}" if _num(cpi) else "–"), esc(temp),
            esc(", ".join(events) or "none"), _power_cell(d.get("power")))


def _power_cell(p):
    """The device's measured power (device_log.power.measured_w), or why there is none."""
    if not isinstance(p, dict) or not p.get("available"):  # absent in results from before it
        return "–" if not isinstance(p, dict) else f'<span class=muted>n/a: {esc(p.get("reason") or "not read")}</span>'
    if _num(p.get("measured_w")):
        return esc(f"{p['measured_w']:.3g} W over {p.get('measured_intervals')} intervals")
    return f'<span class=muted>n/a: {esc(p.get("measured_reason") or "not measured")}</span>'


def _energy_cell(e):
    if not isinstance(e, dict):
        return "–"
    if not e.get("available"):
        return f'<span class=muted>n/a: {esc(e.get("reason") or "not measured")}</span>'
    parts = [f"{e.get('joules', 0):.3g} J"]
    if _num(e.get("joules_per_io")):
        parts.append(f"{e['joules_per_io'] * 1e6:.3g} µJ per I/O")
    if _num(e.get("watts")):
        parts.append(f"{e['watts']:.3g} W")
    return esc(", ".join(parts))


def _device(runs):
    """What the devices did per run (per_target[].device_log) and the energy (energy): the
    section is there when any result carries either."""
    rows = []
    for r in runs.results:
        d = r.data
        logs = [t for t in d.get("per_target") or [] if isinstance(t, dict)
                and isinstance(t.get("device_log"), dict)]
        if not logs and not isinstance(d.get("energy"), dict):
            continue
        energy = _energy_cell(d.get("energy"))
        for i, t in enumerate(logs or [{}]):
            dl = t.get("device_log")
            cells = _device_cells(dl) if dl else ("–",) * 7
            rows.append((runs.anchor(r), esc(_run_name(r)), f"<code>{esc(t.get('path') or '–')}</code>",
                         *cells, energy if i == 0 else ""))
    if not rows:
        return _section("device", "Device counters and energy",
                        '<p class="note">No result recorded device counters or energy (results '
                        "from before nvbench read them).</p>")
    body = _table(("Run", "Cell · stack", "Target", "Device bytes written per host byte",
                   "Device wrote", "Write amplification (media bytes per host byte)",
                   "Host commands per I/O", "Temperature", "Throttling, errors", "Device power (measured)",
                   "Energy, CPU packages"), rows)
    return _section("device", "Device counters and energy", body,
                    "The NVMe health log before and after each run, as deltas (docs/device.md); the "
                    "write amplification factor where the device reports media writes; "
                    "temperatures as the device reports them; the power the device measured over the "
                    "run, where it measures it; the CPU packages' energy (RAPL) of the "
                    "whole machine over the run. n/a says why a figure was not read.")


_NAV = (("tables", "Results"), ("compare", "Comparison"), ("latency", "Latency"),
        ("timeseries", "Time series"), ("machine", "Machine"), ("warnings", "Warnings"),
        ("runs", "Runs"), ("cpu", "CPU"), ("device", "Device"))


def render(rs, title=None, baseline=None, reference=True, sources=None, trend=None, trend_points=None):
    """The report of the ResultSet ``rs`` as one HTML document (a str).

    baseline: the stack the comparison is made against (default libaio when present,
    else the first stack). reference: put the published figures beside the cells that
    match. sources: names of the files the results came from, shown in the header.
    trend: rows of a store (Store.query) for the trend view, each metric over time per
    host and stack (nvbench._report_trend); None: no trend view. trend_points: those
    runs' stored time-series points (Store.points), for the spread within a run."""
    given = [r for r in rs if _is_reference(r)]  # (mine + nvbench.reference()).report()
    rs = rs.filter(lambda r: not _is_reference(r))
    if len(rs) == 0:
        raise ValueError("nothing to report: no result besides the published figures"
                         if given else "nothing to report: the ResultSet is empty")
    runs = _Runs(rs)
    no_plots = figures.missing()
    title = title or "nvbench report"
    nav = "".join(f'<a href="#{sid}">{name}</a>' for sid, name in _NAV)
    parts = [_header(runs, title, sources), f"<nav>{nav}</nav>",
             _seed_tables(runs, reference, given), _comparison(runs, baseline),
             _latency(runs, no_plots), _timeseries(runs, no_plots), _machine(runs),
             _warnings(runs), _runs(runs)]
    parts.append(_cpu_section(runs, esc, _section))  # "Where the CPU went": _report_cpu.py
    parts.append(_device(runs))  # device counters and energy
    if trend is not None:  # the trend view: its own block, appended
        nav += '<a href="#trend">Trend</a>'
        parts[1] = f"<nav>{nav}</nav>"
        trend = list(trend)
        parts.append(trend_section(trend, no_plots, point_spreads(trend_points or [])))
    foot = ("<footer>Written by nvbench's <code>ResultSet.report()</code>: one file, no "
            "network access, no script. Figures: matplotlib (SVG).</footer>")
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            '<meta name=viewport content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body><main>"
            + "\n".join(parts) + foot + "</main></body></html>\n")


def write(rs, path, **kwargs):
    """Write :func:`render`'s document to ``path`` (a path or a text file); returns path."""
    return write_text(path, render(rs, **kwargs))
