"""The human summary `nvbench run` prints on a terminal (the JSON when piped; --summary and
--print-json choose whatever stdout is).

One block per direction that did I/O: IOPS, bandwidth, latency min/mean/stdev/max and every
percentile the result holds, the spread of IOPS and bandwidth over the time series' intervals
(min, max, mean, sample stdev and how many samples), then the CPU cost (by kind, per CPU, the
interrupts and where the jobs ran: docs/cpu.md) and each target's device utilisation, like
fio's summary but with nvbench's definitions: latency is submission to completion (fio's
``lat``), CPU is the whole process with every thread the engine uses, and "machine busy" is
the share of all CPUs that anything used (the seed's Total CPU Usage).
"""
import math

from ._percentile import PCT_KEYS, pct_min_ios
from ._printable import printable
from .stats import mean_var
from ._cpu_explain import counters_lines, interrupts_lines, kinds_lines, per_cpu_lines, placement_lines


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


def _num(lat, key):
    v = lat.get(key)
    return _t(v) if isinstance(v, (int, float)) else "n/a"


def _lat_lines(lat, supported):
    """min/mean/stdev/max, then every percentile of the result, 7 a line; one the run had
    too few I/Os for (lat_pct_supported) reads "n/a (n<N)"."""
    lines = ["lat: " + ", ".join(f"{k} {_num(lat, k)}" for k in ("min", "mean", "stddev", "max"))
             .replace("stddev", "stdev (population)")]
    parts = []
    for key in PCT_KEYS:
        if key not in lat:
            continue
        ok = supported.get(key, True) if isinstance(supported, dict) else True
        parts.append(f"{key} {_t(lat[key])}" if ok and lat[key] is not None
                     else f"{key} n/a (n<{pct_min_ios(float(key[1:])):,})")
    for i in range(0, len(parts), 7):
        lines.append(("percentiles: " if i == 0 else "             ") + ", ".join(parts[i:i + 7]))
    return lines


def _spread(samples, fmt):
    """'min X, max X, mean X, stdev X' of the interval samples (stdev: the sample
    standard deviation, n - 1; n/a below 2 samples)."""
    mean, var = mean_var(samples)
    sd = fmt(math.sqrt(var)) if len(samples) > 1 and math.isfinite(var) else "n/a"
    return f"min {fmt(min(samples))}, max {fmt(max(samples))}, mean {fmt(mean)}, stdev {sd}"


def _interval_lines(series, d):
    """The spread of one direction's IOPS and bandwidth over the time series' intervals
    (every sample of the window, the final partial one included: each is a rate over
    its own dt_s)."""
    pts = [p.get(d) for p in series or [] if isinstance(p.get(d), dict)]
    iops = [float(p["iops"]) for p in pts if isinstance(p.get("iops"), (int, float))]
    bw = [float(p["bw_bytes_s"]) for p in pts if isinstance(p.get("bw_bytes_s"), (int, float))]
    if not iops:
        return []
    head = f"per interval ({len(iops)} sample{'' if len(iops) == 1 else 's'}): "
    return [f"{head}IOPS {_spread(iops, _si)}",
            f"{'':{len(head)}}  BW {_spread(bw, lambda v: _bytes(v) + '/s')}"]


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


_SLAT = {"submit_call": "the submit call, shared by the I/Os it carried",
         "queue_only": "queueing only (the kernel is entered in the reap, inside clat)",
         "none": "none (the engine completes I/O inside its submit call)",
         "mixed": "differs between the merged parts"}


def _rate_lines(data):
    """What the submission batches were (what a slat covers) and, with a rate, how
    it was kept: the lag split into the thread's lateness and the wait for a slot."""
    lines = []
    sub = data.get("submissions") or {}
    if sub.get("slat_scope") and sub.get("calls"):
        line = (f"  submit: up to {sub.get('batch_max')} I/Os per call, {sub['ios'] / sub['calls']:.3g} on average; "
                f"slat = {_SLAT.get(sub['slat_scope'], sub['slat_scope'])}")
        if sub.get("depth_mean") is not None:
            line += f"; depth kept {sub['depth_mean']:.3g}"
        lines.append(line)
    rate = data.get("rate")
    if not rate:
        return lines
    line = f"  rate: {rate.get('mode')} {rate.get('process')} {_si(rate.get('target_iops', 0))} IOPS"
    if rate.get("gap_cv") is not None:
        line += f", arrival gaps CV {rate['gap_cv']:.2f}"
    if rate.get("lag_mean_ns") is not None:
        line += f"; lag mean {_t(rate['lag_mean_ns'])}"
        if rate.get("late_mean_ns") is not None:
            line += (f" (thread late {_t(rate['late_mean_ns'])}, queue full "
                     f"{_t(rate.get('queue_full_mean_ns') or 0)})")
    if rate.get("spin_ns"):
        dur = data.get("duration_s") or 0
        line += f", spun {_t(rate['spin_ns'])}"
        if dur > 0:
            line += f" ({100.0 * rate['spin_ns'] / 1e9 / dur:.1f} % of a core)"
    lines.append(line)
    return lines


