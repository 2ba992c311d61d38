/*
 * The seed matrix's cells (core/seed.c) and the public percentile rank rule
 * (nvb_pct_*, core/hist.c): the published cells in the published order with
 * fields that agree with each other, the refused arguments leaving *value
 * alone, and the rank, support and fewest-latencies answers the bindings'
 * tables print.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvbench.h>

#include "testutil.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *field(size_t i, const char *name)
{
    const char *v = NULL;
    ck_assert_int_eq(nvb_seed_cell(i, name, &v), 0);
    ck_assert_ptr_nonnull(v);
    return v;
}

START_TEST(published_cells_in_order)
{
    static const struct { const char *label, *rw, *bs; } want[] = {
        {"Random 4K read", "randread", "4k"},     {"Random 64K read", "randread", "64k"},
        {"Sequential 64K read", "read", "64k"},   {"Sequential 128K read", "read", "128k"},
        {"Random 4K write", "randwrite", "4k"},   {"Random 64K write", "randwrite", "64k"},
        {"Sequential 64K write", "write", "64k"}, {"Sequential 128K write", "write", "128k"},
    };
    ck_assert_uint_eq(nvb_seed_cells(), LEN(want));
    for (size_t i = 0; i < LEN(want); i++) {
        ck_assert_str_eq(field(i, "label"), want[i].label);
        ck_assert_str_eq(field(i, "rw"), want[i].rw);
        ck_assert_str_eq(field(i, "bs"), want[i].bs);
    }
}
END_TEST

/* key is workload_op, op is the direction of rw, workload the pattern and
 * the block size; no two cells alike. */
START_TEST(fields_agree)
{
    for (size_t i = 0; i < nvb_seed_cells(); i++) {
        const char *key = field(i, "key"), *wl = field(i, "workload"), *op = field(i, "op");
        const char *rw = field(i, "rw"), *bs = field(i, "bs"), *label = field(i, "label");
        char buf[64];
        snprintf(buf, sizeof buf, "%s_%s", wl, op);
        ck_assert_str_eq(key, buf);
        ck_assert_str_eq(op, strstr(rw, "write") ? "write" : "read");
        snprintf(buf, sizeof buf, "%s%s", strncmp(rw, "rand", 4) == 0 ? "rand" : "seq", bs);
        ck_assert_str_eq(wl, buf);
        size_t ll = strlen(label), lo = strlen(op);
        ck_assert(ll > lo && strcmp(label + ll - lo, op) == 0);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(field(j, "key"), key);
    }
}
END_TEST

START_TEST(refused_arguments)
{
    const char *v = "untouched";
    ck_assert_int_eq(nvb_seed_cell(nvb_seed_cells(), "key", &v), -ERANGE);
    ck_assert_int_eq(nvb_seed_cell((size_t)-1, "key", &v), -ERANGE);
    ck_assert_int_eq(nvb_seed_cell(0, "colour", &v), -EINVAL);
    ck_assert_int_eq(nvb_seed_cell(0, "", &v), -EINVAL);
    ck_assert_int_eq(nvb_seed_cell(0, NULL, &v), -EINVAL);
    ck_assert_str_eq(v, "untouched");
    ck_assert_int_eq(nvb_seed_cell(0, "key", NULL), -EINVAL);
}
END_TEST

