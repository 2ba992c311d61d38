"""The machine's CPU per I/O by kind and the environment reach Python
(docs/cpu.md): the result object shows cpu.per_io_us, cpu.per_cpu and
environment as the library wrote them, they survive a save and a load, and
the summary prints the by-kind line (n/a with the reason when null)."""
import math

import nvbench
from nvbench._summary import summary


def _run(tmp_path, **keys):
    target = tmp_path / "t.dat"
    with open(target, "wb") as f:
        f.write(b"\1" * (1 << 20))
    kw = dict(engine="psync", rw="randread", bs="4k", runtime="300ms", direct=0)
    kw.update(keys)
    return nvbench.run(str(target), **kw)


def test_kinds_and_environment_in_the_result(tmp_path):
    r = _run(tmp_path)
    k = r.cpu.per_io_us
    env = r.environment
    assert env.kernel_release.source == "/proc/sys/kernel/osrelease"
    assert "devices" in env.to_dict()
    if k.busy is None:
        assert k.null_reason
        return
    parts = k.user + k.system + k.irq + k.softirq
    assert math.isclose(parts, k.busy, rel_tol=1e-9)
    rows = r.cpu.per_cpu
    assert len(rows) > 0
    for kind in ("user", "system", "irq", "softirq", "iowait", "steal"):
        assert math.isclose(sum(row[kind] for row in rows), k[kind], rel_tol=1e-9, abs_tol=1e-12)
    back = nvbench.Result.from_json(r.to_json())
    assert back.cpu.per_io_us.to_dict() == k.to_dict()
    assert back.environment.to_dict() == env.to_dict()
    text = summary(r.data)
    assert "machine CPU per I/O: " in text and " softirq" in text
    assert "interrupts per I/O: " in text
    assert back.interrupts.to_dict() == r.interrupts.to_dict()


def test_summary_says_why_kinds_are_null():
    data = {"engine": "psync", "rw": "randread", "read": {"ios": 0}, "duration_s": 0.001,
            "cpu": {"ncpus": 2, "process_cores": 0.5, "cpu_us_per_io": None, "system_pct": None,
                    "system_null_reason": "not measured: few ticks",
                    "per_io_us": {"busy": None, "null_reason": "not measured on Windows: reason"}}}
    text = summary(data)
    assert "machine CPU per I/O by kind: n/a (not measured on Windows: reason)" in text
    assert "0 us =" not in text


def test_counters_in_the_result_and_the_summary(tmp_path):
    """cpu.counters reaches Python as written, reads back, and the summary
    prints it per I/O with the hardware counters' reason when they are null."""
    r = _run(tmp_path)
    c = r.cpu.counters
    back = nvbench.Result.from_json(r.to_json())
    assert back.cpu.counters.to_dict() == c.to_dict()
    text = summary(r.data)
    if c.null_reason:
        assert c.null_reason.startswith("unavailable: ")
        assert f"CPU counters: {c.null_reason}" in text
        return
    ios = r.data["total"]["ios"]
    assert c.task_clock_ns > 0
    assert math.isclose(c.task_clock_us_per_io, c.task_clock_ns / 1e3 / ios, rel_tol=1e-6)
    assert "CPU counters per I/O: " in text and "us on a CPU (task clock)" in text
    if c.cycles is None:
        assert c.hardware_null_reason.startswith("unavailable: perf_event_open(cycles) failed with E")
        assert f"cycles, instructions: {c.hardware_null_reason}" in text
    else:
        assert math.isclose(c.cycles_per_io, c.cycles / ios, rel_tol=1e-6)


def test_summary_without_counters_is_unchanged():
    data = {"engine": "psync", "rw": "randread", "read": {"ios": 0}, "duration_s": 0.001,
            "cpu": {"ncpus": 2, "process_cores": 0.5, "cpu_us_per_io": None, "system_pct": None}}
    assert "CPU counters" not in summary(data)


def test_summary_shows_per_cpu_and_placement(tmp_path):
    """The summary prints the machine's CPU per I/O on each CPU (the job's marked *) and
    where the job ran, with the device's node (or why there is none)."""
    r = _run(tmp_path)
    text = summary(r.data)
    rows, place = r.data["cpu"].get("per_cpu") or [], r.data["placement"]
    if rows:
        assert "    per CPU, us per I/O (* ran a job): CPU " in text
        for row in rows[:8]:
            assert f"CPU {row['cpu']}" in text
    if place.get("null_reason"):
        assert f"placement: n/a ({place['null_reason']})" in text
        return
    job = place["jobs"][0]
    cpu = job["most_seen_cpu"] if job["most_seen_cpu"] is not None else job["last_cpu"]
    assert f"    placement: job on CPU {cpu}" in text
    if rows:
        assert f"CPU {cpu}* " in text
    for dev, v in place["devices"].items():
        assert f"device {dev} node " in text


