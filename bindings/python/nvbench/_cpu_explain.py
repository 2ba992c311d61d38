"""The machine's CPU per I/O by kind, for the summary (docs/cpu.md): where
each microsecond of a result's cpu.per_io_us went."""


def _n(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def _us(v):
    return f"{v:.3g}" if _n(v) else "n/a"


def kinds_lines(cpu):
    """One line (two when not measured); none for results from before the
    figures."""
    k = cpu.get("per_io_us")
    if not isinstance(k, dict):
        return []
    if not _n(k.get("busy")):
        why = k.get("null_reason") or "not measured"
        return [f"    machine CPU per I/O by kind: n/a ({why})"]
    line = (f"    machine CPU per I/O: {_us(k['busy'])} us = {_us(k.get('user'))} user + "
            f"{_us(k.get('system'))} system + {_us(k.get('irq'))} irq + {_us(k.get('softirq'))} softirq"
            f" (iowait {_us(k.get('iowait'))}, steal {_us(k.get('steal'))}; nvbench's own "
            f"{_us(k.get('own_user'))} user + {_us(k.get('own_system'))} system")
    if _n(k.get("resolution_us")):
        line += f"; one tick is {_us(k['resolution_us'])} us per I/O"
    return [line + ")"]


def counters_lines(cpu):
    """The event counters per I/O (cpu.counters), with the reason where the
    hardware ones (or all) are unavailable; none for results before them."""
    c = cpu.get("counters")
    if not isinstance(c, dict):
        return []
    if c.get("null_reason"):
        return [f"    CPU counters: {c['null_reason']}"]
    line = "    CPU counters per I/O: "
    if _n(c.get("cycles_per_io")):
        line += f"{_us(c['cycles_per_io'])} cycles, {_us(c.get('instructions_per_io'))} instructions"
        if _n(c.get("instructions_per_cycle")):
            line += f" ({c['instructions_per_cycle']:.2f} per cycle)"
        line += ", "
    line += (f"{_us(c.get('task_clock_us_per_io'))} us on a CPU (task clock), "
             f"{_us(c.get('context_switches_per_io'))} context switches; {c.get('cpu_migrations')} migrations")
    notes = []
    if c.get("kernel_counted") is False:
        notes.append("user space only: the kernel's part is not counted")
    if c.get("scaled"):
        notes.append("estimated: the counters were shared")
    if notes:
        line += " (" + "; ".join(notes) + ")"
    lines = [line]
    if c.get("hardware_null_reason"):
        lines.append(f"      cycles, instructions: {c['hardware_null_reason']}")
    return lines


def interrupts_lines(data):
    """Interrupts of the targets' device queues per I/O, and the CPUs that took them."""
    irq = data.get("interrupts")
    if not isinstance(irq, dict):
        return []
    if not _n(irq.get("per_io")):
        return [f"    interrupts per I/O: n/a ({irq.get('null_reason') or 'not measured'})"]
    cpus, per = irq.get("cpus") or [], irq.get("per_cpu") or []
    took = ", ".join(f"CPU {c}: {n:,}" for c, n in zip(cpus, per) if n)
    return [f"    interrupts per I/O: {irq['per_io']:.3g} ({irq.get('count', 0):,} on the targets' device queues"
            + (f"; {took}" if took else "") + ")"]


def _job_cpus(place):
    """The CPUs the jobs ran on (most seen, else last), for marking per-CPU rows."""
    out = set()
    for j in (place or {}).get("jobs") or []:
        if isinstance(j, dict):
            c = j.get("most_seen_cpu") if j.get("most_seen_cpu") is not None else j.get("last_cpu")
            if c is not None:
                out.add(c)
    return out


def per_cpu_lines(data, most=8):
    """The machine's CPU per I/O on each CPU (cpu.per_cpu), a CPU that ran a job marked *,
    so irq and softirq on a CPU with no job show. Up to ``most`` CPUs: the jobs' and the
    busiest of the others; the rest summed."""
    rows = [r for r in (data.get("cpu") or {}).get("per_cpu") or []
            if isinstance(r, dict) and _n(r.get("busy"))]
    if not rows:
        return []
    jobs = _job_cpus(data.get("placement"))
    shown = [r for r in rows if r.get("cpu") in jobs][:most]
    others = sorted((r for r in rows if r not in shown), key=lambda r: -r["busy"])
    shown += others[:max(0, most - len(shown))]
    rest = [r for r in rows if r not in shown]
    shown.sort(key=lambda r: r.get("cpu") if isinstance(r.get("cpu"), int) else -1)
    cells = [f"CPU {r.get('cpu')}{'*' if r.get('cpu') in jobs else ''} {_us(r['busy'])} "
             f"({_us(r.get('user'))} user, {_us(r.get('system'))} sys, {_us(r.get('irq'))} irq, "
             f"{_us(r.get('softirq'))} softirq)" for r in shown]
    if rest:
        cells.append(f"{len(rest)} other CPUs {_us(sum(r['busy'] for r in rest))} in all")
    head = "    per CPU, us per I/O (* ran a job): "
    return [(head if i == 0 else " " * len(head)) + "; ".join(cells[i:i + 2]) for i in range(0, len(cells), 2)]


def _where(j):
    cpu = j.get("most_seen_cpu") if j.get("most_seen_cpu") is not None else j.get("last_cpu")
    node = f" (node {j['node']})" if j.get("node") is not None else ""
    return f"CPU {cpu}{node}"


# The result's warnings about where the jobs ran (the summary's and the report's).
PLACE_WARN = ("placement:", "cpus=local", "io_uring.sqpoll_cpu=local")


def placement_lines(data):
    """Where the jobs ran (placement: the CPU each was seen on most, else last, its
    node, migrations), the devices' NUMA nodes, and the placement warnings."""
    p = data.get("placement")
    if not isinstance(p, dict):
        return []
    warns = [w for w in data.get("warnings") or [] if isinstance(w, str) and w.startswith(PLACE_WARN)]
    tail = [f"      warning: {w}" for w in warns]
    jobs = [j for j in p.get("jobs") or [] if isinstance(j, dict)]
    if not jobs:
        return [f"    placement: n/a ({p.get('null_reason') or 'no job thread seen'})"] + tail
    seen = {}
    for j in jobs:
        seen[_where(j)] = seen.get(_where(j), 0) + 1
    text = ", ".join(w + (f" x{n}" if n > 1 else "") for w, n in seen.items())
    mig = [j["migrations"] for j in jobs if _n(j.get("migrations"))]
    why = [j["migrations_null_reason"] for j in jobs if j.get("migrations_null_reason")]
    if mig:
        text += f"; migrations {min(mig)}" + (f"-{max(mig)}" if max(mig) != min(mig) else "")
    elif why:
        text += f"; migrations n/a ({why[0]})"
    devs = []
    for d, v in (p.get("devices") or {}).items():
        if isinstance(v, dict):
            devs.append(f"{d} node {v['node']}" if v.get("node") is not None
                        else f"{d} node n/a ({v.get('null_reason') or 'unknown'})")
    line = f"    placement: job{'s' if len(jobs) > 1 else ''} on {text}"
    if devs:
        line += "; device " + ", ".join(devs)
    if _n(p.get("nodes")):
        line += f"; {p['nodes']} NUMA node{'' if p['nodes'] == 1 else 's'}"
    loc = p.get("local")
    if isinstance(loc, dict):  # cpus=local (or sqpoll_cpu=local): the node used, the buffers' policy
        pols = sorted({j["buffer_policy"] for j in jobs if j.get("buffer_policy")})
        line += f"; local: node {loc.get('node')} ({loc.get('source')})"
        line += f", buffers {'/'.join(pols)}" if pols else ""
    return [line] + tail
