"""``nvbench gate``: fail a CI job when a candidate's figures got worse than a baseline's beyond
a threshold AND beyond noise (docs/history.md).

Each ``--fail-if`` names a figure, a direction and a threshold: ``iops<-5%`` fails when the
candidate's mean IOPS is below the baseline's by more than 5 % with the stated confidence,
that is when the whole confidence interval of the ratio of the means (the library's
nvb_stats_ratio, Welch's on the logarithm of the ratio) lies beyond 0.95. A change whose
interval reaches the threshold is noise and passes. With fewer than two repeats on a side
there is no interval: the verdict is "inconclusive" (exit 3), never a pass or a failure.
Results whose workloads (the measuring keys), host, device or kernel differ are not judged
(exit 2): their difference is not a regression of the same thing.

Exit status: 0 pass, 1 regression, 2 bad input or results that cannot be compared,
3 inconclusive.
"""
import json
import math
import os
import re

from ._cli_common import EXIT_FAIL, EXIT_INPUT, EXIT_OK, _err
from ._printable import printable
from ._store_cli import _query_of
from .loading import load
from .metrics import figures
from .result import Result
from .stats import ratio_ci
from .store import StoreError, row_of

EXIT_INCONCLUSIVE = 3

# the figures a condition may name: (column of metrics.figures, what it is)
FIGURES = {
    "iops": ("iops", "I/Os per second"),
    "bw": ("bw_gib_s", "bandwidth, GiB/s"),
    "lat.mean": ("lat_mean_ms", "mean latency, ms"),
    "lat.p50": ("lat_p50_ms", "median latency, ms"),
    "lat.p90": ("lat_p90_ms", "p90 latency, ms"),
    "lat.p99": ("lat_p99_ms", "p99 latency, ms"),
    "lat.p99.9": ("lat_p99_9_ms", "p99.9 latency, ms"),
    "cpu": ("cpu_us_per_io", "CPU per I/O, us"),
}

_COND = re.compile(r"^\s*([a-z0-9.]+)\s*([<>])\s*([+-]?)(\d+(?:\.\d+)?)\s*%\s*$")


def parse_condition(text):
    """'iops<-5%' -> ('iops', '<', -0.05); ValueError naming what is wrong."""
    m = _COND.match(text)
    if not m:
        raise ValueError(f"--fail-if '{text}': expected FIGURE<-N% or FIGURE>+N% (iops<-5%, lat.p99>+10%)")
    name, op, sign, num = m.groups()
    if name not in FIGURES:
        raise ValueError(f"--fail-if '{text}': unknown figure '{name}' (known: {', '.join(FIGURES)})")
    pct = float(num) / 100.0
    if op == "<":
        if sign == "+":
            raise ValueError(f"--fail-if '{text}': '<' takes a drop (-N%)")
        return name, op, -pct
    if sign == "-":
        raise ValueError(f"--fail-if '{text}': '>' takes a rise (+N%)")
    return name, op, pct


# what must be equal for a change to be a regression of the same thing
_SAME = (("workload", "workload_key"), ("host", "host"), ("device model", "device_model"),
         ("device serial", "device_serial"), ("kernel", "kernel"))


def _facts(r):
    row = row_of(r)
    if r.meta.get("store_kernel"):
        row["kernel"] = r.meta["store_kernel"]
    return row


def unlike(base, cand):
    """Why the two sets are not the same thing measured (a list of reasons), and the facts
    that could not be checked (unknown on a side)."""
    why, unknown = [], []
    fb, fc = [_facts(r) for r in base], [_facts(r) for r in cand]
    for label, col in _SAME:
        vb, vc = {f[col] for f in fb}, {f[col] for f in fc}
        if None in vb or None in vc:
            if vb - {None} and vc - {None} and vb - {None} != vc - {None}:
                why.append(f"{label}: {_show(vb)} in the baseline, {_show(vc)} in the candidate")
            else:
                unknown.append(label)
            continue
        if len(vb) > 1:
            why.append(f"{label}: the baseline's runs differ ({_show(vb)})")
        elif len(vc) > 1:
            why.append(f"{label}: the candidate's runs differ ({_show(vc)})")
        elif vb != vc:
            why.append(f"{label}: {_show(vb)} in the baseline, {_show(vc)} in the candidate")
    return why, unknown


