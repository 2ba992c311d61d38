/*
 * The latency-target search (core/search.c) on latency models that are
 * exact by construction: the probes it names (doubling then bisection for
 * qd; the ceiling then bisection for the rate), its stop rules (the bound,
 * max_qd, max_runs, rel_tol), the answer, the direction judged and the
 * refused targets and options with the message naming them.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvbench.h>

#include "testutil.h"

/* p99 = per_qd_ns x qd, IOPS growing with qd (the model of the bindings' tests) */
static size_t run_qd(struct nvb_search *s, double per_qd_ns, double *calls, size_t max)
{
    size_t n = 0;
    double v;
    int rc;
    while ((rc = nvb_search_next(s, &v)) == 1) {
        ck_assert_uint_lt(n, max);
        calls[n++] = v;
        ck_assert_int_eq(nvb_search_measure(s, NVB_READ, 1000, 1000 * v / (1 + v / 64), per_qd_ns * v, 1), 0);
        ck_assert_int_eq(nvb_search_measure(s, NVB_WRITE, 0, 0, NAN, 1), 0);
    }
    ck_assert_int_eq(rc, 0);
    return n;
}

static struct nvb_search *search(const char *target, const char *vary)
{
    struct nvb_search *s = NULL;
    char why[256];
    ck_assert_msg(nvb_search_create(target, vary, &s, why, sizeof why) == 0, "%s", why);
    return s;
}

static double field(const struct nvb_search *s, size_t i, const char *name)
{
    double v;
    ck_assert_int_eq(nvb_search_point(s, i, name, &v), 0);
    return v;
}

START_TEST(qd_doubles_then_bisects)
{
    static const struct { const char *target; double want; } cases[] = {
        {"p99<=1000us", 10}, {"p99<=1600us", 16}, {"p99<=250us", 2}, {"p99<=1000000us", 64}, {"p99<=99us", -1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct nvb_search *s = search(cases[c].target, "qd");
        ck_assert_int_eq(nvb_search_set(s, "max_qd", "64"), 0);
        double calls[64];
        size_t n = run_qd(s, 100000, calls, 64);
        ck_assert_uint_eq(nvb_search_points(s), n);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < i; j++)
                ck_assert_msg(calls[i] != calls[j], "qd %g probed twice", calls[i]);
        size_t a;
        if (cases[c].want < 0) {
            ck_assert_int_eq(nvb_search_answer(s, &a), -ENOENT);
            ck_assert_uint_eq(n, 1);
        } else {
            ck_assert_int_eq(nvb_search_answer(s, &a), 0);
            ck_assert_double_eq(field(s, a, "value"), cases[c].want);
            for (size_t i = 0; i < n; i++)
                ck_assert_int_eq(field(s, i, "ok") == 1, field(s, i, "lat_ns") <= 100000 * cases[c].want);
        }
        ck_assert_int_eq(nvb_search_cut(s), 0);
        nvb_search_destroy(s);
    }
    struct nvb_search *s = search("p99<=1600us", "qd");
    double calls[64];
    size_t n = run_qd(s, 100000, calls, 64);
    static const double want[] = {1, 2, 4, 8, 16, 32, 24, 20, 18, 17};
    ck_assert_uint_eq(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++)
        ck_assert_double_eq(calls[i], want[i]);
    nvb_search_destroy(s);
}
END_TEST

START_TEST(max_runs_cuts)
{
    struct nvb_search *s = search("p99<=1s", "qd");
    ck_assert_int_eq(nvb_search_set(s, "max_runs", "3"), 0);
    double calls[8];
    ck_assert_uint_eq(run_qd(s, 1000, calls, 8), 3);
    ck_assert_int_eq(nvb_search_cut(s), 1);
    size_t a;
    ck_assert_int_eq(nvb_search_answer(s, &a), 0);
    ck_assert_double_eq(field(s, a, "value"), 4);
    double v;
    ck_assert_int_eq(nvb_search_next(s, &v), 0); /* over stays over */
    ck_assert_int_eq(nvb_search_set(s, "start", "2"), -EBUSY);
    nvb_search_destroy(s);
}
END_TEST

