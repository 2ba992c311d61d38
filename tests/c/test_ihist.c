/*
 * Interval histograms (core/ihist.[ch]), what the time series' p50/p99/p99.9
 * rest on: a sparse list taken from dense counts holds exactly their
 * non-empty buckets, its percentiles are the midpoints of the buckets that
 * hold the pooled samples' order statistics, and adding lists (intervals of
 * one run, points of several hosts) in any order gives the list of the union.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/ihist.h"
#include "testutil.h"
#include "util/rand.h"

#define NINTERVALS 7
#define PER 3000

static uint64_t st;
static uint64_t rnd(void)
{
    return nvb__splitmix64(&st);
}

/* A latency: mostly 20..200 us, a tail to 50 ms, some below 64 ns. */
static uint64_t latency(void)
{
    uint64_t r = rnd() % 1000;
    if (r < 20)
        return rnd() % 64;
    if (r < 990)
        return 20000 + rnd() % 180000;
    return 200000 + rnd() % 50000000;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double mid_of(uint64_t v)
{
    unsigned i = nvb__hist_index(v);
    return (double)nvb__hist_bucket_low(i) + (double)(nvb__hist_bucket_width(i) - 1) / 2.0;
}

static struct nvb__ihist *from_samples(const uint64_t *v, size_t n, uint64_t *acc)
{
    for (size_t i = 0; i < n; i++)
        acc[nvb__hist_index(v[i])]++;
    int oom = 0;
    struct nvb__ihist *h = nvb__ihist_take(acc, 0, NVB__HIST_BUCKETS - 1, &oom);
    ck_assert_int_eq(oom, 0);
    for (unsigned i = 0; i < NVB__HIST_BUCKETS; i++)
        ck_assert_uint_eq(acc[i], 0); /* taken: the counts are zeroed */
    return h;
}

/* The percentile of the sorted samples: the midpoint of the bucket of the
 * order statistic of rank ceil(p/100 n). */
static void check_pcts(const struct nvb__ihist *h, uint64_t *v, size_t n)
{
    static const double pcts[] = {0, 1, 25, 50, 90, 99, 99.9, 99.99, 100};
    qsort(v, n, sizeof *v, cmp_u64);
    for (size_t k = 0; k < sizeof pcts / sizeof pcts[0]; k++) {
        uint64_t rank = nvb__hist_rank(n, pcts[k]);
        ck_assert_double_eq(nvb__ihist_pct(h, pcts[k]), mid_of(v[rank - 1]));
    }
}

START_TEST(intervals_pct_and_union)
{
    st = 0x1234 + (uint64_t)_i;
    uint64_t *all = malloc(NINTERVALS * PER * sizeof *all);
    uint64_t *acc = calloc(NVB__HIST_BUCKETS, sizeof *acc);
    struct nvb__ihist *iv[NINTERVALS];
    ck_assert_ptr_nonnull(all);
    ck_assert_ptr_nonnull(acc);
    for (int k = 0; k < NINTERVALS; k++) {
        uint64_t *v = all + (size_t)k * PER;
        for (int i = 0; i < PER; i++)
            v[i] = latency();
        iv[k] = from_samples(v, PER, acc);
        ck_assert_uint_eq(iv[k]->count, PER);
        for (unsigned i = 1; i < iv[k]->n; i++)
            ck_assert_uint_gt(iv[k]->b[i].i, iv[k]->b[i - 1].i);
    }
    /* the union, added in an order that depends on the loop index */
    struct nvb__ihist *u = NULL;
    for (int k = 0; k < NINTERVALS; k++)
        ck_assert_int_eq(nvb__ihist_add(&u, iv[(k * (_i + 3)) % NINTERVALS]), 0);
    struct nvb__ihist *whole = from_samples(all, (size_t)NINTERVALS * PER, acc);
    ck_assert_uint_eq(u->count, whole->count);
    ck_assert_uint_eq(u->n, whole->n);
    for (unsigned i = 0; i < u->n; i++) {
        ck_assert_uint_eq(u->b[i].i, whole->b[i].i);
        ck_assert_uint_eq(u->b[i].c, whole->b[i].c);
    }
    for (int k = 0; k < NINTERVALS; k++) {
        check_pcts(iv[k], all + (size_t)k * PER, PER); /* sorts the interval's samples in place */
        free(iv[k]);
    }
    check_pcts(u, all, (size_t)NINTERVALS * PER);
    free(u);
    free(whole);
    free(acc);
    free(all);
}
END_TEST

START_TEST(empty_and_overflow)
{
    uint64_t acc[NVB__HIST_BUCKETS] = {0};
    int oom = 0;
    ck_assert_ptr_null(nvb__ihist_take(acc, 0, NVB__HIST_BUCKETS - 1, &oom));
    ck_assert(isnan(nvb__ihist_pct(NULL, 50)));
    acc[100] = UINT64_MAX - 1;
    struct nvb__ihist *a = nvb__ihist_take(acc, 0, NVB__HIST_BUCKETS - 1, &oom);
    acc[100] = 2;
    struct nvb__ihist *b = nvb__ihist_take(acc, 90, 110, &oom);
    ck_assert_int_eq(nvb__ihist_add(&a, b), -EOVERFLOW);
    ck_assert_uint_eq(a->count, UINT64_MAX - 1); /* unchanged */
    ck_assert_int_eq(nvb__ihist_add(&a, NULL), 0);
    struct nvb__ihist *c = nvb__ihist_dup(b);
    ck_assert_int_eq(nvb__ihist_add(&c, b), 0);
    ck_assert_uint_eq(c->count, 4);
    ck_assert_uint_eq(c->n, 1);
    free(a);
    free(b);
    free(c);
}
END_TEST

static Suite *ihist_suite(void)
{
    Suite *s = suite_create("ihist");
    TCase *pct = tcase_create("percentiles and unions"), *lim = tcase_create("limits");
    tcase_add_loop_test(pct, intervals_pct_and_union, 0, 4);
    tcase_add_test(lim, empty_and_overflow);
    tcase_set_timeout(pct, 120);
    suite_add_tcase(s, pct);
    suite_add_tcase(s, lim);
    return s;
}

int main(void)
{
    int failed = tu_run_suite(ihist_suite());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
