#!/usr/bin/python3
"""Verdict of the QEMU rig: reads the guest's console (tests/vm/init.sh
prints every result between markers) and the rig's description (rig.json,
written by run.sh), checks what the rig configured against what nvbench saw
and did, and prints the block-path-versus-passthrough comparison.

    check.py CONSOLE_LOG RIG_JSON [--accel tcg|kvm] [--guest-seconds S]

Exit 0 when every check passed, 1 otherwise.
"""

import argparse
import json
import re
import sys

FAILS = []
PASSES = 0


def check(ok, what, detail=""):
    global PASSES
    if ok:
        PASSES += 1
        print(f"  ok    {what}")
    else:
        FAILS.append(what)
        print(f"  FAIL  {what}" + (f": {detail}" if detail else ""))
    return ok


def parse(text):
    """Blocks (name -> {"text", "rc"}), stderr lines, and the tagged lines."""
    blocks, errs, tags = {}, {}, []
    cur, buf = None, []
    for line in text.splitlines():
        line = line.rstrip("\r")
        i = line.find("@@NVB-")
        if i > 0 and cur is None:
            line = line[i:]  # after the firmware's terminal escapes
        if cur is not None:
            m = re.match(r"@@NVB-END (\S+) rc=(\d+)$", line)
            if m and m.group(1) == cur:
                blocks[cur] = {"text": "\n".join(buf), "rc": int(m.group(2))}
                cur, buf = None, []
            else:
                buf.append(line)
            continue
        m = re.match(r"@@NVB-BEGIN (\S+)$", line)
        if m:
            cur, buf = m.group(1), []
            continue
        m = re.match(r"@@NVB-ERR (\S+) ?(.*)$", line)
        if m:
            errs.setdefault(m.group(1), []).append(m.group(2))
            continue
        if line.startswith("@@NVB-"):
            tags.append(line)
    return blocks, errs, tags


def tag(tags, prefix):
    return [t[len(prefix):].strip() for t in tags if t.startswith(prefix)]


def as_json(blocks, name):
    b = blocks.get(name)
    if b is None:
        return None
    t = b["text"].strip()
    try:
        return json.loads(t) if t else None
    except ValueError:
        return None


def result(blocks, name):
    """A run_workload result: (rc, parsed JSON or None)."""
    b = blocks.get(name)
    if b is None:
        return None, None
    return b["rc"], as_json(blocks, name)


def ios(r, d):
    return r.get(d, {}).get("ios", 0)


# ------------------------------------------------------------------ checks

def check_devices(devs, rig):
    print("discovery")
    if not check(isinstance(devs, list) and devs, "nvb_devices_json() lists the guest's devices"):
        return {}
    names = {}
    ctrls = set()
    for ns in rig["namespaces"]:
        tagname = f"namespace {ns['name']} (serial {ns['serial']}, nsid {ns['nsid']})"
        found = [d for d in devs if d.get("kind") == "nvme" and not d.get("hidden") and d.get("serial") == ns["serial"]
                 and (d.get("nvme") or {}).get("nsid") == ns["nsid"]]
        if not check(len(found) == 1, f"{tagname} found once", f"{len(found)} matches"):
            continue
        d = found[0]
        n = d["nvme"]
        names[ns["name"]] = d
        check(d["size"] == ns["size"], f"{tagname}: size {ns['size']}", f"got {d['size']}")
        check(d["logical_block_size"] == ns["lbs"] and d["physical_block_size"] == ns["lbs"],
              f"{tagname}: block size {ns['lbs']}", f"got {d['logical_block_size']}/{d['physical_block_size']}")
        check(d.get("io_poll") is True, f"{tagname}: io_poll (poll_queues={rig['poll_queues']})",
              str(d.get("io_poll")))
        check(bool(n.get("generic_path")) and n["generic_path"].startswith("/dev/ng"),
              f"{tagname}: generic node", str(n.get("generic_path")))
        idf = n.get("identify") or {}
        check(idf.get("lba_size") == ns["lbs"] and idf.get("nsze", 0) * ns["lbs"] == ns["size"],
              f"{tagname}: Identify Namespace agrees (NSZE x LBA size)", json.dumps(idf)[:200])
        cs = n.get("controllers") or []
        for c in cs:
            ctrls.add(c.get("name"))
        if ns["name"] == "MP":
            check(n.get("role") == "head" and len(n.get("paths") or []) == 2,
                  f"{tagname}: a multipath head with 2 paths", f"role {n.get('role')}, paths {n.get('paths')}")
            check(len(cs) == 2 and all(c.get("serial") == ns["serial"] for c in cs)
                  and all(str(c.get("subsysnqn")).endswith(rig["mp_nqn"]) for c in cs),
                  f"{tagname}: 2 controllers of subsystem {rig['mp_nqn']}",
                  json.dumps([(c.get("name"), c.get("serial"), c.get("subsysnqn")) for c in cs]))
            hidden = [x for x in devs if x.get("kind") == "nvme-path" and x.get("hidden")
                      and (x.get("nvme") or {}).get("head") == d["name"]]
            check(len(hidden) == 2 and all(x.get("path") is None for x in hidden),
                  f"{tagname}: its 2 hidden paths are listed, without device nodes", str(len(hidden)))
        else:
            check(n.get("role") == "single" and len(cs) == 1 and cs[0].get("serial") == ns["serial"]
                  and cs[0].get("transport") == "pcie" and cs[0].get("model") == "QEMU NVMe Ctrl",
                  f"{tagname}: one PCIe controller, model and serial as configured",
                  json.dumps([(c.get("serial"), c.get("transport"), c.get("model")) for c in cs]))
    serials = {ns["serial"] for ns in rig["namespaces"]}
    check(len(ctrls) == len(serials) + 1, f"{len(serials) + 1} controllers (one subsystem has two)", str(sorted(ctrls)))
    return names


