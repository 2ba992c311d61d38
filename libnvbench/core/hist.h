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

/* A percentile is "supported" when at least this many samples lie on
 * either side of its rank (nvb__hist_pct_supported). */
#define NVB__HIST_PCT_TAIL 10

/*
 * The sums are exact integers, so that merging (threads, targets, hosts,
 * results re-read from JSON) adds them without rounding, and the variance
 * is computed from them without cancellation (nvb__hist_stddev). With
 * count < 2^64 and every value < 2^64, sum < 2^128 and the sum of squares
 * < 2^192: neither can wrap; only count is checked (nvb__hist_merge).
 */
struct nvb__hist {
    uint64_t count;
    uint64_t min;        /* UINT64_MAX when empty */
    uint64_t max;
    unsigned __int128 sum;
    unsigned __int128 sumsq;     /* the sum of squares: its low 128 bits */
    uint64_t sumsq_hi;           /* and bits 128..191 */
    /* A result written before the sums were exact held the sum of squares
     * as a double, rounded once it passed 2^53: such a histogram (loaded,
     * or merged with one) has sumsq_rounded set and the value in sumsq_dbl;
     * its stddev is then approximate. */
    int      sumsq_rounded;
    double   sumsq_dbl;
    uint64_t buckets[NVB__HIST_BUCKETS];
};

void nvb__hist_init(struct nvb__hist *h);
/* Without branches: s = 57 - clz(v | 127) is 0 below 128 (there the index
 * is v itself) and k - 6 for v in [2^k, 2^(k+1)), where (v >> s) is 64 plus
 * the sub-bucket; the index grows with v, so values at or above 2^MAX_BITS
 * are clamped to the last bucket by a min. */
static inline unsigned nvb__hist_index(uint64_t v)
{
    _Static_assert(NVB__HIST_SUB_BITS == 6, "the shift below is for 64 sub-buckets");
    const unsigned s = 57u - (unsigned)__builtin_clzll(v | 127);
    const uint64_t i = ((uint64_t)s << NVB__HIST_SUB_BITS) + (v >> s);
    return i < NVB__HIST_BUCKETS - 1 ? (unsigned)i : NVB__HIST_BUCKETS - 1;
}
/* The exact sums' adds with the carry instructions where there are
 * (the compiler's own 128-bit adds of values in memory go through vector
 * registers and the stack): *a += v, and the 192-bit (*hi, *a) += v. On
 * x86-64 a 128-bit integer's words are read and written in place. */
#if defined(__x86_64__) && defined(__GNUC__)
typedef unsigned long long __attribute__((may_alias)) nvb__u64_alias;
static inline __attribute__((always_inline)) void nvb__u128_add64(unsigned __int128 *a, uint64_t v)
{
    nvb__u64_alias *w = (nvb__u64_alias *)a;
    __builtin_ia32_addcarryx_u64(__builtin_ia32_addcarryx_u64(0, w[0], v, &w[0]), w[1], 0, &w[1]);
}
/* *p += v by its only writer while other threads read *p (relaxed loads):
 * one add to memory, an aligned 8-byte store readers see whole (the C
 * compiler splits a relaxed store of *p + v into a load, an add and a
 * store). */
static inline __attribute__((always_inline)) void nvb__u64_bump(uint64_t *p, uint64_t v)
{
    __asm__("addq %1, %0" : "+m"(*p) : "er"(v));
}
static inline __attribute__((always_inline)) void nvb__u192_add(unsigned __int128 *a, uint64_t *hi,
                                                               unsigned __int128 v)
{
    nvb__u64_alias *w = (nvb__u64_alias *)a;
    unsigned char c = __builtin_ia32_addcarryx_u64(0, w[0], (uint64_t)v, &w[0]);
    c = __builtin_ia32_addcarryx_u64(c, w[1], (uint64_t)(v >> 64), &w[1]);
    *hi += c;
}
#else
static inline void nvb__u64_bump(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, *p + v, __ATOMIC_RELAXED);
}
static inline void nvb__u128_add64(unsigned __int128 *a, uint64_t v)
{
    *a += v;
}
static inline void nvb__u192_add(unsigned __int128 *a, uint64_t *hi, unsigned __int128 v)
{
    const unsigned __int128 lo = *a + v;
    *hi += lo < v;
    *a = lo;
}
#endif
/* The fields besides the buckets that an add updates (count, min, max and
 * the exact sums), written once for the dense histogram here and the job's
 * grouped one (jhist.h), whose fields have the same names: n samples of v,
 * then one sample (one multiply for the square; add_n takes three). The
 * sampler reads min and max while a job runs: stored atomically (relaxed:
 * a plain store on the machines this builds for). */
