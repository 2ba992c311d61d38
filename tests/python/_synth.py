"""Synthetic nvbench results for the analysis tests, built from a real C result.

The template is tests/python/data/c-psync-randread.json, the output of the C
run_workload example, so synthetic results have every key the library emits.
"""

import copy
import json
import os
import random

import _pkg  # noqa: F401  (nvbench importable without the C extension)
from nvbench._percentile import PCT_KEYS, PCT_VALS, pct_supported

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

with open(os.path.join(DATA, "c-psync-randread.json")) as _f:
    TEMPLATE = json.load(_f)

CELLS = {"rand4k": ("rand", 4096), "rand64k": ("rand", 65536),
         "seq64k": ("", 65536), "seq128k": ("", 131072)}


def result_dict(engine="libaio", cell="rand4k", op="read", iops=100_000.0, lat_ms=0.2,
                cpu_pct=50.0, process_cores=1.0, duration_s=2.0, qd=32, jobs=4,
                pcts=None):
    """A C-shaped result dict for one cell; figures of the other direction are zero."""
    prefix, bs = CELLS[cell]
    d = copy.deepcopy(TEMPLATE)
    d["engine"] = engine
    d["qd_effective"] = qd
    wl = d["workload"]
    wl.update(engine=engine, rw=prefix + op, bs=bs, qd=qd, jobs=jobs, targets=["/dev/synth"])
    d["duration_s"] = duration_s
    for direction in ("read", "write"):
        side = d[direction]
        on = direction == op
        ios = int(iops * duration_s) if on else 0
        side["ios"] = ios
        side["bytes"] = ios * bs
        side["iops"] = iops if on else 0.0
        side["bw_bytes_s"] = iops * bs if on else 0.0
        side["bw_gib_s"] = iops * bs / 2**30 if on else 0.0
        lat = side["lat_ns"]
        base = lat_ms * 1e6 if on else 0.0
        scale = pcts or {"p50": 0.9, "p90": 1.5, "p99": 3.0, "p99.9": 6.0}
        for k in lat:
            lat[k] = base * scale.get(k, 1.0)
        hist = _histogram(ios, base, scale)
        side["lat_hist"] = hist.to_json()
        side["lat_pct_supported"] = {k: pct_supported(ios, p) for k, p in zip(PCT_KEYS, PCT_VALS)}
        # The library checks that min and max sit in the first and last bucket.
        lat["min"], lat["max"] = (hist.min, hist.max) if ios else (0, 0)
    d["total"] = {"ios": int(iops * duration_s), "bytes": int(iops * duration_s) * bs,
                  "iops": iops, "bw_bytes_s": iops * bs}
    cpu = d["cpu"]
    cpu["system_pct"] = cpu_pct
    cpu["process_cores"] = process_cores
    cpu["cpu_us_per_io"] = process_cores * 1e6 / iops
    cpu["iops_per_core"] = iops / process_cores
    return d


def _histogram(ios, base_ns, scale):
    """A latency histogram of `ios` samples whose percentiles are about the
    stated ones: half the I/Os at p50, 40% at p90, 9% at p99, the rest at
    p99.9 (so a result saved and loaded by the library's parser stays close)."""
    from _hist import Hist, bucket_index
    h = Hist()
    if not ios:
        return h
    shares = (("p50", 0.5), ("p90", 0.4), ("p99", 0.09), ("p99.9", 0.01))
    left = ios
    for i, (key, share) in enumerate(shares):
        n = left if i == len(shares) - 1 else min(left, int(ios * share))
        left -= n
        if not n:
            continue
        v = max(1, int(round(base_ns * scale.get(key, 1.0))))
        b = bucket_index(v)
        h.buckets[b] = h.buckets.get(b, 0) + n
        h.count += n
        h.sum += n * v
        h.sumsq += n * v * v
        h.min = v if h.min is None else min(h.min, v)
        h.max = v if h.max is None else max(h.max, v)
    return h


def matrix(stacks=("libaio", "io_uring"), repeats=3, seed=1, noise=0.02, shuffle=True,
           effect=None):
    """(list of (data, meta)) for the 8 seed cells x stacks x repeats.

    effect: {stack: multiplier on IOPS}; latency scales inversely."""
    from nvbench.results import Result
    rng = random.Random(seed)
    effect = effect or {}
    out = []
    for stack in stacks:
        for op in ("read", "write"):
            for cell in CELLS:
                for rep in range(repeats):
                    f = effect.get(stack, 1.0) * (1 + rng.gauss(0, noise))
                    d = result_dict(engine=stack, cell=cell, op=op, iops=200_000 * f,
                                    lat_ms=0.3 / f, cpu_pct=40 + rng.random(),
                                    process_cores=2.0 + rng.random() * 0.1)
                    out.append(Result(d, {"repeat": rep}))
    if shuffle:
        rng.shuffle(out)
    return out