def check_engines(blocks, name, label):
    print(f"engine behavioural tests on {label}")
    j = as_json(blocks, name)
    if not check(j is not None, f"{name}: vmtest printed its checks"):
        return
    for c in j["checks"]:
        if not c["ok"]:
            check(False, f"{name}: {c['name']}", c["detail"])
    check(j["failed"] == 0 and j["passed"] >= 83,
          f"{name}: {j['passed']} checks passed (7 engine configurations: probe, used options, 49 write/read-back "
          "pairs, past the end, read-only descriptors, reap max; the runner's target checks)", f"{j['failed']} failed")


def check_devlog(blocks):
    """device_log on a QEMU NVMe namespace: the write commands and the data units
    (1000 x 512 bytes, rounded up by the controller) against the 80 x 128 KiB written; no
    media writes (no endurance group, no OCP log), so write_amplification null with why."""
    print("device counters (NVMe health log)")
    rc, r = result(blocks, "devlog.A")
    if not check(rc == 0 and r is not None, "devlog.A: the run completed", f"rc={rc}"):
        return
    d = r["per_target"][0].get("device_log") or {}
    if not check(d.get("available") is True, "devlog.A: the health log was read", d.get("reason", "")):
        return
    issued = ios(r, "write")
    units = 80 * 128 * 1024 / 512 / 1000  # 20.48: the delta of two rounded-up counts is 20 or 21
    dw, dc = d["delta"]["data_units_written"], d["delta"]["host_write_commands"]
    check(issued == 80 and dc == issued, f"devlog.A: host_write_commands grew by the {issued} writes issued", f"{dc}")
    check(int(units) <= dw <= int(units) + 1, f"devlog.A: data_units_written grew by {dw} (20.48 units written)")
    ratio = d.get("device_bytes_per_host_byte")
    check(ratio is not None and abs(ratio - dw * 512000 / (80 * 131072)) < 1e-3,
          f"devlog.A: device_bytes_per_host_byte {ratio}")
    check(d["after"]["temperature_k"] > 0, f"devlog.A: temperature {d['after']['temperature_k']} K")
    p = d.get("power") or {}
    check(p.get("available") is True and p.get("state_before") == 0 and p.get("state_after") == 0
          and p.get("max_power_w") == 25, "devlog.A: power state 0 before and after, 25 W its maximum (QEMU's "
          "descriptor)", json.dumps(p))
    # QEMU 7.2's controller has no power measurement (Identify Controller CTRATT bit 21 clear)
    check(p.get("measured_w") is None and "measured_intervals" not in p and p.get("measured_reason") ==
          "the controller does not support power measurement (Identify Controller CTRATT bit 21 clear)",
          f"devlog.A: no measured power: {p.get('measured_reason')}", json.dumps(p))
    # QEMU 7.2 has no endurance groups and no OCP log: no media writes, the factor null with why
    m, why = d.get("media") or {}, d.get("write_amplification_reason") or ""
    check(m.get("available") is False and m.get("reason") == why and "write_amplification" in d
          and d["write_amplification"] is None and "no endurance groups" in why and "(C0h)" in why,
          f"devlog.A: write_amplification null: {why}", json.dumps(m))