def _synthetic(ncpus, jobs, warnings=()):
    rows = [{"cpu": i, "user": 1.0, "system": 1.0, "irq": 0.0, "softirq": 0.5 if i == 5 else 0.0,
             "iowait": 0.0, "steal": 0.0, "busy": 2.5 if i == 5 else 2.0} for i in range(ncpus)]
    return {"engine": "psync", "rw": "randread", "read": {"ios": 0}, "duration_s": 1.0, "warnings": list(warnings),
            "cpu": {"ncpus": ncpus, "process_cores": 0.5, "per_cpu": rows},
            "placement": {"nodes": 2, "devices": {"nvme0n1": {"node": 1}},
                          "jobs": [{"tid": 10 + k, "name": f"nvb-job-{k}", "last_cpu": c, "node": 0,
                                    "migrations": k, "most_seen_cpu": c, "samples": 3} for k, c in enumerate(jobs)],
                          "null_reason": None}}


def test_summary_per_cpu_keeps_the_jobs_and_the_busiest():
    """Of many CPUs the summary keeps the jobs' and the busiest others (softirq on a CPU
    with no job shows), sums the rest, and prints the placement warnings under the line."""
    warn = "placement: job nvb-job-0 last ran on CPU 1 (node 0), the device nvme0n1 is on node 1"
    text = summary(_synthetic(20, [1, 3], [warn, "the machine was not quiet"]))
    assert "CPU 1* 2 (1 user, 1 sys, 0 irq, 0 softirq)" in text
    assert "CPU 3* 2 " in text
    assert "CPU 5 2.5 (1 user, 1 sys, 0 irq, 0.5 softirq)" in text
    assert "12 other CPUs 24 in all" in text
    assert ("    placement: jobs on CPU 1 (node 0), CPU 3 (node 0); migrations 0-1; device nvme0n1 node 1; "
            "2 NUMA nodes\n      warning: " + warn + "\n") in text
    assert "warning: the machine was not quiet" not in text
    small = summary(_synthetic(2, [0]))
    assert "CPU 0* 2 " in small and "CPU 1 2 " in small and "other CPUs" not in small


def test_cpus_local_in_python(tmp_path):
    """cpus=local reaches Python: the node used with its source (or the warning), the job's
    buffers' NUMA policy as the kernel reports it, and the summary's placement line names both."""
    r = _run(tmp_path, cpus="local")
    p = r.placement
    if p.to_dict().get("null_reason"):
        return  # no placement here: it says why
    warned = any("cpus=local" in w for w in r.data.get("warnings") or [])
    loc = p.to_dict().get("local")
    assert (loc is None) == warned
    if loc is None:
        return
    assert isinstance(p.local.node, int) and p.local.source
    job = p.to_dict()["jobs"][0]
    if job["buffer_policy"] is not None:  # a kernel with NUMA policies
        assert job["buffer_policy"] == "preferred" and job["buffer_node"] == p.local.node
    assert f"local: node {p.local.node} ({p.local.source})" in summary(r.data)
    assert nvbench.Result.from_json(r.to_json()).placement.to_dict() == p.to_dict()


def test_summary_names_the_local_node_and_why_migrations_are_null():
    """cpus=local's node and its source, the buffers' NUMA policy, and why the kernel gave no
    migration count are on the placement line."""
    data = _synthetic(2, [0])
    job = data["placement"]["jobs"][0]
    job.update(migrations=None, buffer_policy="preferred",
               migrations_null_reason="the kernel gives no per-thread count")
    data["placement"]["local"] = {"node": 1, "source": "the numa_node of nvme0n1 in sysfs"}
    text = summary(data)
    assert ("; migrations n/a (the kernel gives no per-thread count); device nvme0n1 node 1; 2 NUMA nodes; "
            "local: node 1 (the numa_node of nvme0n1 in sysfs), buffers preferred\n") in text
    assert "local:" not in summary(_synthetic(2, [0]))


def test_summary_says_why_placement_is_null():
    data = _synthetic(2, [])
    data["placement"] = {"null_reason": "unavailable: not measured on Windows: reason"}
    text = summary(data)
    assert "    placement: n/a (unavailable: not measured on Windows: reason)\n" in text
    assert "CPU 0 2 " in text and "CPU 0* " not in text  # no job seen: none marked
