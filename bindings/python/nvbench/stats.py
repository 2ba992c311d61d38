"""Statistics of repeated runs: Student-t confidence intervals, with no scipy.

The Student-t quantile is computed here (regularised incomplete beta, inverted by
bisection) so that the analysis needs nothing beyond the standard library.
"""

import math

__all__ = ["t_cdf", "t_critical", "mean_ci", "mean_interval", "welch_ci", "ratio_ci", "DOMAINS"]


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


# The domain of a figure, declared once per metric (nvbench.metrics.Metric.domain):
#   "positive"  a rate, a time, a cost: > 0; intervals on the log scale
#   "share"     a share of the machine in %: in [0, 100]; intervals on the logit scale
#   "real"      anything else; the plain Student-t interval
DOMAINS = ("positive", "share", "real")


def _check_domain(domain):
    if domain not in DOMAINS:
        raise ValueError(f"domain must be one of {', '.join(DOMAINS)}, got {domain!r}")


def mean_interval(values, domain="positive", confidence=0.95):
    """The arithmetic mean of the repeats and a confidence interval of it that stays in
    the figure's ``domain`` (see DOMAINS).

    The interval is Student's t with n - 1 degrees of freedom on the scale of the
    domain (log for "positive", logit of the fraction for "share", the figure itself
    for "real"); the mean's standard error is carried to that scale by the delta
    method (s / (sqrt(n) m) on the log scale, s / (sqrt(n) p (1 - p)) on the logit
    one) and the bounds mapped back. It is centred on the arithmetic mean (on the
    transformed scale), so the figure shown and the interval beside it are about the
    same mean.

    Returns a dict: mean, low, high, n, method ("log", "logit", "t"), why: None, or
    why there is no interval (low/high NaN): "n<2", "mean at the domain's bound"
    (every run 0 %, a zero rate), "no finite spread".
    """
    _check_domain(domain)
    xs = clean_values(values)
    n = len(xs)
    method = {"positive": "log", "share": "logit", "real": "t"}[domain]
    out = {"mean": math.nan, "low": math.nan, "high": math.nan, "n": n, "method": method, "why": None}
    if n == 0:
        out["why"] = "no run"
        return out
    m, var = mean_var(xs)
    out["mean"] = m
    if n < 2:
        out["why"] = "n<2"
        return out
    if not (math.isfinite(m) and math.isfinite(var)):
        out["why"] = "no finite spread"
        return out
    t = t_critical(n - 1, confidence)
    se = math.sqrt(var / n)
    if domain == "real":
        out.update(low=m - t * se, high=m + t * se)
    elif domain == "positive":
        if m <= 0.0:
            out["why"] = "mean at the domain's bound"
            return out
        half = t * se / m
        out.update(low=m * math.exp(-half), high=m * math.exp(half))
    else:
        p = m / 100.0
        if p <= 0.0 or p >= 1.0:
            out["why"] = "mean at the domain's bound"
            return out
        half = t * (se / 100.0) / (p * (1.0 - p))
        logit = math.log(p / (1.0 - p))
        out.update(low=100.0 / (1.0 + math.exp(-(logit - half))), high=100.0 / (1.0 + math.exp(-(logit + half))))
    return out


def ratio_ci(baseline, other, domain="positive", confidence=0.95):
    """other against baseline: the ratio of their arithmetic means, with a confidence
    interval in its domain.

    For "positive" and "share" figures (both above 0) the ratio's interval is Welch's on
    the log scale: log(mean_b / mean_a) +- t(df) * sqrt(v_a + v_b), with v = s^2 / (n m^2)
    (the delta method) and df Welch-Satterthwaite's, mapped back (a ratio above 0, so a
    change never below -100 %). For "real" figures, Welch's interval of the difference of
    the means, relative to the baseline's mean.

    Returns a dict: ratio, low, high (ratios; NaN with why set), method ("log" or
    "linear"), df, mean_a, mean_b, n_a, n_b, why (None, "n<2", "mean at the domain's
    bound", "no finite spread").
    """
    _check_domain(domain)
    a, b = clean_values(baseline), clean_values(other)
    w = welch_ci(a, b, confidence)
    ma, mb, na, nb = w["mean_a"], w["mean_b"], w["n_a"], w["n_b"]
    out = {"ratio": math.nan, "low": math.nan, "high": math.nan,
           "method": "linear" if domain == "real" else "log", "df": math.nan,
           "mean_a": ma, "mean_b": mb, "n_a": na, "n_b": nb, "why": None}
    if not na or not nb:
        out["why"] = "no run"
        return out
    if domain == "real":
        if ma and math.isfinite(ma):
            out["ratio"] = mb / ma
        else:
            out["why"] = "mean at the domain's bound"
            return out
        if na < 2 or nb < 2:
            out["why"] = "n<2"
        elif math.isfinite(w["low"]) and math.isfinite(w["high"]):
            lo, hi = 1.0 + w["low"] / ma, 1.0 + w["high"] / ma
            out.update(low=min(lo, hi), high=max(lo, hi), df=w["df"])
        else:
            out["why"] = "no finite spread"
        return out
    if not (ma > 0.0 and mb > 0.0 and math.isfinite(ma) and math.isfinite(mb)):
        out["why"] = "mean at the domain's bound"
        return out
    r = mb / ma
    out["ratio"] = r
    if na < 2 or nb < 2:
        out["why"] = "n<2"
        return out
    va = mean_var(a)[1] / (na * ma * ma)
    vb = mean_var(b)[1] / (nb * mb * mb)
    se2 = va + vb
    if not math.isfinite(se2) or not math.isfinite(r) or r <= 0.0:
        out["why"] = "no finite spread"
        return out
    if se2 == 0.0:
        out.update(low=r, high=r, df=math.inf)
        return out
    df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    try:
        half = t_critical(df, confidence) * math.sqrt(se2)
    except ValueError:
        out["why"] = "no finite spread"
        return out
    out.update(low=r * math.exp(-half), high=r * math.exp(half), df=df)
    return out
