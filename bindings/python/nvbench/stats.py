"""Statistics of repeated runs: the library's (nvb_stats_*, libnvbench/core/stats.c).

Nothing is computed here: the Student-t quantile, the mean's interval in a figure's
domain and the ratio or difference of two means are the C library's, through the
extension, so Python, Lua and C print the same digits (docs/analysis.md says which
mean and which interval each figure uses). This module turns their results into
the dicts and tuples the analysis reads.
"""

import math

__all__ = ["t_cdf", "t_critical", "mean_ci", "mean_interval", "welch_ci", "ratio_ci", "DOMAINS",
           "clean_values", "mean_var"]

# The domain of a figure, declared once per metric (nvbench.metrics.Metric.domain):
#   "positive"  a rate, a time, a cost: > 0; intervals on the log scale
#   "share"     a share of the machine in %: in [0, 100]; intervals on the logit scale
#   "real"      anything else; the plain Student-t interval
DOMAINS = ("positive", "share", "real")


def _c():
    try:
        from . import _nvbench
    except ImportError as e:
        raise ImportError("nvbench's statistics, seed cells and labels are the C library's: the extension "
                          f"nvbench._nvbench is needed ({e})") from e
    return _nvbench


def _domain(domain):
    c = _c()
    codes = {"positive": c.DOMAIN_POSITIVE, "share": c.DOMAIN_SHARE, "real": c.DOMAIN_REAL}
    if domain not in codes:
        raise ValueError(f"domain must be one of {', '.join(DOMAINS)}, got {domain!r}")
    return codes[domain]


def _numbers(values):
    """The values as floats for the library; None (a run without the figure) is NaN,
    which the library leaves out."""
    return [math.nan if v is None else float(v) for v in values]


def t_cdf(t, df):
    """P(T <= t) for Student's t with ``df`` (> 0, need not be an integer) degrees of freedom."""
    if not df > 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df!r}")
    return _c().stats_t_cdf(float(t), float(df))


def t_critical(df, confidence=0.95):
    """Two-sided Student-t critical value: P(|T| <= t) = confidence.

    ``df`` may be fractional (Welch-Satterthwaite) or ``math.inf`` (normal)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    try:
        return _c().stats_t_critical(float(df), float(confidence))
    except ValueError:
        raise ValueError(f"no t quantile for df={df!r}, confidence={confidence!r}") from None


def clean_values(values):
    """The finite values as floats (None, NaN and infinities are runs without the figure)."""
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def mean_var(xs):
    """(mean, sample variance) of xs, as the library computes them (variance NaN below 2)."""
    e = _c().stats_mean_interval(_numbers(xs), _c().DOMAIN_REAL, 0.95)
    return e["value"], e["sd"] * e["sd"]


def mean_interval(values, domain="positive", confidence=0.95):
    """The arithmetic mean of the repeats and a confidence interval of it in the figure's
    ``domain`` (nvb_stats_mean_interval: Student's t on the log scale for "positive", the
    logit one for "share", the figure itself for "real", by the delta method).

    Returns a dict: mean, low, high, n, sd (the sample standard deviation), method ("log",
    "logit", "t"), why (None, or why there is no interval: "no run", "n<2", "mean at the
    domain's bound", "no finite spread").
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    e = _c().stats_mean_interval(_numbers(values), _domain(domain), float(confidence))
    return {"mean": e["value"], "low": e["low"], "high": e["high"], "n": e["n_a"], "sd": e["sd"],
            "method": e["method"], "why": e["why"]}


def mean_ci(values, confidence=0.95):
    """(mean, half_width, n) of the plain two-sided Student-t interval of the mean."""
    ci = mean_interval(values, "real", confidence)
    return ci["mean"], ci["high"] - ci["mean"] if ci["why"] is None else math.nan, ci["n"]


def welch_ci(baseline, other, confidence=0.95):
    """mean(other) - mean(baseline) with Welch's interval (nvb_stats_difference).

    Returns a dict: diff, low, high, df, mean_a (baseline), mean_b, n_a, n_b."""
    e = _c().stats_difference(_numbers(baseline), _numbers(other), float(confidence))
    return {"diff": e["value"], "low": e["low"], "high": e["high"], "df": e["df"],
            "mean_a": e["mean_a"], "mean_b": e["mean_b"], "n_a": e["n_a"], "n_b": e["n_b"]}


def ratio_ci(baseline, other, domain="positive", confidence=0.95):
    """other against baseline: the ratio of their arithmetic means with a confidence
    interval in its domain (nvb_stats_ratio: Welch's on the logarithm of the ratio for
    "positive" and "share" figures, so never below 0; Welch's difference relative to the
    baseline for "real" ones).

    Returns a dict: ratio, low, high, method ("log" or "linear"), df, mean_a, mean_b,
    n_a, n_b, why."""
    e = _c().stats_ratio(_numbers(baseline), _numbers(other), _domain(domain), float(confidence))
    return {"ratio": e["value"], "low": e["low"], "high": e["high"],
            "method": "linear" if e["method"] == "t" else e["method"], "df": e["df"],
            "mean_a": e["mean_a"], "mean_b": e["mean_b"], "n_a": e["n_a"], "n_b": e["n_b"], "why": e["why"]}
