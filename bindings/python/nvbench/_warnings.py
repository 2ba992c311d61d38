"""The library's warnings as the front doors show them: each once.

A result carries its warnings as texts. Over many runs (a matrix) the same
warning comes back from every cell, often with other figures (the machine's
load in each run): those are one line, with the range of each figure, and
the runs it concerns. The CLI prints these lines on stderr; the Python API
issues each as an NvbenchWarning.
"""
import re
import warnings

from ._printable import printable
from .errors import NvbenchWarning

_NUM = re.compile(r"\d+(?:\.\d+)?")


def _where(r):
    meta = getattr(r, "meta", {}) or {}
    return " ".join(str(meta[k]) for k in ("stack", "cell", "op") if meta.get(k) is not None)


def grouped(results):
    """One line per distinct warning of the results (Results or dicts)."""
    results = list(results)
    groups = {}
    for r in results:
        data = r.data if hasattr(r, "data") else r
        for w in data.get("warnings") or []:
            groups.setdefault(_NUM.sub("#", w), []).append((w, _where(r)))
    lines = []
    for template, items in groups.items():
        texts = [w for w, _ in items]
        text = texts[0]
        if len(set(texts)) > 1:
            figs = [[float(x) for x in _NUM.findall(t)] for t in texts]
            parts = template.split("#")
            out = [parts[0]]
            for i, tail in enumerate(parts[1:]):
                lo, hi = min(f[i] for f in figs), max(f[i] for f in figs)
                out.append(f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}")
                out.append(tail)
            text = "".join(out)
        runs = [x for _, x in items if x]
        if len(results) > 1 and runs:
            more = ", ..." if len(runs) > 3 else ""
            text += f" ({len(runs)} of {len(results)} runs: {', '.join(runs[:3])}{more})"
        lines.append(text)
    return lines


def warn(line, stacklevel=2):
    """One warning as an NvbenchWarning. Python prints it on stderr, a terminal
    as like as not, and it quotes targets and names anyone may have chosen:
    shown escaped (nvbench._printable), never obeyed."""
    warnings.warn(NvbenchWarning(printable(line)), stacklevel=stacklevel + 1)


def issue(results, stacklevel=3):
    """Each grouped warning of the results as an NvbenchWarning."""
    for line in grouped(results):
        warn(line, stacklevel + 1)
