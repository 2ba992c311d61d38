"""Read fio's ``--output-format=json`` (fio 3.x) into nvbench Results.

Every fio job becomes one :class:`~nvbench.result.Result` whose data uses the keys of
nvbench's own result (``read``/``write``, and ``trim`` for a job that trimmed, with ``ios``, ``bytes``, ``iops``,
``bw_bytes_s``, ``bw_gib_s``, ``lat_ns``, ``slat_ns``, ``clat_ns``; ``cpu``;
``duration_s``; ``workload``), so fio results sit in the same tables, comparisons and
plots. ``data["source"]`` is ``"fio"`` and ``data["fio"]`` keeps what has no nvbench
equivalent.

How fio's figures are mapped:

* Latency, one to one and never mixed: fio's ``lat_ns`` -> ``lat_ns``, ``clat_ns`` ->
  ``clat_ns``, ``slat_ns`` -> ``slat_ns`` (docs/json-schema.md compares the definitions:
  fio's lat is nvbench's lat_ns, submission to completion). Each takes its moments and
  its percentiles from its own fio object. fio computes percentiles of ``lat`` only with
  ``lat_percentiles=1`` (and of ``slat`` only with ``slat_percentiles=1``); without them
  those percentiles are ``None`` (the tables show n/a), never clat's.
  ``data["fio"]["lat_percentiles"]`` says whether fio had them. A latency fio did not
  measure (``slat`` of a synchronous engine: ``N`` 0 with I/O done) is ``None`` as a
  whole, as nvbench reports it. fio's percentile list is kept with nvbench's key spelling
  (``"99.900000"`` -> ``"p99.9"``).
* Jobs: clones of one job (``numjobs=N`` without ``group_reporting``) are merged into
  one Result, as nvbench reports its jobs together. Counts and rates add up, the mean and
  standard deviation are pooled exactly, percentiles are the I/O-weighted mean of the
  per-job percentiles (an approximation; ``group_reporting`` gives fio's exact ones).
* CPU: fio's ``usr_cpu``/``sys_cpu`` are percent of one CPU over each job's runtime, and
  fio takes them with ``RUSAGE_THREAD``: the job's own thread, not fio's process (its
  other threads, and an io_uring SQPOLL thread, are not in them; normally 45-90 % of
  what the process used). They give ``process_user_s``/``process_sys_s``,
  ``process_cores``, ``cpu_us_per_io`` and ``iops_per_core``, and ``cpu["scope"]`` is
  ``"fio job thread only"`` (the tables mark those figures, and a warning says it): they
  are not comparable to nvbench's process-wide figures, only a lower bound of them.
  fio does not measure the whole machine, so ``cpu.system_pct`` (the seed's "Total CPU
  Usage") is only filled when ``ncpus`` is given, as the job threads' share
  ``100 * process_cores / ncpus`` (a lower bound of the machine's usage).
* Labels: engine = ``ioengine`` (fio's default ``psync`` when absent), rw/bs/iodepth/
  numjobs from the job options over the global options.
"""

from __future__ import annotations

import json
import math
import re

from ._jsontext import parse_text, read_text
from .errors import NvbenchError
from .labels import cell_of, op_of_rw
from .result import Result
from .resultset import ResultSet
from .stats import _c

__all__ = ["from_fio", "load_fio", "parse_size", "THREAD_CPU_SCOPE", "MAX_JOBS", "MAX_BYTES"]

# What fio's usr_cpu/sys_cpu measure (getrusage(RUSAGE_THREAD) on each job's thread).
THREAD_CPU_SCOPE = "fio job thread only"
_THREAD_CPU_NOTE = ("CPU figures are fio's usr_cpu/sys_cpu: fio job thread only (RUSAGE_THREAD), "
                    "not fio's whole process (normally 45-90 % of it; an io_uring SQPOLL thread "
                    "is left out entirely): a lower bound, not comparable to nvbench's process CPU")

# What one file may hold. Each fio job becomes a Result (about 10 KiB of
# Python objects once its figures are derived, more than 50 times its JSON):
# 16384 jobs of fio's full output (about 4 KiB each with percentiles) is
# 64 MiB of text; 128 MiB parses into about 1 GiB of objects at most, and
# the jobs are counted before any Result is built. A file of 200,000 tiny
# jobs grew past 2.4 GB before either was enforced.
MAX_JOBS = 16384
MAX_BYTES = 128 << 20

_FIO_DEFAULTS = {"ioengine": "psync", "rw": "read", "bs": "4k", "iodepth": "1", "numjobs": "1"}

