"""The percentiles a result reports, and whether each rests on enough samples.

The rank arithmetic is the library's (libnvbench/core/hist.c, nvb_pct_*),
called through the C extension: a percentile p of n latencies is the r-th
smallest, r = ceil(n p / 100); it is *supported* when at least PCT_TAIL
latencies lie on either side of that rank.
"""

from .stats import _c  # the extension, or an ImportError saying the library computes this

__all__ = ["PCT_KEYS", "PCT_VALS", "PCT_TAIL", "pct_supported", "pct_min_ios"]

PCT_KEYS = ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "p99.99",
            "p99.999")
PCT_VALS = (1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999)


def __getattr__(name):
    # PCT_TAIL is the library's NVB_PCT_TAIL, read when first asked for
    if name == "PCT_TAIL":
        return _c().PCT_TAIL
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _pct_rank(count, pct):
    """The 1-based rank of percentile ``pct`` of ``count`` latencies (nvb_pct_rank)."""
    return _c().pct_rank(int(count), float(pct))


def pct_supported(count, pct):
    """Whether percentile ``pct`` of ``count`` latencies rests on enough samples: with
    r its rank (the r-th smallest, as hist_pct picks it), r >= 10 and count - r >= 10.
    The rule the library writes into ``lat_pct_supported`` (nvb_pct_supported)."""
    return _c().pct_supported(int(count), float(pct))


def pct_min_ios(pct):
    """The fewest latencies for which percentile ``pct`` is supported (pct_supported);
    None for p0 and p100, the extremes, which never are (nvb_pct_min_ios)."""
    return _c().pct_min_ios(float(pct))
