/*
 * Log-linear latency histogram (internal).
 *
 * Values (nanoseconds) below 2^NVB__HIST_SUB_BITS are counted exactly. Above,
 * each power of two [2^k, 2^(k+1)) is split into 2^NVB__HIST_SUB_BITS equal
 * buckets, so a bucket is at most 1/64 of its lower bound wide. A percentile
 * reported as the bucket midpoint is within 1/128 (0.78%) of a value in that
 * bucket; it is then clamped to [min, max] so it never exceeds the observed
 * maximum. Values at or above 2^NVB__HIST_MAX_BITS go to the last bucket
 * (with max kept exact).
 *
 * Histograms merge exactly, bucket by bucket (threads, targets, hosts).
 */
#ifndef NVB_CORE_HIST_H
#define NVB_CORE_HIST_H

#include <stdint.h>
#include <stddef.h>

#define NVB__HIST_SUB_BITS 6
#define NVB__HIST_SUB (1u << NVB__HIST_SUB_BITS)
#define NVB__HIST_MAX_BITS 44 /* 2^44 ns ~ 4.9 hours */
#define NVB__HIST_BUCKETS ((NVB__HIST_MAX_BITS - NVB__HIST_SUB_BITS + 1) * NVB__HIST_SUB)
/* Stated bound on the relative error of a reported percentile. */
#define NVB__HIST_REL_ERROR (1.0 / (2.0 * NVB__HIST_SUB))

struct nvb__hist {
    uint64_t count;
    uint64_t min;        /* UINT64_MAX when empty */
    uint64_t max;
    uint64_t sum;        /* exact: overflows only after ~584 years of summed latency */
    double   sumsq;      /* for stddev */
    uint64_t buckets[NVB__HIST_BUCKETS];
};

void nvb__hist_init(struct nvb__hist *h);
static inline unsigned nvb__hist_index(uint64_t v)
{
    if (v < NVB__HIST_SUB)
        return (unsigned)v;
    unsigned k = 63u - (unsigned)__builtin_clzll(v); /* k >= SUB_BITS */
    if (k >= NVB__HIST_MAX_BITS)
        return NVB__HIST_BUCKETS - 1;
    unsigned sub = (unsigned)(v >> (k - NVB__HIST_SUB_BITS)) & (NVB__HIST_SUB - 1);
    return (k - NVB__HIST_SUB_BITS + 1) * NVB__HIST_SUB + sub;
}
static inline void nvb__hist_add(struct nvb__hist *h, uint64_t v)
{
    h->buckets[nvb__hist_index(v)]++;
    h->count++;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    h->sum += v;
    double d = (double)v;
    h->sumsq += d * d;
}
/* n samples of one value (a submission batch's slat): one bucket, one
 * update of each sum. */
static inline void nvb__hist_add_n(struct nvb__hist *h, uint64_t v, uint64_t n)
{
    h->buckets[nvb__hist_index(v)] += n;
    h->count += n;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    h->sum += v * n;
    double d = (double)v;
    h->sumsq += d * d * (double)n;
}
/* Lower bound and width of bucket i. */
uint64_t nvb__hist_bucket_low(unsigned i);
uint64_t nvb__hist_bucket_width(unsigned i);
/* a += b, exact. */
void nvb__hist_merge(struct nvb__hist *a, const struct nvb__hist *b);
/* Percentile (0..100) in ns; 0 when empty; within [min, max]. */
double nvb__hist_pct(const struct nvb__hist *h, double pct);
double nvb__hist_mean(const struct nvb__hist *h);
double nvb__hist_stddev(const struct nvb__hist *h);

#endif