# fio's rw spellings -> nvbench's workload.rw
_RW = {"read": "read", "write": "write", "randread": "randread", "randwrite": "randwrite",
       "rw": "rw", "readwrite": "rw", "randrw": "randrw",
       "trim": "trim", "randtrim": "randtrim", "trimwrite": "trimwrite",
       "randtrimwrite": "randtrimwrite"}

def parse_size(text, kb_base=1024):
    """fio size string -> bytes, as fio reads it: the library's reader of fio's values
    (nvb_fiomap_size, the one the job-file mapper uses): '4k' 4096, '1m' 1048576, '512'
    512; with fio's default kb_base=1024 the IEC spellings are powers of 1000 ('128KiB'
    128000), kb_base=1000 swaps the two. A fraction is refused (fio reads '1.5k' as 1):
    ValueError naming the value."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    try:
        return _c().fio_size(str(text), kb_base)  # the extension, only when a size is read
    except NvbenchError as e:
        raise ValueError(e.strerror) from None


def _bs_per_direction(bs, field=None, kb_base=1024):
    """fio's bs may be 'R,W[,T]' with empty fields meaning 'same as read': (read, write),
    or the one of field 2 (trim) when asked."""
    parts = [p for p in str(bs).split(",")]
    read = parts[0] or "4k"
    write = parts[1] if len(parts) > 1 and parts[1] else read

    def size(text):  # a range 'bs=4k-16k' is a bssplit-like spec: its low end, as fio's header says
        return parse_size(text.split("-")[0].split(":")[0], kb_base)
    if field == 2:
        return size(parts[2] if len(parts) > 2 and parts[2] else read)
    return size(read), size(write)


def _engine_name(ioengine):
    name = str(ioengine).strip().lower()
    name = name.split(":")[0]  # external engines are 'external:/path.so'
    return re.sub(r"[^a-z0-9_]+", "_", name).strip("_") or "unknown"


def _pkey(fio_key):
    """'99.900000' -> 'p99.9', '50.000000' -> 'p50'."""
    v = float(fio_key)
    return "p" + (f"{v:.6f}".rstrip("0").rstrip("."))


# The percentile keys nvbench reports (result.c): those a latency without percentiles
# still carries, as None, beside fio's own list.
_NVB_PCTS = ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9",
             "p99.99", "p99.999")
_KINDS = ("lat", "slat", "clat")


def _pct_keys(dir_stats):
    """The percentile keys fio listed for any latency of this direction, in its order,
    then nvbench's own."""
    keys = []
    for kind in _KINDS:
        pct = (dir_stats.get(f"{kind}_ns") or {}).get("percentile")
        if isinstance(pct, dict):
            keys += [_pkey(k) for k in pct if _pkey(k) not in keys]
    return keys + [k for k in _NVB_PCTS if k not in keys]


def _one_latency(dir_stats, kind, keys):
    """One fio latency (``lat``, ``slat``, ``clat``) as nvbench's object: its own moments and
    its own percentiles, None where fio computed none. (object or None, N)."""
    src = dir_stats.get(f"{kind}_ns") or {}
    n = int(src.get("N", 0) or 0)
    if not n and int(dir_stats.get("total_ios", 0) or 0):
        return None, 0  # I/O done, this latency not measured (slat of a synchronous engine)
    out = {k: float(src.get(k, 0) or 0) for k in ("min", "mean", "max", "stddev")}
    pct = src.get("percentile")
    have = isinstance(pct, dict) and pct
    for k in keys:
        out[k] = None if have or n else 0.0
    if have:
        for k, v in pct.items():
            out[_pkey(k)] = float(v)
    return out, n


def _pool(lats, keys):
    """One latency of several clones: moments pooled exactly, percentiles I/O-weighted
    where every clone has them."""
    if any(l is None for l, _ in lats):
        return None
    total_n = sum(n for _, n in lats)
    if len(lats) == 1 or not total_n:
        return lats[0][0]
    live = [(l, n) for l, n in lats if n]
    mean = sum(l["mean"] * n for l, n in live) / total_n
    # pooled: E[x^2] of the union minus the squared mean
    ex2 = sum((l["stddev"] ** 2 + l["mean"] ** 2) * n for l, n in live) / total_n
    out = {"min": min(l["min"] for l, _ in live), "mean": mean, "max": max(l["max"] for l, _ in live),
           "stddev": math.sqrt(max(0.0, ex2 - mean * mean))}
    for k in keys:
        vals = [(l.get(k), n) for l, n in live]
        out[k] = (None if any(v is None for v, _ in vals)
                  else sum(v * n for v, n in vals) / total_n)
    return out