START_TEST(rate_brackets_the_bound)
{
    /* unthrottled: 100000 IOPS at 5 ms; throttled: p99 = 10 us + 10 us per 1000 IOPS */
    struct nvb_search *s = search("p99<500us", "rate_iops");
    ck_assert_int_eq(nvb_search_set(s, "rel_tol", "0.01"), 0);
    double v, first = -1;
    size_t n = 0;
    while (nvb_search_next(s, &v) == 1) {
        if (n++ == 0)
            first = v;
        double iops = v == 0 ? 100000 : v, lat = v == 0 ? 5e6 : 10000 + 10 * v;
        ck_assert_int_eq(nvb_search_measure(s, NVB_READ, 1, iops, lat, 1), 0);
        ck_assert_uint_lt(n, 30);
    }
    ck_assert_double_eq(first, 0);
    size_t a;
    ck_assert_int_eq(nvb_search_answer(s, &a), 0);
    double r = field(s, a, "value");
    ck_assert_msg(r < 49000 && r >= 49000 * 0.99 - 1, "answer %g", r);
    nvb_search_destroy(s);
    /* a ceiling within the bound is the answer, alone */
    s = search("p99<=10ms", "rate_iops");
    ck_assert_int_eq(nvb_search_next(s, &v), 1);
    ck_assert_int_eq(nvb_search_measure(s, NVB_READ, 10, 5000, 1e6, 1), 0);
    ck_assert_int_eq(nvb_search_next(s, &v), 0);
    ck_assert_uint_eq(nvb_search_points(s), 1);
    ck_assert_int_eq(nvb_search_answer(s, &a), 0);
    ck_assert_double_eq(field(s, 0, "value"), 0);
    nvb_search_destroy(s);
}
END_TEST

START_TEST(directions_and_support)
{
    struct nvb_search *s = search("p99<=1ms", "qd");
    ck_assert_int_eq(nvb_search_set(s, "max_qd", "1"), 0);
    double v;
    ck_assert_int_eq(nvb_search_next(s, &v), 1);
    /* the worst direction that did I/O; a write without I/O is not judged */
    ck_assert_int_eq(nvb_search_measure(s, NVB_READ, 100, 10, 5e5, 1), 0);
    ck_assert_int_eq(nvb_search_measure(s, NVB_WRITE, 0, 3, 9e9, 0), 0);
    ck_assert_double_eq(field(s, 0, "lat_ns"), 5e5);
    ck_assert_double_eq(field(s, 0, "iops"), 13);
    ck_assert_double_eq(field(s, 0, "supported"), 1);
    ck_assert_double_eq(field(s, 0, "ok"), 1);
    ck_assert_int_eq(nvb_search_next(s, &v), 0);
    nvb_search_destroy(s);

    s = search("p99<=1ms", "qd");
    ck_assert_int_eq(nvb_search_set(s, "direction", "read"), 0);
    ck_assert_int_eq(nvb_search_next(s, &v), 1);
    ck_assert_int_eq(nvb_search_measure(s, NVB_READ, 100, 10, 5e5, 0), 0);
    ck_assert_int_eq(nvb_search_measure(s, NVB_WRITE, 100, 10, 9e9, 1), 0);
    ck_assert_double_eq(field(s, 0, "lat_ns"), 5e5);
    ck_assert_double_eq(field(s, 0, "supported"), 0);
    nvb_search_destroy(s);

    /* no latency at all: not ok, and an unmeasured probe is refused */
    s = search("mean<=1ms", "qd");
    ck_assert_int_eq(nvb_search_next(s, &v), 1);
    ck_assert_int_eq(nvb_search_next(s, &v), -EINVAL);
    ck_assert_uint_eq(nvb_search_points(s), 0);
    ck_assert_int_eq(nvb_search_measure(s, NVB_READ, 0, 0, NAN, 1), 0);
    ck_assert(isnan(field(s, 0, "lat_ns")));
    ck_assert_double_eq(field(s, 0, "ok"), 0);
    ck_assert_int_eq(nvb_search_next(s, &v), 0);
    size_t a;
    ck_assert_int_eq(nvb_search_answer(s, &a), -ENOENT);
    ck_assert_int_eq(nvb_search_point(s, 1, "ok", &v), -ERANGE);
    ck_assert_int_eq(nvb_search_point(s, 0, "nope", &v), -EINVAL);
    nvb_search_destroy(s);
}
END_TEST

