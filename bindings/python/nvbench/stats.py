"""Statistics of repeated runs: Student-t confidence intervals, with no scipy.

The Student-t quantile is computed here (regularised incomplete beta, inverted by
bisection) so that the analysis needs nothing beyond the standard library.
"""

import math

__all__ = ["t_cdf", "t_critical", "mean_ci", "mean_interval", "welch_ci", "ratio_ci"]


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    # The continued fraction converges fast only for x < (a+1)/(a+b+2); use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    """P(T <= t) for Student's t with ``df`` (> 0, need not be an integer) degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df!r}")
    if math.isinf(df):
        return 0.5 * math.erfc(-t / math.sqrt(2.0))
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_critical(df, confidence=0.95):
    """Two-sided Student-t critical value: P(|T| <= t) = confidence.

    ``df`` may be fractional (Welch-Satterthwaite) or ``math.inf`` (normal).
    Exact to ~1e-10: the CDF is the regularised incomplete beta, inverted by bisection.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    target = 1.0 - (1.0 - confidence) / 2.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < target:
        hi *= 2.0
        if hi > 1e12:
            raise ValueError(f"no t quantile for df={df!r}, confidence={confidence!r}")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def clean_values(values):
    out = []
    for v in values:
        if v is None:
            continue
        v = float(v)
        if not math.isnan(v):
            out.append(v)
    return out


def mean_var(xs):
    n = len(xs)
    m = sum(xs) / n
    # (x - m) * (x - m), not ** 2: a huge figure gives inf, not OverflowError
    var = sum((x - m) * (x - m) for x in xs) / (n - 1) if n > 1 else math.nan
    return m, var


def mean_ci(values, confidence=0.95):
    """(mean, half_width, n) of the two-sided Student-t confidence interval of the mean.

    NaN/None values are ignored; half_width is NaN when fewer than 2 values remain.
    """
    xs = clean_values(values)
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0
    m, var = mean_var(xs)
    if n < 2:
        return m, math.nan, n
    return m, t_critical(n - 1, confidence) * math.sqrt(var / n), n


def welch_ci(baseline, other, confidence=0.95):
    """Confidence interval of mean(other) - mean(baseline), Welch's t (unequal variances).

    Returns a dict: diff, low, high, df, mean_a (baseline), mean_b, n_a, n_b.
    low/high are NaN when either sample has fewer than 2 values.  When both samples
    have zero variance the interval collapses to the observed difference.
    """
    a, b = clean_values(baseline), clean_values(other)
    na, nb = len(a), len(b)
    ma = mean_var(a)[0] if na else math.nan
    mb = mean_var(b)[0] if nb else math.nan
    out = {"diff": mb - ma, "low": math.nan, "high": math.nan, "df": math.nan,
           "mean_a": ma, "mean_b": mb, "n_a": na, "n_b": nb}
    if na < 2 or nb < 2:
        return out
    va, vb = mean_var(a)[1] / na, mean_var(b)[1] / nb
    se2 = va + vb
    if se2 == 0.0:
        out.update(low=out["diff"], high=out["diff"], df=math.inf)
        return out
    df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    try:
        half = t_critical(df, confidence) * math.sqrt(se2)
    except ValueError:  # figures so far out of range that t has no quantile: no interval
        return out
    out.update(low=out["diff"] - half, high=out["diff"] + half, df=df)
    return out


def _positive(xs):
    return bool(xs) and all(x > 0 and math.isfinite(x) for x in xs)


def mean_interval(values, confidence=0.95):
    """(mean, low, high, n): the mean and a confidence interval that stays in
    the figure's domain. Figures that are all positive (IOPS, bandwidth,
    latency, CPU) get the Student-t interval of the mean of their logarithms,
    mapped back: never below zero, wider above than below, as such figures
    spread. Others get the plain Student-t interval. low/high are NaN below 2
    values."""
    xs = clean_values(values)
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    m = mean_var(xs)[0]
    if n < 2:
        return m, math.nan, math.nan, n
    t = t_critical(n - 1, confidence)
    if _positive(xs):
        logs = [math.log(x) for x in xs]
        lm, lv = mean_var(logs)
        half = t * math.sqrt(lv / n)
        return m, math.exp(lm - half), math.exp(lm + half), n
    half = t * math.sqrt(mean_var(xs)[1] / n)
    return m, m - half, m + half, n


def ratio_ci(baseline, other, confidence=0.95):
    """other against baseline as a ratio, with a confidence interval in its
    domain: for figures that are all positive, Welch's interval of the
    difference of the mean logarithms, mapped back (a ratio above 0, so a
    change never below -100 %); the ratio itself is that of the geometric
    means, the centre of the interval. Otherwise the ratio of the arithmetic
    means and Welch's interval of their difference, relative to the baseline.

    Returns a dict: ratio, low, high (ratios; NaN below 2 values on a side),
    method ("log" or "linear"), df, mean_a, mean_b, n_a, n_b.
    """
    a, b = clean_values(baseline), clean_values(other)
    w = welch_ci(a, b, confidence)
    out = {"ratio": math.nan, "low": math.nan, "high": math.nan, "method": "linear", "df": w["df"],
           "mean_a": w["mean_a"], "mean_b": w["mean_b"], "n_a": w["n_a"], "n_b": w["n_b"]}
    if _positive(a) and _positive(b):
        la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
        wl = welch_ci(la, lb, confidence)
        out.update(method="log", df=wl["df"], ratio=math.exp(wl["diff"]))
        if math.isfinite(wl["low"]) and math.isfinite(wl["high"]):
            out.update(low=math.exp(wl["low"]), high=math.exp(wl["high"]))
        return out
    ma = w["mean_a"]
    if ma and math.isfinite(ma):
        out["ratio"] = w["mean_b"] / ma
        if math.isfinite(w["low"]) and math.isfinite(w["high"]):
            lo, hi = 1.0 + w["low"] / ma, 1.0 + w["high"] / ma
            out.update(low=min(lo, hi), high=max(lo, hi))
    return out
