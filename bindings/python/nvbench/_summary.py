"""The human summary `nvbench run` prints on a terminal (the JSON when piped).

One block per direction that did I/O (IOPS, bandwidth, latency mean and
p50/p99/p99.9/max), then the CPU cost, like fio's summary but with nvbench's
definitions: latency is submission to completion (fio's ``lat``), CPU is the
whole process with every thread the engine uses, and "machine busy" is the
share of all CPUs that anything used (the seed's Total CPU Usage).
"""
from ._percentile import pct_min_ios
from ._printable import printable

_PCTS = (("p50", 50), ("p99", 99), ("p99.9", 99.9))


def _si(v):
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.3g}{unit}"
    return f"{v:.3g}"


def _bytes(n):
    for div, unit in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= div:
            return f"{n / div:.3g} {unit}"
    return f"{n:.0f} B"


def _t(ns):
    """A latency in the unit that keeps it readable (4 significant digits)."""
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if ns >= div:
            return f"{ns / div:.4g} {unit}"
    return f"{ns:.4g} ns"


def _lat_line(lat, supported):
    """A percentile the run had too few I/Os for (lat_pct_supported) reads "n/a (n<N)"."""
    parts = [f"mean {_t(lat.get('mean', 0))}"]
    for key, p in _PCTS:
        if key in lat:
            ok = supported.get(key, True) if isinstance(supported, dict) else True
            parts.append(f"{key} {_t(lat[key])}" if ok and lat[key] is not None
                         else f"{key} n/a (n<{pct_min_ios(p):,})")
    parts.append(f"max {_t(lat.get('max', 0))}")
    return "lat: " + ", ".join(parts)


def _header(data):
    """The first line: what ran, where, for how long."""
    wl = data.get("workload") or {}
    if data.get("groups"):
        names = ", ".join(str(g.get("name")) for g in data["groups"])
        return f"total of {len(data['groups'])} job groups ({names}): {data.get('duration_s', 0):.3f} s"
    qd, qde = wl.get("qd"), data.get("qd_effective")
    qd_text = f"qd {qd}" + (f" (runs as {qde})" if qde and qde != qd else "")
    targets = ", ".join(wl.get("targets") or [])
    return (f"{data.get('engine')} {wl.get('rw')} bs {_bytes(wl.get('bs', 0))} {qd_text} jobs {wl.get('jobs')} "
            f"on {targets}: {data.get('duration_s', 0):.3f} s")


def summary(data):
    """The summary text of one result dict (nvbench.result/1); a run of job
    groups gets its total, then each group's block (no CPU: the total's)."""
    text = _block(data)
    for g in data.get("groups") or []:
        text += f"group {printable(str(g.get('name')))}: " + _block(g)
    return text


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def _cpu_lines(cpu):
    """The CPU line: a figure the result has no measurement for (null) is
    "n/a", never 0; the machine's share says why when it is missing."""
    ncpus = cpu.get("ncpus") or 0
    cores = cpu.get("process_cores")
    line = "  cpu: nvbench " + (f"{cores:.3g} cores" if _num(cores) else "n/a cores")
    own = cpu.get("nvbench_pct")
    if "nvbench_pct" not in cpu and _num(cores) and ncpus:
        own = 100.0 * cores / ncpus  # results from before nvbench_pct
    if _num(own) and ncpus:
        line += f" ({own:.1f} % of {ncpus} CPUs)"
    per_io, per_core = cpu.get("cpu_us_per_io"), cpu.get("iops_per_core")
    line += (f", {per_io:.3g} us per I/O" if _num(per_io) else ", n/a us per I/O (no I/O counted)")
    if _num(per_core):
        line += f", {_si(per_core)} IOPS per core"
    sys_pct = cpu.get("system_pct")
    if _num(sys_pct):
        line += f"; machine {sys_pct:.1f} % busy"
        if _num(cpu.get("background_pct")):
            line += f" (other processes {cpu['background_pct']:.1f} %)"
        return [line]
    line += "; machine n/a % busy"
    why = cpu.get("system_null_reason")
    return [line] + ([f"    machine busy {why}"] if why else [])


def _block(data):
    lines = [_header(data)]
    for d in ("read", "write", "trim"):
        x = data.get(d) or {}
        if not x.get("ios"):
            continue
        lines.append(f"  {d}: IOPS {_si(x.get('iops', 0))}, BW {_bytes(x.get('bw_bytes_s', 0))}/s, "
                     f"{x['ios']} I/Os, {_bytes(x.get('bytes', 0))}")
        lat = x.get("lat_ns") or {}
        lines.append("    " + _lat_line(lat, x.get("lat_pct_supported") or {}))
    cpu = data.get("cpu") or {}
    if cpu:
        lines.extend(_cpu_lines(cpu))
    errs = (data.get("errors") or {}).get("count")
    if errs:
        lines.append(f"  errors: {errs}")
    if data.get("cancelled"):
        lines.append("  cancelled: the figures cover the time until the stop")
    return "".join(printable(line) + "\n" for line in lines)