def check_pi(blocks, errs):
    """Protection information on namespace P (ms=8, PI type 1): writes with the PI nvbench
    generated pass the controller's three checks, reads pass them, a wrong application tag
    fails every read with the controller's status, and the refusals name why."""
    print("protection information (namespace P: 8 bytes of metadata, PI type 1)")
    for n, d, want in (("pi.write", "write", 256), ("pi.read", "read", 256), ("pi.read.pract", "read", 256)):
        rc, r = result(blocks, n)
        if not check(rc == 0 and r is not None, f"{n}: the run completed", f"rc={rc}"):
            continue
        u = r.get("engine_used") or {}
        check(ios(r, d) == want and r["errors"]["count"] == 0,
              f"{n}: {ios(r, d)} {d}s, every one past the controller's GUARD, REFTAG and APPTAG checks",
              json.dumps(r["errors"]))
        check("PI type 1" in str(u.get("protection")), f"{n}: engine_used.protection {u.get('protection')}")
    rc, r = result(blocks, "pi.badtag")
    if check(rc == 0 and r is not None, "pi.badtag: the run completed (continue_on_error=1)", f"rc={rc}"):
        warn = " ".join(r.get("warnings") or [])
        check(r["errors"]["count"] == 16,
              f"pi.badtag: all 16 reads expecting another application tag failed", json.dumps(r["errors"]))
        check("16 of them end-to-end protection check errors" in warn and "Application Tag Check Error" in warn,
              "pi.badtag: the warning names the end-to-end check status", warn[:300])
    for n, want in (("pi.refused.nokeys", "md_per_io_size=64"), ("pi.refused.small", "8 blocks x 8 bytes = 64"),
                    ("pi.refused.nometa", "without metadata"), ("pi.refused.engine", "engine nvme")):
        b = blocks.get(n) or {}
        err = " ".join(errs.get(n, []))
        check(b.get("rc", 0) != 0 and want in err, f"{n}: refused naming '{want}'", err[:300])


def check_pi_job(blocks, errs):
    """tests/vm/pi.fio, a fio job file in fio 3.41's names (ioengine=io_uring_cmd, pi_act, pi_chk,
    apptag, md_per_io_size), run in the guest through the library's mapping: each of its jobs a
    step of its own, on the nvme engine with the namespace's PI, with the keys as the file says
    them; the write and the reads past the controller's three checks, as the pi.* steps do, and
    the read expecting another application tag failing every command."""
    print("protection information from a fio job file (tests/vm/pi.fio)")
    rc, j = result(blocks, "fiojob.pi")
    err = " ".join(errs.get("fiojob.pi", []))
    if not check(rc == 0 and isinstance(j, dict) and not err, "fiojob.pi: the job file ran, nothing on stderr",
                 f"rc={rc} {err[:300]}"):
        return
    rs = j.get("results") or []
    want = (("pi-write", "write", "write", 0, 64), ("pi-read", "read", "read", 0, 64),
            ("pi-read-pract", "randread", "read", 1, 0))
    names = [r["workload"]["name"] for r in rs]
    check(names == [w[0] for w in want] + ["pi-read-other-apptag"],
          "fiojob.pi: four steps, named after the job sections", str(names))
    for r, (name, rw, d, act, md) in zip(rs, want):
        w, u = r["workload"], r.get("engine_used") or {}
        check(r["engine"] == "nvme" and w["rw"] == rw and w["pi_act"] == act and w["md_per_io_size"] == md
              and w["pi_chk"] == "GUARD,REFTAG,APPTAG" and w["apptag"] == 0x8888 and w["apptag_mask"] == 0xffff,
              f"fiojob.pi {name}: engine nvme, rw={rw} pi_act={act} md_per_io_size={md} apptag=0x8888 from the file",
              json.dumps({k: w.get(k) for k in ("rw", "pi_act", "pi_chk", "apptag", "apptag_mask", "md_per_io_size")}))
        check(ios(r, d) == 256 and r["errors"]["count"] == 0,
              f"fiojob.pi {name}: {ios(r, d)} {d}s, every one past the controller's GUARD, REFTAG and APPTAG checks",
              json.dumps(r["errors"]))
        check("PI type 1" in str(u.get("protection")), f"fiojob.pi {name}: engine_used.protection {u.get('protection')}")
    if len(rs) == 4:
        r, w = rs[3], rs[3]["workload"]
        warn = " ".join(r.get("warnings") or [])
        check(w["apptag"] == 0x4321 and w["pi_chk"] == "APPTAG" and w["continue_on_error"] == 1
              and r["errors"]["count"] == 16
              and "16 of them end-to-end protection check errors" in warn and "Application Tag Check Error" in warn,
              "fiojob.pi pi-read-other-apptag: all 16 reads expecting the file's other apptag failed the "
              "controller's check, named in the warning", json.dumps(r["errors"]) + " " + warn[:300])