def _direction(entries, op):
    """Merge one direction of several fio job entries (clones of one job)."""
    dirs = [e.get(op) or {} for e in entries]
    ios = sum(int(d.get("total_ios", 0) or 0) for d in dirs)
    nbytes = sum(int(d.get("io_bytes", 0) or 0) for d in dirs)
    iops = sum(float(d.get("iops", 0) or 0) for d in dirs)
    bw = sum(float(d.get("bw_bytes", 0) or 0) for d in dirs)
    keys = _pct_keys(dirs[0])
    runtime_ms = max(int(d.get("runtime", 0) or 0) for d in dirs)
    d = {"ios": ios, "bytes": nbytes, "iops": iops, "bw_bytes_s": bw, "bw_gib_s": bw / 2**30}
    for kind in _KINDS:
        d[f"{kind}_ns"] = _pool([_one_latency(x, kind, keys) for x in dirs], keys)
    lat_pcts = any(isinstance((x.get("lat_ns") or {}).get("percentile"), dict) for x in dirs)
    return d, lat_pcts, runtime_ms


def _options(global_opts, job):
    opts = dict(_FIO_DEFAULTS)
    opts.update({k: v for k, v in (global_opts or {}).items()})
    opts.update({k: v for k, v in (job.get("job options") or {}).items()})
    return opts


def _int(v, default):
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return default


def _one_result(fio_obj, entries, ncpus, meta):
    job = entries[0]
    opts = _options(fio_obj.get("global options"), job)
    rw_raw = str(opts.get("rw", opts.get("readwrite", "read"))).split(":")[0].strip().lower()
    rw = _RW.get(rw_raw, rw_raw)
    op = op_of_rw(rw)
    bs_text, kb_base = opts.get("bs", opts.get("blocksize", "4k")), _int(opts.get("kb_base"), 1024)
    try:
        bs_r, bs_w = _bs_per_direction(bs_text, kb_base=kb_base)
        bs = _bs_per_direction(bs_text, 2, kb_base) if op == "trim" else bs_w if op == "write" else bs_r
    except ValueError as e:
        raise ValueError(f"fio JSON: job {job.get('jobname')!r}: bs {bs_text!r}: {e}") from None
    qd = _int(opts.get("iodepth"), 1)
    numjobs = _int(opts.get("numjobs"), 1)
    engine = _engine_name(opts.get("ioengine"))
    target = opts.get("filename") or opts.get("directory") or None

    read, pct_r, rt_r = _direction(entries, "read")
    write, pct_w, rt_w = _direction(entries, "write")
    # fio reports a trim object always; the result has one when the job trimmed (as nvbench's)
    trim, pct_t, rt_t = _direction(entries, "trim")
    has_trim = "trim" in rw or trim["ios"] > 0
    if not has_trim:
        trim, pct_t, rt_t = {"ios": 0, "bytes": 0, "iops": 0.0, "bw_bytes_s": 0.0}, False, 0
    warnings = [_THREAD_CPU_NOTE]
    if not (pct_r or pct_w or pct_t):
        warnings.append("fio computed no percentiles of lat (lat_percentiles=1 was not set): "
                        "lat_ns percentiles are n/a; clat_ns has fio's clat percentiles")
    duration_s = max(rt_r, rt_w, rt_t) / 1000.0
    if duration_s == 0:
        duration_s = max(_int(e.get("job_runtime"), 0) for e in entries) / 1000.0
    # usr/sys_cpu are percent of one CPU over the job's runtime; job_runtime (ms) of a
    # group-reported entry is the sum over its jobs, so the product is CPU time either way.
    user_s = sum(float(e.get("usr_cpu", 0) or 0) / 100.0 * _int(e.get("job_runtime"), 0) / 1000.0
                 for e in entries)
    sys_s = sum(float(e.get("sys_cpu", 0) or 0) / 100.0 * _int(e.get("job_runtime"), 0) / 1000.0
                for e in entries)
    cpu_s = user_s + sys_s
    total_ios = read["ios"] + write["ios"] + trim["ios"]
    total_iops = read["iops"] + write["iops"] + trim["iops"]
    # the mean latency of every I/O of the directions, as the library's total has it
    # (total.lat_mean_ns): their latencies pooled as clones' are; null without I/O
    pooled = _pool([(d["lat_ns"], d["ios"]) for d in (read, write) + ((trim,) if has_trim else ())], []) \
        if total_ios else None
    cores = cpu_s / duration_s if duration_s else 0.0
    cpu = {
        "scope": THREAD_CPU_SCOPE,
        "process_user_s": user_s,
        "process_sys_s": sys_s,
        "process_cores": cores,
        "cpu_us_per_io": cpu_s * 1e6 / total_ios if total_ios else None,  # null: no I/O, no figure
        "iops_per_core": total_iops / cores if cores and total_ios else None,
        "voluntary_ctxsw": sum(_int(e.get("ctx"), 0) for e in entries),
    }
    if ncpus:
        cpu["ncpus"] = int(ncpus)
        cpu["system_pct"] = min(100.0, 100.0 * cores / ncpus)
    errors = [int(e.get("error", 0) or 0) for e in entries]
    err = next((x for x in errors if x), 0)
    ts_ms = fio_obj.get("timestamp_ms")
    data = {
        "source": "fio",
        "engine": engine,
        "workload": {"engine": engine, "rw": rw, "bs": bs, "qd": qd, "jobs": numjobs,
                     "targets": [target] if target else [],
                     "rwmix": _int(opts.get("rwmixread"), 50) if op == "mixed" else 50,
                     "runtime_s": duration_s, "name": job.get("jobname", "")},
        "duration_s": duration_s,
        "start_unix_ns": int(ts_ms) * 1_000_000 if ts_ms else 0,
        "read": read,
        "write": write,
        **({"trim": trim} if has_trim else {}),
        "total": {"ios": total_ios, "bytes": read["bytes"] + write["bytes"] + trim["bytes"],
                  "iops": total_iops,
                  "bw_bytes_s": read["bw_bytes_s"] + write["bw_bytes_s"] + trim["bw_bytes_s"],
                  "bw_gib_s": (read["bw_bytes_s"] + write["bw_bytes_s"] + trim["bw_bytes_s"]) / 2**30,
                  "lat_mean_ns": pooled["mean"] if pooled else None},
        "cpu": cpu,
        "errors": {"count": sum(1 for x in errors if x)},
        "warnings": warnings,
        "cancelled": False,
        "error": {"errno": err, "name": f"fio error {err}", "message": f"fio job error {err}"}
                 if err else None,
        "fio": {
            "version": fio_obj.get("fio version"),
            "jobname": job.get("jobname"),
            "groupid": job.get("groupid"),
            "entries": len(entries),
            "job_options": opts,
            "lat_percentiles": bool(pct_r or pct_w or pct_t),
            "usr_cpu": [e.get("usr_cpu") for e in entries],
            "sys_cpu": [e.get("sys_cpu") for e in entries],
            "disk_util": fio_obj.get("disk_util", []),
        },
    }
    m = {"engine": engine, "rw": rw, "bs": bs, "qd": qd, "jobs": numjobs, "repeat": 0,
         "target": target, "cell": cell_of(rw, bs), "op": op, "stack": engine}
    if meta:
        m.update(meta)
    return Result(data, m)


