/*
 * Statistics of repeated runs: the Student-t quantile, the mean's interval
 * in a figure's domain, the ratio and the difference of two means (Welch).
 * The one implementation behind every front door: the Python and Lua
 * bindings call these, so a table, a comparison, a report and a notebook
 * print the same digits (docs/analysis.md says which mean and which
 * interval each figure uses).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    double c = 1.0, d = 1.0 - qab * x / qap;
    d = fabs(d) < tiny ? tiny : d;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m < 400; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) < 1e-15)
            break;
    }
    return h;
}

/* Regularised incomplete beta I_x(a, b). */
static double betainc(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double lbeta = lgamma(a + b) - lgamma(a) - lgamma(b);
    double front = exp(lbeta + a * log(x) + b * log1p(-x));
    /* The fraction converges fast only for x < (a+1)/(a+b+2): the symmetry otherwise. */
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * betacf(a, b, x) / a;
    return 1.0 - front * betacf(b, a, 1.0 - x) / b;
}

static double t_cdf(double t, double df)
{
    if (isinf(df))
        return 0.5 * erfc(-t / sqrt(2.0));
    double tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t));
    return t >= 0 ? 1.0 - tail : tail;
}

NVB_API int nvb_stats_t_cdf(double t, double df, double *p)
{
    if (!p || isnan(t) || !(df > 0.0))
        return -EINVAL;
    *p = t_cdf(t, df);
    return 0;
}

NVB_API int nvb_stats_t_critical(double df, double confidence, double *t)
{
    if (!t || !(df > 0.0) || !(confidence > 0.0 && confidence < 1.0))
        return -EINVAL;
    double target = 1.0 - (1.0 - confidence) / 2.0;
    double lo = 0.0, hi = 1.0;
    while (t_cdf(hi, df) < target) {
        hi *= 2.0;
        if (hi > 1e12)
            return -ERANGE;
    }
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (t_cdf(mid, df) < target)
            lo = mid;
        else
            hi = mid;
        if (hi - lo < 1e-12 * (hi > 1.0 ? hi : 1.0))
            break;
    }
    *t = 0.5 * (lo + hi);
    return 0;
}

/* Mean and sample variance of the finite values, summed in order (the
 * order a caller's own sum would take: the same digits). */
struct moments {
    size_t n;
    double mean, var;
};

static struct moments moments(const double *x, size_t n)
{
    struct moments m = { 0, NAN, NAN };
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) {
            sum += x[i];
            m.n++;
        }
    if (!m.n)
        return m;
    m.mean = sum / (double)m.n;
    if (m.n < 2)
        return m;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            ss += (x[i] - m.mean) * (x[i] - m.mean); /* not pow(): inf, never an error */
    m.var = ss / (double)(m.n - 1);
    return m;
}

static int check(const double *x, size_t n, double confidence, struct nvb_estimate *out)
{
    if (!out || (!x && n) || !(confidence > 0.0 && confidence < 1.0))
        return -EINVAL;
    return 0;
}

static void empty(struct nvb_estimate *out, int method)
{
    *out = (struct nvb_estimate){ NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0, 0, NVB_CI_OK, method };
}

NVB_API int nvb_stats_mean_interval(const double *values, size_t n, int domain, double confidence,
                                    struct nvb_estimate *out)
{
    int rc = check(values, n, confidence, out);
    if (rc)
        return rc;
    if (domain != NVB_DOMAIN_POSITIVE && domain != NVB_DOMAIN_SHARE && domain != NVB_DOMAIN_REAL)
        return -EINVAL;
    empty(out, domain == NVB_DOMAIN_POSITIVE ? NVB_CI_LOG : domain == NVB_DOMAIN_SHARE ? NVB_CI_LOGIT : NVB_CI_T);
    struct moments m = moments(values, n);
    out->n_a = m.n;
    out->value = out->mean_a = m.mean;
    out->sd = sqrt(m.var);
    if (!m.n) {
        out->why = NVB_CI_NO_RUN;
        return 0;
    }
    if (m.n < 2) {
        out->why = NVB_CI_FEW;
        return 0;
    }
    if (!isfinite(m.mean) || !isfinite(m.var)) {
        out->why = NVB_CI_SPREAD;
        return 0;
    }
    double t;
    if (nvb_stats_t_critical((double)(m.n - 1), confidence, &t) < 0) {
        out->why = NVB_CI_SPREAD;
        return 0;
    }
    double se = sqrt(m.var / (double)m.n);
    out->df = (double)(m.n - 1);
    if (domain == NVB_DOMAIN_REAL) {
        out->low = m.mean - t * se;
        out->high = m.mean + t * se;
    } else if (domain == NVB_DOMAIN_POSITIVE) {
        if (m.mean <= 0.0) {
            out->why = NVB_CI_BOUND;
            out->df = NAN;
            return 0;
        }
        double half = t * se / m.mean;
        out->low = m.mean * exp(-half);
        out->high = m.mean * exp(half);
    } else {
        double p = m.mean / 100.0;
        if (p <= 0.0 || p >= 1.0) {
            out->why = NVB_CI_BOUND;
            out->df = NAN;
            return 0;
        }
        double half = t * (se / 100.0) / (p * (1.0 - p));
        double logit = log(p / (1.0 - p));
        out->low = 100.0 / (1.0 + exp(-(logit - half)));
        out->high = 100.0 / (1.0 + exp(-(logit + half)));
    }
    return 0;
}

