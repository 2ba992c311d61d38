/*
 * Log-linear latency histogram: the parts that are not on the hot path.
 * Recording (nvb__hist_add) is inline in hist.h; everything here runs once
 * per report.
 */
#include "core/hist.h"

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

void nvb__hist_merge(struct nvb__hist *a, const struct nvb__hist *b)
{
    if (b->count == 0)
        return;
    for (unsigned i = 0; i < NVB__HIST_BUCKETS; i++)
        a->buckets[i] += b->buckets[i];
    a->count += b->count;
    a->sum += b->sum;
    a->sumsq += b->sumsq;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
}

/* Rank (1-based) of the order statistic for pct, i.e. ceil(pct/100 * count).
 * Percentiles are usually decimal literals (99.9, 99.99) that doubles cannot
 * hold exactly, so pct/100*count can land a few ulps above an integer that
 * is the intended rank; ceil() would then step one sample too far. Shaving a
 * few ulps off absorbs that without moving any genuinely fractional rank. */
static uint64_t pct_rank(uint64_t count, double pct)
{
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

    uint64_t rank = pct_rank(h->count, pct);
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

double nvb__hist_mean(const struct nvb__hist *h)
{
    if (h->count == 0)
        return 0.0;
    return (double)h->sum / (double)h->count;
}

double nvb__hist_stddev(const struct nvb__hist *h)
{
    if (h->count == 0)
        return 0.0;
    double n = (double)h->count;
    double mean = (double)h->sum / n;
    /* E[x^2] - E[x]^2 cancels badly when the spread is tiny relative to the
     * mean; rounding can then make it slightly negative. */
    double var = h->sumsq / n - mean * mean;
    if (!(var > 0.0))
        return 0.0;
    return sqrt(var);
}