def check_zeroes(blocks):
    """write_zeroes=1 on passthrough: 16 NVMe Write Zeroes commands clear the MiB written before."""
    print("write zeroes (NVMe Write Zeroes through passthrough)")
    rc, r = result(blocks, "zeroes.nvme")
    if not check(rc == 0 and r is not None, "zeroes.nvme: the run completed", f"rc={rc}"):
        return
    u = r.get("engine_used") or {}
    check(ios(r, "trim") == 16 and r["errors"]["count"] == 0 and u.get("trims") == "NVMe Write Zeroes",
          f"zeroes.nvme: {ios(r, 'trim')} Write Zeroes commands, no errors", json.dumps(u))
    before = (blocks.get("zeroes.before") or {}).get("text", "").strip()
    after = (blocks.get("zeroes.after") or {}).get("text", "").strip()
    check(before.isdigit() and int(before) > 0 and after == "0",
          f"zeroes.nvme: the MiB had {before} non-zero bytes, after {after}")


def check_verify(blocks):
    print("write with one engine, read back with another (verify=1)")
    names = sorted(n for n in blocks if n.startswith("verify."))
    check(len(names) == 14, "7 write/read pairs ran", str(len(names)))
    for n in names:
        rc, r = result(blocks, n)
        eng = n.split(".")[-1]
        if not check(rc == 0 and r is not None, f"{n}: completed", f"rc {rc}"):
            continue
        check(r["engine"] == eng and r["errors"]["count"] == 0, f"{n}: engine {eng}, no errors",
              json.dumps(r["errors"]))
        if ".write." in n:
            check(ios(r, "write") > 0 and ios(r, "read") == 0, f"{n}: {ios(r, 'write')} writes")
        else:
            v = r["verify"]
            check(v["enabled"] and v["checked"] == ios(r, "read") > 0 and v["mismatches"] == 0,
                  f"{n}: {v['checked']} blocks checked, {v['mismatches']} mismatches", json.dumps(v))
        if eng == "nvme":
            u = r.get("engine_used") or {}
            f = r["per_target"][0]["file"]
            check(f.startswith("/dev/ng") and u.get("fixedbufs") == "1",
                  f"{n}: passthrough to {f} with registered buffers (IORING_URING_CMD_FIXED)", json.dumps(u))


def check_iopoll(blocks, tags, rig):
    print("IOPOLL with poll queues")
    irq = {}
    for t in tag(tags, "@@NVB-IRQ"):
        k, v = t.split()
        irq[k] = int(v)
    for e in ("io_uring", "nvme"):
        res = {}
        for p in ("0", "1"):
            n = f"iopoll.{e}.{p}"
            rc, r = result(blocks, n)
            if not check(rc == 0 and r is not None, f"{n}: completed", f"rc {rc}"):
                continue
            u = r.get("engine_used") or {}
            check(u.get("iopoll") == p and r["errors"]["count"] == 0 and ios(r, "read") == 3000,
                  f"{n}: engine_used.iopoll={p}, 3000 reads, no errors", json.dumps(u))
            res[p] = irq.get(n)
        if "0" in res and "1" in res and res["0"] is not None and res["1"] is not None:
            check(res["1"] <= 30 and res["0"] >= 100,
                  f"{e}: polled completions raise no interrupts ({res['1']} interrupts for 3000 polled reads, "
                  f"{res['0']} without polling)")