#define NVB__HIST_SUMS_ADD_N(h, v, n)                                                                          \
    do {                                                                                                       \
        (h)->count += (n);                                                                                     \
        if ((v) < (h)->min)                                                                                    \
            __atomic_store_n(&(h)->min, (v), __ATOMIC_RELAXED);                                                \
        if ((v) > (h)->max)                                                                                    \
            __atomic_store_n(&(h)->max, (v), __ATOMIC_RELAXED);                                                \
        (h)->sum += (unsigned __int128)(v) * (n);                                                              \
        /* n v^2 in 192 bits: v^2's two words times n, then the add */                                        \
        const unsigned __int128 sq_ = (unsigned __int128)(v) * (v);                                            \
        const unsigned __int128 a_ = (unsigned __int128)(uint64_t)sq_ * (n),                                   \
                                b_ = (unsigned __int128)(uint64_t)(sq_ >> 64) * (n);                           \
        const unsigned __int128 mid_ = a_ + (b_ << 64), lo_ = (h)->sumsq + mid_;                               \
        (h)->sumsq_hi += (uint64_t)(b_ >> 64) + (mid_ < a_) + (lo_ < mid_);                                    \
        (h)->sumsq = lo_;                                                                                      \
    } while (0)
#define NVB__HIST_SUMS_ADD(h, v)                                                                               \
    do {                                                                                                       \
        (h)->count++;                                                                                          \
        if ((v) < (h)->min)                                                                                    \
            __atomic_store_n(&(h)->min, (v), __ATOMIC_RELAXED);                                                \
        if ((v) > (h)->max)                                                                                    \
            __atomic_store_n(&(h)->max, (v), __ATOMIC_RELAXED);                                                \
        nvb__u128_add64(&(h)->sum, (v));                                                                       \
        /* 192-bit add of v*v: three adds with carry, no branch */                                            \
        nvb__u192_add(&(h)->sumsq, &(h)->sumsq_hi, (unsigned __int128)(v) * (v));                              \
    } while (0)

/* a's count, exact sums, min and max += b's (a dense histogram; b dense or
 * a job's), once the caller checked the count cannot pass 2^64 - 1. */
#define NVB__HIST_SUMS_MERGE(a, b)                                                                             \
    do {                                                                                                       \
        (a)->count += (b)->count;                                                                              \
        (a)->sum += (b)->sum;                                                                                  \
        const unsigned __int128 lo_ = (a)->sumsq + (b)->sumsq;                                                 \
        (a)->sumsq_hi += (b)->sumsq_hi + (lo_ < (b)->sumsq);                                                   \
        (a)->sumsq = lo_;                                                                                      \
        if ((b)->min < (a)->min)                                                                               \
            (a)->min = (b)->min;                                                                               \
        if ((b)->max > (a)->max)                                                                               \
            (a)->max = (b)->max;                                                                               \
    } while (0)

/* n samples of one value: one bucket, one update of each sum. The job is
 * the only writer of its histograms (jhist.h); the buckets are stored
 * atomically there and here alike. */
static inline void nvb__hist_add_n(struct nvb__hist *h, uint64_t v, uint64_t n)
{
    uint64_t *b = &h->buckets[nvb__hist_index(v)];
    __atomic_store_n(b, *b + n, __ATOMIC_RELAXED);
    NVB__HIST_SUMS_ADD_N(h, v, n);
}
static inline void nvb__hist_add(struct nvb__hist *h, uint64_t v)
{
    uint64_t *b = &h->buckets[nvb__hist_index(v)];
    __atomic_store_n(b, *b + 1, __ATOMIC_RELAXED);
    NVB__HIST_SUMS_ADD(h, v);
}

/* Lower bound and width of bucket i. */
uint64_t nvb__hist_bucket_low(unsigned i);
uint64_t nvb__hist_bucket_width(unsigned i);
/* a += b, exact. 0, or -EOVERFLOW (a is then unchanged) when the count
 * would pass 2^64 - 1. */
int nvb__hist_merge(struct nvb__hist *a, const struct nvb__hist *b);
/* The rank (1-based, 1..count) of the order statistic for pct (0..100,
 * clamped): ceil(pct/100 * count), a few ulps forgiven. count > 0. */
uint64_t nvb__hist_rank(uint64_t count, double pct);
/* Percentile (0..100) in ns; 0 when empty; within [min, max]. */
double nvb__hist_pct(const struct nvb__hist *h, double pct);
/* 1 when the percentile rests on enough samples: with r its rank (the
 * r-th smallest of count), r >= NVB__HIST_PCT_TAIL and
 * count - r >= NVB__HIST_PCT_TAIL. */
int nvb__hist_pct_supported(uint64_t count, double pct);
double nvb__hist_mean(const struct nvb__hist *h);
/* Population standard deviation (over count, every sample of the window),
 * from the exact sums without cancellation. */
double nvb__hist_stddev(const struct nvb__hist *h);
/* The sum of squares as a double (exact or rounded). */
double nvb__hist_sumsq(const struct nvb__hist *h);
/* NULL when count, sum, sumsq, min and max can belong to one histogram
 * (what a loaded one must show), else what is wrong. */
const char *nvb__hist_check_sums(const struct nvb__hist *h);

#endif