def _show(values):
    return " / ".join(sorted(str(v) for v in values if v is not None)) or "unknown"


def judge(base, cand, conditions, confidence=0.95):
    """One verdict per condition: dicts with figure, condition, baseline and candidate means and
    repeats, change (ratio - 1) with its interval, verdict ('pass', 'fail', 'inconclusive')
    and why."""
    out = []
    for name, op, thr in conditions:
        col = FIGURES[name][0]
        a = [figures(r).get(col) for r in base]
        b = [figures(r).get(col) for r in cand]
        a = [v for v in a if v is not None and math.isfinite(v)]
        b = [v for v in b if v is not None and math.isfinite(v)]
        row = {"figure": name, "condition": f"{name}{op}{thr * 100:+g}%", "n_baseline": len(a),
               "n_candidate": len(b), "baseline": None, "candidate": None, "change": None, "low": None,
               "high": None, "verdict": "inconclusive", "why": None}
        if not a or not b:
            row["why"] = f"no {name} figure in the {'baseline' if not a else 'candidate'}"
            out.append(row)
            continue
        e = ratio_ci(a, b, "positive", confidence)
        row.update(baseline=e["mean_a"], candidate=e["mean_b"], change=e["ratio"] - 1)
        if e["why"] is not None or not math.isfinite(e["low"]) or not math.isfinite(e["high"]):
            row["why"] = (f"no {confidence:.0%} interval ({e['why'] or 'no finite spread'}): "
                          f"{len(a)} baseline and {len(b)} candidate repeats; give each side at least 2")
            out.append(row)
            continue
        row.update(low=e["low"] - 1, high=e["high"] - 1)
        beyond = e["high"] - 1 < thr if op == "<" else e["low"] - 1 > thr
        row["verdict"] = "fail" if beyond else "pass"
        if not beyond:
            point = row["change"] < thr if op == "<" else row["change"] > thr
            row["why"] = ("beyond the threshold but within noise" if point else "within the threshold")
        out.append(row)
    return out


def _pct(v):
    return "-" if v is None else f"{v * 100:+.1f}%"


class Unlike(ValueError):
    """The baseline and the candidate measure different things: .why names each difference."""

    def __init__(self, why):
        super().__init__("not judged: the baseline and the candidate measure different things (force=True "
                         "judges anyway): " + "; ".join(why))
        self.why = why


def _side(what, spec, db):
    """The results of one side: a file, a store query ('store:host=a,last=5'), a Result, a
    ResultSet or a list of Results (or result dicts)."""
    if isinstance(spec, (str, os.PathLike)):
        spec = os.fspath(spec)
        try:
            rs = list(_query_of(spec, db).load() if spec.startswith("store:") else load(spec))
        except (OSError, ValueError, StoreError) as e:
            raise ValueError(f"{what} {spec}: {getattr(e, 'strerror', None) or e}") from None
    else:
        rs = [spec] if isinstance(spec, (Result, dict)) else list(spec)
        rs = [r if isinstance(r, Result) else Result(r) for r in rs]
        spec = f"({type(spec).__name__})"
    if not rs:
        raise ValueError(f"{what} {spec}: no result")
    return rs


