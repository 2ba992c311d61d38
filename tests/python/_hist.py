"""An independent oracle of the library's latency histogram, for the tests.

The package keeps no histogram arithmetic (nvbench.merge is the C library's
merge) but the rank of a percentile (nvbench._percentile, which says whether
a result had enough I/Os for it); the tests check the library against this
second implementation of the same geometry (libnvbench/core/hist.c: 64
sub-buckets per power of two, so a bucket is at most 1/128 of its value
wide) and percentile rule.
"""

import math

import _pkg  # noqa: F401  (nvbench importable without the C extension)
from nvbench._percentile import _pct_rank  # the rank rule, in the package for the tables' verdicts

SUB_BITS = 6
SUB = 1 << SUB_BITS
MAX_BITS = 44
BUCKETS = (MAX_BITS - SUB_BITS + 1) * SUB
REL_ERROR = 1.0 / (2.0 * SUB)


def bucket_index(v):
    if v < SUB:
        return int(v)
    k = v.bit_length() - 1
    if k >= MAX_BITS:
        return BUCKETS - 1
    return (k - SUB_BITS + 1) * SUB + ((v >> (k - SUB_BITS)) & (SUB - 1))


def bucket_low(i):
    if i < SUB:
        return i
    k = i // SUB + SUB_BITS - 1
    return (1 << k) + ((i % SUB) << (k - SUB_BITS))


def bucket_width(i):
    if i < SUB:
        return 1
    k = i // SUB + SUB_BITS - 1
    return 1 << (k - SUB_BITS)


class Hist:
    """count, sum, sumsq, min, max and sparse buckets {index: count}.

    ``sum`` and ``sumsq`` are exact ints, as the library keeps them; a
    result written before the sums were exact may give a rounded float
    ``sumsq`` (above 2^53), and every Hist added to it keeps a float.
    """

    __slots__ = ("count", "sum", "sumsq", "min", "max", "buckets")

    def __init__(self):
        self.count = self.sum = self.sumsq = 0
        self.min = self.max = None
        self.buckets = {}

    def add(self, other):
        if not other.count:
            return
        for i, n in other.buckets.items():
            self.buckets[i] = self.buckets.get(i, 0) + n
        self.count += other.count
        self.sum += other.sum
        if isinstance(self.sumsq, float) or isinstance(other.sumsq, float):
            self.sumsq = float(self.sumsq) + float(other.sumsq)
        else:
            self.sumsq += other.sumsq
        self.min = other.min if self.min is None else min(self.min, other.min)
        self.max = other.max if self.max is None else max(self.max, other.max)

    def mean(self):
        # as the library computes it: both converted to double first
        return float(self.sum) / float(self.count) if self.count else 0.0

    def stddev(self):
        """Population standard deviation (over count), from the exact sums."""
        if not self.count:
            return 0.0
        n = self.count
        if isinstance(self.sumsq, float):
            var = (self.sumsq - float(self.sum) * float(self.sum) / n) / n
        else:
            var = (n * self.sumsq - self.sum * self.sum) / (n * n)  # exact, rounded once
        return math.sqrt(var) if var > 0 else 0.0

    def pct(self, p):
        return hist_pct(self, p)

    def to_json(self):
        sumsq = self.sumsq if isinstance(self.sumsq, float) else str(self.sumsq)
        return {"sub_bits": SUB_BITS, "max_bits": MAX_BITS, "rel_error": REL_ERROR, "count": self.count,
                "sum": self.sum, "sumsq": sumsq,
                "buckets": [[i, self.buckets[i]] for i in sorted(self.buckets)]}


def hist_pct(h, pct):
    """Percentile (0..100) in ns, exactly as nvb__hist_pct() computes it."""
    if not h.count:
        return 0.0
    if not pct > 0.0:
        pct = 0.0
    if pct > 100.0:
        pct = 100.0
    rank = _pct_rank(h.count, pct)
    if rank == 1:
        return float(h.min)
    if rank == h.count:
        return float(h.max)
    seen = 0
    idx = BUCKETS - 1
    for i in sorted(h.buckets):
        if i >= BUCKETS - 1:
            break
        seen += h.buckets[i]
        if seen >= rank:
            idx = i
            break
    v = float(bucket_low(idx)) + float(bucket_width(idx) - 1) / 2.0
    return min(max(v, float(h.min)), float(h.max))


def hist_from_json(direction, kind="lat"):
    """The histogram of a direction object (``r["read"]``) of an nvbench result:
    ``kind`` "lat" (lat_hist, lat_ns), "slat" or "clat"."""
    h = Hist()
    lh = direction.get(f"{kind}_hist")
    if not lh or not lh.get("count"):
        return h
    if lh.get("sub_bits") != SUB_BITS or lh.get("max_bits") != MAX_BITS:
        raise ValueError(f"histogram geometry sub_bits={lh.get('sub_bits')} max_bits={lh.get('max_bits')} "
                         f"is not nvbench's ({SUB_BITS}, {MAX_BITS})")
    for i, n in lh["buckets"]:
        h.buckets[int(i)] = h.buckets.get(int(i), 0) + int(n)
    h.count = int(lh["count"])
    h.sum = int(lh["sum"])
    v = lh["sumsq"]  # digits (exact), or the number older results wrote (rounded above 2^53)
    h.sumsq = int(v) if isinstance(v, str) or (v < 2**53 and v == int(v)) else float(v)
    lat = direction.get(f"{kind}_ns") or {}
    h.min = int(lat.get("min", 0))
    h.max = int(lat.get("max", 0))
    if sum(h.buckets.values()) != h.count:
        raise ValueError("histogram buckets do not add up to its count")
    return h


