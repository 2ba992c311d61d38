"""Merging the results of one workload run on several hosts, in Python.

The same rules as the C library's ``nvb_result_merge()`` (docs/multihost.md),
for results loaded from JSON without the C extension: counts add; latency
histograms add bucket by bucket, so the merged percentiles are those of one
histogram fed every sample (computed here exactly as the library computes
them); the measured window runs from the earliest window start to the latest
window end by wall clock and every rate is over it; CPU seconds and cores
add, system-wide percentages are weighted by CPU count, and each host keeps
its own row in ``hosts``; ``per_target`` is concatenated.

>>> merged = nvbench.merge([r0, r1, r2, r3])          # Results or dicts
>>> merged.read.iops, merged.read.lat_ns.p99, [h["host"] for h in merged.hosts]
"""

from __future__ import annotations

import copy
import math
import time

from ._percentile import PCT_KEYS, PCT_VALS, _pct_rank, pct_min_ios, pct_supported
from .result import Result

__all__ = ["merge", "hist_pct", "hist_from_json", "pct_supported", "pct_min_ios"]

SUB_BITS = 6
SUB = 1 << SUB_BITS
MAX_BITS = 44
BUCKETS = (MAX_BITS - SUB_BITS + 1) * SUB
REL_ERROR = 1.0 / (2.0 * SUB)
_U64_MAX = (1 << 64) - 1
_DIRS = ("read", "write")


# --------------------------------------------------------------------------
# the histogram (libnvbench/core/hist.c, same geometry and arithmetic)


def bucket_index(v):
    if v < SUB:
        return int(v)
    k = v.bit_length() - 1
    if k >= MAX_BITS:
        return BUCKETS - 1
    return (k - SUB_BITS + 1) * SUB + ((v >> (k - SUB_BITS)) & (SUB - 1))


def bucket_low(i):
    if i < SUB:
        return i
    k = i // SUB + SUB_BITS - 1
    return (1 << k) + ((i % SUB) << (k - SUB_BITS))


def bucket_width(i):
    if i < SUB:
        return 1
    k = i // SUB + SUB_BITS - 1
    return 1 << (k - SUB_BITS)


class Hist:
    """count, sum, sumsq, min, max and sparse buckets {index: count}.

    ``sum`` and ``sumsq`` are exact ints, as the library keeps them; a
    result written before the sums were exact may give a rounded float
    ``sumsq`` (above 2^53), and every Hist merged with it keeps a float.
    """

    __slots__ = ("count", "sum", "sumsq", "min", "max", "buckets")

    def __init__(self):
        self.count = self.sum = self.sumsq = 0
        self.min = self.max = None
        self.buckets = {}

    def add(self, other):
        if not other.count:
            return
        if self.count + other.count > _U64_MAX:
            raise ValueError(f"latency histogram count {self.count} + {other.count} passes 2^64 - 1")
        for i, n in other.buckets.items():
            self.buckets[i] = self.buckets.get(i, 0) + n
        self.count += other.count
        self.sum += other.sum
        if isinstance(self.sumsq, float) or isinstance(other.sumsq, float):
            self.sumsq = float(self.sumsq) + float(other.sumsq)
        else:
            self.sumsq += other.sumsq
        self.min = other.min if self.min is None else min(self.min, other.min)
        self.max = other.max if self.max is None else max(self.max, other.max)

    def mean(self):
        # as the library computes it: both converted to double first
        return float(self.sum) / float(self.count) if self.count else 0.0

    def stddev(self):
        """Population standard deviation (over count), from the exact sums."""
        if not self.count:
            return 0.0
        n = self.count
        if isinstance(self.sumsq, float):
            var = (self.sumsq - float(self.sum) * float(self.sum) / n) / n
        else:
            var = (n * self.sumsq - self.sum * self.sum) / (n * n)  # exact, rounded once
        return math.sqrt(var) if var > 0 else 0.0

    def pct(self, p):
        return hist_pct(self, p)

    def to_json(self):
        sumsq = self.sumsq if isinstance(self.sumsq, float) else str(self.sumsq)
        return {"sub_bits": SUB_BITS, "max_bits": MAX_BITS, "rel_error": REL_ERROR, "count": self.count,
                "sum": self.sum, "sumsq": sumsq,
                "buckets": [[i, self.buckets[i]] for i in sorted(self.buckets)]}