def summary(data):
    """The summary text of one result dict (nvbench.result/1); a run of job
    groups gets its total, then each group's block (no CPU: the total's)."""
    text = _block(data)
    for g in data.get("groups") or []:
        text += f"group {printable(str(g.get('name')))}: " + _block(g)
    return text


def _util_lines(targets):
    """Each target's device utilisation (per_target[].util_*), as fio's disk_util line: the
    share of the run the device had I/O in flight, or why there is no figure; one line for
    the targets of one device."""
    seen, lines = set(), []
    for t in targets or []:
        if "util_pct" not in t:
            continue  # a result from before the figure
        dev, pct, why = t.get("util_dev") or "", t.get("util_pct"), t.get("util_why")
        key = (dev, pct, why) if dev else (t.get("path"), pct, why)
        if key in seen:
            continue
        seen.add(key)
        if isinstance(pct, (int, float)):
            lines.append(f"  disk {dev}: util {pct:.1f} % (busy with I/O, any process's, over the run)")
        else:
            lines.append(f"  disk of {t.get('path')}: util n/a ({why or 'not measured'})")
    return lines


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def _cpu_lines(cpu):
    """The CPU line: a figure the result has no measurement for (null) is
    "n/a", never 0; the machine's share says why when it is missing."""
    ncpus = cpu.get("ncpus") or 0
    cores = cpu.get("process_cores")
    line = "  cpu: nvbench " + (f"{cores:.3g} cores" if _is_num(cores) else "n/a cores")
    own = cpu.get("nvbench_pct")
    if "nvbench_pct" not in cpu and _is_num(cores) and ncpus:
        own = 100.0 * cores / ncpus  # results from before nvbench_pct
    if _is_num(own) and ncpus:
        line += f" ({own:.1f} % of {ncpus} CPUs)"
    per_io, per_core = cpu.get("cpu_us_per_io"), cpu.get("iops_per_core")
    line += (f", {per_io:.3g} us per I/O" if _is_num(per_io) else ", n/a us per I/O (no I/O counted)")
    if _is_num(per_core):
        line += f", {_si(per_core)} IOPS per core"
    sys_pct = cpu.get("system_pct")
    if _is_num(sys_pct):
        line += f"; machine {sys_pct:.1f} % busy"
        if _is_num(cpu.get("background_pct")):
            line += f" (other processes {cpu['background_pct']:.1f} %)"
        return [line] + kinds_lines(cpu)
    line += "; machine n/a % busy"
    why = cpu.get("system_null_reason")
    return [line] + ([f"    machine busy {why}"] if why else []) + kinds_lines(cpu)


def _block(data):
    lines = [_header(data)]
    for d in ("read", "write", "trim"):
        x = data.get(d) or {}
        if not x.get("ios"):
            continue
        lines.append(f"  {d}: IOPS {_si(x.get('iops', 0))}, BW {_bytes(x.get('bw_bytes_s', 0))}/s, "
                     f"{x['ios']:,} I/Os, {_bytes(x.get('bytes', 0))}")
        lat = x.get("lat_ns") or {}
        lines.extend("    " + ln for ln in _lat_lines(lat, x.get("lat_pct_supported") or {}))
        lines.extend("    " + ln for ln in _interval_lines(data.get("timeseries"), d))
    cpu = data.get("cpu") or {}
    if cpu:
        lines.extend(_cpu_lines(cpu))
        lines.extend(per_cpu_lines(data))
        lines.extend(counters_lines(cpu))
        lines.extend(interrupts_lines(data))
        lines.extend(placement_lines(data))
    lines += _rate_lines(data)
    lines.extend(_precondition_lines(data.get("precondition")))
    lines.extend(_util_lines(data.get("per_target")))
    lines.extend(_device_lines(data.get("per_target")) + _energy_lines(data.get("energy")))
    wl = data.get("workload") or {}
    if wl.get("zone_mode") == "zbd":  # docs/zoned.md
        lines.append(f"  zones: emulated, {_bytes(wl.get('zone_size') or 0)} each, "
                     f"{data.get('zone_resets', 0):,} zone resets")
    errs = (data.get("errors") or {}).get("count")
    if errs:
        lines.append(f"  errors: {errs}")
    if data.get("cancelled"):
        lines.append("  cancelled: the figures cover the time until the stop")
    return "".join(printable(line) + "\n" for line in lines)