def check_explain(blocks, tags):
    """Issue 27 in the guest: the result's interrupts name namespace A's controller's queues
    (several I/O queues under -smp 2), count per queue and per CPU what the rig counted around
    the run or less (the result's window is inside it), fall to about none per I/O when polled;
    the event counters and the placement are there."""
    print("the CPU explained (interrupts, counters, placement)")
    irq = {}
    for t in tag(tags, "@@NVB-IRQ"):
        k, v = t.split()
        irq[k] = int(v)
    per_io = {}
    for p in ("0", "1"):
        n = f"iopoll.io_uring.{p}"
        rc, r = result(blocks, n)
        if rc != 0 or r is None:
            continue
        dev = r["per_target"][0]["dev"]
        it = r.get("interrupts") or {}
        d = (it.get("devices") or {}).get(dev) or {}
        qs = d.get("queues") or []
        ctrl = d.get("controller") or ""
        io_qs = [q for q in qs if q["name"].startswith(ctrl + "q") and q["name"] != ctrl + "q0"]
        check(all(sum(q["per_cpu"]) == q["count"] for q in qs) and sum(q["count"] for q in qs) == d.get("count"),
              f"{n}: interrupts per queue add up per CPU and to the controller's count", json.dumps(d)[:300])
        check(d.get("count", -1) <= irq.get(n, -1),
              f"{n}: the result's interrupts ({d.get('count')}) are within the rig's count around the run "
              f"({irq.get(n)})")
        if p == "0":
            check(len(io_qs) >= 2, f"{n}: {len(io_qs)} I/O queues with interrupt lines on {ctrl} (-smp 2)",
                  json.dumps([q["name"] for q in qs]))
        per_io[p] = it.get("per_io")
        c = (r.get("cpu") or {}).get("counters") or {}
        check(c.get("null_reason") is None and (c.get("task_clock_ns") or 0) > 0,
              f"{n}: cpu.counters: task clock {c.get('task_clock_us_per_io')} us per I/O, "
              f"{c.get('context_switches_per_io')} switches per I/O; hardware: "
              f"{c.get('hardware_null_reason') or 'counted'}", json.dumps(c)[:300])
        jobs = (r.get("placement") or {}).get("jobs") or []
        check(len(jobs) == 1 and "migrations" in jobs[0] and jobs[0].get("samples", 0) >= 2,
              f"{n}: placement of the job: {json.dumps(jobs)[:200]}")
        k = (r.get("cpu") or {}).get("per_io_us") or {}
        print(f"  {n}: interrupts per I/O {per_io[p]}, per queue "
              f"{[(q['name'], q['count']) for q in io_qs]}; machine CPU per I/O {k.get('busy')} us = "
              f"{k.get('user')} user + {k.get('system')} system + {k.get('irq')} irq + {k.get('softirq')} "
              f"softirq; nvbench's own {k.get('own_user')} + {k.get('own_system')}")
    if per_io.get("0") is not None and "1" in per_io:
        check(per_io["0"] >= 0.03 and (per_io["1"] or 0) <= 0.01,
              f"interrupts per I/O fall when polled: {per_io['0']} interrupt-driven, {per_io['1']} polled")


# The result's warnings about where and beside what the run went, not about nvbench: placement
# (the CPU the scheduler ran the job on, against the device's interrupts), a machine that was not
# quiet and tick counters that lost time (the guest is emulated: TCG's ticks come late and other
# guest processes run beside the step).
RUN_CONDITION_WARNINGS = ("warning: placement: ", "warning: the machine was not quiet: ",
                          "warning: cpu: the machine's counters account for ",
                          "warning: cpu: the machine's tick counters saw ")


def only_run_condition_warnings(text):
    """Whether a step's stderr holds nothing but the result's warnings on the run's conditions
    (RUN_CONDITION_WARNINGS): properties of that run in an emulated guest, not failures."""
    parts = [p.strip() for p in text.split("run_workload: ") if p.strip()]
    return bool(parts) and all(p.startswith(RUN_CONDITION_WARNINGS) for p in parts)


def check_local_and_doctor(blocks, rig):
    """cpus=local and io_uring.sqpoll_cpu=local in the guest: a node used (the device's, or the
    machine's only one), the job's buffers bound there (get_mempolicy's policy on the real
    buffer), the SQPOLL thread pinned; doctor's facts (nvb_environment_json) of namespace A."""
    print("placement and doctor in the guest")
    rc, r = result(blocks, "local.io_uring")
    if check(rc == 0 and r is not None, "local.io_uring: completed", f"rc {rc}"):
        p = r.get("placement") or {}
        loc, jobs = p.get("local") or {}, p.get("jobs") or [{}]
        check(isinstance(loc.get("node"), int) and loc.get("source"),
              f"local.io_uring: placement.local {json.dumps(loc)}")
        check(jobs[0].get("buffer_policy") == "preferred" and jobs[0].get("buffer_node") == loc.get("node"),
              f"local.io_uring: buffers {jobs[0].get('buffer_policy')} on node {jobs[0].get('buffer_node')}")
        used = r.get("engine_used") or {}
        check("sqpoll_cpu" in used, f"local.io_uring: the SQPOLL thread on CPU {used.get('sqpoll_cpu')}",
              json.dumps(used)[:200])
    env = as_json(blocks, "environment.A")
    if not check(isinstance(env, dict) and isinstance(env.get("checks"), list), "environment.A: doctor's JSON",
                 str(env)[:200]):
        return
    e = env["environment"]
    pq = (e.get("nvme_poll_queues") or {}).get("value")
    check(pq == rig.get("poll_queues"), f"environment.A: nvme_poll_queues {pq} (the rig's {rig.get('poll_queues')})")
    devs = e.get("devices") or {}
    sch = [(d, (v.get("scheduler") or {}).get("value")) for d, v in devs.items()]
    check(len(sch) == 1 and sch[0][1], f"environment.A: scheduler of {sch}")
    print(f"  doctor's checks: {[(c['severity'], c['fact']) for c in env['checks']]}")