/* Welch's half width for two means whose squared standard errors are va
 * and vb (na, nb >= 2 runs), around value: 1 with *half set, or 0 with the
 * interval settled in out (collapsed to value when both spreads are zero;
 * NVB_CI_SPREAD when the figures are too far out of range for a quantile). */
static int welch_half(double va, double vb, size_t na, size_t nb, double value, double confidence,
                      struct nvb_estimate *out, double *half)
{
    double se2 = va + vb, t;
    if (!isfinite(se2) || !isfinite(value)) {
        out->why = NVB_CI_SPREAD;
        return 0;
    }
    if (se2 == 0.0) {
        out->low = out->high = value;
        out->df = INFINITY;
        return 0;
    }
    double df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    if (nvb_stats_t_critical(df, confidence, &t) < 0) {
        out->why = NVB_CI_SPREAD;
        return 0;
    }
    *half = t * sqrt(se2);
    out->df = df;
    return 1;
}

/* Both samples' moments into *ma, *mb and out (an empty estimate of
 * method): 1, or 0 when a side has no run (NVB_CI_NO_RUN). */
static int two_samples(const double *a, size_t na, const double *b, size_t nb, int method, struct nvb_estimate *out,
                       struct moments *ma, struct moments *mb)
{
    empty(out, method);
    *ma = moments(a, na);
    *mb = moments(b, nb);
    out->mean_a = ma->mean;
    out->mean_b = mb->mean;
    out->n_a = ma->n;
    out->n_b = mb->n;
    if (!ma->n || !mb->n) {
        out->why = NVB_CI_NO_RUN;
        return 0;
    }
    return 1;
}

NVB_API int nvb_stats_difference(const double *a, size_t na, const double *b, size_t nb, double confidence,
                                 struct nvb_estimate *out)
{
    int rc = check(a, na, confidence, out);
    if (rc || (rc = check(b, nb, confidence, out)))
        return rc;
    struct moments ma, mb;
    if (!two_samples(a, na, b, nb, NVB_CI_T, out, &ma, &mb))
        return 0;
    out->value = mb.mean - ma.mean;
    if (ma.n < 2 || mb.n < 2) {
        out->why = NVB_CI_FEW;
        return 0;
    }
    double half;
    if (welch_half(ma.var / (double)ma.n, mb.var / (double)mb.n, ma.n, mb.n, out->value, confidence, out, &half)) {
        out->low = out->value - half;
        out->high = out->value + half;
    }
    return 0;
}

NVB_API int nvb_stats_ratio(const double *a, size_t na, const double *b, size_t nb, int domain, double confidence,
                            struct nvb_estimate *out)
{
    int rc = check(a, na, confidence, out);
    if (rc || (rc = check(b, nb, confidence, out)))
        return rc;
    if (domain != NVB_DOMAIN_POSITIVE && domain != NVB_DOMAIN_SHARE && domain != NVB_DOMAIN_REAL)
        return -EINVAL;
    if (domain == NVB_DOMAIN_REAL) {
        struct nvb_estimate d;
        nvb_stats_difference(a, na, b, nb, confidence, &d);
        *out = d;
        out->method = NVB_CI_T;
        out->value = out->low = out->high = NAN;
        if (d.why == NVB_CI_NO_RUN)
            return 0;
        if (!(d.mean_a != 0.0 && isfinite(d.mean_a))) {
            out->why = NVB_CI_BOUND;
            return 0;
        }
        out->value = d.mean_b / d.mean_a;
        if (d.why == NVB_CI_OK) {
            double lo = 1.0 + d.low / d.mean_a, hi = 1.0 + d.high / d.mean_a;
            out->low = lo < hi ? lo : hi;
            out->high = lo < hi ? hi : lo;
        }
        return 0;
    }
    struct moments ma, mb;
    if (!two_samples(a, na, b, nb, NVB_CI_LOG, out, &ma, &mb))
        return 0;
    if (!(ma.mean > 0.0 && mb.mean > 0.0 && isfinite(ma.mean) && isfinite(mb.mean))) {
        out->why = NVB_CI_BOUND;
        return 0;
    }
    double r = mb.mean / ma.mean;
    out->value = r;
    if (ma.n < 2 || mb.n < 2) {
        out->why = NVB_CI_FEW;
        return 0;
    }
    double va = ma.var / ((double)ma.n * ma.mean * ma.mean);
    double vb = mb.var / ((double)mb.n * mb.mean * mb.mean);
    double half;
    if (r > 0.0 && welch_half(va, vb, ma.n, mb.n, r, confidence, out, &half)) {
        out->low = r * exp(-half);
        out->high = r * exp(half);
    } else if (!(r > 0.0)) {
        out->why = NVB_CI_SPREAD;
    }
    return 0;
}

NVB_API const char *nvb_stats_why(int why)
{
    switch (why) {
    case NVB_CI_OK: return "";
    case NVB_CI_NO_RUN: return "no run";
    case NVB_CI_FEW: return "n<2";
    case NVB_CI_BOUND: return "mean at the domain's bound";
    case NVB_CI_SPREAD: return "no finite spread";
    default: return "unknown";
    }
}