def gate(baseline, candidate, fail_if, confidence=0.95, force=False, db=None):
    """The regression gate (``nvbench gate``) from Python: ``nvbench.gate("store:label.branch=main,
    last=9", "candidate.json", ["iops<-5%", "lat.p99>+10%"])``. Each side is a result file, a
    store query (``store:...``, read from db), a Result, a ResultSet or a list of Results.
    Returns {"verdict": "pass" | "fail" | "inconclusive", "confidence", "conditions": one dict
    per condition (figure, means, repeats, change and its interval, verdict, why),
    "not_checked": facts unknown on a side, "differences_forced": what force=True overrode}.
    Raises ValueError for a bad condition or a side without results, and Unlike (a ValueError
    naming each difference) when the sides differ in workload, host, device or kernel."""
    conditions = [parse_condition(c) for c in ([fail_if] if isinstance(fail_if, str) else fail_if)]
    if not conditions:
        raise ValueError("gate needs at least one --fail-if (iops<-5%, lat.p99>+10%)")
    base, cand = _side("baseline", baseline, db), _side("candidate", candidate, db)
    why, unknown = unlike(base, cand)
    if why and not force:
        raise Unlike(why)
    rows = judge(base, cand, conditions, confidence)
    verdicts = {r["verdict"] for r in rows}
    word = "fail" if "fail" in verdicts else "inconclusive" if "inconclusive" in verdicts else "pass"
    return {"verdict": word, "confidence": confidence, "conditions": rows, "not_checked": unknown,
            "differences_forced": why}


def cmd_gate(args):
    try:
        v = gate(args.baseline, args.candidate, args.fail_if, args.confidence, args.force, args.db)
    except Unlike as e:
        _err("not judged: the baseline and the candidate measure different things (--force judges anyway):")
        for w in e.why:
            _err("  " + w)
        return EXIT_INPUT
    except ValueError as e:
        _err(str(e))
        return EXIT_INPUT
    rows, unknown, why = v["conditions"], v["not_checked"], v["differences_forced"]
    status = {"pass": EXIT_OK, "fail": EXIT_FAIL, "inconclusive": EXIT_INCONCLUSIVE}[v["verdict"]]
    word = {EXIT_OK: "pass", EXIT_FAIL: "FAIL", EXIT_INCONCLUSIVE: "inconclusive"}[status]
    if args.json:
        print(json.dumps({"verdict": word.lower(), "confidence": args.confidence, "conditions": rows,
                          "not_checked": unknown, "differences_forced": why}, indent=1))
    else:
        print(f"gate: {word} ({args.confidence:.0%} intervals of the change in the means)")
        for r in rows:
            interval = "" if r["low"] is None else f" [{_pct(r['low'])}, {_pct(r['high'])}]"
            means = "" if r["baseline"] is None else f"  {r['baseline']:.4g} (n={r['n_baseline']}) -> " \
                                                     f"{r['candidate']:.4g} (n={r['n_candidate']})"
            print(printable(f"  {r['condition']:<16} {r['verdict']:<12} change {_pct(r['change'])}{interval}{means}"
                            + (f"  ({r['why']})" if r["why"] else "")))
        if unknown:
            print(f"  not checked (unknown on a side): {', '.join(unknown)}")
        if why:
            print("  judged with --force despite: " + "; ".join(why))
    return status


def add_parser(sub):
    s = sub.add_parser("gate", help="fail when a candidate is worse than a baseline beyond a threshold and noise",
                       description="Judge a candidate's results against a baseline's (files, or store queries "
                                   "store:host=a,stack=io_uring,last=10 with --db): each --fail-if fails only "
                                   "when the whole confidence interval of the change lies beyond its threshold. "
                                   "Exit status: 0 pass, 1 regression, 2 bad input or results that measure "
                                   "different things (workload, host, device, kernel), 3 inconclusive (fewer "
                                   "than 2 repeats on a side). docs/history.md has a CI example.")
    s.add_argument("--baseline", required=True, metavar="FILE|store:QUERY")
    s.add_argument("--candidate", required=True, metavar="FILE|store:QUERY")
    s.add_argument("--fail-if", action="append", default=[], metavar="COND",
                   help=f"FIGURE<-N%% or FIGURE>+N%% (repeatable); figures: {', '.join(FIGURES)}")
    s.add_argument("--db", metavar="FILE|URL", help="the store of store: queries (default: $NVBENCH_DB, else the "
                                                    "default file)")
    s.add_argument("--confidence", type=float, default=0.95, metavar="C", help="of the intervals (default 0.95)")
    s.add_argument("--force", action="store_true", help="judge results whose workload, host, device or kernel differ")
    s.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    s.set_defaults(func=cmd_gate)