def check_kstat(blocks, tags):
    print("kernel counters (/sys/block/NAME/stat)")
    ks = {}
    for t in tag(tags, "@@NVB-KSTAT"):
        f = t.split()
        a, b = list(map(int, f[1:5])), list(map(int, f[5:9]))
        ks[f[0]] = [y - x for x, y in zip(a, b)]
    for e in ("io_uring", "nvme"):
        n = f"kstat.{e}"
        rc, r = result(blocks, n)
        d = ks.get(n)
        if not check(rc == 0 and r is not None and d is not None, f"{n}: completed", f"rc {rc}"):
            continue
        check(ios(r, "read") == 1000, f"{n}: 1000 reads", str(ios(r, "read")))
        if e == "io_uring":
            check(d == [1000, 8000, 0, 0], "io_uring: the block layer counted exactly nvbench's 1000 reads "
                  "(8000 sectors)", str(d))
        else:
            check(d == [0, 0, 0, 0], "nvme: passthrough commands bypass the block layer's accounting "
                  "(Linux 6.1 counts none)", str(d))


def check_jbod(blocks, names):
    print("JBOD: one run across four controllers")
    want = {names[k]["serial"] for k in ("A", "B1", "C", "D") if k in names}
    for e in ("io_uring", "nvme"):
        n = f"jbod.{e}"
        rc, r = result(blocks, n)
        if not check(rc == 0 and r is not None, f"{n}: completed", f"rc {rc}"):
            continue
        pt = r["per_target"]
        serials = {t.get("device", {}).get("serial") for t in pt}
        check(len(pt) == 4 and serials == want and len(want) == 4,
              f"{n}: 4 targets on 4 controllers ({', '.join(sorted(serials, key=str))})", str(serials))
        for d in ("read", "write"):
            for k in ("ios", "bytes"):
                s = sum(t[d][k] for t in pt)
                check(s == r[d][k] and s > 0, f"{n}: {d}.{k} total {r[d][k]} == sum over targets {s}")
            check(all(t[d]["ios"] > 0 for t in pt), f"{n}: every target did {d}s",
                  str([t[d]["ios"] for t in pt]))
        check(r["total"]["ios"] == r["read"]["ios"] + r["write"]["ios"] and r["errors"]["count"] == 0,
              f"{n}: total.ios = read + write, no errors")


def check_guard(blocks, errs):
    print("the destructive-write guard on a namespace with a filesystem")
    mi = blocks.get("guard.mounts", {})
    check(mi.get("rc") == 0 and " /mnt " in mi.get("text", ""), "the namespace is mounted on /mnt (ext2)",
          mi.get("text", "")[:200])

    def err(n):
        return " ".join(errs.get(n, []))
    for n, what in (("guard.mounted.psync", "its block device"), ("guard.mounted.nvme", "its generic node"),
                    ("guard.mounted.psync.trim", "its block device (a trim)"),
                    ("guard.mounted.nvme.trim", "its generic node (a Dataset Management trim)")):
        rc, _ = result(blocks, n)
        e = err(n)
        check(rc == 2 and "is in use" in e and "/mnt" in e and "allow_destructive=1" in e,
              f"a write through {what} is refused while mounted, even with allow_destructive=1 ({n})",
              f"rc {rc}: {e}")
    rc, r = result(blocks, "guard.mounted.read")
    check(rc == 0 and r is not None and ios(r, "read") == 100, "reads of the mounted namespace go on", f"rc {rc}")
    for n in ("guard.unmounted", "guard.unmounted.nvme", "guard.unmounted.nvme.trim"):
        rc, _ = result(blocks, n)
        e = err(n)
        check(rc == 2 and "ext2 filesystem labelled 'nvbvm'" in e and "allow_destructive=1" in e,
              f"unmounted, the refusal names what would be destroyed ({n})", f"rc {rc}: {e}")
    rc, r = result(blocks, "guard.allowed")
    check(rc == 0 and r is not None and ios(r, "write") == 10, "allow_destructive=1 permits it (nvme engine)",
          f"rc {rc}")
    # the hold across /dev/ngXnY and /dev/nvmeXnY
    for holder, what in (("guard.held.nvme", "an nvme-engine writer on the generic node"),
                         ("guard.held.psync", "a psync trimmer on the block device")):
        rc, _ = result(blocks, holder)
        check(rc == 0, f"{what} ran ({holder})", f"rc {rc}: {err(holder)}")
    for n in ("guard.held.nvme.psync.write", "guard.held.nvme.psync.verify", "guard.held.nvme.nvme.verify",
              "guard.held.psync.nvme.trim", "guard.held.psync.nvme.verify"):
        rc, _ = result(blocks, n)
        e = err(n)
        check(rc != 0 and "in use by another run" in e and "run_workload" in e,
              f"refused while another run writes the namespace through its other node ({n})", f"rc {rc}: {e}")
    for n in ("guard.held.nvme.read", "guard.held.psync.read"):
        rc, r = result(blocks, n)
        check(rc == 0 and r is not None and ios(r, "read") == 100, f"a plain read beside the writer goes on ({n})",
              f"rc {rc}: {err(n)}")


