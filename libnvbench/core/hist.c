/*
 * Log-linear latency histogram: the parts that are not on the hot path.
 * Recording (nvb__hist_add) is inline in hist.h; everything here runs once
 * per report.
 */
#include "nvbench.h"
#include "core/hist.h"
#include "util/util.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>

void nvb__hist_init(struct nvb__hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

/* Bucket i >= NVB__HIST_SUB belongs to group g = i / SUB, which covers
 * [2^k, 2^(k+1)) with k = g + SUB_BITS - 1 (see nvb__hist_index). */
uint64_t nvb__hist_bucket_low(unsigned i)
{
    if (i >= NVB__HIST_BUCKETS)
        return 0;
    if (i < NVB__HIST_SUB)
        return i;
    unsigned k = i / NVB__HIST_SUB + NVB__HIST_SUB_BITS - 1;
    uint64_t sub = i % NVB__HIST_SUB;
    return (UINT64_C(1) << k) + (sub << (k - NVB__HIST_SUB_BITS));
}

/* The last bucket also absorbs everything at or above 2^NVB__HIST_MAX_BITS;
 * its nominal width is reported, and pct() relies on the max clamp there. */
uint64_t nvb__hist_bucket_width(unsigned i)
{
    if (i >= NVB__HIST_BUCKETS)
        return 0;
    if (i < NVB__HIST_SUB)
        return 1;
    unsigned k = i / NVB__HIST_SUB + NVB__HIST_SUB_BITS - 1;
    return UINT64_C(1) << (k - NVB__HIST_SUB_BITS);
}

int nvb__hist_merge(struct nvb__hist *a, const struct nvb__hist *b)
{
    if (b->count == 0)
        return 0;
    if (a->count > UINT64_MAX - b->count)
        return -EOVERFLOW;
    /* Every bucket count is at most its histogram's count: none can wrap
     * when the counts do not. The sums cannot either (hist.h). */
    for (unsigned i = 0; i < NVB__HIST_BUCKETS; i++)
        a->buckets[i] += b->buckets[i];
    if (a->sumsq_rounded || b->sumsq_rounded) {
        a->sumsq_dbl = nvb__hist_sumsq(a) + nvb__hist_sumsq(b);
        a->sumsq_rounded = 1;
    }
    NVB__HIST_SUMS_MERGE(a, b);
    return 0;
}

/* Rank (1-based) of the order statistic for pct, i.e. ceil(pct/100 * count).
 * Percentiles are usually decimal literals (99.9, 99.99) that doubles cannot
 * hold exactly, so pct/100*count can land a few ulps above an integer that
 * is the intended rank; ceil() would then step one sample too far. Shaving a
 * few ulps off absorbs that without moving any genuinely fractional rank. */
uint64_t nvb__hist_rank(uint64_t count, double pct)
{
    if (!(pct > 0.0)) /* also catches NaN */
        pct = 0.0;
    if (pct > 100.0)
        pct = 100.0;
    double x = pct * (double)count / 100.0;
    x -= x * (8.0 * DBL_EPSILON);
    double r = ceil(x);
    if (!(r >= 1.0))
        return 1;
    if (r >= (double)count)
        return count;
    return (uint64_t)r;
}

double nvb__hist_pct(const struct nvb__hist *h, double pct)
{
    if (h->count == 0)
        return 0.0;
    if (!(pct > 0.0)) /* also catches NaN */
        pct = 0.0;
    if (pct > 100.0)
        pct = 100.0;

    uint64_t rank = nvb__hist_rank(h->count, pct);
    /* The extreme order statistics are tracked exactly: no need to
     * approximate them with a bucket midpoint. */
    if (rank == 1)
        return (double)h->min;
    if (rank == h->count)
        return (double)h->max;

    uint64_t seen = 0;
    unsigned i;
    for (i = 0; i < NVB__HIST_BUCKETS - 1; i++) {
        seen += h->buckets[i];
        if (seen >= rank)
            break;
    }
    /* Integers in the bucket are low .. low+width-1; their midpoint is
     * within width/2 <= low/128 of any of them, and is the value itself
     * for width-1 buckets. */
    double v = (double)nvb__hist_bucket_low(i) +
               (double)(nvb__hist_bucket_width(i) - 1) / 2.0;
    if (v < (double)h->min)
        v = (double)h->min;
    if (v > (double)h->max)
        v = (double)h->max;
    return v;
}

int nvb__hist_pct_supported(uint64_t count, double pct)
{
    if (count < 2 * NVB__HIST_PCT_TAIL)
        return 0;
    if (!(pct > 0.0))
        pct = 0.0;
    if (pct > 100.0)
        pct = 100.0;
    uint64_t r = nvb__hist_rank(count, pct);
    return r >= NVB__HIST_PCT_TAIL && count - r >= NVB__HIST_PCT_TAIL;
}

_Static_assert(NVB__HIST_PCT_TAIL == NVB_PCT_TAIL, "the public tail is the histogram's");

/* The public face of the rank rule (include/nvbench.h): the bindings' tables
 * and merges ask these instead of keeping a copy of the arithmetic. */
uint64_t nvb_pct_rank(uint64_t count, double pct)
{
    return nvb__hist_rank(count, pct);
}

int nvb_pct_supported(uint64_t count, double pct)
{
    return nvb__hist_pct_supported(count, pct);
}

uint64_t nvb_pct_min_ios(double pct)
{
    double q = (pct < 100.0 - pct ? pct : 100.0 - pct) / 100.0;
    if (!(q > 0.0)) /* p0, p100, outside [0, 100], NaN: never supported */
        return 0;
    double t = floor(NVB__HIST_PCT_TAIL / q);
    if (!(t < 9e18)) /* no count of 64 bits has the tails */
        return 0;
    uint64_t n = (uint64_t)t > 2 * NVB__HIST_PCT_TAIL + 2 ? (uint64_t)t - 2 : 2 * NVB__HIST_PCT_TAIL;
    /* The estimate is within a few of the answer: step to the first
     * supported count, then back while the one below is supported too. */
    while (!nvb__hist_pct_supported(n, pct))
        n++;
    while (n > 2 * NVB__HIST_PCT_TAIL && nvb__hist_pct_supported(n - 1, pct))
        n--;
    return n;
}

double nvb__hist_mean(const struct nvb__hist *h)
{
    if (h->count == 0)
        return 0.0;
    return nvb__u128d(h->sum) / (double)h->count;
}

/* Unsigned integers of up to four 64-bit words (least significant first),
 * just what the variance and the checks of loaded sums need. */
#define W_MAX 4

static void w_set128(uint64_t *w, unsigned n, unsigned __int128 v)
{
    memset(w, 0, n * sizeof *w);
    w[0] = (uint64_t)v;
    if (n > 1)
        w[1] = (uint64_t)(v >> 64);
}

/* out = a * b, truncated to n words */
static void w_mul(uint64_t *out, unsigned n, const uint64_t *a, unsigned na, const uint64_t *b, unsigned nb)
{
    uint64_t r[2 * W_MAX] = {0};
    for (unsigned i = 0; i < na; i++) {
        uint64_t carry = 0;
        for (unsigned k = 0; k < nb && i + k < n; k++) {
            unsigned __int128 x = (unsigned __int128)a[i] * b[k] + r[i + k] + carry;
            r[i + k] = (uint64_t)x;
            carry = (uint64_t)(x >> 64);
        }
        if (i + nb < n)
            r[i + nb] = carry;
    }
    memcpy(out, r, n * sizeof *out);
}

/* a += b (or a -= b), modulo 2^(64 n) */
static void w_add(uint64_t *a, const uint64_t *b, unsigned n, int sub)
{
    unsigned carry = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t r;
        unsigned c1 = sub ? __builtin_sub_overflow(a[i], b[i], &r) : __builtin_add_overflow(a[i], b[i], &r);
        unsigned c2 = sub ? __builtin_sub_overflow(r, (uint64_t)carry, &r) : __builtin_add_overflow(r, (uint64_t)carry, &r);
        carry = c1 | c2;
        a[i] = r;
    }
}