def from_fio(obj, meta=None, ncpus=None):
    """ResultSet from parsed fio JSON (``json.load`` of ``fio --output-format=json``).

    ``meta`` overrides labels on every result (e.g. ``{"stack": "fio io_uring"}``);
    ``ncpus`` (logical CPUs of the machine that ran fio) enables ``cpu.system_pct``.
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("jobs"), list):
        raise ValueError("not fio JSON output: no 'jobs' list")
    if len(obj["jobs"]) > MAX_JOBS:
        raise ValueError(f"fio JSON holds {len(obj['jobs'])} jobs, more than the {MAX_JOBS} nvbench reads from "
                         f"one file (each becomes a result in memory, about 10 KiB apiece); a run of that many "
                         f"jobs is read with group_reporting, or split into files")
    groups = {}
    for job in obj["jobs"]:
        key = (job.get("groupid"), job.get("jobname"),
               json.dumps(job.get("job options") or {}, sort_keys=True))
        groups.setdefault(key, []).append(job)
    out = ResultSet(_one_result(obj, entries, ncpus, meta) for entries in groups.values())
    for r in out:
        _check_finite(r.data, r.data.get("fio", {}).get("jobname"))
    return out


def _check_finite(value, job, path=""):
    """fio's numbers are taken as fio printed them: one that is NaN or infinite
    (fio's JSON can say NaN; Python's json reads it) or that overflows in the
    conversion would print as inf or nan in every table and comparison, so
    the job is refused instead, naming the figure."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"fio JSON: job {job!r}: {path or 'a figure'} is {value} "
                         f"(not a finite number)")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_finite(v, job, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_finite(v, job, f"{path}[{i}]")


def load_fio(path_or_file, meta=None, ncpus=None):
    """Read a fio JSON file (lines before the JSON, such as fio's notes, are skipped).
    At most MAX_BYTES of text and MAX_JOBS jobs: more is refused, naming the limit."""
    text = read_text(path_or_file, limit=MAX_BYTES, what="fio JSON")
    return from_fio(parse_text(text, unique_keys=False), meta=meta, ncpus=ncpus)
