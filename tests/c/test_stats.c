/*
 * Statistics of repeated runs (core/stats.c): the Student-t quantile against
 * its table and closed forms, the mean's interval inside each domain (a
 * share's in (0, 100), a rate's above 0, the reported n = 2 cases among
 * them), the cases with no interval saying why, the ratio being that of the
 * arithmetic means, Welch's difference, and the refused arguments.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <nvbench.h>

#include "testutil.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(t_critical_table)
{
    static const struct { double df, conf, t; } c[] = {
        { 1, 0.95, 12.7062 }, { 2, 0.95, 4.3027 }, { 5, 0.95, 2.5706 }, { 10, 0.95, 2.2281 },
        { 30, 0.95, 2.0423 }, { 4, 0.99, 4.6041 }, { 9, 0.90, 1.8331 }, { INFINITY, 0.95, 1.95996 },
    };
    for (size_t i = 0; i < LEN(c); i++) {
        double t = 0;
        ck_assert_int_eq(nvb_stats_t_critical(c[i].df, c[i].conf, &t), 0);
        ck_assert_msg(fabs(t - c[i].t) < 6e-4, "df %g conf %g: %.6f, want %.4f", c[i].df, c[i].conf, t, c[i].t);
    }
    double t;
    ck_assert_int_eq(nvb_stats_t_critical(1, 0.95, &t), 0);
    ck_assert(fabs(t - tan(M_PI * 0.475)) < 1e-9 * t); /* df 1: the Cauchy quantile */
    double p;
    ck_assert_int_eq(nvb_stats_t_cdf(0.0, 3.0, &p), 0);
    ck_assert(p == 0.5);
    ck_assert_int_eq(nvb_stats_t_cdf(t, 1.0, &p), 0);
    ck_assert(fabs(p - 0.975) < 1e-9);
}
END_TEST

START_TEST(share_interval_stays_in_0_100)
{
    /* the reported n = 2 cases: [0.00, 26219858.41] and [0.00, 1.59e+15] */
    static const double cases[][3] = { { 99.5, 11.8, NAN }, { 61.82, 0.0, NAN }, { 0.0, 49.56, NAN },
                                       { 34.42, 64.42, 94.42 }, { 99.9, 99.99, NAN } };
    for (size_t i = 0; i < LEN(cases); i++) {
        size_t n = isnan(cases[i][2]) ? 2 : 3;
        struct nvb_estimate e;
        ck_assert_int_eq(nvb_stats_mean_interval(cases[i], n, NVB_DOMAIN_SHARE, 0.95, &e), 0);
        ck_assert_int_eq(e.why, NVB_CI_OK);
        ck_assert_int_eq(e.method, NVB_CI_LOGIT);
        ck_assert_msg(0.0 < e.low && e.low <= e.value && e.value <= e.high && e.high < 100.0,
                      "case %zu: %g [%g, %g]", i, e.value, e.low, e.high);
        double sum = 0;
        for (size_t k = 0; k < n; k++)
            sum += cases[i][k];
        ck_assert(e.value == sum / (double)n && e.mean_a == e.value && e.n_a == n);
    }
}
END_TEST

START_TEST(positive_interval_stays_above_0)
{
    const double x[] = { 10e3, 120e3 }, with_zero[] = { 0.0, 5.0 };
    struct nvb_estimate e;
    ck_assert_int_eq(nvb_stats_mean_interval(x, 2, NVB_DOMAIN_POSITIVE, 0.95, &e), 0);
    ck_assert(e.method == NVB_CI_LOG && e.low > 0 && e.low < e.value && e.value < e.high);
    /* the delta method: log(high / mean) = t * s / (sqrt(n) * mean) */
    double t, m = 65e3, s = sqrt(((10e3 - m) * (10e3 - m) + (120e3 - m) * (120e3 - m)) / 1.0);
    ck_assert_int_eq(nvb_stats_t_critical(1, 0.95, &t), 0);
    ck_assert(fabs(log(e.high / m) - t * s / (sqrt(2.0) * m)) < 1e-12);
    ck_assert(fabs(log(m / e.low) - t * s / (sqrt(2.0) * m)) < 1e-12);
    ck_assert_int_eq(nvb_stats_mean_interval(with_zero, 2, NVB_DOMAIN_POSITIVE, 0.95, &e), 0);
    ck_assert(e.why == NVB_CI_OK && e.low > 0);
}
END_TEST

