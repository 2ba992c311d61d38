"""The percentiles a result reports, and whether each rests on enough samples.

The rank arithmetic is the library's (libnvbench/core/hist.c): a percentile p
of n latencies is the r-th smallest, r = ceil(n p / 100); it is *supported*
when at least PCT_TAIL latencies lie on either side of that rank.
"""

import math
import sys

__all__ = ["PCT_KEYS", "PCT_VALS", "PCT_TAIL", "pct_supported", "pct_min_ios"]

PCT_KEYS = ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "p99.99",
            "p99.999")
PCT_VALS = (1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999)
PCT_TAIL = 10


def _pct_rank(count, pct):
    x = pct * float(count) / 100.0
    x -= x * (8.0 * sys.float_info.epsilon)
    r = math.ceil(x)
    if not r >= 1:
        return 1
    if r >= count:
        return count
    return int(r)


def pct_supported(count, pct):
    """Whether percentile ``pct`` of ``count`` latencies rests on enough samples: with
    r its rank (the r-th smallest, as hist_pct picks it), r >= 10 and count - r >= 10.
    The rule the library writes into ``lat_pct_supported``."""
    if count < 2 * PCT_TAIL:
        return False
    pct = min(max(pct, 0.0), 100.0) if pct == pct else 0.0
    r = _pct_rank(count, pct)
    return r >= PCT_TAIL and count - r >= PCT_TAIL


def pct_min_ios(pct):
    """The fewest latencies for which percentile ``pct`` is supported (pct_supported)."""
    q = min(pct, 100.0 - pct) / 100.0
    if not q > 0:
        return None  # p0 and p100 are the extremes: never supported
    n = max(2 * PCT_TAIL, int(PCT_TAIL / q) - 2)
    while not pct_supported(n, pct):
        n += 1
    while n > 2 * PCT_TAIL and pct_supported(n - 1, pct):
        n -= 1
    return n