/* nvb_seed_write_keys: the write cells' keys from their options, and the refusals. */
START_TEST(write_cell_keys)
{
    char buf[256], why[256];
    const char *judged[] = {"metric", "bw"};
    ck_assert_int_eq(nvb_seed_write_keys(judged, 1, buf, sizeof buf, why, sizeof why), 16);
    ck_assert_str_eq(buf, "ss=bw\nss.stop=1\n");
    const char *all[] = {"runtime", "2h", "stop", "false", "window", "5m", "metric", "lat", "precondition", "3"};
    ck_assert_int_ge(nvb_seed_write_keys(all, 5, buf, sizeof buf, why, sizeof why), 0);
    ck_assert_str_eq(buf, "precondition=3\nss=lat\nss.window=5m\nss.stop=false\nruntime=2h\n");
    const char *none[] = {"precondition", "0"};
    ck_assert_int_eq(nvb_seed_write_keys(none, 1, buf, sizeof buf, why, sizeof why), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_int_eq(nvb_seed_write_keys(NULL, 0, buf, sizeof buf, why, sizeof why), 0);
    const struct {
        const char *opts[4];
        size_t n;
        const char *says;
    } bad[] = {
        {{"metrc", "iops"}, 1, "unknown option 'metrc'"},
        {{"window", "5m"}, 1, "needs a metric"},
        {{"metric", ""}, 1, "needs a metric"},
        {{"precondition", "-1"}, 1, "'-1' for key 'precondition'"},
        {{"metric", "iops", "window", "5m\nss=bw"}, 2, "line break"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(nvb_seed_write_keys(bad[i].opts, bad[i].n, buf, sizeof buf, why, sizeof why), -EINVAL);
        ck_assert_msg(strstr(why, bad[i].says) != NULL, "'%s' does not say '%s'", why, bad[i].says);
    }
    ck_assert_int_eq(nvb_seed_write_keys(judged, 1, buf, 8, why, sizeof why), -ENOSPC);
    ck_assert_int_eq(nvb_seed_write_keys(NULL, 1, buf, sizeof buf, why, sizeof why), -EINVAL);
}
END_TEST

START_TEST(pct_rank_cases)
{
    static const struct { uint64_t n; double p; uint64_t r; } c[] = {
        {1000, 99.9, 999}, {1000, 99, 990}, {100000, 99.99, 99990}, {20, 50, 10}, {21, 50, 11},
        {1000, 0, 1}, {1000, 100, 1000}, {1000, 150, 1000}, {1000, -5, 1}, {0, 50, 1}, {1, 50, 1},
    };
    for (size_t i = 0; i < LEN(c); i++)
        ck_assert_msg(nvb_pct_rank(c[i].n, c[i].p) == c[i].r, "n %llu p%g: %llu, want %llu",
                      (unsigned long long)c[i].n, c[i].p, (unsigned long long)nvb_pct_rank(c[i].n, c[i].p),
                      (unsigned long long)c[i].r);
    ck_assert_uint_eq(nvb_pct_rank(1000, NAN), 1);
}
END_TEST

START_TEST(pct_supported_cases)
{
    static const struct { uint64_t n; double p; int ok; } c[] = {
        {3000, 99.99, 0}, {3000, 99, 1}, {1000, 99, 1}, {999, 99, 0}, {10000, 99.9, 1}, {9999, 99.9, 0},
        {1000, 1, 1}, {900, 1, 0}, {20, 50, 1}, {19, 50, 0}, {0, 50, 0}, {1000, 0, 0}, {1000, 100, 0},
    };
    for (size_t i = 0; i < LEN(c); i++)
        ck_assert_msg(nvb_pct_supported(c[i].n, c[i].p) == c[i].ok, "n %llu p%g: want %d",
                      (unsigned long long)c[i].n, c[i].p, c[i].ok);
    ck_assert_int_eq(nvb_pct_supported(1000, NAN), 0);
}
END_TEST

/* The fewest latencies: supported there, not one below (above the floor of
 * 2 tails); none for the extremes and what lies outside. */
START_TEST(pct_min_ios_is_the_fewest)
{
    static const struct { double p; uint64_t n; } c[] = {
        {99, 1000}, {99.9, 10000}, {99.99, 100000}, {99.999, 1000000}, {1, 901}, {50, 20},
        {100, 0}, {0, 0}, {-1, 0}, {101, 0}, {1e-300, 0},
    };
    for (size_t i = 0; i < LEN(c); i++)
        ck_assert_msg(nvb_pct_min_ios(c[i].p) == c[i].n, "p%g: %llu, want %llu", c[i].p,
                      (unsigned long long)nvb_pct_min_ios(c[i].p), (unsigned long long)c[i].n);
    ck_assert_uint_eq(nvb_pct_min_ios(NAN), 0);
    static const double ps[] = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999, 0.1, 33.3};
    for (size_t i = 0; i < LEN(ps); i++) {
        uint64_t n = nvb_pct_min_ios(ps[i]);
        ck_assert_msg(n >= 2 * NVB_PCT_TAIL && nvb_pct_supported(n, ps[i]), "p%g at %llu", ps[i],
                      (unsigned long long)n);
        ck_assert_msg(n == 2 * NVB_PCT_TAIL || !nvb_pct_supported(n - 1, ps[i]), "p%g below %llu", ps[i],
                      (unsigned long long)n);
    }
}
END_TEST

static Suite *seed_suite(void)
{
    Suite *s = suite_create("seed");
    TCase *tc = tcase_create("seed");
    tcase_add_test(tc, published_cells_in_order);
    tcase_add_test(tc, fields_agree);
    tcase_add_test(tc, refused_arguments);
    tcase_add_test(tc, write_cell_keys);
    tcase_add_test(tc, pct_rank_cases);
    tcase_add_test(tc, pct_supported_cases);
    tcase_add_test(tc, pct_min_ios_is_the_fewest);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = tu_run_suite(seed_suite());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