START_TEST(no_interval_says_why)
{
    const double one[] = { 7.0 }, zeros[] = { 0.0, 0.0 }, full[] = { 100.0, 100.0 };
    const double holes[] = { NAN, 3.0, INFINITY };
    struct nvb_estimate e;
    ck_assert_int_eq(nvb_stats_mean_interval(one, 1, NVB_DOMAIN_SHARE, 0.95, &e), 0);
    ck_assert(e.why == NVB_CI_FEW && e.value == 7.0 && isnan(e.low) && isnan(e.high));
    ck_assert_str_eq(nvb_stats_why(e.why), "n<2");
    ck_assert_int_eq(nvb_stats_mean_interval(NULL, 0, NVB_DOMAIN_SHARE, 0.95, &e), 0);
    ck_assert(e.why == NVB_CI_NO_RUN && isnan(e.value) && e.n_a == 0);
    ck_assert_int_eq(nvb_stats_mean_interval(zeros, 2, NVB_DOMAIN_SHARE, 0.95, &e), 0);
    ck_assert(e.why == NVB_CI_BOUND && e.value == 0.0 && isnan(e.low));
    ck_assert_int_eq(nvb_stats_mean_interval(full, 2, NVB_DOMAIN_SHARE, 0.95, &e), 0);
    ck_assert(e.why == NVB_CI_BOUND);
    ck_assert_int_eq(nvb_stats_mean_interval(zeros, 2, NVB_DOMAIN_POSITIVE, 0.95, &e), 0);
    ck_assert(e.why == NVB_CI_BOUND);
    /* a run without the figure (NaN, inf) is left out, not counted as 0 */
    ck_assert_int_eq(nvb_stats_mean_interval(holes, 3, NVB_DOMAIN_POSITIVE, 0.95, &e), 0);
    ck_assert(e.n_a == 1 && e.value == 3.0 && e.why == NVB_CI_FEW);
}
END_TEST

START_TEST(ratio_is_of_the_arithmetic_means)
{
    const double a[] = { 99.5, 11.8 }, b[] = { 60.0, 52.8 };
    struct nvb_estimate e;
    ck_assert_int_eq(nvb_stats_ratio(a, 2, b, 2, NVB_DOMAIN_SHARE, 0.95, &e), 0);
    ck_assert(e.mean_a == (99.5 + 11.8) / 2 && e.mean_b == (60.0 + 52.8) / 2);
    ck_assert(e.value == e.mean_b / e.mean_a);
    ck_assert(e.why == NVB_CI_OK && e.low > 0 && e.low < e.value && e.value < e.high);
    ck_assert(fabs(log(e.value / e.low) - log(e.high / e.value)) < 1e-12); /* symmetric on the log scale */
    const double one[] = { 5.0 }, two[] = { 6.0, 7.0 };
    ck_assert_int_eq(nvb_stats_ratio(one, 1, two, 2, NVB_DOMAIN_POSITIVE, 0.95, &e), 0);
    ck_assert(e.why == NVB_CI_FEW && e.value == 6.5 / 5.0 && isnan(e.low));
    const double zero[] = { 0.0, 0.0 };
    ck_assert_int_eq(nvb_stats_ratio(zero, 2, two, 2, NVB_DOMAIN_POSITIVE, 0.95, &e), 0);
    ck_assert(e.why == NVB_CI_BOUND && isnan(e.value));
    /* a real figure: Welch's difference relative to the baseline's mean */
    const double ra[] = { 10.0, 12.0, 11.0 }, rb[] = { 14.0, 15.0, 16.0 };
    struct nvb_estimate d;
    ck_assert_int_eq(nvb_stats_ratio(ra, 3, rb, 3, NVB_DOMAIN_REAL, 0.95, &e), 0);
    ck_assert_int_eq(nvb_stats_difference(ra, 3, rb, 3, 0.95, &d), 0);
    ck_assert(e.value == 15.0 / 11.0 && e.low == 1.0 + d.low / 11.0 && e.high == 1.0 + d.high / 11.0);
}
END_TEST