def _precondition_lines(pre):
    """Which preconditioning ran before the measured window, and what it wrote."""
    if not pre:
        return []
    if pre.get("regions"):
        how = (f"random, planned invalidation over {pre['regions']} regions "
               f"({pre.get('rewrites', 0):,} rewrites)")
    else:
        n = pre.get("passes", 0)
        how = f"{n} sequential pass{'' if n == 1 else 'es'}"
    return [f"  precondition: {how}, {_bytes(pre.get('bs', 0))} writes, {_bytes(pre.get('bytes', 0))} "
            f"written in {pre.get('duration_s', 0):.3g} s (not in the figures)"]


def _device_lines(targets):
    """What each target's device did (per_target[].device_log, docs/device.md): bytes it
    wrote per byte the run wrote, host commands per I/O, the temperature over the run, the
    write amplification factor where the device reports media writes (or why not); or
    why the log was not read. One line per node (targets on one controller share a log)."""
    seen, lines = set(), []
    for t in targets or []:
        d = t.get("device_log")
        if not isinstance(d, dict):
            continue  # a result from before it
        if not d.get("available"):
            key = ("n/a", d.get("reason"))
            if key not in seen:
                seen.add(key)
                lines.append(f"  device log of {t.get('path')}: n/a ({d.get('reason') or 'not read'})")
            continue
        if d.get("node") in seen:
            continue
        seen.add(d.get("node"))
        delta, a, b = d.get("delta") or {}, d.get("after") or {}, d.get("before") or {}
        parts = []
        wa = d.get("device_bytes_per_host_byte")
        if _is_num(wa):
            parts.append(f"{wa:.3g} device bytes written per host byte")
        units = delta.get("data_units_written")
        if _is_num(units):
            parts.append(f"wrote {_bytes(units * 512000)}")
        cpi = d.get("host_commands_per_io")
        if _is_num(cpi):
            parts.append(f"{cpi:.3g} host commands per I/O")
        if _is_num(b.get("temperature_k")) and _is_num(a.get("temperature_k")):
            thr = d.get("warning_threshold_k")
            parts.append(f"{b['temperature_k'] - 273} -> {a['temperature_k'] - 273} C"
                         + (f" (warning at {thr - 273} C)" if _is_num(thr) else ""))
        p = d.get("power")
        if isinstance(p, dict):
            parts.append(f"power state {p.get('state_before')} -> {p.get('state_after')}"
                         + (f" (max {p['max_power_w']:.3g} W)" if _is_num(p.get("max_power_w")) else "")
                         + (f", measured {p['measured_w']:.3g} W over {p.get('measured_intervals')} intervals"
                            if _is_num(p.get("measured_w")) else "")
                         if p.get("available") else f"power state n/a ({p.get('reason')})")
        if isinstance(d.get("media"), dict):  # absent in results from before it
            waf = d.get("write_amplification")
            parts.append(f"write amplification {waf:.3g} ({d['media'].get('source')})" if _is_num(waf)
                         else f"write amplification n/a ({d.get('write_amplification_reason')})")
        if not _is_num(wa) and d.get("derived_reason"):
            parts.append(f"ratios n/a: {d['derived_reason']}")
        lines.append(f"  device {d.get('node')}: " + ", ".join(parts))
    return lines


def _energy_lines(e):
    """The CPU packages' energy over the run (energy, RAPL), or why there is none."""
    if not isinstance(e, dict):
        return []
    if not e.get("available"):
        return [f"  energy: n/a ({e.get('reason') or 'not measured'})"]
    line = f"  energy: {e.get('joules', 0):.3g} J, CPU packages (every process's)"
    if _is_num(e.get("joules_per_io")):
        line += f", {e['joules_per_io'] * 1e6:.3g} uJ per I/O"
    if _is_num(e.get("watts")):
        line += f", {e['watts']:.3g} W"
    return [line]