def check_hotremove(blocks, tags):
    """A controller removed (device_del) under a running workload: the run
    ends by itself, with the errors counted and a partial result that
    parses, and the namespace is gone from the guest."""
    print("hot removal of a controller mid-run")
    marks = {}
    for t in tag(tags, "@@NVB-HOTREMOVE"):
        name, *kv = t.split()
        marks[name] = dict(x.split("=", 1) for x in kv)
    for name, stops in (("hotremove.io_uring", False), ("hotremove.nvme", True)):
        rc, r = result(blocks, name)
        m = marks.get(name, {})
        if not check(rc is not None and name in marks, f"{name}: the run ended (no hang)", "no result block"):
            continue
        if not check(isinstance(r, dict), f"{name}: the partial result parses (rc={rc})",
                     blocks[name]["text"][:200]):
            continue
        err = r.get("error") or {}
        errs = (r.get("errors") or {}).get("count", 0)
        done = ios(r, "read") + ios(r, "write")
        check(done > 0, f"{name}: I/O completed before the removal", f"{done} I/Os")
        check(errs > 0 or err.get("name") == "ETIMEDOUT",
              f"{name}: the failures are counted (errors.count {errs}, by errno "
              f"{(r.get('errors') or {}).get('by_errno')}), or the watchdog stopped the run",
              json.dumps(err))
        if stops:
            check(rc != 0 and bool(err.get("message")), f"{name}: continue_on_error=0 stops with an error naming it",
                  f"rc {rc}, {json.dumps(err)}")
        else:
            check(rc == 0 or err.get("name") == "ETIMEDOUT",
                  f"{name}: continue_on_error=1 runs on (rc {rc}{', ' + err.get('message', '') if err else ''})")
        check(m.get("node_gone") == "1", f"{name}: the namespace left the guest after device_del", json.dumps(m))
        try:
            took = float(m["end"]) - float(m["unplug"])
            print(f"        unplug asked at guest uptime {m['unplug']} s, run ended {took:.1f} s later; "
                  f"{done} I/Os done, {errs} failed, error: {err.get('message', 'none')}")
        except (KeyError, ValueError):
            pass


def check_stall(blocks, tags):
    """A read that the device never answers (blkdebug breakpoint on the
    host) while the other reads complete: the watchdog finds it by its age
    and ends the run with ETIMEDOUT, a result that parses, and that read
    abandoned; the result is out while the read is still stalled (it is
    released only afterwards)."""
    print("a device that stops answering (the watchdog)")
    marks = {}
    for t in tag(tags, "@@NVB-STALL"):
        name, *kv = t.split()
        marks[name] = dict(x.split("=", 1) for x in kv)
    for e in ("io_uring", "libaio", "nvme"):
        name = f"stall.{e}"
        rc, r = result(blocks, name)
        if not check(rc is not None and name in marks, f"{name}: the run ended while the read was stalled",
                     "no result block"):
            continue
        if not check(isinstance(r, dict), f"{name}: the result parses (rc={rc})", blocks[name]["text"][:200]):
            continue
        err = r.get("error") or {}
        check(err.get("name") == "ETIMEDOUT" and "watchdog" in err.get("message", ""),
              f"{name}: stopped by the watchdog (ETIMEDOUT)", json.dumps(err))
        check(rc == 1, f"{name}: run_workload exits 1", f"rc {rc}")
        check(ios(r, "read") > 0, f"{name}: reads completed before and beside the stalled one",
              f"{ios(r, 'read')} reads")
        check("was in flight for" in err.get("message", ""),
              f"{name}: the stalled read itself was found by its age while the others completed", err.get("message"))
        warn = " ".join(r.get("warnings") or [])
        check("abandoned 1 I/O" in warn, f"{name}: the stalled read is abandoned, its buffers kept", warn[:300])
        m = marks[name]
        try:
            took = float(m["result"]) - float(m["start"])
        except (KeyError, ValueError):
            took = float("nan")
        print(f"        result {took:.1f} s after the start (breakpoint at 1 s, runtime 10 s, io_timeout 2 s); the exiting process "
              f"was '{m.get('exiting_state')}' until the read was released; {err.get('message', '')}")
    name = "stall.nvme_setup"
    rc, r = result(blocks, name)
    if check(rc is not None and isinstance(r, dict), f"{name}: the run ended and its result parses",
             str(rc)):
        err = r.get("error") or {}
        check(err.get("name") == "ETIMEDOUT" and "did not complete within io_timeout" in err.get("message", ""),
              f"{name}: the setup read of a device that does not answer fails after io_timeout", json.dumps(err))