START_TEST(welch_difference)
{
    const double a[] = { 5.0, 5.0, 5.0 }, b[] = { 6.0, 6.0 }, c[] = { 1, 2, 3, 4, 5 }, d[] = { 2, 4, 6, 8 };
    struct nvb_estimate e;
    ck_assert_int_eq(nvb_stats_difference(a, 3, b, 2, 0.95, &e), 0);
    ck_assert(e.value == 1.0 && e.low == 1.0 && e.high == 1.0 && isinf(e.df));
    ck_assert_int_eq(nvb_stats_difference(c, 5, d, 4, 0.95, &e), 0);
    double va = 2.5 / 5, vb = (20.0 / 3) / 4, df = (va + vb) * (va + vb) / (va * va / 4 + vb * vb / 3), t;
    ck_assert(fabs(e.df - df) < 1e-12);
    ck_assert_int_eq(nvb_stats_t_critical(df, 0.95, &t), 0);
    ck_assert(fabs(e.high - (2.0 + t * sqrt(va + vb))) < 1e-12);
}
END_TEST

START_TEST(refused_arguments)
{
    const double x[] = { 1.0, 2.0 };
    struct nvb_estimate e;
    double t;
    ck_assert_int_eq(nvb_stats_t_critical(0, 0.95, &t), -EINVAL);
    ck_assert_int_eq(nvb_stats_t_critical(5, 1.5, &t), -EINVAL);
    ck_assert_int_eq(nvb_stats_t_critical(NAN, 0.95, &t), -EINVAL);
    ck_assert_int_eq(nvb_stats_t_critical(5, 0.95, NULL), -EINVAL);
    ck_assert_int_eq(nvb_stats_t_cdf(1.0, -1.0, &t), -EINVAL);
    ck_assert_int_eq(nvb_stats_mean_interval(x, 2, 7, 0.95, &e), -EINVAL);
    ck_assert_int_eq(nvb_stats_mean_interval(NULL, 2, NVB_DOMAIN_SHARE, 0.95, &e), -EINVAL);
    ck_assert_int_eq(nvb_stats_mean_interval(x, 2, NVB_DOMAIN_SHARE, 0.95, NULL), -EINVAL);
    ck_assert_int_eq(nvb_stats_mean_interval(x, 2, NVB_DOMAIN_SHARE, 0.0, &e), -EINVAL);
    ck_assert_int_eq(nvb_stats_ratio(x, 2, NULL, 1, NVB_DOMAIN_SHARE, 0.95, &e), -EINVAL);
    ck_assert_int_eq(nvb_stats_ratio(x, 2, x, 2, -1, 0.95, &e), -EINVAL);
    ck_assert_int_eq(nvb_stats_difference(x, 2, x, 2, 1.0, &e), -EINVAL);
    ck_assert_str_eq(nvb_stats_why(99), "unknown");
}
END_TEST

static Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, t_critical_table);
    tcase_add_test(tc, share_interval_stays_in_0_100);
    tcase_add_test(tc, positive_interval_stays_above_0);
    tcase_add_test(tc, no_interval_says_why);
    tcase_add_test(tc, ratio_is_of_the_arithmetic_means);
    tcase_add_test(tc, welch_difference);
    tcase_add_test(tc, refused_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = tu_run_suite(stats_suite());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