def hist_pct(h, pct):
    """Percentile (0..100) in ns, exactly as nvb__hist_pct() computes it."""
    if not h.count:
        return 0.0
    if not pct > 0.0:
        pct = 0.0
    if pct > 100.0:
        pct = 100.0
    rank = _pct_rank(h.count, pct)
    if rank == 1:
        return float(h.min)
    if rank == h.count:
        return float(h.max)
    seen = 0
    idx = BUCKETS - 1
    for i in sorted(h.buckets):
        if i >= BUCKETS - 1:
            break
        seen += h.buckets[i]
        if seen >= rank:
            idx = i
            break
    v = float(bucket_low(idx)) + float(bucket_width(idx) - 1) / 2.0
    return min(max(v, float(h.min)), float(h.max))


def hist_from_json(direction):
    """The histogram of a direction object (``r["read"]``) of an nvbench result."""
    h = Hist()
    lh = direction.get("lat_hist")
    if not lh or not lh.get("count"):
        return h
    if lh.get("sub_bits") != SUB_BITS or lh.get("max_bits") != MAX_BITS:
        raise ValueError(f"histogram geometry sub_bits={lh.get('sub_bits')} max_bits={lh.get('max_bits')} "
                         f"is not nvbench's ({SUB_BITS}, {MAX_BITS})")
    for i, n in lh["buckets"]:
        h.buckets[int(i)] = h.buckets.get(int(i), 0) + int(n)
    h.count = int(lh["count"])
    h.sum = int(lh["sum"])
    h.sumsq = _sumsq_from_json(lh.get("sumsq", 0))
    lat = direction.get("lat_ns") or {}
    h.min = int(lat.get("min", 0))
    h.max = int(lat.get("max", 0))
    if sum(h.buckets.values()) != h.count:
        raise ValueError("histogram buckets do not add up to its count")
    return h


