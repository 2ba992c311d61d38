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