def comparison(blocks, names, accel):
    cells = [("rand4k", "randread", 1), ("rand4k", "randread", 32), ("rand4k", "randwrite", 32), ("seq64k", "read", 32)]
    a = names.get("A", {})
    print("the block path beside passthrough")
    rows = []
    hdr = f"{'cell':<16}{'qd':>3}  {'engine':<10}{'IOPS':>10}{'MiB/s':>9}{'lat mean us':>13}{'p99 us':>9}" \
          f"{'CPU us/IO':>11}{'cores':>7}{'vs io_uring':>13}"
    for cell, rw, qd in cells:
        base = None
        for e in ("io_uring", "nvme"):
            n = f"compare.{cell}.{rw}.qd{qd}.{e}"
            rc, r = result(blocks, n)
            if not check(rc == 0 and r is not None, f"{n}: completed", f"rc {rc}"):
                continue
            d = "read" if "read" in rw else "write"
            x = r[d]
            cpu = r["cpu"]["cpu_us_per_io"]
            check(x["ios"] > 0 and r["errors"]["count"] == 0, f"{n}: {x['ios']} I/Os, no errors")
            rel = ""
            if e == "io_uring":
                base = cpu
            elif base:
                rel = f"{cpu / base:.2f}x CPU"
            rows.append(f"{cell + ' ' + d:<16}{qd:>3}  {e:<10}{x['iops']:>10.0f}{x['bw_bytes_s'] / 2**20:>9.1f}"
                        f"{x['lat_ns']['mean'] / 1e3:>13.1f}{x['lat_ns']['p99'] / 1e3:>9.1f}{cpu:>11.1f}"
                        f"{r['cpu']['process_cores']:>7.2f}{rel:>13}")
    print()
    print(f"The block path (io_uring) beside passthrough (nvme) on one namespace ({a.get('path')}, serial "
          f"{a.get('serial')}), 1 job,")
    print(f"the Linux analogue of the published non-native and native columns. QEMU {accel.upper()}: emulated "
          "CPUs and an emulated controller,")
    print("so these figures show the software path's relative cost, not what hardware does.")
    print(hdr)
    print("-" * len(hdr))
    for row in rows:
        print(row)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("rig")
    ap.add_argument("--accel", default="tcg")
    ap.add_argument("--guest-seconds", default="?")
    a = ap.parse_args()
    text = open(a.log, encoding="utf-8", errors="replace").read()
    rig = json.load(open(a.rig, encoding="utf-8"))
    blocks, errs, tags = parse(text)

    print("guest")
    ex = tag(tags, "@@NVB-EXIT")
    check(bool(ex) and ex[-1].split()[0] == "0", "the guest ran to its end", (ex or ["no exit marker"])[-1])
    for n, lines in errs.items():
        if not n.startswith(("pi.", "zeroes.", "devlog.", "guard.", "verify.", "iopoll.", "kstat.", "jbod.", "compare.", "engines.", "devices",
                             "hotremove.", "stall.")) and not only_run_condition_warnings(" ".join(lines)):
            check(False, f"guest: {n}", " ".join(lines))
    k = blocks.get("kernel", {}).get("text", "").strip()
    check(k.startswith("6.1."), f"kernel {k} (Debian's linux-image-amd64)")
    devs = as_json(blocks, "devices")
    names = check_devices(devs, rig)
    check_engines(blocks, "engines.A", "namespace A (512-byte LBAs)")
    check_engines(blocks, "engines.B1", "namespace B1 (4096-byte LBAs)")
    check_verify(blocks)
    check_devlog(blocks)
    check_pi(blocks, errs)
    check_pi_job(blocks, errs)
    check_zeroes(blocks)
    check_iopoll(blocks, tags, rig)
    check_explain(blocks, tags)
    check_local_and_doctor(blocks, rig)
    check_kstat(blocks, tags)
    check_jbod(blocks, names)
    check_guard(blocks, errs)
    check_hotremove(blocks, tags)
    check_stall(blocks, tags)
    comparison(blocks, names, a.accel)

    booted = tag(tags, "@@NVB-BOOTED")
    ready = tag(tags, "@@NVB-READY")
    print()
    print(f"guest uptime at /init {booted[0] if booted else '?'}, namespaces ready {ready[0] if ready else '?'}, "
          f"end {ex[-1] if ex else '?'}; {a.guest_seconds} s from QEMU start to power-off ({a.accel})")
    print(f"{PASSES} checks passed, {len(FAILS)} failed")
    for f in FAILS:
        print(f"  failed: {f}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
