"""The report's "Where the CPU went" section (docs/cpu.md): per cell, a
stacked bar per run of the machine's CPU per I/O by kind (user, system, irq,
softirq), the interrupts per I/O, the event counters, where the jobs ran and
the environment checks that failed; each run's per-CPU rows under it.

Plain HTML and inline widths: no script, no figure library. Every string
from a result is escaped by the caller's ``esc``."""

import math

from ._cpu_explain import PLACE_WARN
from ._env_compare import differences
from .labels import block_label

KINDS = (("user", "#4e79a7"), ("system", "#f28e2b"), ("irq", "#e15759"), ("softirq", "#76b7b2"))


def _n(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _g(v, unit=""):
    return f"{v:.3g}{unit}" if _n(v) else "–"


def _dict(v):
    return v if isinstance(v, dict) else {}


def _bar(k, scale):
    """A bar of the kinds, as wide as busy is of the card's widest."""
    segs = []
    for kind, colour in KINDS:
        v = k.get(kind)
        if _n(v) and v > 0 and scale > 0:
            segs.append(f'<span title="{kind} {v:.3g} us" style="display:inline-block;height:0.9em;'
                        f'width:{100.0 * v / scale:.2f}%;background:{colour}"></span>')
    return ('<div style="width:16em;background:#eee;white-space:nowrap;line-height:0">'
            + "".join(segs) + "</div>")


def _counters(c, esc):
    if not c:
        return "–"
    if c.get("null_reason"):
        return f'<span class=muted>{esc(c["null_reason"])}</span>'
    text = f"{_g(c.get('task_clock_us_per_io'))} us on a CPU"
    if _n(c.get("cycles_per_io")):
        text += f", {_g(c['cycles_per_io'])} cycles, {_g(c.get('instructions_per_io'))} instructions"
    out = esc(text)
    if c.get("hardware_null_reason"):
        out += f'<br><span class=muted>cycles: {esc(c["hardware_null_reason"])}</span>'
    return out


def _placement(p, esc):
    jobs = [j for j in p.get("jobs") or [] if isinstance(j, dict)]
    if not jobs:
        return "–"
    seen = {}
    for j in jobs:
        where = f"CPU {j.get('last_cpu')}" + (f" (node {j['node']})" if j.get("node") is not None else "")
        seen[where] = seen.get(where, 0) + 1
    devs = ", ".join(f"{d}: node {v.get('node')}" for d, v in _dict(p.get("devices")).items()
                     if isinstance(v, dict) and v.get("node") is not None)
    text = ", ".join(f"{w}" + (f" x{n}" if n > 1 else "") for w, n in seen.items())
    return esc(text + (f"; device {devs}" if devs else ""))


def _checks(d, esc):
    failed = [w for w in d.get("warnings") or [] if isinstance(w, str)
              and w.startswith(("environment:",) + PLACE_WARN)]
    return "<br>".join(esc(w) for w in failed) if failed else '<span class=ok>none failed</span>'


def _per_cpu(name, rows, esc):
    """A run's per-CPU rows, folded, after the card's table (a table of its own)."""
    rows = [r for r in rows or [] if isinstance(r, dict)]
    if not rows:
        return ""
    body = "".join(f"<tr><td>{esc(r.get('cpu'))}</td>" + "".join(f"<td>{_g(r.get(k))}</td>" for k, _ in KINDS)
                   + f"<td>{_g(r.get('iowait'))}</td><td>{_g(r.get('steal'))}</td><td>{_g(r.get('busy'))}</td></tr>"
                   for r in rows)
    return (f"<details><summary>per CPU: {name}</summary><table class=facts><thead><tr><th>CPU</th><th>user</th>"
            "<th>system</th><th>irq</th><th>softirq</th><th>iowait</th><th>steal</th><th>busy</th></tr>"
            f"</thead><tbody>{body}</tbody></table></details>")


def _row(r, name, scale, esc):
    d = r.data
    cpu = _dict(d.get("cpu"))
    k = _dict(cpu.get("per_io_us"))
    irq = _dict(d.get("interrupts"))
    if _n(k.get("busy")):
        parts = " + ".join(f"{_g(k.get(kind))} {kind}" for kind, _ in KINDS)
        kinds = (f"{_bar(k, scale)}<span>{esc(_g(k['busy']))} us = {esc(parts)}</span>"
                 f"<br><span class=muted>nvbench's own {esc(_g(k.get('own_user')))} user + "
                 f"{esc(_g(k.get('own_system')))} system; one tick {esc(_g(k.get('resolution_us')))} us</span>")
    elif k:
        kinds = f'<span class=muted>n/a: {esc(k.get("null_reason") or "not measured")}</span>'
    else:
        kinds = '<span class=muted>not recorded (a result from before these figures)</span>'
    ipi = (esc(_g(irq.get("per_io"))) if _n(irq.get("per_io"))
           else f'<span class=muted>{esc(irq.get("null_reason") or "–")}</span>' if irq else "–")
    return (f"<tr><td>{name}</td><td>{kinds}</td><td>{ipi}</td>"
            f"<td>{_counters(_dict(cpu.get('counters')), esc)}</td>"
            f"<td>{_placement(_dict(d.get('placement')), esc)}</td><td>{_checks(d, esc)}</td></tr>")


def _env_differences(runs, esc):
    """The environment facts that differ between the first stack's runs and each other's
    (as nvbench compare names them)."""
    stacks = {}
    for r, label in zip(runs.results, runs.labels):
        stacks.setdefault(label, []).append(r)
    names = list(stacks)
    lines = [w for other in names[1:] for w in differences(stacks[names[0]], stacks[other], names[0], other)]
    if not lines:
        return ""
    return ("<p class=note>Environment facts that differ between the stacks (each changes the figures "
            "named; <code>nvbench compare</code> refuses the ones that change what it compares):</p><ul class=envdiff>"
            + "".join(f"<li>{esc(w)}</li>" for w in lines) + "</ul>")


def section(runs, esc, section_fn):
    """The section: one card per cell (in the runs' order), one row per run."""
    cells = {}
    for r, label in zip(runs.results, runs.labels):
        cells.setdefault((r.meta.get("cell"), r.meta.get("op")), []).append((r, label))
    cards = []
    for (cell, op), rs in cells.items():
        busy = [_dict(_dict(r.data.get("cpu")).get("per_io_us")).get("busy") for r, _ in rs]
        scale = max([b for b in busy if _n(b)] or [0])
        names = [runs.anchor(r, label + (f" · repeat {r.meta['repeat']}" if r.meta.get("repeat") else ""))
                 for r, label in rs]
        rows = "".join(_row(r, name, scale, esc) for (r, _), name in zip(rs, names))
        per_cpu = "".join(_per_cpu(name, _dict(r.data.get("cpu")).get("per_cpu"), esc)
                          for (r, _), name in zip(rs, names))
        legend = " ".join(f'<span style="display:inline-block;width:0.8em;height:0.8em;background:{c}"></span>'
                          f" {k}" for k, c in KINDS)
        cards.append(f"<h3>{esc(block_label(cell, op))}</h3><p class=note>{legend}</p>"
                     '<div class="card"><div class="scroll"><table class="facts cpu"><thead><tr><th>Run</th>'
                     "<th>Machine CPU per I/O (us)</th><th>Interrupts per I/O</th><th>Counters per I/O</th>"
                     f"<th>Where the jobs ran</th><th>Environment checks failed</th></tr></thead><tbody>{rows}"
                     f"</tbody></table></div>{per_cpu}</div>")
    return section_fn("cpu", "Where the CPU went", _env_differences(runs, esc) + "".join(cards),
                      "<p class=note>The whole machine's CPU time over each run's window by kind, per I/O "
                      "(other processes' work included: nvbench's own is beside it), the targets' device "
                      "interrupts per I/O, the CPU's event counters for the run's threads, the CPUs the jobs "
                      "last ran on and the environment checks that warned (docs/cpu.md).</p>")