START_TEST(targets_read)
{
    static const struct { const char *t, *key; double bound; int strict; } good[] = {
        {"p99<=1ms", "p99", 1e6, 0},    {" p99.9 < 1.5ms ", "p99.9", 1.5e6, 1}, {"mean<=200us", "mean", 2e5, 0},
        {"max<2e3ns", "max", 2e3, 1},   {"p50<=1s\x1c", "p50", 1e9, 0},        {"p99<=.5\xc2\xb5s", "p99", 500, 0},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct nvb_search *s = search(good[i].t, "qd");
        double b;
        int strict;
        ck_assert_str_eq(nvb_search_percentile(s, &b, &strict), good[i].key);
        ck_assert_double_eq_tol(b, good[i].bound, 1e-6);
        ck_assert_int_eq(strict, good[i].strict);
        nvb_search_destroy(s);
    }
    static const struct { const char *t, *vary, *why; } bad[] = {
        {"p99<=1", "qd", "needs a unit"},
        {"p99<=1xs", "qd", "unit 'xs'"},
        {"p42<=1ms", "qd", "'p42' is not measured"},
        {"p99>=1ms", "qd", "expected PERCENTILE<=BOUND"},
        {"p99<=1..2ms", "qd", "expected PERCENTILE<=BOUND"},
        {"p99<=0ms", "qd", "above 0"},
        {"p99<=1ms", "bs", "vary must be"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct nvb_search *s = (struct nvb_search *)&s;
        char why[256] = "";
        ck_assert_int_eq(nvb_search_create(bad[i].t, bad[i].vary, &s, why, sizeof why), -EINVAL);
        ck_assert_ptr_eq(s, (struct nvb_search *)&s); /* bad input writes nothing */
        ck_assert_msg(strstr(why, bad[i].why) != NULL, "%s: %s", bad[i].t, why);
    }
}
END_TEST

START_TEST(options_refused)
{
    struct nvb_search *s = search("p99<=1ms", "qd");
    static const char *const bad[][2] = {
        {"start", "0"}, {"start", "-1"}, {"max_qd", "2.0"}, {"max_runs", "True"}, {"rel_tol", "1"},
        {"rel_tol", "0"}, {"rel_tol", "x"}, {"direction", "up"}, {"bs", "4k"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(nvb_search_set(s, bad[i][0], bad[i][1]), -EINVAL);
        ck_assert_msg(strstr(nvb_search_error(s), bad[i][0]) != NULL, "%s", nvb_search_error(s));
    }
    ck_assert_int_eq(nvb_search_set(s, "start", "8"), 0);
    ck_assert_int_eq(nvb_search_set(s, "max_qd", "4"), 0);
    double v;
    ck_assert_int_eq(nvb_search_next(s, &v), -EINVAL);
    ck_assert_str_eq(nvb_search_error(s), "start=8 is above max_qd=4");
    nvb_search_destroy(s);
    nvb_search_destroy(NULL);
}
END_TEST

static Suite *search_suite(void)
{
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("search");
    tcase_add_test(tc, qd_doubles_then_bisects);
    tcase_add_test(tc, max_runs_cuts);
    tcase_add_test(tc, rate_brackets_the_bound);
    tcase_add_test(tc, directions_and_support);
    tcase_add_test(tc, targets_read);
    tcase_add_test(tc, options_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = tu_run_suite(search_suite());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
