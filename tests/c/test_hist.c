/*
 * Histogram tests: bucket geometry, the stated percentile error bound against
 * exact order statistics, clamping, monotonicity, exact mean and merge, the
 * exact sums (beyond 64 bits) and the stddev computed from them without
 * cancellation, the rule that says whether a percentile is supported.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/jhist.h"
#include "testutil.h"
#include "util/util.h"

#define NSAMPLES 200000

/* splitmix64: deterministic, so a failure reproduces. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* Uniform in (0, 1). */
static double rng_unit(void)
{
    return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}
static double rng_normal(void)
{
    return sqrt(-2.0 * log(rng_unit())) * cos(2.0 * M_PI * rng_unit());
}

static struct nvb__hist *hist_new(void)
{
    struct nvb__hist *h = malloc(sizeof(*h));
    ck_assert_ptr_nonnull(h);
    nvb__hist_init(h);
    return h;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t clamp_ns(double v)
{
    if (!(v >= 0.0))
        return 0;
    if (v >= 1e12)
        return UINT64_C(1000000000000);
    return (uint64_t)llround(v);
}

enum dist { D_UNIFORM, D_EXP, D_LOGNORMAL, D_BIMODAL, D_CONST, D_LOGUNIFORM, D_SMALL, D_NDIST };
static const char *const dist_name[D_NDIST] = {
    "uniform", "exponential", "lognormal", "bimodal", "constant", "log-uniform 1ns..1e12ns", "small ints",
};

static uint64_t draw(enum dist d)
{
    switch (d) {
    case D_UNIFORM:
        return 1000 + rng_next() % 1000000;
    case D_EXP:
        return clamp_ns(-log(rng_unit()) * 80000.0);
    case D_LOGNORMAL:
        return clamp_ns(exp(log(50000.0) + 1.2 * rng_normal()));
    case D_BIMODAL: /* cache hits and media reads */
        if (rng_next() % 10 < 7)
            return clamp_ns(8000.0 + 500.0 * rng_normal());
        return clamp_ns(2500000.0 + 300000.0 * rng_normal());
    case D_CONST:
        return 123457;
    case D_LOGUNIFORM:
        return clamp_ns(exp(rng_unit() * log(1e12)));
    case D_SMALL:
        return rng_next() % 300;
    default:
        return 0;
    }
}

/* Percentiles in basis points, so the exact rank ceil(bp * n / 10000) is
 * computed in integers, independently of the library's floating point. */
static int bp_list(int *bp)
{
    int n = 0;
    for (int b = 1; b <= 10000; b += (b < 100 || b > 9900) ? 1 : 37)
        bp[n++] = b;
    static const int extra[] = { 0, 2500, 5000, 7500, 9000, 9500, 9900, 9990, 9999 };
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
        bp[n++] = extra[i];
    return n;
}

static uint64_t exact_stat(const uint64_t *sorted, uint64_t n, int bp)
{
    uint64_t rank = ((uint64_t)bp * n + 9999) / 10000;
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

/* The bucket index as first written (a branch per range): the branch-free
 * one must agree with it everywhere. */
static unsigned index_ref(uint64_t v)
{
    if (v < NVB__HIST_SUB)
        return (unsigned)v;
    unsigned k = 63u - (unsigned)__builtin_clzll(v);
    if (k >= NVB__HIST_MAX_BITS)
        return NVB__HIST_BUCKETS - 1;
    unsigned sub = (unsigned)(v >> (k - NVB__HIST_SUB_BITS)) & (NVB__HIST_SUB - 1);
    return (k - NVB__HIST_SUB_BITS + 1) * NVB__HIST_SUB + sub;
}

START_TEST(index_without_branches)
{
    for (uint64_t v = 0; v < 100000; v++)
        ck_assert_uint_eq(nvb__hist_index(v), index_ref(v));
    for (unsigned k = 0; k < 64; k++)
        for (int dv = -2; dv <= 2; dv++) {
            uint64_t v = (UINT64_C(1) << k) + (uint64_t)(int64_t)dv;
            ck_assert_uint_eq(nvb__hist_index(v), index_ref(v));
        }
    ck_assert_uint_eq(nvb__hist_index(UINT64_MAX), NVB__HIST_BUCKETS - 1);
    rng_state = 11;
    for (int i = 0; i < 1000000; i++) {
        uint64_t v = rng_next() >> (rng_next() % 64);
        ck_assert_uint_eq(nvb__hist_index(v), index_ref(v));
    }
}
END_TEST

static void hist_same(const struct nvb__hist *a, const struct nvb__hist *b)
{
    ck_assert_uint_eq(a->count, b->count);
    ck_assert_uint_eq(a->min, b->min);
    ck_assert_uint_eq(a->max, b->max);
    ck_assert_msg(a->sum == b->sum && a->sumsq == b->sumsq && a->sumsq_hi == b->sumsq_hi, "sums differ");
    ck_assert_int_eq(memcmp(a->buckets, b->buckets, sizeof a->buckets), 0);
    ck_assert_int_eq(memcmp(a, b, sizeof *a), 0); /* and every other byte, both from nvb__hist_init */
}

/* A job's histogram (jhist.h) merged into a dense one, as the run's end
 * does: *into (a dense histogram) += h. */
static void jhist_into(struct nvb__hist *into, const struct nvb__jhist *h)
{
    ck_assert_int_eq(nvb__jhist_merge(&into, h), 0);
}

/* Runs of equal values (what a reaped batch gives) added once each to a
 * job's grouped histograms equal the values added one by one to dense
 * ones, byte for byte once merged: buckets, count, min, max and the exact
 * sums, also beyond 64 and 128 bits, with the runs going to two histograms
 * of one arena in turn as two directions' completions do. */
START_TEST(coalesced_runs_are_per_io_adds)
{
    rng_state = 2026;
    for (int round = 0; round < 40; round++) {
        struct nvb__hist *one[2] = {hist_new(), hist_new()}, *run[2] = {hist_new(), hist_new()};
        struct nvb__jarena ar;
        ck_assert_int_eq(nvb__jarena_init(&ar, nvb__jarena_groups(2)), 0);
        struct nvb__jhist *jh = calloc(2, sizeof *jh);
        ck_assert_ptr_nonnull(jh);
        nvb__jhist_init(&jh[0], &ar);
        nvb__jhist_init(&jh[1], &ar);
        struct nvb__hrun r = {0};
        for (int k = 0; k < 3000; k++) {
            const int h = (int)(rng_next() % 4 == 0);
            const unsigned len = 1 + (unsigned)(rng_next() % (rng_next() % 4 ? 4 : 64));
            const int huge = round % 8 == 7;
            const uint64_t v = huge ? UINT64_MAX - rng_next() % 1000 : rng_next() >> (rng_next() % 64);
            /* sometimes the next run repeats the value: they join */
            for (unsigned i = 0; i < len; i++) {
                nvb__hist_add(one[h], v);
                nvb__hrun_add(&r, &jh[h], v);
            }
        }
        nvb__hrun_flush(&r);
        nvb__hrun_flush(&r); /* twice: the second adds nothing */
        for (int h = 0; h < 2; h++) {
            jhist_into(run[h], &jh[h]);
            hist_same(run[h], one[h]);
            free(one[h]);
            free(run[h]);
        }
        free(jh);
        nvb__jarena_free(&ar);
    }
}
END_TEST

/* A job's histogram takes from its arena only the groups its values fall
 * in, side by side, and nothing reads the rest: the arena's other bytes
 * (stamped here) never reach the merged histogram. The ramp's reset keeps
 * the groups and zeroes their buckets only. */
START_TEST(job_hist_takes_only_the_groups_written)
{
    struct nvb__jarena ar;
    ck_assert_int_eq(nvb__jarena_init(&ar, nvb__jarena_groups(1)), 0);
    ck_assert_uint_eq(ar.cap, NVB__JH_NGRP);
    struct nvb__jhist *jh = calloc(1, sizeof *jh);
    ck_assert_ptr_nonnull(jh);
    nvb__jhist_init(jh, &ar);
    struct nvb__hist *dense = hist_new(), *merged = hist_new();
    const uint64_t vals[] = {40, 41, 45, 60, 9919, 67071, 1449983, 790165682, 45, 41};
    unsigned seen[NVB__JH_NGRP] = {0}, groups = 0;
    for (unsigned k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        nvb__jhist_add(jh, vals[k]);
        nvb__hist_add(dense, vals[k]);
        const unsigned g = nvb__hist_index(vals[k]) / NVB__JH_G;
        groups += !seen[g]++;
    }
    ck_assert_uint_eq(ar.used, groups); /* 40..60: two groups; each tail value its own */
    ck_assert_uint_eq(groups, 6);
    for (size_t i = (size_t)ar.used * NVB__JH_G; i < (size_t)ar.cap * NVB__JH_G; i++)
        ar.base[i] = 0x5a5a; /* stands for "never written" */
    jhist_into(merged, jh);
    hist_same(merged, dense);
    nvb__jhist_reset_live(jh);
    ck_assert_uint_eq(jh->count, 0);
    ck_assert_uint_eq(jh->min, UINT64_MAX);
    ck_assert_uint_eq(jh->max, 0);
    ck_assert_msg(jh->sum == 0 && jh->sumsq == 0 && jh->sumsq_hi == 0, "sums not reset");
    ck_assert_uint_eq(ar.used, groups);
    for (size_t i = 0; i < (size_t)ar.cap * NVB__JH_G; i++)
        ck_assert_uint_eq(ar.base[i], i < (size_t)ar.used * NVB__JH_G ? 0 : 0x5a5a);
    free(dense);
    free(merged);
    free(jh);
    nvb__jarena_free(&ar);
}
END_TEST

START_TEST(bucket_geometry)
{
    /* Buckets tile [0, 2^MAX_BITS) without gaps or overlap. */
    for (unsigned i = 0; i + 1 < NVB__HIST_BUCKETS; i++) {
        uint64_t lo = nvb__hist_bucket_low(i), w = nvb__hist_bucket_width(i);
        ck_assert_uint_ge(w, 1);
        ck_assert_uint_eq(lo + w, nvb__hist_bucket_low(i + 1));
        ck_assert_uint_eq(nvb__hist_index(lo), i);
        ck_assert_uint_eq(nvb__hist_index(lo + w - 1), i);
        if (i >= NVB__HIST_SUB)
            ck_assert_msg((double)w <= 2.0 * NVB__HIST_REL_ERROR * (double)lo,
                          "bucket %u too wide: low %llu width %llu", i,
                          (unsigned long long)lo, (unsigned long long)w);
    }
    unsigned last = NVB__HIST_BUCKETS - 1;
    ck_assert_uint_eq(nvb__hist_bucket_low(last) + nvb__hist_bucket_width(last),
                      UINT64_C(1) << NVB__HIST_MAX_BITS);
    ck_assert_uint_eq(nvb__hist_bucket_low(0), 0);
    ck_assert_uint_eq(nvb__hist_bucket_width(0), 1);
}
END_TEST

static void check_value(uint64_t v)
{
    unsigned i = nvb__hist_index(v);
    ck_assert_uint_lt(i, NVB__HIST_BUCKETS);
    uint64_t lo = nvb__hist_bucket_low(i), w = nvb__hist_bucket_width(i);
    ck_assert_msg(v >= lo, "v=%llu below low %llu of bucket %u",
                  (unsigned long long)v, (unsigned long long)lo, i);
    if (v < (UINT64_C(1) << NVB__HIST_MAX_BITS))
        ck_assert_msg(v - lo < w, "v=%llu beyond bucket %u [%llu,+%llu)",
                      (unsigned long long)v, i, (unsigned long long)lo,
                      (unsigned long long)w);
    else
        ck_assert_uint_eq(i, NVB__HIST_BUCKETS - 1);
}

START_TEST(bucket_values)
{
    unsigned prev = 0;
    for (uint64_t v = 0; v < (1u << 18); v++) {
        check_value(v);
        unsigned i = nvb__hist_index(v);
        ck_assert_uint_ge(i, prev);
        prev = i;
    }
    for (unsigned k = 1; k < 64; k++) {
        uint64_t p = UINT64_C(1) << k;
        check_value(p - 1);
        check_value(p);
        check_value(p + 1);
        ck_assert_uint_le(nvb__hist_index(p - 1), nvb__hist_index(p));
    }
    check_value(UINT64_MAX);

    /* Random values at every magnitude, then checked in sorted order for
     * monotonic indices. */
    rng_state = 42;
    enum { N = 1 << 18 };
    uint64_t *v = malloc(N * sizeof(*v));
    ck_assert_ptr_nonnull(v);
    for (unsigned j = 0; j < N; j++) {
        unsigned bits = 1 + (unsigned)(rng_next() % 50);
        v[j] = rng_next() >> (64 - bits);
        check_value(v[j]);
    }
    qsort(v, N, sizeof(*v), cmp_u64);
    for (unsigned j = 1; j < N; j++)
        ck_assert_uint_le(nvb__hist_index(v[j - 1]), nvb__hist_index(v[j]));
    free(v);
}
END_TEST

START_TEST(error_bound)
{
    enum dist d = (enum dist)_i;
    rng_state = 1000 + (uint64_t)_i;
    uint64_t *v = malloc(NSAMPLES * sizeof(*v));
    ck_assert_ptr_nonnull(v);
    struct nvb__hist *h = hist_new();
    uint64_t sum = 0;
    for (unsigned j = 0; j < NSAMPLES; j++) {
        v[j] = draw(d);
        sum += v[j];
        nvb__hist_add(h, v[j]);
    }
    qsort(v, NSAMPLES, sizeof(*v), cmp_u64);
    ck_assert_uint_eq(h->count, NSAMPLES);
    ck_assert_uint_eq(h->min, v[0]);
    ck_assert_uint_eq(h->max, v[NSAMPLES - 1]);
    ck_assert(h->sum == sum);
    ck_assert_double_eq(nvb__hist_mean(h), (double)sum / NSAMPLES);

    int bp[1024];
    int nbp = bp_list(bp);
    double worst = 0.0;
    for (int j = 0; j < nbp; j++) {
        double got = nvb__hist_pct(h, bp[j] / 100.0);
        uint64_t want = exact_stat(v, NSAMPLES, bp[j]);
        double err = fabs(got - (double)want);
        double bound = NVB__HIST_REL_ERROR * (double)want * (1.0 + 1e-12) + 1e-9;
        ck_assert_msg(err <= bound, "%s p%.2f: got %.3f want %llu (err %.3g > %.3g)",
                      dist_name[d], bp[j] / 100.0, got, (unsigned long long)want, err, bound);
        ck_assert_msg(got >= (double)h->min && got <= (double)h->max,
                      "%s p%.2f = %.3f outside [%llu, %llu]", dist_name[d], bp[j] / 100.0,
                      got, (unsigned long long)h->min, (unsigned long long)h->max);
        if (want > 0 && err / (double)want > worst)
            worst = err / (double)want;
    }
    ck_assert_double_eq(nvb__hist_pct(h, 100.0), (double)v[NSAMPLES - 1]);
    ck_assert_double_eq(nvb__hist_pct(h, 0.0), (double)v[0]);
    if (d == D_CONST)
        ck_assert_double_eq(nvb__hist_pct(h, 50.0), 123457.0);

    /* Monotone in pct, over a fine sweep including non-decimal values. */
    double prev = -1.0;
    for (double p = 0.0; p <= 100.0; p += 0.0137) {
        double got = nvb__hist_pct(h, p);
        ck_assert_msg(got >= prev, "%s: p%.4f=%.3f < previous %.3f", dist_name[d], p, got, prev);
        prev = got;
    }
    ck_assert_double_ge(nvb__hist_pct(h, 100.0), prev);

    /* Population stddev against a two-pass computation. */
    double mean = (double)sum / NSAMPLES, acc = 0.0;
    for (unsigned j = 0; j < NSAMPLES; j++)
        acc += ((double)v[j] - mean) * ((double)v[j] - mean);
    double sd = sqrt(acc / NSAMPLES);
    double got_sd = nvb__hist_stddev(h);
    ck_assert_msg(fabs(got_sd - sd) <= 1e-6 * sd + 1e-6 * mean,
                  "%s stddev %.6g want %.6g", dist_name[d], got_sd, sd);
    ck_assert(!isnan(got_sd));

    printf("hist %-24s worst relative error %.5f (bound %.5f)\n", dist_name[d], worst,
           NVB__HIST_REL_ERROR);
    free(h);
    free(v);
}
END_TEST

START_TEST(out_of_range_pct)
{
    struct nvb__hist *h = hist_new();
    for (uint64_t x = 1; x <= 1000; x++)
        nvb__hist_add(h, x * 1000);
    ck_assert_double_eq(nvb__hist_pct(h, -5.0), 1000.0);
    ck_assert_double_eq(nvb__hist_pct(h, NAN), 1000.0);
    ck_assert_double_eq(nvb__hist_pct(h, 250.0), 1000000.0);
    /* Decimal percentiles that doubles cannot represent pick the intended
     * rank: p99.9 of 1000 samples is the 999th. */
    double p999 = nvb__hist_pct(h, 99.9);
    ck_assert_double_le(fabs(p999 - 999000.0), 999000.0 * NVB__HIST_REL_ERROR);
    ck_assert_double_lt(p999, 999500.0);
    free(h);
}
END_TEST

START_TEST(huge_values)
{
    /* Beyond 2^MAX_BITS the last bucket is coarse, but max stays exact and
     * percentiles never exceed it. */
    struct nvb__hist *h = hist_new();
    uint64_t big = (UINT64_C(1) << NVB__HIST_MAX_BITS) * 3 + 7;
    nvb__hist_add(h, 10);
    nvb__hist_add(h, big);
    nvb__hist_add(h, big - 1);
    ck_assert_uint_eq(h->buckets[NVB__HIST_BUCKETS - 1], 2);
    ck_assert_uint_eq(h->max, big);
    ck_assert_double_eq(nvb__hist_pct(h, 100.0), (double)big);
    ck_assert_double_le(nvb__hist_pct(h, 50.0), (double)big);
    ck_assert_double_ge(nvb__hist_pct(h, 50.0), 10.0);
    free(h);
}
END_TEST

START_TEST(merge_exact)
{
    int parts = _i;
    rng_state = 7 + (uint64_t)parts;
    struct nvb__hist *all = hist_new();
    struct nvb__hist *part[8];
    for (int p = 0; p < parts; p++)
        part[p] = hist_new();
    for (unsigned j = 0; j < NSAMPLES; j++) {
        /* Parts see different distributions, as threads on different
         * targets would. */
        int p = (int)(rng_next() % (uint64_t)parts);
        uint64_t x = draw((enum dist)(p % D_NDIST));
        nvb__hist_add(all, x);
        nvb__hist_add(part[p], x);
    }
    struct nvb__hist *m = hist_new();
    for (int p = 0; p < parts; p++)
        nvb__hist_merge(m, part[p]);

    ck_assert_uint_eq(m->count, all->count);
    ck_assert_uint_eq(m->min, all->min);
    ck_assert_uint_eq(m->max, all->max);
    ck_assert(m->sum == all->sum);
    ck_assert(m->sumsq == all->sumsq && m->sumsq_hi == all->sumsq_hi);
    /* the sums are exact, so the merged stddev is the one of all samples */
    ck_assert_double_eq(nvb__hist_stddev(m), nvb__hist_stddev(all));
    for (unsigned i = 0; i < NVB__HIST_BUCKETS; i++)
        ck_assert_msg(m->buckets[i] == all->buckets[i], "bucket %u: %llu != %llu", i,
                      (unsigned long long)m->buckets[i], (unsigned long long)all->buckets[i]);
    int bp[1024];
    int nbp = bp_list(bp);
    for (int j = 0; j < nbp; j++)
        ck_assert_double_eq(nvb__hist_pct(m, bp[j] / 100.0), nvb__hist_pct(all, bp[j] / 100.0));
    ck_assert_double_eq(nvb__hist_mean(m), nvb__hist_mean(all));

    /* Merging an empty histogram changes nothing, min included. */
    struct nvb__hist *e = hist_new();
    nvb__hist_merge(m, e);
    ck_assert_uint_eq(m->min, all->min);
    ck_assert_uint_eq(m->count, all->count);
    /* And merging into an empty one copies. */
    nvb__hist_merge(e, all);
    ck_assert_int_eq(memcmp(e->buckets, all->buckets, sizeof(e->buckets)), 0);
    ck_assert_uint_eq(e->min, all->min);
    ck_assert_uint_eq(e->max, all->max);

    for (int p = 0; p < parts; p++)
        free(part[p]);
    free(e);
    free(m);
    free(all);
}
END_TEST

START_TEST(empty)
{
    struct nvb__hist *h = hist_new();
    ck_assert_uint_eq(h->count, 0);
    ck_assert_uint_eq(h->min, UINT64_MAX);
    ck_assert_uint_eq(h->max, 0);
    for (unsigned i = 0; i < NVB__HIST_BUCKETS; i++)
        ck_assert_uint_eq(h->buckets[i], 0);
    ck_assert_double_eq(nvb__hist_pct(h, 0.0), 0.0);
    ck_assert_double_eq(nvb__hist_pct(h, 50.0), 0.0);
    ck_assert_double_eq(nvb__hist_pct(h, 100.0), 0.0);
    ck_assert_double_eq(nvb__hist_mean(h), 0.0);
    ck_assert_double_eq(nvb__hist_stddev(h), 0.0);

    nvb__hist_add(h, 0);
    ck_assert_double_eq(nvb__hist_pct(h, 50.0), 0.0);
    ck_assert_uint_eq(h->min, 0);
    ck_assert_double_eq(nvb__hist_stddev(h), 0.0);
    free(h);
}
END_TEST

START_TEST(stddev_constant)
{
    /* Large identical values: E[x^2]-E[x]^2 may round negative; must be 0,
     * never NaN. */
    struct nvb__hist *h = hist_new();
    for (int j = 0; j < 100000; j++)
        nvb__hist_add(h, UINT64_C(987654321987));
    double sd = nvb__hist_stddev(h);
    ck_assert(!isnan(sd));
    ck_assert_double_le(sd, 1e-6 * 987654321987.0);
    ck_assert_double_eq(nvb__hist_pct(h, 37.0), 987654321987.0);
    free(h);
}
END_TEST

/* Population stddev of v[0..n) by two passes in long double. */
static double two_pass_sd(const uint64_t *v, unsigned n)
{
    long double mean = 0, acc = 0;
    for (unsigned i = 0; i < n; i++)
        mean += (long double)v[i];
    mean /= n;
    for (unsigned i = 0; i < n; i++)
        acc += ((long double)v[i] - mean) * ((long double)v[i] - mean);
    return (double)sqrtl(acc / n);
}

START_TEST(stddev_tiny_spread)
{
    /* A 10 ns spread at a 1 s mean (E[x^2] - E[x]^2 in doubles gave
     * thousands of ns here), then 3 ns at 2^62 ns: exact. */
    static const uint64_t base[] = {1000000000ull, UINT64_C(1) << 62};
    static const uint64_t spread[] = {10, 3};
    for (int k = 0; k < 2; k++) {
        struct nvb__hist *h = hist_new();
        for (int j = 0; j < 100000; j++)
            nvb__hist_add(h, j % 2 ? base[k] + spread[k] : base[k] - spread[k]);
        ck_assert_msg(nvb__hist_stddev(h) == (double)spread[k], "stddev %.17g, want %llu", nvb__hist_stddev(h),
                      (unsigned long long)spread[k]);
        free(h);
    }
    /* and an uneven one against two passes */
    uint64_t v[999];
    struct nvb__hist *h = hist_new();
    rng_state = 99;
    for (unsigned j = 0; j < 999; j++) {
        v[j] = 1000000000000ull + rng_next() % 1000;
        nvb__hist_add(h, v[j]);
    }
    double want = two_pass_sd(v, 999), got = nvb__hist_stddev(h);
    ck_assert_msg(fabs(got - want) <= 1e-12 * want, "stddev %.17g, two passes %.17g", got, want);
    free(h);
}
END_TEST

START_TEST(sums_beyond_64_bits)
{
    /* Four latencies near 2^63 ns: the sum passes 2^64, the sum of squares
     * 2^128; neither wraps. */
    uint64_t v[4];
    struct nvb__hist *h = hist_new();
    for (unsigned j = 0; j < 4; j++) {
        v[j] = (UINT64_C(1) << 63) + j;
        nvb__hist_add(h, v[j]);
    }
    ck_assert(h->sum == ((unsigned __int128)1 << 65) + 6);
    ck_assert_uint_eq(h->sumsq_hi, 1);
    ck_assert_double_eq(nvb__hist_mean(h), 9223372036854775808.0 + 1.5);
    ck_assert_double_eq(nvb__hist_stddev(h), sqrt(1.25));
    ck_assert_ptr_null(nvb__hist_check_sums(h));
    /* n samples of one value at once (a batch's slat): the same sums as n
     * single adds, past 2^128 too */
    struct nvb__hist *one = hist_new(), *many = hist_new();
    for (int k = 0; k < 7; k++)
        nvb__hist_add(one, UINT64_MAX - 5);
    nvb__hist_add_n(many, UINT64_MAX - 5, 7);
    ck_assert(one->sum == many->sum && one->sumsq == many->sumsq && one->sumsq_hi == many->sumsq_hi);
    ck_assert_uint_eq(many->sumsq_hi, 6); /* 7 (2^64 - 6)^2 = 6 * 2^128 + ... */
    ck_assert(!memcmp(one->buckets, many->buckets, sizeof one->buckets) && one->count == many->count);
    free(one);
    free(many);
    free(h);
}
END_TEST

START_TEST(wide_helpers_match_the_compiler)
{
    /* The library's 128-bit division and conversion (util.c, which keep
     * the Windows DLL free of libgcc_s) against the compiler's own. */
    rng_state = 5;
    for (int k = 0; k < 200000; k++) {
        uint64_t d = rng_next() >> (rng_next() % 64), lo = rng_next(), hi = rng_next() >> (rng_next() % 64);
        if (!d)
            d = 1;
        hi %= d;
        unsigned __int128 x = (unsigned __int128)hi << 64 | lo;
        uint64_t rem = 0, q = nvb__div128(hi, lo, d, &rem);
        ck_assert_msg(q == (uint64_t)(x / d) && rem == (uint64_t)(x % d), "%llx:%llx / %llx",
                      (unsigned long long)hi, (unsigned long long)lo, (unsigned long long)d);
        uint64_t h2 = rng_next() >> (rng_next() % 65 == 64 ? 63 : rng_next() % 64);
        ck_assert(nvb__u128_double(h2, lo) == (double)((unsigned __int128)h2 << 64 | lo));
    }
    /* ties round to even: 2^64 + 2^11 lies halfway between two doubles */
    ck_assert(nvb__u128_double(1, 2048) == 18446744073709551616.0);
    ck_assert(nvb__u128_double(1, 2049) == 18446744073709555712.0);
    uint64_t w[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX}, back[3];
    char buf[80];
    ck_assert_str_eq(nvb__wide_to_dec(w, 3, buf, sizeof buf), "6277101735386680763835789423207666416102355444464034512895");
    ck_assert_int_eq(nvb__wide_from_dec(buf, back, 3), 0);
    ck_assert(!memcmp(w, back, sizeof w));
    ck_assert_int_eq(nvb__wide_from_dec("6277101735386680763835789423207666416102355444464034512896", back, 3), -ERANGE);
    ck_assert_int_eq(nvb__wide_from_dec("12x", back, 3), -EINVAL);
    ck_assert_int_eq(nvb__wide_from_dec("", back, 3), -EINVAL);
}
END_TEST

/* The sums' word-by-word adds (hist.h) against the compiler's 128-bit
 * arithmetic, carries into every word included. */
START_TEST(sum_adds_match_the_compiler)
{
    rng_state = 11;
    for (int k = 0; k < 200000; k++) {
        const int big = k % 4 == 0; /* words near 2^64: every carry taken */
        unsigned __int128 a = (unsigned __int128)(big ? UINT64_MAX - rng_next() % 3 : rng_next()) << 64 |
                              (big ? UINT64_MAX - rng_next() % 3 : rng_next());
        const uint64_t v = big ? UINT64_MAX - rng_next() % 3 : rng_next() >> (rng_next() % 64);
        const unsigned __int128 w = (unsigned __int128)v * (big ? v : rng_next());
        unsigned __int128 s = a, q = a;
        uint64_t hi = k, hi_want = k + ((unsigned __int128)(a + w) < w);
        nvb__u128_add64(&s, v);
        nvb__u192_add(&q, &hi, w);
        ck_assert(s == a + v);
        ck_assert(q == a + w && hi == hi_want);
    }
}
END_TEST

START_TEST(merge_refuses_count_overflow)
{
    struct nvb__hist *a = hist_new(), *b = hist_new();
    nvb__hist_add(a, 5);
    nvb__hist_add(b, 7);
    nvb__hist_add(b, 9);
    a->count = UINT64_MAX - 1; /* as a loaded histogram may claim */
    a->buckets[5] = a->count;
    ck_assert_int_eq(nvb__hist_merge(a, b), -EOVERFLOW);
    ck_assert_uint_eq(a->count, UINT64_MAX - 1);
    ck_assert(a->sum == 5);
    ck_assert_uint_eq(a->max, 5);
    b->count = 1;
    ck_assert_int_eq(nvb__hist_merge(a, b), 0);
    ck_assert_uint_eq(a->count, UINT64_MAX);
    free(a);
    free(b);
}
END_TEST

START_TEST(check_sums)
{
    struct nvb__hist *h = hist_new();
    for (uint64_t x = 100; x < 200; x++)
        nvb__hist_add(h, x);
    ck_assert_ptr_null(nvb__hist_check_sums(h));
    h->sumsq -= 100000; /* less than sum^2 / count (but above min * sum): a negative variance */
    ck_assert_ptr_nonnull(nvb__hist_check_sums(h));
    h->sumsq += 100000;
    h->sumsq_hi = 1;     /* more than max * sum */
    ck_assert_ptr_nonnull(nvb__hist_check_sums(h));
    h->sumsq_hi = 0;
    h->sum += (unsigned __int128)1 << 100; /* a mean beyond max */
    ck_assert_ptr_nonnull(nvb__hist_check_sums(h));
    free(h);
}
END_TEST

START_TEST(pct_supported_rule)
{
    /* rank r = ceil(n p / 100): supported when r >= 10 and n - r >= 10 */
    static const struct { uint64_t n; double p; int ok; } c[] = {
        {3000, 99.99, 0}, {3000, 99, 1}, {1000, 99, 1}, {999, 99, 0}, {10000, 99.9, 1}, {9999, 99.9, 0},
        {100000, 99.99, 1}, {99999, 99.99, 0}, {1000000, 99.999, 1}, {999999, 99.999, 0},
        {1000, 1, 1}, {999, 1, 1}, {900, 1, 0}, {20, 50, 1}, {19, 50, 0}, {0, 50, 0}, {5, 1, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        ck_assert_msg(nvb__hist_pct_supported(c[i].n, c[i].p) == c[i].ok, "n %llu p%g: want %d",
                      (unsigned long long)c[i].n, c[i].p, c[i].ok);
}
END_TEST

static Suite *hist_suite(void)
{
    Suite *s = suite_create("hist");
    TCase *tc = tcase_create("geometry");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, bucket_geometry);
    tcase_add_test(tc, index_without_branches);
    tcase_add_test(tc, job_hist_takes_only_the_groups_written);
    tcase_add_test(tc, coalesced_runs_are_per_io_adds);
    tcase_add_test(tc, bucket_values);
    suite_add_tcase(s, tc);

    tc = tcase_create("percentiles");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, error_bound, 0, D_NDIST);
    tcase_add_test(tc, out_of_range_pct);
    tcase_add_test(tc, huge_values);
    tcase_add_test(tc, empty);
    tcase_add_test(tc, stddev_constant);
    tcase_add_test(tc, stddev_tiny_spread);
    tcase_add_test(tc, sums_beyond_64_bits);
    tcase_add_test(tc, check_sums);
    tcase_add_test(tc, pct_supported_rule);
    suite_add_tcase(s, tc);

    tc = tcase_create("merge");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, merge_exact, 2, 9);
    tcase_add_test(tc, merge_refuses_count_overflow);
    tcase_add_test(tc, wide_helpers_match_the_compiler);
    tcase_add_test(tc, sum_adds_match_the_compiler);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = tu_run_suite(hist_suite());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