def _sumsq_from_json(v):
    """The exact sum of squares (a string of digits), or the number results before
    it wrote: exact (an int) below 2^53, rounded (a float) above."""
    if isinstance(v, str):
        if not v.isdigit() or not v.isascii():
            raise ValueError(f"lat_hist.sumsq {v!r} is not a string of digits")
        return int(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
        raise ValueError(f"lat_hist.sumsq {v!r} is not a sum of squares")
    if v < 2**53 and v == int(v):
        return int(v)
    return float(v)


def _direction(ios, nbytes, hist, dur, with_hist=True):
    have = hist.count > 0
    d = {"ios": ios, "bytes": nbytes,
         "iops": ios / dur if dur > 0 else 0,
         "bw_bytes_s": nbytes / dur if dur > 0 else 0,
         "bw_gib_s": nbytes / dur / 1073741824.0 if dur > 0 else 0}
    lat = {"min": hist.min if have else 0, "mean": hist.mean() if have else 0, "max": hist.max if have else 0,
           "stddev": hist.stddev() if have else 0}
    for k, p in zip(PCT_KEYS, PCT_VALS):
        lat[k] = hist_pct(hist, p) if have else 0
    d["lat_ns"] = lat
    d["lat_pct_supported"] = {k: pct_supported(hist.count, p) for k, p in zip(PCT_KEYS, PCT_VALS)}
    if with_hist:
        d["lat_hist"] = hist.to_json()
    return d


# --------------------------------------------------------------------------
# helpers over result dicts


def _llround(x):
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _window_start(r):
    s = r.get("start_unix_ns") or 0
    if not s:
        return 0
    ramp = r.get("ramp_s") or 0
    return s + _llround(ramp * 1e9 if ramp > 0 else 0)


def _window_end(r):
    e = r.get("end_unix_ns") or 0
    if e or not r.get("start_unix_ns"):
        return e
    dur = r.get("duration_s") or 0
    return _window_start(r) + _llround(dur * 1e9 if dur > 0 else 0)


def _cpu(r):
    return r.get("cpu") or {}


def _cpu_known(r):
    c = _cpu(r)
    return (c.get("system_pct", 0) + c.get("iowait_pct", 0) + c.get("steal_pct", 0) + c.get("idle_pct", 0)) > 0


def _ncpus(r):
    return int(_cpu(r).get("ncpus") or 0)


def _host_row(r):
    """A hosts row from a single host's result (only what is stored; the
    derived figures are filled in by _finish_rows)."""
    h = {"host": r.get("host", ""), "start_unix_ns": r.get("start_unix_ns", 0), "ramp_s": r.get("ramp_s", 0),
         "duration_s": r.get("duration_s", 0)}
    last = _window_end(r)
    h["first_done_unix_ns"] = r.get("first_done_unix_ns") or last
    h["last_done_unix_ns"] = last
    for d in _DIRS:
        x = r.get(d) or {}
        hist = hist_from_json(x)
        h[d] = {"ios": x.get("ios", 0), "bytes": x.get("bytes", 0),
                "lat_mean_ns": hist.mean() if hist.count else 0,
                "lat_p99_ns": hist_pct(hist, 99) if hist.count else 0,
                "lat_max_ns": hist.max if hist.count else 0}
    h["errors"] = (r.get("errors") or {}).get("count", 0)
    c = _cpu(r)
    win = c.get("window_s", 0)
    h["cpu"] = {"system_pct": c.get("system_pct", 0) if _cpu_known(r) else None, "ncpus": _ncpus(r),
                "process_user_s": c.get("process_user_s", 0), "process_sys_s": c.get("process_sys_s", 0),
                "window_s": win if win > 0 else r.get("duration_s", 0)}
    h["cancelled"] = bool(r.get("cancelled"))
    err = r.get("error")
    h["error"] = err.get("message") if isinstance(err, dict) else None
    return h


def _finish_rows(rows, w0):
    out = []
    for i, h in enumerate(rows):
        h = copy.deepcopy(h)
        dur = h["duration_s"]
        row = {"host": h["host"], "rank": i, "start_unix_ns": h["start_unix_ns"], "ramp_s": h["ramp_s"],
               "duration_s": dur, "first_done_unix_ns": h["first_done_unix_ns"],
               "last_done_unix_ns": h["last_done_unix_ns"],
               "first_done_s": (h["first_done_unix_ns"] - w0) / 1e9 if h["first_done_unix_ns"] > w0 else 0,
               "last_done_s": (h["last_done_unix_ns"] - w0) / 1e9 if h["last_done_unix_ns"] > w0 else 0}
        for d in _DIRS:
            x = h[d]
            row[d] = {"ios": x["ios"], "bytes": x["bytes"],
                      "iops": x["ios"] / dur if dur > 0 else 0, "bw_bytes_s": x["bytes"] / dur if dur > 0 else 0,
                      "lat_mean_ns": x["lat_mean_ns"], "lat_p99_ns": x["lat_p99_ns"], "lat_max_ns": x["lat_max_ns"]}
        ios = h["read"]["ios"] + h["write"]["ios"]
        nbytes = h["read"]["bytes"] + h["write"]["bytes"]
        row["total"] = {"ios": ios, "bytes": nbytes, "iops": ios / dur if dur > 0 else 0,
                        "bw_bytes_s": nbytes / dur if dur > 0 else 0}
        row["errors"] = h["errors"]
        c = h["cpu"]
        cpu_s = c["process_user_s"] + c["process_sys_s"]
        row["cpu"] = {"system_pct": c["system_pct"], "ncpus": c["ncpus"], "process_user_s": c["process_user_s"],
                      "process_sys_s": c["process_sys_s"], "window_s": c["window_s"],
                      "process_cores": cpu_s / dur if dur > 0 else 0,  # CPU read at the window's edges
                      "cpu_us_per_io": cpu_s * 1e6 / ios if ios else 0}
        row["cancelled"] = h["cancelled"]
        row["error"] = h["error"]
        out.append(row)
    return out


def _part_interval(r):
    wl = r.get("workload") or {}
    try:
        s = float(wl.get("interval_s"))
        iv = _llround(s * 1e9) if 0 < s < 1e7 else 0
    except (TypeError, ValueError):
        iv = 0
    return iv, wl.get("align_interval") == 1


def _merge_series(parts, w0, w1):
    aligned, iv0, refs = True, 0, []
    for r in parts:
        iv, al = _part_interval(r)
        if not al or not iv or (iv0 and iv != iv0):
            aligned = False
        iv0 = iv
        for k, s in enumerate(r.get("timeseries") or []):
            if not s.get("t_unix_ns"):
                aligned = False
            refs.append((k, s, _ncpus(r)))
    if aligned:
        refs = [(-(-s["t_unix_ns"] // iv0), s, n) for _, s, n in refs]
    refs.sort(key=lambda x: x[0])
    out = []
    i = 0
    while i < len(refs):
        key = refs[i][0]
        group = []
        while i < len(refs) and refs[i][0] == key:
            group.append(refs[i])
            i += 1
        o = {"read": {"ios": 0, "bytes": 0, "lat_sum": 0}, "write": {"ios": 0, "bytes": 0, "lat_sum": 0},
             "errors": 0, "t_unix_ns": 0}
        busy = weight = max_dt = max_t = 0.0
        for _, s, ncpus in group:
            for d in _DIRS:
                x = s[d]
                o[d]["ios"] += x["ios"]
                o[d]["bytes"] += x["bytes"]
                lat_sum = x.get("lat_sum_ns")
                if lat_sum is None:
                    lat_sum = _llround(x.get("lat_mean_ns", 0) * x["ios"])
                o[d]["lat_sum"] += lat_sum
            o["errors"] += s.get("errors", 0)
            o["t_unix_ns"] = max(o["t_unix_ns"], s.get("t_unix_ns") or 0)
            max_dt = max(max_dt, s.get("dt_s", 0))
            max_t = max(max_t, s.get("t_s", 0))
            if s.get("system_pct") is not None and s["system_pct"] >= 0 and ncpus:
                busy += s["system_pct"] * ncpus
                weight += ncpus
        dt, t = max_dt, max_t
        if w0 and o["t_unix_ns"] > w0:
            t = (o["t_unix_ns"] - w0) / 1e9
        if aligned:
            lo = max((key - 1) * iv0, w0)
            hi = o["t_unix_ns"] if (o["t_unix_ns"] < w1 or not w1) else w1
            if hi > lo:
                dt = (hi - lo) / 1e9
        p = {"t_s": t, "dt_s": dt, "t_unix_ns": o["t_unix_ns"]}
        for d in _DIRS:
            x = o[d]
            p[d] = {"ios": x["ios"], "bytes": x["bytes"], "iops": x["ios"] / dt if dt > 0 else 0,
                    "bw_bytes_s": x["bytes"] / dt if dt > 0 else 0,
                    "lat_mean_ns": x["lat_sum"] / x["ios"] if x["ios"] else 0, "lat_sum_ns": x["lat_sum"]}
        p["errors"] = o["errors"]
        p["system_pct"] = busy / weight if weight > 0 else None
        out.append(p)
    return out


_SAME_KEYS = ("engine", "rw", "rwmix", "bs", "qd", "jobs", "runtime_s", "ramp_s")


def _as_dict(part):
    if isinstance(part, Result):
        return part.data
    if isinstance(part, dict):
        return part
    raise TypeError(f"merge() takes Results or result dicts, not {type(part).__name__}")


def merge(parts, meta=None):
    """One Result from the results of one workload run on several hosts.

    ``parts``: Results or C result dicts (nvbench.result/1), e.g. loaded with
    :func:`nvbench.load`; a part that is itself merged contributes its
    ``hosts`` rows, so merging is associative. Returns a Result whose meta
    comes from the first part (plus ``hosts``, the number of host rows),
    updated with ``meta``.
    """
    items = list(parts)
    if not items:
        raise ValueError("merge() needs at least one result")
    first_meta = dict(items[0].meta) if isinstance(items[0], Result) else {}
    rs = [_as_dict(p) for p in items]
    p0 = rs[0]

    start = w0 = w1 = first = 0
    for r in rs:
        if not r.get("start_unix_ns"):
            continue
        a, b = _window_start(r), _window_end(r)
        start = r["start_unix_ns"] if not start else min(start, r["start_unix_ns"])
        w0 = a if not w0 else min(w0, a)
        w1 = max(w1, b)
        f = r.get("first_done_unix_ns") or b
        first = f if not first else min(first, f)
    dur = (w1 - w0) / 1e9 if w1 > w0 else 0.0

    m = {"schema": p0.get("schema", "nvbench.result/1"), "version": p0.get("version", ""),
         "engine": p0.get("engine"), "engine_used": copy.deepcopy(p0.get("engine_used") or {}),
         "workload": copy.deepcopy(p0.get("workload") or {}), "qd_effective": p0.get("qd_effective", 0),
         "start_unix_ns": start,
         "start_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start // 1000000000)) if start else "",
         "host": "", "end_unix_ns": w1, "first_done_unix_ns": first, "duration_s": dur,
         "ramp_s": (w0 - start) / 1e9 if start else 0}

    # counts and histograms
    hists = {d: Hist() for d in _DIRS}
    tot = {d: [0, 0] for d in _DIRS}
    errors = {"count": 0, "short": 0, "by_errno": {}, "read": 0, "write": 0}
    fault = {"enabled": False, "injected": 0, "short": 0, "delayed": 0, "by_errno": {},
             "read": {"injected": 0, "short": 0, "delayed": 0, "by_errno": {}},
             "write": {"injected": 0, "short": 0, "delayed": 0, "by_errno": {}}}
    fault_name = None
    verify = {"enabled": False, "checked": 0, "mismatches": 0, "by_field": {}, "first_mismatches": []}
    rows, targets, warnings = [], [], []
    busy = [0.0] * 7
    weight = 0
    ncpus_all = 0
    cpu_user = cpu_sys = window = 0.0
    maxrss = vcs = ics = 0
    cancelled = False
    error = None
    error_cancelled = False
    clock = 0.0
    pct_keys = ("system_pct", "user_pct", "sys_pct", "irq_pct", "iowait_pct", "steal_pct", "idle_pct")
    for r in rs:
        single = not r.get("hosts")
        rows.extend(copy.deepcopy(r["hosts"]) if not single else [_host_row(r)])
        for d in _DIRS:
            x = r.get(d) or {}
            tot[d][0] += x.get("ios", 0)
            tot[d][1] += x.get("bytes", 0)
            hists[d].add(hist_from_json(x))
        e = r.get("errors") or {}
        for k in ("count", "short", "read", "write"):
            errors[k] += e.get(k, 0)
        for k, n in (e.get("by_errno") or {}).items():
            errors["by_errno"][k] = errors["by_errno"].get(k, 0) + n
        f = r.get("fault") or {}
        if f.get("enabled") and not fault["enabled"]:
            fault["enabled"] = True
            fault_name = next(iter(f.get("by_errno") or {}), None)
        for d in _DIRS:
            for k in ("injected", "short", "delayed"):
                fault[d][k] += (f.get(d) or {}).get(k, 0)
        v = r.get("verify") or {}
        verify["enabled"] = verify["enabled"] or bool(v.get("enabled"))
        verify["checked"] += v.get("checked", 0)
        verify["mismatches"] += v.get("mismatches", 0)
        for k, n in (v.get("by_field") or {}).items():
            verify["by_field"][k] = verify["by_field"].get(k, 0) + n
        for mm in v.get("first_mismatches") or []:
            if len(verify["first_mismatches"]) < 8:
                verify["first_mismatches"].append(copy.deepcopy(mm))
        c = _cpu(r)
        cpu_user += c.get("process_user_s", 0)
        cpu_sys += c.get("process_sys_s", 0)
        win = c.get("window_s", 0) if not single else (c.get("window_s", 0) or r.get("duration_s", 0))
        window = max(window, win)
        maxrss = max(maxrss, c.get("maxrss_kib", 0))
        vcs += c.get("voluntary_ctxsw", 0)
        ics += c.get("involuntary_ctxsw", 0)
        nc = _ncpus(r)
        ncpus_all += nc
        if _cpu_known(r) and nc:
            for i, k in enumerate(pct_keys):
                busy[i] += c.get(k, 0) * nc
            weight += nc
        for t in r.get("per_target") or []:
            t = copy.deepcopy(t)
            t["host"] = t.get("host") or r.get("host", "")
            targets.append(t)
        host = r.get("host", "")
        for w in r.get("warnings") or []:
            warnings.append(f"{host}: {w}" if single and host else w)
        cancelled = cancelled or bool(r.get("cancelled"))
        # the first failure; a failure of its own beats a cancellation
        if isinstance(r.get("error"), dict) and (error is None or (error_cancelled and not r.get("cancelled"))):
            error_cancelled = bool(r.get("cancelled"))
            error = copy.deepcopy(r["error"])
            if single and host:
                error["message"] = f"{host}: {error.get('message', '')}"
        clock = max(clock, r.get("clock_cost_ns", 0))

    for d in _DIRS:
        m[d] = _direction(tot[d][0], tot[d][1], hists[d], dur)
    ios = tot["read"][0] + tot["write"][0]
    nbytes = tot["read"][1] + tot["write"][1]
    m["total"] = {"ios": ios, "bytes": nbytes, "iops": ios / dur if dur > 0 else 0,
                  "bw_bytes_s": nbytes / dur if dur > 0 else 0}

    host_rows = _finish_rows(rows, w0)
    cpu = {k: (busy[i] / weight if weight > 0 else 0) for i, k in enumerate(pct_keys)}
    cores = sum(h["cpu"]["process_cores"] for h in host_rows)
    cpu_s = cpu_user + cpu_sys
    iops = ios / dur if dur > 0 else 0
    ncpu = ncpus_all if ncpus_all > 0 else 1
    cpu.update({"ncpus": ncpus_all, "per_cpu_pct": [], "process_user_s": cpu_user, "process_sys_s": cpu_sys,
                "process_cores": cores, "window_s": window,
                "cpu_us_per_io": cpu_s * 1e6 / ios if ios else 0,
                "iops_per_core": iops / cores if cores > 0 else 0,
                "background_pct": max(0.0, cpu["system_pct"] - 100.0 * cores / ncpu),
                "maxrss_kib": maxrss, "voluntary_ctxsw": vcs, "involuntary_ctxsw": ics, "threads": []})
    m["cpu"] = cpu
    m["errors"] = errors
    for d in _DIRS:
        for k in ("injected", "short", "delayed"):
            fault[k] += fault[d][k]
    name = fault_name or "EIO"
    if fault["injected"]:
        fault["by_errno"] = {name: fault["injected"]}
    for d in _DIRS:
        if fault[d]["injected"]:
            fault[d]["by_errno"] = {name: fault[d]["injected"]}
    m["fault"] = fault
    m["verify"] = verify
    for t in targets:
        for d in _DIRS:
            x = t.get(d) or {}
            t[d] = _direction(x.get("ios", 0), x.get("bytes", 0), hist_from_json(x), dur)
    m["per_target"] = targets
    m["hosts"] = host_rows
    m["timeseries"] = _merge_series(rs, w0, w1)
    for i, r in enumerate(rs[1:], 1):
        for k in _SAME_KEYS:
            a, b = (p0.get("workload") or {}).get(k), (r.get("workload") or {}).get(k)
            if a != b:
                warnings.append(f"merged runs of different workloads: key '{k}' differs between "
                                f"{p0.get('host') or '?'} (part 0) and {r.get('host') or '?'} (part {i})")
                break
    if "targets" in m["workload"]:
        m["workload"]["targets"] = [t for r in rs for t in ((r.get("workload") or {}).get("targets") or [])]
    m["warnings"] = warnings
    m["cancelled"] = cancelled
    m["error"] = error
    m["clock_cost_ns"] = clock
    m["hist_rel_error"] = REL_ERROR

    meta_out = {k: v for k, v in first_meta.items() if k not in ("target",)}
    meta_out["hosts"] = len(host_rows)
    if meta:
        meta_out.update(meta)
    return Result(m, meta_out)
