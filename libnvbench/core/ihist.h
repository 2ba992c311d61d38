/*
 * Interval histograms (internal): the latencies of one time-series interval,
 * in the run's bucket scheme (hist.h) but sparse: only the buckets that hold
 * a sample, ascending. The sampler builds them by differencing the jobs'
 * cumulative histograms between ticks (nothing per I/O), results keep them
 * per point and direction, and merges add them bucket by bucket, so a merged
 * point's percentiles are those of all its samples.
 *
 * Exact min and max are not kept per interval: a percentile is the midpoint
 * of the bucket that holds its rank (within NVB__HIST_REL_ERROR of every
 * sample in it, exact below 2^NVB__HIST_SUB_BITS ns).
 */
#ifndef NVB_CORE_IHIST_H
#define NVB_CORE_IHIST_H

#include <stdint.h>

struct nvb__ibkt {
    uint32_t i;              /* bucket index, < NVB__HIST_BUCKETS */
    uint64_t c;              /* > 0 */
};

struct nvb__ihist {
    uint64_t count;          /* the sum of the c */
    unsigned n;
    struct nvb__ibkt b[];    /* ascending i */
};

/* An empty list with room for n buckets (count and n 0), or NULL. */
struct nvb__ihist *nvb__ihist_alloc(unsigned n);
/* The non-empty buckets of acc[lo..hi] (dense counts), which are zeroed.
 * NULL when none is (or when out of memory: *oom is then set). */
struct nvb__ihist *nvb__ihist_take(uint64_t *acc, unsigned lo, unsigned hi, int *oom);
/* *a + b, bucket by bucket, into a new list that replaces *a. 0, -ENOMEM
 * or -EOVERFLOW (*a is then unchanged). b may be NULL (nothing to add). */
int nvb__ihist_add(struct nvb__ihist **a, const struct nvb__ihist *b);
struct nvb__ihist *nvb__ihist_dup(const struct nvb__ihist *h);
/* Percentile (0..100) in ns: the midpoint of the bucket of its rank (the
 * rank as nvb__hist_pct takes it); NAN when h is NULL or empty. */
double nvb__ihist_pct(const struct nvb__ihist *h, double pct);

#endif
