#!/usr/bin/env python3
"""Write the recorded trees tests/c/test_explain.c reads.

two-node/      a two-socket machine as the kernel shows it: 4 CPUs (0-1 on
               node 0, 2-3 on node 1), an NVMe namespace nvme0n1 (node 1,
               scheduler mq-deadline, polled queues on the command line)
               with a partition nvme0n1p1, the performance governor, SMT
               on, transparent hugepages always, no hypervisor. Its
               proc/stat is the start of a 1 s window at USER_HZ 100.
two-node-end/  proc/stat at the end of that window, with known deltas (per
               CPU, in ticks):
                 cpu0  user 30 system 40 irq 5 softirq 10 idle 15
                 cpu1  user 15 nice 5 system 30 idle 50
                 cpu2  softirq 20 idle 80  (interrupts on a CPU with no job)
                 cpu3  iowait 5 steal 10 idle 85
               proc/interrupts at both ends: nvme0's admin queue and 4 I/O
               queues (nvme0q1..4 on CPUs 0..3), deltas q1 1000 (CPU 0),
               q2 200 (CPU 1), q3 0, q4 50 (CPU 3) + 7 (CPU 2); nvme1's
               queue and the timer move too and are not nvme0's.
vm/t0, vm/t1   /proc/stat of this project's test VM 1.2 s apart, as read.

The trees are committed; run this script after changing it and commit
the result:  python3 tests/data/explain/mktrees.py
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def write(root, rel, text):
    path = os.path.join(HERE, root, rel.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def stat(rows):
    """rows: per CPU [user nice system idle iowait irq softirq steal guest guest_nice]."""
    total = [sum(c[i] for c in rows) for i in range(10)]
    lines = ["cpu  " + " ".join(map(str, total))]
    lines += [f"cpu{n} " + " ".join(map(str, r)) for n, r in enumerate(rows)]
    lines += ["intr 1000 0 0", "ctxt 5000", "btime 1700000000", "processes 900",
              "procs_running 2", "procs_blocked 0", "softirq 300 0 0 0 0 0 0 0 0 0 0"]
    return "\n".join(lines) + "\n"


start = [[1000 + 100 * n, 10, 2000, 50000, 30, 40, 50, 0, 0, 0] for n in range(4)]
delta = [[30, 0, 40, 15, 0, 5, 10, 0, 0, 0],
         [15, 5, 30, 50, 0, 0, 0, 0, 0, 0],
         [0, 0, 0, 80, 0, 0, 20, 0, 0, 0],
         [0, 0, 0, 85, 5, 0, 0, 10, 0, 0]]
end = [[a + d for a, d in zip(s, dl)] for s, dl in zip(start, delta)]

for t in ("two-node", "two-node-end"):
    shutil.rmtree(os.path.join(HERE, t), ignore_errors=True)
write("two-node", "proc/stat", stat(start))
write("two-node-end", "proc/stat", stat(end))




def interrupts(rows):
    """rows: (label, per-CPU counts, chip, name)"""
    out = ["           CPU0       CPU1       CPU2       CPU3"]
    for label, counts, chip, name in rows:
        out.append(f"{label:>4}: " + " ".join(f"{c:>10}" for c in counts) + f"  {chip}  {name}")
    return "\n".join(out) + "\n"


irq0 = [(" 40", [5, 0, 0, 0], "IR-PCI-MSIX-0000:81:00.0    0-edge", "nvme0q0"),
        (" 41", [100, 0, 0, 0], "IR-PCI-MSIX-0000:81:00.0    1-edge", "nvme0q1"),
        (" 42", [0, 100, 0, 0], "IR-PCI-MSIX-0000:81:00.0    2-edge", "nvme0q2"),
        (" 43", [0, 0, 100, 0], "IR-PCI-MSIX-0000:81:00.0    3-edge", "nvme0q3"),
        (" 44", [0, 0, 0, 100], "IR-PCI-MSIX-0000:81:00.0    4-edge", "nvme0q4"),
        (" 60", [9, 9, 9, 9], "IR-PCI-MSIX-0000:01:00.0    1-edge", "nvme1q1"),
        ("LOC", [1000, 1000, 1000, 1000], "Local timer interrupts", "")]
d = {"nvme0q1": [1000, 0, 0, 0], "nvme0q2": [0, 200, 0, 0], "nvme0q4": [0, 0, 7, 50],
     "nvme1q1": [5, 5, 5, 5], "": [100, 100, 100, 100]}
irq1 = [(l, [a + b for a, b in zip(c, d.get(n, [0, 0, 0, 0]))], chip, n) for l, c, chip, n in irq0]

T = "two-node"
write(T, "proc/interrupts", interrupts(irq0))
write("two-node-end", "proc/interrupts", interrupts(irq1))
write(T, "proc/sys/kernel/osrelease", "6.8.0-45-generic\n")
write(T, "proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic root=/dev/nvme1n1p2 ro "
      "mitigations=off nvme.poll_queues=4 intel_iommu=on\n")
write(T, "proc/cpuinfo", "".join(
    f"processor\t: {n}\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme de pse tsc msr sse sse2 ht\n\n"
    for n in range(4)))
write(T, "sys/module/nvme/parameters/poll_queues", "4\n")
write(T, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n")
write(T, "sys/devices/system/cpu/smt/control", "on\n")
write(T, "sys/devices/system/cpu/smt/active", "1\n")
write(T, "sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n")
write(T, "sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n")
write(T, "sys/class/dmi/id/sys_vendor", "Supermicro\n")
for node, cpus in ((0, "0-1"), (1, "2-3")):
    write(T, f"sys/devices/system/node/node{node}/cpulist", cpus + "\n")
disk = "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/nvme/nvme0/nvme0n1"
q = dict(scheduler="none [mq-deadline] kyber", nomerges="0", iostats="1", rq_affinity="1",
         write_cache="write through", nr_requests="1023", read_ahead_kb="128",
         max_sectors_kb="128", rotational="0")
for k, v in q.items():
    write(T, f"{disk}/queue/{k}", v + "\n")
write(T, "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/numa_node", "1\n")
write(T, f"{disk}/nvme0n1p1/partition", "1\n")
os.makedirs(os.path.join(HERE, T, "sys/class/block"), exist_ok=True)
os.symlink("../../devices/pci0000:80/0000:80:01.0/0000:81:00.0/nvme/nvme0/nvme0n1",
           os.path.join(HERE, T, "sys/class/block/nvme0n1"))
os.symlink("../../devices/pci0000:80/0000:80:01.0/0000:81:00.0/nvme/nvme0/nvme0n1/nvme0n1p1",
           os.path.join(HERE, T, "sys/class/block/nvme0n1p1"))
# the namespace's device link: the controller, whose device is the PCI function
os.symlink("../../nvme0", os.path.join(HERE, T, disk, "device"))
write(T, "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/nvme/nvme0/numa_node", "1\n")
os.symlink("../..", os.path.join(HERE, T, "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/nvme/nvme0/device"))