static int w_cmp(const uint64_t *a, const uint64_t *b, unsigned n)
{
    for (unsigned i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static long double w_ld(const uint64_t *a, unsigned n)
{
    long double v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v * 18446744073709551616.0L + (long double)a[i];
    return v;
}

static void sumsq_words(const struct nvb__hist *h, uint64_t w[3])
{
    w[0] = (uint64_t)h->sumsq;
    w[1] = (uint64_t)(h->sumsq >> 64);
    w[2] = h->sumsq_hi;
}

double nvb__hist_sumsq(const struct nvb__hist *h)
{
    if (h->sumsq_rounded)
        return h->sumsq_dbl;
    uint64_t w[3];
    sumsq_words(h, w);
    return (double)w_ld(w, 3);
}

const char *nvb__hist_check_sums(const struct nvb__hist *h)
{
    if (!h->count)
        return h->sum || h->sumsq || h->sumsq_hi || (h->sumsq_rounded && h->sumsq_dbl)
               ? "count is 0, but the sums are not" : NULL;
    uint64_t rem = 0, q = (uint64_t)(h->sum >> 64) < h->count
                       ? nvb__div128((uint64_t)(h->sum >> 64), (uint64_t)h->sum, h->count, &rem) : UINT64_MAX;
    if ((uint64_t)(h->sum >> 64) >= h->count || q < h->min || q > h->max || (q == h->max && rem))
        return "sum / count is outside its latency's [min, max]";
    if (h->sumsq_rounded)
        return NULL;
    /* min sum <= sumsq <= max sum (each v^2 lies between min v and max v),
     * and count sumsq >= sum^2 (no negative variance) */
    uint64_t s1[2], s2[4] = {0}, t[4], u[4];
    w_set128(s1, 2, h->sum);
    sumsq_words(h, s2);
    w_mul(t, 3, s1, 2, &h->min, 1);
    w_mul(u, 3, s1, 2, &h->max, 1);
    if (w_cmp(s2, t, 3) < 0 || w_cmp(s2, u, 3) > 0)
        return "sumsq is outside [min * sum, max * sum] of its latency's min and max";
    w_mul(t, 4, s2, 3, &h->count, 1);
    w_mul(u, 4, s1, 2, s1, 2);
    if (w_cmp(t, u, 4) < 0)
        return "count * sumsq is below sum^2";
    return NULL;
}

/*
 * With n samples, S1 their sum and S2 the sum of their squares (exact
 * integers), q = floor(S1 / n) and r = S1 - q n:
 *   D  = sum (v - q)^2 = S2 - 2 q S1 + n q^2       an integer in [0, 2^192)
 *   M2 = sum (v - mean)^2 = D - r^2 / n
 * D is computed exactly (modulo 2^192, which it is below), r^2 / n splits
 * into its integer part c and the fraction e / n, so the one subtraction
 * that can cancel, D - c, is exact too; only the fraction e / n < 1 and the
 * final division and square root round.
 */
double nvb__hist_stddev(const struct nvb__hist *h)
{
    if (h->count == 0)
        return 0.0;
    const uint64_t n = h->count;
    long double m2;
    if (h->sumsq_rounded) {
        /* as exact as the rounded sum of squares allows */
        const uint64_t sw[2] = {(uint64_t)h->sum, (uint64_t)(h->sum >> 64)};
        long double s1 = w_ld(sw, 2);
        m2 = (long double)h->sumsq_dbl - s1 * s1 / (long double)n;
    } else {
        uint64_t r, e;
        const uint64_t q = nvb__div128((uint64_t)(h->sum >> 64), (uint64_t)h->sum, n, &r); /* the mean: <= max */
        uint64_t d[3], t[3], w[3];
        sumsq_words(h, d);
        w_set128(w, 2, (unsigned __int128)q * q);
        w_mul(t, 3, w, 2, &n, 1);
        w_add(d, t, 3, 0);                  /* + n q^2 */
        w_set128(w, 2, h->sum);
        w_mul(t, 3, w, 2, &q, 1);
        w_add(d, t, 3, 1);                  /* - 2 q S1 */
        w_add(d, t, 3, 1);
        const unsigned __int128 rr = (unsigned __int128)r * r;
        w_set128(w, 3, nvb__div128((uint64_t)(rr >> 64), (uint64_t)rr, n, &e)); /* r < n: fits */
        w_add(d, w, 3, 1);                  /* - floor(r^2 / n) */
        m2 = w_ld(d, 3) - (long double)e / (long double)n;
    }
    if (!(m2 > 0))
        return 0.0;
    return (double)sqrtl(m2 / (long double)n);
}
