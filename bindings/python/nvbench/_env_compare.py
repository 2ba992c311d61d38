"""Which environment facts differ between two sets of results, for ``nvbench compare``: the
facts that change the figures being compared (docs/cpu.md), read from each result's
``environment`` (results from before it have none and are not judged)."""

# fact -> what a difference changes; device facts are taken over every target device
MACHINE = {
    "cpu_governor": "CPU per I/O and latency",
    "mitigations": "CPU per I/O (system calls and interrupts)",
    "nvme_poll_queues": "interrupts and CPU per I/O of polled runs",
    "smt_active": "CPU per I/O and IOPS per core",
    "hypervisor": "every figure (steal, virtual devices)",
    "kernel_release": "every figure",
}
DEVICE = {
    "scheduler": "CPU per I/O and latency",
    "nomerges": "IOPS of sequential small blocks",
    "write_cache": "write latency",
}


def _values(results, fact, device):
    out = set()
    for r in results:
        d = r.data if hasattr(r, "data") else r
        env = d.get("environment")
        if not isinstance(env, dict):
            continue
        if device:
            for facts in (env.get("devices") or {}).values():
                v = (facts.get(fact) or {}).get("value")
                if v is not None:
                    out.add(str(v))
        else:
            v = (env.get(fact) or {}).get("value")
            if v is not None:
                out.add(str(v))
    return out


def _nodes(results):
    out = set()
    for r in results:
        d = r.data if hasattr(r, "data") else r
        for job in ((d.get("placement") or {}).get("jobs") or []):
            if job.get("node") is not None:
                out.add(str(job["node"]))
    return out


# the facts whose difference makes a comparison of two results mix two effects (issue 27:
# scheduler, governor, polling, mitigations, node placement): compare refuses to judge
# them without --force; the others are warnings
REFUSE = ("cpu_governor", "mitigations", "nvme_poll_queues", "scheduler", "node")


def _judged(a, b, name_a, name_b):
    """(fact, text) for each fact whose values differ between the results of a and of b."""
    for table, device in ((MACHINE, False), (DEVICE, True)):
        for fact, changes in table.items():
            va, vb = _values(a, fact, device), _values(b, fact, device)
            if va and vb and va != vb:
                yield fact, (f"environment differs: {fact} is {', '.join(sorted(va))} in {name_a}, "
                             f"{', '.join(sorted(vb))} in {name_b} (changes {changes})")
    na, nb = _nodes(a), _nodes(b)
    if na and nb and na != nb:
        yield "node", (f"environment differs: the jobs ran on node(s) {', '.join(sorted(na))} in {name_a}, "
                       f"{', '.join(sorted(nb))} in {name_b} (changes CPU per I/O and latency)")


def differences(a, b, name_a="A", name_b="B"):
    """Warnings, one per fact whose values differ between the results of a and of b."""
    return [text for _, text in _judged(a, b, name_a, name_b)]


def refusals(a, b, name_a="A", name_b="B"):
    """Those of :func:`differences` that compare refuses to judge without --force."""
    return [text for fact, text in _judged(a, b, name_a, name_b) if fact in REFUSE]
